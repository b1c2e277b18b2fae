"""cel-go's `ext/sets_test.go` (`TestSets`), the sets library Kubernetes enables in its CEL
environment (`ext.Sets()`), re-typed (read, not copied) and run through vap-lsp's checker and
interpreter. Every case evaluates to true in Go; the second number is the actual runtime cost the Go
test measures (`actualCost`).

Reasoned difference, in cost only: the Go test builds its program without `cel.OptOptimize`, so
every list literal costs 10 when it is created. Kubernetes builds every program with
`cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost)` (apiserver `pkg/cel/environment/base.go`),
which folds a list literal of constants (nested ones too) into a constant of cost 0, and vap-lsp
does as the server does. The server's cost is therefore Go's minus 10 per list literal, and minus
the 1 Go charges for reading the variable `x`, written here as the literal it holds.

Reasoned difference, at compile time: the Go test's environment accepts list literals that mix
types (`[1.0, 1]`). Kubernetes' base environment sets `cel.HomogeneousAggregateLiterals()`, so the
server rejects those expressions when the policy is created ("expected type 'double' but found
'int'"); the Go test also evaluates the parsed, unchecked expression, and so does this one: the
runtime still answers true at the same cost."""

from __future__ import annotations

import re

import pytest
from cel_eval_support import env, run

from vap_lsp.cel.compile import compile_expression

# (expression, cel-go's actual cost, whether a list literal mixes types). The first two cases
# read a variable `x`; it is written out as the list it holds (`X`).
X = "[5, 4, 3, 2, 1]"
SETS_CASES: list[tuple[str, int, bool]] = [
    # set containment
    (f"sets.contains({X}, [1, 2, 3])", 27, False),
    (f"sets.contains({X}, [1, 1, 1, 1, 1])", 37, False),
    ("sets.contains([], [])", 21, False),
    ("sets.contains([1], [])", 21, False),
    ("sets.contains([1], [1])", 22, False),
    ("sets.contains([1], [1, 1])", 23, False),
    ("sets.contains([1, 1], [1])", 23, False),
    ("sets.contains([2, 1], [1])", 23, False),
    ("sets.contains([1, 2, 3, 4], [2, 3])", 29, False),
    ("sets.contains([1], [1.0, 1])", 23, True),
    ("sets.contains([1, 2], [2u, 2.0])", 25, True),
    ("sets.contains([1, 2u], [2, 2.0])", 25, True),
    ("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30, True),
    ("sets.contains([[1], [2, 3]], [[2, 3.0]])", 53, True),
    ("!sets.contains([1], [2])", 23, False),
    ("!sets.contains([1], [1, 2])", 24, False),
    ('!sets.contains([1], ["1", 1])', 24, True),
    ("!sets.contains([1], [1.1, 1u])", 24, True),
    # set equivalence
    ("sets.equivalent([], [])", 21, False),
    ("sets.equivalent([1], [1])", 23, False),
    ("sets.equivalent([1], [1, 1])", 25, False),
    ("sets.equivalent([1, 1], [1])", 25, False),
    ("sets.equivalent([1], [1u, 1.0])", 25, True),
    ("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, True),
    ("sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69, True),
    ("!sets.equivalent([2, 1], [1])", 26, False),
    ("!sets.equivalent([1], [1, 2])", 26, False),
    ("!sets.equivalent([1, 2], [2u, 2, 2.0])", 34, True),
    ("!sets.equivalent([1, 2], [1u, 2, 2.3])", 34, True),
    # set intersection
    ("sets.intersects([1], [1])", 22, False),
    ("sets.intersects([1], [1, 1])", 23, False),
    ("sets.intersects([1, 1], [1])", 23, False),
    ("sets.intersects([2, 1], [1])", 23, False),
    ("sets.intersects([1], [1, 2])", 23, False),
    ("sets.intersects([1], [1.0, 2])", 23, True),
    ("sets.intersects([1, 2], [2u, 2, 2.0])", 27, True),
    ("sets.intersects([1, 2], [1u, 2, 2.3])", 27, True),
    ("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65, True),
    ("!sets.intersects([], [])", 22, False),
    ("!sets.intersects([1], [])", 22, False),
    ("!sets.intersects([1], [2])", 23, False),
    ('!sets.intersects([1], ["1", 2])', 24, True),
    ("!sets.intersects([1], [1.1, 2u])", 24, True),
]


@pytest.mark.parametrize(("expr", "cost", "mixed"), SETS_CASES, ids=[c[0] for c in SETS_CASES])
def test_sets_case(expr: str, cost: int, mixed: bool) -> None:
    read_x = 1 if expr.startswith(f"sets.contains({X}") else 0
    server_cost = cost - 10 * (expr.count("[") - read_x) - read_x
    messages = [i.cel_message for i in compile_expression(expr, env()).issues]
    if mixed:
        assert messages and all(re.search(r"expected type '.*' but found '.*'", m) for m in messages)
    else:
        assert messages == []
    result = run(expr, checked=not messages)
    assert (result.value, result.error, result.cost) == (True, None, server_cost)
