"""A namespace on one of the four cluster-scoped kinds: the API server clears it
(`rest.BeforeCreate` → `EnsureObjectNamespaceMatchesRequestNamespace`: "cluster-scoped, clear
namespace"), so it is accepted and does nothing: a hint, never an error."""

from __future__ import annotations

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import analyse_text

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b
  namespace: team-a
spec:
  policyName: p
  validationActions: [Deny]
"""


def test_a_namespace_on_a_binding_is_a_hint_that_it_is_ignored() -> None:
    (d,) = analyse_text(BINDING).diagnostics
    assert (d.code, d.severity, d.field) == ("namespace-ignored", Severity.HINT, "metadata.namespace")
    assert d.message == (
        "metadata.namespace: ValidatingAdmissionPolicyBinding is cluster-scoped: the API server clears "
        "the namespace ('team-a' is ignored)"
    )
    assert BINDING[d.span.start : d.span.end] == "team-a"


def test_no_namespace_no_hint() -> None:
    assert analyse_text(BINDING.replace("  namespace: team-a\n", "")).diagnostics == []
