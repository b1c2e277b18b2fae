"""Definition, references and rename: variables in every scalar style, cross-file targets."""

from __future__ import annotations

import pytest
from yaml_feature_helpers import CURSOR, at_cursor, index_of, snap

from vap_lsp.features.edits import apply_edits
from vap_lsp.features.navigation import RenameError, definition, prepare_rename, references, rename

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  variables:
    - name: "replicas"
      expression: object.spec.replicas
  validations:
    - expression: |
        variables.replicas <= 5 &&
          variables.replicas >= 1
    - expression: "variables.replicas\\
        \\ > 0 && 'variables.replicas' != ''"
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: replicalimits.rules.example.com
spec:
  group: rules.example.com
  names: {kind: ReplicaLimit, plural: replicalimits}
  scope: Namespaced
  versions:
    - {name: v1, served: true, storage: true}
---
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: limits
  namespace: default
maxReplicas: 3
"""

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
"""

WORKSPACE = index_of(
    {"file:///ws/policy.yaml": POLICY, "file:///ws/crd.yaml": CRD, "file:///ws/binding.yaml": BINDING}
)


def _texts(text: str, spans: list) -> list[str]:  # type: ignore[type-arg]
    return [text[s.span.start : s.span.end] for s in spans]


def test_variable_definition_from_a_block_scalar() -> None:
    snapshot, offset = at_cursor(
        POLICY.replace("variables.replicas <=", "variables.repl" + CURSOR + "icas <=")
    )
    found = definition(snapshot, offset)
    assert [(d.uri, snapshot.text[d.span.start : d.span.end]) for d in found] == [(snapshot.uri, "replicas")]
    assert snapshot.lines.line_of(found[0].span.start) == 7


def test_references_skip_string_literals() -> None:
    snapshot, offset = at_cursor(POLICY.replace('name: "replicas"', 'name: "repli' + CURSOR + 'cas"'))
    found = references(snapshot, offset)
    assert _texts(snapshot.text, found) == ["replicas"] * 4
    assert len(references(snapshot, offset, include_declaration=False)) == 3


def test_rename_in_block_and_double_quoted_scalars() -> None:
    snapshot, offset = at_cursor(
        POLICY.replace("variables.replicas >=", "variables.re" + CURSOR + "plicas >=")
    )
    span, name = prepare_rename(snapshot, offset) or (None, "")
    assert name == "replicas" and span is not None
    edits = rename(snapshot, offset, "count")
    assert edits is not None
    assert apply_edits(snapshot.text, edits) == POLICY.replace('"replicas"', '"count"').replace(
        "variables.replicas <=", "variables.count <="
    ).replace("variables.replicas >=", "variables.count >=").replace(
        '"variables.replicas\\\n', '"variables.count\\\n'
    )
    with pytest.raises(RenameError):
        rename(snapshot, offset, "in")


def test_policy_name_goes_to_the_policy_in_another_file() -> None:
    snapshot, offset = at_cursor(
        BINDING.replace("policyName: replica", "policyName: repl" + CURSOR + "ica"), WORKSPACE
    )
    assert [(d.uri, d.span) for d in definition(snapshot, offset)] == [
        ("file:///ws/policy.yaml", WORKSPACE.objects(kind="ValidatingAdmissionPolicy")[0].span)
    ]


def test_param_kind_goes_to_the_crd_and_param_ref_to_the_object() -> None:
    snapshot, offset = at_cursor(
        POLICY.replace("kind: ReplicaLimit", "kind: Replica" + CURSOR + "Limit"), WORKSPACE
    )
    found = definition(snapshot, offset)
    assert [d.uri for d in found] == ["file:///ws/crd.yaml"]
    assert CRD[found[0].span.start : found[0].span.end] == "replicalimits.rules.example.com"
    snapshot, offset = at_cursor(BINDING.replace("name: limits", "name: lim" + CURSOR + "its"), WORKSPACE)
    found = definition(snapshot, offset)
    assert [(d.uri, CRD[d.span.start : d.span.end]) for d in found] == [("file:///ws/crd.yaml", "limits")]


def test_policy_references_are_its_bindings() -> None:
    snapshot = snap(POLICY, WORKSPACE, uri="file:///ws/policy.yaml")
    found = references(snapshot, POLICY.index("replica-limit") + 2)
    assert [d.uri for d in found] == ["file:///ws/policy.yaml", "file:///ws/binding.yaml"]
