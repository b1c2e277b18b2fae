"""Paths that are not plain UTF-8 files: every command reads through `vap_lsp.analysis.files`,
so a FIFO never hangs a run, a dangling symlink says so, and Latin-1 text is placed at its byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vap_lsp.analysis.files import MAX_FILE_BYTES, collect_files, read_file, read_text
from vap_lsp.cli.main import main

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo-policy
  validationActions: [Deny]
"""

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


def test_a_fifo_named_yaml_in_a_checked_folder_is_reported_not_read(tmp_path: Path) -> None:
    # The user's situation: `check .` in a folder where a named pipe is called *.yaml hung for
    # ever (nothing writes to it). A subprocess with a timeout, so a regression fails, not hangs.
    (tmp_path / "binding.yaml").write_text(BINDING, encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "vap_lsp.cli.main", "check", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "vap-lsp: pipe.yaml: skipped, a named pipe (FIFO) is not a regular file" in done.stderr
    assert "1 file checked: 0 errors" in done.stderr  # the pipe is not counted as checked


def test_a_fifo_named_on_the_command_line_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    assert main(["check", str(tmp_path / "pipe.yaml")]) == 2
    assert f"{tmp_path / 'pipe.yaml'}: skipped, a named pipe (FIFO) is not a regular file" in (
        capsys.readouterr().err
    )


def test_a_dangling_symlink_names_its_missing_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "binding.yaml").write_text(BINDING, encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "gone.yaml")
    assert main(["check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        f"vap-lsp: {tmp_path / 'link.yaml'}: broken symbolic link "
        f"(its target {tmp_path / 'gone.yaml'} does not exist)" in err
    )
    # Named on the command line, the same message (not "no such file or directory").
    assert main(["check", str(tmp_path / "link.yaml")]) == 2
    assert "broken symbolic link" in capsys.readouterr().err


def test_latin1_text_is_not_utf8_at_its_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(BINDING.replace("name: demo\n", "name: demo # café\n").encode("latin-1"))
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert out == (
        f"{path}:4:19: error: not UTF-8: invalid byte 0xe9 (at byte 111); YAML files are UTF-8, "
        "or UTF-16/32 with a byte order mark [not-text]\n"
    )


def test_run_and_test_inputs_say_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `run --object` reads through the same reader: one message, with line and column.
    policy = tmp_path / "policy.yaml"
    policy.write_text(BINDING, encoding="utf-8")
    obj = tmp_path / "pod.yaml"
    obj.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: caf\xe9\n")
    assert main(["run", str(policy), "--object", str(obj)]) == 2
    assert f"{obj}:4:12: not UTF-8: invalid byte 0xe9" in capsys.readouterr().err


def test_reader_api(tmp_path: Path) -> None:
    errors: list[str] = []
    os.mkfifo(tmp_path / "f.yaml")
    assert read_file(tmp_path / "f.yaml", errors) is None
    assert read_file("/dev/zero", errors) is None  # a device is never read
    big = tmp_path / "big.yaml"
    with big.open("wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)
    assert read_text(big, errors) is None
    assert collect_files([str(tmp_path / "missing.yaml")], errors) == []
    assert errors == [
        f"{tmp_path / 'f.yaml'}: skipped, a named pipe (FIFO) is not a regular file",
        "/dev/zero: skipped, a character device is not a regular file",
        f"{big}: skipped, larger than 16 MiB",
        f"{tmp_path / 'missing.yaml'}: no such file or directory",
    ]


@pytest.mark.parametrize("command", [["rule", "cel-cost"], ["cel", "[1, 2, 3]", "--format", "json"]])
def test_a_reader_that_leaves_gets_no_traceback(command: list[str]) -> None:
    """`vap-lsp ... | head`: output to a pipe nobody reads any more ends the command quietly,
    with the status of a process killed by SIGPIPE (128 + 13)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "vap_lsp", *command], stdout=write, stderr=subprocess.PIPE, timeout=60
        )
    finally:
        os.close(write)
    assert b"Traceback" not in done.stderr and b"BrokenPipeError" not in done.stderr
    assert done.returncode == 141
