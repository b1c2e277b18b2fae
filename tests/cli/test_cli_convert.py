"""`vap-lsp convert SOURCE... [-o OUTDIR] [--report text|json|markdown] [--verify TESTS...]`.

Exit codes: 0 converted (with --verify: every evaluable case agrees), 1 a case disagrees or the
output has an error under `vap-lsp check`, 2 bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vap_lsp.cli.main import main

CAPABILITIES = (
    Path(__file__).parent.parent
    / "fixtures"
    / "libraries"
    / "gatekeeper-library"
    / "library"
    / "pod-security-policy"
    / "capabilities"
)


def test_files_written_and_verified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    rc = main(["convert", str(CAPABILITIES), "-o", str(out), "--verify", str(CAPABILITIES)])
    report = capsys.readouterr().out
    assert rc == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml")) == [
        "crds/k8spspcapabilities.constraints.gatekeeper.sh.yaml",
        "gatekeeper-k8spspcapabilities.yaml",
    ]
    kinds = [d["kind"] for d in yaml.safe_load_all((out / "gatekeeper-k8spspcapabilities.yaml").read_text())]
    assert kinds == ["ValidatingAdmissionPolicy", *["ValidatingAdmissionPolicyBinding"] * 2]
    assert report.splitlines()[0] == (
        "vap-lsp convert: converted 1 of 1 ConstraintTemplates (2 constraints bound): "
        "1 ValidatingAdmissionPolicies in 1 files"
    )
    assert "vap-lsp check on the output: clean" in report
    assert (
        "verified 8 cases from 1 test files: 8 agree (100.0% of evaluable), 0 disagree, 0 not evaluable"
        in report
    )
    # What was written is clean under `vap-lsp check` itself.
    assert main(["check", str(out)]) == 0


def test_yaml_on_stdout_and_the_report_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(CAPABILITIES / "template.yaml")]) == 0
    captured = capsys.readouterr()
    assert [d["kind"] for d in yaml.safe_load_all(captured.out)] == ["ValidatingAdmissionPolicy"]
    assert captured.err.startswith("vap-lsp convert: converted 1 of 1 ConstraintTemplates")


def test_json_and_markdown_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "convert",
                str(CAPABILITIES),
                "-o",
                str(tmp_path),
                "--report",
                "json",
                "--verify",
                str(CAPABILITIES),
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["conversions"][0]["policies"] == ["gatekeeper-k8spspcapabilities"]
    assert (report["verification"]["agree"], report["verification"]["disagree"]) == (8, 0)
    assert main(["convert", str(CAPABILITIES), "-o", str(tmp_path), "--report", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("# vap-lsp convert\n")


def test_a_disagreement_exits_1_and_is_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        (CAPABILITIES / "suite.yaml")
        .read_text()
        .replace("violations: no", "violations: yes", 1)
        .replace("template: template.yaml", f"template: {CAPABILITIES / 'template.yaml'}")
        .replace("constraint: samples", f"constraint: {CAPABILITIES}/samples")
        .replace("object: samples", f"object: {CAPABILITIES}/samples")
    )
    assert (
        main(["convert", str(CAPABILITIES), "-o", str(tmp_path / "out"), "--verify", str(suite), "--explain"])
        == 1
    )
    report = capsys.readouterr().out
    assert "7 agree (87.5% of evaluable), 1 disagree" in report
    assert "  DISAGREE " in report and "expected violations: yes; converted: 0 violation(s)" in report
    assert (
        "gatekeeper-k8spspcapabilities / binding gatekeeper-k8spspcapabilities-psp-capabilities-baseline"
        in report
    )


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert main(["convert", str(tmp_path / "cm.yaml")]) == 2
    assert "no Gatekeeper ConstraintTemplate or constraint and no Kyverno policy" in capsys.readouterr().err
    assert main(["convert", str(tmp_path / "missing.yaml")]) == 2
    assert main(["convert", str(CAPABILITIES), "--kubernetes-version", "0.1"]) == 2
    assert (
        main(["convert", str(CAPABILITIES), "-o", str(tmp_path / "o"), "--verify", str(tmp_path / "cm.yaml")])
        == 2
    )
