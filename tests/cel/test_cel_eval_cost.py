"""Runtime cost (cel-go `CostTracker` with Kubernetes' options), limits, budgets, linear-time
regexes, and the policy corpus evaluating without Python exceptions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cel_eval_support import run

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import LazyVariables, evaluate

LIMIT = "operation cancelled: actual cost limit exceeded"

# Costs re-derived from cel-go interpreter/runtimecost_test.go with Kubernetes' options
# (`has()` free, OptOptimize folding constant literals).
COSTS: list[tuple[str, dict[str, object], int]] = [
    ('"Hello World!"', {}, 0),
    ("input", {"input": 1}, 1),
    ("input['key']", {"input": {"key": "v"}}, 2),
    ("input[0]", {"input": ["v"]}, 2),
    ("input.key", {"input": {"key": "v"}}, 2),
    ("input['ke' + 'y']", {"input": {"key": "v"}}, 3),
    ("input[3-3]", {"input": ["v"]}, 3),
    ("has(input.testAttr.nestedAttr)", {"input": {"testAttr": {"nestedAttr": "0"}}}, 2),
    ("1 < 2", {}, 1),
    ("1 + 1", {}, 1),
    ("true ? 1 : 2", {}, 0),
    ("true || false", {}, 0),
    ("a || b || c || d", {"a": False, "b": False, "c": False, "d": False}, 4),
    ("size('123')", {}, 1),
    ("'12345678901234567890' == '123456789012345678901234567890'", {}, 2),
    ("(1 > 2 ? 5 : 3) > 1", {}, 2),
    ("input.matches('[0-9]')", {"input": "x" * 500}, 103),
    ("input.all(x, true)", {"input": []}, 2),
    ("[1, 2, 3].all(x, true)", {}, 10),
    ("[1,2,3,4,5].map(x, x)", {}, 66),
    ("2 in [1, 2, 3]", {}, 0),
    ("[input]", {"input": 1}, 11),
    ("{'a': input}", {"input": 1}, 31),
    # a conditional's branch that is an attribute is resolved, not evaluated
    # (`planCallConditional`, `conditionalAttribute.Resolve`): its identifier or relative
    # attribute costs nothing, its qualifiers 1 each ("ternary eval": 6)
    ("(x > 2 ? input1 : input2).all(y, true)", {"x": 1, "input1": [{}], "input2": [{}]}, 6),
    ("x > 2 ? 1 : input.a.b", {"x": 1, "input": {"a": {"b": 1}}}, 4),
    ("x > 2 ? 1 : [1, 2][x]", {"x": 1}, 3),
    ("x > 2 ? 1 : (x > 0 ? input : 0)", {"x": 1, "input": 1}, 4),
    ("x > 2 ? 1 : has(input.a)", {"x": 1, "input": {"a": 1}}, 3),
    # runtimecost_test.go's comprehensions over literals, less the literals OptOptimize folds:
    # filter's false branch is the accumulator, resolved for free (".filter list literal": 62)
    ("[1,2,3,4,5].filter(x, x % 2 == 0)", {}, 62 - 20),
    ("[1,2,3,4,5].map(x, x).filter(x, x % 2 == 0)", {}, 138 - 30),
    ("[1,2,3,4,5].map(x, x).exists(x, x == 5) == true", {}, 118 - 20),
    ("[1,2,3,4,5].map(x, [x, x]).filter(z, z.size() == 2)", {}, 232 - 30),
    ("[1,2,3,4,5].map(x, [x, x]).all(y, y.all(y, y == 1))", {}, 171 - 20),
    ("[1,2,3,4,5].map(x, x).map(x, x) + [1]", {}, 173 - 40),
    ("[{'k1': 1}, {'k2': 2}].all(x, true)", {}, 77 - 70),
    # the rest of TestRuntimeCost that a policy can write (no protos, no custom cost functions)
    ("[1, 2, 3]", {}, 10 - 10),
    ('{"a": 1, "b": 2, "c": 3}', {}, 30 - 30),
    ("input.all(x, x.all(y, true))", {"input": []}, 2),
    ("'123'.matches('[0-9]')", {}, 2),
    ("false || false", {}, 0),
    ("false && true", {}, 0),
    *[(e, {}, 1) for e in ("1 <= 2", "2 > 1", "2 >= 1", "1 - 1", "1 / 1", "1 * 1", "1 % 1")],
    ("string(input)", {"input": b"x" * 500}, 51),
    ("bytes(input)", {"input": "x" * 500}, 51),
    ("string(1)", {}, 1 - 1),  # a conversion of a constant: folded
    ("input.contains(arg1)", {"input": "x" * 500, "arg1": "y" * 500}, 2502),
    ("input.matches('\\\\d+a\\\\d+b')", {"input": "x" * 500}, 103),
    ("input.startsWith(arg1)", {"input": "idc", "arg1": "y" * 500}, 3),
    ("input.endsWith(arg1)", {"input": "idc", "arg1": "y" * 500}, 3),
    ("input.size()", {"input": "500"}, 2),
    ("size(input)", {"input": "500"}, 2),
    ("input.all(k, input[k].all(x, true))", {"input": {}}, 2),
    ("input.all(k, k.contains(k))", {"input": {}}, 2),
    ("input.all(k, input[k].all(k, true) && k.contains(k))", {"input": {}}, 2),
    ("(list1 + list2).all(x, true)", {"list1": [], "list2": []}, 4),
    ('"abcdefg".contains(str1 + str2)', {"str1": "val1", "str2": "val2222222"}, 6),
]


@pytest.mark.parametrize(("expr", "act", "cost"), COSTS)
def test_cost(expr: str, act: dict[str, object], cost: int) -> None:
    result = run(expr, act, checked=False)
    assert result.error is None, result.error
    assert result.cost == cost


# The two-variable comprehensions (cel-go `ext/comprehensions.go`, Kubernetes 1.32+) as the server
# runs them: OptOptimize folds the accumulator's `[]`/`{}` to a constant (`interpreter/decorators.go`
# `maybeBuildListLiteral`/`maybeBuildMapLiteral`: cost 0), the loop condition `true` is a constant,
# the folder turns the empty accumulator into a mutable list/map in place (`interpretable.go`
# `folder.ResolveName`, no cost), `_+_` on lists costs 1 (`runtimecost.go` default: AddList is
# O(1)), `cel.@mapInsert` costs 1 (Kubernetes' estimator leaves it to the default:
# `library/cost_test.go` knownUnhandledFunctions), `?:` itself is free, each read of the
# accumulator or an iteration variable costs 1, a list literal 10 and a map literal 30
# (`common/cost.go` ListCreateBaseCost, MapCreateBaseCost) plus their elements.
TRANSFORM_COSTS: list[tuple[str, int]] = [
    # 3 × (@result 1 + [v] 10 + v 1 + _+_ 1) + the result's @result 1
    ("[1,2,3].transformList(i, v, v)", 3 * 13 + 1),
    # filter v > 1 (v 1 + > 1) each time; false: @result, a branch resolved for free; true: 13
    ("[1,2,3].transformList(i, v, v > 1, v)", 3 * 2 + 0 + 2 * 13 + 1),
    # 3 × (@result 1 + i 1 + v 1 + @mapInsert 1) + 1
    ("[1,2,3].transformMap(i, v, v)", 3 * 4 + 1),
    ("[1,2,3].transformMap(i, v, v > 1, v)", 3 * 2 + 0 + 2 * 4 + 1),
    # 3 × (@result 1 + {v: i} (30 + 1 + 1) + @mapInsert 1) + 1
    ("[1,2,3].transformMapEntry(i, v, {v: i})", 3 * 34 + 1),
    ("{'a': 1}.transformMapEntry(k, v, {k: v})", 34 + 1),
    # an empty range: only the result's read of the (folded, free) accumulator
    ("[].transformList(i, v, v)", 1),
    # the range read from the activation: object 1 + .l 1
    ("object.l.transformList(i, v, v)", 2 + 3 * 13 + 1),
    # existsOne: @result starts at the constant 0; step pred ? @result + 1 : @result; result
    # @result == 1 (1 + ==1): 3 × pred 2 + (0, 2, 2) + 2 (false: @result, resolved for free)
    ("[1,2,3].existsOne(i, v, v > 1)", 3 * 2 + 0 + 2 + 2 + 2),
]


@pytest.mark.parametrize(("expr", "cost"), TRANSFORM_COSTS)
def test_two_variable_comprehension_costs(expr: str, cost: int) -> None:
    result = run(expr, {"object": {"l": [1, 2, 3]}})
    assert result.error is None, result.error
    assert result.cost == cost


def test_kubernetes_library_costs() -> None:
    assert run("'abc'.lowerAscii()").cost == 1 + 0 + 1 - 1  # ceil(3 * 0.1) = 1
    assert run("'%s'.format(['a'])").cost == 1
    assert run("'a'.replace('a', 'b')").cost == 1
    assert run("[1, 2, 3].sum()").cost == 3
    assert run("lists.range(10)").cost == 21
    assert run("sets.contains([1, 2], [1])").cost == 3
    assert run("has(object.spec)").cost == 1


def test_comprehension_over_a_million_elements_stops_quickly() -> None:
    result = run("lists.range(1000000).all(x, x >= 0)")
    assert result.error == LIMIT and result.cost_limit_exceeded
    result = run("lists.range(100000).map(x, x * 2).size() > 0")
    assert result.error == LIMIT
    big = list(range(1_000_000))
    result = run("object.all(x, x >= 0)", {"object": big})
    assert result.error == LIMIT


def test_limit_is_not_absorbed_by_logic() -> None:
    result = run("false || lists.range(2000000).size() > 0")
    assert result.error == LIMIT


def test_unlimited() -> None:
    assert run("lists.range(2000000).size()", cost_limit=None).value == 2_000_000


def test_pathological_regex_is_linear() -> None:
    text = "a" * 30000 + "b"
    assert run("object.matches('(a+)+$')", {"object": text}, cost_limit=None).value is False
    assert run("object.matches('^(a|aa)*c$')", {"object": text}, cost_limit=None).value is False
    assert run("object.matches('(a+)+b$')", {"object": text}, cost_limit=None).value is True


# --- the policy corpus ---------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"policy corpus not found at {CORPUS}")
def test_corpus_expressions_evaluate_without_python_exceptions() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_cel_check_corpus import _documents

    count = 0
    crashes: list[str] = []
    empty = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": "default"}, "spec": {}}
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml"):
            continue
        for doc in _documents(path):
            spec = doc.get("spec")
            if doc.get("kind") not in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"):
                continue
            if not isinstance(spec, dict):
                continue
            has_params = bool(spec.get("paramKind"))
            variables: dict[str, t.Type] = {}
            sites: list[tuple[str, ExpressionKind, dict[str, t.Type] | None]] = []
            for v in spec.get("variables") or []:
                if isinstance(v, dict) and isinstance(v.get("expression"), str):
                    sites.append((v["expression"], ExpressionKind.VARIABLE, dict(variables)))
                    env = build_environment(
                        "1.34", ExpressionKind.VARIABLE, has_params=has_params, variables=dict(variables)
                    )
                    variables[str(v.get("name"))] = (
                        compile_expression(v["expression"], env).output_type or t.DYN
                    )
            visible = variables if spec.get("variables") else None
            for val in spec.get("validations") or []:
                for key, kind in (
                    ("expression", ExpressionKind.VALIDATION),
                    ("messageExpression", ExpressionKind.MESSAGE_EXPRESSION),
                ):
                    if isinstance(val.get(key), str):
                        sites.append((val[key], kind, visible))
            for a in spec.get("auditAnnotations") or []:
                if isinstance(a.get("valueExpression"), str):
                    sites.append((a["valueExpression"], ExpressionKind.AUDIT_ANNOTATION, visible))
            for m in spec.get("matchConditions") or []:
                if isinstance(m.get("expression"), str):
                    sites.append((m["expression"], ExpressionKind.MATCH_CONDITION, None))
            for m in spec.get("mutations") or []:
                for key, kind in (
                    ("applyConfiguration", ExpressionKind.MAP_APPLY_CONFIGURATION),
                    ("jsonPatch", ExpressionKind.MAP_JSON_PATCH),
                ):
                    body = m.get(key) if isinstance(m, dict) else None
                    if isinstance(body, dict) and isinstance(body.get("expression"), str):
                        sites.append((body["expression"], kind, dict(variables)))
            for text, kind, visible_vars in sites:
                count += 1
                env = build_environment(
                    "1.34", kind, has_params=has_params, variables=visible_vars, mode="stored"
                )
                compiled = compile_expression(text, env)
                expr = (
                    compiled.checked
                    if compiled.checked is not None and compiled.parsed.ok
                    else compiled.parsed
                )
                act = {
                    "object": empty,
                    "oldObject": None,
                    "params": {},
                    "request": {"operation": "CREATE", "userInfo": {"username": "u"}},
                    "namespaceObject": None,
                    "variables": LazyVariables({}, {}),
                }
                result = evaluate(expr, act, env=env)
                if result.error is not None and result.error.startswith("internal error"):
                    crashes.append(f"{path.name}: {text!r}: {result.error}")
    assert count >= 900
    assert crashes == []


def test_at_and_above_the_limit() -> None:
    """TestRuntimeCost "at limit" (6 within a limit of 6) and "above limit" (over 5)."""
    act = {"str1": "val1", "str2": "val2222222"}
    at = run('"abcdefg".contains(str1 + str2)', act, checked=False, cost_limit=6)
    assert (at.error, at.cost) == (None, 6)
    above = run('"abcdefg".contains(str1 + str2)', act, checked=False, cost_limit=5)
    assert above.error == LIMIT and above.cost_limit_exceeded


@pytest.mark.xfail(
    strict=True,
    reason="not modelled: on an error cel-go still observes the call (costCall with the error as "
    "result: a Kubernetes cost function prices the arguments, `quantity` of 100 characters 10) and "
    "evalBinary evaluates both operands before it returns the left one's error; vap-lsp charges a "
    "failing call 1 and stops at the first error. Only the cost of an evaluation that fails anyway "
    "differs (what is left of a budget after it).",
)
def test_the_cost_of_a_failing_evaluation() -> None:
    assert run("quantity('" + "x" * 100 + "')").cost == 10
    assert run("1 / 0 == 1 / 1").cost == 3  # both divisions, then the comparison


# Found by the oracle (issue 34: Kubernetes 1.37's own plugin/cel beside vap-lsp), cel-go v0.29:
# `x in []` is the constant false (planner.go maybeOptimizeSetMembership), so what contains it
# folds too; `startsWith`/`endsWith` cost their argument's traversal (runtimecost.go costCall);
# an optional field selection on an absent field costs nothing (QualifyIfPresent observes only
# present ones) and `orValue`/`or` cost nothing of their own (decorateOptionalOr).
COSTS_137: list[tuple[str, dict[str, object], int]] = [
    ("string(-1 in [])", {}, 0),
    ("{string(1 in []): int('-3')}", {}, 0),
    ("input in []", {"input": 1}, 0),
    ("input.startsWith(arg1)", {"input": "idc", "arg1": "y" * 500}, 1 + 1 + 50),
    ("input.?a.?b.orValue(1)", {"input": {"a": {}}}, 2),
    ("input.?a.?b.orValue(1)", {"input": {"a": {"b": 2}}}, 3),
    ("{'a': 1}.?b.orValue(2)", {}, 1),
]


@pytest.mark.parametrize(("expr", "act", "cost"), COSTS_137)
def test_cost_137(expr: str, act: dict[str, object], cost: int) -> None:
    environment = build_environment(
        "1.37", ExpressionKind.VARIABLE, has_params=False, variables={}, mode="stored"
    )
    result = run(expr, act, checked=False, environment=environment)
    assert result.error is None, result.error
    assert result.cost == cost
