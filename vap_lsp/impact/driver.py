"""One impact run: the requests of snapshots or audit logs, sharded, admitted against the policy
set (and its base), counted. What `vap-lsp impact` calls; no formatting here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from vap_lsp.admission.api import PolicyInputs, UserInfo
from vap_lsp.impact.evaluate import ImpactSetup, run
from vap_lsp.impact.inputs import SnapshotError, snapshot_files
from vap_lsp.impact.report import DEFAULT_LIMIT, Impact
from vap_lsp.impact.sources import AuditStats, Shard, add_context, audit_items, snapshot_items

__all__ = ["ImpactOptions", "SnapshotError", "impact"]


@dataclass
class ImpactOptions:
    inputs: PolicyInputs
    kubernetes_version: str
    objects: Sequence[str] = ()
    """Snapshots; with `audit_logs`, only their Namespaces and params are used."""
    audit_logs: Sequence[str] = ()
    base: PolicyInputs | None = None
    operation: str = "CREATE"
    user: UserInfo = field(default_factory=UserInfo)
    jobs: int = 1
    shard: Shard = field(default_factory=Shard)
    progress: Callable[[int], None] | None = None
    limit: int = DEFAULT_LIMIT
    """Objects listed per binding and per kind of change (0: all); the rest are counted."""


def impact(options: ImpactOptions) -> Impact:
    """Raises SnapshotError for a missing or unreadable input."""
    errors: list[str] = []
    objects = snapshot_files(options.objects, errors)
    logs = snapshot_files(options.audit_logs, errors)
    if errors:
        raise SnapshotError(errors[0])
    if objects:
        add_context([i for i in (options.inputs, options.base) if i is not None], objects)
    stats = AuditStats({})
    mode = "audit" if logs else "objects"
    operation = options.operation if mode == "objects" else "replay"
    items = (
        audit_items(logs, stats, options.shard)
        if logs
        else snapshot_items(objects, operation=options.operation, user=options.user, shard=options.shard)
    )
    setup = ImpactSetup(
        options.inputs, options.kubernetes_version, mode, operation, options.base, options.limit
    )
    result = run(setup, items, jobs=options.jobs, progress=options.progress)
    if logs:
        result.audit = dict(stats.counts)
    if options.shard.count > 1:
        result.shards = [options.shard.label()]
    return result
