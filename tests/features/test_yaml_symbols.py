"""Document symbols (objects with their validations, variables, …) and workspace symbols."""

from __future__ import annotations

from yaml_feature_helpers import index_of, snap

from vap_lsp.features.symbols import document_symbols, workspace_symbols

TEXT = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  matchConditions:
    - name: not-system
      expression: "true"
  variables:
    - name: replicas
      expression: object.spec.replicas
  validations:
    - expression: variables.replicas <= 5
      message: too many
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
"""


def test_document_symbols() -> None:
    symbols = document_symbols(snap(TEXT))
    assert [(s.name, s.kind, s.detail) for s in symbols] == [
        ("replica-limit", "class", "ValidatingAdmissionPolicy"),
        ("replica-limit-binding", "interface", "ValidatingAdmissionPolicyBinding"),
    ]
    assert [(c.name, c.kind, c.detail) for c in symbols[0].children] == [
        ("not-system", "event", "true"),
        ("replicas", "variable", "object.spec.replicas"),
        ("variables.replicas <= 5", "function", "too many"),
    ]
    assert TEXT[symbols[0].selection.start : symbols[0].selection.end] == "replica-limit"


def test_workspace_symbols_filter_by_name() -> None:
    index = index_of(
        {
            "file:///ws/a.yaml": TEXT,
            "file:///ws/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: replica}\n",
        }
    )
    assert [(s.name, s.container) for s in workspace_symbols(index, "BINDING")] == [
        ("replica-limit-binding", "ValidatingAdmissionPolicyBinding")
    ]
    assert len(workspace_symbols(index, "")) == 2
