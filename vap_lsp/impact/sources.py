"""Where the requests come from: a cluster snapshot (each object as a CREATE, or an UPDATE with
itself as oldObject) or an audit log (each write replayed as the API server admitted it), and
which of them a shard owns.

Snapshots are read twice: first for what other objects need (Namespaces for
`namespaceSelector`/`namespaceObject`, objects of a policy's `paramKind` for `paramRef`), kept;
then for the requests, streamed. Audit logs are read once; the last state of every object
written in the log is kept, to be the next request's oldObject.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo
from vap_lsp.golang.timefmt import parse_rfc3339
from vap_lsp.impact.evaluate import WorkItem
from vap_lsp.impact.inputs import SnapshotError, SourceObject
from vap_lsp.impact.locations import Location, LocationError

VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"
_VERBS = {"create": "CREATE", "update": "UPDATE", "patch": "UPDATE", "delete": "DELETE"}


@dataclass(frozen=True)
class Shard:
    """`K/N`: the K-th of N shares of the requests (1 ≤ K ≤ N)."""

    index: int = 1
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        k, sep, n = text.partition("/")
        try:
            shard = cls(int(k), int(n))
        except ValueError:
            shard = cls(0, 0)
        if not sep or not 1 <= shard.index <= shard.count:
            raise ValueError(f"--shard {text!r}: expected K/N with 1 <= K <= N")
        return shard

    def owns(self, key: int | str) -> bool:
        """Snapshots share by position; audit logs by object (crc32 of its resource, namespace
        and name), so every event of one object lands in the same shard, after its history."""
        if self.count == 1:
            return True
        n = key if isinstance(key, int) else zlib.crc32(key.encode())
        return n % self.count == self.index - 1

    def label(self) -> str:
        return f"{self.index}/{self.count}"


def _param_kinds(inputs: PolicyInputs) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for p in inputs.policies:
        spec = p.get("spec")
        pk = spec.get("paramKind") if isinstance(spec, Mapping) else None
        if isinstance(pk, Mapping):
            out.add((str(pk.get("apiVersion", "")), str(pk.get("kind", ""))))
    return out


def add_context(targets: Sequence[PolicyInputs], objects: Iterable[SourceObject]) -> int:
    """Namespaces and params of the snapshot into each of `targets` (given ones win), in one
    reading; the number of objects read."""
    kinds = [_param_kinds(t) for t in targets]
    known = [{_ident(p) for p in t.params} for t in targets]
    namespaces: list[dict[str, Any]] = []
    count = 0
    for so in objects:
        count += 1
        obj = so.obj
        if obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1":
            namespaces.append(obj)
        for t, k, seen in zip(targets, kinds, known, strict=True):
            if (obj.get("apiVersion"), obj.get("kind")) in k and _ident(obj) not in seen:
                t.params.append(obj)
    for t in targets:
        t.add_namespaces(namespaces)
    return count


def _ident(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    return (
        str(obj.get("apiVersion")),
        str(obj.get("kind")),
        str(meta.get("namespace", "")),
        str(meta.get("name", "")),
    )


def param_kinds(targets: Sequence[PolicyInputs]) -> set[tuple[str, str]]:
    """(apiVersion, kind) of every policy's paramKind."""
    return set().union(*(_param_kinds(t) for t in targets))


def snapshot_items(
    objects: Iterable[SourceObject], *, operation: str, user: UserInfo, shard: Shard = Shard()
) -> Iterator[WorkItem]:
    """Each object as a request (UPDATE: itself as oldObject); raises SnapshotError."""
    for i, so in enumerate(objects):
        if not shard.owns(i):
            continue
        old = so.obj if operation == "UPDATE" else None
        if operation == "DELETE":
            yield WorkItem(AdmissionRequestInput("DELETE", None, so.obj, user))
        else:
            yield WorkItem(AdmissionRequestInput(operation, so.obj, old, user))


# --- audit logs ---------------------------------------------------------------------------------------


@dataclass
class AuditStats:
    """What the replay skipped, and why: counted apart from the replayed requests."""

    counts: dict[str, int]

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n


def audit_events(
    files: Sequence[Location], stats: AuditStats, *, count_invalid: bool = True
) -> Iterator[dict[str, Any]]:
    """`audit.k8s.io/v1` Events, one JSON object per line (gzip too); lines that are not an
    Event are counted (`invalid`), never fatal."""
    for path in files:
        try:
            stream = path.open_binary()
        except LocationError as exc:
            raise SnapshotError(str(exc)) from exc
        with stream:
            try:
                for raw in stream:
                    for event, _whole_line in events_of_line(raw, stats, count_invalid):
                        yield event
            except (OSError, EOFError) as exc:
                raise SnapshotError(f"{path}: {exc}") from exc


def events_of_line(
    raw: bytes, stats: AuditStats, count_invalid: bool = True
) -> Iterator[tuple[dict[str, Any], bool]]:
    """The Events of one line of a log (an Event, or the items of an EventList), each with
    whether it is the whole line."""
    line = raw.strip()
    if not line:
        return
    try:
        event = json.loads(line)
    except ValueError:
        stats.add("invalid", int(count_invalid))
        return
    if isinstance(event, dict) and event.get("kind") == "Event":
        yield event, True
    elif isinstance(event, dict) and event.get("kind") == "EventList":
        items = event.get("items")
        for e in items if isinstance(items, list) else []:
            if isinstance(e, dict):
                yield e, False
    else:
        stats.add("invalid", int(count_invalid))


def _whole(obj: Any) -> dict[str, Any] | None:
    """An object, not a Status or a patch."""
    if isinstance(obj, dict) and obj.get("apiVersion") and obj.get("kind") and obj.get("kind") != "Status":
        return obj
    return None


def _user(event: Mapping[str, Any]) -> UserInfo:
    """The user admission saw: the impersonated one when there is one."""
    u = event.get("impersonatedUser") or event.get("user")
    u = u if isinstance(u, Mapping) else {}
    groups = u.get("groups")
    extra = u.get("extra")
    return UserInfo(
        username=str(u.get("username") or "system:anonymous"),
        uid=str(u.get("uid") or ""),
        groups=tuple(str(g) for g in groups) if isinstance(groups, list) else (),
        extra=(
            {str(k): tuple(str(x) for x in v) for k, v in extra.items() if isinstance(v, list)}
            if isinstance(extra, Mapping)
            else {}
        ),
    )


def _dry_run(event: Mapping[str, Any]) -> bool:
    uri = str(event.get("requestURI", ""))
    query = uri.partition("?")[2]
    return any(part.startswith("dryRun=") and part != "dryRun=" for part in query.split("&"))


def _recorded(event: Mapping[str, Any]) -> list[Any]:
    annotations = event.get("annotations")
    text = annotations.get(VALIDATION_FAILURE_KEY) if isinstance(annotations, Mapping) else None
    if not isinstance(text, str):
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _ref(event: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = event.get("objectRef")
    return ref if isinstance(ref, Mapping) else {}


def object_key(event: Mapping[str, Any]) -> str:
    """group/resource/namespace/name: the object an event wrote, whose history it belongs to."""
    ref = _ref(event)
    name = str(ref.get("name") or "") or _name(
        _whole(event.get("responseObject")) or _whole(event.get("requestObject"))
    )
    return f"{ref.get('apiGroup') or ''}/{ref.get('resource', '')}/{ref.get('namespace') or ''}/{name}"


def event_time(event: Mapping[str, Any]) -> int:
    """`stageTimestamp` in Unix nanoseconds (the order of an object's history); -1 when absent
    or not RFC 3339 (such events keep their place in the log)."""
    stamp = event.get("stageTimestamp")
    parsed = parse_rfc3339(stamp) if isinstance(stamp, str) else None
    return parsed[0] if parsed is not None else -1


def classify(event: Mapping[str, Any], stats: AuditStats, shard: Shard = Shard()) -> str | None:
    """The object key of a write to replay, or None for an event that is only counted: not a
    write or not complete (counted by the shard its auditID falls in), dry-run or failed
    (these change no state), or a write of another shard's object (not counted here)."""
    operation = _VERBS.get(str(event.get("verb", "")))
    complete = event.get("stage", "ResponseComplete") == "ResponseComplete"
    if operation is None or not complete:
        if shard.owns(str(event.get("auditID", ""))):
            stats.add("events")
            stats.add("notWrites" if complete else "otherStages")
        return None
    key = object_key(event)
    if not shard.owns(key):
        return None
    status = event.get("responseStatus") if isinstance(event.get("responseStatus"), Mapping) else {}
    assert isinstance(status, Mapping)
    code = status.get("code")
    if _dry_run(event):
        stats.add("events")
        stats.add("dryRun")
        return None
    if isinstance(code, int) and code >= 400:
        stats.add("events")
        stats.add("failed")
        return None
    return key


OUT_OF_ORDER = (
    "events of some objects are not in stageTimestamp order in the log: replayed in the order of "
    "the log (the Dask engine, `--jobs N` with vap-lsp[scale], orders each object's events by "
    "stageTimestamp)"
)


class Replayer:
    """Each object's writes, in the order of its history, as admission requests: oldObject is
    the state the previous write left the object in.

    The states are kept as JSON text (a quarter of the memory of the objects): memory grows
    with the objects alive in what is replayed, never with its events."""

    def __init__(self, stats: AuditStats) -> None:
        self.stats = stats
        self.state: dict[str, tuple[int, str]] = {}

    def replay(self, key: str, event: Mapping[str, Any]) -> WorkItem | None:
        """The request of a write `classify` kept; None when there is nothing to admit."""
        stats = self.stats
        operation = _VERBS[str(event.get("verb", ""))]
        ref = _ref(event)
        stats.add("events")
        response, request_obj = _whole(event.get("responseObject")), _whole(event.get("requestObject"))
        obj = response or request_obj
        namespace = str(ref.get("namespace") or "")
        name = str(ref.get("name") or "") or _name(obj)
        when = event_time(event)
        known = self.state.get(key)
        note = OUT_OF_ORDER if known is not None and 0 <= when < known[0] else None
        old = json.loads(known[1]) if known is not None else None
        if operation == "DELETE":
            old = old or obj
            self.state.pop(key, None)
            if old is None:
                stats.add("noObject")
                return None
            request = AdmissionRequestInput("DELETE", None, old, _user(event))
        else:
            if obj is None:
                stats.add("noObject")  # a patch at level Metadata/Request: the result is not logged
                self.state.pop(key, None)
                return None
            if operation == "UPDATE" and old is None:
                stats.add("unknownOldObject")
                note = note or (
                    "oldObject unknown for some updates (the object's earlier state is not in the log): "
                    "replayed with the object itself as oldObject"
                )
                old = obj
            self.state[key] = (when, json.dumps(obj, separators=(",", ":")))
            request = AdmissionRequestInput(operation, obj, old, _user(event))
        request.sub_resource = str(ref.get("subresource") or "")
        if namespace:
            request.namespace = namespace
        if name:
            request.name = name
        stats.add("replayed")
        audit = {"auditID": str(event.get("auditID", "")), "recorded": _recorded(event)}
        return WorkItem(request, audit, note)


def audit_items(files: Sequence[Location], stats: AuditStats, shard: Shard = Shard()) -> Iterator[WorkItem]:
    """Each create/update/patch/delete that completed as an admission request, in the order of
    the log: user and groups from the event, operation from the verb, object = the stored
    result (responseObject) or else a whole requestObject, oldObject = the last state of the
    same object seen earlier in the log. Dry-run and failed requests are counted apart and
    change no state. (`impact.scale` replays the same way, each object's events ordered by
    stageTimestamp.)"""
    replayer = Replayer(stats)
    for event in audit_events(files, stats, count_invalid=shard.index == 1):
        key = classify(event, stats, shard)
        if key is not None:
            item = replayer.replay(key, event)
            if item is not None:
                yield item


def _name(obj: Mapping[str, Any] | None) -> str:
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""
