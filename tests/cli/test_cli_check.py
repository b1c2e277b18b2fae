"""`vap-lsp check`: output formats, exit codes and file discovery, as CI users depend on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vap_lsp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

BAD_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo-policy
  validationActions: [Deny, Warn]
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_text_output_is_path_line_col_severity_message_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "binding.yaml", BAD_BINDING)
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert out == (
        f'{path}:7:22: error: spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain '
        "both Deny and Warn (repeating the same validation failure information in the API response and "
        "headers serves no purpose) [FieldValueInvalid]\n"
    )


def test_json_output_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "binding.yaml", BAD_BINDING)
    assert main(["check", "--format", "json", str(path)]) == 1
    data = json.loads(capsys.readouterr().out)
    (file_entry,) = data["files"]
    assert file_entry["path"] == str(path)
    (diag,) = file_entry["diagnostics"]
    assert diag["range"] == {"start": {"line": 6, "character": 21}, "end": {"line": 6, "character": 33}}
    assert diag["severity"] == "error"
    assert diag["code"] == "FieldValueInvalid"
    assert diag["source"] == "vap-lsp"
    assert diag["field"] == "spec.validationActions"


def test_sarif_output_is_sarif_2_1_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "binding.yaml", BAD_BINDING)
    assert main(["check", "--format", "sarif", str(path)]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    assert run["tool"]["driver"]["name"] == "vap-lsp"
    (result,) = run["results"]
    assert result["level"] == "error"
    assert result["ruleId"] == "FieldValueInvalid"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (7, 22)


def test_clean_file_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "ok.yaml", BAD_BINDING.replace("[Deny, Warn]", "[Deny]"))
    assert main(["check", "--show-notes", str(path)]) == 0  # not even a note
    assert capsys.readouterr().out == ""


def test_missing_path_exits_two_but_checks_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "binding.yaml", BAD_BINDING)
    assert main(["check", str(path), str(tmp_path / "nope.yaml")]) == 2
    captured = capsys.readouterr()
    assert "nope.yaml: no such file or directory" in captured.err
    assert "validationActions" in captured.out


def test_folders_recurse_into_yaml_files_only_and_skip_hidden_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, "a/one.yaml", BAD_BINDING)
    _write(tmp_path, "a/b/two.yml", BAD_BINDING)
    _write(tmp_path, "a/notes.txt", BAD_BINDING)
    _write(tmp_path, ".git/three.yaml", BAD_BINDING)
    assert main(["check", "--format", "json", str(tmp_path)]) == 1
    paths = [
        Path(f["path"]).relative_to(tmp_path).as_posix() for f in json.loads(capsys.readouterr().out)["files"]
    ]
    assert paths == ["a/one.yaml", "a/b/two.yml"]


def test_symlink_loop_does_not_hang(tmp_path: Path) -> None:
    _write(tmp_path, "d/p.yaml", BAD_BINDING)
    (tmp_path / "d" / "loop").symlink_to(tmp_path / "d", target_is_directory=True)
    assert main(["check", str(tmp_path)]) == 1


def test_binary_file_gets_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.yaml"
    path.write_bytes(b"\x00\xff\xfe binary \x00")
    assert main(["check", "--format", "json", str(path)]) == 1
    (diag,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert diag["code"] == "not-text"


def test_unknown_kubernetes_version_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "ok.yaml", BAD_BINDING)
    assert main(["check", "--kubernetes-version", "1.2", str(path)]) == 2
    assert "1.2" in capsys.readouterr().err


def test_bundled_examples_valid_have_no_diagnostics_and_broken_have_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--format", "json", str(EXAMPLES / "valid")]) == 0
    # Hints (optional fields read without has()) are advice; nothing the server would say.
    files = json.loads(capsys.readouterr().out)["files"]
    assert [d for f in files for d in f["diagnostics"] if d["severity"] in ("error", "warning")] == []
    assert main(["check", "--format", "json", str(EXAMPLES / "broken")]) == 1
    files = json.loads(capsys.readouterr().out)["files"]
    assert all(f["diagnostics"] for f in files), [f["path"] for f in files if not f["diagnostics"]]


def test_console_entry_point_and_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vap_lsp", "--version"], capture_output=True, text=True, check=True
    )
    assert result.stdout.startswith("vap-lsp ")


def test_cross_file_findings_only_when_a_folder_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binding = _write(tmp_path, "b/binding.yaml", BAD_BINDING.replace("[Deny, Warn]", "[Deny]"))
    assert main(["check", "--format", "json", str(binding)]) == 0
    assert json.loads(capsys.readouterr().out)["files"][0]["diagnostics"] == []
    assert main(["check", "--format", "json", str(tmp_path)]) == 0  # a warning, not an error
    (diag,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert diag["code"] == "policy-not-found"
    assert diag["severity"] == "warning"
    assert diag["message"].startswith('spec.policyName: no ValidatingAdmissionPolicy named "demo-policy"')
