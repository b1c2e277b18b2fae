"""`no such overload` as cel-go words it, by how each function is bound (tests/cel/
no_such_overload_cases.py, where each group cites the cel-go code it follows): evaluated as
`vap-lsp cel` evaluates a validation, over the objects admission binds, at every Kubernetes
version from the row's first to 1.37. The same rows run beside the oracle in
tests/oracle/test_no_such_overload.py."""

from __future__ import annotations

import pytest
from cel_eval_support import env, run
from no_such_overload_cases import ALL, CONFIG_MAP, NEWEST, Case

from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression
from vap_lsp.cel import library as lib
from vap_lsp.cel.library.decls import BindingStyle

ROWS = [
    pytest.param(case, minor, id=f"1.{minor}: {case.expression}")
    for case in ALL
    for minor in range(case.since, NEWEST + 1)
]


@pytest.mark.parametrize(("case", "minor"), ROWS)
def test_the_call_answers_in_cel_gos_words(case: Case, minor: int) -> None:
    result = evaluate_expression(
        case.expression, PlaygroundInputs(f"1.{minor}", object=CONFIG_MAP, builtin_admission=False)
    ).to_json()
    assert (result["type"] is not None, result["error"]) == (True, case.error)


def test_every_function_of_the_kubernetes_environment_has_a_binding_style() -> None:
    """The styles cel-go uses; the singletons are the standard library's operators, `size`,
    `matches`, `type`, `dyn`, and ext/lists.go's `sort` and `@sortByAssociatedKeys`."""
    styles = {o.function: lib.binding(o.function).style for o in lib.all_overloads()}
    singletons = {f for f, s in styles.items() if s is BindingStyle.SINGLETON}
    operators = {"!_", "-_", "@in", "_!=_", "_%_", "_&&_", "_*_", "_+_", "_-_", "_/_", "_<=_", "_<_"}
    operators |= {"_==_", "_>=_", "_>_", "_?_:_", "_[_]", "_||_"}
    assert singletons == operators | {"dyn", "matches", "size", "type", "sort", "@sortByAssociatedKeys"}
    unguarded = sorted(f for f, s in styles.items() if s is BindingStyle.UNGUARDED)
    assert unguarded == ["contains", "endsWith", "flatten", "startsWith"]


# interpreter/interpretable.go `evalVarArgs`: a call of three arguments or more that nothing
# implements (a parsed-only expression naming an undeclared function) names its node from cel-go
# v0.20 (Kubernetes 1.31) on; one or two arguments never do (`evalUnary`/`evalBinary`), a receiver
# answers itself (`String.Receive`), and no argument fails planning (`planCallZero`).
UNIMPLEMENTED = [
    ("foo(1, 2, 3)", {"1.30": "no such overload: foo", "1.31": "no such overload: foo 1"}),
    ("[1].foo(1, 2)", {"1.30": "no such overload: foo", "1.37": "no such overload: foo 3"}),
    ("foo(1)", {"1.30": "no such overload: foo", "1.37": "no such overload: foo"}),
    ("'a'.foo(1, 2)", {"1.30": "no such overload", "1.37": "no such overload"}),
    ("foo()", {"1.37": "no such overload: foo()"}),
]


@pytest.mark.parametrize(("text", "by_version"), UNIMPLEMENTED)
def test_a_call_nothing_implements(text: str, by_version: dict[str, str]) -> None:
    for version, error in by_version.items():
        assert run(text, checked=False, environment=env(version=version)).error == error
