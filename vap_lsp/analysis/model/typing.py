"""What a policy's CEL is typed from: the kinds `object` can be, where their schemas come from,
and what stays `dyn`.

Each kind says where its schema came from (`KindTyping.source`), and each resource rule what
it types and what it leaves `dyn` and why (`RuleTyping`, `UntypedResource`): the one walk of
`matchConstraints` mirroring the type-check controller's `typesToCheck` (reference §4.1,
`walk_rules`), which the policy context (`model.context`), the `typing-unavailable` diagnostic,
hover and the quick fix read. `paramKind` is typed the same way (`params_kind`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from vap_lsp.analysis.model.crds import CRDVersion
from vap_lsp.analysis.model.matching import GVK, MAX_TYPES_PER_RULE, crd_type, object_type
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel.types import DYN, Type
from vap_lsp.schema.store import get_schema_set
from vap_lsp.yaml.model import MappingNode, ScalarNode

__all__ = [
    "KindTyping",
    "RuleTyping",
    "SchemaSource",
    "UntypedResource",
    "VariableTyping",
    "ViewName",
    "matched_kinds",
    "params_kind",
    "params_untyped",
    "spec_name",
    "untyped_resources",
    "variable_index",
    "walk_rules",
]

SchemaSource = Literal["built-in", "workspace", "external", "none"]
"""Where a kind's schema came from: the bundled OpenAPI, a CRD of the checked files, a CRD given
from outside them (`--crd`, `vapLsp.crds`, the configuration), nowhere."""

UntypedReason = Literal["wildcard", "subresource", "unknown", "not-served", "no-schema", "over-limit"]

ViewName = Literal["create-time", "type-check", "precise"]


@dataclass(frozen=True)
class KindTyping:
    """One matched kind: the type `object` has for it (`dyn` without a schema) and its source."""

    gvk: GVK
    object_type: Type
    source: SchemaSource

    @property
    def has_schema(self) -> bool:
        return self.source != "none"


@dataclass(frozen=True)
class UntypedResource:
    """A `resourceRules` entry (or `paramKind`) whose objects get no schema. `reason`:
    `wildcard` (a `*` group, version or resource), `subresource` (one whose object is not the
    typed main resource's kind), `unknown` (no built-in kind nor CRD serves it), `not-served`
    (a known CRD has this version with `served: false`), `no-schema` (the kind resolves, its
    CRD version has no schema) or `over-limit` (past the type checker's 10 kinds)."""

    group: str
    version: str
    resource: str
    reason: UntypedReason
    rule: int = -1
    """Index in `resourceRules` (-1: `paramKind`)."""
    gvk: GVK | None = None
    """The kind it resolves to (`no-schema`, `paramKind`)."""
    elsewhere: tuple[CRDVersion, ...] = ()
    """Served versions with a schema of the same CRD (`unknown`, `not-served`: the quick fix)."""

    def __str__(self) -> str:
        group_version = f"{self.group}/{self.version}" if self.group else self.version
        return f"{group_version} {self.resource or (self.gvk.kind if self.gvk else '')}"


@dataclass(frozen=True)
class RuleTyping:
    """One `resourceRules` entry: the kinds it types (in `typesToCheck` order, repeats kept) and
    what it leaves `dyn` (sorted by group, version, resource, as the walk goes)."""

    index: int
    groups: tuple[str, ...]
    versions: tuple[str, ...]
    resources: tuple[str, ...]
    """As written (the diagnostic names them in this order)."""
    typed: tuple[GVK, ...]
    untyped: tuple[UntypedResource, ...]
    typed_resources: tuple[str, ...] = ()
    """The resource each `typed` kind was found for (same order)."""


@dataclass(frozen=True)
class VariableTyping:
    """One `spec.variables` entry: vap-lsp's inferred type and what the server's compiler sees."""

    name: str
    site: ExpressionSite
    inferred: Type | None
    """The type the expression infers in the precise view (None: it does not compile)."""
    server_type: Type
    """`variables.<name>` to the server's type checker (composition.go converts object types,
    optionals, opaque types to `dyn`; a variable that fails to compile is `dyn`)."""

    @property
    def type(self) -> Type:
        """What vap-lsp types `variables.<name>` as."""
        return self.inferred if self.inferred is not None else DYN

    @property
    def more_precise(self) -> bool:
        """vap-lsp knows more than the server here (typing through it can find more)."""
        return self.inferred is not None and self.inferred != self.server_type


def spec_name(root: MappingNode) -> str | None:
    """`metadata.name` of a policy node."""
    meta = root.get("metadata")
    name = meta.get("name") if isinstance(meta, MappingNode) else None
    return name.value if isinstance(name, ScalarNode) and name.value else None


def untyped_field_note(name: str) -> str:
    """What to tell a user about a field its schema declares without a type (a Quantity, a map
    of them: `resources.limits`): `SchemaDeclType` leaves it out of the type, so the server's type
    checker warns `undefined field`, though objects at admission have it. One wording for the
    warning's related information, hover and completion."""
    return (
        f"'{name}' is in the schema without a type, as every Quantity is: the type checker cannot "
        "see it, objects at admission have it; dyn() around the object it is selected from ends "
        "the warning"
    )


def variable_index(site: ExpressionSite) -> int:
    """Position of a variable in `spec.variables` (path `spec.variables[i].expression`)."""
    index = site.path[2] if len(site.path) > 2 else None
    return index if isinstance(index, int) else 1 << 30


def params_kind(version: str, spec: Mapping[str, Any], workspace: WorkspaceIndex | None) -> KindTyping | None:
    """`paramKind` as a kind with its schema (None: no paramKind, or one that names no kind)."""
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, Mapping):
        return None
    api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    group, _, ver = api_version.rpartition("/")
    return _kind_typing(version, GVK(group, ver, kind), workspace)


def params_untyped(params: KindTyping | None, workspace: WorkspaceIndex | None) -> UntypedResource | None:
    """`paramKind` whose kind has no schema (`params` is `dyn`): why, and where its CRD is served."""
    if params is None or params.has_schema:
        return None
    gvk = params.gvk
    reason: UntypedReason = "unknown"
    elsewhere: tuple[CRDVersion, ...] = ()
    if workspace is not None:
        own = workspace.crd(gvk.group, gvk.version, gvk.kind)
        if own is not None:
            reason = "no-schema" if own.served else "not-served"
        elsewhere = tuple(
            c
            for c in workspace.crds()
            if c.group == gvk.group
            and c.kind == gvk.kind
            and c.version != gvk.version
            and c.served
            and c.schema is not None
        )
    return UntypedResource(gvk.group, gvk.version, "", reason, -1, gvk, elsewhere)


def _kind_typing(version: str, gvk: GVK, workspace: WorkspaceIndex | None) -> KindTyping:
    """A built-in kind from the bundled schemas, else a served CRD version: one in the indexed
    files first, then one given with `--crd` / `vapLsp.crds` (`WorkspaceIndex.crd`)."""
    builtin = object_type(version, gvk)
    if builtin is not None:
        return KindTyping(gvk, builtin, "built-in")
    crd = workspace.crd(gvk.group, gvk.version, gvk.kind, served_only=True) if workspace is not None else None
    found = crd_type(version, crd) if crd is not None else None
    if crd is None or found is None:
        return KindTyping(gvk, DYN, "none")
    assert workspace is not None
    return KindTyping(gvk, found, "external" if workspace.is_external(crd) else "workspace")


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _elsewhere(
    workspace: WorkspaceIndex | None, group: str, version: str, resource: str
) -> tuple[CRDVersion, ...]:
    if workspace is None:
        return ()
    return tuple(
        c
        for c in workspace.crd_versions_of(group, resource)
        if c.version != version and c.served and c.schema is not None
    )


def walk_rules(
    spec: Mapping[str, Any], version: str, workspace: WorkspaceIndex | None
) -> tuple[list[RuleTyping], list[KindTyping]]:
    """Each resource rule's typing, and the matched kinds (sorted, each typed once), as
    `typesToCheck` resolves them (reference §4.1): rules with `*` in apiGroups/apiVersions are
    skipped whole, `*` and subresource entries dropped, each (group, version, resource) mapped
    through the REST mapping (built-in kinds, then served CRD versions), and everything after
    the 10th kind of a rule skipped (the controller returns there, so later rules get nothing
    either)."""
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    if not isinstance(rules, list):
        return [], []
    schema_set = get_schema_set(version)
    walked: list[RuleTyping] = []
    found: dict[GVK, KindTyping] = {}
    typed_resources: dict[tuple[str, str, str], GVK] = {}
    limit_reached = False
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        groups, versions = _strings(rule.get("apiGroups")), _strings(rule.get("apiVersions"))
        resources = _strings(rule.get("resources"))
        if not groups or not versions or not resources:
            continue
        combos = [(g, v, r) for g in sorted(groups) for v in sorted(versions) for r in sorted(resources)]
        written = (tuple(groups), tuple(versions), tuple(resources))
        if any("*" in g for g in groups) or any("*" in v for v in versions):
            untyped = tuple(UntypedResource(g, v, r, "wildcard", index) for g, v, r in combos)
            walked.append(RuleTyping(index, *written, (), untyped))
            continue
        out: list[UntypedResource] = []
        typed: list[GVK] = []
        typed_names: list[str] = []
        count = 0
        for group, ver, resource in combos:
            if "*" in resource.split("/")[0]:
                out.append(UntypedResource(group, ver, resource, "wildcard", index))
            elif "/" in resource:
                out.append(UntypedResource(group, ver, resource, "subresource", index))
            elif limit_reached:
                out.append(UntypedResource(group, ver, resource, "over-limit", index))
            else:
                kinds = schema_set.kinds_for(group, ver, resource)[:1]
                if not kinds and workspace is not None:
                    kinds = [
                        (c.group, c.version, c.kind) for c in workspace.crd_kinds_for(group, ver, resource)
                    ]
                if not kinds:
                    reason: UntypedReason = "unknown"
                    if workspace is not None and any(
                        c.version == ver for c in workspace.crd_versions_of(group, resource)
                    ):
                        reason = "not-served"  # the CRD has this version, with served: false
                    elsewhere = _elsewhere(workspace, group, ver, resource)
                    out.append(UntypedResource(group, ver, resource, reason, index, None, elsewhere))
                    continue
                gvk = GVK(*kinds[0])
                if gvk not in found:
                    found[gvk] = _kind_typing(version, gvk, workspace)
                if not found[gvk].has_schema:
                    out.append(UntypedResource(group, ver, resource, "no-schema", index, gvk))
                else:
                    typed.append(gvk)
                    typed_names.append(resource.lower())
                    typed_resources[(group, ver, resource.lower())] = gvk
                count += 1
                if count >= MAX_TYPES_PER_RULE:
                    limit_reached = True
        walked.append(RuleTyping(index, *written, tuple(typed), tuple(out), tuple(typed_names)))
    covered = functools.partial(_typed_subresource, schema_set, typed_resources)
    walked = [
        RuleTyping(
            r.index,
            r.groups,
            r.versions,
            r.resources,
            r.typed,
            tuple(u for u in r.untyped if not covered(u)),
            r.typed_resources,
        )
        for r in walked
    ]
    return walked, [found[gvk] for gvk in sorted(found)]


def _typed_subresource(
    schema_set: Any, typed_resources: Mapping[tuple[str, str, str], GVK], u: UntypedResource
) -> bool:
    """A subresource whose object is the main resource's kind (`pods/ephemeralcontainers`,
    `deployments/status`) when the policy types that resource: the type checker already checks
    the expressions against that kind. Others (`deployments/scale` is a Scale) stay untyped."""
    if u.reason != "subresource":
        return False
    parent, _, name = u.resource.lower().partition("/")
    gvk = typed_resources.get((u.group, u.version, parent))
    if gvk is None:
        return False
    kinds = schema_set.kinds_for(u.group, u.version, u.resource)[:1]
    if not kinds:  # a CRD: its status subresource is the object itself, scale is a Scale
        return name == "status"
    return bool(GVK(*kinds[0]) == gvk)


def untyped_resources(
    spec: Mapping[str, Any], version: str, workspace: WorkspaceIndex | None
) -> list[UntypedResource]:
    """Every `resourceRules` entry whose objects are `dyn`, with why (see `UntypedResource`)."""
    return [u for rule in walk_rules(spec, version, workspace)[0] for u in rule.untyped]


def matched_kinds(
    spec: Mapping[str, Any], version: str, workspace: WorkspaceIndex | None = None
) -> list[GVK]:
    """The kinds `object` can be, as the type checker resolves them (sorted; with or without a
    schema)."""
    return [k.gvk for k in walk_rules(spec, version, workspace)[1]]
