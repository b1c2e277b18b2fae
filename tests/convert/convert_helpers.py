"""Shared by the convert tests: sources from YAML text, objects of a conversion by kind."""

from __future__ import annotations

import textwrap
from typing import Any

from vap_lsp.convert.driver import Run, convert_sources
from vap_lsp.convert.model import Converted, Options
from vap_lsp.convert.sources import read_text_sources

VERSION = "1.36"


def convert(text: str, path: str = "source.yaml", **options: Any) -> Run:
    return convert_sources(read_text_sources(textwrap.dedent(text), path), Options(VERSION, **options))


def objects(conversion: Converted, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in conversion.objects if e.data.get("kind") == kind]


def policy(run: Run, index: int = 0) -> dict[str, Any]:
    found = [p for c in run.conversions for p in c.policies]
    return found[index]


def bindings(run: Run) -> list[dict[str, Any]]:
    return [b for c in run.conversions for b in objects(c, "ValidatingAdmissionPolicyBinding")]


def constructs(run: Run) -> list[str]:
    return [u.construct for u in run.unconvertible]
