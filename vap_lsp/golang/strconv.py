"""Go's `strconv.Quote` (what `%q` prints, and so every `Invalid value: "…"` of the server)."""

from __future__ import annotations

__all__ = ["quote", "quote_bytes"]

_SHORT = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
    "\\": "\\\\",
    '"': '\\"',
}


def quote_bytes(b: bytes) -> str:
    """`strconv.Quote` of a Go string that need not be UTF-8: invalid bytes as `\\xNN`."""
    return _quote(b.decode("utf-8", "surrogateescape"), raw_bytes=True)


def quote(s: str) -> str:
    """`strconv.Quote`: printable runes (`unicode.IsPrint`: letters, marks, numbers, punctuation,
    symbols and the ASCII space) as they are, the rest escaped.

    A lone surrogate cannot exist in a Go string: decoding JSON or YAML turns it into U+FFFD,
    so it is quoted as that replacement character (`\\ufffd` is printable and kept verbatim).
    """
    return _quote(s, raw_bytes=False)


def _quote(s: str, raw_bytes: bool) -> str:
    out = ['"']
    for ch in s:
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
            continue
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code - 0xDC00:02x}" if raw_bytes and 0xDC80 <= code <= 0xDCFF else "\ufffd")
        elif ch == " " or ch.isprintable():
            out.append(ch)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)
