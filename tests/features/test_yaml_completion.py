"""YAML completion: keys, allowed values, the REST mapping, workspace names, skeletons."""

from __future__ import annotations

from yaml_feature_helpers import CURSOR, at_cursor, index_of

from vap_lsp.features.results import CompletionEntry
from vap_lsp.features.yaml_completion import complete

HEAD = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
BINDING_HEAD = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"

WORKSPACE = index_of(
    {
        "file:///ws/policy.yaml": HEAD + "metadata:\n  name: replica-limit\nspec: {}\n",
        "file:///ws/crd.yaml": """\
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
""",
    }
)


def items(text: str) -> list[CompletionEntry]:
    snapshot, offset = at_cursor(text, WORKSPACE)
    result = complete(snapshot, offset)
    return result.items if result is not None else []


def labels(text: str) -> list[str]:
    return [i.label for i in items(text)]


def test_enum_value_after_an_empty_key() -> None:
    found = items(HEAD + "spec:\n  failurePolicy: " + CURSOR + "\n")
    assert [(i.label, i.insert_text) for i in found] == [("Fail", "Fail"), ("Ignore", "Ignore")]


def test_keys_not_yet_present_with_snippets() -> None:
    found = {
        i.label: i
        for i in items(HEAD + "spec:\n  failurePolicy: Fail\n  " + CURSOR + "\n  validations: []\n")
    }
    assert set(found) == {"auditAnnotations", "matchConditions", "matchConstraints", "paramKind", "variables"}
    assert found["variables"].insert_text == "variables:\n    - $0" and found["variables"].insert_is_snippet
    assert found["matchConstraints"].insert_text == "matchConstraints:\n    $0"


def test_half_typed_key_in_broken_yaml() -> None:
    found = items(HEAD + "spec:\n  failurePolicy: Fail\n  match" + CURSOR + "\n")
    assert "matchConstraints" in [i.label for i in found]
    assert found[0].replace_span is not None


def test_new_list_item_offers_the_item_keys() -> None:
    found = items(HEAD + "spec:\n  validations:\n  - expression: x\n  - " + CURSOR + "\n")
    by_label = {i.label: i.insert_text for i in found}
    assert by_label["expression"] == "expression: "
    assert by_label["reason"] == "reason: ${1|Forbidden,Invalid,RequestEntityTooLarge|}"


def test_list_of_strings_offers_values_not_taken() -> None:
    text = (
        HEAD
        + "spec:\n  matchConstraints:\n    resourceRules:\n    - operations:\n      - CREATE\n      - "
        + CURSOR
        + "\n"
    )
    assert [(i.label, i.insert_text) for i in items(text)] == [
        ("*", '"*"'),
        ("CONNECT", "CONNECT"),
        ("DELETE", "DELETE"),
        ("UPDATE", "UPDATE"),
    ]


def test_resources_of_the_rule_groups_with_subresources() -> None:
    text = (
        HEAD
        + "spec:\n  matchConstraints:\n    resourceRules:\n    - apiGroups: [apps]\n"
        + "      apiVersions: [v1]\n      resources: ["
        + CURSOR
        + "]\n"
    )
    found = labels(text)
    assert {"deployments", "deployments/scale", "statefulsets"} <= set(found)
    assert "pods" not in found
    core = labels(
        HEAD
        + 'spec:\n  matchConstraints:\n    resourceRules:\n      - {apiGroups: [""], resources: [pods, "'
        + CURSOR
        + '"]}\n'
    )
    assert "configmaps" in core and "pods" not in core and "deployments" not in core


def test_api_groups_and_versions() -> None:
    groups = items(
        HEAD + "spec:\n  matchConstraints:\n    resourceRules:\n    - apiGroups: [" + CURSOR + "]\n"
    )
    by_label = {i.label: i.insert_text for i in groups}
    assert by_label['""'] == '""' and "apps" in by_label and "rules.example.com" in by_label
    versions = labels(
        HEAD
        + "spec:\n  matchConstraints:\n    resourceRules:\n    - apiGroups: [apps]\n      apiVersions: ["
        + CURSOR
        + "]\n"
    )
    assert versions == ["*", "v1"]


def test_policy_names_and_param_kinds_from_the_workspace() -> None:
    assert labels(BINDING_HEAD + "spec:\n  policyName: " + CURSOR + "\n") == ["replica-limit"]
    assert "rules.example.com/v1" in labels(HEAD + "spec:\n  paramKind:\n    apiVersion: " + CURSOR + "\n")
    kinds = labels(
        HEAD + "spec:\n  paramKind:\n    apiVersion: rules.example.com/v1\n    kind: " + CURSOR + "\n"
    )
    assert kinds == ["ReplicaLimit"]
    assert "ConfigMap" in labels(HEAD + "spec:\n  paramKind: {apiVersion: v1, kind: " + CURSOR + "}\n")


def test_validation_actions_in_a_flow_list() -> None:
    assert labels(BINDING_HEAD + "spec:\n  validationActions: [Deny, " + CURSOR + "]\n") == ["Audit", "Warn"]


def test_skeletons_in_an_empty_document() -> None:
    found = items(CURSOR)
    assert [i.label for i in found[:4]] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ]
    assert found[0].insert_is_snippet
    assert (found[0].insert_text or "").startswith(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: ${1:policy-name}\n"
    )
    # Kubernetes 1.34 serves MutatingAdmissionPolicy as v1beta1 only.
    assert (found[2].insert_text or "").startswith("apiVersion: admissionregistration.k8s.io/v1beta1\n")


def test_kind_values_and_nothing_inside_block_scalars() -> None:
    assert (
        labels("apiVersion: admissionregistration.k8s.io/v1\nkind: " + CURSOR + "\n")[0]
        == "ValidatingAdmissionPolicy"
    )
    assert items(HEAD + "spec:\n  validations:\n  - expression: |\n      object." + CURSOR + "\n") == []
