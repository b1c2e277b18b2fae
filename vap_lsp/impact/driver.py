"""One impact run: the requests of snapshots, audit logs or a live cluster, sharded, admitted
against the policy set (and its base), counted — in this process, or on a Dask cluster
(`impact.scale`, with `vap-lsp[scale]`). What `vap-lsp impact` calls; no formatting here.

Which engine: `--scheduler` (or `DASK_SCHEDULER_ADDRESS`) always runs on that cluster; `--jobs N`
starts a local Dask cluster when the input is large enough to repay its start (seconds):
CLUSTER_MIN_REQUESTS requests, CLUSTER_MIN_LOG_BYTES of audit log. Anything smaller, no
`--jobs` (the default: a local cluster pays only where cores are free — on two busy cores one
process was faster, README "Speed"), or no Dask installed: this process.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vap_lsp.admission.api import PolicyInputs, UserInfo
from vap_lsp.impact.evaluate import ImpactSetup, WorkItem, run
from vap_lsp.impact.inputs import SnapshotError, SourceObject, iter_objects, snapshot_files
from vap_lsp.impact.locations import SCALE_EXTRA, Location, expand
from vap_lsp.impact.report import DEFAULT_LIMIT, Impact
from vap_lsp.impact.sources import AuditStats, Shard, add_context, audit_items, param_kinds, snapshot_items

if TYPE_CHECKING:
    from vap_lsp.impact.live import ClusterObjects

__all__ = ["EngineError", "ImpactOptions", "LiveOptions", "SnapshotError", "dask_available", "impact"]

CLUSTER_MIN_REQUESTS = 5000
CLUSTER_MIN_LOG_BYTES = 16 * 1024 * 1024
AUDIT_SUFFIXES = (".log", ".json", ".jsonl", ".gz")


class EngineError(Exception):
    """The engine asked for cannot run: no Dask for `--scheduler`, a cluster that cannot be
    reached, workers without vap-lsp."""


@dataclass
class LiveOptions:
    """`--cluster`: read the objects from the cluster of a kubeconfig context."""

    kubeconfig: str | None = None
    context: str | None = None
    installed: bool = False
    """Also read the policies and bindings installed in the cluster: the base of the
    comparison, or the policies evaluated when none are given."""


@dataclass
class ImpactOptions:
    inputs: PolicyInputs
    kubernetes_version: str
    objects: Sequence[str] = ()
    """Snapshots (paths, URLs, globs); with `audit_logs`, only their Namespaces and params."""
    audit_logs: Sequence[str] = ()
    base: PolicyInputs | None = None
    operation: str = "CREATE"
    user: UserInfo = field(default_factory=UserInfo)
    jobs: int | None = None
    """Worker processes of a local Dask cluster (None or 1: this process)."""
    scheduler: str | None = None
    """An existing Dask cluster (else `DASK_SCHEDULER_ADDRESS`)."""
    live: LiveOptions | None = None
    shard: Shard = field(default_factory=Shard)
    progress: Callable[[int], None] | None = None
    say: Callable[[str], None] | None = None
    """One-line messages for a person watching (where the work runs, the dashboard)."""
    limit: int = DEFAULT_LIMIT
    """Objects listed per binding and per kind of change (0: all); the rest are counted."""


def dask_available() -> bool:
    """Dask, distributed and what dask.dataframe needs (pandas, pyarrow) can be imported."""
    return all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed", "pandas", "pyarrow"))


def _scheduler(options: ImpactOptions) -> str | None:
    """The address of an existing cluster asked for; raises EngineError without Dask."""
    address = options.scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address and not dask_available():
        origin = "--scheduler" if options.scheduler else "DASK_SCHEDULER_ADDRESS"
        raise EngineError(f"{origin} {address}: running on a Dask cluster needs Dask: {SCALE_EXTRA}")
    return address


def _jobs(options: ImpactOptions) -> int:
    """Local workers; 1 without Dask (said once when more were asked for explicitly)."""
    jobs = options.jobs if options.jobs is not None else 1
    if jobs > 1 and not dask_available():
        if options.jobs is not None and options.say is not None:
            options.say(f"--jobs {jobs}: running in one process (parallel runs need Dask: {SCALE_EXTRA})")
        return 1
    return jobs


def impact(options: ImpactOptions) -> Impact:
    """Raises SnapshotError for a missing or unreadable input, EngineError when the Dask
    cluster cannot be used, live.ClusterError when the cluster cannot be read."""
    errors: list[str] = []
    objects = snapshot_files(options.objects, errors)
    logs = expand(options.audit_logs, errors, AUDIT_SUFFIXES)
    if errors:
        raise SnapshotError(errors[0])
    scheduler = _scheduler(options)
    jobs = _jobs(options)
    inputs, base = options.inputs, options.base
    notes: list[str] = []
    plan: ClusterObjects | None = None
    if options.live is not None:
        inputs, base, plan, notes = _live(options)
    targets = [i for i in (inputs, base) if i is not None]
    if objects:
        add_context(targets, iter_objects(objects))
    if plan is not None:
        add_context(targets, plan.context_objects())
    mode = "audit" if logs else "objects"
    operation = options.operation if mode == "objects" else "replay"
    setup = ImpactSetup(inputs, options.kubernetes_version, mode, operation, base, options.limit)
    if logs:
        result = _audit(options, setup, logs, scheduler, jobs)
    else:
        source: Iterator[SourceObject] = plan.objects() if plan is not None else iter_objects(objects)
        items = snapshot_items(source, operation=options.operation, user=options.user, shard=options.shard)
        result = _stream(options, setup, items, scheduler, jobs)
    if plan is not None:
        result.cluster = plan.report()
    for text in notes:
        result.note(text)
    if options.shard.count > 1:
        result.shards = [options.shard.label()]
    return result


def _live(options: ImpactOptions) -> tuple[PolicyInputs, PolicyInputs | None, ClusterObjects, list[str]]:
    from vap_lsp.impact import live

    assert options.live is not None
    cluster = live.connect(options.live.kubeconfig, options.live.context)
    inputs, base = options.inputs, options.base
    notes: list[str] = []
    if options.live.installed:
        found = live.installed(cluster)
        found.crds.extend(inputs.crds)
        found.authorizer_rules = inputs.authorizer_rules
        if inputs.policies or inputs.bindings:
            base = found
            notes.append(
                f"compared with the {len(found.policies)} policies and {len(found.bindings)} bindings "
                f"installed in the cluster ({cluster.server})"
            )
        else:
            found.params.extend(inputs.params)
            found.add_namespaces(inputs.namespaces)
            inputs = found
        notes.append(live.STATIC_NOTE)
    targets = [i for i in (inputs, base) if i is not None]
    plan = live.read_plan(cluster, targets, options.operation, param_kinds(targets))
    return inputs, base, plan, notes


def _stream(
    options: ImpactOptions,
    setup: ImpactSetup,
    items: Iterator[WorkItem],
    scheduler: str | None,
    jobs: int,
) -> Impact:
    first: list[WorkItem] = []
    if scheduler is None:
        if jobs <= 1:
            return run(setup, items, progress=options.progress)
        first = list(itertools.islice(items, CLUSTER_MIN_REQUESTS))
        if len(first) < CLUSTER_MIN_REQUESTS:  # too few to repay starting a cluster
            return run(setup, first, progress=options.progress)
    from vap_lsp.impact import scale

    with scale.cluster(scheduler, jobs, options.say) as where:
        return scale.run_stream(where, setup, itertools.chain(first, items), options.progress)


def _audit(
    options: ImpactOptions, setup: ImpactSetup, logs: list[Location], scheduler: str | None, jobs: int
) -> Impact:
    size = sum(max(loc.size(), 0) for loc in logs)
    if scheduler is None and (jobs <= 1 or size < CLUSTER_MIN_LOG_BYTES):
        stats = AuditStats({})
        result = run(setup, audit_items(logs, stats, options.shard), progress=options.progress)
        result.audit = dict(stats.counts)
        return result
    from vap_lsp.impact import scale

    with scale.cluster(scheduler, jobs, options.say) as where:
        return scale.run_audit(where, setup, logs, options.shard, options.progress)
