"""Inputs of `vap-lsp impact` by URL and glob through fsspec (`vap-lsp[scale]`): `file://`, a
non-local filesystem (fsspec's in-memory one stands for s3:// and the like), globs, gzip found
by content; a clear message without fsspec or for a glob that matches nothing."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.impact.conftest import impact_cli
from vap_lsp.impact import locations

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "impact"
POLICIES = str(EXAMPLE / "policies")

fsspec = pytest.importorskip("fsspec", reason="fsspec is in vap-lsp[scale]")


def _report(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    impact_cli([POLICIES, *argv, "--format", "json", "--jobs", "1"])
    out = capsys.readouterr()
    assert out.out, out.err
    result: dict[str, Any] = json.loads(out.out)
    return result


def test_file_urls_globs_and_remote_filesystems_read_the_same_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _report(["--objects", str(EXAMPLE / "cluster.yaml")], capsys)
    assert _report(["--objects", (EXAMPLE / "cluster.yaml").as_uri()], capsys) == expected
    # A glob over a gzip-compressed copy whose name does not say so.
    (tmp_path / "snap-1.data").write_bytes(gzip.compress((EXAMPLE / "cluster.yaml").read_bytes()))
    assert _report(["--objects", str(tmp_path / "snap-*.data")], capsys) == expected
    memory = fsspec.filesystem("memory")
    memory.pipe("/vap-lsp-test/cluster.yaml", (EXAMPLE / "cluster.yaml").read_bytes())
    assert _report(["--objects", "memory://vap-lsp-test/cluster.yaml"], capsys) == expected
    assert _report(["--objects", "memory://vap-lsp-test/"], capsys) == expected  # a folder


def test_audit_logs_by_url_and_glob(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _report(["--audit-log", str(EXAMPLE / "audit.log")], capsys)
    shutil.copy(EXAMPLE / "audit.log", tmp_path / "audit-1.log")
    assert _report(["--audit-log", f"file://{tmp_path}/audit-*.log"], capsys) == expected
    memory = fsspec.filesystem("memory")
    memory.pipe("/vap-lsp-test/audit.log.gz", gzip.compress((EXAMPLE / "audit.log").read_bytes()))
    assert _report(["--audit-log", "memory://vap-lsp-test/*.gz"], capsys) == expected


def test_unknown_protocol_missing_file_and_empty_glob_are_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, message in (
        (["--objects", "nosuchprotocol://x/y.yaml"], "nosuchprotocol://x/y.yaml: "),
        (["--objects", "memory://vap-lsp-test/none.yaml"], "no such file or directory"),
        (["--audit-log", f"{tmp_path}/*.log"], "no file matches"),
    ):
        assert impact_cli([POLICIES, *argv, "--jobs", "1"]) == 2
        assert message in capsys.readouterr().err


def test_without_fsspec_urls_say_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locations, "_fsspec", lambda: None)
    assert impact_cli([POLICIES, "--objects", "s3://bucket/cluster.yaml"]) == 2
    assert "s3://bucket/cluster.yaml: reading URLs and globs needs fsspec: pip install 'vap-lsp[scale]'" in (
        capsys.readouterr().err
    )
    # Local paths need nothing more.
    assert impact_cli([POLICIES, "--objects", str(EXAMPLE / "cluster.yaml"), "--format", "json"]) == 1
