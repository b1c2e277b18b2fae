"""Go's `regexp` (RE2 syntax): which patterns `regexp.Compile` accepts, its error texts, and the
compiled pattern. The matching engine is RE2 itself (`google-re2`), the library Go's package
was written after; Go additionally rejects `\\C` (any byte), which RE2 accepts."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

__all__ = ["RegexpError", "compile", "compiles", "find_all"]


class RegexpError(ValueError):
    """`regexp.Compile`'s error; `str()` is Go's text (`error parsing regexp: …`)."""


_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

_ANY_BYTE = re.compile(r"(?<!\\)(?:\\\\)*\\C")

_RE2_TO_GO = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "trailing \\": "trailing backslash at end of expression",
}


def _go_error(pattern: str, exc: Exception) -> str:
    text = exc.args[0] if exc.args else str(exc)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    code, _, fragment = str(text).partition(": ")
    code = _RE2_TO_GO.get(code, code)
    return f"error parsing regexp: {code}: `{fragment or pattern}`"


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    if _ANY_BYTE.search(pattern):
        return RegexpError("error parsing regexp: invalid escape sequence: `\\C`")
    try:
        return re2.compile(pattern, _OPTIONS)
    except Exception as exc:  # re2.error
        return RegexpError(_go_error(pattern, exc))


def compile(pattern: str) -> Any:
    """`regexp.Compile`: the compiled pattern, or `RegexpError` raised with Go's text."""
    found = _compiled(pattern)
    if isinstance(found, RegexpError):
        raise found
    return found


def compiles(pattern: str) -> bool:
    """Whether `regexp.Compile` accepts `pattern`."""
    return not isinstance(_compiled(pattern), RegexpError)


def find_all(compiled: Any, s: str, n: int = -1) -> list[str]:
    """`FindAllString(s, n)`: after an empty match the search moves on one character, and an
    empty match right where the previous match ended is skipped (Python's finditer keeps it)."""
    out: list[str] = []
    pos, prev_end, end = 0, -1, len(s)
    while (n < 0 or len(out) < n) and pos <= end:
        m = compiled.search(s, pos)
        if m is None:
            break
        start, stop = m.span()
        accept = True
        if stop == pos:
            accept = start != prev_end
            pos += 1
        else:
            pos = stop
        prev_end = stop
        if accept:
            out.append(m.group(0))
    return out
