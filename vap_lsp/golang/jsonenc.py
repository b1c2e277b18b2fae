"""Go's `encoding/json` output (`json.Marshal`): what the server writes into annotations and,
from Kubernetes 1.34, into the values of its field errors."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal

__all__ = ["marshal", "marshal_float", "marshal_string"]

# Go 1.22 added the short forms \b and \f (earlier releases wrote \u0008 and \u000c); Kubernetes
# 1.31+ is built with Go 1.22 or newer, so the short forms are the server's.
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def marshal_string(s: str) -> str:
    """A string as `json.Marshal` writes it: HTML-safe (`<`, `>`, `&` as `\\u003c`…), U+2028 and
    U+2029 escaped, invalid UTF-8 (here: lone surrogates) as U+FFFD."""
    out = ['"']
    for ch in s:
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
            continue
        o = ord(ch)
        if o < 0x20 or ch in "<>&" or o in (0x2028, 0x2029):
            out.append(f"\\u{o:04x}")
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def marshal_float(x: float) -> str:
    """A float64 as `json.Marshal` writes it (ES6 number form: `1e+21`, `1e-7`, `0.000001`)."""
    if math.isnan(x) or math.isinf(x):
        raise ValueError(f"json: unsupported value: {x}")
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    a = abs(x)
    if a < 1e-6 or a >= 1e21:
        mantissa, _, exp = repr(x).partition("e")  # repr uses exponents below 1e-4 and from 1e16
        if mantissa.endswith(".0"):
            mantissa = mantissa[:-2]
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-").lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits}"
    text = repr(x)
    if "e" in text:  # 1e-05 … 1e+16 and larger: write all digits positionally
        text = format(Decimal(text), "f")
    if text.endswith(".0"):
        text = text[:-2]
    return text


def marshal(value: object, *, sort_keys: bool = True) -> str:
    """`json.Marshal` of JSON-shaped data. Go sorts the keys of a map; a struct keeps its field
    order — pass `sort_keys=False` for dicts standing in for structs."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return marshal_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return marshal_float(value)
    if isinstance(value, Mapping):
        items = sorted(value.items(), key=lambda kv: str(kv[0]).encode()) if sort_keys else value.items()
        return (
            "{"
            + ",".join(f"{marshal_string(str(k))}:{marshal(v, sort_keys=sort_keys)}" for k, v in items)
            + "}"
        )
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return "[" + ",".join(marshal(v, sort_keys=sort_keys) for v in value) + "]"
    raise TypeError(f"json: unsupported type: {type(value).__name__}")
