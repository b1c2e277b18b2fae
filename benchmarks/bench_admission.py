"""Benchmark: offline admission throughput (printed only).

Measures `vap_lsp.admission.api.admit` of a ValidatingAdmissionPolicy with 5 validations (one
binding, no params) against 1,000 distinct Deployments: evaluations (admit calls) per second
and validations per second. The first call (compilation, schema loading) is timed separately.
Then the same stream through `prepare(...).admit` (what `vap-lsp run` does) with the objects
as the server has them when validating admission runs (decoded, defaulted and converted:
`vap_lsp.defaulting`; changed by its default-enabled admission plugins: `defaulting.plugins`)
and, for comparison, as written (defaulting replaced by nothing, the plugins off), in
interleaved rounds of CPU time: the cost per object and in percent, the median of the rounds
(goal: at most 20%). The same for 1,000 Pods (two containers, one policy of 5 validations over
their service account, volumes and tolerations), where the plugins do the most.

Usage: nice python benchmarks/bench_admission.py [--objects 1000] [--runs 3] [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

import vap_lsp.admission.engine as engine  # noqa: E402
from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit, prepare  # noqa: E402
from vap_lsp.defaulting import Defaulted, default_object  # noqa: E402

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deployment-rules}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  variables:
  - {name: containers, expression: "object.spec.template.spec.containers"}
  validations:
  - expression: "object.spec.replicas <= 10"
    messageExpression: "'too many replicas: ' + string(object.spec.replicas)"
  - expression: "variables.containers.all(c, !c.image.endsWith(':latest'))"
    message: no latest tag
  - expression: "variables.containers.all(c, has(c.resources) && has(c.resources.limits))"
    message: limits required
  - expression: "has(object.metadata.labels) && 'app' in object.metadata.labels"
    message: app label required
  - expression: "object.metadata.name.matches('^[a-z][a-z0-9-]*$')"
    message: bad name
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deployment-rules-binding}
spec: {policyName: deployment-rules, validationActions: [Deny]}
"""


POD_POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pod-rules}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))"
  - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
  - expression: "!has(object.spec.tolerations) || object.spec.tolerations.all(t, t.key != 'dedicated')"
  - expression: "!has(object.spec.serviceAccountName) || object.spec.serviceAccountName != 'admin'"
  - expression: "has(object.metadata.labels) && 'app' in object.metadata.labels"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: pod-rules-binding}
spec: {policyName: pod-rules, validationActions: [Deny]}
"""


def _pod(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"app-{i}", "namespace": "default", "labels": {"app": f"app-{i}"}},
        "spec": {
            "containers": [
                {
                    "name": f"c{j}",
                    "image": f"registry.example.com/app:{'latest' if (i + j) % 7 == 0 else '1.0'}",
                }
                for j in range(2)
            ]
        },
    }


def _deployment(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"app-{i}", "namespace": "default", "labels": {"app": f"app-{i}"}},
        "spec": {
            "replicas": i % 15,
            "selector": {"matchLabels": {"app": f"app-{i}"}},
            "template": {
                "metadata": {"labels": {"app": f"app-{i}"}},
                "spec": {
                    "containers": [
                        {
                            "name": f"c{j}",
                            "image": f"registry.example.com/app:{'latest' if (i + j) % 7 == 0 else '1.0'}",
                            "resources": {"limits": {"cpu": "1"}} if (i + j) % 11 else {},
                        }
                        for j in range(3)
                    ]
                },
            },
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds for defaulting's cost")
    args = parser.parse_args()
    inputs = PolicyInputs.from_objects(yaml.safe_load_all(POLICY))
    objects = [_deployment(i) for i in range(args.objects)]
    t0 = time.perf_counter()
    admit(AdmissionRequestInput("CREATE", objects[0]), inputs, kubernetes_version="1.34")
    first = time.perf_counter() - t0
    times = []
    denied = 0
    for _ in range(args.runs):
        t0 = time.perf_counter()
        denied = sum(
            not admit(AdmissionRequestInput("CREATE", o), inputs, kubernetes_version="1.34").allowed
            for o in objects
        )
        times.append(time.perf_counter() - t0)
    best, median = min(times), statistics.median(times)
    print(f"first admit (compile, schemas): {first * 1000:.1f} ms")
    print(f"{args.objects} objects x 5 validations, {args.runs} runs, {denied} denied")
    print(f"evaluations per second: {args.objects / median:,.0f} (best run {args.objects / best:,.0f})")
    print(f"validations per second: {5 * args.objects / median:,.0f}")
    print(f"mean per object: {median / args.objects * 1e6:.0f} µs")
    print("== 1,000 Deployments")
    _defaulting_cost(inputs, objects, args.rounds)
    print("== 1,000 Pods")
    _defaulting_cost(
        PolicyInputs.from_objects(yaml.safe_load_all(POD_POLICY)),
        [_pod(i) for i in range(args.objects)],
        args.rounds,
    )


def _defaulting_cost(inputs: PolicyInputs, objects: list[dict[str, Any]], rounds: int) -> None:
    """The cost per request of what the server does to an object before validating admission:
    `prepare().admit` over the stream in three arms, interleaved in each round: as written
    (defaulting replaced by nothing: the engine then copies the object once, as defaulting does;
    the admission plugins off), defaulted (plugins off), and defaulted with the plugins (what
    `run` does). CPU time of this process (`time.process_time`), so other jobs on a shared
    machine weigh less; the medians of the rounds' paired ratios are the figures. What the
    plugins add includes evaluating the policy over what they add (a Pod's token volume and two
    tolerations are read by its validations)."""
    real = getattr(engine, "default_object")  # noqa: B009 (replaced below, restored after)

    def as_written(obj: dict[str, Any], _version: str, _crd: Any = None) -> Defaulted:
        return Defaulted(obj)

    full: list[float] = []
    defaulted: list[float] = []
    written: list[float] = []
    for _ in range(rounds):
        full.append(_prepared_stream(inputs, objects, builtin_admission=True))
        defaulted.append(_prepared_stream(inputs, objects, builtin_admission=False))
        setattr(engine, "default_object", as_written)  # noqa: B010
        try:
            written.append(_prepared_stream(inputs, objects, builtin_admission=False))
        finally:
            setattr(engine, "default_object", real)  # noqa: B010
    n = len(objects)

    def ratio(a: list[float], b: list[float]) -> str:
        ratios = sorted(x / y - 1 for x, y in zip(a, b, strict=True))
        return (
            f"median {statistics.median(ratios) * 100:+.1f}% "
            f"(rounds from {ratios[0] * 100:+.1f}% to {ratios[-1] * 100:+.1f}%)"
        )

    alone = []
    for _ in range(rounds):
        t0 = time.process_time()
        for o in objects:
            default_object(o, "1.34")
        alone.append(time.process_time() - t0)
    print(
        f"prepare().admit per object, median of {rounds} interleaved rounds (CPU time): "
        f"{statistics.median(written) / n * 1e6:.0f} µs as written, "
        f"{statistics.median(defaulted) / n * 1e6:.0f} µs defaulted, "
        f"{statistics.median(full) / n * 1e6:.0f} µs defaulted with the admission plugins"
    )
    print(f"defaulting's cost per request: {ratio(defaulted, written)}")
    print(f"the admission plugins' on top: {ratio(full, defaulted)}; all: {ratio(full, written)}")
    print(f"default_object alone: {statistics.median(alone) / n * 1e6:.1f} µs per object (copy included)")


def _prepared_stream(
    inputs: PolicyInputs, objects: list[dict[str, Any]], *, builtin_admission: bool
) -> float:
    """CPU seconds for the whole stream through one prepared policy set (as `vap-lsp run`)."""
    prepared = prepare(inputs, kubernetes_version="1.34", builtin_admission=builtin_admission)
    prepared.admit(AdmissionRequestInput("CREATE", objects[0]))
    t0 = time.process_time()
    for o in objects:
        prepared.admit(AdmissionRequestInput("CREATE", o))
    return time.process_time() - t0


if __name__ == "__main__":
    main()
