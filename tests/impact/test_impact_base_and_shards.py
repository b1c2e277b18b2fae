"""`--base GIT_REF` against a git repository built here, and `--shard K/N` + `--merge` equal to
one run (the Dask engine against one process: test_impact_dask.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import vap_lsp.impact
from tests.impact.conftest import impact_cli
from vap_lsp.impact import driver
from vap_lsp.impact.evaluate import ImpactSetup, WorkItem, run
from vap_lsp.impact.report import Impact

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= LIMIT"
    messageExpression: "'at most LIMIT replicas, not ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec: {policyName: max-replicas, validationActions: [Deny]}
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "policies").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "policies" / "replicas.yaml").write_text(POLICY.replace("LIMIT", "5"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "limit 5")
    deployments = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": f"d{i}", "namespace": "web"},
            "spec": {"replicas": i},
        }
        for i in range(1, 9)
    ]
    (tmp_path / "snapshot.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": deployments})
    )
    return repo


def test_base_reports_newly_denied_newly_admitted_and_changed_messages(
    repo: Path, impact_json: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change under review: the limit goes from 5 to 3 (d4, d5 newly denied; d6..d8 still
    # denied with another message), in the working tree, not committed.
    (repo / "policies" / "replicas.yaml").write_text(POLICY.replace("LIMIT", "3"))
    monkeypatch.chdir(repo)
    code, report = impact_json(["policies", "--objects", "../snapshot.json", "--base", "main", "--jobs", "1"])
    changes = report["changes"]
    server = "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: "
    assert [(c["name"], c["message"]) for c in changes["newlyDenied"]] == [
        ("d4", server + "at most 3 replicas, not 4"),
        ("d5", server + "at most 3 replicas, not 5"),
    ]
    assert changes["newlyAdmitted"] == []
    assert [c["name"] for c in changes["changedMessages"]] == ["d6", "d7", "d8"]
    assert changes["changedMessages"][0]["before"] == [server + "at most 5 replicas, not 6"]
    assert code == 1  # something is newly denied

    # The other way round: compared with the stricter policy committed, d4 and d5 are admitted.
    _git(repo, "commit", "-q", "-am", "limit 3")
    (repo / "policies" / "replicas.yaml").write_text(POLICY.replace("LIMIT", "5"))
    code, report = impact_json(["policies", "--objects", "../snapshot.json", "--base", "HEAD", "--jobs", "1"])
    assert [c["name"] for c in report["changes"]["newlyAdmitted"]] == ["d4", "d5"]
    assert report["changes"]["newlyDenied"] == []
    assert code == 0  # nothing newly denied: the pull request may merge


def test_a_policy_added_since_the_base_denies_newly(
    repo: Path, impact_json: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "policies" / "new.yaml").write_text(POLICY.replace("max-replicas", "tiny").replace("LIMIT", "1"))
    monkeypatch.chdir(repo)
    _code, report = impact_json(
        ["policies", "--objects", "../snapshot.json", "--base", "main", "--jobs", "1"]
    )
    assert [c["name"] for c in report["changes"]["newlyDenied"]] == ["d2", "d3", "d4", "d5"]


def test_an_unknown_ref_is_bad_input(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    assert (
        impact_cli(["policies", "--objects", "../snapshot.json", "--base", "no-such-ref", "--jobs", "1"]) == 2
    )
    # `git rev-parse --verify --quiet` fails without a word on stderr: the message says it failed
    assert capsys.readouterr().err == "vap-lsp: git rev-parse --verify --quiet no-such-ref^{commit}: failed\n"


def test_a_failing_git_command_is_bad_input_with_gits_own_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a repository `git rev-parse --show-toplevel` exits 128; its stderr is the message
    (a BaseError, exit 2), not a traceback."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "p.yaml").write_text(POLICY.replace("LIMIT", "5"))
    (tmp_path / "snapshot.json").write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # never find a repository above
    monkeypatch.chdir(outside)
    assert impact_cli(["p.yaml", "--objects", "../snapshot.json", "--base", "main", "--jobs", "1"]) == 2
    assert capsys.readouterr().err == (
        "vap-lsp: git rev-parse --show-toplevel: fatal: not a git repository "
        "(or any of the parent directories): .git\n"
    )


def _json_run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    impact_cli([*argv, "--format", "json"])
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


@pytest.mark.parametrize("limit", ["1000", "1"])
@pytest.mark.parametrize("source", ["--objects", "--audit-log"])
def test_shards_merged_equal_one_run_and_jobs_equal_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, limit: str
) -> None:
    """With `--max-objects 1` too: each list keeps its first row by namespace, kind and name,
    wherever the rows were found."""
    data = str(EXAMPLE / ("cluster.yaml" if source == "--objects" else "audit.log"))
    base = [str(EXAMPLE / "policies"), source, data, "--max-objects", limit]
    whole = _json_run([*base, "--jobs", "1"], capsys)
    files = []
    for k in (1, 2, 3):
        shard = _json_run([*base, "--jobs", "1", "--shard", f"{k}/3"], capsys)
        assert shard["shards"] == [f"{k}/3"]
        assert 0 < shard["requests"] < whole["requests"]
        files.append(tmp_path / f"shard{k}.json")
        files[-1].write_text(json.dumps(shard))
    merged = _json_run(["--merge", *map(str, files)], capsys)
    assert merged.pop("shards") == ["1/3", "2/3", "3/3"]
    assert merged == whole
    if limit == "1":
        deny = next(b for b in whole["bindings"] if b["binding"] == "require-team-label")
        assert (len(deny["objects"]), deny["objectsOmitted"]) == (1, 1 if source == "--audit-log" else 2)
    assert _json_run([*base, "--jobs", "2"], capsys) == whole


def test_merging_results_of_different_runs_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _json_run(
        [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml"), "--jobs", "1"], capsys
    )
    b = _json_run(
        [str(EXAMPLE / "policies"), "--audit-log", str(EXAMPLE / "audit.log"), "--jobs", "1"], capsys
    )
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    (tmp_path / "c.json").write_text("{}")
    assert impact_cli(["--merge", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert "results of different runs" in capsys.readouterr().err
    assert impact_cli(["--merge", str(tmp_path / "c.json")]) == 2
    assert "not a `vap-lsp impact --format json` result" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0/3", "4/3", "2", "a/b"])
def test_bad_shard_is_bad_input(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        impact_cli([str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml"), "--shard", bad])
        == 2
    )
    assert "expected K/N with 1 <= K <= N" in capsys.readouterr().err


def test_merging_a_missing_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert impact_cli(["--merge", str(tmp_path / "nope.json")]) == 2
    assert f"{tmp_path / 'nope.json'}: no such file or directory" in capsys.readouterr().err


def test_sums_of_batches_do_not_depend_on_their_order() -> None:
    """A Dask cluster sums results as they finish: every order gives the same report (notes,
    bounded lists, examples included), here over batches of one request each."""
    import random

    from vap_lsp.admission.api import UserInfo
    from vap_lsp.admission.load import load_policy_inputs
    from vap_lsp.impact.evaluate import ImpactSetup, _prepare, evaluate, new_impact
    from vap_lsp.impact.inputs import iter_objects
    from vap_lsp.impact.locations import Location
    from vap_lsp.impact.sources import add_context, snapshot_items

    inputs = load_policy_inputs([str(EXAMPLE / "policies")])
    snapshot = [Location(str(EXAMPLE / "cluster.yaml"))]
    add_context([inputs], iter_objects(snapshot))
    setup = ImpactSetup(inputs, "1.35", "objects", limit=2)
    prepared = _prepare(setup)
    items = list(snapshot_items(iter_objects(snapshot), operation="CREATE", user=UserInfo()))
    parts = [evaluate(prepared, [item]) for item in items]
    for i, part in enumerate(parts):
        part.note(f"note {i % 4}")
    reports = []
    for seed in range(4):
        random.Random(seed).shuffle(parts)
        total = new_impact(setup)
        for part in parts:
            total.add(part)
        reports.append(total.to_json())
    assert all(r == reports[0] for r in reports)
    assert reports[0]["notes"] == ["note 0", "note 1", "note 2", "note 3"]
    assert reports[0]["requests"] == 15


@pytest.mark.parametrize("engine", [["--jobs", "3"], ["--scheduler", "tcp://scheduler.example:8786"]])
def test_every_request_goes_to_the_dask_engine(
    engine: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--jobs N` reads the first CLUSTER_MIN_REQUESTS requests to decide whether a local cluster
    repays its start; those and the rest of the stream go to the cluster, as `--scheduler` sends
    the whole stream. A stand-in for `impact.scale` (no Dask here) evaluates what it is sent in
    this process and counts it: the 15 objects of the example, the report of one process."""
    sent: list[str] = []

    @contextmanager
    def cluster(scheduler: str | None, jobs: int, say: object) -> Iterator[str]:
        yield scheduler or f"local cluster of {jobs}"

    def run_stream(where: str, setup: ImpactSetup, items: Iterable[WorkItem], progress: object) -> Impact:
        listed = list(items)
        sent.extend(f"{where}: {item.request.name}" for item in listed)
        return run(setup, listed)

    scale = types.ModuleType("vap_lsp.impact.scale")
    scale.cluster = cluster  # type: ignore[attr-defined]
    scale.run_stream = run_stream  # type: ignore[attr-defined]
    base = [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml")]
    whole = _json_run([*base, "--jobs", "1"], capsys)
    monkeypatch.setitem(sys.modules, "vap_lsp.impact.scale", scale)
    monkeypatch.setattr(vap_lsp.impact, "scale", scale, raising=False)
    monkeypatch.setattr(driver, "dask_available", lambda: True)
    monkeypatch.setattr(driver, "CLUSTER_MIN_REQUESTS", 4)  # the example's 15 repay a cluster
    assert _json_run([*base, *engine], capsys) == whole
    where = engine[1] if engine[0] == "--scheduler" else "local cluster of 3"
    assert len(sent) == whole["requests"] == 15
    assert all(line.startswith(f"{where}: ") for line in sent)
