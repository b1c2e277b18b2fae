"""Benchmark: `vap-lsp impact` throughput and memory (printed only).

Default: writes a `kubectl get pods -A -o json` List of N Pods (default 100,000) and an audit log
of Pod creates and updates, then runs the real command in a subprocess:

- objects/s of `vap-lsp impact` with `--jobs 1` (this process, the default) and with one job
  per CPU (a local Dask cluster when vap-lsp[scale] is installed);
- peak resident memory of the largest process, for N and for N/5 objects (flat: the same);
- `vap-lsp run` over the same first `--run-objects` Pods (its default settings) against
  `vap-lsp impact` over those same Pods with its defaults, and the ratio;
- audit-log events/s (`--audit-log`, one job per CPU).

`--dask` (needs vap-lsp[scale]): the Dask engine on an audit log of `--events` generated events
(default 1,000,000: 2.6 GB; each Pod created then updated), replayed on a local Dask cluster of
1 and then 2 single-threaded worker processes (`impact --scheduler`, a fresh cluster per run):
events/s, the speed-up, peak resident memory of each worker, the same for `--small-events`
(default 100,000: memory flat means the same peak), and on paper the cluster for 10^8
events/hour from the measured per-core rate. Each figure is printed with the load average
before and after it: on a shared machine other work takes cores from the workers.

Usage: python benchmarks/bench_impact.py [--objects 100000] [--run-objects 5000] [--events 50000]
       python benchmarks/bench_impact.py --dask [--events 1000000] [--small-events 100000]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VAP_LSP = [sys.executable, "-m", "vap_lsp"]

POLICIES = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pod-security}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  variables:
  - {name: containers, expression: "object.spec.containers"}
  validations:
  - expression: "variables.containers.all(c, !c.image.endsWith(':latest'))"
    messageExpression: "'unpinned image in ' + object.metadata.name"
  - expression: "variables.containers.all(c, has(c.resources) && has(c.resources.limits))"
    message: limits required
  - expression: "!has(object.spec.hostNetwork) || !object.spec.hostNetwork"
    message: no host network
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: pod-security}
spec:
  policyName: pod-security
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions:
      - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: team label required
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Warn]}
"""


def _pod(i: int) -> dict[str, Any]:
    labels = {"app": f"app-{i % 50}"}
    if i % 3:
        labels["team"] = f"team-{i % 7}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"app-{i % 50}-{i:07d}",
            "namespace": f"ns-{i % 40}",
            "uid": f"00000000-0000-4000-8000-{i:012d}",
            "labels": labels,
            "creationTimestamp": "2026-10-01T00:00:00Z",
        },
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": f"registry.example.com/app:{'latest' if i % 11 == 0 else '1.2.3'}",
                    "resources": {"limits": {"cpu": "1", "memory": "1Gi"}} if i % 13 else {},
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                },
                {"name": "sidecar", "image": "registry.example.com/proxy:2.0"},
            ],
            "restartPolicy": "Always",
            "nodeName": f"node-{i % 100}",
        },
        "status": {"phase": "Running", "podIP": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"},
    }


def _write_pods(path: Path, n: int) -> None:
    with open(path, "w") as f:
        f.write('{"apiVersion": "v1", "items": [\n')
        for i in range(n):
            f.write(("," if i else "") + json.dumps(_pod(i)) + "\n")
        f.write('], "kind": "List", "metadata": {"resourceVersion": ""}}\n')


def _write_audit(path: Path, n: int) -> None:
    with open(path, "w") as f:
        for i in range(n):
            pod = _pod(i // 2)
            verb = "create" if i % 2 == 0 else "update"
            meta = pod["metadata"]
            event = {
                "kind": "Event",
                "apiVersion": "audit.k8s.io/v1",
                "level": "RequestResponse",
                "auditID": f"a-{i}",
                "stage": "ResponseComplete",
                "requestURI": f"/api/v1/namespaces/{meta['namespace']}/pods",
                "verb": verb,
                "user": {"username": "system:serviceaccount:ci:deployer", "groups": ["system:authenticated"]},
                "objectRef": {
                    "resource": "pods",
                    "namespace": meta["namespace"],
                    "name": meta["name"],
                    "apiVersion": "v1",
                },
                "responseStatus": {"metadata": {}, "code": 201 if verb == "create" else 200},
                "requestObject": pod,
                "responseObject": pod,
            }
            f.write(json.dumps(event) + "\n")


def _peak_of(argv: list[str]) -> tuple[float, int]:
    """Peak RSS of this one command: measured in a fresh helper so earlier children don't count."""
    code = (
        "import resource,subprocess,sys,time,json;t=time.perf_counter();"
        f"r=subprocess.run({argv!r},capture_output=True,cwd={str(ROOT)!r});"
        "e=time.perf_counter()-t;"
        "print(json.dumps([e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024, r.returncode,"
        " r.stderr.decode()[-2000:]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    elapsed, peak, rc, err = json.loads(out)
    if rc not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({rc}): {err}")
    return float(elapsed), int(peak)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


def _worker_peak_mib() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _dask_run(policies: Path, log: Path, workers: int) -> tuple[float, list[int], str]:
    """One replay on a fresh local cluster: seconds, each worker's peak RSS (MiB), load."""
    import logging

    import dask
    from distributed import Client, LocalCluster

    from vap_lsp.impact.scale import WORKER_CONFIG  # what `impact --jobs N` starts its workers with

    with (
        dask.config.set(WORKER_CONFIG),
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("vap_lsp.impact.scale"))  # imports are not the replay
        before = _load()
        argv = [
            *VAP_LSP,
            "impact",
            "--no-config",
            str(policies),
            "--audit-log",
            str(log),
            "--scheduler",
            cluster.scheduler_address,
            "--format",
            "json",
            "--output-file",
            os.devnull,
        ]
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
        peaks = sorted(client.run(_worker_peak_mib).values())
    return elapsed, peaks, f"{before} -> {_load()}"


def dask_main(args: argparse.Namespace) -> None:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(f"python {sys.version.split()[0]}, {cpus} CPUs available, {_load()}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "policies.yaml").write_text(POLICIES)
        big, small = d / "audit.log", d / "audit-small.log"
        _write_audit(big, args.events)
        _write_audit(small, args.small_events)
        print(f"{args.events:,} audit events: {big.stat().st_size / 2**30:.2f} GiB")
        rates = {}
        for workers in (1, 2):
            elapsed, peaks, load = _dask_run(d / "policies.yaml", big, workers)
            rates[workers] = args.events / elapsed
            print(
                f"{workers} worker(s)  {args.events:>10,} events  {elapsed:8.1f} s  "
                f"{rates[workers]:8,.0f} events/s  peak per worker {peaks} MiB  ({load})"
            )
        print(f"speed-up 2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")
        elapsed, peaks, load = _dask_run(d / "policies.yaml", small, 2)
        print(
            f"2 worker(s)  {args.small_events:>10,} events  {elapsed:8.1f} s  "
            f"{args.small_events / elapsed:8,.0f} events/s  peak per worker {peaks} MiB  ({load}; memory "
            "flat: compare with the run above)"
        )
        per_core = max(rates[1], rates[2] / 2)
        need = 1e8 / 3600
        cores = math.ceil(need / per_core)
        print(
            f"on paper: 10^8 events/hour = {need:,.0f} events/s; at {per_core:,.0f} events/s per core "
            f"(the better of 1 worker and half of 2) that is {cores} single-threaded workers "
            f"(~{math.ceil(cores / 8)} machines of 8 cores, before the shuffle's own costs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--run-objects", type=int, default=5_000)
    parser.add_argument("--events", type=int, default=None)
    parser.add_argument("--dask", action="store_true", help="the Dask engine: 1 vs 2 workers")
    parser.add_argument("--small-events", type=int, default=100_000)
    args = parser.parse_args()
    if args.dask:
        args.events = args.events or 1_000_000
        dask_main(args)
        return
    args.events = args.events or 50_000
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(f"python {sys.version.split()[0]}, {cpus} CPUs available")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "policies.yaml").write_text(POLICIES)
        pods, small, audit, sample = (
            d / "pods.json",
            d / "pods-small.json",
            d / "audit.log",
            d / "sample.json",
        )
        _write_pods(pods, args.objects)
        _write_pods(small, args.objects // 5)
        _write_pods(sample, args.run_objects)
        _write_audit(audit, args.events)
        print(f"{args.objects:,} Pods: {pods.stat().st_size / 2**20:.0f} MiB of JSON")
        impact = [
            *VAP_LSP,
            "impact",
            "--no-config",
            str(d / "policies.yaml"),
            "--format",
            "json",
            "--output-file",
            os.devnull,
        ]

        for jobs in ("1", str(cpus)):
            argv = [*impact, "--objects", str(pods), "--jobs", jobs]
            elapsed, peak = _peak_of(argv)
            label = f"--jobs {jobs}" + (" (Dask)" if jobs != "1" else "")
            print(
                f"impact {label:<18} {args.objects:>8,} Pods  {elapsed:7.2f} s  "
                f"{args.objects / elapsed:9,.0f} objects/s  peak {peak} MiB"
            )
        elapsed, peak = _peak_of([*impact, "--objects", str(small), "--jobs", "1"])
        print(
            f"impact --jobs 1           {args.objects // 5:>8,} Pods  {elapsed:7.2f} s  "
            f"peak {peak} MiB (memory flat: compare)"
        )

        run_s, _ = _peak_of(
            [
                *VAP_LSP,
                "run",
                "--no-config",
                str(d / "policies.yaml"),
                "--object",
                str(sample),
                "--format",
                "json",
            ]
        )
        imp_s, _ = _peak_of([*impact, "--objects", str(sample)])
        print(
            f"same {args.run_objects:,} Pods, default settings: vap-lsp run {run_s:.2f} s "
            f"({args.run_objects / run_s:,.0f}/s), vap-lsp impact {imp_s:.2f} s "
            f"({args.run_objects / imp_s:,.0f}/s): {run_s / imp_s:.1f}x"
        )
        elapsed, peak = _peak_of([*impact, "--audit-log", str(audit), "--jobs", str(cpus)])
        print(
            f"audit log {args.events:,} events (--jobs {cpus}, Dask)  {elapsed:.2f} s  "
            f"{args.events / elapsed:,.0f} events/s  peak {peak} MiB"
        )


if __name__ == "__main__":
    main()
