"""Go's `strconv`: `Quote` (what `%q` prints, and so every `Invalid value: "…"` of the server),
`ParseInt`/`ParseUint` with base 0 and `ParseFloat` (how go-yaml v2 resolves plain scalars), `Atoi`
(prefix lengths, GODEBUG numbers)."""

from __future__ import annotations

import math
import re

__all__ = [
    "SHORT_ESCAPES",
    "atoi",
    "parse_bool",
    "parse_float",
    "parse_int",
    "parse_uint",
    "quote",
    "quote_bytes",
]

SHORT_ESCAPES = {
    # strconv.Quote's one-letter escapes (cel-go's strings.quote uses the same set).
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
        short = SHORT_ESCAPES.get(ch)
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


def _underscore_ok(s: str) -> bool:
    """Go's `underscoreOK`: underscores only between digits or after a base prefix."""
    saw = "^"
    i = 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    while i < len(s):
        c = s[i]
        if "0" <= c <= "9" or (hexa and "a" <= c.lower() <= "f"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
        i += 1
    return saw != "_"


def parse_uint(s: str, bit_size: int = 64) -> int | None:
    """`strconv.ParseUint(s, 0, bit_size)`; None where Go returns an error (syntax or range)."""
    if not s:
        return None
    s0, base = s, 10
    if s[0] == "0":
        if len(s) >= 3 and s[1].lower() in "box":
            base, s = {"b": 2, "o": 8, "x": 16}[s[1].lower()], s[2:]
        else:
            base, s = 8, s[1:]
    underscores = False
    n = 0
    for c in s:
        if c == "_":
            underscores = True
            continue
        d = int(c, 36) if c.isascii() and c.isalnum() else 99
        if d >= base:
            return None
        n = n * base + d
    if underscores and not _underscore_ok(s0):
        return None
    return n if n < (1 << bit_size) else None


def parse_int(s: str, bit_size: int = 64) -> int | None:
    """`strconv.ParseInt(s, 0, bit_size)`; None where Go returns an error (syntax or range)."""
    neg = s[:1] == "-"
    un = parse_uint(s[1:] if s[:1] in ("+", "-") else s, bit_size)
    if un is None:
        return None
    cutoff = 1 << (bit_size - 1)
    if (not neg and un >= cutoff) or (neg and un > cutoff):
        return None
    return -un if neg else un


_DECIMAL_INT = re.compile(r"[+-]?[0-9]+\Z")


def atoi(s: str) -> int | None:
    """`strconv.Atoi` (a 64-bit `int`): an optional sign, then decimal ASCII digits only (no base
    prefix, no underscores); None where Go returns an error (syntax or range)."""
    if not _DECIMAL_INT.match(s):
        return None
    n = int(s)
    return n if -(1 << 63) <= n < (1 << 63) else None


_DECIMAL_FLOAT = re.compile(r"[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9_]+)?\Z")
_HEX_FLOAT = re.compile(
    r"([+-]?)0[xX]((?:[0-9a-fA-F_]+\.?[0-9a-fA-F_]*|\.[0-9a-fA-F_]+))[pP]([+-]?[0-9_]+)\Z"
)


def parse_float(s: str) -> float | None:
    """`strconv.ParseFloat(s, 64)`; None where Go returns an error: bad syntax, or a value
    beyond float64 (Go answers ±Inf with ErrRange). `inf`, `infinity` and `nan` in any case."""
    low = s.lower()
    body = low[1:] if low[:1] in ("+", "-") else low
    if body in ("inf", "infinity"):
        return -math.inf if low[0] == "-" else math.inf
    if low == "nan":
        return math.nan
    if "_" in s and not _underscore_ok(s):
        return None
    m = _HEX_FLOAT.match(s)
    if m is not None:
        sign, mantissa, exp = (g.replace("_", "") for g in m.groups())
        whole, _, frac = mantissa.partition(".")
        if not whole and not frac:
            return None
        try:
            return float.fromhex(f"{sign}0x{whole or '0'}.{frac or '0'}p{int(exp)}")
        except OverflowError:
            return None
    if not _DECIMAL_FLOAT.match(s) or not any(c.isdigit() for c in s.split("e")[0].split("E")[0]):
        return None
    try:
        value = float(s.replace("_", ""))
    except ValueError:
        return None
    return None if math.isinf(value) else value


_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_bool(s: str) -> bool | None:
    """strconv.ParseBool; None for its error (anything else, spaces included)."""
    return True if s in _TRUE else False if s in _FALSE else None
