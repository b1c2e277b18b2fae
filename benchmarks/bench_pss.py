"""Benchmark and full proof of `vap-lsp library pss` (printed only; the bounded parts are tests).

1. PSA's fixtures (4,537 Pods, both levels, v1.0-v1.37) through the fixed-version libraries and
   through the namespace-labels library: agreement and time.
2. The differential run against PSA's own evaluator (`oracle/pss`, k8s.io/pod-security-admission
   v0.37.2): `--pods` generated Pods (`tests/library/pss_pods.py`, hypothesis, fixed seed) per
   level and version; verdicts, failing checks (in order), errors, and how many details are
   PSA's text exactly.
3. What the policies cost at admission, measured by vap-lsp's interpreter (Kubernetes' cost
   functions): the most any one expression and any one evaluation's validation budget spent
   over the fixtures, and over Pods with more and more containers, against the per-call limit
   (1,000,000) and the budget (10,000,000).

Needs Go and the module proxy (or cache) for part 2; without them it says so and skips it.

Usage: python benchmarks/bench_pss.py [--pods 5000] [--versions v1.0,v1.19,v1.25,v1.31,v1.35,latest]
       [--skip-fixtures] [--skip-differential] [--skip-cost]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.library.pss_pods import OracleUnavailable, PssOracle, Tally, build_oracle, differential, pods  # noqa: E402
from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare  # noqa: E402
from vap_lsp.analysis.model.cost_budget import PER_CALL_LIMIT, RUNTIME_BUDGET  # noqa: E402
from vap_lsp.library.pss import Options, generate  # noqa: E402
from vap_lsp.library.pss_checks import LATEST_MINOR  # noqa: E402

TESTDATA = ROOT / "tests" / "fixtures" / "libraries" / "pod-security-admission" / "testdata"
LEVELS = ("baseline", "restricted")


def _prepared(options: Options, *extra: dict[str, Any]) -> Any:
    objects = [*generate(options).objects(), *extra]
    return prepare(PolicyInputs.from_objects(objects), kubernetes_version="1.37", builtin_admission=False)


def _fixtures(level: str, minor: int) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for verdict in ("pass", "fail"):
        for p in sorted((TESTDATA / level / f"v1.{minor}" / verdict).glob("*.yaml")):
            out.append((verdict, yaml.safe_load(p.read_text(encoding="utf-8"))))
    return out


def fixtures() -> None:
    print("## PSA's fixtures")
    start, total, wrong = time.perf_counter(), 0, 0
    for level in LEVELS:
        for minor in range(LATEST_MINOR + 1):
            prepared = _prepared(Options(level=level, version=f"v1.{minor}", workloads="off"))
            for verdict, pod in _fixtures(level, minor):
                total += 1
                result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace="default"))
                wrong += result.allowed != (verdict == "pass")
    fixed = time.perf_counter() - start
    print(f"fixed-version libraries: {total:,} fixtures, {wrong} not PSA's verdict, {fixed:.1f} s")
    namespaces = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": f"{level}-{minor}",
                "labels": {
                    "pod-security.kubernetes.io/enforce": level,
                    "pod-security.kubernetes.io/enforce-version": f"v1.{minor}",
                },
            },
        }
        for level in LEVELS
        for minor in range(LATEST_MINOR + 1)
    ]
    start, total, wrong = time.perf_counter(), 0, 0
    prepared = _prepared(Options(namespace_labels=True, workloads="off"), *namespaces)
    for level in LEVELS:
        for minor in range(LATEST_MINOR + 1):
            for verdict, pod in _fixtures(level, minor):
                total += 1
                result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace=f"{level}-{minor}"))
                wrong += result.allowed != (verdict == "pass")
    labelled = time.perf_counter() - start
    print(f"namespace-labels library: {total:,} fixtures, {wrong} not PSA's verdict, {labelled:.1f} s")
    print()


def generated_pods(count: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    @settings(
        max_examples=count,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(pods())
    @seed(36)
    def collect(pod: dict[str, Any]) -> None:
        out.append(pod)

    collect()
    return out


def differential_run(count: int, versions: list[str]) -> None:
    print("## Differential: the generated policies against PSA's evaluator")
    start = time.perf_counter()
    try:
        binary = build_oracle(build=True)
    except OracleUnavailable as exc:
        print(f"skipped: {exc}\n")
        return
    print(f"oracle built in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    batch = generated_pods(count)
    print(f"{len(batch):,} pods generated in {time.perf_counter() - start:.1f} s")
    oracle = PssOracle(binary)
    print()
    columns = ["level", "version", "pods", "denied by PSA", "divergent verdicts", "divergent checks"]
    columns += ["errors", "details = PSA's", "time"]
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|---|---|---|")
    grand = Tally()
    for level in LEVELS:
        for version in versions:
            start = time.perf_counter()
            prepared = _prepared(Options(level=level, version=version, workloads="off"))
            tally = Tally()
            for i in range(0, len(batch), 200):
                tally.add(differential(prepared, oracle, level, version, batch[i : i + 200]))
            grand.add(tally)
            share = f"{100 * tally.details_same / tally.details:.1f}%" if tally.details else "-"
            print(
                f"| {level} | {version} | {tally.pods:,} | {tally.denied:,} | {tally.verdicts} | "
                f"{tally.reasons} | {tally.errors} | {share} of {tally.details:,} | "
                f"{time.perf_counter() - start:.1f} s |"
            )
            for example in tally.examples:
                print(f"    {example[:2000]}")
    oracle.close()
    print(
        f"\nall: {grand.pods:,} comparisons, {grand.divergences} divergences; "
        f"details identical to PSA's: {grand.details_same:,} of {grand.details:,}\n"
    )


def _costs(prepared: Any, pod: dict[str, Any]) -> tuple[int, int, bool]:
    """(the costliest expression with the variables it evaluated, the validations budget spent,
    admitted)."""
    result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace="default"), explain=True)
    worst = spent = 0
    for evaluation in result.evaluations:
        for e in evaluation.expressions:
            worst = max(worst, e.cost)
        for use in evaluation.budgets:
            if use.name.startswith("validations"):
                spent = max(spent, use.spent)
    return worst, spent, result.allowed


def _big_pod(containers: int) -> dict[str, Any]:
    """A Pod every check reads a lot of: each container with a full securityContext, ports,
    added capabilities, probes and lifecycle handlers; restricted-compliant but for the
    capabilities (so the validations run to the end and one message is built)."""
    container = {
        "name": "c",
        "image": "registry.example.com/app:1",
        "ports": [{"containerPort": 8000 + i} for i in range(4)],
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "runAsNonRoot": True,
            "runAsUser": 1000,
            "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE", "CHOWN"]},
            "seccompProfile": {"type": "RuntimeDefault"},
            "seLinuxOptions": {"type": "container_t"},
        },
        "livenessProbe": {"httpGet": {"port": 8000}},
        "readinessProbe": {"tcpSocket": {"port": 8000}},
        "lifecycle": {"preStop": {"exec": {"command": ["true"]}}},
    }
    items = []
    for i in range(containers):
        c = copy.deepcopy(container)
        c["name"] = f"c{i}"
        items.append(c)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {
            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
            "initContainers": items[: containers // 4],
            "containers": items[containers // 4 :],
            "volumes": [{"name": f"v{i}", "configMap": {"name": "cm"}} for i in range(containers // 2)],
        },
    }


def costs() -> None:
    print("## Cost at admission (measured)")
    print(f"per-call limit {PER_CALL_LIMIT:,} per expression, budget {RUNTIME_BUDGET:,} per evaluation")
    for level in LEVELS:
        prepared = _prepared(Options(level=level, workloads="off"))
        worst = spent = 0
        for minor in range(LATEST_MINOR + 1):
            for _, pod in _fixtures(level, minor):
                w, s, _ = _costs(prepared, pod)
                worst, spent = max(worst, w), max(spent, s)
        print(
            f"{level} latest over PSA's fixtures: costliest expression {worst:,}, "
            f"costliest evaluation {spent:,} of the budget"
        )
    prepared = _prepared(Options(level="restricted", workloads="off"))
    columns = ["containers", "costliest expression (with the variables it read)", "validations budget spent"]
    print("\n| " + " | ".join([*columns, "admitted"]) + " |")
    print("|---|---|---|---|")
    for n in (4, 40, 400, 1000, 2000):
        w, s, allowed = _costs(prepared, _big_pod(n))
        print(f"| {n:,} | {w:,} | {s:,} | {allowed} |")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--versions", default="v1.0,v1.19,v1.25,v1.31,v1.35,latest")
    parser.add_argument("--skip-fixtures", action="store_true")
    parser.add_argument("--skip-differential", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    args = parser.parse_args()
    if not args.skip_fixtures:
        fixtures()
    if not args.skip_differential:
        differential_run(args.pods, args.versions.split(","))
    if not args.skip_cost:
        costs()


if __name__ == "__main__":
    main()
