"""The README's worked example of `vap-lsp impact` is what the commands print today."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.impact.conftest import impact_cli

ROOT = Path(__file__).resolve().parents[2]


def _examples() -> list[tuple[list[str], str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Impact of a policy", 1)[1].split("\n## ", 1)[0]
    found = re.findall(r"```\n\$ vap-lsp impact (.*?)\n(.*?)```", section, flags=re.S)
    return [(shlex.split(cmd), out) for cmd, out in found]


def test_the_readme_has_the_examples() -> None:
    assert len(_examples()) == 2


@pytest.mark.parametrize(("argv", "expected"), _examples())
def test_readme_example_output(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    impact_cli([*argv, "--jobs", "1"])
    assert capsys.readouterr().out == expected
