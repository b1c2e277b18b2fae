"""Neovim end to end: headless Neovim (vim.lsp.start_client, so 0.7 and later) opens a broken
example policy, receives vap-lsp's diagnostics and requests hover and completion
(editors/nvim/test/e2e.lua asserts; this runs it with the server from this environment)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from editor_tools import run_editor

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "editors" / "nvim" / "test" / "e2e.lua"
POLICY = ROOT / "examples" / "broken" / "policy-field-errors.yaml"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed (apt-get install neovim)")
def test_neovim_receives_diagnostics_hover_and_completion(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "VAP_LSP_CMD": "\t".join([sys.executable, "-m", "vap_lsp", "serve"]),
        "VAP_LSP_FILE": str(POLICY),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = run_editor(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"], env
    )
    assert "PASS" in proc.stdout
    assert "ok diagnostics" in proc.stdout
    assert "ok hover: ```cel object: Pod ```" in proc.stdout
    assert "ok completion: 5 items" in proc.stdout
