"""Traced evaluation (`evaluate(..., trace=True)`): what it records per node, per iteration.

The equality of traced and plain results over the whole evaluation suite is checked by
`tests/cel_eval_support.py` (every `run` evaluates both ways).
"""

from __future__ import annotations

from vap_lsp.cel import types as cel_types
from vap_lsp.cel.ast import Call, Comprehension, Expr, ParsedExpr, Select
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import LazyVariables, VariableDef, evaluate
from vap_lsp.cel.trace import Trace, TracedError

ENV = build_environment("1.34", ExpressionKind.VALIDATION, has_params=False, mode="stored")
POD = {
    "spec": {
        "containers": [
            {"name": "app", "image": "registry.example.com/app:1"},
            {"name": "debug", "image": "docker.io/library/busybox:1.36"},
        ]
    }
}


def traced(text: str, obj: object = POD) -> Trace:
    compiled = compile_expression(text, ENV)
    assert compiled.ok and compiled.checked is not None, compiled.render()
    result = evaluate(compiled.checked, {"object": obj}, env=ENV, trace=True)
    assert result.trace is not None
    return result.trace


def node(parsed: ParsedExpr, source: str, kind: type[Expr] = Expr) -> Expr:
    """The outermost node of `kind` whose text is `source`."""
    for n in parsed.walk():
        if isinstance(n, kind) and parsed.source[n.start : n.end] == source:
            return n
    raise AssertionError(source)


def test_every_evaluated_node_has_its_value() -> None:
    t = traced("object.spec.containers.size() == 2")
    size = node(t.parsed, "object.spec.containers.size()", Call)
    assert t.root.values[size.id] == 2
    assert t.root.values[t.parsed.ast.id] is True  # type: ignore[union-attr]


def test_short_circuited_branch_has_no_value() -> None:
    t = traced("object.spec.containers.size() > 5 && object.spec.missing == 1")
    right = node(t.parsed, "object.spec.missing == 1", Call)
    assert right.id not in t.root.values
    assert t.root.values[t.parsed.ast.id] is False  # type: ignore[union-attr]


def test_an_error_is_recorded_where_it_arises() -> None:
    t = traced("object.spec.missing == 1")
    missing = node(t.parsed, "object.spec.missing", Select)
    err = t.root.values[missing.id]
    assert isinstance(err, TracedError) and err.message == "no such key: missing"


def test_all_records_each_visited_element_and_stops_at_the_false_one() -> None:
    t = traced("object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))")
    comp = next(n for n in t.parsed.walk() if isinstance(n, Comprehension))
    iterations = t.root.loops[comp.id]
    assert [(i.key, i.value["name"]) for i in iterations] == [(0, "app"), (1, "debug")]  # type: ignore[index]
    pred = node(t.parsed, "c.image.startsWith('registry.example.com/')", Call)
    assert [i.frame.values[pred.id] for i in iterations] == [True, False]


def test_map_iteration_records_keys_and_values() -> None:
    t = traced("{'a': 1, 'b': 2}.all(k, v, v < 2)")
    comp = next(n for n in t.parsed.walk() if isinstance(n, Comprehension))
    assert [(i.key, i.value) for i in t.root.loops[comp.id]] == [("a", 1), ("b", 2)]


def test_lazy_variables_keep_the_trace_of_what_was_read() -> None:
    env = build_environment(
        "1.34", ExpressionKind.VALIDATION, has_params=False, mode="stored",
        variables={"containers": cel_types.DYN, "unused": cel_types.INT},
    )  # fmt: skip
    defs = {
        name: VariableDef(compile_expression(text, ENV).checked, ENV)
        for name, text in {"containers": "object.spec.containers", "unused": "1 / 0"}.items()
    }
    variables = LazyVariables(defs, {"object": POD}, trace=True)
    compiled = compile_expression("variables.containers.size() == 2", env)
    assert compiled.checked is not None
    result = evaluate(compiled.checked, {"object": POD, "variables": variables}, env=env, trace=True)
    assert result.value is True
    read = variables.result("containers")
    assert read is not None and read.trace is not None
    assert read.trace.root.values[read.trace.parsed.ast.id] == POD["spec"]["containers"]  # type: ignore[union-attr]
    assert variables.result("unused") is None
