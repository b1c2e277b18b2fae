"""CI outputs of `vap-lsp check` (`--statistics`, `--exit-zero`, `--output-file`, `--format github`,
`--format junit`), and the README's GitHub Actions and GitLab CI jobs run on the examples."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo
  validationActions: [Deny, Warn]
  paramRef:
    name: limits
    selector: {}
"""
POLICY_WITH_WARNING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
    - expression: "object.spec.replica <= 5"
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "binding.yaml").write_text(BINDING, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(POLICY_WITH_WARNING, encoding="utf-8")
    (tmp_path / "clean.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_statistics_counts_per_code_instead_of_the_report(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "binding.yaml", "policy.yaml", "--statistics"]) == 1
    out = capsys.readouterr().out
    assert out == (
        "2  FieldValueForbidden  error\n"
        "1  FieldValueInvalid    error\n"
        "1  FieldValueRequired   error\n"
        "1  cel-type-check       warning\n"
    )


def test_exit_zero_keeps_the_report_but_not_the_failure(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "binding.yaml", "--exit-zero"]) == 0
    assert "[FieldValueInvalid]" in capsys.readouterr().out
    assert main(["check", "missing.yaml", "--exit-zero"]) == 2  # bad input is still bad input


def test_output_file_takes_the_report_off_stdout(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "binding.yaml", "--format", "json", "--output-file", "report.json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "1 file checked: 4 errors" in captured.err
    report = json.loads((files / "report.json").read_text(encoding="utf-8"))
    assert [d["code"] for d in report["files"][0]["diagnostics"]][:2] == [
        "FieldValueInvalid",
        "FieldValueRequired",
    ]


def test_github_annotations(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "binding.yaml", "policy.yaml", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "::error file=binding.yaml,line=7,col=22,endLine=7,endColumn=34,title=vap-lsp FieldValueInvalid::"
        'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn '
        "(repeating the same validation failure information in the API response and headers serves "
        "no purpose)"
    )
    assert lines[-1].startswith(
        "::warning file=policy.yaml,line=10,col=31,endLine=10,endColumn=39,title=vap-lsp cel-type-check::"
    )


def test_github_escapes_what_workflow_commands_would_misread(tmp_path: Path) -> None:
    from vap_lsp.analysis.diagnostics import Diagnostic, Severity
    from vap_lsp.cli.report import FileReport, format_github
    from vap_lsp.text import LineIndex, Span

    d = Diagnostic(Span(0, 1), Severity.HINT, "a,b", "50% done\nnext line")
    out = format_github([FileReport("dir:x/f,1.yaml", LineIndex("x\n"), [d])])
    assert out == (
        "::notice file=dir%3Ax/f%2C1.yaml,line=1,col=1,endLine=1,endColumn=2,title=vap-lsp a%2Cb::"
        "50%25 done%0Anext line\n"
    )


def test_junit_a_suite_per_file_a_failure_per_error(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "binding.yaml", "policy.yaml", "clean.yaml", "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "6", "4")
    suites = {s.get("name"): s for s in root}
    binding = suites["binding.yaml"]
    assert [c.get("name") for c in binding.iter("testcase")] == [
        "FieldValueInvalid at 7:22",
        "FieldValueRequired at 8:3",
        "FieldValueForbidden at 9:5",
        "FieldValueForbidden at 10:5",
    ]
    failure = binding.find("testcase/failure")
    assert failure is not None and failure.get("type") == "FieldValueInvalid"
    # A file with only a warning passes, and says what it got.
    policy = suites["policy.yaml"]
    assert policy.get("failures") == "0" and policy.find("testcase/failure") is None
    assert "warning: spec.validations[0].expression" in (policy.findtext("system-out") or "")
    assert suites["clean.yaml"].get("tests") == "1"


def _readme_ci_jobs() -> list[Any]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## CI\n", 1)[1].split("\n## ", 1)[0]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", section, re.S)]


def _vap_lsp_commands(job: Any) -> list[str]:
    lines: list[str] = []
    if "jobs" in job:  # GitHub Actions
        for j in job["jobs"].values():
            lines += [step["run"] for step in j["steps"] if "run" in step]
    else:  # GitLab CI
        for j in job.values():
            lines += j.get("script", [])
    return [line for line in lines if line.startswith("vap-lsp ")]


def test_the_readme_documents_a_github_and_a_gitlab_job() -> None:
    github, gitlab = _readme_ci_jobs()
    assert any(
        s.get("uses", "").startswith("github/codeql-action/upload-sarif")
        for s in github["jobs"]["check"]["steps"]
    )
    assert gitlab[".vap-lsp"]["artifacts"]["reports"]["junit"] == "vap-lsp-*.xml"
    assert {gitlab[job]["extends"] for job in ("vap-lsp-check", "vap-lsp-test")} == {".vap-lsp"}


def test_the_readme_ci_commands_run_on_the_examples(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    statuses: dict[str, int] = {}
    for job in _readme_ci_jobs():
        for command in _vap_lsp_commands(job):
            argv = shlex.split(command, comments=True)[1:]
            statuses[" ".join(argv)] = main(argv)
    capsys.readouterr()
    assert statuses == {
        "check . --format github": 1,  # examples/broken has errors: the job fails, annotated
        "check . --format sarif --output-file vap-lsp.sarif --exit-zero --statistics": 0,
        "check . --format junit --output-file vap-lsp-check.xml --statistics": 1,
        "test . --junit vap-lsp-test.xml": 0,
    }
    sarif = json.loads(Path("vap-lsp.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"] and all(
        "helpUri" in r for r in sarif["runs"][0]["tool"]["driver"]["rules"]
    )
    assert ET.parse("vap-lsp-check.xml").getroot().get("failures") != "0"
    assert ET.parse("vap-lsp-test.xml").getroot().tag in ("testsuites", "testsuite")
