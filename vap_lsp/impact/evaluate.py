"""Admitting a stream of requests against a policy set (and its base) and counting the outcome
per binding, batch by batch: in this process (`run`), or on Dask workers (`impact.scale` calls
`evaluate` with the set `prepared_for` the run).

Each policy set is prepared once per process (`admission.api.prepare`: compiled, bindings
indexed); requests come in batches, so memory stays flat however long the stream.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, Failure, PolicyInputs, prepare
from vap_lsp.impact.report import DEFAULT_LIMIT, RANK, Bounded, Impact

if TYPE_CHECKING:
    from vap_lsp.admission.engine import PreparedInputs

BATCH = 200
MAX_MESSAGE = 1000


@dataclass
class WorkItem:
    """One request under admission and what the report says about it."""

    request: AdmissionRequestInput
    audit: dict[str, Any] | None = None
    """Audit logs: verb, auditID, and `recorded`: the server's validation_failure entries."""
    note: str | None = None


@dataclass
class ImpactSetup:
    """What every worker needs (picklable): the policy sets and how to count."""

    inputs: PolicyInputs
    version: str
    mode: str
    operation: str = "CREATE"
    base: PolicyInputs | None = None
    limit: int = DEFAULT_LIMIT


@dataclass
class _Prepared:
    setup: ImpactSetup
    now: PreparedInputs
    base: PreparedInputs | None
    catalogue: list[tuple[str, str, list[str]]] = field(default_factory=list)
    actions: dict[tuple[str, str], list[str]] = field(default_factory=dict)


def _catalogue(prepared: PreparedInputs) -> list[tuple[str, str, list[str]]]:
    """(policy, binding, validationActions) of every binding whose policy is given."""
    out: list[tuple[str, str, list[str]]] = []
    for mutating, policies in ((True, prepared.mutating), (False, prepared.validating)):
        for p in policies:
            for name, spec in prepared.bindings.get((mutating, p.name), []):
                acts = spec.get("validationActions")
                actions = [a for a in acts if isinstance(a, str)] if isinstance(acts, list) else []
                out.append((p.name, name, actions if not mutating else ["Mutate"]))
    return out


def _prepare(setup: ImpactSetup) -> _Prepared:
    # Objects of a snapshot or an audit log already passed the server's built-in validation
    # (requests it rejected are counted apart), so it is not checked again.
    now = prepare(
        setup.inputs, kubernetes_version=setup.version, report_values=False, builtin_admission=False
    )
    base = (
        prepare(setup.base, kubernetes_version=setup.version, report_values=False, builtin_admission=False)
        if setup.base is not None
        else None
    )
    catalogue = _catalogue(now)
    return _Prepared(setup, now, base, catalogue, {(p, b): a for p, b, a in catalogue})


def binding_verdicts(
    result: AdmissionResult, catalogue: list[tuple[str, str, list[str]]]
) -> dict[tuple[str, str], tuple[str, list[Failure]]]:
    """Per (policy, binding): admitted, denied, warned, audited, errors or notMatched, with the
    failures behind it (the first decided). A failed validation counts as the binding's
    strongest action (Deny, then Warn, then Audit): before switching a Warn binding to Deny,
    `warned` is what would be denied. Errors (expressions, budgets, configuration) count as
    errors whatever the failurePolicy; over params the strongest verdict wins."""
    actions = {(p, b): a for p, b, a in catalogue}
    by_policy: dict[str, list[str]] = {}
    for p, b, _a in catalogue:
        by_policy.setdefault(p, []).append(b)
    out: dict[tuple[str, str], tuple[str, list[Failure]]] = {
        (p, b): ("notMatched", []) for p, b, _a in catalogue
    }

    def put(key: tuple[str, str], verdict: str, failures: list[Failure]) -> None:
        if key in out and RANK[verdict] > RANK[out[key][0]]:
            out[key] = (verdict, failures)

    for ev in result.evaluations:
        if ev.binding is None:
            if ev.failures:
                for b in by_policy.get(ev.policy, []):
                    put((ev.policy, b), "errors", ev.failures)
            continue
        key = (ev.policy, ev.binding)
        errors = [f for f in ev.failures if f.error]
        if errors:
            put(key, "errors", errors + [f for f in ev.failures if not f.error])
        elif ev.failures:
            acts = actions.get(key, [])
            verdict = (
                "denied"
                if "Deny" in acts
                else "warned"
                if "Warn" in acts
                else "audited"
                if "Audit" in acts
                else "admitted"
            )
            put(key, verdict, ev.failures)
        elif ev.matched:
            put(key, "admitted", [])
    return out


def _identity(result: AdmissionResult) -> dict[str, Any]:
    o = result.object
    return {"kind": o.get("kind") or "", "namespace": o.get("namespace") or "", "name": o.get("name") or ""}


def _first_denial(result: AdmissionResult) -> dict[str, Any]:
    d = result.denials[0]
    return {"policy": d.policy, "binding": d.binding, "message": _short(d.message)}


def _short(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def evaluate(prep: _Prepared, items: Iterable[WorkItem]) -> Impact:
    """The impact of `items` (one batch, or a whole stream in this process)."""
    setup = prep.setup
    out = Impact(setup.version, setup.mode, setup.operation, limit=setup.limit)
    if setup.base is not None:
        out.compare_with_base()
    for item in items:
        out.requests += 1
        if item.note:
            out.note(item.note)
        result = _admit(prep.now, item.request, out)
        if result is None:
            continue
        ident = _identity(result)
        recorded = _recorded(item)
        strongest = "notMatched"
        failed: dict[tuple[str, str], str] = {}
        for (policy, binding), (verdict, failures) in binding_verdicts(result, prep.catalogue).items():
            bi = out.binding(policy, binding, prep.actions[(policy, binding)])
            bi.counts[verdict] += 1
            if RANK[verdict] > RANK[strongest]:
                strongest = verdict
            seen = recorded.get((policy, binding))
            if seen is not None:
                bi.recorded += 1
            if not failures and seen is None:
                continue
            row: dict[str, Any] = {**ident, "verdict": verdict}
            if failures:
                row["message"] = _short(failures[0].message)
                row["field"] = failures[0].field
                for f in failures:
                    failed.setdefault((policy, f.field), _short(f.message))
            if item.audit is not None:
                row["operation"] = item.request.operation
                row["auditID"] = item.audit.get("auditID", "")
                if seen is not None:
                    row["recorded"] = _short(seen)
            bi.objects.add(row)
        for (policy, fld), message in failed.items():
            out.count_failure(policy, fld, message)
        out.verdicts[strongest] += 1
        out.count_namespace(ident["namespace"], strongest)
        if prep.base is not None and out.changes is not None:
            before = _admit(prep.base, item.request, out, count=False)
            if before is not None:
                _compare(out.changes, ident, before, result)
    return out


def _admit(
    prepared: PreparedInputs, request: AdmissionRequestInput, out: Impact, *, count: bool = True
) -> AdmissionResult | None:
    """The engine never raises by contract; should it, the request counts as an error with a
    note, and the run goes on (one object must not cost the report of millions)."""
    try:
        return prepared.admit(request)
    except Exception as exc:  # a bug in the engine
        if count:
            out.verdicts["errors"] += 1
        obj = request.object or request.old_object or {}
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        who = f"{obj.get('kind')} {meta.get('namespace', '')}/{meta.get('name')}"
        out.note(f"internal error admitting {who}: {exc!r}")
        return None


def _recorded(item: WorkItem) -> dict[tuple[str, str], str]:
    if item.audit is None:
        return {}
    out: dict[tuple[str, str], str] = {}
    for entry in item.audit.get("recorded") or []:
        if isinstance(entry, dict):
            key = (str(entry.get("policy", "")), str(entry.get("binding", "")))
            out.setdefault(key, str(entry.get("message", "")))
    return out


def _compare(
    changes: dict[str, Bounded],
    ident: dict[str, Any],
    before: AdmissionResult,
    after: AdmissionResult,
) -> None:
    """What a pull-request comment needs: requests denied now and not before, admitted now and
    denied before, denied both times with other messages."""
    if not after.allowed and before.allowed:
        changes["newlyDenied"].add({**ident, **_first_denial(after)})
    elif after.allowed and not before.allowed:
        changes["newlyAdmitted"].add({**ident, **_first_denial(before)})
    elif not after.allowed and not before.allowed:
        was = [_short(d.message) for d in before.denials]
        now = [_short(d.message) for d in after.denials]
        if was != now:
            changes["changedMessages"].add({**ident, "before": was, "after": now})


# --- preparing once per process ---------------------------------------------------------------------

_PREPARED: dict[str, _Prepared] = {}
_PREPARED_LOCK = threading.Lock()
KEEP_PREPARED = 2
"""Policy sets kept prepared per process (a long-lived Dask worker serves run after run)."""


def prepared_for(key: str, setup: ImpactSetup) -> _Prepared:
    """`setup` prepared once in this process (once per Dask worker, whatever its threads), known
    by the run's `key`; the oldest are dropped beyond KEEP_PREPARED."""
    with _PREPARED_LOCK:
        hit = _PREPARED.get(key)
        if hit is None:
            hit = _PREPARED[key] = _prepare(setup)
            while len(_PREPARED) > KEEP_PREPARED:
                del _PREPARED[next(iter(_PREPARED))]
        return hit


def batches(items: Iterable[WorkItem], size: int) -> Iterator[list[WorkItem]]:
    batch: list[WorkItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def new_impact(setup: ImpactSetup) -> Impact:
    """An empty result of this run (with the lists of changes when there is a base)."""
    total = Impact(setup.version, setup.mode, setup.operation, limit=setup.limit)
    if setup.base is not None:
        total.compare_with_base()
    return total


def run(
    setup: ImpactSetup,
    items: Iterable[WorkItem],
    *,
    progress: Callable[[int], None] | None = None,
) -> Impact:
    """The impact of every item, in this process: batch by batch (progress after each)."""
    total = new_impact(setup)
    prep = _prepare(setup)
    done = 0
    for batch in batches(items, BATCH):
        total.add(evaluate(prep, batch))
        done += len(batch)
        if progress is not None:
            progress(done)
    return total
