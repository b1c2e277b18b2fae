"""Emacs end to end, with eglot and with lsp-mode (Debian's elpa-eglot and elpa-lsp-mode).

eglot: `emacs --batch` loads editors/emacs/vap-lsp.el and eglot, opens a broken example policy,
eglot connects and flymake receives vap-lsp's diagnostics (editors/emacs/test/e2e.el asserts).
lsp-mode: the README's lsp-mode snippet as init.el, `vap-lsp` on PATH; opening the policy starts
the server through `yaml-mode-hook`, and editors/emacs/test/e2e-lsp-mode.el prints the flymake
diagnostics, a hover and the completion candidates, asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from editor_tools import POD_SPEC_FIELDS, path_with_vap_lsp, readme_block, run_editor

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "editors" / "emacs" / "test" / "e2e.el"
POLICY = ROOT / "examples" / "broken" / "policy-field-errors.yaml"


def _emacs_available(probe_eval: str) -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(
        ["emacs", "--batch", "-Q", "--eval", probe_eval],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    return probe.returncode == 0


def _run_emacs(
    script: Path, readme_heading: str, hook: str, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    """Runs `script` in `emacs --batch` with the README's snippet under `readme_heading` as init.el
    and `vap-lsp` (vap-lsp-command's default) on PATH, as the README asks."""
    init = tmp_path / "init.el"
    snippet = readme_block(readme_heading, "elisp")
    assert hook in snippet
    init.write_text(snippet.replace("/path/to/vap-lsp", str(ROOT)), encoding="utf-8")
    env = {
        **os.environ,
        "PATH": path_with_vap_lsp(),
        "VAP_LSP_INIT": str(init),
        "VAP_LSP_FILE": str(POLICY),
        "HOME": str(tmp_path),
    }
    proc = run_editor(["emacs", "--batch", "-Q", "-l", str(script)], env)
    return proc


def eglot_available() -> bool:
    return _emacs_available(
        '(progn (dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))'
        " (add-to-list 'load-path d)) (require 'eglot))"
    )


@pytest.mark.skipif(
    shutil.which("emacs") is None, reason="emacs is not installed (apt-get install emacs-nox)"
)
def test_emacs_eglot_flymake_receives_diagnostics(tmp_path: Path) -> None:
    if not eglot_available():
        pytest.skip("eglot is not available to Emacs (apt-get install elpa-eglot, or Emacs >= 29)")
    proc = _run_emacs(SCRIPT, "With eglot:", "(add-hook 'yaml-mode-hook #'eglot-ensure)", tmp_path)
    assert "PASS" in proc.stdout
    assert "ok flymake" in proc.stdout


LSP_MODE_SCRIPT = ROOT / "editors" / "emacs" / "test" / "e2e-lsp-mode.el"

# What flymake shows under lsp-mode, sorted as text: line, flymake type, the text it covers, the
# message's first line.
LSP_MODE_DIAGNOSTICS = [
    '10 :note "apiGroups" spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for *: `*`'
    " resources are not type-checked (list the resources to have them typed)",
    '12 :error "[\\"CREATE\\", \\"*\\"]" spec.matchConstraints.resourceRules[0].operations: Invalid value:'
    ' []admissionregistration.OperationType{"CREATE", "*"}: if \'*\' is present, must not specify other'
    " operations",
    '13 :error "[\\"*\\", \\"pods\\"]" spec.matchConstraints.resourceRules[0].resources: Invalid value:'
    ' []string{"*", "pods"}: if \'*\' is present, must not specify other resources without subresources',
    '14 :error "validation" unknown field "spec.validation"',
    '17 :note "hostNetwork" spec.validations[0].expression: object.spec.hostNetwork is optional in the'
    " schema; without has() or `.?` the expression fails when it is absent",
    '17 :warning "object" spec.validations[0].expression: object is null on DELETE, which this policy'
    " matches; guard with `object == null || ...` or `request.operation != 'DELETE'`",
    '19 :error "NotAllowed" spec.validations[0].reason: Unsupported value: "NotAllowed": supported values:'
    ' "Forbidden", "Invalid", "RequestEntityTooLarge"',
    '5 :error "Deny_Privileged" metadata.name: Invalid value: "Deny_Privileged": a lowercase RFC 1123'
    " subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end"
    " with an alphanumeric character (e.g. 'example.com', regex used for validation is"
    " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    '7 :error "Sometimes" spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail",'
    ' "Ignore"',
]


def lsp_mode_available() -> bool:
    return _emacs_available(
        "(progn (require 'package) (add-to-list 'package-directory-list"
        ' "/usr/share/emacs/site-lisp/elpa") (package-initialize) (require \'lsp-mode))'
    )


@pytest.mark.skipif(
    shutil.which("emacs") is None, reason="emacs is not installed (apt-get install emacs-nox)"
)
def test_emacs_lsp_mode_with_the_readme_config(tmp_path: Path) -> None:
    if not lsp_mode_available():
        pytest.skip("lsp-mode is not available to Emacs (apt-get install elpa-lsp-mode)")
    proc = _run_emacs(
        LSP_MODE_SCRIPT, "With lsp-mode (8.0 and later):", "(add-hook 'yaml-mode-hook #'lsp)", tmp_path
    )
    output = proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "PASS", output
    assert "ok lsp-mode workspaces: vap-lsp" in lines
    assert [line.removeprefix("diagnostic ") for line in lines if line.startswith("diagnostic ")] == (
        LSP_MODE_DIAGNOSTICS
    )
    hover = next(line for line in lines if line.startswith("hover ")).removeprefix("hover ")
    assert json.loads(hover) == (
        "```cel\nobject: Pod\n```\n\nThe object of the admission request (`null` for DELETE)."
        " In a validation expression (must return bool).\n\nMatched kinds: v1 Pod"
        "\n\n**At admission**: null on DELETE, which this policy matches."
        "\n\n**Typing unavailable**: object is untyped (dyn) for *: `*` resources are not type-checked"
        " (list the resources to have them typed)."
    )
    # `object` in `    - expression: "object.spec...` (line 17): 0-based line 16, characters 19-25.
    assert "hover range 16:19-16:25" in lines
    completion = next(line for line in lines if line.startswith("completion ")).removeprefix("completion ")
    assert completion.split() == sorted(POD_SPEC_FIELDS.split())
