"""`vap-lsp impact --objects`: exact counts over generated snapshots whose verdicts are known by
construction, read as kubectl writes them (List JSON/YAML, gzip, folders, multi-document)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.impact import inputs
from vap_lsp.impact.locations import Location

POLICIES = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "'pod ' + object.metadata.name + ' has no team label'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team-deny}
spec:
  policyName: require-team
  validationActions: [Deny]
  matchResources:
    namespaceSelector:                       # only namespaces labelled enforce=true
      matchLabels: {enforce: "true"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team-audit}
spec: {policyName: require-team, validationActions: [Audit]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-latest}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: no latest images
  - expression: "object.spec.containers.all(c, c.resources.limits.memory != '')"
    message: memory limit required
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-latest-warn}
spec: {policyName: no-latest, validationActions: [Warn]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' replicas'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-deny}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: limits, namespace: config, parameterNotFoundAction: Deny}
"""

NAMESPACES = 4  # ns0 and ns2 are labelled enforce=true


def _namespace(i: int) -> dict[str, Any]:
    labels = {"enforce": "true"} if i % 2 == 0 else {}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns{i}", "labels": labels}}


def _pod(i: int) -> dict[str, Any]:
    """Pod i: in ns{i % 4}; no team label when i % 3 == 0; a :latest image when i % 5 == 0; no
    limits at all (an evaluation error: no such key) when i % 7 == 0, else a memory limit."""
    container: dict[str, Any] = {"name": "c", "image": "nginx:latest" if i % 5 == 0 else "nginx:1.27"}
    if i % 7:
        container["resources"] = {"limits": {"memory": "64Mi"}}
    labels = {} if i % 3 == 0 else {"team": "a"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"pod-{i}", "namespace": f"ns{i % NAMESPACES}", "labels": labels},
        "spec": {"containers": [container]},
    }


def _deployment(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"web-{i}", "namespace": "ns1"},
        "spec": {"replicas": i, "selector": {}, "template": {}},
    }


LIMITS = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "limits", "namespace": "config"},
    "data": {"max": "3"},
}
PODS, DEPLOYMENTS = 210, 6


def snapshot() -> list[dict[str, Any]]:
    """Deployments and Pods before the Namespaces and the ConfigMap, as `kubectl get all,ns,cm`
    may list them: the snapshot is read for them first."""
    return (
        [_deployment(i) for i in range(DEPLOYMENTS)]
        + [_pod(i) for i in range(PODS)]
        + [_namespace(i) for i in range(NAMESPACES)]
        + [LIMITS]
    )


def expected() -> dict[tuple[str, str], dict[str, int]]:
    """The verdicts, counted from the construction (not from the tool)."""
    enforced = [i for i in range(PODS) if (i % NAMESPACES) % 2 == 0]
    no_team = [i for i in range(PODS) if i % 3 == 0]
    errors = [i for i in range(PODS) if i % 7 == 0]
    latest_only = [i for i in range(PODS) if i % 5 == 0 and i % 7]
    others = DEPLOYMENTS + NAMESPACES + 1
    return {
        ("require-team", "require-team-deny"): {
            "denied": len(set(enforced) & set(no_team)),
            "admitted": len(set(enforced) - set(no_team)),
            "notMatched": PODS - len(enforced) + others,
        },
        ("require-team", "require-team-audit"): {
            "audited": len(no_team),
            "admitted": PODS - len(no_team),
            "notMatched": others,
        },
        ("no-latest", "no-latest-warn"): {
            # an expression error is an error whatever else failed (failurePolicy Fail)
            "errors": len(errors),
            "warned": len(latest_only),
            "admitted": PODS - len(errors) - len(latest_only),
            "notMatched": others,
        },
        ("max-replicas", "max-replicas-deny"): {
            "denied": len([i for i in range(DEPLOYMENTS) if i > 3]),
            "admitted": len([i for i in range(DEPLOYMENTS) if i <= 3]),
            "notMatched": PODS + NAMESPACES + 1,
        },
    }


def _counts(report: dict[str, Any]) -> dict[tuple[str, str], dict[str, int]]:
    keys = ("admitted", "denied", "warned", "audited", "errors", "notMatched")
    return {(b["policy"], b["binding"]): {k: b[k] for k in keys if b[k]} for b in report["bindings"]}


def _list_json(path: Path, objs: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {}}, indent=2))


def _list_yaml(path: Path, objs: list[dict[str, Any]]) -> None:
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {}}))


def _gzip_json(path: Path, objs: list[dict[str, Any]]) -> None:
    with gzip.open(path, "wt") as f:
        json.dump({"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {}}, f)


def _folder(path: Path, objs: list[dict[str, Any]]) -> None:
    path.mkdir()
    half = len(objs) // 2
    (path / "a.yaml").write_text(yaml.safe_dump_all(objs[:half]))  # multi-document
    _list_json(path / "b.json", objs[half:])
    (path / "notes.txt").write_text("not a manifest: skipped in folders")


WRITERS: dict[str, tuple[str, Callable[[Path, list[dict[str, Any]]], None]]] = {
    "list-json": ("snap.json", _list_json),
    "list-yaml": ("snap.yaml", _list_yaml),
    "gzip": ("snap.json.gz", _gzip_json),
    "folder": ("snap", _folder),
}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("shape", sorted(WRITERS))
def test_counts_per_binding_are_known_by_construction(
    tmp_path: Path, impact_json: Any, monkeypatch: pytest.MonkeyPatch, shape: str, streamed: bool
) -> None:
    if streamed:  # every file through the item-by-item readers, in small chunks
        monkeypatch.setattr(inputs, "WHOLE_FILE_BYTES", -1)
        monkeypatch.setattr(inputs, "_CHUNK", 97)
    (tmp_path / "policies.yaml").write_text(POLICIES)
    name, write = WRITERS[shape]
    write(tmp_path / name, snapshot())
    code, report = impact_json(
        [str(tmp_path / "policies.yaml"), "--objects", str(tmp_path / name), "--jobs", "1"]
    )
    assert _counts(report) == expected()
    assert report["requests"] == PODS + DEPLOYMENTS + NAMESPACES + 1
    assert code == 1  # something is denied


def test_denied_objects_messages_top_failures_and_namespaces(tmp_path: Path, impact_json: Any) -> None:
    (tmp_path / "policies.yaml").write_text(POLICIES)
    _list_json(tmp_path / "snap.json", snapshot())
    _code, report = impact_json(
        [str(tmp_path / "policies.yaml"), "--objects", str(tmp_path / "snap.json"), "--jobs", "1"]
    )
    deny = next(b for b in report["bindings"] if b["binding"] == "require-team-deny")
    assert deny["objects"][:2] == [
        {
            "kind": "Pod",
            "namespace": "ns0",
            "name": "pod-0",
            "verdict": "denied",
            "message": "pod pod-0 has no team label",
            "field": "spec.validations[0]",
        },
        {
            "kind": "Pod",
            "namespace": "ns0",
            "name": "pod-108",
            "verdict": "denied",
            "message": "pod pod-108 has no team label",
            "field": "spec.validations[0]",
        },
    ]
    replicas = next(b for b in report["bindings"] if b["binding"] == "max-replicas-deny")
    assert [(o["name"], o["message"]) for o in replicas["objects"]] == [
        ("web-4", "at most 3 replicas"),
        ("web-5", "at most 3 replicas"),
    ]
    warn = next(b for b in report["bindings"] if b["binding"] == "no-latest-warn")
    error = next(o for o in warn["objects"] if o["name"] == "pod-7")
    assert error["verdict"] == "errors"
    assert error["message"].startswith(
        "expression 'object.spec.containers.all(c, c.resources.limits.memory != '')' "
        # a decoded container always has `resources` (a non-pointer struct): `limits` is what is missing
        "resulted in error: no such key: limits"
    )
    top = {(t["policy"], t["field"]): t["count"] for t in report["topFailures"]}
    assert top[("no-latest", "spec.validations[0]")] == len([i for i in range(PODS) if i % 5 == 0])
    assert top[("no-latest", "spec.validations[1]")] == len([i for i in range(PODS) if i % 7 == 0])
    ns = {row["namespace"]: row for row in report["namespaces"]}
    # the Namespace ns0 is a request in ns0 too (the API server sets a Namespace's namespace to its name)
    assert ns["ns0"]["objects"] == len([i for i in range(PODS) if i % 4 == 0]) + 1
    # per request its strongest verdict: in ns0 a pod without team label is denied unless it errs
    assert ns["ns0"]["denied"] == len([i for i in range(PODS) if i % 4 == 0 and i % 3 == 0 and i % 7])
    assert ns["ns1"]["denied"] == 2  # web-4, web-5
    assert report["verdicts"]["denied"] == sum(row["denied"] for row in report["namespaces"])


def test_parameters_missing_from_the_snapshot_deny_every_deployment(tmp_path: Path, impact_json: Any) -> None:
    """parameterNotFoundAction: Deny, and the ConfigMap is not in the snapshot: a configuration
    error of the binding (failurePolicy Fail), counted as errors."""
    (tmp_path / "policies.yaml").write_text(POLICIES)
    _list_json(tmp_path / "snap.json", [o for o in snapshot() if o is not LIMITS])
    _code, report = impact_json(
        [str(tmp_path / "policies.yaml"), "--objects", str(tmp_path / "snap.json"), "--jobs", "1"]
    )
    replicas = next(b for b in report["bindings"] if b["binding"] == "max-replicas-deny")
    assert replicas["errors"] == DEPLOYMENTS
    assert (
        replicas["objects"][0]["message"]
        == "no params found for policy binding with `Deny` parameterNotFoundAction"
    )


def test_update_replays_each_object_as_its_own_old_object(tmp_path: Path, impact_json: Any) -> None:
    policy = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: updates-only}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["configmaps"]}
  validations:
  - expression: "oldObject.data == object.data && object.data.x != 'bad'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: updates-only-b}
spec: {policyName: updates-only, validationActions: [Deny]}
"""
    (tmp_path / "p.yaml").write_text(policy)
    cms = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"c{i}"},
            "data": {"x": "bad" if i == 1 else "ok"},
        }
        for i in range(3)
    ]
    (tmp_path / "cms.yaml").write_text(yaml.safe_dump_all(cms))
    _code, created = impact_json(
        [str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "cms.yaml"), "--jobs", "1"]
    )
    assert created["bindings"][0]["notMatched"] == 3
    code, updated = impact_json(
        [
            str(tmp_path / "p.yaml"),
            "--objects",
            str(tmp_path / "cms.yaml"),
            "--operation",
            "update",
            "--jobs",
            "1",
        ]
    )
    assert (updated["bindings"][0]["admitted"], updated["bindings"][0]["denied"]) == (2, 1)
    assert updated["operation"] == "UPDATE"
    assert code == 1


def test_yaml_timestamps_stay_strings(tmp_path: Path) -> None:
    (tmp_path / "ns.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  creationTimestamp: 2024-05-01T10:00:00Z\n"
    )
    (obj,) = inputs.iter_objects([Location(str(tmp_path / "ns.yaml"))])
    assert obj.obj["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"kind": "List", "items": [', "Expecting value"),
        ("a: [b\n", "expected ',' or ']'"),
    ],
)
def test_broken_snapshots_are_bad_input_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    from tests.impact.conftest import impact_cli

    (tmp_path / "p.yaml").write_text(POLICIES)
    (tmp_path / "snap.json").write_text(text)
    assert (
        impact_cli([str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "snap.json"), "--jobs", "1"]) == 2
    )
    err = capsys.readouterr().err
    assert str(tmp_path / "snap.json") in err and message in err


def test_nothing_to_evaluate_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.impact.conftest import impact_cli

    assert impact_cli([]) == 2
    assert "give --objects PATH, --audit-log PATH or --cluster" in capsys.readouterr().err


def test_a_fifo_in_a_snapshot_folder_is_reported_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from tests.impact.conftest import impact_cli

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    (tmp_path / "p.yaml").write_text(POLICIES)
    (tmp_path / "snap").mkdir()
    os.mkfifo(tmp_path / "snap" / "pipe.yaml")
    assert impact_cli([str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "snap"), "--jobs", "1"]) == 2
    assert "a named pipe (FIFO) is not a regular file" in capsys.readouterr().err


def test_a_mutating_policy_is_counted_with_its_action_mutate(tmp_path: Path, impact_json: Any) -> None:
    """A MutatingAdmissionPolicyBinding has no validationActions (`MutatingAdmissionPolicyBindingSpec`
    in k8s.io/api admissionregistration/v1beta1): the report names its action `Mutate`. Mutating
    admission runs before validating admission (the apiserver's admission chain), so the
    ValidatingAdmissionPolicy sees the label the mutation defaulted: nothing is denied."""
    policies = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: default-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"team": "unknown"}}}'
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: default-team}
spec: {policyName: default-team}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: require-team}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: require-team}
spec: {policyName: require-team, validationActions: [Deny]}
"""
    (tmp_path / "policies.yaml").write_text(policies)
    pods = [_pod(i) for i in (0, 4)]  # pod-0 has no team label, pod-4 has one
    _list_json(tmp_path / "snap.json", pods)
    code, report = impact_json(
        [str(tmp_path / "policies.yaml"), "--objects", str(tmp_path / "snap.json"), "--jobs", "1"]
    )
    assert [(b["binding"], b["actions"], b["admitted"], b["denied"]) for b in report["bindings"]] == [
        ("default-team", ["Mutate"], 2, 0),
        ("require-team", ["Deny"], 2, 0),
    ]
    assert code == 0  # without the mutating policy, pod-0 would be denied
