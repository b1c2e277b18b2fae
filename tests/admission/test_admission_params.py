"""Params through the binding's paramRef (`generic.CollectParams`)."""

from __future__ import annotations

from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "params == null || object.spec.replicas <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: small, namespace: default, labels: {limit: "yes"}}
data: {max: "2"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: large, labels: {limit: "yes"}}
data: {max: "10"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: elsewhere, namespace: other, labels: {limit: "yes"}}
data: {max: "1"}
"""

DEPLOY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "namespace": "default"},
    "spec": {
        "replicas": 5,
        "selector": {"matchLabels": {"app": "d"}},
        "template": {
            "metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
        },
    },
}


def _admit(param_ref: str, obj: dict[str, Any] | None = None) -> AdmissionResult:
    binding = f"""
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {param_ref}
"""
    inputs = PolicyInputs.from_objects(yaml.safe_load_all(POLICY + binding))
    return admit(AdmissionRequestInput("CREATE", obj or DEPLOY), inputs, kubernetes_version="1.34")


PREFIX = "ValidatingAdmissionPolicy 'max-replicas' with binding 'b' denied request: "


def test_param_by_name_in_the_request_namespace() -> None:
    result = _admit("{name: small}")
    assert [d.message for d in result.denials] == [PREFIX + "at most 2"]
    assert result.evaluations[0].param == "default/small"


def test_param_without_namespace_counts_as_default() -> None:
    result = _admit("{name: large}")
    assert result.allowed
    assert result.evaluations[0].param == "large"


def test_param_ref_namespace() -> None:
    result = _admit("{name: elsewhere, namespace: other}")
    assert [d.detail for d in result.denials] == ["at most 1"]


def test_selector_evaluates_once_per_param() -> None:
    result = _admit("{selector: {matchLabels: {limit: 'yes'}}}")
    assert [e.param for e in result.evaluations] == ["large", "default/small"]
    assert [d.detail for d in result.denials] == ["at most 2"]


def test_missing_param_deny() -> None:
    result = _admit("{name: nope, parameterNotFoundAction: Deny}")
    assert [d.message for d in result.denials] == [
        PREFIX + "failed to configure binding: no params found for policy binding with `Deny` "
        "parameterNotFoundAction"
    ]
    assert result.denials[0].code == 422


def test_missing_param_allow() -> None:
    result = _admit("{name: nope, parameterNotFoundAction: Allow}")
    assert result.allowed
    assert result.evaluations[0].why_not == "no params found (parameterNotFoundAction: Allow)"


def test_params_of_another_namespace_are_not_found() -> None:
    obj = {**DEPLOY, "metadata": {"name": "d", "namespace": "prod"}}
    result = _admit("{name: small, parameterNotFoundAction: Deny}", obj)
    assert not result.allowed
    assert "no params found" in result.denials[0].message


def test_cluster_scoped_request_with_namespaced_param_kind() -> None:
    text = POLICY.replace('apiGroups: ["apps"]', 'apiGroups: [""]').replace("deployments", "nodes")
    binding = (
        "\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: b}\n"
        "spec: {policyName: max-replicas, validationActions: [Deny], paramRef: {name: small}}\n"
    )
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"replicas": 1}}
    result = admit(
        AdmissionRequestInput("CREATE", node),
        PolicyInputs.from_objects(yaml.safe_load_all(text + binding)),
        kubernetes_version="1.34",
    )
    assert [d.detail for d in result.denials] == [
        "failed to configure binding: cannot use namespaced paramRef in policy binding that matches "
        "cluster-scoped resources"
    ]


def test_binding_without_param_ref_gets_null_params() -> None:
    text = POLICY + (
        "\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: b}\nspec: {policyName: max-replicas, validationActions: [Deny]}\n"
    )
    result = admit(
        AdmissionRequestInput("CREATE", DEPLOY),
        PolicyInputs.from_objects(yaml.safe_load_all(text)),
        kubernetes_version="1.34",
    )
    assert result.allowed
