"""cel-go extensions the API server does not load, declared for the conformance suite only.

`ext.Math` (math.greatest/least and the math functions), `ext.Encoders` (base64) and
`ext.Strings` past version 2 (`reverse`, version 3). Kubernetes' base.go adds none of these
(it pins `ext.Strings(ext.StringsVersion(2))`), so `vap_lsp.cel.library.LIBRARIES` does not list
them and no Kubernetes environment declares them; `vap_lsp.cel.conformance` adds them.

cel-go writes math.greatest/least as macros over `math.@max`/`math.@min` (a list for three or
more arguments); here they are variadic functions up to `MAX_ARITY` arguments with the same
values and result types for one or two arguments.
"""

from __future__ import annotations

from itertools import product

from vap_lsp.cel.library.decls import BASE_TYPES, Library, NamedTypes, Row, Since, build_overloads

__all__ = ["ENCODERS", "MATH", "MAX_ARITY", "STRINGS_V3"]

_NAMED = NamedTypes(BASE_TYPES)
MAX_ARITY = 8
_NUM = ("int", "uint", "double")


def _extrema_rows(fn: str, op: str) -> list[Row]:
    rows: list[Row] = []
    for a in _NUM:
        rows.append((f"math_{op}_{a}", f"math.{fn}({a}) -> {a}", f"the {fn} of one {a}"))
    for a in _NUM:
        rows.append((f"math_{op}_list_{a}", f"math.{fn}(list({a})) -> {a}", f"the {fn} element"))
    for a, b in product(_NUM, _NUM):
        result = a if a == b else "dyn"
        rows.append((f"math_{op}_{a}_{b}", f"math.{fn}({a}, {b}) -> {result}", f"the {fn} of two numbers"))
    for n in range(3, MAX_ARITY + 1):
        params = ", ".join(["dyn"] * n)
        rows.append((f"math_{op}_dyn{n}", f"math.{fn}({params}) -> dyn", f"the {fn} of {n} numbers"))
    return rows


_MATH_ROWS: list[Row] = [
    *_extrema_rows("greatest", "max"),
    *_extrema_rows("least", "min"),
    ("math_ceil_double", "math.ceil(double) -> double", "rounds up"),
    ("math_floor_double", "math.floor(double) -> double", "rounds down"),
    ("math_round_double", "math.round(double) -> double", "rounds half away from zero"),
    ("math_trunc_double", "math.trunc(double) -> double", "rounds toward zero"),
    ("math_abs_int", "math.abs(int) -> int", "absolute value (error on the minimum int)"),
    ("math_abs_uint", "math.abs(uint) -> uint", "absolute value"),
    ("math_abs_double", "math.abs(double) -> double", "absolute value"),
    ("math_sign_int", "math.sign(int) -> int", "-1, 0 or 1"),
    ("math_sign_uint", "math.sign(uint) -> uint", "0 or 1"),
    ("math_sign_double", "math.sign(double) -> double", "-1.0, 0.0 or 1.0"),
    ("math_isNaN_double", "math.isNaN(double) -> bool", "whether the double is NaN"),
    ("math_isInf_double", "math.isInf(double) -> bool", "whether the double is infinite"),
    ("math_isFinite_double", "math.isFinite(double) -> bool", "neither NaN nor infinite"),
    ("math_bitAnd_int_int", "math.bitAnd(int, int) -> int", "bitwise AND"),
    ("math_bitAnd_uint_uint", "math.bitAnd(uint, uint) -> uint", "bitwise AND"),
    ("math_bitOr_int_int", "math.bitOr(int, int) -> int", "bitwise OR"),
    ("math_bitOr_uint_uint", "math.bitOr(uint, uint) -> uint", "bitwise OR"),
    ("math_bitXor_int_int", "math.bitXor(int, int) -> int", "bitwise XOR"),
    ("math_bitXor_uint_uint", "math.bitXor(uint, uint) -> uint", "bitwise XOR"),
    ("math_bitNot_int_int", "math.bitNot(int) -> int", "bitwise NOT"),
    ("math_bitNot_uint_uint", "math.bitNot(uint) -> uint", "bitwise NOT"),
    ("math_bitShiftLeft_int_int", "math.bitShiftLeft(int, int) -> int", "shift left"),
    ("math_bitShiftLeft_uint_int", "math.bitShiftLeft(uint, int) -> uint", "shift left"),
    ("math_bitShiftRight_int_int", "math.bitShiftRight(int, int) -> int", "logical shift right"),
    ("math_bitShiftRight_uint_int", "math.bitShiftRight(uint, int) -> uint", "shift right"),
    ("math_sqrt_int", "math.sqrt(int) -> double", "square root"),
    ("math_sqrt_uint", "math.sqrt(uint) -> double", "square root"),
    ("math_sqrt_double", "math.sqrt(double) -> double", "square root"),
]

MATH = Library(
    name="ext.math",
    source="google/cel-go ext/math.go",
    overloads=build_overloads("ext.math", _NAMED, _MATH_ROWS, Since()),
)

ENCODERS = Library(
    name="ext.encoders",
    source="google/cel-go ext/encoders.go",
    overloads=build_overloads(
        "ext.encoders",
        _NAMED,
        [
            ("base64_encode_bytes", "base64.encode(bytes) -> string", "standard base64 with padding"),
            ("base64_decode_string", "base64.decode(string) -> bytes", "base64, padding optional"),
        ],
        Since(),
    ),
)

STRINGS_V3 = Library(
    name="ext.strings (version 3+)",
    source="google/cel-go ext/strings.go",
    overloads=build_overloads(
        "ext.strings",
        _NAMED,
        [("string_reverse", "<string>.reverse() -> string", "the string's code points reversed")],
        Since(),
    ),
)
