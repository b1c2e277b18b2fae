"""Runtime of the cel-go extensions declared in `vap_lsp.cel.library.celext` (conformance only:
the API server does not load them, so no Kubernetes environment reaches these overload ids)."""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Sequence

from vap_lsp.cel.library.celext import MAX_ARITY
from vap_lsp.cel.runtime.values import INT64_MIN, UINT64_MAX, CelError, UintType, Value, no_such_overload

__all__ = ["IMPLS"]

IMPLS: dict[str, Callable[..., Value]] = {}

_NUMBERS = (int, float, UintType)


def _is_number(v: Value) -> bool:
    return type(v) in _NUMBERS


def _extreme(values: Sequence[Value], greatest: bool, fn: str) -> Value:
    if not values:
        raise CelError(f"math.{fn}(list) argument must not be empty")
    best = values[0]
    for v in values:
        if not _is_number(v):
            raise no_such_overload()
        if (v > best) if greatest else (v < best):
            best = v
    return best


def _register_extrema(fn: str, op: str, greatest: bool) -> None:
    for suffix in ("int", "uint", "double"):
        IMPLS[f"math_{op}_{suffix}"] = lambda v: v
        IMPLS[f"math_{op}_list_{suffix}"] = lambda lst, f=fn: _extreme(list(lst), greatest, f)
        for other in ("int", "uint", "double"):
            IMPLS[f"math_{op}_{suffix}_{other}"] = lambda *a, f=fn: _extreme(a, greatest, f)
    for n in range(3, MAX_ARITY + 1):
        IMPLS[f"math_{op}_dyn{n}"] = lambda *a, f=fn: _extreme(a, greatest, f)


_register_extrema("greatest", "max", True)
_register_extrema("least", "min", False)


def _round(x: float) -> float:
    """Go's math.Round: half away from zero."""
    if math.isnan(x) or math.isinf(x):
        return x
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return math.copysign(t, x)


def _abs_int(x: int) -> int:
    if x == INT64_MIN:
        raise CelError("integer overflow")
    return abs(x)


def _sign_double(x: float) -> float:
    if math.isnan(x):
        return x
    return 1.0 if x > 0 else -1.0 if x < 0 else 0.0


def _to_int64(x: int) -> int:
    x &= UINT64_MAX
    return x - (1 << 64) if x >= 1 << 63 else x


def _check_offset(fn: str, n: int) -> None:
    if n < 0:
        raise CelError(f"math.{fn}() negative offset: {n}")


def _shl_int(x: int, n: int) -> int:
    _check_offset("bitShiftLeft", n)
    return 0 if n > 63 else _to_int64(x << n)


def _shl_uint(x: int, n: int) -> UintType:
    _check_offset("bitShiftLeft", n)
    return UintType(0 if n > 63 else (int(x) << n) & UINT64_MAX)


def _shr_int(x: int, n: int) -> int:
    _check_offset("bitShiftRight", n)
    return 0 if n > 63 else _to_int64((x & UINT64_MAX) >> n)


def _shr_uint(x: int, n: int) -> UintType:
    _check_offset("bitShiftRight", n)
    return UintType(0 if n > 63 else int(x) >> n)


def _sqrt(x: Value) -> float:
    v = float(x)
    return math.nan if v < 0 else math.sqrt(v)


def _b64decode(s: str) -> bytes:
    data = s.encode("utf-8")
    try:
        return base64.b64decode(data + b"=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise CelError(f"illegal base64 data: {exc}") from exc


IMPLS.update(
    {
        "math_ceil_double": lambda x: float(math.ceil(x)) if math.isfinite(x) else x,
        "math_floor_double": lambda x: float(math.floor(x)) if math.isfinite(x) else x,
        "math_round_double": _round,
        "math_trunc_double": lambda x: float(math.trunc(x)) if math.isfinite(x) else x,
        "math_abs_int": _abs_int,
        "math_abs_uint": lambda x: x,
        "math_abs_double": abs,
        "math_sign_int": lambda x: (x > 0) - (x < 0),
        "math_sign_uint": lambda x: UintType(1 if x > 0 else 0),
        "math_sign_double": _sign_double,
        "math_isNaN_double": math.isnan,
        "math_isInf_double": math.isinf,
        "math_isFinite_double": math.isfinite,
        "math_bitAnd_int_int": lambda a, b: a & b,
        "math_bitAnd_uint_uint": lambda a, b: UintType(int(a) & int(b)),
        "math_bitOr_int_int": lambda a, b: a | b,
        "math_bitOr_uint_uint": lambda a, b: UintType(int(a) | int(b)),
        "math_bitXor_int_int": lambda a, b: a ^ b,
        "math_bitXor_uint_uint": lambda a, b: UintType(int(a) ^ int(b)),
        "math_bitNot_int_int": lambda a: ~a,
        "math_bitNot_uint_uint": lambda a: UintType(int(a) ^ UINT64_MAX),
        "math_bitShiftLeft_int_int": _shl_int,
        "math_bitShiftLeft_uint_int": _shl_uint,
        "math_bitShiftRight_int_int": _shr_int,
        "math_bitShiftRight_uint_int": _shr_uint,
        "math_sqrt_int": _sqrt,
        "math_sqrt_uint": _sqrt,
        "math_sqrt_double": _sqrt,
        "base64_encode_bytes": lambda b: base64.b64encode(b).decode("ascii"),
        "base64_decode_string": _b64decode,
        "string_reverse": lambda s: s[::-1],
    }
)
