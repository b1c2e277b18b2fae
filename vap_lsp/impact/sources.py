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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo
from vap_lsp.impact.evaluate import WorkItem
from vap_lsp.impact.inputs import SnapshotError, iter_objects, open_binary

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


def add_context(targets: Sequence[PolicyInputs], files: Sequence[Path]) -> int:
    """Namespaces and params of the snapshot into each of `targets` (given ones win), in one
    reading; the number of objects read."""
    kinds = [_param_kinds(t) for t in targets]
    known = [{_ident(p) for p in t.params} for t in targets]
    namespaces: list[dict[str, Any]] = []
    count = 0
    for so in iter_objects(files):
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


def snapshot_items(
    files: Sequence[Path], *, operation: str, user: UserInfo, shard: Shard = Shard()
) -> Iterator[WorkItem]:
    """Each object as a request (UPDATE: itself as oldObject); raises SnapshotError."""
    for i, so in enumerate(iter_objects(files)):
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
    files: Sequence[Path], stats: AuditStats, *, count_invalid: bool = True
) -> Iterator[dict[str, Any]]:
    """`audit.k8s.io/v1` Events, one JSON object per line (gzip too); lines that are not an
    Event are counted (`invalid`), never fatal."""
    for path in files:
        try:
            stream = open_binary(path)
        except OSError as exc:
            raise SnapshotError(f"{path}: {exc.strerror or exc}") from exc
        with stream:
            try:
                for raw in stream:
                    line = raw.strip()
                    if not line:
                        continue
                    try:
                        event = json.loads(line)
                    except ValueError:
                        stats.add("invalid", int(count_invalid))
                        continue
                    if isinstance(event, dict) and event.get("kind") == "Event":
                        yield event
                    elif isinstance(event, dict) and event.get("kind") == "EventList":
                        items = event.get("items")
                        for e in items if isinstance(items, list) else []:
                            if isinstance(e, dict):
                                yield e
                    else:
                        stats.add("invalid", int(count_invalid))
            except (OSError, EOFError) as exc:
                raise SnapshotError(f"{path}: {exc}") from exc


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


def audit_items(files: Sequence[Path], stats: AuditStats, shard: Shard = Shard()) -> Iterator[WorkItem]:
    """Each create/update/patch/delete that completed as an admission request: user and groups
    from the event, operation from the verb, object = the stored result (responseObject) or
    else a whole requestObject, oldObject = the last state of the same object seen earlier in
    the log. Dry-run and failed requests are counted apart and change no state.

    The states are kept as JSON text (a quarter of the memory of the objects): memory grows
    with the objects alive in the log, never with its events."""
    state: dict[str, str] = {}
    for i, event in enumerate(audit_events(files, stats, count_invalid=shard.index == 1)):
        operation = _VERBS.get(str(event.get("verb", "")))
        complete = event.get("stage", "ResponseComplete") == "ResponseComplete"
        if operation is None or not complete:
            if shard.owns(i):  # counted by one shard, by position
                stats.add("events")
                stats.add("notWrites" if complete else "otherStages")
            continue
        ref = event.get("objectRef") if isinstance(event.get("objectRef"), Mapping) else {}
        assert isinstance(ref, Mapping)
        response, request_obj = _whole(event.get("responseObject")), _whole(event.get("requestObject"))
        obj = response or request_obj
        namespace = str(ref.get("namespace") or "")
        name = str(ref.get("name") or "") or _name(obj)
        group = str(ref.get("apiGroup") or "")
        key = f"{group}/{ref.get('resource', '')}/{namespace}/{name}"
        if not shard.owns(key):
            continue
        stats.add("events")
        status = event.get("responseStatus") if isinstance(event.get("responseStatus"), Mapping) else {}
        assert isinstance(status, Mapping)
        code = status.get("code")
        if _dry_run(event):
            stats.add("dryRun")
            continue
        if isinstance(code, int) and code >= 400:
            stats.add("failed")
            continue
        known = state.get(key)
        old = json.loads(known) if known is not None else None
        note = None
        if operation == "DELETE":
            old = old or obj
            state.pop(key, None)
            if old is None:
                stats.add("noObject")
                continue
            request = AdmissionRequestInput("DELETE", None, old, _user(event))
        else:
            if obj is None:
                stats.add("noObject")  # a patch at level Metadata/Request: the result is not logged
                state.pop(key, None)
                continue
            if operation == "UPDATE" and old is None:
                stats.add("unknownOldObject")
                note = (
                    "oldObject unknown for some updates (the object's earlier state is not in the log): "
                    "replayed with the object itself as oldObject"
                )
                old = obj
            state[key] = json.dumps(obj, separators=(",", ":"))
            request = AdmissionRequestInput(operation, obj, old, _user(event))
        request.sub_resource = str(ref.get("subresource") or "")
        if namespace:
            request.namespace = namespace
        if name:
            request.name = name
        stats.add("replayed")
        audit = {"auditID": str(event.get("auditID", "")), "recorded": _recorded(event)}
        yield WorkItem(request, audit, note)


def _name(obj: Mapping[str, Any] | None) -> str:
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""
