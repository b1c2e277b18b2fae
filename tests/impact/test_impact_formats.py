"""The text, markdown and SARIF reports of `vap-lsp impact` on the committed example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.impact.conftest import impact_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"
ARGS = [str(EXAMPLE / "policies"), "--objects", str(EXAMPLE / "cluster.yaml"), "--jobs", "1"]


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    impact_cli(argv)
    return capsys.readouterr().out


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(ARGS, capsys)
    lines = out.splitlines()
    assert lines[0] == "Impact over 15 objects (Kubernetes 1.37)"
    assert lines[1] == (
        "Per request: 3 denied, 2 warned, 0 audited, 0 with errors, 5 admitted, 5 matched by no binding"
    )
    assert lines[3].split("  ") == [
        "binding",
        *[""] * 18,
        "actions",
        "admitted",
        "denied",
        "warned",
        "audited",
        "errors",
        "not matched",
    ]
    assert [line.split() for line in lines[5:8]] == [
        ["no-latest-images", "/", "no-latest-images", "Warn", "4", "0", "3", "0", "0", "8"],
        ["require-team-label", "/", "require-team-label", "Deny", "6", "3", "0", "0", "0", "6"],
        ["team-label-immutable", "/", "team-label-immutable", "Audit", "0", "0", "0", "0", "0", "15"],
    ]
    # numbers right-aligned under their headers
    assert lines[5].index("  4") + 2 == lines[3].index("admitted") + len("admitted") - 1
    assert "  denied: Deployment shop/search: search has no team label" in out


def test_markdown_for_a_pull_request_comment(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out([*ARGS, "--format", "markdown"], capsys)
    assert out.startswith("### vap-lsp impact: 15 objects (Kubernetes 1.37)\n")
    assert "| require-team-label / require-team-label | Deny | 6 | 3 | 0 | 0 | 0 | 6 |" in out
    assert "<details><summary>require-team-label / require-team-label: 3 failing</summary>" in out
    assert "| denied | `Deployment shop/search` | search has no team label |" in out


def test_sarif_one_result_per_failing_request(capsys: pytest.CaptureFixture[str]) -> None:
    sarif = json.loads(_out([*ARGS, "--format", "sarif"], capsys))
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "vap-lsp impact"
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "no-latest-images/spec.validations[0]",
        "require-team-label/spec.validations[0]",
    ]
    levels = sorted(
        (r["level"], r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]) for r in run["results"]
    )
    assert levels == [
        ("error", "Deployment shop/search"),
        ("error", "Pod batch/nightly-report-29-zzzzz"),
        ("error", "Pod shop/search-5c6b7-klmno"),
        ("warning", "Pod batch/nightly-report-29-zzzzz"),
        ("warning", "Pod payments/ledger-6f7c8-pqrst"),
        ("warning", "Pod payments/ledger-6f7c8-uvwxy"),
    ]
    search = next(
        r
        for r in run["results"]
        if r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "Deployment shop/search"
    )
    assert search["message"] == {"text": "denied by binding 'require-team-label': search has no team label"}
    assert search["properties"] == {
        "binding": "require-team-label",
        "verdict": "denied",
        "kind": "Deployment",
        "namespace": "shop",
        "name": "search",
    }


def test_a_result_read_from_a_live_cluster_names_its_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--cluster` records the server in the JSON result (`cluster`); the reports say where the
    objects were read, also when the result is merged later."""
    result = json.loads(_out([*ARGS, "--format", "json"], capsys))
    result["cluster"] = {"server": "https://10.0.0.1:6443", "context": "prod", "lists": []}
    saved = tmp_path / "result.json"
    saved.write_text(json.dumps(result))
    out = _out(["--merge", str(saved)], capsys)
    assert out.splitlines()[0] == (
        "Impact over 15 objects read from the cluster at https://10.0.0.1:6443 (Kubernetes 1.37)"
    )


def test_no_progress_line_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    impact_cli(ARGS)
    assert capsys.readouterr().err == ""


def test_progress_line_counts_requests_and_is_erased(capsys: pytest.CaptureFixture[str]) -> None:
    from vap_lsp.cli.impact import _Progress

    progress = _Progress()
    progress.last -= 1  # the last line was written a second ago
    progress(1200)
    progress(1400)  # within 0.2 s of the last line: not written
    progress.close()
    err = capsys.readouterr().err
    assert err.startswith("\rimpact: 1,200 requests, ")
    assert "1,400" not in err
    assert err.endswith("\r\033[K")
