"""Source positions.

Invariant: inside vap-lsp every position is a code-point offset into the file's Python `str`
(a `Span` is a half-open pair of such offsets). Only the adapters convert: the LSP layer to
(line, UTF-16 code unit) and the CLI to 1-based (line, column in characters). Keeping one unit
inside means no layer can mix them up.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Span:
    """Half-open range [start, end) of code-point offsets into a file's text."""

    start: int
    end: int

    def contains(self, offset: int) -> bool:
        return self.start <= offset <= self.end


@dataclass(frozen=True, slots=True)
class Position:
    """LSP position: 0-based line and UTF-16 code unit within that line."""

    line: int
    character: int


@dataclass(frozen=True, slots=True)
class LineCol:
    """0-based line and 0-based column counted in code points."""

    line: int
    column: int


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _utf16_len(s: str) -> int:
    # Every diagnostic's two positions measure their line's prefix: in C, not per character.
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def _units(ch: str, encoding: str) -> int:
    code = ord(ch)
    if encoding == "utf-8":
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    if encoding == "utf-32":
        return 1
    return 2 if code > 0xFFFF else 1


def _length(s: str, encoding: str) -> int:
    if encoding == "utf-16":
        return _utf16_len(s)
    if encoding == "utf-32":
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


class LineIndex:
    """Maps offsets to lines and back; built once per text version.

    Line breaks are those YAML and LSP agree on: `\\n`, `\\r\\n` and a lone `\\r`.
    """

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            starts = [0]
            starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
        else:  # the common case, 5x faster: a line index is built at every edit
            starts = list(itertools.accumulate([len(line) + 1 for line in text.split("\n")], initial=0))
            starts.pop()
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        line = max(0, min(line, len(self._starts) - 1))
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Offset of the end of `line`, excluding its line break."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1]
            while end > self._starts[line] and self.text[end - 1] in "\r\n":
                end -= 1
            return end
        return len(self.text)

    def line_of(self, offset: int) -> int:
        offset = max(0, min(offset, len(self.text)))
        return bisect.bisect_right(self._starts, offset) - 1

    def line_col(self, offset: int) -> LineCol:
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        return LineCol(line, offset - self._starts[line])

    def position(self, offset: int, encoding: str = "utf-16") -> Position:
        """Offset to LSP position in the negotiated encoding (LSP's default: UTF-16 code units)."""
        offset = max(0, min(offset, len(self.text)))
        line = self.line_of(offset)
        start = self._starts[line]
        return Position(line, _length(self.text[start:offset], encoding))

    def range(self, span: Span, encoding: str = "utf-16") -> tuple[Position, Position]:
        """The one span → (start, end) position conversion; adapters only wrap it in their types."""
        return self.position(span.start, encoding), self.position(span.end, encoding)

    def offset(self, pos: Position, encoding: str = "utf-16") -> int:
        """LSP position to offset; clamps past-the-end lines and characters like editors do."""
        if pos.line < 0:
            return 0
        if pos.line >= len(self._starts):
            return len(self.text)
        start = self._starts[pos.line]
        end = self.line_end(pos.line)
        units = 0
        i = start
        while i < end and units < pos.character:
            units += _units(self.text[i], encoding)
            i += 1
        return i


def shorten(text: str, limit: int) -> str:
    """`text` on one line (each run of white space one space), cut to `limit` characters with an
    ellipsis: how a message or a hover quotes an expression."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
