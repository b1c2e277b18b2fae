"""MutatingAdmissionPolicy: ApplyConfiguration (server-side apply), JSON Patch, ordering and
reinvocation (`pkg/admission/plugin/policy/mutating`)."""

from __future__ import annotations

from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit
from vap_lsp.defaulting import default_object

TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount"

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "containers": [
            {"name": "app", "image": "nginx", "command": ["run"]},
            {"name": "side", "image": "envoy"},
        ]
    },
}


def _map(name: str, mutations: str, *, extra: str = "") -> str:
    return f"""
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}}
{extra}
  mutations:
{mutations}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: {name}-b}}
spec: {{policyName: {name}}}
"""


def _apply(expr: str) -> str:
    return (
        f"  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: >\n        {expr}\n"
    )


def _patch(expr: str) -> str:
    return f"  - patchType: JSONPatch\n    jsonPatch:\n      expression: >\n        {expr}\n"


def _admit(text: str, obj: dict[str, Any] | None = None) -> AdmissionResult:
    inputs = PolicyInputs.from_objects(d for d in yaml.safe_load_all(text) if d)
    return admit(AdmissionRequestInput("CREATE", obj or POD), inputs, kubernetes_version="1.34")


def test_apply_configuration_merges_list_map_by_name() -> None:
    expr = (
        "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'side', "
        "securityContext: Object.spec.containers.securityContext{runAsNonRoot: true}}]}}"
    )
    result = _admit(_map("m", _apply(expr)))
    assert result.allowed, result.denials
    assert result.patched is not None
    containers = result.patched["spec"]["containers"]
    # The server decodes and defaults the object before admission, and a mutated one again; the
    # ServiceAccount admission plugin mounted the token into the containers before the MAP ran.
    mount = {"name": containers[0]["volumeMounts"][0]["name"], "readOnly": True, "mountPath": TOKEN}
    assert mount["name"].startswith("kube-api-access-")
    assert containers[0] == {
        **default_object(POD, "1.34").object["spec"]["containers"][0],
        "volumeMounts": [mount],
    }
    assert containers[1] == {
        "name": "side",
        "image": "envoy",
        "volumeMounts": [mount],
        "securityContext": {"runAsNonRoot": True},
        "imagePullPolicy": "Always",
        "resources": {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    assert result.patch_diff is not None and "+    securityContext:" in result.patch_diff


def test_apply_configuration_adds_new_list_map_entries_and_map_keys() -> None:
    expr = (
        "Object{metadata: Object.metadata{labels: {'team': 'a'}}, "
        "spec: Object.spec{containers: [Object.spec.containers{name: 'new', image: 'busybox'}]}}"
    )
    result = _admit(_map("m", _apply(expr)))
    assert result.patched is not None
    assert result.patched["metadata"]["labels"] == {"app": "web", "team": "a"}
    assert [c["name"] for c in result.patched["spec"]["containers"]] == ["app", "side", "new"]


def test_apply_configuration_atomic_list_error() -> None:
    expr = "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'app', command: ['x']}]}}"
    result = _admit(_map("m", _apply(expr)))
    assert [d.message for d in result.denials] == [
        "policy 'm' with binding 'm-b' denied request: error applying patch: invalid ApplyConfiguration: "
        "may not mutate atomic arrays, maps or structs: .spec.containers[0].command"
    ]
    assert result.patched is None


def test_apply_configuration_type_name_mismatch() -> None:
    expr = "Object{spec: Object.spec{containers: [Object.spec.wrong{name: 'app'}]}}"
    result = _admit(_map("m", _apply(expr)))
    assert [d.detail for d in result.denials] == [
        'type mismatch: unexpected type name "Object.spec.wrong", expected "Object.spec.containers", '
        "which matches field name path from root Object type"
    ]


def test_json_patch_ops_and_escape_key() -> None:
    expr = (
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/owner'),"
        " value: 'me'},"
        " JSONPatch{op: 'replace', path: '/spec/containers/0/image', value: 'nginx:1.27'},"
        " JSONPatch{op: 'remove', path: '/spec/containers/1'},"
        " JSONPatch{op: 'copy', from: '/metadata/name', path: '/metadata/annotations'},"
        " JSONPatch{op: 'move', from: '/metadata/annotations', path: '/metadata/generateName'}]"
    )
    result = _admit(_map("m", _patch(expr)))
    assert result.allowed, result.denials
    assert result.patched is not None
    assert result.patched["metadata"]["labels"] == {"app": "web", "example.com/owner": "me"}
    assert result.patched["metadata"]["generateName"] == "web"
    assert "annotations" not in result.patched["metadata"]
    assert [c["image"] for c in result.patched["spec"]["containers"]] == ["nginx:1.27"]


def test_json_patch_failed_test_leaves_object_unchanged() -> None:
    expr = (
        "[JSONPatch{op: 'test', path: '/metadata/name', value: 'other'},"
        " JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"
    )
    result = _admit(_map("m", _patch(expr)))
    assert result.allowed
    assert result.patched is None


def test_json_patch_error() -> None:
    """evanphx/json-patch v4 `replace`: a missing parent is an error (a missing key of an
    existing map is not: see test_json_patch_replace_of_a_missing_key_adds_it)."""
    expr = "[JSONPatch{op: 'replace', path: '/spec/nope/deeper', value: 1}]"
    result = _admit(_map("m", _patch(expr)))
    assert [d.detail for d in result.denials] == [
        "JSON Patch: replace operation does not apply: doc is missing path: /spec/nope/deeper: missing value"
    ]
    # MAP errors come back through the generic dispatcher: NewForbidden (403), reason Invalid.
    assert [(d.code, d.reason) for d in result.denials] == [(403, "Invalid")]


def test_failure_policy_ignore_skips_errors() -> None:
    expr = "[JSONPatch{op: 'replace', path: '/spec/nope/deeper', value: 1}]"
    result = _admit(_map("m", _patch(expr), extra="  failurePolicy: Ignore"))
    assert result.allowed


def test_policies_run_in_name_order_and_see_earlier_mutations() -> None:
    first = _map("a-first", _patch("[JSONPatch{op: 'add', path: '/metadata/labels/step', value: '1'}]"))
    second = _map(
        "b-second",
        _patch(
            "[JSONPatch{op: 'add', path: '/metadata/labels/step', value: object.metadata.labels.step + '2'}]"
        ),
    )
    result = _admit(second + first)
    assert result.patched is not None
    assert result.patched["metadata"]["labels"]["step"] == "12"


def _reinvocation(policy: str) -> str:
    # `a` copies the label `b` sets; `b` runs after `a`, so only a reinvocation of `a` sees it.
    a = _map(
        "a",
        _patch(
            "has(object.metadata.labels.b) ? [JSONPatch{op: 'add', path: '/metadata/labels/a', "
            "value: object.metadata.labels.b}] : "
            "[JSONPatch{op: 'test', path: '/metadata/name', value: 'web'}]"
        ),
        extra=f"  reinvocationPolicy: {policy}",
    )
    b = _map("b", _patch("[JSONPatch{op: 'add', path: '/metadata/labels/b', value: 'set-by-b'}]"))
    return a + b


def test_reinvocation_if_needed() -> None:
    result = _admit(_reinvocation("IfNeeded"))
    assert result.patched is not None
    assert result.patched["metadata"]["labels"]["a"] == "set-by-b"


def test_reinvocation_never() -> None:
    result = _admit(_reinvocation("Never"))
    assert result.patched is not None
    assert "a" not in result.patched["metadata"]["labels"]


def test_mutated_object_is_validated() -> None:
    vap = """
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: v}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "object.metadata.labels.added == 'yes'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: v-b}
spec: {policyName: v, validationActions: [Deny]}
"""
    mutation = _map("m", _patch("[JSONPatch{op: 'add', path: '/metadata/labels/added', value: 'yes'}]"))
    assert _admit(vap + mutation).allowed
    assert not _admit(vap).allowed


def test_match_condition_false_skips_mutation() -> None:
    text = _map(
        "m",
        _patch("[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"),
        extra="  matchConditions:\n  - {name: never, expression: 'false'}",
    )
    result = _admit(text)
    assert result.patched is None
    assert result.evaluations[0].why_not == "matchCondition 'never' is false"
