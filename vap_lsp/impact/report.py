"""The impact of a policy set over many requests: counts per binding, the objects each binding
fails, the top failing validations, per namespace, audit-log replay counts and, against a base,
the changes. Mergeable (`merge`): batches of a parallel run, shards of a fleet, are summed.

Why counts, and bounded lists: memory stays flat in the number of requests. Each list of
objects keeps the first `limit` rows in a fixed order (namespace, kind, name, …) and counts the
rest, so a run, its shards merged and a parallel run keep the very same rows.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("admitted", "denied", "warned", "audited", "errors", "notMatched")
"""Per request and binding, the first that holds from the right to the left of RANK."""
RANK = {"notMatched": 0, "admitted": 1, "audited": 2, "warned": 3, "denied": 4, "errors": 5}
FAILED = ("denied", "warned", "audited", "errors")
CHANGES = ("newlyDenied", "newlyAdmitted", "changedMessages")
FORMAT_VERSION = 1
MAX_NOTES = 100
DEFAULT_LIMIT = 1000
"""Objects listed per binding and per kind of change (0: all)."""


@dataclass
class Bounded:
    """The first `limit` rows in `_order` of all rows added (0: every row), and how many were
    added in all."""

    limit: int = DEFAULT_LIMIT
    rows: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0

    def add(self, row: dict[str, Any]) -> None:
        self.total += 1
        self.rows.append(row)
        if self.limit and len(self.rows) >= 2 * self.limit:
            self._trim()

    def extend(self, other: Bounded) -> None:
        self.total += other.total
        self.rows.extend(other.rows)
        if self.limit and len(self.rows) >= 2 * self.limit:
            self._trim()

    def _trim(self) -> None:
        self.rows.sort(key=_order)
        del self.rows[self.limit :]

    def sorted(self) -> list[dict[str, Any]]:
        self.rows.sort(key=_order)
        if self.limit:
            del self.rows[self.limit :]
        return list(self.rows)

    @property
    def omitted(self) -> int:
        return self.total - len(self.sorted())


class MergeError(Exception):
    """Results that cannot be summed (another Kubernetes version, another mode, not a result)."""


@dataclass
class BindingImpact:
    policy: str
    binding: str
    actions: list[str]
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    objects: Bounded = field(default_factory=Bounded)
    """Each request the binding failed: kind, namespace, name, verdict, message, field (and
    for audit logs the event's verb, auditID and what the server recorded)."""
    recorded: int = 0
    """Audit logs: requests for which the server itself recorded a failure of this binding."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"policy": self.policy, "binding": self.binding, "actions": self.actions}
        out.update(self.counts)
        out["recorded"] = self.recorded
        out["objects"] = self.objects.sorted()
        out["objectsOmitted"] = self.objects.omitted
        return out


@dataclass
class Impact:
    kubernetes_version: str
    mode: str
    """`objects` (a snapshot) or `audit` (an audit log)."""
    operation: str = "CREATE"
    requests: int = 0
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    """Per request: the strongest verdict over every binding."""
    bindings: dict[tuple[str, str], BindingImpact] = field(default_factory=dict)
    failures: dict[tuple[str, str], int] = field(default_factory=dict)
    """(policy, field) → requests it failed (a validation or an error)."""
    examples: dict[tuple[str, str], str] = field(default_factory=dict)
    """(policy, field) → one of its messages (the least, so any order of merging agrees)."""
    namespaces: dict[str, dict[str, int]] = field(default_factory=dict)
    audit: dict[str, int] = field(default_factory=dict)
    changes: dict[str, Bounded] | None = None
    shards: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    limit: int = DEFAULT_LIMIT
    cluster: dict[str, Any] | None = None
    """`--cluster`: the server, the context and each list read (resource, resourceVersion,
    objects)."""

    def binding(self, policy: str, binding: str, actions: list[str]) -> BindingImpact:
        key = (policy, binding)
        hit = self.bindings.get(key)
        if hit is None:
            hit = BindingImpact(policy, binding, list(actions), objects=Bounded(self.limit))
            self.bindings[key] = hit
        return hit

    def compare_with_base(self) -> None:
        """Lists of changes against a base (`newlyDenied`, `newlyAdmitted`, `changedMessages`)."""
        self.changes = {k: Bounded(self.limit) for k in CHANGES}

    def count_namespace(self, namespace: str, verdict: str) -> None:
        row = self.namespaces.get(namespace)
        if row is None:
            row = self.namespaces[namespace] = {"objects": 0, **dict.fromkeys(FAILED, 0)}
        row["objects"] += 1
        if verdict in FAILED:
            row[verdict] += 1

    def note(self, text: str) -> None:
        """Kept in sorted order, the first MAX_NOTES: whatever order batches are summed in (a
        Dask cluster sums them as they finish), the same notes are kept."""
        if text in self.notes:
            return
        if len(self.notes) >= MAX_NOTES and text > self.notes[-1]:
            return
        bisect.insort(self.notes, text)
        del self.notes[MAX_NOTES:]

    def count_failure(self, policy: str, fld: str, message: str) -> None:
        key = (policy, fld)
        self.failures[key] = self.failures.get(key, 0) + 1
        known = self.examples.get(key)
        if known is None or message < known:
            self.examples[key] = message

    def top_failures(self, limit: int = 10) -> list[dict[str, Any]]:
        rows = sorted(self.failures.items(), key=lambda kv: (-kv[1], kv[0]))
        return [self._failure_row(key, n) for key, n in rows[:limit]]

    def _failure_row(self, key: tuple[str, str], n: int) -> dict[str, Any]:
        return {"policy": key[0], "field": key[1], "message": self.examples.get(key, ""), "count": n}

    def add(self, other: Impact) -> None:
        """Sum `other` into this one (same version and mode)."""
        if (other.kubernetes_version, other.mode, other.operation) != (
            self.kubernetes_version,
            self.mode,
            self.operation,
        ):
            raise MergeError(
                "results of different runs: Kubernetes "
                f"{self.kubernetes_version}/{other.kubernetes_version}, "
                f"{self.mode}/{other.mode}, {self.operation}/{other.operation}"
            )
        self.requests += other.requests
        _add_counts(self.verdicts, other.verdicts)
        for key, b in other.bindings.items():
            mine = self.binding(key[0], key[1], b.actions)
            _add_counts(mine.counts, b.counts)
            mine.objects.extend(b.objects)
            mine.recorded += b.recorded
        for key, n in other.failures.items():
            self.failures[key] = self.failures.get(key, 0) + n
            message = other.examples.get(key, "")
            if key not in self.examples or message < self.examples[key]:
                self.examples[key] = message
        for ns, row in other.namespaces.items():
            _add_counts(self.namespaces.setdefault(ns, dict.fromkeys(row, 0)), row)
        _add_counts(self.audit, other.audit)
        if other.changes is not None:
            if self.changes is None:
                self.compare_with_base()
            assert self.changes is not None
            for k, rows in other.changes.items():
                self.changes.setdefault(k, Bounded(self.limit)).extend(rows)
        self.shards.extend(s for s in other.shards if s not in self.shards)
        if self.cluster is None:
            self.cluster = other.cluster
        for text in other.notes:
            self.note(text)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "formatVersion": FORMAT_VERSION,
            "kubernetesVersion": self.kubernetes_version,
            "mode": self.mode,
            "operation": self.operation,
            "requests": self.requests,
            "verdicts": dict(self.verdicts),
            "bindings": [self.bindings[k].to_json() for k in sorted(self.bindings)],
            "topFailures": self.top_failures(),
            "failures": [self._failure_row(key, n) for key, n in sorted(self.failures.items())],
            "namespaces": [{"namespace": ns, **self.namespaces[ns]} for ns in sorted(self.namespaces)],
        }
        if self.audit:
            out["audit"] = dict(sorted(self.audit.items()))
        if self.changes is not None:
            out["changes"] = {k: v.sorted() for k, v in self.changes.items()}
            out["changesOmitted"] = {k: v.omitted for k, v in self.changes.items()}
        out["limit"] = self.limit
        if self.shards:
            out["shards"] = sorted(self.shards)
        if self.cluster is not None:
            out["cluster"] = self.cluster
        out["notes"] = list(self.notes)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Impact:
        """A result written by `to_json`; raises MergeError when it is not one."""
        try:
            if not isinstance(data, dict) or data.get("formatVersion") != FORMAT_VERSION:
                raise MergeError("not a `vap-lsp impact --format json` result")
            out = cls(str(data["kubernetesVersion"]), str(data["mode"]), str(data["operation"]))
            out.limit = int(data["limit"])
            out.requests = int(data["requests"])
            out.verdicts = {k: int(data["verdicts"][k]) for k in VERDICTS}
            for b in data["bindings"]:
                bi = out.binding(str(b["policy"]), str(b["binding"]), [str(a) for a in b["actions"]])
                bi.counts = {k: int(b[k]) for k in VERDICTS}
                bi.objects = _bounded(out.limit, b["objects"], int(b["objectsOmitted"]))
                bi.recorded = int(b.get("recorded", 0))
            for f in data["failures"]:
                key = (str(f["policy"]), str(f["field"]))
                out.failures[key] = int(f["count"])
                out.examples[key] = str(f["message"])
            for row in data["namespaces"]:
                out.namespaces[str(row["namespace"])] = {
                    k: int(v) for k, v in row.items() if k != "namespace"
                }
            out.audit = {str(k): int(v) for k, v in data.get("audit", {}).items()}
            if "changes" in data:
                omitted = data["changesOmitted"]
                out.changes = {
                    str(k): _bounded(out.limit, v, int(omitted[k])) for k, v in data["changes"].items()
                }
            out.shards = [str(s) for s in data.get("shards", [])]
            cluster = data.get("cluster")
            out.cluster = dict(cluster) if isinstance(cluster, dict) else None
            for n in data.get("notes", []):
                out.note(str(n))
            return out
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise MergeError(f"not a `vap-lsp impact --format json` result ({exc})") from exc


def _bounded(limit: int, rows: Any, omitted: int) -> Bounded:
    listed = [dict(r) for r in rows]
    return Bounded(limit, listed, len(listed) + omitted)


def merge(results: Iterable[Impact]) -> Impact:
    """The sum of results in order; raises MergeError for none or for different runs."""
    merged: Impact | None = None
    for r in results:
        if merged is None:
            merged = Impact(r.kubernetes_version, r.mode, r.operation, limit=r.limit)
            if r.changes is not None:
                merged.compare_with_base()
        merged.add(r)
    if merged is None:
        raise MergeError("no result to merge")
    return merged


def _add_counts(mine: dict[Any, int], other: dict[Any, int]) -> None:
    for k, v in other.items():
        mine[k] = mine.get(k, 0) + v


def _order(row: dict[str, Any]) -> tuple[str, str, str, str]:
    """Objects sorted by namespace, kind, name, then everything else: a run, its shards merged,
    and a parallel run list them identically."""
    return (
        str(row.get("namespace") or ""),
        str(row.get("kind") or ""),
        str(row.get("name") or ""),
        json.dumps(row, sort_keys=True, default=str),
    )
