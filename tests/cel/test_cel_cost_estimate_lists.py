"""The static cost estimate of the ext.Lists calls (issue 39: the allocating list calls' estimates
were never asserted, so a mutation of their formula or operand passed).

cel-go v0.26 `ext/lists.go` (Kubernetes 1.34–1.36): `estimateAllocatingListCall(factor, size)` =
size × factor + 1 (the call) + 10 (`ListCreateBaseCost`); `reverse` and `flatten` over the
target's size (`flatten(n)` × n), `slice(i, j)` over j − i, `lists.range(n)` over n, `distinct`
and `sort` over size² × 2 (`sort` of strings or bytes × 2.1, `StringTraversalCostFactor` added),
each rounded up by `MultiplyByCostFactor`. The result keeps the size it allocates, so a chained
call is priced by it. Each figure is the call's alone: the estimate of the whole expression less
the estimate of its receiver (the literal list: 10 to create it).
"""

from __future__ import annotations

import pytest

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.cost_estimate import CostEstimate, estimate_cost
from vap_lsp.cel.environment import ExpressionKind, build_environment

ENV = build_environment("1.35", ExpressionKind.VARIABLE, has_params=False, variables={}, mode="stored")


def _estimate(expression: str) -> CostEstimate:
    compiled = compile_expression(expression, ENV)
    assert compiled.checked is not None and not compiled.checked.issues, compiled.render()
    return estimate_cost(compiled.checked, kubernetes_version="1.35").cost


@pytest.mark.parametrize(
    ("receiver", "call", "cost"),
    [
        ("[1, 2, 3]", ".reverse()", 3 * 1 + 1 + 10),
        ("[1, 2, 3]", ".sort()", 9 * 2 + 1 + 10),
        ("['a', 'b', 'c']", ".sort()", 19 + 1 + 10),  # ceil(9 × 2.1)
        ("[1, 2, 3]", ".distinct()", 9 * 2 + 1 + 10),
        ("[[1], [2]]", ".flatten()", 2 * 1 + 1 + 10),
        ("[[1], [2]]", ".flatten(2)", 2 * 2 + 1 + 10),
        ("[1, 2, 3, 4]", ".slice(1, 3)", 2 + 1 + 10),
        # the reversed list keeps size 3: the second reverse costs as the first
        ("[1, 2, 3]", ".reverse().reverse()", 2 * (3 + 1 + 10)),
    ],
)
def test_allocating_list_calls(receiver: str, call: str, cost: int) -> None:
    whole, alone = _estimate(receiver + call), _estimate(receiver)
    assert (whole.min - alone.min, whole.max - alone.max) == (cost, cost)


def test_lists_range() -> None:
    assert _estimate("lists.range(5)") == CostEstimate(5 + 1 + 10, 5 + 1 + 10)
