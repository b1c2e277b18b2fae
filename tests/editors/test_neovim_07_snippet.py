"""Neovim 0.7–0.10, configured by the README's `vim.lsp.start` snippet verbatim as init.lua
(Debian stable's Neovim is 0.7: the snippet falls back to `vim.lsp.start_client` there).

The editor opens a broken example policy and prints what `vim.diagnostic` shows once vap-lsp's
diagnostics arrive; the assertions are here. `vap-lsp` is found on PATH, as a user's would be.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from editor_tools import (
    INSTALL_HINT,
    ROOT,
    debian_nvim,
    nvim_version,
    path_with_vap_lsp,
    readme_block,
    run_editor,
)

POLICY = ROOT / "examples" / "broken" / "policy-field-errors.yaml"

# Waits for the diagnostics of the opened buffer, prints one line each (0-based line, code).
PROBE = """
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
if not ok then io.stdout:write('FAIL: no diagnostics within 60 s\\n'); vim.cmd('cquit! 1') end
for _, client in pairs(vim.lsp.get_active_clients()) do
  io.stdout:write('client ' .. client.name .. '\\n')
end
local rows = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = d.user_data and d.user_data.lsp
  table.insert(rows, 'diagnostic ' .. d.lnum .. ' ' .. tostring(d.code or (lsp and lsp.code)))
end
table.sort(rows)
for _, row in ipairs(rows) do io.stdout:write(row .. '\\n') end
io.stdout:write('PASS\\n')
vim.cmd('qall!')
"""


def test_readme_snippet_for_neovim_0_7_to_0_10(tmp_path: Path) -> None:
    nvim = debian_nvim()
    if nvim is None:
        pytest.skip(f"nvim is not installed (apt-get install neovim): {INSTALL_HINT}")
    if nvim_version(nvim) >= (0, 11):
        pytest.skip("this Neovim is 0.11 or later: test_neovim_latest runs the snippet for it")
    init = tmp_path / "init.lua"
    init.write_text("vim.cmd('filetype on')\n" + readme_block("Neovim 0.7–0.10", "lua"), encoding="utf-8")
    probe = tmp_path / "probe.lua"
    probe.write_text(PROBE, encoding="utf-8")
    env = {
        **os.environ,
        "PATH": path_with_vap_lsp(),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = run_editor(
        [nvim, "--headless", "-u", str(init), "-i", "NONE", "-n", str(POLICY), "-c", f"luafile {probe}"], env
    )
    lines = proc.stdout.splitlines()
    assert lines[-1] == "PASS"
    assert "client vap_lsp" in lines
    diagnostics = [line.removeprefix("diagnostic ") for line in lines if line.startswith("diagnostic ")]
    assert "13 unknown-field" in diagnostics  # `spec.validation` on line 14
    assert "6 FieldValueNotSupported" in diagnostics  # failurePolicy: Sometimes
