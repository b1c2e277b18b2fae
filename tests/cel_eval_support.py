"""Shared helpers for tests/cel/test_cel_eval_*.py: compile in the runtime (stored) env, evaluate.

Every evaluation runs twice, plain and traced (`evaluate(..., trace=True)`), and the two must
agree on value, error and cost: so the whole evaluation suite is also the proof that tracing
(`run --explain`, `test --coverage`) never changes a result.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from vap_lsp.cel.ast import ParsedExpr
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.cel.interpreter import EvalResult, evaluate, to_python
from vap_lsp.cel.parser import parse
from vap_lsp.cel.runtime.k8s import StructValue

OBJECT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "prod", "labels": {"app": "web", "tier": "frontend"}},
    "spec": {
        "replicas": 3,
        "template": {
            "spec": {
                "containers": [
                    {"name": "nginx", "image": "nginx:1.25", "resources": {"limits": {"memory": "512Mi"}}},
                    {"name": "sidecar", "image": "envoy:latest"},
                ]
            }
        },
    },
}


@lru_cache(maxsize=8)
def env(kind: ExpressionKind = ExpressionKind.VARIABLE, version: str = "1.34") -> Environment:
    return build_environment(version, kind, has_params=True, mode="stored")


def run(
    text: str,
    activation: Mapping[str, object] | None = None,
    *,
    checked: bool = True,
    cost_limit: int | None = 1_000_000,
    environment: Environment | None = None,
) -> EvalResult:
    e = environment or env()
    act: dict[str, object] = {"object": OBJECT, "oldObject": None, "params": {"max": 5}, "request": {}}
    if activation:
        act.update(activation)
    if checked:
        result = compile_expression(text, e)
        assert result.checked is not None and not [i for i in result.issues if i.phase == "syntax"], (
            result.render()
        )
        assert result.ok, result.render()
        return same_when_traced(text, result.checked, act, e, cost_limit)
    parsed = parse(text)
    assert parsed.ok, parsed.render_errors()
    return same_when_traced(text, parsed, act, e, cost_limit)


def same_when_traced(
    text: str,
    expr: CheckedExpr | ParsedExpr,
    act: Mapping[str, object],
    e: Environment,
    cost_limit: int | None,
) -> EvalResult:
    """The plain result, after checking that a traced evaluation gives the same one."""
    plain = evaluate(expr, act, env=e, cost_limit=cost_limit)
    traced = evaluate(expr, act, env=e, cost_limit=cost_limit, trace=True)
    assert plain.trace is None and traced.trace is not None
    assert (_shown(traced.value), traced.error, traced.cost, traced.cost_limit_exceeded) == (
        _shown(plain.value),
        plain.error,
        plain.cost,
        plain.cost_limit_exceeded,
    ), f"tracing changed the result of {text!r}"
    return plain


def value(text: str, **kwargs: object) -> object:
    result = run(text, **kwargs)  # type: ignore[arg-type]
    assert result.error is None, f"{text}: {result.error}"
    return result.value


def error(text: str, **kwargs: object) -> str | None:
    return run(text, **kwargs).error  # type: ignore[arg-type]


def _shown(v: object) -> str:
    """A value as comparable text (structs and library values have no `==` across evaluations)."""
    if isinstance(v, StructValue):
        return f"{v.type_name}{{{', '.join(f'{k}: {_shown(x)}' for k, x in v.fields.items())}}}"
    if isinstance(v, (list, tuple)):
        return f"[{', '.join(_shown(x) for x in v)}]"
    if isinstance(v, dict):
        return f"{{{', '.join(f'{_shown(k)}: {_shown(x)}' for k, x in v.items())}}}"
    try:
        return f"{type(v).__name__}:{to_python(v)!r}"
    except Exception:
        return f"{type(v).__name__}:{v}"
