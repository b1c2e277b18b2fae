"""The cel-go standard library as compiled into Kubernetes.

Mirrors `google/cel-go common/stdlib/standard.go` (v0.17–v0.28; `checker/standard.go` in v0.16,
same overload set) with overload ids from `common/overloads/overloads.go` and operator names
from `common/operators/operators.go`. Differences by version:

* the cross-type numeric comparisons (`less_int64_double`, …) are declared by cel-go but filtered
  by the checker unless `cel.CrossTypeNumericComparisons(true)` is set, which Kubernetes does from
  compat version 1.28 (`base.go`; `checker/env.go crossTypeNumericComparisonOverloads`);
* `duration(int)` (`int64_to_duration`) was deleted in cel-go v0.28.1 (commit 339269b4), so it
  is gone from Kubernetes 1.37 (cel-go v0.29.2);
* the deprecated `_in_` / `__not_strictly_false__` / `in` spellings are declared but disabled and
  therefore omitted.
"""

from __future__ import annotations

from vap_lsp.cel.library.decls import (
    BASE_TYPES,
    UNGUARDED,
    Binding,
    Library,
    MacroDecl,
    NamedTypes,
    Row,
    Since,
    Trait,
    build_overloads,
    singleton,
)

_NAMED = NamedTypes(BASE_TYPES)
_CROSS = Since(compat=28, nested_scopes_always=True)

_LOGIC: list[Row] = [
    ("conditional", "_?_:_(bool, A, A) -> A", "the ternary operator: `cond ? a : b`"),
    (
        "logical_and",
        "_&&_(bool, bool) -> bool",
        "logical AND; errors/unknowns absorbed when the other side is false",
    ),
    (
        "logical_or",
        "_||_(bool, bool) -> bool",
        "logical OR; errors/unknowns absorbed when the other side is true",
    ),
    ("logical_not", "!_(bool) -> bool", "logical negation"),
    ("not_strictly_false", "@not_strictly_false(bool) -> bool", "internal: comprehension loop condition"),
    (
        "equals",
        "_==_(A, A) -> bool",
        "equality of two values of the same type (heterogeneous numbers compare by value)",
    ),
    ("not_equals", "_!=_(A, A) -> bool", "inequality of two values of the same type"),
]

_ARITHMETIC: list[Row] = [
    ("add_bytes", "_+_(bytes, bytes) -> bytes", "concatenates two byte strings"),
    ("add_double", "_+_(double, double) -> double", "adds two doubles"),
    ("add_duration_duration", "_+_(duration, duration) -> duration", "adds two durations"),
    ("add_duration_timestamp", "_+_(duration, timestamp) -> timestamp", "shifts a timestamp by a duration"),
    ("add_timestamp_duration", "_+_(timestamp, duration) -> timestamp", "shifts a timestamp by a duration"),
    ("add_int64", "_+_(int, int) -> int", "adds two ints (error on overflow)"),
    ("add_list", "_+_(list(A), list(A)) -> list(A)", "concatenates two lists"),
    ("add_string", "_+_(string, string) -> string", "concatenates two strings"),
    ("add_uint64", "_+_(uint, uint) -> uint", "adds two uints (error on overflow)"),
    ("divide_double", "_/_(double, double) -> double", "divides two doubles"),
    ("divide_int64", "_/_(int, int) -> int", "integer division (error on division by zero)"),
    ("divide_uint64", "_/_(uint, uint) -> uint", "unsigned division (error on division by zero)"),
    ("modulo_int64", "_%_(int, int) -> int", "integer remainder"),
    ("modulo_uint64", "_%_(uint, uint) -> uint", "unsigned remainder"),
    ("multiply_double", "_*_(double, double) -> double", "multiplies two doubles"),
    ("multiply_int64", "_*_(int, int) -> int", "multiplies two ints (error on overflow)"),
    ("multiply_uint64", "_*_(uint, uint) -> uint", "multiplies two uints (error on overflow)"),
    ("negate_double", "-_(double) -> double", "negates a double"),
    ("negate_int64", "-_(int) -> int", "negates an int"),
    ("subtract_double", "_-_(double, double) -> double", "subtracts two doubles"),
    ("subtract_duration_duration", "_-_(duration, duration) -> duration", "subtracts two durations"),
    ("subtract_int64", "_-_(int, int) -> int", "subtracts two ints (error on overflow)"),
    (
        "subtract_timestamp_duration",
        "_-_(timestamp, duration) -> timestamp",
        "shifts a timestamp back by a duration",
    ),
    (
        "subtract_timestamp_timestamp",
        "_-_(timestamp, timestamp) -> duration",
        "the duration between two timestamps",
    ),
    ("subtract_uint64", "_-_(uint, uint) -> uint", "subtracts two uints (error on underflow)"),
]

# Ordering: cel-go declares, per operator, the same-type and cross-type overloads interleaved in
# this order (bool, int, int/double, int/uint, uint, uint/double, uint/int, double, double/int,
# double/uint, string, bytes, timestamp, duration).
_ORDER_PAIRS = [
    ("bool", "bool", "bool"),
    ("int64", "int", "int"),
    ("int64_double", "int", "double"),
    ("int64_uint64", "int", "uint"),
    ("uint64", "uint", "uint"),
    ("uint64_double", "uint", "double"),
    ("uint64_int64", "uint", "int"),
    ("double", "double", "double"),
    ("double_int64", "double", "int"),
    ("double_uint64", "double", "uint"),
    ("string", "string", "string"),
    ("bytes", "bytes", "bytes"),
    ("timestamp", "timestamp", "timestamp"),
    ("duration", "duration", "duration"),
]
_ORDER_OPS = [
    ("less", "_<_", "<"),
    ("less_equals", "_<=_", "<="),
    ("greater", "_>_", ">"),
    ("greater_equals", "_>=_", ">="),
]


def _ordering_rows() -> list[Row]:
    rows: list[Row] = []
    for op_id, op_name, symbol in _ORDER_OPS:
        for suffix, left, right in _ORDER_PAIRS:
            row = (
                f"{op_id}_{suffix}",
                f"{op_name}({left}, {right}) -> bool",
                f"ordering `{left} {symbol} {right}`",
            )
            rows.append((*row, _CROSS) if left != right else row)
    return rows


_CONTAINERS: list[Row] = [
    ("index_list", "_[_](list(A), int) -> A", "list element at a zero-based index"),
    ("index_map", "_[_](map(A, B), A) -> B", "map value for a key (error if absent)"),
    ("in_list", "@in(A, list(A)) -> bool", "whether the list contains the value"),
    ("in_map", "@in(A, map(A, B)) -> bool", "whether the map has the key"),
    ("size_bytes", "size(bytes) -> int", "number of bytes"),
    ("bytes_size", "<bytes>.size() -> int", "number of bytes"),
    ("size_list", "size(list(A)) -> int", "number of list elements"),
    ("list_size", "<list(A)>.size() -> int", "number of list elements"),
    ("size_map", "size(map(A, B)) -> int", "number of map entries"),
    ("map_size", "<map(A, B)>.size() -> int", "number of map entries"),
    ("size_string", "size(string) -> int", "number of Unicode code points"),
    ("string_size", "<string>.size() -> int", "number of Unicode code points"),
]

_CONVERSIONS: list[Row] = [
    ("type", "type(A) -> type(A)", "the type of a value"),
    ("bool_to_bool", "bool(bool) -> bool", "identity"),
    ("string_to_bool", "bool(string) -> bool", "parses 'true'/'false' (also 't', 'f', '1', '0', 'TRUE', …)"),
    ("bytes_to_bytes", "bytes(bytes) -> bytes", "identity"),
    ("string_to_bytes", "bytes(string) -> bytes", "UTF-8 encoding of a string"),
    ("double_to_double", "double(double) -> double", "identity"),
    ("int64_to_double", "double(int) -> double", "converts an int to double"),
    ("string_to_double", "double(string) -> double", "parses a double"),
    ("uint64_to_double", "double(uint) -> double", "converts a uint to double"),
    ("duration_to_duration", "duration(duration) -> duration", "identity"),
    (
        "int64_to_duration",
        "duration(int) -> duration",
        "declared but not implemented: fails at runtime",
        Since(removed=37),
    ),
    ("string_to_duration", "duration(string) -> duration", "parses a duration such as '1h30m' or '10s'"),
    ("to_dyn", "dyn(A) -> dyn", "marks a value as dynamically typed for the type checker"),
    ("int64_to_int64", "int(int) -> int", "identity"),
    ("double_to_int64", "int(double) -> int", "truncates a double toward zero (error if out of range)"),
    ("duration_to_int64", "int(duration) -> int", "duration in nanoseconds"),
    ("string_to_int64", "int(string) -> int", "parses a base-10 integer"),
    ("timestamp_to_int64", "int(timestamp) -> int", "seconds since the Unix epoch"),
    ("uint64_to_int64", "int(uint) -> int", "converts a uint to int (error if out of range)"),
    ("string_to_string", "string(string) -> string", "identity"),
    ("bool_to_string", "string(bool) -> string", "'true' or 'false'"),
    ("bytes_to_string", "string(bytes) -> string", "decodes UTF-8 bytes (error if invalid)"),
    ("double_to_string", "string(double) -> string", "formats a double"),
    ("duration_to_string", "string(duration) -> string", "formats a duration in seconds, e.g. '90s'"),
    ("int64_to_string", "string(int) -> string", "formats an int"),
    ("timestamp_to_string", "string(timestamp) -> string", "formats a timestamp as RFC 3339"),
    ("uint64_to_string", "string(uint) -> string", "formats a uint"),
    ("timestamp_to_timestamp", "timestamp(timestamp) -> timestamp", "identity"),
    ("int64_to_timestamp", "timestamp(int) -> timestamp", "timestamp from seconds since the Unix epoch"),
    ("string_to_timestamp", "timestamp(string) -> timestamp", "parses an RFC 3339 timestamp"),
    ("uint64_to_uint64", "uint(uint) -> uint", "identity"),
    ("double_to_uint64", "uint(double) -> uint", "truncates a double (error if out of range)"),
    ("int64_to_uint64", "uint(int) -> uint", "converts an int to uint (error if negative)"),
    ("string_to_uint64", "uint(string) -> uint", "parses an unsigned integer"),
]

_STRINGS: list[Row] = [
    ("contains_string", "<string>.contains(string) -> bool", "whether the string contains the substring"),
    ("ends_with_string", "<string>.endsWith(string) -> bool", "whether the string ends with the suffix"),
    (
        "starts_with_string",
        "<string>.startsWith(string) -> bool",
        "whether the string starts with the prefix",
    ),
    ("matches", "matches(string, string) -> bool", "whether the string matches the RE2 regular expression"),
    (
        "matches_string",
        "<string>.matches(string) -> bool",
        "whether the string matches the RE2 regular expression",
    ),
]

# (accessor, timestamp overload id stem, what it returns, duration overload id or "")
_ACCESSORS = [
    ("getFullYear", "timestamp_to_year", "the year", ""),
    ("getMonth", "timestamp_to_month", "the month, 0-11", ""),
    ("getDayOfYear", "timestamp_to_day_of_year", "the day of the year, 0-365", ""),
    ("getDayOfMonth", "timestamp_to_day_of_month", "the day of the month, 0-30", ""),
    ("getDate", "timestamp_to_day_of_month_1_based", "the day of the month, 1-31", ""),
    ("getDayOfWeek", "timestamp_to_day_of_week", "the day of the week, 0 (Sunday)-6", ""),
    ("getHours", "timestamp_to_hours", "the hour, 0-23", "duration_to_hours"),
    ("getMinutes", "timestamp_to_minutes", "the minute, 0-59", "duration_to_minutes"),
    ("getSeconds", "timestamp_to_seconds", "the second, 0-59", "duration_to_seconds"),
    ("getMilliseconds", "timestamp_to_milliseconds", "the millisecond, 0-999", "duration_to_milliseconds"),
]
# cel-go spells this one id without "_with": overloads.TimestampToSecondsWithTz.
_TZ_ID_EXCEPTIONS = {"timestamp_to_seconds": "timestamp_to_seconds_tz"}


def _accessor_rows() -> list[Row]:
    rows: list[Row] = []
    for name, stem, what, duration_id in _ACCESSORS:
        rows.append((stem, f"<timestamp>.{name}() -> int", f"{what} of a timestamp, in UTC"))
        tz_id = _TZ_ID_EXCEPTIONS.get(stem, f"{stem}_with_tz")
        rows.append(
            (tz_id, f"<timestamp>.{name}(string) -> int", f"{what} of a timestamp in the given time zone")
        )
        if duration_id:
            unit = name.removeprefix("get").lower()
            rows.append(
                (duration_id, f"<duration>.{name}() -> int", f"the duration converted to whole {unit}")
            )
    return rows


# How standard.go binds each function (the same from cel-go v0.17 to v0.29): the operators, `size`
# and `matches` with `decls.Singleton*Binding` and the operand trait named there, `contains`,
# `endsWith` and `startsWith` under `decls.DisableTypeGuards(true)` (`types.StringContains`… answer
# plain `no such overload`); every other function (conversions, time accessors,
# `@not_strictly_false`) per overload.
_BINDINGS: dict[str, Binding] = {
    "_?_:_": singleton(),
    "_&&_": singleton(),
    "_||_": singleton(),
    "!_": singleton(),
    "_==_": singleton(),
    "_!=_": singleton(),
    "_+_": singleton(Trait.ADDER),
    "_/_": singleton(Trait.DIVIDER),
    "_%_": singleton(Trait.MODDER),
    "_*_": singleton(Trait.MULTIPLIER),
    "-_": singleton(Trait.NEGATOR),
    "_-_": singleton(Trait.SUBTRACTOR),
    "_<_": singleton(Trait.COMPARER),
    "_<=_": singleton(Trait.COMPARER),
    "_>_": singleton(Trait.COMPARER),
    "_>=_": singleton(Trait.COMPARER),
    "_[_]": singleton(Trait.INDEXER),
    "@in": singleton(),
    "size": singleton(Trait.SIZER),
    "type": singleton(),
    "dyn": singleton(),
    "matches": singleton(Trait.MATCHER),
    "contains": UNGUARDED,
    "endsWith": UNGUARDED,
    "startsWith": UNGUARDED,
}

STDLIB = Library(
    name="stdlib",
    source="google/cel-go common/stdlib/standard.go",
    overloads=build_overloads(
        "stdlib",
        _NAMED,
        [*_LOGIC, *_ARITHMETIC, *_ordering_rows(), *_CONTAINERS, *_CONVERSIONS, *_STRINGS, *_accessor_rows()],
        Since(),
    ),
    macros=(
        MacroDecl("has", 1, False, "tests whether a field or map key is present: `has(x.f)`", "stdlib"),
        MacroDecl(
            "all", 2, True, "true if the predicate holds for every element/key: `l.all(x, p)`", "stdlib"
        ),
        MacroDecl(
            "exists", 2, True, "true if the predicate holds for some element/key: `l.exists(x, p)`", "stdlib"
        ),
        MacroDecl("exists_one", 2, True, "true if the predicate holds for exactly one element/key", "stdlib"),
        MacroDecl("map", 2, True, "transforms each element: `l.map(x, f)`", "stdlib"),
        MacroDecl("map", 3, True, "filters then transforms: `l.map(x, p, f)`", "stdlib"),
        MacroDecl(
            "filter", 2, True, "keeps the elements/keys satisfying the predicate: `l.filter(x, p)`", "stdlib"
        ),
    ),
    bindings=_BINDINGS,
)

# Identifiers the standard library declares for type names (`stdTypes` in standard.go): `int`,
# `list`, … as `type(T)` values. cel-go ≥ 0.17 also declares the protobuf names of duration and
# timestamp; Kubernetes 1.28 (cel-go 0.16) did not.
TYPE_IDENTIFIERS: tuple[tuple[str, str, Since], ...] = (
    ("bool", "bool", Since()),
    ("bytes", "bytes", Since()),
    ("double", "double", Since()),
    ("google.protobuf.Duration", "duration", Since(binary=29)),
    ("int", "int", Since()),
    ("list", "list(A)", Since()),
    ("map", "map(A, B)", Since()),
    ("null_type", "null_type", Since()),
    ("string", "string", Since()),
    ("google.protobuf.Timestamp", "timestamp", Since(binary=29)),
    ("type", "type", Since()),
    ("uint", "uint", Since()),
    # kubernetes/apiserver library/ip.go and cidr.go register their types (`cel.Types(IPType)`,
    # `cel.Types(CIDRType)`), so the names are type identifiers wherever the libraries are.
    ("net.IP", "net.IP", Since(compat=30)),
    ("net.CIDR", "net.CIDR", Since(compat=30)),
)
