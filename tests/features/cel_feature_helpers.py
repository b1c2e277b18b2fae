"""Shared builders for the CEL feature tests: a policy around one expression, a snapshot."""

from __future__ import annotations

from vap_lsp.analysis.engine import AnalysisSettings
from vap_lsp.features.snapshot import DocumentSnapshot, make_snapshot

VAP = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["deployments", "replicasets"]
  variables:
    - name: names
      expression: object.spec.template.spec.containers.map(c, c.name)
  validations:
    - expression: EXPR
"""

MAP = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
  reinvocationPolicy: Never
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: EXPR
"""


def snapshot(text: str) -> DocumentSnapshot:
    return make_snapshot("file:///t.yaml", text, 1, AnalysisSettings("1.34"))


def policy(expression_yaml: str, template: str = VAP) -> str:
    return template.replace("EXPR", expression_yaml)


def at(text: str, needle: str, delta: int | None = None) -> int:
    """Offset `delta` characters into the last occurrence of `needle` (default: its end)."""
    return text.rindex(needle) + (len(needle) if delta is None else delta)
