"""CEL evaluation throughput: a typical 5-expression policy against 1,000 generated Deployments.

Prints evaluations per second (one evaluation = one expression against one object) and policy
evaluations per second. Run: `.venv/bin/python benchmarks/bench_eval.py`.
"""

from __future__ import annotations

import random
import time

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import evaluate

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
    for expr in checked:  # warm the plan cache
        evaluate(expr, {"object": objects[0], "oldObject": None, "request": {}}, env=env)
    start = time.perf_counter()
    denied = 0
    for obj in objects:
        act = {"object": obj, "oldObject": None, "request": {}}
        for expr in checked:
            result = evaluate(expr, act, env=env)
            if result.value is not True:
                denied += 1
    elapsed = time.perf_counter() - start
    n = len(objects) * len(checked)
    print(f"{n} evaluations in {elapsed:.3f}s: {n / elapsed:,.0f} evaluations/s, "
          f"{len(objects) / elapsed:,.0f} policy evaluations/s ({denied} false/error results)")  # fmt: skip


if __name__ == "__main__":
    main()
