"""Which functions and macros exist in which Kubernetes version and environment type."""

from __future__ import annotations

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.library import (
    LIBRARIES,
    all_overloads,
    function_introduced_in,
    functions_for,
    library_summary,
    macro_introduced_in,
    macros_for,
    minor_of,
)


def has(name: str, minor: int, *, stored: bool, patch_types: bool = False) -> bool:
    return name in functions_for(minor, stored=stored, patch_types=patch_types)


def overload_ids(name: str, minor: int, *, stored: bool, nested: bool = False) -> set[str]:
    decl = functions_for(minor, stored=stored, patch_types=False, nested_scope=nested).get(name)
    return {o.id for o in decl.overloads} if decl else set()


@pytest.mark.parametrize(
    ("function", "new_since", "stored_since"),
    [
        ("ip", 31, 30),  # IP introduced at compat 1.30 → new expressions from 1.31
        ("cidr", 31, 30),
        ("isSorted", 28, 28),
        ("url", 28, 28),
        ("find", 28, 28),
        ("sets.contains", 30, 29),
        ("quantity", 29, 28),
        ("check", 28, 27),
        ("format.dns1123Label", 32, 31),
        ("fieldSelector", 32, 31),
        ("semver", 34, 33),
        ("lists.range", 35, 34),
        ("distinct", 35, 34),
        ("includes", 38, 37),
        ("isMask", 39, 38),  # CIDR library v1: v0.38.0-beta.0 base.go, IntroducedVersion 1.38
        ("optional.of", 29, 28),
        ("first", 33, 33),  # cel-go 0.23 (1.33): unversioned OptionalTypes, both envs at once
        ("optional.unwrap", 33, 33),
        ("strings.quote", 30, 29),
        ("charAt", 28, 28),
        ("cel.@mapInsert", 33, 32),
    ],
)
def test_function_availability(function: str, new_since: int, stored_since: int) -> None:
    if new_since > 28:  # 28: always available in every modelled version
        assert not has(function, new_since - 1, stored=False)
    assert has(function, new_since, stored=False)
    if stored_since > 28:
        assert not has(function, stored_since - 1, stored=True)
    assert has(function, stored_since, stored=True)
    assert has(function, max(37, stored_since), stored=True)


def test_ip_absent_on_130_new_but_present_stored() -> None:
    assert not has("ip", 30, stored=False)
    assert has("ip", 30, stored=True)
    assert function_introduced_in("ip", stored=False) == "1.31"
    assert function_introduced_in("ip", stored=True) == "1.30"


def test_introduced_in_for_unknown_and_always() -> None:
    assert function_introduced_in("reverseString", stored=False) is None
    assert function_introduced_in("size", stored=False) == "1.0"


def test_string_reverse_never_available() -> None:
    assert "string_reverse" not in {o.id for o in all_overloads()}
    assert overload_ids("reverse", 37, stored=True) == {"list_reverse"}


def test_semver_normalize_overloads_arrive_with_the_library() -> None:
    assert overload_ids("semver", 34, stored=False) == {"string_to_semver", "string_bool_to_semver"}
    assert overload_ids("isSemver", 33, stored=True) == {"is_semver_string", "is_semver_string_bool"}
    assert overload_ids("semver", 33, stored=False) == set()


def test_strings_v2_adds_format_only_with_compat_129() -> None:
    assert not has("format", 29, stored=False)
    assert has("format", 30, stored=False)
    assert has("format", 29, stored=True)
    assert overload_ids("join", 28, stored=False) == {"list_join", "list_join_string"}


def test_optional_first_last_by_version() -> None:
    for stored in (False, True):
        assert not has("first", 32, stored=stored)
        assert has("first", 33, stored=stored)
        assert has("last", 33, stored=stored)
        assert has("unwrapOpt", 33, stored=stored)


def test_cross_type_comparisons_from_129_new_128_stored() -> None:
    assert "less_int64_double" not in overload_ids("_<_", 28, stored=False)
    assert "less_int64_double" in overload_ids("_<_", 29, stored=False)
    assert "less_int64_double" in overload_ids("_<_", 28, stored=True)
    # cel-go quirk: the filter is not copied into comprehension scopes.
    assert "less_int64_double" in overload_ids("_<_", 28, stored=False, nested=True)
    assert len(overload_ids("_<_", 28, stored=False)) == 8
    assert len(overload_ids("_<_", 29, stored=False)) == 14


def test_duration_from_int_removed_with_cel_go_0_28_1() -> None:
    assert "int64_to_duration" in overload_ids("duration", 36, stored=True)
    assert "int64_to_duration" not in overload_ids("duration", 37, stored=False)
    assert "int64_to_duration" not in overload_ids("duration", 37, stored=True)


def test_lists_includes_only_from_137_stored() -> None:
    assert not has("includes", 36, stored=True)
    assert has("includes", 37, stored=True)
    assert not has("includes", 37, stored=False)


def test_jsonpatch_only_with_patch_types() -> None:
    assert not has("jsonpatch.escapeKey", 34, stored=True)
    assert has("jsonpatch.escapeKey", 34, stored=False, patch_types=True)
    assert not has("jsonpatch.escapeKey", 31, stored=True, patch_types=True)


def test_overload_order_follows_registration() -> None:
    decl = functions_for(37, stored=True, patch_types=False)["indexOf"]
    assert [o.id for o in decl.overloads] == [
        "list_a_index_of_int",
        "string_index_of_string",
        "string_index_of_string_int",
    ]
    string_ids = [o.id for o in functions_for(37, stored=True, patch_types=False)["string"].overloads]
    assert string_ids[-2:] == ["ip_to_string", "cidr_to_string"]


def test_quantity_sign_is_global() -> None:
    (sign,) = functions_for(30, stored=False, patch_types=False)["sign"].overloads
    assert not sign.receiver_style
    assert sign.params == (t.ObjectType("kubernetes.Quantity"),)
    assert sign.signature() == "sign(kubernetes.Quantity) -> int"


def test_overload_records() -> None:
    by_id = {o.id: o for o in all_overloads()}
    index_of = by_id["list_a_index_of_int"]
    assert index_of.receiver_style
    assert index_of.arg_count == 1
    assert index_of.type_params == ("A",)
    assert index_of.signature() == "<list(A)>.indexOf(A) -> int"
    assert by_id["string_to_ip"].introduced == "1.31"
    assert by_id["string_to_ip"].stored_since == "1.30"
    assert by_id["size_string"].introduced is None
    assert by_id["int64_to_duration"].removed == "1.37"
    assert by_id["timestamp_to_seconds_tz"].signature() == "<timestamp>.getSeconds(string) -> int"
    assert by_id["optional_none"].result == t.optional_of(t.type_param("V"))
    assert by_id["list_google.protobuf.Timestamp_sort"].params == (t.list_of(t.TIMESTAMP),)


def test_every_overload_documented_and_unique() -> None:
    overloads = list(all_overloads())
    assert all(o.doc for o in overloads)
    ids = [(o.function, o.id) for o in overloads]
    assert len(ids) == len(set(ids))


def test_library_summary_counts() -> None:
    summary = library_summary()
    assert summary["stdlib"] == (44, 163)
    assert summary["kubernetes.lists"] == (7, 31)
    assert summary["ext.lists"] == (7, 22)
    assert len(summary) == len(LIBRARIES)


def test_macros_by_version() -> None:
    names = {(m.name, m.arg_count) for m in macros_for(32, stored=False)}
    assert ("all", 2) in names
    assert ("all", 3) not in names
    assert ("transformMap", 4) in {(m.name, m.arg_count) for m in macros_for(33, stored=False)}
    assert ("transformMap", 4) in {(m.name, m.arg_count) for m in macros_for(32, stored=True)}
    assert ("optMap", 2) not in {(m.name, m.arg_count) for m in macros_for(28, stored=False)}
    assert ("optFlatMap", 2) in {(m.name, m.arg_count) for m in macros_for(29, stored=False)}
    assert ("optFlatMap", 2) not in {(m.name, m.arg_count) for m in macros_for(28, stored=True)}
    assert ("sortBy", 2) in {(m.name, m.arg_count) for m in macros_for(35, stored=False)}
    assert macro_introduced_in("transformList", 3, True, stored=False) == "1.33"
    assert macro_introduced_in("sortBy", 2, True, stored=True) == "1.34"
    assert macro_introduced_in("has", 1, False, stored=False) == "1.0"
    assert macro_introduced_in("has", 2, False, stored=False) is None


@pytest.mark.parametrize(("text", "minor"), [("1.31", 31), ("v1.30.2", 30), ("1.37.0-alpha.1", 37)])
def test_minor_of(text: str, minor: int) -> None:
    assert minor_of(text) == minor


def test_minor_of_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="not a Kubernetes"):
        minor_of("2.0")


@pytest.mark.parametrize("minor", range(30, 39))
def test_what_admission_never_has(minor: int) -> None:
    """k8s.io/apiserver pkg/cel/environment/base.go, read at v0.30.x through v0.38.0-beta.0: no
    `ext.Bindings` (`cel.bind`), no image reference library (kubernetes/kubernetes#130834 proposed
    `image()`, closed unmerged; Kyverno has its own), no `ext.Math`/`ext.Encoders`."""
    for stored in (False, True):
        macros = {m.name for m in macros_for(minor, stored=stored)}
        assert "all" in macros and not macros & {"bind", "cel.bind", "block", "cel.block"}
        functions = functions_for(minor, stored=stored, patch_types=False)
        for name in ("image", "parseImageReference", "math.greatest", "base64.encode"):
            assert name not in functions, (name, minor, stored)
