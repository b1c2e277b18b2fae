"""What `vap-lsp check` shows (issue 33): the text a person reads has the errors and warnings, and
one line counting the notes it left out by code; `--show-notes` / `--min-severity LEVEL` (ruff's
and eslint's habit) bring them back; the formats tools read keep everything unless told."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vap_lsp.cli.main import main

# A library-shaped policy that works: one real warning (`replica`), and many notes — advice on
# optional fields read without has(), and a rule on a kind whose CRD is not given.
FIELDS = [f"object.spec.template.spec.securityContext.{f}" for f in ("runAsUser", "runAsGroup", "fsGroup")]
LIBRARY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: library
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
      - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}
  validations:
    - expression: "object.spec.replica <= 5"
""" + "".join(f'    - expression: "{field} != {n}"\n' for n in range(10) for field in FIELDS)
WARNING = "library.yaml:11:31: warning: spec.validations[0].expression: type checking against "


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "library.yaml"
    path.write_text(LIBRARY, encoding="utf-8")
    return path


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_shows_errors_and_warnings_and_counts_the_notes_it_hides(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _check(capsys, "library.yaml")
    assert status == 0  # a warning does not fail the run
    assert out.startswith(WARNING) and len(out.splitlines()) == 1
    assert err == (
        "1 file checked: 0 errors, 1 warning\n"
        "31 notes hidden: 30 optional-field, 1 typing-unavailable — --show-notes\n"
    )


def test_show_notes_brings_them_back_and_the_summary_counts_them(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _check(capsys, "library.yaml", "--show-notes")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 32
    assert sum("[optional-field]" in line for line in lines) == 30
    assert err == "1 file checked: 0 errors, 1 warning, 31 notes\n"
    # --min-severity hint is the same; information shows the typing note but not the hints.
    assert _check(capsys, "library.yaml", "--min-severity", "hint")[1:] == (out, err)
    _, out, err = _check(capsys, "library.yaml", "--min-severity", "information")
    assert "[typing-unavailable]" in out and "[optional-field]" not in out
    assert err == (
        "1 file checked: 0 errors, 1 warning, 1 note\n"
        "30 notes hidden: 30 optional-field — --min-severity hint\n"  # --show-notes would be refused
    )


def test_min_severity_error_hides_warnings_but_never_changes_the_exit_status(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _check(capsys, "library.yaml", "--min-severity", "error")
    assert (status, out) == (0, "")
    assert err == (
        "1 file checked: 0 errors\n"
        "1 warning, 31 notes hidden: 30 optional-field, 1 cel-type-check, 1 typing-unavailable "
        "— --min-severity hint\n"
    )
    broken = library.with_name("broken.yaml")
    broken.write_text(LIBRARY.replace("name: library", "name: Library"), encoding="utf-8")
    status, out, err = _check(capsys, "broken.yaml", "--min-severity", "error")
    assert status == 1 and "error: metadata.name: Invalid value" in out
    assert err.startswith("1 file checked: 1 error\n")


def test_show_notes_and_min_severity_together_is_a_usage_error(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "library.yaml", "--show-notes", "--min-severity", "error"])
    assert exit_.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_machine_formats_keep_every_note_unless_told(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = _check(capsys, "library.yaml", "--format", "json")
    assert len(json.loads(out)["files"][0]["diagnostics"]) == 32
    _, out, _ = _check(capsys, "library.yaml", "--format", "sarif")
    assert len(json.loads(out)["runs"][0]["results"]) == 32
    _, out, _ = _check(capsys, "library.yaml", "--format", "github")
    assert sum(line.startswith("::notice ") for line in out.splitlines()) == 31
    _, out, _ = _check(capsys, "library.yaml", "--format", "junit")
    assert len((ET.fromstring(out).findtext("testsuite/system-out") or "").splitlines()) == 32
    # Told: --min-severity applies to every format.
    _, out, _ = _check(capsys, "library.yaml", "--format", "json", "--min-severity", "warning")
    assert [d["code"] for d in json.loads(out)["files"][0]["diagnostics"]] == ["cel-type-check"]
    # The summary of a report written to a file counts what the file holds.
    _, out, err = _check(capsys, "library.yaml", "--format", "sarif", "--output-file", "r.sarif")
    assert (out, err) == ("", "1 file checked: 0 errors, 1 warning, 31 notes\n")


def test_statistics_count_what_the_report_shows_and_the_hidden_line_the_rest(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, err = _check(capsys, "library.yaml", "--statistics")
    assert out == "1  cel-type-check  warning\n"
    assert err.endswith("31 notes hidden: 30 optional-field, 1 typing-unavailable — --show-notes\n")
    _, out, _ = _check(capsys, "library.yaml", "--statistics", "--show-notes")
    assert out == (
        "30  optional-field      hint\n 1  cel-type-check      warning\n 1  typing-unavailable  information\n"
    )


def test_the_configuration_may_set_min_severity_and_the_flag_wins(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(".vap-lsp.yaml").write_text("min-severity: information\n", encoding="utf-8")
    _, out, err = _check(capsys, "library.yaml")
    assert "[typing-unavailable]" in out and "[optional-field]" not in out
    assert err.endswith("30 notes hidden: 30 optional-field — --show-notes\n")  # the flag wins
    _, out, _ = _check(capsys, "library.yaml", "--show-notes")
    assert "[optional-field]" in out
    # It applies to every format, as the flag does: a project that set it wants it everywhere.
    _, out, _ = _check(capsys, "library.yaml", "--format", "json")
    assert len(json.loads(out)["files"][0]["diagnostics"]) == 2
    Path(".vap-lsp.yaml").write_text("min-severity: notes\n", encoding="utf-8")
    status, _, err = _check(capsys, "library.yaml")
    assert status == 2
    assert "min-severity: 'notes' is not error, warning, information or hint" in err


def test_plurals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one.yaml"
    one.write_text(LIBRARY.split('    - expression: "object.spec.template')[0], encoding="utf-8")
    _, _, err = _check(capsys, str(one))
    assert err == "1 file checked: 0 errors, 1 warning\n1 note hidden: 1 typing-unavailable — --show-notes\n"
    (tmp_path / "two.yaml").write_text(one.read_text(), encoding="utf-8")
    _, _, err = _check(capsys, str(tmp_path), "--show-notes")
    assert err == "2 files checked: 0 errors, 2 warnings, 2 notes\n"
