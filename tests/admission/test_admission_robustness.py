"""Bad inputs never crash admission: they become denials, `why_not`, or are ignored."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit, load_admission_review

GOOD_BINDING = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicyBinding",
    "metadata": {"name": "b"},
    "spec": {"policyName": "p", "validationActions": ["Deny"]},
}


def _policy(spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": spec,
    }


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "x"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
}


@pytest.mark.parametrize(
    "spec",
    [
        "not a mapping",
        None,
        {"validations": "nope"},
        {"validations": [None, 5, {"expression": 7}, {}]},
        {"matchConstraints": {"resourceRules": "x"}},
        {"matchConstraints": {"resourceRules": [{"operations": "CREATE"}]}},
        {
            "matchConstraints": {
                "namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "Bogus"}]}
            }
        },
        {
            "matchConstraints": {"objectSelector": {"matchLabels": "x"}},
            "validations": [{"expression": "true"}],
        },
        {"variables": [{"name": 5, "expression": None}], "validations": [{"expression": "variables.x"}]},
        {"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"}, "validations": [{"expression": "params.a"}]},
        {"auditAnnotations": [{"key": None, "valueExpression": "1"}]},
        {"matchConditions": [{"name": "x", "expression": "1 +"}]},
    ],
)
def test_malformed_policies(spec: Any) -> None:
    inputs = PolicyInputs.from_objects([_policy(spec), GOOD_BINDING])
    result = admit(AdmissionRequestInput("CREATE", POD), inputs, kubernetes_version="1.34")
    result.to_json()


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"kind": "Pod"},
        {"apiVersion": 5, "kind": ["x"], "metadata": "nope"},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": "x", "namespace": 3}},
    ],
)
def test_objects_that_are_not_objects(obj: dict[str, Any]) -> None:
    inputs = PolicyInputs.from_objects(
        [_policy({"validations": [{"expression": "object.metadata.name == 'x'"}]}), GOOD_BINDING]
    )
    admit(AdmissionRequestInput("CREATE", obj), inputs, kubernetes_version="1.34").to_json()


def test_missing_param_kind_objects() -> None:
    spec = {
        "paramKind": {"apiVersion": "example.com/v1", "kind": "Limits"},
        "validations": [{"expression": "params.max > 1"}],
    }
    binding = {
        **GOOD_BINDING,
        "spec": {**GOOD_BINDING["spec"], "paramRef": {"name": "l", "parameterNotFoundAction": "Deny"}},
    }
    result = admit(
        AdmissionRequestInput("CREATE", POD),
        PolicyInputs.from_objects([_policy(spec), binding]),
        kubernetes_version="1.34",
    )
    assert [d.detail for d in result.denials] == [
        "failed to configure binding: paramKind kind "
        "`&ParamKind{APIVersion:example.com/v1,Kind:Limits,}` not known"
    ]


def test_huge_list_comprehension_hits_the_cost_limit() -> None:
    ten = "[1,2,3,4,5,6,7,8,9,10]"
    inner = f"{ten}.map(d, {ten}.map(e, {ten}.map(f, {ten})))"
    expr = f"{ten}.map(a, {ten}.map(b, {ten}.map(c, {inner}))).size() > 0"
    spec = {"validations": [{"expression": expr}]}
    result = admit(
        AdmissionRequestInput("CREATE", POD),
        PolicyInputs.from_objects([_policy(spec), GOOD_BINDING]),
        kubernetes_version="1.34",
    )
    assert [d.detail for d in result.denials] == [
        f"expression '{expr}' resulted in error: operation cancelled: actual cost limit exceeded"
    ]


def test_unknown_kubernetes_version_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        admit(
            AdmissionRequestInput("CREATE", POD), PolicyInputs.from_objects([]), kubernetes_version="banana"
        )


def test_load_admission_review_rejects_non_reviews() -> None:
    with pytest.raises(ValueError):
        load_admission_review({"kind": "Pod"})
    with pytest.raises(ValueError):
        load_admission_review({"kind": "AdmissionReview", "request": {"operation": "PATCH"}})
    review = yaml.safe_load(
        "kind: AdmissionReview\nrequest:\n  operation: DELETE\n  oldObject: {apiVersion: v1, kind: Pod, "
        "metadata: {name: a}}\n  userInfo: {username: u, groups: [g], extra: {k: [v]}}\n  dryRun: true\n"
    )
    request = load_admission_review(review)
    assert request.operation == "DELETE"
    assert request.object is None
    assert request.old_object is not None
    assert request.user.groups == ("g",)
    assert request.dry_run


def test_map_on_unknown_kind_and_bad_patch_values() -> None:
    text = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  mutations:
  - {patchType: ApplyConfiguration, applyConfiguration: {expression: "Object{spec: Object.spec{x: [1, 2]}}"}}
  - {patchType: JSONPatch, jsonPatch: {expression: "[JSONPatch{op: 'bogus', path: '/x'}]"}}
  - {patchType: JSONPatch, jsonPatch: {expression: "[JSONPatch{op: 'add', path: 'no-slash', value: 1}]"}}
  - {patchType: JSONPatch}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "d"}}
    result = admit(
        AdmissionRequestInput("CREATE", widget),
        PolicyInputs.from_objects(yaml.safe_load_all(text)),
        kubernetes_version="1.34",
    )
    assert result.patched is not None and result.patched["spec"] == {"x": [1, 2]}
    assert [d.detail for d in result.denials] == [
        "JSON Patch: Unexpected kind: bogus",
        'JSON Patch: invalid JSON pointer: "no-slash"',
    ]
