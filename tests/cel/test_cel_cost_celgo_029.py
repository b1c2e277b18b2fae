"""Costs that changed with cel-go v0.29, the cel-go of Kubernetes 1.37 (found while writing the
cost boundaries of issue 39).

cel-go v0.26 (Kubernetes 1.34–1.36) `interpreter/runtimecost.go` `costCall` priced
`s.startsWith(p)` and `s.endsWith(p)` by the receiver (`actualSize(args[0])`) and the global
`matches(s, re)` (overload `matches`) not at all (the default 1: only `matches_string` was in the
switch); its `checker/cost.go` estimated only the member form. cel-go v0.29.2 prices
`startsWith`/`endsWith` by the prefix or suffix (`actualSize(args[1])`) and both forms of
`matches` alike, at run time (`case overloads.Matches, overloads.MatchesString`) and in the
estimate (`functionCost`: the string and regex nodes of either form). v0.28 still had v0.26's
behaviour (`interpreter/runtimecost.go` at v0.28.0).
"""

from __future__ import annotations

import pytest

from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.cost_estimate import estimate_cost
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.library import cel_go_before
from vap_lsp.cel.runtime.cost import call_cost, is_unit_cost

LONG = "'" + "a" * 30 + "'"  # 30 characters
LONG_PREFIX = "'" + "a" * 24 + "'"  # 24 characters


@pytest.mark.parametrize(
    ("expression", "up_to_1_36", "from_1_37"),
    [
        # receiver 30 → ceil(3.0) = 3; prefix 1 → ceil(0.1) = 1
        (f"{LONG}.startsWith('a')", 3, 1),
        (f"{LONG}.endsWith('a')", 3, 1),
        # receiver 1 → 1; prefix 24 → ceil(2.4) = 3
        (f"'a'.startsWith({LONG_PREFIX})", 1, 3),
        (f"'a'.endsWith({LONG_PREFIX})", 1, 3),
        # global matches: 1, then ceil((1 + 30) × 0.1) × ceil(3 × 0.25) = 4 × 1
        (f"matches({LONG}, 'a+b')", 1, 4),
        # the member form was always priced
        (f"{LONG}.matches('a+b')", 4, 4),
    ],
)
def test_runtime_cost(expression: str, up_to_1_36: int, from_1_37: int) -> None:
    for version, cost in (("1.34", up_to_1_36), ("1.36", up_to_1_36), ("1.37", from_1_37)):
        result = evaluate_expression(expression, PlaygroundInputs(version))
        assert result.error is None, result.error
        assert result.cost_actual == cost, version


def _estimate(expression: str, version: str) -> tuple[int, int]:
    env = build_environment(version, ExpressionKind.VARIABLE, has_params=False, variables={}, mode="stored")
    compiled = compile_expression(expression, env)
    assert compiled.checked is not None and not compiled.checked.issues, compiled.render()
    cost = estimate_cost(compiled.checked, kubernetes_version=version).cost
    return cost.min, cost.max


@pytest.mark.parametrize(
    ("expression", "up_to_1_36", "from_1_37"),
    [
        # v0.26's estimate: only `matches_string`; the global form costs its call's 1
        (f"matches({LONG}, 'a+b')", (1, 1), (4, 4)),
        (f"{LONG}.matches('a+b')", (4, 4), (4, 4)),
        # the estimate priced startsWith by the prefix in every version (args exclude the target)
        (f"{LONG}.startsWith('a')", (1, 1), (1, 1)),
    ],
)
def test_estimated_cost(expression: str, up_to_1_36: tuple[int, int], from_1_37: tuple[int, int]) -> None:
    assert _estimate(expression, "1.36") == up_to_1_36
    assert _estimate(expression, "1.37") == from_1_37


def test_call_cost_takes_the_version_as_a_flag() -> None:
    """`call_cost(..., cel_go_029=...)`, which the interpreter sets from the environment's minor
    (`library.cel_go_before(minor, (0, 29))`); the global `matches` is never a unit call."""
    s30, s24 = "a" * 30, "a" * 24
    assert call_cost("startsWith", "starts_with_string", (s30, "a"), True) == 3
    assert call_cost("startsWith", "starts_with_string", (s30, "a"), True, cel_go_029=True) == 1
    assert call_cost("endsWith", "ends_with_string", ("a", s24), False, cel_go_029=True) == 3
    assert call_cost("matches", "matches", (s30, "a+b"), False) == 1
    assert call_cost("matches", "matches", (s30, "a+b"), False, cel_go_029=True) == 4
    assert not is_unit_cost("matches", "matches")
    assert [v for v in ("1.30", "1.36", "1.37") if not cel_go_before(int(v[2:]), (0, 29))] == ["1.37"]
