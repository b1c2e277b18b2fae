"""Emacs end to end: `emacs --batch` loads editors/emacs/vap-lsp.el and eglot, opens a broken
example policy, eglot connects and flymake receives vap-lsp's diagnostics
(editors/emacs/test/e2e.el asserts; this runs it with the server from this environment)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "editors" / "emacs" / "test" / "e2e.el"
POLICY = ROOT / "examples" / "broken" / "policy-field-errors.yaml"


def eglot_available() -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(
        [
            "emacs",
            "--batch",
            "-Q",
            "--eval",
            '(progn (dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))'
            " (add-to-list 'load-path d)) (require 'eglot))",
        ],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    return probe.returncode == 0


@pytest.mark.skipif(
    shutil.which("emacs") is None, reason="emacs is not installed (apt-get install emacs-nox)"
)
def test_emacs_eglot_flymake_receives_diagnostics(tmp_path: Path) -> None:
    if not eglot_available():
        pytest.skip("eglot is not available to Emacs (apt-get install elpa-eglot, or Emacs >= 29)")
    env = {
        **os.environ,
        "VAP_LSP_CMD": "\t".join([sys.executable, "-m", "vap_lsp", "serve"]),
        "VAP_LSP_FILE": str(POLICY),
        "HOME": str(tmp_path),
    }
    proc = subprocess.run(
        ["emacs", "--batch", "-Q", "-l", str(SCRIPT)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    output = proc.stdout + proc.stderr
    print(output)
    assert proc.returncode == 0, output
    assert "PASS" in proc.stdout
    assert "ok flymake" in proc.stdout
