"""Go's `strings` and `unicode.IsSpace`."""

from __future__ import annotations

__all__ = ["SPACE", "is_space", "trim_space", "trim_space_offset"]

SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
"""`unicode.IsSpace`: Python's `str.isspace` also counts \\x1c-\\x1f, which Go does not."""


def is_space(ch: str) -> bool:
    return ch in SPACE


def trim_space_offset(s: str) -> tuple[str, int]:
    """`strings.TrimSpace(s)` and how many leading characters it removed (to keep offsets)."""
    start, end = 0, len(s)
    while start < end and s[start] in SPACE:
        start += 1
    while end > start and s[end - 1] in SPACE:
        end -= 1
    return s[start:end], start


def trim_space(s: str) -> str:
    """`strings.TrimSpace`."""
    return trim_space_offset(s)[0]
