"""cel-go extension libraries enabled by Kubernetes: optional types (`cel/library.go`),
`ext.Strings`, `ext.Sets`, `ext.Lists`, `ext.TwoVarComprehensions` (`cel.@mapInsert`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from vap_lsp.cel.runtime import strings as s
from vap_lsp.cel.runtime.cost import LIST_CREATE
from vap_lsp.cel.runtime.stdlib import compare
from vap_lsp.cel.runtime.values import (
    MIN_UNIX,
    NONE,
    CelError,
    CostLimitExceeded,
    Duration,
    LibraryValue,
    Optional,
    Timestamp,
    UintType,
    Value,
    cel_equals,
    format_key,
    map_get,
    type_name,
    type_string,
)
from vap_lsp.golang.strings import trim_space

__all__ = ["IMPLS", "PRE_CHECKS", "MutableMap"]

Impl = Callable[..., Value]
IMPLS: dict[str, Impl] = {}


class MutableMap(dict[Value, Value]):
    """A comprehension accumulator map: `cel.@mapInsert` inserts in place while `mutable`."""

    __slots__ = ("mutable",)

    def __init__(self) -> None:
        super().__init__()
        self.mutable = True


# --- optional ------------------------------------------------------------------------------------


def _zero(v: Value) -> bool:
    """cel-go `IsZeroValue` (for `optional.ofNonZeroValue`)."""
    if v is None or v is False:
        return True
    if type(v) in (int, float, UintType):
        return bool(v == 0)
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v) == 0
    if isinstance(v, Duration):
        return v.nanos == 0
    if isinstance(v, Timestamp):  # Go's time.Time.IsZero: the instant 0001-01-01T00:00:00Z
        return v.nanos == MIN_UNIX * 1_000_000_000
    if isinstance(v, LibraryValue):
        return v.is_zero_value()
    return False


IMPLS["optional_of"] = Optional
IMPLS["optional_ofNonZeroValue"] = lambda v: NONE if _zero(v) else Optional(v)
IMPLS["optional_none"] = lambda: NONE
IMPLS["optional_value"] = lambda o: o.get()
IMPLS["optional_hasValue"] = lambda o: o.has_value
IMPLS["optional_or_optional"] = lambda a, b: a if a.has_value else b
IMPLS["optional_orValue_value"] = lambda a, b: a.value if a.has_value else b
IMPLS["list_first"] = lambda lst: Optional(lst[0]) if lst else NONE
IMPLS["list_last"] = lambda lst: Optional(lst[-1]) if lst else NONE


def _unwrap(lst: Value) -> list[Value]:
    out = []
    for o in lst:
        if type(o) is not Optional:
            raise CelError(f"optional.unwrap: expected optional value, got {type_name(o)}")
        if o.has_value:
            out.append(o.value)
    return out


IMPLS["optional_unwrap"] = _unwrap
IMPLS["optional_unwrapOpt"] = _unwrap

# --- ext.Strings ---------------------------------------------------------------------------------

IMPLS["string_char_at_int"] = s.char_at
IMPLS["string_index_of_string"] = s.index_of
IMPLS["string_index_of_string_int"] = s.index_of
IMPLS["string_last_index_of_string"] = s.last_index_of
IMPLS["string_last_index_of_string_int"] = s.last_index_of
IMPLS["string_lower_ascii"] = s.lower_ascii
IMPLS["string_upper_ascii"] = s.upper_ascii
IMPLS["string_replace_string_string"] = s.replace
IMPLS["string_replace_string_string_int"] = s.replace
IMPLS["string_split_string"] = s.split
IMPLS["string_split_string_int"] = s.split
IMPLS["string_substring_int"] = s.substring
IMPLS["string_substring_int_int"] = s.substring
IMPLS["string_trim"] = trim_space
IMPLS["list_join"] = s.join
IMPLS["list_join_string"] = s.join
IMPLS["string_format"] = s.format_string
IMPLS["strings_quote"] = s.quote

# --- ext.Sets ------------------------------------------------------------------------------------


def _contains(a: Value, b: Value) -> bool:
    return all(any(cel_equals(x, y) for y in a) for x in b)


IMPLS["list_sets_contains_list"] = _contains
IMPLS["list_sets_equivalent_list"] = lambda a, b: _contains(a, b) and _contains(b, a)
IMPLS["list_sets_intersects_list"] = lambda a, b: any(any(cel_equals(x, y) for y in b) for x in a)

# --- ext.Lists -----------------------------------------------------------------------------------


def _slice(lst: Value, start: int, end: int) -> list[Value]:
    if start < 0 or end < 0:
        raise CelError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(lst) < end:
        raise CelError(f"cannot slice({start}, {end}), list is length {len(lst)}")
    return list(lst[start:end])


def _flatten_call(lst: Value, *depth: Value) -> list[Value]:
    """`l.flatten()`, `l.flatten(depth)`: unguarded (decls.DisableTypeGuards, ext/lists.go), so the
    implementation answers other arguments, naming their runtime types (`Type.String`)."""
    if not isinstance(lst, (list, tuple)) or (depth and type(depth[0]) is not int):
        shown = ", ".join(type_string(d) for d in depth)
        raise CelError(f"no such overload: {type_string(lst)}.flatten({shown})")
    return _flatten(lst, depth[0] if depth else 1)


def _flatten(lst: Value, depth: int) -> list[Value]:
    if depth < 0:
        raise CelError("level must be non-negative")
    out: list[Value] = []
    for x in lst:
        if isinstance(x, (list, tuple)) and depth > 0:
            out.extend(_flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def _distinct(lst: Value) -> list[Value]:
    out: list[Value] = []
    for x in lst:
        if not any(cel_equals(x, y) for y in out):
            out.append(x)
    return out


def _sort_key_check(lst: Value) -> None:
    if not lst:
        return
    first = type(lst[0])
    for x in lst:
        if type(x) is not first:
            raise CelError("list elements must have the same type")


def _sorted(lst: Value) -> list[Value]:
    from functools import cmp_to_key

    _sort_key_check(lst)
    return sorted(lst, key=cmp_to_key(compare))


def _sort_by_keys(lst: Value, keys: Value) -> list[Value]:
    from functools import cmp_to_key

    if len(lst) != len(keys):
        raise CelError(
            f"@sortByAssociatedKeys() expected a list of the same size as the associated keys list, "
            f"but got {len(lst)} and {len(keys)} elements respectively"
        )
    _sort_key_check(keys)
    order = sorted(range(len(lst)), key=cmp_to_key(lambda i, j: compare(keys[i], keys[j])))
    return [lst[i] for i in order]


def _range(n: int) -> list[int]:
    return list(range(n)) if n > 0 else []


IMPLS["list_slice"] = _slice
IMPLS["list_flatten"] = _flatten_call
IMPLS["list_flatten_int"] = _flatten_call
IMPLS["list_distinct"] = _distinct
IMPLS["lists_range"] = _range
IMPLS["list_reverse"] = lambda lst: list(reversed(lst))
for _t in ("int", "uint", "double", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp", "string",
           "bytes"):  # fmt: skip
    IMPLS[f"list_{_t}_sort"] = _sorted
    IMPLS[f"list_{_t}_sortByAssociatedKeys"] = _sort_by_keys

# --- two-variable comprehensions -----------------------------------------------------------------


def _insert_all(m: Value, entries: Mapping[Value, Value]) -> Value:
    target = m if type(m) is MutableMap and m.mutable else dict(m)
    for key, val in entries.items():
        if map_get(target, key)[0]:
            raise CelError(f"insert failed: key {format_key(key)} already exists")
        target[key] = val
    return target


IMPLS["@mapInsert_map_key_value"] = lambda m, k, v: _insert_all(m, {k: v})
IMPLS["@mapInsert_map_map"] = _insert_all


# --- checks made before a call allocates -----------------------------------------------------------


def _range_pre(ctx: Any, args: list[Value]) -> None:
    """`lists.range(n)` costs n + 11: refuse before allocating a list the limit forbids."""
    n = args[0]
    if type(n) is int and ctx.cost + n + 1 + LIST_CREATE > ctx.limit:
        ctx.cost += n + 1 + LIST_CREATE
        raise CostLimitExceeded()


PRE_CHECKS: dict[str, Callable[[Any, list[Value]], None]] = {"lists.range": _range_pre}
