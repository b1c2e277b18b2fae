"""Type conversions (`int()`, `string()`, …) with cel-go's results and error texts
(`common/types/{int,uint,double,string,bytes,timestamp,duration}.go` `ConvertToType`)."""

from __future__ import annotations

import math
import re

from vap_lsp.cel.runtime.timefmt import format_duration, format_timestamp, parse_duration, parse_timestamp
from vap_lsp.cel.runtime.values import (
    INT64_MAX,
    INT64_MIN,
    MAX_UNIX,
    MIN_UNIX,
    UINT64_MAX,
    CelError,
    Duration,
    LibraryValue,
    Timestamp,
    TypeValue,
    UintType,
    Value,
    no_such_overload,
    type_name,
)
from vap_lsp.golang.fmt import format_g as go_format_g

__all__ = [
    "to_bool",
    "to_bytes",
    "to_double",
    "to_duration",
    "to_int",
    "to_string",
    "to_timestamp",
    "to_uint",
    "type_of",
]

_NANOS = 1_000_000_000
_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_UINT_RE = re.compile(r"\+?[0-9]+\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z", re.I)
_BOOLS = {
    "1": True,
    "t": True,
    "T": True,
    "TRUE": True,
    "true": True,
    "True": True,
    "0": False,
    "f": False,
    "F": False,
    "FALSE": False,
    "false": False,
    "False": False,
}


def _conversion_error(v: Value, target: str) -> CelError:
    return CelError(f"type conversion error from '{type_name(v)}' to '{target}'")


def to_int(v: Value) -> int:
    t = type(v)
    if t is int:
        return v  # type: ignore[no-any-return]
    if t is UintType:
        if v > INT64_MAX:
            raise CelError("integer overflow")
        return int(v)
    if t is float:
        if math.isnan(v) or math.isinf(v) or v <= INT64_MIN or v >= INT64_MAX:
            raise CelError("integer overflow")
        return int(v)
    if t is str:
        if _INT_RE.match(v):
            n = int(v)
            if INT64_MIN <= n <= INT64_MAX:
                return n
        raise _conversion_error(v, "int")
    if t is Timestamp:
        return v.seconds  # type: ignore[no-any-return]
    if t is Duration:
        return v.nanos  # type: ignore[no-any-return]
    raise no_such_overload()


def to_uint(v: Value) -> UintType:
    t = type(v)
    if t is UintType:
        return v  # type: ignore[no-any-return]
    if t is int:
        if v < 0:
            raise CelError("unsigned integer overflow")
        return UintType(v)
    if t is float:
        if math.isnan(v) or math.isinf(v) or v < 0 or v >= UINT64_MAX:
            raise CelError("unsigned integer overflow")
        return UintType(int(v))
    if t is str:
        if _UINT_RE.match(v):
            n = int(v)
            if n <= UINT64_MAX:
                return UintType(n)
        raise _conversion_error(v, "uint")
    raise no_such_overload()


def to_double(v: Value) -> float:
    t = type(v)
    if t is float:
        return v  # type: ignore[no-any-return]
    if t is int or t is UintType:
        return float(v)
    if t is str:
        if _FLOAT_RE.match(v):
            result = float(v)
            if not math.isinf(result) or "inf" in v.lower():
                return result
        raise _conversion_error(v, "double")
    raise no_such_overload()


def to_string(v: Value) -> str:
    t = type(v)
    if t is str:
        return v  # type: ignore[no-any-return]
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UintType:
        return str(int(v))
    if t is float:
        return go_format_g(v)
    if t is bytes:
        try:
            return v.decode("utf-8")  # type: ignore[no-any-return]
        except UnicodeDecodeError as exc:
            raise CelError("invalid UTF-8 in bytes, cannot convert to string") from exc
    if t is Timestamp:
        return format_timestamp(v)
    if t is Duration:
        return format_duration(v.nanos)
    if t is TypeValue:
        return v.name  # type: ignore[no-any-return]
    if isinstance(v, LibraryValue) and hasattr(v, "to_cel_string"):
        return v.to_cel_string()  # type: ignore[no-any-return]
    raise no_such_overload()


def to_bytes(v: Value) -> bytes:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise no_such_overload()


def to_bool(v: Value) -> bool:
    if type(v) is bool:
        return v
    if type(v) is str:
        found = _BOOLS.get(v)
        if found is None:
            raise _conversion_error(v, "bool")
        return found
    raise no_such_overload()


def to_duration(v: Value) -> Duration:
    if type(v) is Duration:
        return v
    if type(v) is str:
        nanos = parse_duration(v)
        if nanos is None:
            raise _conversion_error(v, "google.protobuf.Duration")
        return Duration(nanos)
    if type(v) is int:
        return Duration(v)
    raise no_such_overload()


def to_timestamp(v: Value) -> Timestamp:
    if type(v) is Timestamp:
        return v
    if type(v) is str:
        ts = parse_timestamp(v)
        if ts is None:
            raise _conversion_error(v, "google.protobuf.Timestamp")
        return ts
    if type(v) is int:
        if v < MIN_UNIX or v > MAX_UNIX:
            raise CelError("timestamp overflow")
        return Timestamp(v * _NANOS)
    raise no_such_overload()


def type_of(v: Value) -> TypeValue:
    return TypeValue(type_name(v))
