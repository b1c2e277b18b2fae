"""Decoded-value -> source-offset maps for every YAML scalar style.

The CEL layer reports errors as indices into the *decoded* expression string; to underline the
right characters in the file we must know which source character produced each decoded one.
ruamel.yaml does not keep that, so we re-scan the scalar's source text here, mirroring the
rules of ruamel's scanner (the same folding, escape and block-indentation logic), and produce
the decoded text together with an offset per character. The caller compares our decoded text
with ruamel's value and falls back to a conservative map if they ever disagree, so a scanner
corner case can cost precision but never correctness or a crash.
"""

from __future__ import annotations

import re
import threading

from vap_lsp.yaml.model import ScalarStyle
from vap_lsp.yaml.offsets import OffsetMap, OffsetRuns

__all__ = [
    "ScalarMap",
    "ScalarMismatch",
    "decode_scalar",
    "fallback_count",
    "scalar_offsets",
]

# Line breaks as ruamel's scanner understands them (it still honours the YAML 1.1 ones).
_BREAKS = "\r\n\x85\u2028\u2029"
_END = "\0\r\n\x85\u2028\u2029"  # ruamel's _THE_END
_END_SPACE_TAB = " \t\0\r\n\x85\u2028\u2029"

_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_ESCAPE_CODES = {"x": 2, "u": 4, "U": 8}

# Next character inside a flow scalar that needs individual treatment.
_SINGLE_SPECIAL = re.compile("[ \t'\r\n\x85\u2028\u2029]")
_DOUBLE_SPECIAL = re.compile("[ \t\\\\\r\n\x85\u2028\u2029]")
_PLAIN_SPECIAL = re.compile("[ \t\r\n\x85\u2028\u2029]")

ScalarMap = tuple[OffsetMap, int]  # (offsets, content_start)

_fallbacks = 0
_fallback_lock = threading.Lock()


def fallback_count() -> int:
    """How many scalars got the conservative map so far (tests assert this stays 0)."""
    return _fallbacks


class _Out:
    """Decoded characters with the source offset of each, plus the end of the last source unit."""

    __slots__ = ("chars", "end", "offs")

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.offs = OffsetRuns()
        self.end = -1

    def one(self, ch: str, pos: int, length: int) -> None:
        self.chars.append(ch)
        self.offs.add(pos, 1)
        self.end = pos + length

    def run(self, text: str, start: int, stop: int) -> None:
        if stop > start:
            self.chars.append(text[start:stop])
            self.offs.add(start, stop - start)
            self.end = stop

    def result(self, last: int, content_start: int) -> tuple[str, OffsetMap, int]:
        """(decoded text, offsets with `last` appended as the end entry, content start)."""
        self.offs.add(last, 1)
        return "".join(self.chars), self.offs.freeze(), content_start


def _break_at(text: str, p: int) -> tuple[str, int]:
    """(normalised break, source length) of the line break at p, or ("", 0) when none.

    Mirrors ruamel's scan_line_break: CRLF, CR, LF and NEL become "\\n"; LS/PS stay themselves.
    """
    ch = text[p] if p < len(text) else "\0"
    if ch in "\r\n\x85":
        if ch == "\r" and p + 1 < len(text) and text[p + 1] == "\n":
            return "\n", 2
        return "\n", 1
    if ch in "\u2028\u2029":
        return ch, 1
    return "", 0


def _fold(text: str, q: int, limit: int, out: _Out, emit_first: bool) -> int:
    """Fold the line break at q plus following blank lines; return the offset after them.

    A single break becomes a space (mapped to the break); each further empty line contributes one
    "\\n" (mapped to that line's break). With emit_first=False (a double-quoted escaped line
    break) the first break produces nothing.
    """
    lb, n = _break_at(text, q)
    r = q + n
    breaks: list[tuple[str, int, int]] = []
    while r < limit:
        ch = text[r]
        if ch == " " or ch == "\t":
            r += 1
        elif ch in _BREAKS:
            b, bn = _break_at(text, r)
            breaks.append((b, r, bn))
            r += bn
        else:
            break
    if emit_first:
        if lb != "\n":
            out.one(lb, q, n)
        elif not breaks:
            out.one(" ", q, n)
    for b, pos, bn in breaks:
        out.one(b, pos, bn)
    return r


def _decode_plain(text: str, start: int, end: int) -> tuple[str, OffsetMap, int]:
    out = _Out()
    p = start
    while p < end:
        m = _PLAIN_SPECIAL.search(text, p, end)
        if m is None:
            out.run(text, p, end)
            break
        q = m.start()
        out.run(text, p, q)
        r = q
        while r < end and text[r] in " \t":
            r += 1
        if r < end and text[r] in _BREAKS:
            p = _fold(text, r, end, out, True)
        else:
            out.run(text, q, r)
            p = r
    return out.result(end, start)


def _decode_quoted(text: str, start: int, end: int, double: bool) -> tuple[str, OffsetMap, int]:
    out = _Out()
    p = start + 1
    stop = end - 1  # the closing quote
    special = _DOUBLE_SPECIAL if double else _SINGLE_SPECIAL
    while p < stop:
        m = special.search(text, p, stop)
        if m is None:
            out.run(text, p, stop)
            break
        q = m.start()
        out.run(text, p, q)
        ch = text[q]
        if ch == " " or ch == "\t" or ch in _BREAKS:
            r = q
            while r < stop and text[r] in " \t":
                r += 1
            if r < stop and text[r] in _BREAKS:
                p = _fold(text, r, stop, out, True)
            else:
                out.run(text, q, r)
                p = r
        elif ch == "'":  # only '' can occur inside a single-quoted scalar
            out.one("'", q, 2)
            p = q + 2
        else:  # backslash in a double-quoted scalar
            e = text[q + 1]
            if e in _ESCAPES:
                out.one(_ESCAPES[e], q, 2)
                p = q + 2
            elif e in _ESCAPE_CODES:
                n = _ESCAPE_CODES[e]
                out.one(chr(int(text[q + 2 : q + 2 + n], 16)), q, 2 + n)
                p = q + 2 + n
            elif e in _BREAKS:
                p = _fold(text, q + 1, stop, out, False)
            else:
                raise ValueError("unknown escape")
    return out.result(stop, start + 1)


class _Block:
    """Re-scan of a literal/folded block scalar mirroring ruamel's scan_block_scalar."""

    def __init__(self, text: str, start: int, parent_indent: int) -> None:
        self.text = text
        self.n = len(text)
        self.p = start
        self.parent_indent = parent_indent
        # Start of the current line as ruamel's reader counts columns (LF, CRLF, lone CR only).
        nl = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start))
        self.line_start = nl + 1

    def peek(self, k: int = 0) -> str:
        i = self.p + k
        return self.text[i] if i < self.n else "\0"

    def col(self) -> int:
        return self.p - self.line_start

    def line_break(self) -> tuple[str, int, int]:
        """Consume a line break: (normalised, position, length); ("", p, 0) when none."""
        b, n = _break_at(self.text, self.p)
        pos = self.p
        if n:
            self.p += n
            if self.text[pos] in "\r\n":
                self.line_start = self.p
        return b, pos, n

    def breaks(self, indent: int) -> list[tuple[str, int, int]]:
        out: list[tuple[str, int, int]] = []
        while self.col() < indent and self.peek() == " ":
            self.p += 1
        while self.peek() in _BREAKS:
            out.append(self.line_break())
            while self.col() < indent and self.peek() == " ":
                self.p += 1
        return out

    def at_document_marker(self) -> bool:
        if self.col() != 0:
            return False
        pre = self.text[self.p : self.p + 3]
        return pre in ("---", "...") and self.peek(3) in _END_SPACE_TAB

    def decode(self) -> tuple[str, OffsetMap, int]:
        text = self.text
        out = _Out()
        folded = text[self.p] == ">"
        self.p += 1
        chomping: bool | None = None
        increment: int | None = None
        ch = self.peek()
        if ch in "+-":
            chomping = ch == "+"
            self.p += 1
            if self.peek() in "0123456789":
                increment = int(self.peek())
                self.p += 1
        elif ch in "0123456789":
            increment = int(ch)
            self.p += 1
            if self.peek() in "+-":
                chomping = self.peek() == "+"
                self.p += 1
        while self.peek() == " ":
            self.p += 1
        if self.peek() == "#":
            while self.peek() not in _END:
                self.p += 1
        self.line_break()
        header_end = self.p

        min_indent = self.parent_indent + 1
        brks: list[tuple[str, int, int]]
        if increment is None:
            brks = []
            max_indent = 0
            while self.peek() in " \r\n\x85\u2028\u2029":
                if self.peek() != " ":
                    brks.append(self.line_break())
                else:
                    self.p += 1
                    max_indent = max(max_indent, self.col())
            indent = max(min_indent, max_indent)
        else:
            min_indent = max(min_indent, 1)
            indent = min_indent + increment - 1
            brks = self.breaks(indent)

        line_break: tuple[str, int, int] = ("", self.p, 0)
        content_start = -1
        while self.col() == indent and self.peek() != "\0":
            for b in brks:
                out.one(*b)
            leading_non_space = self.peek() not in " \t"
            q = self.p
            while q < self.n and text[q] not in _END:
                q += 1
            if content_start < 0:
                content_start = self.p
            out.run(text, self.p, q)
            self.p = q
            line_break = self.line_break()
            brks = self.breaks(indent)
            if min_indent == 0 and self.at_document_marker():
                break
            if self.col() == indent and self.peek() != "\0":
                if folded and line_break[0] == "\n" and leading_non_space and self.peek() not in " \t":
                    if not brks:
                        out.one(" ", line_break[1], line_break[2])
                elif line_break[2]:
                    out.one(*line_break)
            else:
                break

        if chomping is not False and line_break[2]:
            out.one(*line_break)
        if chomping is True:
            for b in brks:
                out.one(*b)
        if content_start < 0:
            content_start = header_end
        return out.result(out.end if out.end >= 0 else content_start, content_start)


def decode_scalar(
    text: str, style: ScalarStyle, start: int, end: int, parent_indent: int = -1
) -> tuple[str, OffsetMap, int]:
    """Decode the scalar token at text[start:end] -> (value, offsets, content_start).

    `parent_indent` is ruamel's scanner indentation when the block scalar was scanned (needed
    to resolve explicit indentation indicators); other styles ignore it. May raise on input
    that ruamel would not have produced a token for.
    """
    if style is ScalarStyle.PLAIN:
        return _decode_plain(text, start, end)
    if style is ScalarStyle.SINGLE:
        return _decode_quoted(text, start, end, double=False)
    if style is ScalarStyle.DOUBLE:
        return _decode_quoted(text, start, end, double=True)
    return _Block(text, start, parent_indent).decode()


def _conservative(value: str, content_start: int, content_end: int) -> OffsetMap:
    hi = max(content_start, content_end)
    return OffsetMap.of(min(content_start + i, hi) for i in range(len(value) + 1))


class ScalarMismatch(Exception):
    """Raised instead of falling back when the caller asked for `strict` maps."""


def scalar_offsets(
    text: str,
    style: ScalarStyle,
    start: int,
    end: int,
    value: str,
    parent_indent: int = -1,
    *,
    strict: bool = False,
) -> ScalarMap:
    """Offsets (len(value)+1 entries) and content start for the scalar token text[start:end].

    `value` is the parser's decoded value, the ground truth: when our re-scan decodes to anything
    else we use a monotone "content_start + i" map clamped to the token instead of a wrong one
    (or raise ScalarMismatch when `strict`: the libyaml fast path then lets ruamel re-read).
    """
    if style is ScalarStyle.PLAIN:
        if end - start == len(value) and text.startswith(value, start):
            return OffsetMap.linear(start, end - start + 1), start
    elif (
        style is not ScalarStyle.LITERAL
        and style is not ScalarStyle.FOLDED
        and end - start - 2 == len(value)
        and text.startswith(value, start + 1)
    ):
        # Escapes and folding always change the text, so equality means a 1:1 map.
        return OffsetMap.linear(start + 1, end - start - 1), start + 1
    try:
        decoded, offsets, content_start = decode_scalar(text, style, start, end, parent_indent)
        if decoded == value and len(offsets) == len(value) + 1:
            return offsets, content_start
    except (IndexError, ValueError):
        pass
    if strict:
        raise ScalarMismatch(f"scalar at {start} does not decode to the parser's value")
    global _fallbacks
    with _fallback_lock:
        _fallbacks += 1
    cs, ce = start, end
    if style is ScalarStyle.SINGLE or style is ScalarStyle.DOUBLE:
        cs, ce = start + 1, end - 1
    elif style is not ScalarStyle.PLAIN:
        m = re.compile("[\r\n\x85\u2028\u2029]").search(text, start, end)
        cs = m.end() if m else end  # after the header line
    return _conservative(value, cs, ce), cs
