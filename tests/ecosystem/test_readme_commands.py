"""Every command the README shows runs, as written (issue 33).

`sh` blocks: each command runs with bash in a copy of the repository (the clone a reader has),
with `.venv/bin` and `vap-lsp` being this test run's Python, and must exit with the status its
comment gives (`# exit 1: ...`; 0 when it gives none) and without a traceback. A command on a line
or in a block marked `# needs ...` (network, a cluster, an editor) is not run; it is listed in
`NOT_RUN` with what covers it instead, and the two lists must agree. `console` blocks: each
`$ command` runs the same way and prints exactly the lines shown after it.

The documented conformance command once reported 14 of 1,743 tests: run as a script, every case
crashed on a helper defined below `if __name__ == "__main__"`, and the tests only imported it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SHARED = ROOT.parent / "shared"

NOT_RUN = {
    "python3 -m venv .venv && .venv/bin/pip install .": "installs from the package index: "
    "tests/ecosystem/test_install.py builds and installs the wheel from a fresh clone",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest": "installs from "
    "the package index, then runs the whole suite: what CI itself does (.ci/run)",
    "pipx install /path/to/vap-lsp": "installs from the package index: test_install.py runs it",
    "uv tool install /path/to/vap-lsp": "installs from the package index: test_install.py runs it",
    "kubectl get crd -o yaml > cluster-crds.yaml": "reads a cluster",
    "vap-lsp check policies/ --crd cluster-crds.yaml": "checks what the cluster gave; --crd is "
    "tested in tests/cli/test_cli_crd.py",
    "cd editors/vscode && npm ci && npm run build && npx vsce package --allow-missing-repository": "npm "
    "and the network: .ci/editors.sh builds the extension, tests/editors installs and drives it",
    "code --install-extension vap-lsp-0.1.0.vsix": "VS Code: tests/editors/test_vscode_code_server.py "
    "runs this step with code-server",
    "mkdir -p ~/.config/helix/runtime/queries": "a reader's Helix set-up (tests/editors checks the files)",
    "cat /path/to/vap-lsp/editors/helix/languages.toml >> ~/.config/helix/languages.toml": "a "
    "reader's Helix set-up",
    "cp -r /path/to/vap-lsp/editors/helix/runtime/queries/{yaml,cel} ~/.config/helix/runtime/queries/": "a "
    "reader's Helix set-up",
    "hx --grammar fetch && hx --grammar build": "Helix and the network",
    "pip install 'vap-lsp[scale]'": "installs from the package index: CI installs the test extra, "
    "which pulls the scale extra",
    "dask scheduler --port 8786 &": "a Dask cluster left running: tests/impact/test_impact_dask.py runs "
    "impact --scheduler against a LocalCluster it starts and stops",
    "dask worker tcp://127.0.0.1:8786 --nthreads 1 --nworkers 2 &": "the same cluster's workers",
    "vap-lsp impact examples/impact/policies --audit-log 'examples/impact/*.log' --scheduler "
    "tcp://127.0.0.1:8786": "the cluster above: test_impact_dask.py compares --scheduler with one "
    "process on these inputs (and larger ones)",
    ".venv/bin/pip install 'mutmut>=3.8,<4'": "installs a dev tool from the package index; "
    "tests/ecosystem/test_mutation_config.py checks what the mutation script reads without it",
    "nice -n 15 .venv/bin/python benchmarks/mutation.py vap_lsp/policy/rules.py --sample 60 --show": "mutmut "
    "and minutes of two cores: benchmarks/mutation_report.json holds the run, "
    "tests/ecosystem/test_mutation_config.py its consistency",
    "nice -n 15 .venv/bin/python benchmarks/mutation.py all --sample 60": "mutmut and an hour or more: "
    "benchmarks/mutation_report.json holds the run",
}


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    """As written: what bash runs (a continued line keeps its backslash-newline)."""
    command: str
    """Without its trailing comment."""
    comment: str
    needs: str | None
    output: str | None = None
    """A console block's lines shown after the command."""

    @property
    def status(self) -> int:
        found = re.search(r"\bexit (\d+)\b", self.comment)
        return int(found.group(1)) if found else 0


def _comment_start(line: str) -> int:
    """Where a shell comment starts in `line` (`#` after a blank, outside quotes), or -1."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return i
    return -1


def _logical_lines(body: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Lines joined where a backslash continues them (the text keeps the backslash-newline)."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, line in body:
        pending = (number, line) if pending is None else (pending[0], pending[1] + "\n" + line)
        if not line.endswith("\\"):
            out.append(pending)
            pending = None
    if pending is not None:
        out.append(pending)
    return out


def _split(number: int, text: str, block_needs: str | None, output: str | None = None) -> Command:
    last = text.rsplit("\n", 1)[-1]
    at = _comment_start(last)
    comment = last[at:] if at >= 0 else ""
    command = (text[: len(text) - len(last)] + (last[:at] if at >= 0 else last)).rstrip()
    needs = comment if comment.startswith("# needs") else block_needs
    if needs is None and "# needs" in comment:
        needs = comment
    return Command(number, text, command, comment, needs, output)


def readme_commands() -> list[Command]:
    lines = README.read_text(encoding="utf-8").splitlines()
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        fence = re.fullmatch(r"```(\w*)", lines[i])
        if fence is None:
            i += 1
            continue
        language = fence.group(1)
        end = lines.index("```", i + 1)
        body = [(n + 1, lines[n]) for n in range(i + 1, end)]
        if language == "sh":
            block_needs = None
            for number, text in _logical_lines(body):
                if not text.strip():
                    continue
                if text.startswith("#"):  # a comment line: `# needs ...` marks the block
                    block_needs = text if text.startswith("# needs") else block_needs
                    continue
                commands.append(_split(number, text, block_needs))
        elif language == "console":
            k = 0
            while k < len(body):
                number, text = body[k]
                k += 1
                if not text.startswith("$ "):
                    continue
                parts = [text.removeprefix("$ ")]
                while parts[-1].endswith("\\") and k < len(body):
                    parts.append(body[k][1])
                    k += 1
                shown: list[str] = []
                while k < len(body) and not body[k][1].startswith("$ "):
                    shown.append(body[k][1] + "\n")
                    k += 1
                commands.append(_split(number, "\n".join(parts), None, "".join(shown)))
        i = end + 1
    return commands


COMMANDS = readme_commands()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository beside `shared` (the reference material, when there is some),
    with `.venv/bin/python` and `vap-lsp` running this test's interpreter."""
    where = tmp_path_factory.mktemp("readme")
    repo = where / "vap-lsp"
    junk = shutil.ignore_patterns(
        ".git", ".venv", "node_modules", "__pycache__", ".*_cache", "test-artifacts", "*.egg-info"
    )
    shutil.copytree(ROOT, repo, ignore=junk, symlinks=True)
    if SHARED.is_dir():
        (where / "shared").symlink_to(SHARED.resolve(), target_is_directory=True)
    bin_ = repo / ".venv" / "bin"
    bin_.mkdir(parents=True)
    for name, run in (("python", ""), ("vap-lsp", " -m vap_lsp")):
        script = bin_ / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}"{run} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    return repo


def _run(clone: Path, text: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)  # the copy runs on the installed package, as a reader's would
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", text],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_readme_has_its_commands_and_marks_agree_with_the_list() -> None:
    assert len([c for c in COMMANDS if c.needs is None]) >= 8, [c.command for c in COMMANDS]
    marked = {c.command for c in COMMANDS if c.needs is not None}
    assert marked == set(NOT_RUN), "a `# needs` command and NOT_RUN disagree"


@pytest.mark.parametrize("command", COMMANDS, ids=[f"README:{c.line}" for c in COMMANDS])
def test_a_readme_command_runs_as_written(command: Command, clone: Path) -> None:
    if command.needs is not None:
        pytest.skip(f"{command.needs.removeprefix('# ')}: {NOT_RUN[command.command]}")
    if "../shared" in command.text and not SHARED.is_dir():
        pytest.skip(f"needs {SHARED} (the reference material beside the clone), which is absent")
    done = _run(clone, command.text)
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said[-3000:]
    if command.output is not None:  # a console example: what it prints, as shown
        assert said == command.output, f"README line {command.line}: {command.text}"
        return
    assert done.returncode == command.status, f"README line {command.line}: {command.text}\n{said[-3000:]}"
    if "tools/cel_conformance.py" in command.command:
        # The README's figure is what the command prints.
        figure = re.search(r"\*\*(\d+) of (\d+) applicable tests pass", README.read_text(encoding="utf-8"))
        assert figure is not None
        assert f"cel-spec conformance: {figure.group(1)}/{figure.group(2)} passed" in done.stdout
