"""VS Code extension: its mocha tests (server discovery, settings, and the CEL injection grammar
tokenized headless with vscode-textmate) after `npm ci && npm run build` in editors/vscode,
which .ci/run does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_vscode_extension_mocha_tests() -> None:
    mocha = EXTENSION / "node_modules" / ".bin" / "mocha"
    if not mocha.exists():
        pytest.skip("editors/vscode has no node_modules: run `npm ci && npm run build` there (.ci/run does)")
    build = subprocess.run(
        ["npm", "run", "build"], cwd=EXTENSION, capture_output=True, text=True, timeout=300
    )
    assert build.returncode == 0, build.stdout + build.stderr
    proc = subprocess.run(
        [str(mocha), "--reporter", "dot", "out/test/**/*.test.js"],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " passing" in proc.stdout and " failing" not in proc.stdout, proc.stdout
