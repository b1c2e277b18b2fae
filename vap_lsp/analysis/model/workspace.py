"""What the other files of a workspace contribute: CRDs, policies and their bindings.

Policies are typed from CRDs found anywhere in the workspace (as the server's type checker
resolves CRDs through discovery), and bindings are checked against the policies they name.
The index holds plain data extracted per file, so updating one file is cheap and the index
never keeps a parsed tree alive.

Invariant: cross-file findings are made only when the index is `complete` (every file of the
workspace was read); a half-scanned workspace must not produce "policy not found".

Dependencies: every query notes what it asked (a `Read`, e.g. the policies of one kind and name)
in the thread's `recording()`, and every change of the index names the reads whose answer it
changed (`WorkspaceIndex.listeners`); the server re-analyses exactly the open documents whose
last analysis made one of them. Caches that skip queries on a hit keep the reads of the miss
and `replay` them.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from vap_lsp.analysis.model.crds import CRDVersion, crd_versions
from vap_lsp.analysis.model.kustomize import carries_directives
from vap_lsp.analysis.model.objects import K8sObject, object_data, own_text
from vap_lsp.lru import LruCache
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.text import Span
from vap_lsp.yaml.model import ExpansionLimit, MappingNode, ScalarNode, lookup
from vap_lsp.yaml.resolve import resolve_scalar


@dataclass(frozen=True)
class PolicyEntry:
    uri: str
    kind: PolicyKind
    name: str
    span: Span = field(compare=False)  # positions move with every edit; what matters is the rest
    has_param_kind: bool = False
    params_unguarded: bool = False
    """It reads `params` without a null guard (`guarantees.params_unguarded`): a binding without
    `paramRef` makes it fail."""


@dataclass(frozen=True)
class BindingEntry:
    uri: str
    kind: PolicyKind
    name: str
    policy_name: str
    span: Span = field(compare=False)  # of the policyName value
    has_param_ref: bool = False
    match_rules: str | None = None
    """Its `spec.matchResources` `resourceRules` and `excludeResourceRules` (with `matchPolicy`)
    as canonical JSON (None: it has neither, so it matches every request its policy does)."""


@dataclass(frozen=True)
class ObjectEntry:
    """Any object of the workspace, for navigation (param objects, symbols) across files."""

    uri: str
    api_version: str
    kind: str
    namespace: str | None
    name: str
    span: Span = field(compare=False)  # of the metadata.name value
    object_span: Span = field(compare=False)  # of the whole object
    param_kind: tuple[str, str] | None = None  # a policy's spec.paramKind (apiVersion, kind)


@dataclass(eq=True)
class _FileEntry:
    crds: list[CRDVersion] = field(default_factory=list)
    policies: list[PolicyEntry] = field(default_factory=list)
    bindings: list[BindingEntry] = field(default_factory=list)
    objects: list[ObjectEntry] = field(default_factory=list)


_BINDING_OF = {PolicyKind.VAPB: PolicyKind.VAP, PolicyKind.MAPB: PolicyKind.MAP}


def _add_object(uri: str, obj: K8sObject, entry: _FileEntry) -> None:
    name_node, _, found = lookup(obj.node, ("metadata", "name"))
    if len(found) != 2 or not isinstance(name_node, ScalarNode) or not name_node.value:
        return
    ns_node, _, ns_found = lookup(obj.node, ("metadata", "namespace"))
    namespace = ns_node.value if len(ns_found) == 2 and isinstance(ns_node, ScalarNode) else None
    param_kind: tuple[str, str] | None = None
    pk_version, _, v_found = lookup(obj.node, ("spec", "paramKind", "apiVersion"))
    pk_kind, _, k_found = lookup(obj.node, ("spec", "paramKind", "kind"))
    if (
        len(v_found) == 3
        and len(k_found) == 3
        and isinstance(pk_version, ScalarNode)
        and isinstance(pk_kind, ScalarNode)
    ):
        param_kind = (pk_version.value, pk_kind.value)
    entry.objects.append(
        ObjectEntry(
            uri,
            obj.api_version,
            obj.kind,
            namespace,
            name_node.value,
            name_node.span,
            obj.node.span,
            param_kind,
        )
    )


def _is_mapping(obj: K8sObject, field_name: str) -> bool:
    node, _, found = lookup(obj.node, ("spec", field_name))
    return len(found) == 2 and isinstance(node, MappingNode)


def _reads_params_unguarded(obj: K8sObject, kind: PolicyKind) -> bool:
    """Only for policies with `paramKind` (the spec is converted for its expressions)."""
    # Imported here: the server creates its index before it may import CEL (start-up invariant).
    from vap_lsp.analysis.model.narrowing import params_unguarded
    from vap_lsp.analysis.model.sites import expression_sites

    spec = obj.node.get("spec")
    if not isinstance(spec, MappingNode):
        return False
    try:
        data = object_data(spec)
    except ExpansionLimit:
        return False
    if not isinstance(data, Mapping):
        return False
    return params_unguarded(expression_sites(obj.node, kind, data))


def _match_rules(obj: K8sObject) -> str | None:
    """A binding's resource rules, as `BindingEntry.match_rules` keeps them."""
    node, _, found = lookup(obj.node, ("spec", "matchResources"))
    if len(found) != 2 or not isinstance(node, MappingNode):
        return None
    try:
        data = object_data(node)
    except ExpansionLimit:
        return None
    if not isinstance(data, Mapping):
        return None
    rules = {k: data[k] for k in ("resourceRules", "excludeResourceRules") if data.get(k)}
    if rules and data.get("matchPolicy") is not None:
        rules["matchPolicy"] = data["matchPolicy"]
    return json.dumps(rules, sort_keys=True, default=str) if rules else None


def _object_entry(uri: str, obj: K8sObject) -> _FileEntry:
    """What one object contributes to the index (nothing for a strategic-merge patch: it is
    merged into an object elsewhere, not one of its own)."""
    entry = _FileEntry()
    if carries_directives(obj.node):
        return entry
    _add_object(uri, obj, entry)
    if obj.is_crd:
        try:
            data = object_data(obj.node)
        except ExpansionLimit:
            return entry
        if isinstance(data, Mapping):
            entry.crds.extend(crd_versions(data))
        return entry
    recognised = recognise(obj.api_version, obj.kind)
    if recognised is None or obj.name is None:
        return entry
    kind = recognised[0]
    # Read the few fields by node: converting every spec to Python on each keystroke cost
    # most of an edit's time on large files.
    if kind in (PolicyKind.VAP, PolicyKind.MAP):
        meta = obj.node.get("metadata")
        span = meta.span if meta is not None else obj.node.span
        has_param_kind = _is_mapping(obj, "paramKind")
        unguarded = has_param_kind and _reads_params_unguarded(obj, kind)
        entry.policies.append(PolicyEntry(uri, kind, obj.name, span, has_param_kind, unguarded))
    else:
        node, _, found = lookup(obj.node, ("spec", "policyName"))
        policy_name = resolve_scalar(node) if isinstance(node, ScalarNode) and len(found) == 2 else None
        if isinstance(policy_name, str):
            assert node is not None
            entry.bindings.append(
                BindingEntry(
                    uri,
                    kind,
                    obj.name,
                    policy_name,
                    node.span,
                    _is_mapping(obj, "paramRef"),
                    _match_rules(obj),
                )
            )
    return entry


# What an object contributes, by its text, with spans relative to its start and no URI: an edit
# re-reads only the objects whose text changed (reading the others' nodes, and converting a
# CRD's whole tree, cost most of an index update). Bounded like the engine's object results:
# 4,096 entries and objects of 16 million characters beyond the objects of the file being
# indexed, which always fit.
_ENTRIES: LruCache[str, _FileEntry] = LruCache(4096, weigh=lambda key, _: len(key), max_weight=16_000_000)


def _shifted(span: Span, d: int) -> Span:
    return Span(span.start + d, span.end + d)


def _place(facts: _FileEntry, uri: str, d: int, entry: _FileEntry) -> None:
    """`facts` (relative, no URI) added to `entry` for `uri`, `d` characters on."""
    entry.crds.extend(facts.crds)
    for o in facts.objects:
        entry.objects.append(
            ObjectEntry(
                uri,
                o.api_version,
                o.kind,
                o.namespace,
                o.name,
                _shifted(o.span, d),
                _shifted(o.object_span, d),
                o.param_kind,
            )
        )
    for p in facts.policies:
        entry.policies.append(
            PolicyEntry(uri, p.kind, p.name, _shifted(p.span, d), p.has_param_kind, p.params_unguarded)
        )
    for b in facts.bindings:
        entry.bindings.append(replace(b, uri=uri, span=_shifted(b.span, d)))


def extract(uri: str, objects: Iterable[K8sObject], text: str) -> _FileEntry:
    """The index entry of a file's objects (found in `text`); unchanged objects come from the
    cache (`objects.own_text`)."""
    entry = _FileEntry()
    objects = list(objects)
    for obj in objects:
        key = own_text(obj, text)
        if key is None:
            _place(_object_entry(uri, obj), uri, 0, entry)
            continue
        start = obj.node.span.start
        facts = _ENTRIES.get(key)
        if facts is None:
            facts = _FileEntry()
            _place(_object_entry("", obj), "", -start, facts)
            _ENTRIES.put(key, facts, extra=len(objects))  # a large file never evicts its own
        _place(facts, uri, start, entry)
    return entry


# One question asked of the index, e.g. ("policies", kind, name) or ("gvk", group, version, kind);
# None in a filter position means "any".
Read = tuple[object, ...]

_trace = threading.local()


@contextmanager
def recording() -> Iterator[set[Read]]:
    """Collect the reads of the index made by this thread inside the block (nested blocks also
    count for the outer one)."""
    outer: set[Read] | None = getattr(_trace, "reads", None)
    reads: set[Read] = set()
    _trace.reads = reads
    try:
        yield reads
    finally:
        _trace.reads = outer
        if outer is not None:
            outer |= reads


def replay(reads: Iterable[Read]) -> None:
    """Count `reads` (kept with a cached result) for the recording in progress, if any."""
    current: set[Read] | None = getattr(_trace, "reads", None)
    if current is not None:
        current.update(reads)


def _note(read: Read) -> None:
    current: set[Read] | None = getattr(_trace, "reads", None)
    if current is not None:
        current.add(read)


def _crd_reads(crd: CRDVersion) -> list[Read]:
    return [
        ("gvk", crd.group, crd.version, crd.kind),
        ("gvr", crd.group, crd.version, crd.plural),
        ("gr", crd.group, crd.plural),
        ("crds",),
    ]


def _filters(prefix: str, *values: object) -> list[Read]:
    """Every query whose answer includes an entry with these `values` (each filter set or any)."""
    out: list[Read] = [()]
    for value in values:
        out = [(*r, v) for r in out for v in (value, None)]
    return [(prefix, *r) for r in out]


def changed_reads(old: _FileEntry | None, new: _FileEntry | None) -> set[Read]:
    """The reads whose answer differs between a file's `old` and `new` entry."""
    old, new = old or _FileEntry(), new or _FileEntry()
    reads: set[Read] = set()
    if old.crds != new.crds:
        by_gvk: dict[tuple[str, str, str], tuple[list[CRDVersion], list[CRDVersion]]] = {}
        for side, crds in enumerate((old.crds, new.crds)):
            for crd in crds:
                by_gvk.setdefault((crd.group, crd.version, crd.kind), ([], []))[side].append(crd)
        for before, after in by_gvk.values():
            if before != after:  # (order counts: the first one wins)
                for crd in (*before, *after):
                    reads.update(_crd_reads(crd))
    for kind, listed in (("policies", "policies"), ("bindings", "bindings"), ("objects", "objects")):
        a, b = Counter(getattr(old, listed)), Counter(getattr(new, listed))
        for item in (a - b) + (b - a):
            if isinstance(item, PolicyEntry):
                reads.update(_filters(kind, item.kind, item.name))
                if "{{" in item.name:
                    reads.add(("templated-policies", item.kind))
            elif isinstance(item, BindingEntry):
                reads.update(_filters(kind, _BINDING_OF[item.kind], item.policy_name))
            elif isinstance(item, ObjectEntry):
                reads.update(_filters(kind, item.kind, item.name, item.api_version))
    return reads


class WorkspaceIndex:
    """Thread-safe: the server updates it from analysis threads and reads it from features."""

    def __init__(self) -> None:
        self._files: dict[str, _FileEntry] = {}
        self._lock = threading.Lock()
        # Called (in the thread that changed the index) with the URI or external source that
        # changed and the reads whose answer changed.
        self.listeners: list[Callable[[str, frozenset[Read]], None]] = []
        self.complete = False
        self.generation = 0
        # Moves only when the CRDs change: an object's own analysis reads nothing else of the
        # index but its bindings' resource rules (`binding_scopes`, part of its cache keys;
        # bindings and policies are cross-checked per file by `references`), so editing a
        # policy's name or breaking a document must not re-check every other object.
        self.crd_generation = 0
        # CRDs from outside the indexed files (`--crd`, the `vapLsp.crds` setting), by source,
        # consulted after the files' own CRDs (see `crd`).
        self._external: dict[str, tuple[CRDVersion, ...]] = {}

    def set_external_crds(self, source: str, crds: Iterable[CRDVersion]) -> None:
        """Replace the CRDs given from outside the indexed files under `source` (e.g. `--crd`,
        or one workspace folder's `vapLsp.crds`); they rank below the files' own CRDs."""
        new = tuple(crds)
        with self._lock:
            old = self._external.get(source, ())
            if old == new:
                return
            if new:
                self._external[source] = new
            else:
                self._external.pop(source, None)
            self.generation += 1
            self.crd_generation += 1
        self._changed(source, changed_reads(_FileEntry(crds=list(old)), _FileEntry(crds=list(new))))

    def _changed(self, uri: str, reads: set[Read]) -> None:
        if reads:
            frozen = frozenset(reads)
            for listener in list(self.listeners):
                listener(uri, frozen)

    def is_external(self, crd: CRDVersion) -> bool:
        """Whether `crd` (as `crd` returned it) was given from outside the indexed files."""
        _note(("gvk", crd.group, crd.version, crd.kind))
        with self._lock:
            return any(c is crd for crds in self._external.values() for c in crds)

    def external_sources(self) -> list[str]:
        """The names given to `set_external_crds` that currently hold CRDs."""
        with self._lock:
            return list(self._external)

    def update(self, uri: str, objects: Iterable[K8sObject], text: str) -> None:
        """Replace a file's entry (its `objects`, found in its `text`); the generation moves only
        when what the index says changed, so editing an expression does not invalidate every
        other object's cached analysis."""
        entry = extract(uri, objects, text)
        with self._lock:
            old = self._files.get(uri)
            same = old == entry
            if not same:
                self.generation += 1
                if (old.crds if old is not None else []) != entry.crds:
                    self.crd_generation += 1
            self._files[uri] = entry  # always: spans (not compared) may have moved
        if not same:
            self._changed(uri, changed_reads(old, entry))

    def remove(self, uri: str) -> None:
        with self._lock:
            old = self._files.pop(uri, None)
            if old is not None:
                self.generation += 1
                if old.crds:
                    self.crd_generation += 1
        if old is not None:
            self._changed(uri, changed_reads(old, None))

    def uris(self) -> list[str]:
        """The files indexed (not the external CRD sources)."""
        with self._lock:
            return list(self._files)

    def _entries(self) -> list[_FileEntry]:
        with self._lock:
            return list(self._files.values())

    def _ranked_crds(self) -> list[CRDVersion]:
        """Every CRD version, the indexed files' first, then the external ones in given order."""
        with self._lock:
            files = [crd for entry in self._files.values() for crd in entry.crds]
            return files + [c for crds in self._external.values() for c in crds]

    def crd(self, group: str, version: str, kind: str, *, served_only: bool = False) -> CRDVersion | None:
        """The CRD version defining a kind: a CRD in the indexed files wins over one given from
        outside (`--crd`, `vapLsp.crds`); `served_only` for typing (the server only knows those)."""
        _note(("gvk", group, version, kind))
        for crd in self._ranked_crds():
            if crd.group == group and crd.version == version and crd.kind == kind:
                if served_only and not crd.served:
                    continue
                return crd
        return None

    def crd_kinds_for(self, group: str, version: str, resource: str) -> list[CRDVersion]:
        """Served CRD versions for a resource (the REST mapping has no others), best first."""
        resource = resource.lower()
        _note(("gvr", group, version, resource))
        return [
            crd
            for crd in self._ranked_crds()
            if crd.served and crd.group == group and crd.version == version and crd.plural == resource
        ]

    def crd_versions_of(self, group: str, resource: str) -> list[CRDVersion]:
        """Every known version of a CRD's resource (for "known under another version")."""
        resource = resource.lower()
        _note(("gr", group, resource))
        return [c for c in self._ranked_crds() if c.group == group and c.plural == resource]

    def crds(self) -> list[CRDVersion]:
        """Each (group, version, kind) once, as `crd` ranks them."""
        _note(("crds",))
        seen: set[tuple[str, str, str]] = set()
        out: list[CRDVersion] = []
        for crd in self._ranked_crds():
            key = (crd.group, crd.version, crd.kind)
            if key not in seen:
                seen.add(key)
                out.append(crd)
        return out

    def policies(self, kind: PolicyKind | None = None, name: str | None = None) -> list[PolicyEntry]:
        _note(("policies", kind, name))
        return [
            p
            for entry in self._entries()
            for p in entry.policies
            if (kind is None or p.kind is kind) and (name is None or p.name == name)
        ]

    def templated_policies(self, kind: PolicyKind) -> list[PolicyEntry]:
        """The policies of `kind` whose name holds a template action (a chart's): which rendered
        names they stand for is unknown (`model.helm.name_pattern`)."""
        _note(("templated-policies", kind))
        return [p for entry in self._entries() for p in entry.policies if p.kind is kind and "{{" in p.name]

    def bindings(
        self, policy_kind: PolicyKind | None = None, policy_name: str | None = None
    ) -> list[BindingEntry]:
        _note(("bindings", policy_kind, policy_name))
        return [
            b
            for entry in self._entries()
            for b in entry.bindings
            if (policy_kind is None or _BINDING_OF[b.kind] is policy_kind)
            and (policy_name is None or b.policy_name == policy_name)
        ]

    def binding_scopes(self, policy_kind: PolicyKind, policy_name: str | None) -> tuple[str, ...] | None:
        """The resource rules of every binding of a policy (`BindingEntry.match_rules`, "" for a
        binding without any), sorted: what narrows the requests the policy sees. None when that
        is not known: the index is not complete, or no binding names the policy."""
        if policy_name is None or not self.complete:
            return None
        found = self.bindings(policy_kind, policy_name)
        return tuple(sorted(b.match_rules or "" for b in found)) if found else None

    def bindings_in(self, uri: str) -> list[BindingEntry]:
        """The bindings of one file (its own analysis reads them: no dependency on others)."""
        with self._lock:
            entry = self._files.get(uri)
            return list(entry.bindings) if entry is not None else []

    @staticmethod
    def policy_kind_of(binding_kind: PolicyKind) -> PolicyKind:
        return _BINDING_OF[binding_kind]

    def objects(
        self, kind: str | None = None, name: str | None = None, api_version: str | None = None
    ) -> list[ObjectEntry]:
        """Objects of every indexed file (any kind), optionally filtered."""
        _note(("objects", kind, name, api_version))
        return [
            o
            for entry in self._entries()
            for o in entry.objects
            if (kind is None or o.kind == kind)
            and (name is None or o.name == name)
            and (api_version is None or o.api_version == api_version)
        ]


class LoneDocumentIndex(WorkspaceIndex):
    """The index of a process that reads one document and no other file (the server's startup
    analyser): `depends` notes a question the workspace could answer otherwise — a CRD lookup
    that finds nothing here (a CRD file, `vapLsp.crds` or the configuration's `crds` may have it)
    or any listing of every CRD — so that a result that could type differently is not taken for
    the workspace's. Cross-file findings need no note: they are made only with a `complete`
    index, which this one never is, and the server adds them after its scan."""

    def __init__(self) -> None:
        super().__init__()
        self.depends = False

    def crd(self, group: str, version: str, kind: str, *, served_only: bool = False) -> CRDVersion | None:
        found = super().crd(group, version, kind, served_only=served_only)
        self.depends = self.depends or found is None
        return found

    def crd_kinds_for(self, group: str, version: str, resource: str) -> list[CRDVersion]:
        found = super().crd_kinds_for(group, version, resource)
        self.depends = self.depends or not found
        return found

    def crd_versions_of(self, group: str, resource: str) -> list[CRDVersion]:
        found = super().crd_versions_of(group, resource)
        self.depends = self.depends or not found
        return found

    def crds(self) -> list[CRDVersion]:
        self.depends = True
        return super().crds()
