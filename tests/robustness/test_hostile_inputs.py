"""Whatever a repository contains, analysis ends quickly with a clear diagnostic, never a crash.

Time and memory bounds are measured by benchmarks, not asserted here; these tests pin the
outcome: one clear diagnostic, the rest of the file still checked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import analyse_bytes, analyse_text
from vap_lsp.cli.main import main

POLICY_HEAD = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: hostile
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["deployments"]
"""


def test_billion_laughs_is_one_error_not_an_out_of_memory() -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        refs = ",".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    bomb = (
        POLICY_HEAD
        + "  validations:\n    - expression: 'true'\n  bomb:\n"
        + "\n".join("    " + line for line in lines)
    )
    analysis = analyse_text(bomb)
    codes = [d.code for d in analysis.diagnostics if d.severity is Severity.ERROR]
    assert "too-large" in codes


def test_ten_megabyte_file_with_a_policy_at_its_end() -> None:
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n" + "".join(
        f"  key{k}: value-{k}-" + "x" * 60 + "\n" for k in range(20)
    )
    chunks: list[str] = []
    size = 0
    i = 0
    while size < 10 * 1024 * 1024:
        chunk = config_map.replace("{i}", str(i))
        chunks.append(chunk)
        size += len(chunk) + 4
        i += 1
    chunks.append(POLICY_HEAD + "  failurePolicy: Sometimes\n  validations:\n    - expression: 'true'\n")
    text = "---\n".join(chunks)
    analysis = analyse_text(text)
    assert len(analysis.objects) == i + 1
    assert [d.code for d in analysis.diagnostics] == ["FieldValueNotSupported"]


def test_ten_thousand_levels_of_nesting() -> None:
    text = "a: " + "[" * 10_000 + "]" * 10_000 + "\n"
    analysis = analyse_text(text)
    assert len(analysis.diagnostics) == 1
    assert analysis.diagnostics[0].severity is Severity.ERROR


def test_nul_bytes_and_invalid_utf8_are_one_clear_error() -> None:
    for data in (b"kind: x\x00\n", b"kind: \xff\xfe\xfd\n"):
        analysis = analyse_bytes(data)
        (d,) = analysis.diagnostics
        assert d.code == "not-text"
        assert "byte" in d.message or "NUL" in d.message


def test_very_long_line() -> None:
    text = POLICY_HEAD + '  validations:\n    - expression: "' + "true && " * 50_000 + 'true"\n'
    analysis = analyse_text(text)
    assert all(d.code != "internal-error" for d in analysis.diagnostics)


def test_cel_expression_of_100000_characters_is_reported_not_fatal() -> None:
    expression = "1 + " * 25_000 + "1 > 0"  # 100,005 characters: over cel-go's size limit
    text = POLICY_HEAD + f'  validations:\n    - expression: "{expression}"\n'
    analysis = analyse_text(text)
    errors = [d for d in analysis.diagnostics if d.severity is Severity.ERROR]
    assert errors and all(d.code.startswith("cel-") for d in errors)


def test_helm_template_is_one_information_not_a_cascade() -> None:
    text = "{{- if .Values.enabled }}\n" + POLICY_HEAD + "  failurePolicy: {{ .Values.fp }}\n{{- end }}\n"
    (d,) = analyse_text(text).diagnostics
    assert (d.code, d.severity) == ("template", Severity.INFORMATION)


def test_half_typed_expressions_never_crash() -> None:
    for partial in [
        "object.",
        "object.spec.template.spec.containers.all(c, c.",
        "has(",
        "[1, 2",
        "'unterminated",
    ]:
        text = POLICY_HEAD + f"  validations:\n    - expression: {partial!r}\n"
        diagnostics = analyse_text(text).diagnostics
        assert all(d.code != "internal-error" for d in diagnostics), partial


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read unreadable files")
def test_unreadable_file_is_an_io_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("kind: x\n")
    path.chmod(0)
    assert main(["check", str(tmp_path)]) == 2
    assert "secret.yaml" in capsys.readouterr().err


def test_unreadable_folder_is_reported_and_the_rest_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ok.yaml").write_text("kind: x\n")
    if os.geteuid() == 0:
        # Root reads everything; a dangling symlink is the unreadable entry it still meets.
        (tmp_path / "gone.yaml").symlink_to(tmp_path / "missing.yaml")
        assert main(["check", str(tmp_path / "gone.yaml"), str(tmp_path / "ok.yaml")]) == 2
        assert "gone.yaml" in capsys.readouterr().err
        return
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    assert main(["check", str(tmp_path)]) == 2
