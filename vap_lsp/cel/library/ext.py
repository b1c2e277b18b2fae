"""cel-go extension libraries enabled by Kubernetes' base environment.

Mirrors `google/cel-go` `ext/strings.go`, `ext/sets.go`, `ext/lists.go`, `ext/comprehensions.go`
and the optional-types library in `cel/library.go`, gated as `kubernetes/apiserver
pkg/cel/environment/base.go` adds them (see `decls` for the version model):

* `ext.Strings` v0 from the start, replaced by v2 at compat 1.29; v1 added `format` and
  `strings.quote`, v2 only changed `join` internals, v3's `reverse` is never enabled;
* `ext.Sets()` at compat 1.29; `ext.TwoVarComprehensions()` at 1.32; `ext.Lists(v3)` at 1.34;
* `cel.OptionalTypes()` at compat 1.28, **unversioned**: its surface is that of the compiled
  cel-go — `optFlatMap` (library v1, cel-go ≥ 0.17 → Kubernetes 1.29) and `first`, `last`,
  `optional.unwrap`, `unwrapOpt` (v2, cel-go 0.23 → Kubernetes 1.33) appear in both the new and
  the stored environment of the first binary that has them.
"""

from __future__ import annotations

from collections.abc import Mapping

from vap_lsp.cel.library.decls import (
    BASE_TYPES,
    UNGUARDED,
    Library,
    MacroDecl,
    NamedTypes,
    Row,
    Since,
    Trait,
    build_overloads,
    singleton,
    templated,
)

_NAMED = NamedTypes(BASE_TYPES)

_STRINGS_ROWS: list[Row] = [
    (
        "string_char_at_int",
        "<string>.charAt(int) -> string",
        "the character at a code-point index ('' at the end)",
    ),
    (
        "string_index_of_string",
        "<string>.indexOf(string) -> int",
        "code-point index of the first occurrence, or -1",
    ),
    (
        "string_index_of_string_int",
        "<string>.indexOf(string, int) -> int",
        "index of the first occurrence at or after an offset, or -1",
    ),
    (
        "string_last_index_of_string",
        "<string>.lastIndexOf(string) -> int",
        "code-point index of the last occurrence, or -1",
    ),
    (
        "string_last_index_of_string_int",
        "<string>.lastIndexOf(string, int) -> int",
        "index of the last occurrence at or before an offset, or -1",
    ),
    ("string_lower_ascii", "<string>.lowerAscii() -> string", "ASCII letters lower-cased"),
    (
        "string_replace_string_string",
        "<string>.replace(string, string) -> string",
        "replaces every occurrence of a substring",
    ),
    (
        "string_replace_string_string_int",
        "<string>.replace(string, string, int) -> string",
        "replaces at most n occurrences (n < 0: all)",
    ),
    ("string_split_string", "<string>.split(string) -> list(string)", "splits on a separator"),
    (
        "string_split_string_int",
        "<string>.split(string, int) -> list(string)",
        "splits on a separator into at most n parts (n < 0: all)",
    ),
    ("string_substring_int", "<string>.substring(int) -> string", "the suffix from a code-point index"),
    (
        "string_substring_int_int",
        "<string>.substring(int, int) -> string",
        "the code points in [start, end)",
    ),
    ("string_trim", "<string>.trim() -> string", "removes leading and trailing Unicode whitespace"),
    ("string_upper_ascii", "<string>.upperAscii() -> string", "ASCII letters upper-cased"),
    ("list_join", "<list(string)>.join() -> string", "concatenates the strings"),
    (
        "list_join_string",
        "<list(string)>.join(string) -> string",
        "concatenates the strings with a separator",
    ),
    (
        "string_format",
        "<string>.format(list(dyn)) -> string",
        "printf-style formatting: %s %d %f %e %b %o %x %X",
        Since(compat=29),
    ),
    (
        "strings_quote",
        "strings.quote(string) -> string",
        "the string as a double-quoted CEL literal with escapes",
        Since(compat=29),
    ),
]

STRINGS = Library(
    name="ext.strings",
    source="google/cel-go ext/strings.go",
    overloads=build_overloads("ext.strings", _NAMED, _STRINGS_ROWS, Since()),
)

SETS = Library(
    name="ext.sets",
    source="google/cel-go ext/sets.go",
    overloads=build_overloads(
        "ext.sets",
        _NAMED,
        [
            (
                "list_sets_contains_list",
                "sets.contains(list(T), list(T)) -> bool",
                "whether the first list contains every element of the second",
            ),
            (
                "list_sets_equivalent_list",
                "sets.equivalent(list(T), list(T)) -> bool",
                "whether both lists contain the same elements, ignoring order and duplicates",
            ),
            (
                "list_sets_intersects_list",
                "sets.intersects(list(T), list(T)) -> bool",
                "whether the lists share at least one element",
            ),
        ],
        Since(compat=29),
    ),
)

# ext/lists.go comparableTypes; overload ids use cel-go TypeName() (protobuf names).
_SORTABLE = [
    "int",
    "uint",
    "double",
    "bool",
    "google.protobuf.Duration=duration",
    "google.protobuf.Timestamp=timestamp",
    "string",
    "bytes",
]

_LISTS_ROWS: list[Row] = [
    ("list_slice", "<list(T)>.slice(int, int) -> list(T)", "the elements in [start, end)"),
    ("list_flatten", "<list(list(T))>.flatten() -> list(T)", "flattens one level of nesting"),
    ("list_flatten_int", "<list(dyn)>.flatten(int) -> list(dyn)", "flattens up to the given depth"),
    *templated(
        [("list_{id}_sort", "<list({T})>.sort() -> list({T})", "sorts a list of {T} ascending")], _SORTABLE
    ),
    *templated(
        [
            (
                "list_{id}_sortByAssociatedKeys",
                "<list(T)>.@sortByAssociatedKeys(list({T})) -> list(T)",
                "internal: target of the sortBy macro, keyed by {T}",
            )
        ],
        _SORTABLE,
    ),
    ("lists_range", "lists.range(int) -> list(int)", "the list [0, 1, …, n-1]"),
    ("list_reverse", "<list(T)>.reverse() -> list(T)", "the elements in reverse order"),
    (
        "list_distinct",
        "<list(T)>.distinct() -> list(T)",
        "the elements without duplicates, first occurrences kept",
    ),
]

TRACKER_ASSERTIONS: Mapping[str, tuple[int, str]] = {
    "list_distinct": (0, "traits.Lister"),
    **{f"list_{spec.partition('=')[0]}_sort": (0, "traits.Lister") for spec in _SORTABLE},
    **{f"list_{spec.partition('=')[0]}_sortByAssociatedKeys": (1, "traits.Lister") for spec in _SORTABLE},
    "list_flatten_int": (1, "types.Int"),
}
"""Overloads whose runtime cost ext.lists v3 tracks by a Go type assertion on one argument
(ext/lists.go `trackListDistinct`, `trackListSort`: the receiver is a list; `trackListSortBy`:
the keys; `trackListFlatten`: the depth is an int), with that argument's index and the asserted
type. The tracker runs whatever the call returned, on its arguments' values: an error there
(`[1/0].sort()`) or a value of another type (`dyn(1).distinct()`, `[[1]].flatten(dyn('a'))`)
panics, and the program's Eval recovers the panic as the expression's error
(`runtime.values.assertion_panic`). Only when the checker resolved the call to that one
overload: `dyn(x).sort()` has eight candidates and no tracker."""

LISTS = Library(
    name="ext.lists",
    source="google/cel-go ext/lists.go",
    overloads=build_overloads("ext.lists", _NAMED, _LISTS_ROWS, Since(compat=34)),
    macros=(
        MacroDecl(
            "sortBy",
            2,
            True,
            "sorts a list by a key expression: `l.sortBy(x, x.name)`",
            "ext.lists",
            Since(compat=34),
        ),
    ),
    # ext/lists.go (v0.22 on): `sort` and `@sortByAssociatedKeys` are singletons asking
    # traits.ListerType of the list; `flatten` disables the type guards and answers
    # `no such overload: <Type>.flatten(...)` itself; the others are bound per overload.
    bindings={
        "sort": singleton(Trait.LISTER),
        "@sortByAssociatedKeys": singleton(Trait.LISTER),
        "flatten": UNGUARDED,
    },
)

_TWO_VAR = Since(compat=32)
_TWO_VAR_MACROS = [
    ("all", 3, "true if the predicate holds for every (index|key, value): `m.all(k, v, p)`"),
    ("exists", 3, "true if the predicate holds for some (index|key, value): `m.exists(k, v, p)`"),
    ("existsOne", 3, "true if the predicate holds for exactly one (index|key, value)"),
    ("exists_one", 3, "true if the predicate holds for exactly one (index|key, value)"),
    ("transformList", 3, "list of f(i, v): `l.transformList(i, v, f)`"),
    ("transformList", 4, "list of f(i, v) where p(i, v): `l.transformList(i, v, p, f)`"),
    ("transformMap", 3, "map from each key to f(k, v): `m.transformMap(k, v, f)`"),
    ("transformMap", 4, "map from each key where p(k, v) to f(k, v)"),
    ("transformMapEntry", 3, "map built from the single-entry maps f(k, v) returns"),
    ("transformMapEntry", 4, "map built from the single-entry maps f(k, v) returns where p(k, v)"),
]

TWO_VAR_COMPREHENSIONS = Library(
    name="ext.comprehensions",
    source="google/cel-go ext/comprehensions.go",
    overloads=build_overloads(
        "ext.comprehensions",
        _NAMED,
        [
            (
                "@mapInsert_map_key_value",
                "cel.@mapInsert(map(K, V), K, V) -> map(K, V)",
                "internal: adds an entry (used by transformMap expansions)",
            ),
            (
                "@mapInsert_map_map",
                "cel.@mapInsert(map(K, V), map(K, V)) -> map(K, V)",
                "internal: merges maps (used by transformMapEntry expansions)",
            ),
        ],
        _TWO_VAR,
    ),
    macros=tuple(
        MacroDecl(name, argc, True, doc, "ext.comprehensions", _TWO_VAR)
        for name, argc, doc in _TWO_VAR_MACROS
    ),
)

_OPT = Since(compat=28)
_OPT_V2 = Since(binary=33)

_OPTIONAL_ROWS: list[Row] = [
    ("optional_of", "optional.of(V) -> optional_type(V)", "an optional holding the value"),
    (
        "optional_ofNonZeroValue",
        "optional.ofNonZeroValue(V) -> optional_type(V)",
        "an optional holding the value, or none for a zero/empty value",
    ),
    ("optional_none", "optional.none() -> optional_type(V)", "the empty optional"),
    ("optional_value", "<optional_type(V)>.value() -> V", "the held value (error if none)"),
    ("optional_hasValue", "<optional_type(V)>.hasValue() -> bool", "whether the optional holds a value"),
    (
        "optional_or_optional",
        "<optional_type(V)>.or(optional_type(V)) -> optional_type(V)",
        "this optional if it has a value, else the other",
    ),
    (
        "optional_orValue_value",
        "<optional_type(V)>.orValue(V) -> V",
        "the held value, or the default",
    ),
    (
        "select_optional_field",
        "_?._(dyn, string) -> optional_type(V)",
        "optional field selection `x.?f`",
    ),
    ("list_optindex_optional_int", "_[?_](list(V), int) -> optional_type(V)", "optional list index `l[?i]`"),
    (
        "optional_list_optindex_optional_int",
        "_[?_](optional_type(list(V)), int) -> optional_type(V)",
        "optional list index on an optional list",
    ),
    ("map_optindex_optional_value", "_[?_](map(K, V), K) -> optional_type(V)", "optional map index `m[?k]`"),
    (
        "optional_map_optindex_optional_value",
        "_[?_](optional_type(map(K, V)), K) -> optional_type(V)",
        "optional map index on an optional map",
    ),
    (
        "optional_list_index_int",
        "_[_](optional_type(list(V)), int) -> optional_type(V)",
        "index into an optional list",
    ),
    (
        "optional_map_index_value",
        "_[_](optional_type(map(K, V)), K) -> optional_type(V)",
        "index into an optional map",
    ),
    (
        "list_last",
        "<list(V)>.last() -> optional_type(V)",
        "the last element, or none for an empty list",
        _OPT_V2,
    ),
    (
        "list_first",
        "<list(V)>.first() -> optional_type(V)",
        "the first element, or none for an empty list",
        _OPT_V2,
    ),
    (
        "optional_unwrap",
        "optional.unwrap(list(optional_type(V))) -> list(V)",
        "the values of the non-empty optionals",
        _OPT_V2,
    ),
    (
        "optional_unwrapOpt",
        "<list(optional_type(V))>.unwrapOpt() -> list(V)",
        "the values of the non-empty optionals",
        _OPT_V2,
    ),
]

OPTIONAL = Library(
    name="optional",
    source="google/cel-go cel/library.go (optionalLib)",
    overloads=build_overloads("optional", _NAMED, _OPTIONAL_ROWS, _OPT),
    macros=(
        MacroDecl(
            "optMap",
            2,
            True,
            "maps the value of an optional: `o.optMap(x, f)` (none stays none)",
            "optional",
            _OPT,
        ),
        MacroDecl(
            "optFlatMap",
            2,
            True,
            "maps the value of an optional to an optional: `o.optFlatMap(x, f)`",
            "optional",
            _OPT.merged(Since(binary=29)),
        ),
    ),
)
