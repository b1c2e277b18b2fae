"""Implementations of the cel-go standard library, keyed by overload id
(`vap_lsp.cel.library.stdlib` declares them; `common/types/*.go` defines their semantics)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from vap_lsp.cel.runtime import conversions as conv
from vap_lsp.cel.runtime.timefmt import local_time
from vap_lsp.cel.runtime.values import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    CelError,
    Duration,
    Timestamp,
    UintType,
    Value,
    cel_equals,
    go_equals,
    map_get,
    no_such_overload,
    num_compare,
)
from vap_lsp.golang import regexp

__all__ = ["IMPLS", "compare", "compile_regex"]

Impl = Callable[..., Value]
IMPLS: dict[str, Impl] = {}


def _reg(*ids: str) -> Callable[[Impl], Impl]:
    def deco(fn: Impl) -> Impl:
        for i in ids:
            IMPLS[i] = fn
        return fn

    return deco


def _int(v: int) -> int:
    if not INT64_MIN <= v <= INT64_MAX:
        raise CelError("integer overflow")
    return v


def _uint(v: int) -> UintType:
    if not 0 <= v <= UINT64_MAX:
        raise CelError("unsigned integer overflow")
    return UintType(v)


def _dur(v: int) -> Duration:
    if not INT64_MIN <= v <= INT64_MAX:
        raise CelError("integer overflow")
    return Duration(v)


# --- arithmetic ----------------------------------------------------------------------------------

IMPLS["add_int64"] = lambda a, b: _int(a + b)
IMPLS["add_uint64"] = lambda a, b: _uint(int(a) + int(b))
IMPLS["add_double"] = lambda a, b: a + b
IMPLS["add_string"] = lambda a, b: a + b
IMPLS["add_bytes"] = lambda a, b: a + b
IMPLS["add_duration_duration"] = lambda a, b: _dur(a.nanos + b.nanos)
IMPLS["add_timestamp_duration"] = lambda a, b: Timestamp(a.nanos + b.nanos, a.offset)
IMPLS["add_duration_timestamp"] = lambda a, b: Timestamp(a.nanos + b.nanos, b.offset)
IMPLS["subtract_int64"] = lambda a, b: _int(a - b)
IMPLS["subtract_uint64"] = lambda a, b: _uint(int(a) - int(b))
IMPLS["subtract_double"] = lambda a, b: a - b
IMPLS["subtract_duration_duration"] = lambda a, b: _dur(a.nanos - b.nanos)
IMPLS["subtract_timestamp_duration"] = lambda a, b: Timestamp(a.nanos - b.nanos, a.offset)
IMPLS["subtract_timestamp_timestamp"] = lambda a, b: _dur(a.nanos - b.nanos)
IMPLS["multiply_int64"] = lambda a, b: _int(a * b)
IMPLS["multiply_uint64"] = lambda a, b: _uint(int(a) * int(b))
IMPLS["multiply_double"] = lambda a, b: a * b
IMPLS["negate_int64"] = lambda a: _int(-a)
IMPLS["negate_double"] = lambda a: -a


class MutableList(list[Value]):
    """A comprehension accumulator list: `@result + [x]` appends in place while `mutable`
    (cel-go's mutable accumulator), so `map`/`filter` are linear, not quadratic."""

    __slots__ = ("mutable",)

    def __init__(self) -> None:
        super().__init__()
        self.mutable = True


@_reg("add_list")
def _add_list(a: Value, b: Value) -> Value:
    if type(a) is MutableList and a.mutable:
        a.extend(b)
        return a
    if not b:
        return a
    if not a:
        return b
    return [*a, *b]


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@_reg("divide_int64")
def _div_int(a: int, b: int) -> int:
    if b == 0:
        raise CelError("division by zero")
    return _int(_trunc_div(a, b))


@_reg("modulo_int64")
def _mod_int(a: int, b: int) -> int:
    if b == 0:
        raise CelError("modulus by zero")
    if a == INT64_MIN and b == -1:
        raise CelError("integer overflow")
    return a - b * _trunc_div(a, b)


@_reg("divide_uint64")
def _div_uint(a: int, b: int) -> UintType:
    if b == 0:
        raise CelError("division by zero")
    return UintType(int(a) // int(b))


@_reg("modulo_uint64")
def _mod_uint(a: int, b: int) -> UintType:
    if b == 0:
        raise CelError("modulus by zero")
    return UintType(int(a) % int(b))


@_reg("divide_double")
def _div_double(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


# --- comparisons ---------------------------------------------------------------------------------


def compare(a: Value, b: Value) -> int:
    """cel-go `Compare` for same-type or numeric operands; NaN cannot be ordered."""
    ta, tb = type(a), type(b)
    if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):
        raise CelError("NaN values cannot be ordered")
    if ta is Timestamp or ta is Duration:
        if tb is not ta:
            raise no_such_overload()
        x, y = a.nanos, b.nanos
    elif ta is float or tb is float:
        return num_compare(a, b)
    else:
        x = int(a) if ta is UintType else a
        y = int(b) if tb is UintType else b
    return -1 if x < y else (1 if x > y else 0)


def _ordering(test: Callable[[int], bool]) -> Impl:
    def impl(a: Value, b: Value) -> bool:
        return test(compare(a, b))

    return impl


for _suffix in ("bool", "int64", "int64_double", "int64_uint64", "uint64", "uint64_double", "uint64_int64",
                "double", "double_int64", "double_uint64", "string", "bytes", "timestamp",
                "duration"):  # fmt: skip
    IMPLS[f"less_{_suffix}"] = _ordering(lambda c: c < 0)
    IMPLS[f"less_equals_{_suffix}"] = _ordering(lambda c: c <= 0)
    IMPLS[f"greater_{_suffix}"] = _ordering(lambda c: c > 0)
    IMPLS[f"greater_equals_{_suffix}"] = _ordering(lambda c: c >= 0)


def _equals(a: Value, b: Value) -> bool:
    """`==` (cel-go interpreter `evalEq`): `types.Equal`, whose error (a Kubernetes 1.37 typed
    value against a value of another kind) is the result."""
    r = go_equals(a, b)
    if isinstance(r, CelError):
        raise r
    return r


IMPLS["equals"] = _equals
# `!=` (cel-go `evalNe`): `types.Bool(types.Equal(l, r) != types.True)`, an error is unequal
IMPLS["not_equals"] = lambda a, b: go_equals(a, b) is not True

# --- containers ----------------------------------------------------------------------------------


@_reg("in_list")
def _in_list(x: Value, lst: Value) -> bool:
    return any(cel_equals(x, e) for e in lst)


@_reg("in_map")
def _in_map(x: Value, m: Value) -> bool:
    return map_get(m, x)[0]


for _i in ("size_bytes", "bytes_size", "size_list", "list_size", "size_map", "map_size", "size_string",
           "string_size"):  # fmt: skip
    IMPLS[_i] = len

# --- conversions ---------------------------------------------------------------------------------

IMPLS["type"] = conv.type_of
IMPLS["to_dyn"] = lambda v: v
for _i in ("bool_to_bool", "string_to_bool"):
    IMPLS[_i] = conv.to_bool
for _i in ("bytes_to_bytes", "string_to_bytes"):
    IMPLS[_i] = conv.to_bytes
for _i in ("double_to_double", "int64_to_double", "string_to_double", "uint64_to_double"):
    IMPLS[_i] = conv.to_double
for _i in ("duration_to_duration", "string_to_duration"):
    IMPLS[_i] = conv.to_duration
for _i in ("int64_to_int64", "double_to_int64", "duration_to_int64", "string_to_int64",
           "timestamp_to_int64", "uint64_to_int64"):  # fmt: skip
    IMPLS[_i] = conv.to_int
for _i in ("string_to_string", "bool_to_string", "bytes_to_string", "double_to_string",
           "duration_to_string", "int64_to_string", "timestamp_to_string", "uint64_to_string"):  # fmt: skip
    IMPLS[_i] = conv.to_string
for _i in ("timestamp_to_timestamp", "int64_to_timestamp", "string_to_timestamp"):
    IMPLS[_i] = conv.to_timestamp
for _i in ("uint64_to_uint64", "double_to_uint64", "int64_to_uint64", "string_to_uint64"):
    IMPLS[_i] = conv.to_uint


@_reg("int64_to_duration")
def _int_to_duration(v: int) -> Duration:
    return Duration(v)


# --- strings and regex ---------------------------------------------------------------------------

# `contains`, `endsWith` and `startsWith` run unguarded (decls.DisableTypeGuards):
# types.StringContains/StringEndsWith/StringStartsWith check their arguments themselves.


@_reg("contains_string")
def _contains(s: Value, sub: Value) -> bool:
    if type(s) is not str or type(sub) is not str:
        raise no_such_overload()
    return sub in s


@_reg("ends_with_string")
def _ends_with(s: Value, suffix: Value) -> bool:
    if type(s) is not str or type(suffix) is not str:
        raise no_such_overload()
    return s.endswith(suffix)


@_reg("starts_with_string")
def _starts_with(s: Value, prefix: Value) -> bool:
    if type(s) is not str or type(prefix) is not str:
        raise no_such_overload()
    return s.startswith(prefix)


def compile_regex(pattern: str) -> Any:
    """Go's `regexp.Compile` for `matches`; its error is the call's error, in Go's words."""
    try:
        return regexp.compile(pattern)
    except regexp.RegexpError as exc:
        raise CelError(str(exc)) from exc


@_reg("matches", "matches_string")
def _matches(s: str, pattern: str) -> bool:
    return compile_regex(pattern).search(s) is not None


# --- timestamps and durations --------------------------------------------------------------------


def _ts_accessor(fn: Callable[..., int]) -> tuple[Impl, Impl]:
    def utc(ts: Timestamp) -> int:
        dt, nanos = local_time(ts, None)
        return fn(dt, nanos)

    def with_tz(ts: Timestamp, tz: str) -> int:
        dt, nanos = local_time(ts, tz)
        return fn(dt, nanos)

    return utc, with_tz


_ACCESSORS: dict[str, Callable[..., int]] = {
    "timestamp_to_year": lambda d, n: d.year,
    "timestamp_to_month": lambda d, n: d.month - 1,
    "timestamp_to_day_of_year": lambda d, n: d.timetuple().tm_yday - 1,
    "timestamp_to_day_of_month": lambda d, n: d.day - 1,
    "timestamp_to_day_of_month_1_based": lambda d, n: d.day,
    "timestamp_to_day_of_week": lambda d, n: (d.weekday() + 1) % 7,
    "timestamp_to_hours": lambda d, n: d.hour,
    "timestamp_to_minutes": lambda d, n: d.minute,
    "timestamp_to_seconds": lambda d, n: d.second,
    "timestamp_to_milliseconds": lambda d, n: n // 1_000_000,
}
for _stem, _fn in _ACCESSORS.items():
    _utc, _tz = _ts_accessor(_fn)
    IMPLS[_stem] = _utc
    IMPLS["timestamp_to_seconds_tz" if _stem == "timestamp_to_seconds" else f"{_stem}_with_tz"] = _tz

IMPLS["duration_to_hours"] = lambda d: _trunc_div(d.nanos, 3_600_000_000_000)
IMPLS["duration_to_minutes"] = lambda d: _trunc_div(d.nanos, 60_000_000_000)
IMPLS["duration_to_seconds"] = lambda d: _trunc_div(d.nanos, 1_000_000_000)
IMPLS["duration_to_milliseconds"] = lambda d: _trunc_div(d.nanos, 1_000_000)
