"""`vap-lsp impact` on Dask (`vap-lsp[scale]`): `--scheduler tcp://…` against a
`distributed.LocalCluster` started here gives the very JSON of a run in one process — for a
snapshot, for audit logs with UPDATE chains (several files, gzip, blocks, an EventList, lines
that are not events) and for `--base`; shards too. Each object's events are ordered by
stageTimestamp on the cluster, whatever their order in the log. Inputs by URL (fsspec)."""

from __future__ import annotations

import gzip
import json
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.impact.conftest import impact_cli
from tests.impact.test_impact_snapshot import POLICIES, snapshot
from vap_lsp.impact import driver

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"

needs_dask = pytest.mark.skipif(
    not driver.dask_available(), reason="Dask is not installed (pip install 'vap-lsp[scale]')"
)

# Deployments: replicas may not shrink (oldObject), a team label is required (Deny), and the
# label may not change (Audit): an UPDATE chain decides each verdict through its previous state.
AUDIT_POLICIES = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: never-shrink}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas >= oldObject.spec.replicas"
    messageExpression: "'replicas ' + string(oldObject.spec.replicas) + ' -> ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: never-shrink}
spec: {policyName: never-shrink, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-immutable}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "object.metadata.name + ' has no team label'"
  - expression: >-
      request.operation != 'UPDATE' || !has(oldObject.metadata.labels) ||
      !('team' in oldObject.metadata.labels) ||
      oldObject.metadata.labels['team'] == object.metadata.labels['team']
    messageExpression: "'team label changed from ' + oldObject.metadata.labels['team']"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-immutable}
spec: {policyName: team-immutable, validationActions: [Audit]}
"""


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """Two single-threaded worker processes, as `dask worker --nthreads 1` would give."""
    if not driver.dask_available():
        pytest.skip("Dask is not installed (pip install 'vap-lsp[scale]')")
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
    ) as local:
        yield str(local.scheduler_address)


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    impact_cli([*argv, "--format", "json"])
    out = capsys.readouterr()
    try:
        result: dict[str, Any] = json.loads(out.out)
    except ValueError:
        raise AssertionError(out.err) from None
    return result


def _stamp(second: int) -> str:
    return f"2026-10-03T10:{second // 60 % 60:02d}:{second % 60:02d}.{second * 7 % 1000000:06d}Z"


def _deployment(i: int, replicas: int, team: str | None) -> dict[str, Any]:
    labels = {"app": f"d{i}"} | ({"team": team} if team else {})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"d{i}", "namespace": f"ns{i % 3}", "labels": labels},
        "spec": {"replicas": replicas},
    }


def _event(n: int, verb: str, obj: dict[str, Any] | None, *, code: int = 200, **extra: Any) -> dict[str, Any]:
    meta = (obj or {}).get("metadata", {})
    event: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "RequestResponse",
        "auditID": f"00000000-0000-4000-8000-{n:012d}",
        "stage": "ResponseComplete",
        "requestURI": f"/apis/apps/v1/namespaces/{meta.get('namespace')}/deployments",
        "verb": verb,
        "user": {"username": f"user-{n % 4}", "groups": ["system:authenticated"]},
        "objectRef": {
            "resource": "deployments",
            "namespace": meta.get("namespace"),
            "name": meta.get("name"),
            "apiGroup": "apps",
            "apiVersion": "v1",
        },
        "responseStatus": {"metadata": {}, "code": code},
        "stageTimestamp": _stamp(n),
    }
    if obj is not None:
        event["requestObject"] = obj
        event["responseObject"] = obj
    event.update(extra)
    return event


def audit_events(objects: int = 60) -> list[dict[str, Any]]:
    """Per Deployment a create, then updates that shrink, grow, relabel or drop the team label,
    some patches and deletes; with reads, a dry run, a conflict. In stageTimestamp order."""
    rng = random.Random(38)
    events: list[dict[str, Any]] = []
    state = {i: (rng.randint(1, 5), f"team-{i % 4}") for i in range(objects)}
    for i in range(objects):
        events.append(_event(len(events), "create", _deployment(i, *state[i])))
    for _round in range(4):
        for i in rng.sample(range(objects), objects // 2):
            replicas, team = state[i]
            change = rng.choice(["shrink", "grow", "relabel", "unlabel", "read", "dry", "conflict"])
            if change == "read":
                events.append(_event(len(events), "get", None))
                continue
            replicas = max(0, replicas - 1) if change == "shrink" else replicas + (change == "grow")
            team = (
                f"team-{rng.randint(0, 9)}" if change == "relabel" else None if change == "unlabel" else team
            )
            obj = _deployment(i, replicas, team)
            if change == "dry":
                events.append(_event(len(events), "update", obj, requestURI="/apis/apps/v1?dryRun=All"))
            elif change == "conflict":
                events.append(_event(len(events), "update", obj, code=409))
            else:
                events.append(_event(len(events), rng.choice(["update", "patch"]), obj))
                state[i] = (replicas, team)
    for i in range(0, objects, 7):
        events.append(
            _event(
                len(events),
                "delete",
                None,
                objectRef={
                    "resource": "deployments",
                    "namespace": f"ns{i % 3}",
                    "name": f"d{i}",
                    "apiGroup": "apps",
                    "apiVersion": "v1",
                },
            )
        )
    return events


def _write_lines(path: Path, lines: list[str]) -> None:
    data = "".join(line + "\n" for line in lines).encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


@pytest.fixture
def audit_logs(tmp_path: Path) -> list[str]:
    """The log over two files (the second gzip-compressed), with an EventList line, a line that
    is not JSON, and a line that is not an Event."""
    events = [json.dumps(e) for e in audit_events()]
    half = len(events) // 2
    first = [*events[:half], "not json", json.dumps({"kind": "Status"})]
    second = [json.dumps({"kind": "EventList", "items": [json.loads(e) for e in events[half : half + 3]]})]
    second += events[half + 3 :]
    (tmp_path / "p.yaml").write_text(AUDIT_POLICIES)
    _write_lines(tmp_path / "audit-1.log", first)
    _write_lines(tmp_path / "audit-2.log.gz", second)
    return [str(tmp_path / "audit-1.log"), str(tmp_path / "audit-2.log.gz")]


@needs_dask
def test_audit_log_on_the_cluster_equals_one_process(
    audit_logs: list[str], scheduler: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of 4 KiB: an object's events are read by different tasks and meet again in one
    partition of the shuffle."""
    from vap_lsp.impact import scale

    monkeypatch.setattr(scale, "BLOCK_BYTES", 4096)
    policies = str(Path(audit_logs[0]).parent / "p.yaml")
    argv = [policies, "--audit-log", *audit_logs, "--max-objects", "0"]
    one = _json([*argv, "--jobs", "1"], capsys)
    assert len(scale.plan_blocks([scale.Location(p) for p in audit_logs])) > 10
    cluster = _json([*argv, "--scheduler", scheduler], capsys)
    assert cluster == one
    # The chains decided verdicts through oldObject, and everything was counted.
    shrink = next(b for b in one["bindings"] if b["policy"] == "never-shrink")
    assert shrink["denied"] > 0 and shrink["admitted"] > 0
    team = next(b for b in one["bindings"] if b["policy"] == "team-immutable")
    assert any(o["message"].startswith("team label changed from") for o in team["objects"])
    assert one["audit"]["invalid"] == 2 and one["audit"]["dryRun"] > 0 and one["audit"]["failed"] > 0
    assert one["audit"]["notWrites"] > 0


@needs_dask
def test_each_objects_history_is_ordered_by_stage_timestamp_on_the_cluster(
    tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same events, the log shuffled: the cluster replays each object's events by
    stageTimestamp, so it equals one process reading the log in order; one process reading the
    shuffled log replays it as written, and says so."""
    events = [json.dumps(e) for e in audit_events(20)]
    (tmp_path / "p.yaml").write_text(AUDIT_POLICIES)
    _write_lines(tmp_path / "ordered.log", events)
    shuffled = events[:]
    random.Random(1).shuffle(shuffled)
    _write_lines(tmp_path / "shuffled.log", shuffled)
    policies = str(tmp_path / "p.yaml")
    ordered = _json([policies, "--audit-log", str(tmp_path / "ordered.log"), "--jobs", "1"], capsys)
    on_cluster = _json(
        [policies, "--audit-log", str(tmp_path / "shuffled.log"), "--scheduler", scheduler], capsys
    )
    assert on_cluster == ordered
    as_written = _json([policies, "--audit-log", str(tmp_path / "shuffled.log"), "--jobs", "1"], capsys)
    assert any("not in stageTimestamp order" in n for n in as_written["notes"])


@needs_dask
def test_snapshot_on_the_cluster_equals_one_process(
    tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """221 objects in batches of 10 over two worker processes, with `--max-objects 3` (each list
    keeps its first rows by namespace, kind and name, wherever they were found)."""
    from vap_lsp.impact import evaluate

    monkeypatch.setattr(evaluate, "BATCH", 10)
    (tmp_path / "p.yaml").write_text(POLICIES)
    (tmp_path / "snap.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": snapshot()}))
    argv = [str(tmp_path / "p.yaml"), "--objects", str(tmp_path / "snap.json"), "--max-objects", "3"]
    one = _json([*argv, "--jobs", "1"], capsys)
    assert one["requests"] == 221
    assert _json([*argv, "--scheduler", scheduler], capsys) == one
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", scheduler)
    assert _json(argv, capsys) == one


@needs_dask
@pytest.mark.parametrize("source", ["--objects", "--audit-log"])
def test_a_shard_on_the_cluster_equals_the_shard_in_one_process(
    source: str, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(EXAMPLE / ("cluster.yaml" if source == "--objects" else "audit.log"))
    argv = [str(EXAMPLE / "policies"), source, data, "--shard", "2/3"]
    assert _json([*argv, "--scheduler", scheduler], capsys) == _json([*argv, "--jobs", "1"], capsys)


@needs_dask
def test_base_on_the_cluster_equals_one_process(
    tmp_path: Path, scheduler: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from tests.impact.test_impact_base_and_shards import POLICY

    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    (repo / "replicas.yaml").write_text(POLICY.replace("LIMIT", "5"))
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "limit 5"], check=True)
    (repo / "replicas.yaml").write_text(POLICY.replace("LIMIT", "3"))
    items = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"d{i}", "namespace": "web"},
            "spec": {"replicas": i % 9},
        }
        for i in range(300)
    ]
    (tmp_path / "snap.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    monkeypatch.chdir(repo)
    argv = ["replicas.yaml", "--objects", str(tmp_path / "snap.json"), "--base", "main"]
    one = _json([*argv, "--jobs", "1"], capsys)
    assert one["changes"]["newlyDenied"]
    assert _json([*argv, "--scheduler", scheduler], capsys) == one


def test_scheduler_without_dask_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(driver, "dask_available", lambda: False)
    argv = [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml")]
    assert impact_cli([*argv, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert (
        "--scheduler tcp://127.0.0.1:8786: running on a Dask cluster needs Dask: pip install 'vap-lsp[scale]'"
        in capsys.readouterr().err
    )
    # Without --scheduler, one process; an explicit --jobs says why it is one.
    assert impact_cli([*argv, "--jobs", "2", "--format", "json"]) == 1
    assert "--jobs 2: running in one process (parallel runs need Dask" in capsys.readouterr().err


@needs_dask
def test_an_unreachable_scheduler_is_bad_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vap_lsp.impact import scale

    monkeypatch.setattr(scale, "CONNECT_TIMEOUT", "1s")
    argv = [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml")]
    assert impact_cli([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot start or reach tcp://127.0.0.1:9" in capsys.readouterr().err


@needs_dask
def test_progress_counts_the_requests_replayed(audit_logs: list[str], scheduler: str) -> None:
    """Each partition tells the client how many requests it replayed (a worker event): what
    the progress line shows on a terminal."""
    from vap_lsp.admission.load import load_policy_inputs
    from vap_lsp.impact import scale
    from vap_lsp.impact.evaluate import ImpactSetup

    inputs = load_policy_inputs([str(Path(audit_logs[0]).parent / "p.yaml")])
    seen: list[int] = []
    with scale.cluster(scheduler, 1) as where:
        result = scale.run_audit(
            where,
            ImpactSetup(inputs, "1.35", "audit", "replay"),
            [scale.Location(p) for p in audit_logs],
            scale.Shard(),
            seen.append,
        )
    assert result.requests > 0
    assert seen[-1] == max(seen) == result.requests


@needs_dask
def test_workers_of_another_version_are_refused(
    scheduler: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from vap_lsp.impact import scale

    monkeypatch.setattr(scale, "__version__", "0.0.0-client")
    argv = [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml")]
    assert impact_cli([*argv, "--scheduler", scheduler]) == 2
    err = capsys.readouterr().err
    assert f"the workers of {scheduler} run vap-lsp " in err
    assert "this is 0.0.0-client: install the same vap-lsp[scale] on the workers" in err
