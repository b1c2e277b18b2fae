"""Installing from a fresh clone, as the README says: the wheel (with its licence), `python -m
vap_lsp`, `pipx install`, `uv tool install`, and the pre-commit hook through `pre-commit try-repo`
on a throwaway repository.

The clone holds only committed files, so a file that was never added to git fails here. Tests
that install dependencies need the package registry and skip with a reason without it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BROKEN_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo
  validationActions: [Deny, Warn]
"""


def _registry_reachable() -> bool:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return True
    except OSError:
        return False


needs_registry = pytest.mark.skipif(
    not _registry_reachable(),
    reason="no network to the package registry (pypi.org): cannot install dependencies",
)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (or no git): cannot make a fresh clone")
    target = tmp_path_factory.mktemp("clone") / "vap-lsp"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True)
    return target


def _run(
    *args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )


def test_the_wheel_carries_the_apache_licence(clone: Path, tmp_path: Path) -> None:
    # hatchling is in the test extra: the build needs no network.
    result = _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp_path, clone
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("vap_lsp-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        licence = archive.read(next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))).decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()
    assert licence == (clone / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence  # the full text, not a stub


def test_python_m_vap_lsp(clone: Path) -> None:
    version = _run(sys.executable, "-m", "vap_lsp", "--version")
    assert version.returncode == 0 and version.stdout.startswith("vap-lsp ")
    check = _run(sys.executable, "-m", "vap_lsp", "check", clone / "examples" / "valid")
    assert check.returncode == 0, check.stdout + check.stderr


def _smoke(executable: Path, clone: Path, tmp_path: Path) -> None:
    assert _run(executable, "check", clone / "examples" / "valid").returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN_BINDING, encoding="utf-8")
    result = _run(executable, "check", bad)
    assert result.returncode == 1 and "[FieldValueInvalid]" in result.stdout
    assert "# `FieldValueInvalid`" in _run(executable, "rule", "FieldValueInvalid").stdout


@needs_registry
def test_pipx_install_from_a_clone(clone: Path, tmp_path: Path) -> None:
    env = {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "bin")}
    result = _run(sys.executable, "-m", "pipx", "install", clone, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    _smoke(tmp_path / "bin" / "vap-lsp", clone, tmp_path)


@needs_registry
def test_uv_tool_install_from_a_clone(clone: Path, tmp_path: Path) -> None:
    env = {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin")}
    result = _run(sys.executable, "-m", "uv", "tool", "install", clone, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    _smoke(tmp_path / "bin" / "vap-lsp", clone, tmp_path)


@needs_registry
def test_pre_commit_hook_through_try_repo(clone: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "bad.yaml").write_text(BROKEN_BINDING, encoding="utf-8")
    shutil.copy(clone / "examples" / "valid" / "replica-limit.yaml", repo / "good.yaml")
    (repo / "notes.txt").write_text("not YAML: the hook must not see it\n", encoding="utf-8")
    git = ("git", "-c", "user.name=test", "-c", "user.email=test@example.com")
    for args in (("init", "-q"), ("add", "."), ("commit", "-q", "-m", "init")):
        assert _run(*git, *args, cwd=repo).returncode == 0
    env = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    try_repo = (sys.executable, "-m", "pre_commit", "try-repo", clone, "vap-lsp", "--verbose")

    result = _run(*try_repo, "--all-files", cwd=repo, env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "bad.yaml:7:22: error: spec.validationActions: Invalid value" in result.stdout
    assert "notes.txt" not in result.stdout
    assert "2 files checked" in result.stdout  # bad.yaml and good.yaml, in one process

    # The repository's configuration applies to the hook too.
    (repo / ".vap-lsp.yaml").write_text("ignore: [FieldValueInvalid]\n", encoding="utf-8")
    result = _run(*try_repo, "--files", "bad.yaml", "good.yaml", cwd=repo, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
