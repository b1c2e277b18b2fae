"""Junk in snapshots and audit logs is counted or reported, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.impact.test_impact_snapshot import POLICIES

JUNK_OBJECTS: list[Any] = [
    {"apiVersion": "v1", "kind": "Pod", "metadata": 5, "spec": "x"},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": None, "namespace": ["a"], "labels": "x"}},
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [None, 3, {"image": 7}]},
    },
    {"apiVersion": 3, "kind": {"a": 1}},
    {"apiVersion": "v1"},
    "a string document",
    [1, 2, 3],
    None,
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns0", "labels": {"enforce": 1}}},
    {
        "apiVersion": "v1",
        "kind": "List",
        "items": [{"apiVersion": "v1", "kind": "Pod"}, 4, {"kind": "List", "items": "x"}],
    },
]


def test_junk_objects_are_admitted_or_fail_like_the_server_would_never_crash(
    tmp_path: Path, impact_json: Any
) -> None:
    (tmp_path / "p.yaml").write_text(POLICIES)
    (tmp_path / "junk.json").write_text("\n".join(json.dumps(o) for o in JUNK_OBJECTS))
    code, report = impact_json(
        [str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "junk.json"), "--jobs", "1"]
    )
    # Kubernetes objects (apiVersion and kind strings) only: 3 Pods, the Namespace, the List's Pod
    assert report["requests"] == 5
    assert code in (0, 1)
    assert not any("internal error" in n for n in report["notes"])


def test_junk_audit_lines_are_counted_never_a_crash(tmp_path: Path, impact_json: Any) -> None:
    lines = [
        "{",
        "[]",
        "null",
        json.dumps({"kind": "Event"}),
        json.dumps({"kind": "Event", "verb": "create", "objectRef": "x", "user": 5, "responseStatus": "ok"}),
        json.dumps(
            {"kind": "Event", "verb": "update", "objectRef": {"name": 3}, "responseObject": {"kind": "Pod"}}
        ),
        json.dumps(
            {
                "kind": "Event",
                "verb": "create",
                "objectRef": {"resource": "pods", "namespace": "a", "name": "b"},
                "responseObject": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}},
                "user": {"username": 5, "groups": "x", "extra": {"k": "v"}},
                "annotations": {"validation.policy.admission.k8s.io/validation_failure": "[not json"},
                "requestURI": 17,
            }
        ),
        json.dumps({"kind": "EventList", "items": [1, {"kind": "Event", "verb": "delete"}]}),
    ]
    (tmp_path / "p.yaml").write_text(POLICIES)
    (tmp_path / "audit.log").write_text("\n".join(lines) + "\n")
    _code, report = impact_json(
        [str(tmp_path / "p.yaml"), "--audit-log", str(tmp_path / "audit.log"), "--jobs", "1"]
    )
    assert report["audit"]["invalid"] == 3  # "{", "[]", "null"
    assert report["requests"] == report["audit"]["replayed"] == 1  # only the Pod b is a whole object
    # objectRef "x"; a Pod without apiVersion; a delete of nothing known
    assert report["audit"]["noObject"] == 3
    assert report["audit"]["notWrites"] == 1  # the Event without a verb


def test_an_engine_bug_on_one_object_is_a_note_not_a_lost_report(
    tmp_path: Path, impact_json: Any, monkeypatch: Any
) -> None:
    from vap_lsp.admission import engine

    real = engine.PreparedInputs.admit

    def admit(self: Any, request: Any, **kw: Any) -> Any:
        if request.object["metadata"]["name"] == "p1":
            raise RuntimeError("boom")
        return real(self, request, **kw)

    monkeypatch.setattr(engine.PreparedInputs, "admit", admit)
    (tmp_path / "p.yaml").write_text(POLICIES)
    container = {"name": "c", "image": "nginx:1.27", "resources": {"limits": {"memory": "1Gi"}}}
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "ns1", "labels": {"team": "a"}},
            "spec": {"containers": [container]},
        }
        for i in range(3)
    ]
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    _code, report = impact_json(
        [str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "pods.json"), "--jobs", "1"]
    )
    assert report["requests"] == 3
    assert (report["verdicts"]["errors"], report["verdicts"]["admitted"]) == (1, 2)
    assert report["notes"] == ["internal error admitting Pod ns1/p1: RuntimeError('boom')"]
