"""A small YAML writer for generated objects: block style, comments above entries, CEL in literal
blocks. Why not ruamel's dumper: the output is read by people (comments citing PSA's source,
expressions laid out over lines) and must be byte-for-byte stable across ruamel versions."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Block", "Commented", "dump_documents", "plain"]


@dataclass(frozen=True)
class Block:
    """A string written as a literal block scalar (`|-`): CEL, kept readable over lines."""

    text: str


@dataclass(frozen=True)
class Commented:
    """A list item or mapping value with a comment line (or lines) written above it."""

    comment: str
    value: Any


_PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./@:-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def plain(data: Any) -> Any:
    """The data without `Block`/`Commented` wrappers: what a YAML reader gets back."""
    if isinstance(data, Commented):
        return plain(data.value)
    if isinstance(data, Block):
        return data.text
    if isinstance(data, Mapping):
        return {k: plain(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [plain(v) for v in data]
    return data


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and not text.endswith(":"):
        return text
    return json.dumps(text, ensure_ascii=False)


def _comment(comment: str, indent: int) -> list[str]:
    return [" " * indent + ("# " + line if line else "#") for line in comment.splitlines()]


def _block(text: str, indent: int) -> str:
    body = "\n".join((" " * indent + line) if line else "" for line in text.splitlines())
    return "|-\n" + body


def _is_inline(value: Any) -> bool:
    value = value.value if isinstance(value, Commented) else value
    return not (isinstance(value, Mapping | list | tuple) and len(value) > 0)


def _inline(value: Any, indent: int) -> str:
    if isinstance(value, Block):
        return _block(value.text, indent + 2)
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return _scalar(value)


def _mapping(data: Mapping[str, Any], indent: int) -> list[str]:
    out: list[str] = []
    pad = " " * indent
    for key, value in data.items():
        if isinstance(value, Commented):
            out += _comment(value.comment, indent)
            value = value.value
        if _is_inline(value):
            out.append(f"{pad}{_scalar(key)}: {_inline(value, indent)}")
        elif isinstance(value, Mapping):
            out.append(f"{pad}{_scalar(key)}:")
            out += _mapping(value, indent + 2)
        else:
            out.append(f"{pad}{_scalar(key)}:")
            out += _sequence(value, indent + 2)
    return out


def _sequence(data: Sequence[Any], indent: int) -> list[str]:
    out: list[str] = []
    pad = " " * indent
    for item in data:
        if isinstance(item, Commented):
            out += _comment(item.comment, indent)
            item = item.value
        if _is_inline(item):
            out.append(f"{pad}- {_inline(item, indent)}")
        elif isinstance(item, Mapping):
            lines = _mapping(item, indent + 2)
            first = next(i for i, line in enumerate(lines) if not line.lstrip().startswith("#"))
            # comments of the first key stay above the dash
            out += lines[:first]
            out.append(f"{pad}- {lines[first][indent + 2 :]}")
            out += lines[first + 1 :]
        else:
            out.append(f"{pad}-")
            out += _sequence(item, indent + 2)
    return out


def dump_documents(documents: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """`---`-separated documents, each with its header comment (may be empty)."""
    parts: list[str] = []
    for header, data in documents:
        lines = _comment(header, 0) if header else []
        parts.append("\n".join([*lines, *_mapping(data, 0)]) + "\n")
    return "---\n".join(parts)
