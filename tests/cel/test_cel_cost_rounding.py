"""Runtime cost of each library call with arguments that make its rounding and its operand visible
(issue 39): sizes just below and above a multiple of 10 (the 0.1 string traversal factor) and of 4
(the 0.25 regex factor), `math.Ceil` against Go's truncating `uint64(...)`, and a `join` whose
separator is longer than its elements (the cost is the result's size, not the list's).

Kubernetes: `staging/src/k8s.io/apiserver/pkg/cel/library/cost.go` (`CostEstimator.CallCost`,
`traversalCost`, `selectorCostEstimate`); cel-go `interpreter/runtimecost.go` (`costCall`, the
defaults when the library has no estimate) and `ext/lists.go`, `ext/sets.go` (the trackers).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression
from vap_lsp.cel.runtime.cost import call_cost, is_unit_cost, traversal_cost
from vap_lsp.cel.runtime.values import LibraryValue


class _Format:
    """A `format.named(...)` value: only its `MaxRegexSize` enters the cost."""

    def __init__(self, max_regex_size: int) -> None:
        self.max_regex_size = max_regex_size


class _Library(LibraryValue):
    """Any library value (the Go switch lists Quantity, IP, CIDR, Format, URL, Semver, authz)."""

    __slots__ = ()


def s(n: int, char: str = "a") -> str:
    return char * n


# (function, overload id, arguments, result, cost, the Go formula)
CASES: list[tuple[str, str, tuple[Any, ...], Any, int, str]] = [
    # join: ceil(size(result) × 2 × 0.1). A long separator: the result is 2 + 10 = 12 → ceil(2.4) = 3,
    # where the list's 2 elements would give 1.
    ("join", "list_join_string", (["a", "b"], s(10, "-")), "a" + s(10, "-") + "b", 3, "ceil(12*0.2)"),
    ("join", "list_join", (["aaaaa", "bbbbb"],), "aaaaabbbbb", 2, "ceil(10*0.2)"),
    ("join", "list_join_string", (["aaaaa", "bbbbb"], "-"), "aaaaa-bbbbb", 3, "ceil(11*0.2)"),
    ("join", "list_join", ([],), "", 0, "ceil(0)"),
    # Without arguments the library has no estimate: cel-go's default, 1.
    ("join", "list_join", (), "", 1, "no args: default"),
    ("isSorted", "list_is_sorted", (), True, 0, "no args: 0"),
    # replace, split: ceil(size(args[0]) × 2 × 0.1): the receiver, never the result.
    ("replace", "string_replace_string_string", (s(5), "a", s(30)), s(150), 1, "ceil(5*0.2)"),
    ("replace", "string_replace_string_string", (s(6), "a", ""), "", 2, "ceil(6*0.2)"),
    ("split", "string_split_string", (s(10), "a"), [""] * 11, 2, "ceil(10*0.2)"),
    ("split", "string_split_string", (s(11), "a"), [""] * 12, 3, "ceil(11*0.2)"),
    # url, lowerAscii, upperAscii, substring, trim, quantity, semver...: ceil(size(args[0]) × 0.1).
    *[
        (fn, fn, (s(n),), s(n), cost, f"ceil({n}*0.1)")
        for fn in (
            "lowerAscii",
            "upperAscii",
            "trim",
            "substring",
            "url",
            "quantity",
            "isSemver",
            "cidr",
            "isIP",
        )
        for n, cost in ((0, 0), (1, 1), (10, 1), (11, 2), (20, 2), (21, 3))
    ],
    # find, findAll: ceil((1 + size(s)) × 0.1) × ceil(size(re) × 0.25).
    ("find", "string_find_string", (s(9), s(4)), "", 1, "ceil(10*0.1)*ceil(4*0.25)"),
    ("find", "string_find_string", (s(10), s(4)), "", 2, "ceil(11*0.1)*ceil(4*0.25)"),
    ("findAll", "string_find_all_string", (s(9), s(5)), [], 2, "ceil(10*0.1)*ceil(5*0.25)"),
    ("findAll", "string_find_all_string", (s(19), s(9)), [], 6, "ceil(20*0.1)*ceil(9*0.25)"),
    ("find", "string_find_string", ("", s(1)), "", 1, "ceil(1*0.1)*ceil(1*0.25)"),
    # validate (format.named(...).validate(s)): like find, with the format's MaxRegexSize.
    ("validate", "format_validate", (_Format(9), s(10)), [], 6, "ceil(11*0.1)*ceil(9*0.25)"),
    ("validate", "format_validate", (_Format(0), s(10)), [], 0, "ceil(11*0.1)*ceil(0)"),
    # ip, ip.isCanonical (twice the traversal), the cidr's own ip (nominal).
    ("ip", "string_to_ip", (s(11),), None, 2, "ceil(11*0.1)"),
    ("ip", "cidr_ip", (s(30),), None, 1, "nominal"),
    ("ip.isCanonical", "ip_is_canonical", (s(5),), True, 1, "ceil(5*0.2)"),
    ("ip.isCanonical", "ip_is_canonical", (s(6),), True, 2, "ceil(6*0.2)"),
    # containsIP: ceil((c + c) × 0.1), plus ceil(size(ip) × 0.1) for the string overload.
    ("containsIP", "cidr_contains_ip_ip", (s(5), s(30)), True, 1, "ceil(10*0.1)"),
    ("containsIP", "cidr_contains_ip_ip", (s(6), s(30)), True, 2, "ceil(12*0.1)"),
    ("containsIP", "cidr_contains_ip_string", (s(5), s(11)), True, 3, "ceil(10*0.1)+ceil(11*0.1)"),
    # containsCIDR: ceil(2c × 0.1) + ceil(c × 0.1) + 1, plus the string's traversal.
    ("containsCIDR", "cidr_contains_cidr", (s(5), s(30)), True, 3, "ceil(10*0.1)+ceil(5*0.1)+1"),
    ("containsCIDR", "cidr_contains_cidr", (s(11), s(30)), True, 6, "ceil(22*0.1)+ceil(11*0.1)+1"),
    ("containsCIDR", "cidr_contains_cidr_string", (s(5), s(21)), True, 6, "3 + ceil(21*0.1)"),
    # fieldSelector, labelSelector: 10 + ceil(n × 0.1) + ceil(ceil(n × 0.5) × (10 + 40)).
    ("labelSelector", "authorizer_label_selector", (None, s(1)), None, 10 + 1 + 50, "n=1"),
    ("fieldSelector", "authorizer_field_selector", (None, s(3)), None, 10 + 1 + 100, "n=3"),
    ("labelSelector", "authorizer_label_selector", (None, s(11)), None, 10 + 2 + 300, "n=11"),
    # Traversals: Go truncates (uint64 of the float), per element, in UTF-8 bytes.
    ("sum", "list_int_sum", ([1, 2, 3],), 6, 3, "1 per scalar"),
    ("max", "list_string_max", ([s(19), s(19)],), s(19), 2, "int(1.9) + int(1.9)"),
    ("indexOf", "list_string_index_of", ([s(10), s(9)], s(10)), 0, 1, "int(1.0) + int(0.9)"),
    ("lastIndexOf", "string_last_index_of", (s(25), "a"), 24, 2, "int(2.5)"),
    ("isSorted", "list_is_sorted", ([],), True, 0, "empty"),
    ("includes", "list_includes", ([{"k": s(10)}],), True, 1, "int(0.1) + int(1.0)"),
    # Nominal library calls.
    ("check", "authorizer_check", (None, "get"), None, 350_000, "fixed"),
    # `_==_` of two library values (Quantity, IP, URL...) is nominal, not a string comparison.
    ("_==_", "equals", (_Library(), _Library()), True, 1, "library value"),
    ("_==_", "equals", (s(30), s(30)), True, 3, "ceil(30*0.1)"),
    ("name", "authorizer_name", (None, s(100)), None, 1, "nominal"),
    ("getHost", "url_get_host", (s(100),), s(100), 1, "nominal"),
    # cel-go defaults (no library estimate): add_string, contains, matches, comparisons, in.
    ("_+_", "add_string", (s(5), s(5)), s(10), 1, "ceil(10*0.1)"),
    ("_+_", "add_string", (s(5), s(6)), s(11), 2, "ceil(11*0.1)"),
    ("_+_", "add_bytes", (b"x" * 20, b"y"), b"", 3, "ceil(21*0.1)"),
    ("contains", "contains_string", (s(11), s(21)), True, 6, "ceil(1.1)*ceil(2.1)"),
    ("contains", "contains_string", (s(10), s(10)), True, 1, "ceil(1.0)*ceil(1.0)"),
    ("matches", "matches_string", (s(9), s(8)), True, 2, "ceil(10*0.1)*ceil(8*0.25)"),
    ("matches", "matches_string", (s(10), s(9)), True, 6, "ceil(11*0.1)*ceil(9*0.25)"),
    ("_<_", "less_string", (s(11), s(30)), True, 2, "ceil(min(11,30)*0.1)"),
    ("_==_", "equals", (s(30), s(10)), False, 1, "ceil(min(30,10)*0.1)"),
    ("@in", "in_list", ("a", ["a", "b", "c"]), True, 3, "size(list)"),
    ("startsWith", "starts_with_string", (s(11), "a"), True, 2, "ceil(11*0.1)"),
    ("string", "string_to_bytes", (s(21),), b"", 3, "ceil(21*0.1)"),
    ("size", "size_string", (s(100),), 100, 1, "O(1)"),
    # ext.Lists / ext.Sets trackers.
    ("sets.contains", "list_sets_contains_list", ([1, 2, 3], [1, 2]), True, 7, "1 + 3*2"),
    ("sets.equivalent", "list_sets_equivalent_list", ([1, 2, 3], [1, 2]), False, 13, "1 + int(3*2*2.0)"),
    ("slice", "list_slice", ([1, 2, 3, 4], 1, 3), [2, 3], 13, "int(2*1) + 1 + 10"),
    ("flatten", "list_flatten_int", ([[1], [2]], 3), [1, 2], 17, "int(2*3.0) + 1 + 10"),
    ("distinct", "list_distinct", ([1, 2, 3],), [1, 2, 3], 29, "int(9*2.0) + 1 + 10"),
    ("distinct", "list_distinct", ([],), [], 11, "int(0) + 1 + 10"),
    ("sort", "list_string_sort", (["b", "a", "c"],), ["a", "b", "c"], 29, "int(9*2.1) + 1 + 10"),
]


@pytest.mark.parametrize(
    ("function", "overload", "args", "result", "cost", "formula"),
    CASES,
    ids=[f"{c[0]}:{c[5]}" for c in CASES],
)
def test_call_cost(
    function: str, overload: str, args: tuple[Any, ...], result: Any, cost: int, formula: str
) -> None:
    assert call_cost(function, overload, args, result) == cost, formula


def test_the_formulas_are_what_go_computes() -> None:
    """The float products Go rounds: 12 × 2 × 0.1 is 2.4000000000000004 (ceil 3), 11 × 0.1 is
    1.1 (ceil 2), 9 × 0.25 is 2.25 (ceil 3): the table's figures, by the same arithmetic."""
    assert math.ceil(12 * 2 * 0.1) == 3
    assert math.ceil(11 * 0.1) == 2
    assert math.ceil(9 * 0.25) == 3
    assert int(19 * 0.1) == 1


@pytest.mark.parametrize(
    ("function", "overload", "args", "result", "default"),
    [
        ("join", "list_join_string", (["a", "b"], s(10, "-")), "a" + s(10, "-") + "b", 1),
        ("lowerAscii", "string_lower_ascii", (s(30),), s(30), 1),
        ("check", "authorizer_check", (None, "get"), None, 1),
        ("sum", "list_int_sum", ([1, 2, 3],), 6, 1),
        # cel-go's own defaults and trackers stay without the library.
        ("_+_", "add_string", (s(5), s(6)), s(11), 2),
        ("sets.contains", "list_sets_contains_list", ([1, 2, 3], [1, 2]), True, 7),
    ],
)
def test_without_the_library_estimator(
    function: str, overload: str, args: tuple[Any, ...], result: Any, default: int
) -> None:
    """Before `StrictCostEnforcementForVAP` (1.30, 1.31) a VAP's programs have no library estimator."""
    assert call_cost(function, overload, args, result, library=False) == default


@pytest.mark.parametrize(
    ("value", "cost"),
    [
        (s(9), 0),
        (s(10), 1),
        ("é" * 5, 1),  # 10 bytes
        ("é" * 4, 0),  # 8 bytes
        (b"x" * 10, 1),
        ([s(10), s(10)], 2),
        ({"k": s(10)}, 1),
        ({s(10): s(10)}, 2),
        (7, 1),
        (None, 1),
        ([], 0),
    ],
)
def test_traversal_cost(value: Any, cost: int) -> None:
    """`traversalCost`: `uint64(float64(len(string)) * 0.1)` (bytes), summed over lists and maps."""
    assert traversal_cost(value) == cost


@pytest.mark.parametrize(
    ("function", "overload", "library", "unit"),
    [
        ("size", "size_string", True, True),
        ("join", "list_join_string", True, False),
        ("join", "list_join_string", False, True),
        ("_+_", "add_string", False, False),
        ("_+_", "add_int64", True, True),
        ("sets.contains", "list_sets_contains_list", False, False),
        ("startsWith", "starts_with_string", False, False),
        ("_<_", "less_string", True, False),
        ("@in", "in_list", True, False),
        ("matches", "matches_string", True, False),
        ("contains", "contains_string", True, False),
        ("_+_", "add_bytes", True, False),
    ],
)
def test_is_unit_cost_agrees_with_call_cost(function: str, overload: str, library: bool, unit: bool) -> None:
    """The interpreter skips `call_cost` for unit calls: only for calls that cost 1 whatever the arguments."""
    assert is_unit_cost(function, overload, library=library) is unit
    if library:  # the library estimator is the default (every version since 1.32)
        assert is_unit_cost(function, overload) is unit


@pytest.mark.parametrize(
    ("expression", "cost"),
    [
        # The literal list and the separator are constants (folded: 0); only the call costs.
        # 12 characters: ceil(2.4) = 3.
        ("['a', 'b'].join('----------')", 3),
        ("['a', 'b'].join('-')", 1),
        ("['aaaaa', 'bbbbb'].join('-')", 3),
    ],
)
def test_join_with_a_long_separator_end_to_end(expression: str, cost: int) -> None:
    """`TestStringLibrary`'s join cases priced as admission prices them, with a separator longer
    than the elements: the result's size decides."""
    result = evaluate_expression(expression, PlaygroundInputs("1.35"))
    assert result.error is None, result.error
    assert result.cost_actual == cost
