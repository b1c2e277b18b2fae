"""`impact.sources.audit_items` on single audit events (issue 39): where a request stops being
replayed (an HTTP error status from 400 up, a dry run, a stage other than ResponseComplete, a
verb that writes nothing), which object and user admission saw, and the state the next event
of the same object reads as its oldObject.

Kubernetes: `staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go` (`Event`: `stage`,
`verb`, `objectRef`, `responseStatus` — a `metav1.Status` whose `code` is the HTTP status —,
`requestObject`/`responseObject` at level Request/RequestResponse, `impersonatedUser`),
`endpoints/handlers/rest.go` (`dryRun` query parameter) and the HTTP status classes: a request
answered 4xx/5xx was rejected (by admission or otherwise) and stored nothing; 1xx–3xx succeeded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vap_lsp.impact.inputs import SnapshotError
from vap_lsp.impact.locations import Location
from vap_lsp.impact.sources import AuditStats, Shard, audit_events, audit_items


def _deployment(replicas: int, name: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "prod"},
        "spec": {"replicas": replicas},
    }


def _event(i: int, verb: str = "update", response: Any = None, **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "auditID": f"id-{i}",
        "stage": "ResponseComplete",
        "requestURI": "/apis/apps/v1/namespaces/prod/deployments/web",
        "verb": verb,
        "user": {"username": "ci", "uid": "u-1", "groups": ["system:authenticated"]},
        "objectRef": {"resource": "deployments", "namespace": "prod", "name": "web", "apiGroup": "apps"},
        "responseStatus": {"code": 200},
        "responseObject": response if response is not None else _deployment(i),
    }
    event.update(extra)
    return event


def replay(
    tmp_path: Path, *events: dict[str, Any], shard: Shard | None = None
) -> tuple[list[Any], dict[str, int]]:
    log = tmp_path / "audit.log"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))
    stats = AuditStats({})
    items = list(audit_items([Location(str(log))], stats, shard or Shard()))
    return items, stats.counts


@pytest.mark.parametrize(
    ("code", "replayed"),
    [
        (200, True),
        (201, True),
        (204, True),
        (399, True),
        (400, False),  # the boundary: the first error status
        (403, False),
        (409, False),
        (422, False),
        (500, False),
        ("500", True),  # not an int: no status to read, replayed
        (None, True),
    ],
)
def test_an_http_error_status_is_a_failed_request(tmp_path: Path, code: Any, replayed: bool) -> None:
    items, counts = replay(tmp_path, _event(1, "create"), _event(2, responseStatus={"code": code}), _event(3))
    ids = [item.audit["auditID"] for item in items]
    if replayed:
        assert ids == ["id-1", "id-2", "id-3"]
        assert "failed" not in counts
        # the next update's oldObject is the state the replayed one left
        assert items[2].request.old_object["spec"]["replicas"] == 2
    else:
        assert ids == ["id-1", "id-3"]
        assert counts["failed"] == 1
        # a failed request stored nothing: the next update sees the create's state
        assert items[1].request.old_object["spec"]["replicas"] == 1
    assert counts["events"] == 3


@pytest.mark.parametrize(
    ("uri", "dry_run"),
    [
        ("/apis/apps/v1/namespaces/prod/deployments/web?dryRun=All", True),
        ("/apis/apps/v1/namespaces/prod/deployments/web?fieldManager=x&dryRun=All", True),
        ("/apis/apps/v1/namespaces/prod/deployments/web?dryRun=", False),
        ("/apis/apps/v1/namespaces/prod/deployments/web?xdryRun=All", False),
        ("/apis/apps/v1/namespaces/prod/deployments/web", False),
        ("/apis/apps/v1/namespaces/prod/deployments/dryRun=All", False),  # a path, not the query
    ],
)
def test_dry_run_is_read_from_the_query(tmp_path: Path, uri: str, dry_run: bool) -> None:
    items, counts = replay(tmp_path, _event(1, "create"), _event(2, requestURI=uri))
    assert [i.audit["auditID"] for i in items] == (["id-1"] if dry_run else ["id-1", "id-2"])
    assert counts.get("dryRun", 0) == int(dry_run)


@pytest.mark.parametrize(
    ("changes", "counted"),
    [
        ({"stage": "ResponseStarted"}, "otherStages"),
        ({"stage": "RequestReceived"}, "otherStages"),
        ({"verb": "get"}, "notWrites"),
        ({"verb": "watch"}, "notWrites"),
        ({"verb": "deletecollection"}, "notWrites"),
    ],
)
def test_events_that_are_not_admitted_writes(tmp_path: Path, changes: dict[str, Any], counted: str) -> None:
    items, counts = replay(tmp_path, _event(1, **changes))
    assert items == []
    assert counts == {"events": 1, counted: 1}


def test_an_event_without_a_stage_is_complete(tmp_path: Path) -> None:
    event = _event(1, "create")
    del event["stage"]
    items, counts = replay(tmp_path, event)
    assert len(items) == 1
    assert counts == {"events": 1, "replayed": 1}


@pytest.mark.parametrize(
    ("verb", "operation"),
    [("create", "CREATE"), ("update", "UPDATE"), ("patch", "UPDATE"), ("delete", "DELETE")],
)
def test_verbs_as_operations(tmp_path: Path, verb: str, operation: str) -> None:
    items, _ = replay(tmp_path, _event(1, "create"), _event(2, verb))
    request = items[1].request
    assert request.operation == operation
    if operation == "DELETE":
        # the object is gone: oldObject is the last state, object null (the response is a Status)
        assert request.object is None
        assert request.old_object == _deployment(1)
    else:
        assert request.object == _deployment(2)
        assert request.old_object == _deployment(1)


def test_the_request_carries_the_event_user_and_names(tmp_path: Path) -> None:
    impersonated = {"username": "bob", "groups": ["dev"], "extra": {"scopes": ["a", "b"], "bad": "x"}}
    event = _event(1, "create", impersonatedUser=impersonated)
    event["objectRef"]["subresource"] = "status"
    (item,) = replay(tmp_path, event)[0]
    request = item.request
    assert (request.user.username, request.user.groups, request.user.uid) == ("bob", ("dev",), "")
    assert request.user.extra == {"scopes": ("a", "b")}
    assert (request.namespace, request.name, request.sub_resource) == ("prod", "web", "status")
    assert item.audit == {"auditID": "id-1", "recorded": []}
    anonymous = _event(2, "create", user={})
    (item,) = replay(tmp_path, anonymous)[0]
    assert (item.request.user.username, item.request.user.uid) == ("system:anonymous", "")


def test_a_generate_name_create_takes_its_name_from_the_response(tmp_path: Path) -> None:
    """A create with generateName has no name in its objectRef; the stored object has one."""
    event = _event(1, "create", response=_deployment(1, name="web-x7k2p"))
    del event["objectRef"]["name"]
    items, _ = replay(tmp_path, event, _event(2, "update", response=_deployment(2, name="web-x7k2p")))
    assert [i.request.name for i in items] == ["web-x7k2p", "web"]


def test_an_update_of_an_object_the_log_never_created(tmp_path: Path) -> None:
    (item,) = replay(tmp_path, _event(1))[0]
    assert item.request.old_object == item.request.object
    assert item.note is not None and item.note.startswith("oldObject unknown for some updates")


def test_recorded_validation_failures_are_read_from_the_annotation(tmp_path: Path) -> None:
    failures = [
        {"message": "m", "policy": "p", "binding": "b", "expressionIndex": 0, "validationActions": ["Audit"]}
    ]
    annotations = {"validation.policy.admission.k8s.io/validation_failure": json.dumps(failures)}
    (item,) = replay(tmp_path, _event(1, "create", annotations=annotations))[0]
    assert item.audit["recorded"] == failures
    broken = {"validation.policy.admission.k8s.io/validation_failure": "{not json"}
    (item,) = replay(tmp_path, _event(1, "create", annotations=broken))[0]
    assert item.audit["recorded"] == []


def test_a_request_object_stands_in_when_the_response_is_not_logged(tmp_path: Path) -> None:
    """Level Request: no responseObject; a whole requestObject is the object. A patch body
    (no apiVersion/kind) is not: nothing to replay, and the state is forgotten."""
    request_level = _event(1, "create", requestObject=_deployment(5))
    del request_level["responseObject"]
    patch = _event(2, "patch", requestObject={"spec": {"replicas": 6}})
    del patch["responseObject"]
    items, counts = replay(tmp_path, request_level, patch, _event(3))
    assert [i.audit["auditID"] for i in items] == ["id-1", "id-3"]
    assert items[0].request.object == _deployment(5)
    assert counts["noObject"] == 1
    assert counts["unknownOldObject"] == 1  # id-3: the patch made the state unknown


def test_a_delete_of_an_unknown_object_without_a_body_is_not_replayed(tmp_path: Path) -> None:
    event = _event(1, "delete", response={"kind": "Status", "apiVersion": "v1", "status": "Success"})
    items, counts = replay(tmp_path, event)
    assert items == []
    assert counts["noObject"] == 1


def test_shards_split_by_object(tmp_path: Path) -> None:
    """Every event of one object lands in the same shard; the skipped events are counted by the
    shard that owns them (by position), once over all shards."""
    events = [_event(1, "create"), _event(2, verb="get"), _event(3)]
    events += [
        _event(10 + i, "create", objectRef={"resource": "deployments", "name": f"o{i}"}) for i in range(6)
    ]
    owned = [replay(tmp_path, *events, shard=Shard(k, 3)) for k in (1, 2, 3)]
    ids = sorted(i.audit["auditID"] for items, _ in owned for i in items)
    assert ids == sorted(["id-1", "id-3"] + [f"id-{10 + i}" for i in range(6)])
    assert sum(counts.get("notWrites", 0) for _, counts in owned) == 1
    assert sum(counts.get("events", 0) for _, counts in owned) == 9
    web = [k for k, (items, _) in enumerate(owned) if any(i.audit["auditID"] == "id-1" for i in items)]
    assert len(web) == 1 and any(i.audit["auditID"] == "id-3" for i in owned[web[0]][0])


def test_a_log_gone_before_it_is_read_is_named_in_the_error(tmp_path: Path) -> None:
    """Logs are listed first (`--audit-log` folders, globs, URLs) and opened one after another:
    one rotated away in between stops the run with its name and the system's reason."""
    first, gone = tmp_path / "audit-1.log", tmp_path / "audit-2.log"
    first.write_text(json.dumps(_event(1)) + "\n")
    events = audit_events([Location(str(first)), Location(str(gone))], AuditStats({}))
    assert next(events)["auditID"] == "id-1"
    with pytest.raises(SnapshotError) as info:
        next(events)
    assert str(info.value) == f"{gone}: no such file or directory"
