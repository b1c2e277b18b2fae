"""`vap-lsp impact --audit-log`: audit.k8s.io/v1 Events replayed as admission requests, with the
previous state of the same object as oldObject (the committed example log, and logs written
here)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"


def _binding(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(b for b in report["bindings"] if b["binding"] == name)


def test_the_example_log_replayed(impact_json: Any) -> None:
    """examples/impact/audit.log: a Deployment created, relabelled (the server recorded the
    Audit failure), patched and deleted; a Pod created, dry-run, failed (409), read; an update of
    an object the log never created; a kube-system Pod; an event that is not ResponseComplete."""
    code, report = impact_json(
        [str(EXAMPLE / "policies"), "--audit-log", str(EXAMPLE / "audit.log"), "--jobs", "1"]
    )
    assert report["mode"] == "audit"
    assert report["audit"] == {
        "events": 11,
        "replayed": 7,  # create, update, patch, delete of cart; create debug; update legacy; kube-proxy
        "dryRun": 1,
        "failed": 1,
        "notWrites": 1,
        "otherStages": 1,
        "unknownOldObject": 1,
    }
    immutable = _binding(report, "team-label-immutable")
    # the update changed team shop → payments: the previous state (the create's responseObject)
    # is its oldObject; the patch after it keeps payments, so only one failure
    assert (immutable["audited"], immutable["admitted"], immutable["notMatched"]) == (1, 2, 4)
    (row,) = immutable["objects"]
    assert row == {
        "kind": "Deployment",
        "namespace": "shop",
        "name": "cart",
        "verdict": "audited",
        "message": "label team is immutable (was shop)",
        "field": "spec.validations[0]",
        "operation": "UPDATE",
        "auditID": "7f3c2b1a-0000-4000-8000-000000000002",
        "recorded": "label team is immutable (was shop)",  # the server's own annotation
    }
    assert immutable["recorded"] == 1
    team = _binding(report, "require-team-label")
    assert [(o["name"], o["operation"], o["verdict"]) for o in team["objects"]] == [
        ("legacy", "UPDATE", "denied"),  # sorted by namespace, kind, name
        ("debug", "CREATE", "denied"),
    ]
    assert (team["admitted"], team["notMatched"]) == (3, 2)  # kube-system excluded; the DELETE
    assert report["notes"] == [
        "oldObject unknown for some updates (the object's earlier state is not in the log): "
        "replayed with the object itself as oldObject"
    ]
    assert code == 1


POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas-never-shrink}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE", "DELETE"], resources: ["deployments"]}
  validations:
  - expression: "request.operation == 'DELETE' || object.spec.replicas >= oldObject.spec.replicas"
    messageExpression: "'replicas ' + string(oldObject.spec.replicas) + ' -> ' + string(object.spec.replicas)"
  - expression: "request.operation != 'DELETE' || request.userInfo.username == 'admin'"
    messageExpression: "request.userInfo.username + ' may not delete ' + oldObject.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-never-shrink}
spec: {policyName: replicas-never-shrink, validationActions: [Deny]}
"""


def _deployment(replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {"replicas": replicas},
    }


def _event(i: int, verb: str, user: str, response: Any = None, request: Any = None, **extra: Any) -> str:
    event = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "RequestResponse",
        "auditID": f"id-{i}",
        "stage": "ResponseComplete",
        "requestURI": "/apis/apps/v1/namespaces/prod/deployments/web",
        "verb": verb,
        "user": {"username": user, "groups": ["system:authenticated"]},
        "objectRef": {
            "resource": "deployments",
            "namespace": "prod",
            "name": "web",
            "apiGroup": "apps",
            "apiVersion": "v1",
        },
        "responseStatus": {"metadata": {}, "code": 200},
        **extra,
    }
    if response is not None:
        event["responseObject"] = response
    if request is not None:
        event["requestObject"] = request
    return json.dumps(event)


def test_each_update_sees_the_state_the_log_left_before_it(tmp_path: Path, impact_json: Any) -> None:
    lines = [
        _event(1, "create", "ci", _deployment(3)),
        _event(2, "update", "ci", _deployment(5)),  # 3 → 5
        _event(3, "patch", "ci", _deployment(2), request={"spec": {"replicas": 2}}),  # 5 → 2: denied
        _event(4, "update", "ci", None, request=_deployment(1)),  # level Request: requestObject, 2 → 1
        "not json at all",
        _event(5, "delete", "bob", {"kind": "Status", "apiVersion": "v1", "status": "Success"}),
    ]
    (tmp_path / "p.yaml").write_text(POLICY)
    with gzip.open(tmp_path / "audit.log.gz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    _code, report = impact_json(
        [str(tmp_path / "p.yaml"), "--audit-log", str(tmp_path / "audit.log.gz"), "--jobs", "1"]
    )
    binding = report["bindings"][0]
    assert [(o["auditID"], o["message"]) for o in sorted(binding["objects"], key=lambda o: o["auditID"])] == [
        ("id-3", "replicas 5 -> 2"),
        ("id-4", "replicas 2 -> 1"),
        ("id-5", "bob may not delete web"),  # the DELETE's oldObject: the last state
    ]
    assert (binding["admitted"], binding["denied"], binding["notMatched"]) == (1, 3, 1)
    assert report["audit"]["invalid"] == 1
    assert "unknownOldObject" not in report["audit"]


@pytest.mark.parametrize(
    ("extra", "counted"),
    [
        ({"requestURI": "/apis/apps/v1/namespaces/prod/deployments/web?dryRun=All"}, "dryRun"),
        ({"responseStatus": {"code": 422, "reason": "Invalid"}}, "failed"),
        ({"stage": "ResponseStarted"}, "otherStages"),
    ],
)
def test_dry_run_failed_and_unfinished_requests_are_counted_apart_and_change_no_state(
    tmp_path: Path, impact_json: Any, extra: dict[str, Any], counted: str
) -> None:
    lines = [
        _event(1, "create", "ci", _deployment(3)),
        _event(2, "update", "ci", _deployment(1), **extra),  # not replayed, not the next oldObject
        _event(3, "update", "ci", _deployment(2)),  # 3 → 2
    ]
    (tmp_path / "p.yaml").write_text(POLICY)
    (tmp_path / "audit.log").write_text("\n".join(lines) + "\n")
    _code, report = impact_json(
        [str(tmp_path / "p.yaml"), "--audit-log", str(tmp_path / "audit.log"), "--jobs", "1"]
    )
    assert report["audit"][counted] == 1
    assert report["audit"]["replayed"] == 2
    (row,) = report["bindings"][0]["objects"]
    assert (row["auditID"], row["message"]) == ("id-3", "replicas 3 -> 2")
