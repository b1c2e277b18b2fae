# ruff: noqa: E501, RUF005  (server messages and generated literals are kept on one line each)
"""The six disagreement classes of issue 34 as concrete cases: policies, request and what the API
server answers. Shared by tests/admission/test_admission_oracle_classes.py (vap-lsp alone, no Go
needed) and tests/oracle/test_six_classes.py (vap-lsp beside the oracle)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
    },
}
DEPLOYMENTS = [
    {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["deployments"],
    }
]


def mutating(mutations: list[dict[str, Any]], failure_policy: str = "Fail") -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "m"},
            "spec": {
                "failurePolicy": failure_policy,
                "reinvocationPolicy": "Never",
                "matchConstraints": {"resourceRules": DEPLOYMENTS},
                "mutations": mutations,
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "m-b"},
            "spec": {"policyName": "m"},
        },
    ]


def validating(
    expression: str, rules: list[dict[str, Any]], match_policy: str = "Equivalent"
) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "v"},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": rules, "matchPolicy": match_policy},
                "validations": [{"expression": expression, "message": "no"}],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "v-b"},
            "spec": {"policyName": "v", "validationActions": ["Deny"]},
        },
    ]


def apply(expression: str) -> dict[str, Any]:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def json_patch(expression: str) -> dict[str, Any]:
    return {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}


WIDGET_SCHEMA = {
    "openAPIV3Schema": {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}},
        },
    }
}
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": v,
                "served": True,
                "storage": v == "v1",
                "schema": WIDGET_SCHEMA,
                "subresources": {"status": {}},
            }
            for v in ("v1", "v2")
        ],
    },
}
WIDGET_V2 = {
    "apiVersion": "example.com/v2",
    "kind": "Widget",
    "metadata": {"name": "w", "namespace": "default"},
    "spec": {"size": 5},
}
WIDGET_V1 = {**copy.deepcopy(WIDGET_V2), "apiVersion": "example.com/v1", "status": {"ready": False}}
WIDGET_V1_NEW = {**copy.deepcopy(WIDGET_V1), "spec": {"size": 9}, "status": {"ready": True}}
DEPLOYMENT_OLD = {**copy.deepcopy(DEPLOYMENT), "status": {"replicas": 1}}
DEPLOYMENT_NEW = copy.deepcopy(DEPLOYMENT_OLD)
DEPLOYMENT_NEW["spec"]["replicas"] = 9
DEPLOYMENT_NEW["status"] = {"replicas": 2}
DUPLICATES = copy.deepcopy(DEPLOYMENT)
DUPLICATES["spec"]["template"]["spec"]["containers"].append({"name": "c", "image": "busybox"})
TWO_X = (
    "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: ["
    "Object.spec.template.spec.containers{name: 'x', image: 'a'}, Object.spec.template.spec.containers{name: 'x', image: 'b'}]}}}}"
)


@dataclass
class Case:
    """One request and the server's verdict: `allowed`, the (code, reason) of a denial, its
    message (the status cause), and for an allowed request what the patched object holds."""

    name: str
    documents: list[dict[str, Any]]
    obj: dict[str, Any]
    allowed: bool
    status: tuple[int, str] | None = None
    message: str | None = None
    old: dict[str, Any] | None = None
    sub_resource: str = ""
    patched: dict[str, Any] | None = field(default=None)
    """Expected values at paths of the patched object (None: not mutated)."""


UNDECLARED = "Object{spec: Object.spec{bogus: 1}}"
CASES = [
    # 1. A mutation setting a field the schema does not declare.
    Case(
        "apply-undeclared-field-fail",
        mutating([apply(UNDECLARED)]) + [NS],
        DEPLOYMENT,
        False,
        (403, "Invalid"),
        "policy 'm' with binding 'm-b' denied request: error applying patch: failed to convert patch object to "
        "typed object: .spec.bogus: field not declared in schema",
    ),
    Case("apply-undeclared-field-ignore", mutating([apply(UNDECLARED)], "Ignore") + [NS], DEPLOYMENT, True),
    Case(
        "json-patch-undeclared-field-ignore",
        mutating([json_patch("[JSONPatch{op: 'add', path: '/spec/bogus', value: 1}]")], "Ignore") + [NS],
        DEPLOYMENT,
        False,
        (500, "InternalError"),
        'Internal error occurred: strict decoding error: unknown field "spec.bogus"',
    ),
    # 2. JSON Patch `replace` of a missing key of an existing map: set.
    Case(
        "json-patch-replace-missing-key",
        mutating([json_patch("[JSONPatch{op: 'replace', path: '/metadata/labels/tier', value: 'x'}]")])
        + [NS],
        DEPLOYMENT,
        True,
        patched={"metadata.labels.tier": "x"},
    ),
    # 3. Keyed lists whose items repeat a key: the patch may not, the live object may.
    Case(
        "apply-duplicate-keys-in-patch",
        mutating([apply(TWO_X)]) + [NS],
        DEPLOYMENT,
        False,
        (403, "Invalid"),
        "policy 'm' with binding 'm-b' denied request: error applying patch: failed to convert patch object to "
        'typed object: .spec.template.spec.containers: duplicate entries for key [name="x"]',
    ),
    Case(
        "apply-onto-duplicate-keys",
        mutating([apply("Object{spec: Object.spec{replicas: 3}}")]) + [NS],
        DUPLICATES,
        True,
        patched={"spec.replicas": 3},
    ),
    # 4. Requests for the admission configuration kinds are exempt from policies.
    Case(
        "policies-never-see-policies",
        validating(
            "false",
            [
                {
                    "apiGroups": ["admissionregistration.k8s.io"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["validatingadmissionpolicies"],
                }
            ],
        )
        + [NS],
        validating("true", DEPLOYMENTS)[0],
        True,
    ),
    # 5. matchPolicy Equivalent across the served versions of a CRD.
    Case(
        "equivalent-crd-version",
        validating(
            "object.apiVersion == 'example.com/v1' && object.spec.size < 3",
            [
                {
                    "apiGroups": ["example.com"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["widgets"],
                }
            ],
        )
        + [NS, CRD],
        WIDGET_V2,
        False,
        (422, "Invalid"),
        "ValidatingAdmissionPolicy 'v' with binding 'v-b' denied request: no",
    ),
    Case(
        "exact-crd-version",
        validating(
            "false",
            [
                {
                    "apiGroups": ["example.com"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["widgets"],
                }
            ],
            "Exact",
        )
        + [NS, CRD],
        WIDGET_V2,
        True,
    ),
    # 6. A status update keeps the stored spec (custom resource; Deployment).
    Case(
        "status-update-custom-resource",
        validating(
            "object.spec.size < 6 && object.status.ready",
            [
                {
                    "apiGroups": ["example.com"],
                    "apiVersions": ["v1"],
                    "operations": ["UPDATE"],
                    "resources": ["widgets/status"],
                }
            ],
        )
        + [NS, CRD],
        WIDGET_V1_NEW,
        True,
        old=WIDGET_V1,
        sub_resource="status",
    ),
    Case(
        "status-update-deployment",
        validating(
            "object.spec.replicas < 6 && object.status.replicas == 2",
            [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["UPDATE"],
                    "resources": ["deployments/status"],
                }
            ],
        )
        + [NS],
        DEPLOYMENT_NEW,
        True,
        old=DEPLOYMENT_OLD,
        sub_resource="status",
    ),
]


def at(obj: Any, path: str) -> Any:
    for key in path.split("."):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj
