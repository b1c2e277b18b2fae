"""Shared helpers for tests/cel/test_cel_eval_*.py: compile in the runtime (stored) env, evaluate."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.cel.interpreter import EvalResult, evaluate
from vap_lsp.cel.parser import parse

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
        return evaluate(result.checked, act, env=e, cost_limit=cost_limit)
    parsed = parse(text)
    assert parsed.ok, parsed.render_errors()
    return evaluate(parsed, act, env=e, cost_limit=cost_limit)


def value(text: str, **kwargs: object) -> object:
    result = run(text, **kwargs)  # type: ignore[arg-type]
    assert result.error is None, f"{text}: {result.error}"
    return result.value


def error(text: str, **kwargs: object) -> str | None:
    return run(text, **kwargs).error  # type: ignore[arg-type]
