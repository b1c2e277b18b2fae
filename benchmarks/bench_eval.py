"""CEL evaluation throughput: a typical 5-expression policy against 1,000 generated Deployments.

Prints evaluations per second (one evaluation = one expression against one object) and policy
evaluations per second, plain and traced (`evaluate(..., trace=True)`, what `run --explain` and
`test --coverage` use), and the traced/plain time ratio (target: at most 2x).
Run: `.venv/bin/python benchmarks/bench_eval.py`.
"""

from __future__ import annotations

import random
import time

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import evaluate

ROUNDS = 5

EXPRESSIONS = [
    "object.spec.replicas <= 5",
    "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))",
    "has(object.metadata.labels) && 'app' in object.metadata.labels",
    "object.spec.template.spec.containers.all(c, has(c.resources) && has(c.resources.limits) "
    "&& quantity(c.resources.limits.memory).isLessThan(quantity('2Gi')))",
    "object.metadata.name.matches('^[a-z0-9-]+$') && size(object.metadata.name) < 64",
]


def deployment(i: int, rng: random.Random) -> dict[str, object]:
    containers = [
        {
            "name": f"c{j}",
            "image": f"registry.example.com/app{j}:{rng.choice(['1.0', '2.3', 'latest'])}",
            "resources": {"limits": {"memory": f"{rng.choice([128, 256, 512, 4096])}Mi", "cpu": "500m"}},
        }
        for j in range(rng.randint(1, 3))
    ]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"app-{i}", "namespace": "default", "labels": {"app": f"app-{i}"}},
        "spec": {"replicas": rng.randint(1, 8), "template": {"spec": {"containers": containers}}},
    }


def main() -> None:
    rng = random.Random(42)
    objects = [deployment(i, rng) for i in range(1000)]
    env = build_environment("1.34", ExpressionKind.VALIDATION, has_params=False, mode="stored")
    compiled = [compile_expression(e, env) for e in EXPRESSIONS]
    checked = [c.checked for c in compiled if c.checked is not None and c.ok]
    assert len(checked) == len(EXPRESSIONS), [c.render() for c in compiled]
    for expr in checked:  # warm the plan caches (plain and traced)
        evaluate(expr, {"object": objects[0], "oldObject": None, "request": {}}, env=env)
        evaluate(expr, {"object": objects[0], "oldObject": None, "request": {}}, env=env, trace=True)

    def one_pass(trace: bool) -> tuple[float, int]:
        start = time.perf_counter()
        denied = 0
        for obj in objects:
            act = {"object": obj, "oldObject": None, "request": {}}
            for expr in checked:
                result = evaluate(expr, act, env=env, trace=trace)
                if result.value is not True:
                    denied += 1
        return time.perf_counter() - start, denied

    # Plain and traced passes alternate and the best of each counts: a shared machine's load
    # then weighs on both alike.
    plain: list[float] = []
    traced: list[float] = []
    for _ in range(ROUNDS):
        elapsed, denied = one_pass(False)
        plain.append(elapsed)
        traced.append(one_pass(True)[0])
    n = len(objects) * len(checked)
    best = min(plain)
    print(f"{n} evaluations in {best:.3f}s: {n / best:,.0f} evaluations/s, "
          f"{len(objects) / best:,.0f} policy evaluations/s ({denied} false/error results)")  # fmt: skip
    best_traced = min(traced)
    print(f"traced (run --explain, test --coverage): {n / best_traced:,.0f} evaluations/s, "
          f"{best_traced / best:.2f}x the time of plain evaluation")  # fmt: skip


if __name__ == "__main__":
    main()
