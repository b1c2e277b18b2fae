"""Shared by the impact tests: running `vap-lsp impact` in this process."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pytest

from vap_lsp.cli.impact import add_parser

__all__ = ["impact_cli", "impact_json"]


def impact_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vap-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["impact", "--no-config", *argv])
    code: int = args.func(args)
    return code


@pytest.fixture
def impact_json(capsys: pytest.CaptureFixture[str]) -> Any:
    """`vap-lsp impact ... --format json` → (exit code, parsed report)."""

    def run(argv: list[str]) -> tuple[int, dict[str, Any]]:
        code = impact_cli([*argv, "--format", "json"])
        out = capsys.readouterr().out
        return code, json.loads(out)

    return run
