"""String functions: cel-go `ext.Strings` (v2, `ext/strings.go`, `ext/formatting.go`), over Go's
quoting and number formatting (`vap_lsp.golang`). Indices count code points, as Go's `[]rune` does."""

from __future__ import annotations

import math
from collections.abc import Sequence

from vap_lsp.cel.runtime.values import (
    CelError,
    Duration,
    Optional,
    Timestamp,
    TypeValue,
    UintType,
    Value,
    type_name,
)
from vap_lsp.golang.fmt import format_e_width, format_fixed_grouped
from vap_lsp.golang.fmt import format_g as go_format_g
from vap_lsp.golang.strconv import SHORT_ESCAPES
from vap_lsp.golang.strconv import quote as go_quote

__all__ = [
    "char_at",
    "format_string",
    "index_of",
    "last_index_of",
    "lower_ascii",
    "quote",
    "split",
    "substring",
    "upper_ascii",
]


def char_at(s: str, i: int) -> str:
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def index_of(s: str, sub: str, offset: int = 0) -> int:
    if sub == "":
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def last_index_of(s: str, sub: str, offset: int | None = None) -> int:
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode()) < len(sub.encode()):
            return -1
        offset = len(s) - 1
    if sub == "":
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.rfind(sub, 0, offset + len(sub))


def lower_ascii(s: str) -> str:
    return "".join(c.lower() if c < "\x80" else c for c in s) if not s.isascii() else s.lower()


def upper_ascii(s: str) -> str:
    return "".join(c.upper() if c < "\x80" else c for c in s) if not s.isascii() else s.upper()


def split(s: str, sep: str, n: int = -1) -> list[str]:
    """Go `strings.SplitN`: n == 0 → [], n < 0 → all, "" separator splits into characters."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if 0 < n < len(chars):
            return [*chars[: n - 1], "".join(chars[n - 1 :])]
        return chars
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def replace(s: str, old: str, new: str, n: int = -1) -> str:
    return s.replace(old, new, n if n >= 0 else -1)


def substring(s: str, start: int, end: int | None = None) -> str:
    if end is None:
        if start < 0 or start > len(s):
            raise CelError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CelError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise CelError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise CelError(f"index out of range: {end}")
    return s[start:end]


def join(items: Sequence[Value], sep: str = "") -> str:
    for item in items:
        if type(item) is not str:
            raise CelError(f"join: invalid input: {_go_v(item)}")
    return sep.join(items)


def quote(s: str) -> str:
    """`strings.quote`: CEL escapes for control characters, everything else verbatim."""
    return '"' + "".join(SHORT_ESCAPES.get(c, c) for c in s) + '"'


def _go_v(v: Value) -> str:
    """Go `%v` of a CEL value (error messages)."""
    if type(v) is bool:
        return "true" if v else "false"
    if v is None:
        return "NULL_VALUE"
    if type(v) is float:
        return go_format_g(v)
    if isinstance(v, (list, tuple)):
        return "[" + " ".join(_go_v(x) for x in v) + "]"
    return str(v)


# --- string.format ---------------------------------------------------------------------------


def _float_arg(arg: Value, clause: str) -> float:
    if type(arg) is float:
        return arg
    if type(arg) is str and arg in ("NaN", "Infinity", "-Infinity"):
        return float(arg.replace("Infinity", "inf"))
    raise CelError(
        f"error during formatting: {clause} clause can only be used on doubles, was given {type_name(arg)}"
    )


def _format_string_clause(arg: Value) -> str:
    from vap_lsp.cel.runtime.conversions import to_string

    if isinstance(arg, (list, tuple)):
        return _format_list(arg)
    if isinstance(arg, dict):
        return _format_map(arg)
    if arg is None:
        return "null"
    if isinstance(arg, TypeValue):
        return arg.name
    if isinstance(arg, (bool, int, float, str, bytes, Timestamp, Duration)):
        return str(to_string(arg))
    raise CelError(
        "error during formatting: string clause can only be used on strings, bools, bytes, ints, "
        f"doubles, maps, lists, types, durations, and timestamps, was given {type_name(arg)}"
    )


def _member(v: Value) -> str:
    """A list element or map value inside `%s` (`clauseForType` + `quoteForCEL`)."""
    from vap_lsp.cel.runtime.conversions import to_string

    if type(v) is str:
        return go_quote(v)
    if type(v) is bytes:
        return "b" + go_quote(v.decode("utf-8", "replace"))
    if type(v) is float:
        text = f"{v:.6f}" if math.isfinite(v) else go_format_g(v)
        return go_quote(text) if not math.isfinite(v) else text
    if isinstance(v, Timestamp):
        return f"timestamp({go_quote(str(to_string(v)))})"
    if isinstance(v, Duration):
        return f"duration({go_quote(str(to_string(v)))})"
    if isinstance(v, TypeValue):
        return f"type({v.name})"
    if isinstance(v, (bool, int)) or v is None or isinstance(v, (list, tuple, dict)):
        return _format_string_clause(v)
    raise CelError(f"error during formatting: no formatting function for {type_name(v)}")


def _format_list(items: Sequence[Value]) -> str:
    return "[" + ", ".join(_member(v) for v in items) + "]"


def _format_map(m: dict[Value, Value]) -> str:
    pairs = []
    for k, v in m.items():
        if type(k) is str:
            key = go_quote(k)
        elif type(k) is bool:
            key = "true" if k else "false"
        elif isinstance(k, int):
            key = str(int(k))
        else:
            raise CelError(
                f"error during formatting: no formatting function for map key of type {type_name(k)}"
            )
        pairs.append((key, _member(v)))
    pairs.sort(key=lambda p: p[0].encode())
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _format_clause(verb: str, precision: int | None, arg: Value) -> str:
    if verb == "s":
        return _format_string_clause(arg)
    if verb == "d":
        if type(arg) is int or type(arg) is UintType:
            return str(int(arg))
        raise CelError(
            "error during formatting: decimal clause can only be used on integers, was given "
            + type_name(arg)
        )
    if verb == "f":
        return format_fixed_grouped(_float_arg(arg, "fixed-point"), 6 if precision is None else precision)
    if verb == "e":
        return format_e_width(_float_arg(arg, "scientific"), 6 if precision is None else precision)
    if verb == "b":
        if type(arg) is bool:
            return "1" if arg else "0"
        if type(arg) is int or type(arg) is UintType:
            return format(int(arg), "b")
        raise CelError(
            "error during formatting: only integers and bools can be formatted as binary, was given "
            + type_name(arg)
        )
    if verb in ("x", "X"):
        if type(arg) is int or type(arg) is UintType:
            text = format(int(arg), "x")
        elif type(arg) is str:
            text = arg.encode().hex()
        elif type(arg) is bytes:
            text = arg.hex()
        else:
            raise CelError(
                "error during formatting: only integers, byte buffers, and strings can be formatted "
                f"as hex, was given {type_name(arg)}"
            )
        return text.upper() if verb == "X" else text
    if verb == "o":
        if type(arg) is int or type(arg) is UintType:
            return format(int(arg), "o")
        raise CelError(
            "error during formatting: octal clause can only be used on integers, was given " + type_name(arg)
        )
    raise AssertionError(verb)


def format_string(fmt: str, args: Sequence[Value]) -> str:
    """`<string>.format(list)` (cel-go `parseFormatString`)."""
    out: list[str] = []
    i = 0
    arg_index = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        if arg_index >= len(args):
            raise CelError(f"index {arg_index} out of range")
        if i + 1 >= n:
            raise CelError("unexpected end of string")
        j = i + 1
        precision: int | None = None
        if fmt[j] == ".":
            j += 1
            start = j
            while j < n and fmt[j].isascii() and fmt[j].isdigit():
                j += 1
            if j >= n:
                raise CelError(
                    "could not parse formatting clause: error while parsing precision: "
                    "could not find end of precision specifier"
                )
            try:
                precision = int(fmt[start:j])
            except ValueError as exc:
                raise CelError(
                    "could not parse formatting clause: error while parsing precision: error while "
                    f'converting precision to integer: strconv.Atoi: parsing "{fmt[start:j]}": invalid syntax'
                ) from exc
        verb = fmt[j]
        if verb not in "sdfebxXo":
            raise CelError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
        arg = args[arg_index]
        if isinstance(arg, Optional):
            raise CelError(
                "error during formatting: string clause can only be used on strings, bools, bytes, "
                "ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type"
            )
        out.append(_format_clause(verb, precision, arg))
        arg_index += 1
        i = j + 1
    return "".join(out)
