""" "Convert to ValidatingAdmissionPolicy" on a document's own text: offered on Gatekeeper and
Kyverno objects only; the result named beside the source, what could not be converted first, as
comments."""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.features.convert_document import convert_document, offers
from vap_lsp.features.snapshot import make_snapshot

POLICY = textwrap.dedent(
    """\
    apiVersion: kyverno.io/v1
    kind: ClusterPolicy
    metadata: {name: pods}
    spec:
      validationFailureAction: Enforce
      rules:
        - name: cel
          match: {any: [{resources: {kinds: [Pod]}}]}
          validate: {cel: {expressions: [{expression: "object.spec.hostNetwork != true"}]}}
        - name: pattern
          match: {any: [{resources: {kinds: [Pod]}}]}
          validate: {pattern: {spec: {hostPID: false}}}
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: x}
    """
)


def test_offered_on_kyverno_and_gatekeeper_objects_only() -> None:
    snapshot = make_snapshot("file:///ws/p.yaml", POLICY, 1, AnalysisSettings())
    assert offers(snapshot, POLICY.index("ClusterPolicy"))
    assert not offers(snapshot, POLICY.index("ConfigMap"))


def test_the_result_beside_the_source_with_what_was_left_out_first() -> None:
    result = convert_document("/ws/pods.yaml", POLICY, "1.36")
    assert result.file_name == "pods.vap.yaml"
    assert (
        result.summary
        == "3 ValidatingAdmissionPolicies written, 1 part(s) not converted (see the file's first lines)"
    )
    first = result.text.splitlines()[0]
    assert first.startswith(
        "# Not converted: ClusterPolicy pods rule pattern: JMESPath pattern [spec.rules[1].validate.pattern]"
    )
    assert "\nkind: ValidatingAdmissionPolicy\n" in result.text
