"""What is guaranteed to be present when an admission policy runs: one model for every check.

A create or update request reaches the policies in this order (kube-apiserver:
`endpoints/handlers/create.go` and `update.go`, `registry/generic/registry/store.go` `create`,
`registry/rest/create.go` `BeforeCreate`):

1. **decoding**: the body becomes the versioned object and is **defaulted** (the Go defaulters
   of built-in kinds, the structural-schema `default`s of custom resources); the handler sets
   the request's namespace on a namespaced object and, on create, wipes the system fields
   (`uid`, `creationTimestamp`, …);
2. **mutating admission**: kube-apiserver's default-enabled plugins first (a Pod's service
   account, priority and tolerations: `vap_lsp.defaulting.plugins`), then
   MutatingAdmissionPolicies and webhooks see that object: on CREATE a `metadata.generateName`
   has not become a `metadata.name` yet;
3. **the registry**: `FillObjectMetaSystemFields` (`uid`, `creationTimestamp`), the name
   generated from `generateName`, then `BeforeCreate`/`BeforeUpdate`: `PrepareForCreate` and
   the **built-in validation** (`strategy.Validate`: required fields, the CRD's schema; for
   built-in kinds the fields the schema leaves optional, `vap_lsp.defaulting.validation`);
4. **validating admission** (ValidatingAdmissionPolicies) sees the validated object.

So a validating policy can trust more than a mutating one. `oldObject` and `params` are stored
objects: they went through all of it when they were written. Every built-in object is converted
from its Go struct (`DefaultUnstructuredConverter`): a field the schema marks required has no
`omitempty` and is always there.

What can be null (`compile_test.go` "object null checks", `policy/generic/policy_dispatcher.go`
`CollectParams`, `matchconditions/matcher.go`): `object` on DELETE, `oldObject` on CREATE,
`namespaceObject` for cluster-scoped kinds and in every matchCondition (they run without the
namespace), `params` when the binding has no `paramRef` (with `parameterNotFoundAction: Allow`
and no param object the policy is not evaluated at all, so `params` is never null there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis.model.matching import ALL_OPERATIONS, GVK, operations_reaching
from vap_lsp.analysis.model.narrowing import Facts, replace_nulls
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.types import RESERVED_WORDS, FieldDecl, Kind, ObjectType, Type
from vap_lsp.defaulting import ITEM, VALUE, DefaultedField, defaulted_fields
from vap_lsp.defaulting.builtin import minor
from vap_lsp.defaulting.plugins import plugin_field
from vap_lsp.defaulting.server import tracks_generation
from vap_lsp.defaulting.validation import WRITES, required_field
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.schema.store import get_schema_set

__all__ = [
    "ALL_OPERATIONS",
    "Guarantee",
    "KindGuarantee",
    "NullCase",
    "Point",
    "Subject",
    "field_decl",
    "field_guarantee",
    "matched_operations",
    "null_cases",
    "per_kind_text",
    "policy_operations",
    "subject",
    "type_path",
]

_MUTATING_OPERATIONS = frozenset({"CREATE", "UPDATE", "CONNECT"})  # MAPs cannot match DELETE

STORED_ROOTS = frozenset({"oldObject", "params"})
"""Roots holding an object as stored: defaulted and validated when it was written."""


def policy_operations(policy: PolicyKind) -> frozenset[str]:
    """The operations a policy of this kind can match (`*` means these)."""
    return _MUTATING_OPERATIONS if policy is PolicyKind.MAP else ALL_OPERATIONS


def matched_operations(spec: Mapping[str, Any], policy: PolicyKind = PolicyKind.VAP) -> frozenset[str]:
    """The operations some request `matchConstraints.resourceRules` matches has, less those
    `excludeResourceRules` exclude for every such request (`matching.operations_reaching`)."""
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    if not isinstance(constraints, Mapping) or not isinstance(rules, list) or not rules:
        return frozenset()
    return operations_reaching(constraints, policy_operations(policy))


@dataclass(frozen=True)
class Point:
    """Where a policy's expressions run: mutating or validating admission, for these operations."""

    policy: PolicyKind
    operations: frozenset[str]

    @property
    def mutating(self) -> bool:
        return self.policy is PolicyKind.MAP

    @property
    def writes(self) -> frozenset[str]:
        """The matched operations that carry an `object` (CREATE, UPDATE; CONNECT carries its
        options, DELETE none)."""
        return self.operations & {"CREATE", "UPDATE"}


@dataclass(frozen=True)
class Subject:
    """The kind of the object a root holds: its identity, where its schema came from, its scope."""

    group: str
    version: str
    kind: str
    custom: bool
    """A custom resource (its `required` fields are the CRD schema's, checked by validation)."""
    namespaced: bool | None
    """None: unknown."""
    type_name: str
    """The name of its root CEL type (nested types are `<name>.<field>…`, see `type_path`)."""


@dataclass(frozen=True)
class Guarantee:
    """Whether a field is present whenever its parent is, at one point of admission, and why."""

    present: bool
    why: str
    """The reason, as hover says it: "defaulted to 1", "required by the server's validation"."""
    never: bool = False
    """Certainly absent (`metadata.namespace` of a cluster-scoped kind)."""


def type_path(owner: Type | None, field: str, root_type: str) -> tuple[str, ...] | None:
    """The field path of `owner.field` from the root of the object typed `root_type`:
    ("spec", "template", "spec", "containers", "@idx", "imagePullPolicy"). None when `owner` is
    not a type inside that object."""
    if not isinstance(owner, ObjectType):
        return None
    name = owner.name
    if name == root_type:
        return (field,)
    if not name.startswith(root_type + "."):
        return None
    return (*name[len(root_type) + 1 :].split("."), field)


_SEGMENTS = {"@idx": ITEM, "@elem": VALUE}
_UNESCAPES = (("__underscores__", "__"), ("__dot__", "."), ("__dash__", "-"), ("__slash__", "/"))


def _raw(segment: str) -> str:
    """A CEL type-path segment as the property it names (`pkg/cel/escaping.go` undone)."""
    if segment in _SEGMENTS:
        return _SEGMENTS[segment]
    if segment.startswith("__") and segment.endswith("__") and segment[2:-2] in RESERVED_WORDS:
        return segment[2:-2]
    for escaped, raw in _UNESCAPES:
        segment = segment.replace(escaped, raw)
    return segment


def _server_default(subject: Subject, path: tuple[str, ...], version: str) -> DefaultedField | None:
    """What the API server's defaulting (`vap_lsp.defaulting`: the Go defaulters of built-in
    kinds) sets at `path` whenever its parent exists. A custom resource's defaults are its
    schema's, already on the field (`FieldDecl.default`)."""
    if subject.custom:
        return None
    fields = defaulted_fields((subject.group, subject.version, subject.kind), version)
    return fields.get(tuple(_raw(s) for s in path))


_TOP = {
    "kind": "always set: every object at admission carries its kind",
    "apiVersion": "always set: every object at admission carries its apiVersion",
    "metadata": "always set: every object at admission has metadata",
}
_SYSTEM = frozenset({"uid", "creationTimestamp"})


def field_guarantee(
    root: str,
    path: tuple[str, ...],
    decl: FieldDecl | None,
    subject: Subject | None,
    point: Point,
    version: str,
) -> Guarantee:
    """Whether `<root>.<path>` is present whenever its parent is, for every operation `point`
    matches (the root being non-null: that is `root_null_cases`' concern)."""
    stored = root in STORED_ROOTS
    validated = stored or not point.mutating  # built-in validation ran before this point
    if len(path) == 1 and path[0] in _TOP:
        return Guarantee(True, _TOP[path[0]])
    if len(path) == 2 and path[0] == "metadata":
        special = _metadata_guarantee(path[1], subject, point, stored, version)
        if special is not None:
            return special
    builtin = subject is not None and not subject.custom
    if decl is not None and decl.required and builtin:
        return Guarantee(True, "required: always serialized, and required by the server's validation")
    if decl is not None and decl.has_default:
        value = f" to {decl.default}" if decl.default else ""
        return Guarantee(True, f"defaulted{value} (the schema's default, applied when the object is decoded)")
    server = _server_default(subject, path, version) if subject is not None else None
    if server is not None:
        return Guarantee(True, f"defaulted to {server.description} by the API server ({server.source})")
    plugin = (
        plugin_field(subject.group, subject.kind, tuple(_raw(s) for s in path))
        if subject is not None and not subject.custom
        else None
    )
    if plugin is not None:
        operations = plugin.mutating if point.mutating else plugin.validating
        # A stored object keeps what the plugin set when it was created, unless a controller
        # removes it later; a request's object has it on the operations the plugin covers.
        present = plugin.kept if stored else point.writes <= operations
        if present:
            return Guarantee(
                True,
                f"set by the {plugin.plugin} admission plugin (on by default) before admission "
                f"policies: {plugin.why}",
            )
        if not stored and operations & point.writes:
            return Guarantee(
                False,
                f"set by the {plugin.plugin} admission plugin on {' and '.join(sorted(operations))} "
                f"only: absent on {' and '.join(sorted(point.writes - operations))} when the request "
                "leaves it out",
            )
    validation = _validation_guarantee(subject, path, point, stored) if builtin else None
    if validation is not None:
        return validation
    if decl is not None and decl.required:
        if subject is None:
            return Guarantee(True, "required by the schema")
        if validated:
            return Guarantee(True, "required by the CRD's schema, validated before this point")
        return Guarantee(
            False,
            "required by the CRD's schema, but validated only after mutating admission: "
            "absent in a request that validation will reject",
        )
    return Guarantee(False, "optional in the schema")


def _validation_guarantee(
    subject: Subject | None, path: tuple[str, ...], point: Point, stored: bool
) -> Guarantee | None:
    """A field of a built-in kind the server's validation requires although the schema marks it
    optional (`vap_lsp.defaulting.validation`: an RC's `spec.template`, a container's `image`):
    present once validation has run, on the operations where it always rejects the object
    without it; at a mutating point it has not run yet."""
    if subject is None:
        return None
    row = required_field((subject.group, subject.version, subject.kind), tuple(_raw(s) for s in path))
    if row is None:
        return None
    why = f"required by the server's validation ({row.function})"
    if point.mutating and not stored:
        return Guarantee(
            False,
            f"{why}, which runs after mutating admission: absent in a request that validation will reject",
        )
    # A stored object went through the validation of every write that made it.
    needed = WRITES if stored else point.writes
    if needed <= row.operations:
        return Guarantee(True, why)
    only = " and ".join(sorted(row.operations))
    reason = row.unchecked or "not checked on " + " and ".join(sorted(needed - row.operations))
    return Guarantee(False, f"{why} on {only} only: {reason}")


def _metadata_guarantee(
    name: str, subject: Subject | None, point: Point, stored: bool, version: str
) -> Guarantee | None:
    if name == "namespace":
        if subject is None or subject.namespaced is None:
            return None
        if subject.namespaced:
            return Guarantee(True, "always set: the API server sets the request's namespace")
        return Guarantee(False, f"never set: {subject.kind} is cluster-scoped", never=True)
    if name == "name":
        if stored or not point.mutating or "CREATE" not in point.writes:
            return Guarantee(True, "always set: a name (or one generated from generateName) is required")
        return Guarantee(
            False,
            "absent on CREATE when the object has metadata.generateName: the name is generated "
            "after mutating admission",
        )
    if name in _SYSTEM:
        if stored or not point.mutating:
            return Guarantee(True, "always set by the API server before validating admission")
        return Guarantee(False, "set by the API server after mutating admission")
    if name == "generation" and subject is not None:
        if not tracks_generation(subject.group, subject.kind, minor(version), custom=subject.custom):
            return None  # a kind whose registry does not track it
        if stored or not point.mutating:
            return Guarantee(True, "always set: the registry sets it (1 on create) before this point")
        return Guarantee(False, "set by the registry after mutating admission (1 on create)")
    return None


def field_decl(root_type: Type, path: tuple[str, ...]) -> FieldDecl | None:
    """The declaration of the field at `path` (a `type_path`) in the object typed `root_type`:
    the same field in another matched kind (None: that kind has no such field)."""
    current: Type = root_type
    decl: FieldDecl | None = None
    for segment in path:
        if segment in _SEGMENTS:
            if current.kind not in (Kind.LIST, Kind.MAP) or not current.params:
                return None
            current, decl = current.elem_type, None
            continue
        if not isinstance(current, ObjectType):
            return None
        decl = current.fields.get(segment)
        if decl is None:
            return None
        current = decl.type
    return decl


@dataclass(frozen=True)
class KindGuarantee:
    """Whether a field is present, for one matched kind (its operations, its defaults)."""

    kind: GVK
    guarantee: Guarantee


def per_kind_text(found: list[KindGuarantee]) -> str:
    """Why, kind by kind when the kinds differ: "optional in the schema for v1 Pod; set by … for
    apps/v1 Deployment" (the kinds where it can be absent first); one reason when all agree."""
    reasons: dict[tuple[bool, str], list[GVK]] = {}
    for item in found:
        reasons.setdefault((item.guarantee.present, item.guarantee.why), []).append(item.kind)
    if len(reasons) == 1:
        return next(iter(reasons))[1]
    ordered = sorted(reasons.items(), key=lambda entry: entry[0][0])  # absent first
    return "; ".join(
        f"{why} for {', '.join(f'{g.api_version} {g.kind}' for g in gvks)}" for (_, why), gvks in ordered
    )


@functools.lru_cache(maxsize=1024)
def _builtin_namespaced(version: str, group: str, api_version: str, kind: str) -> bool | None:
    resource = get_schema_set(version).resource_for_kind(group, api_version, kind)
    return resource.namespaced if resource is not None else None


def subject(kind: KindTyping, version: str, workspace: WorkspaceIndex | None) -> Subject | None:
    """What the model needs to know of a matched (or param) kind; None without a schema."""
    if not kind.has_schema or not isinstance(kind.object_type, ObjectType):
        return None
    gvk = kind.gvk
    custom = kind.source != "built-in"
    if custom:
        crd = workspace.crd(gvk.group, gvk.version, gvk.kind, served_only=True) if workspace else None
        scope = crd.namespaced if crd is not None else None
    else:
        scope = _builtin_namespaced(version, gvk.group, gvk.version, gvk.kind)
    return Subject(gvk.group, gvk.version, gvk.kind, custom, scope, kind.object_type.name)


# --- null roots ---

CODE_OLD_OBJECT_ON_CREATE = "old-object-on-create"
CODE_OBJECT_ON_DELETE = "object-on-delete"
CODE_NAMESPACE_OBJECT_NULL = "namespace-object-null"


@dataclass(frozen=True)
class NullCase:
    """A root that is null in some requests the policy sees, and how to say so."""

    root: str
    code: str
    case: str
    """"on DELETE, which this policy matches" — completes "<root> is null …"."""
    fix: str
    facts: tuple[Facts, ...]
    """The requests where it is null, one class per kind (`narrowing.Facts`, with the operation
    that makes it null): narrowing decides the guards in them."""
    sites: Callable[[ExpressionSite], bool] = lambda site: True
    """Which sites it concerns."""
    conditions_guard: bool = True
    """Whether a guard in a matchCondition keeps those requests out (not when the case is the
    matchConditions themselves: null whatever the request)."""


def null_cases(policy: PolicyKind, requests: Callable[[str | None], list[Facts]]) -> list[NullCase]:
    """The roots that can be null where the policy's expressions run. `requests(operation)`: the
    classes of requests it sees with `operation` (None: all), one per kind (`PolicyContext.requests`)."""
    cases: list[NullCase] = []
    creates = requests("CREATE")
    if creates:
        fix = "guard with `oldObject == null || ...` or `request.operation == 'UPDATE'`"
        case = "on CREATE, which this policy matches"
        cases.append(NullCase("oldObject", CODE_OLD_OBJECT_ON_CREATE, case, fix, tuple(creates)))
    deletes = requests("DELETE") if policy is PolicyKind.VAP else []
    if deletes:
        fix = "guard with `object == null || ...` or `request.operation != 'DELETE'`"
        case = "on DELETE, which this policy matches"
        cases.append(NullCase("object", CODE_OBJECT_ON_DELETE, case, fix, tuple(deletes)))
    fix = "guard with `namespaceObject == null || ...` or `has(namespaceObject.metadata)`"
    every = requests(None)
    cluster = [f for f in every if f.namespaced is False and f.gvk is not None]
    if cluster:
        kinds = ", ".join(f"{f.gvk.api_version} {f.gvk.kind}" for f in cluster if f.gvk is not None)
        case = f"for cluster-scoped {kinds}, which this policy matches"
        cases.append(
            NullCase(
                "namespaceObject", CODE_NAMESPACE_OBJECT_NULL, case, fix, tuple(cluster),
                lambda site: site.kind is not ExpressionKind.MATCH_CONDITION,
            )
        )  # fmt: skip
    case = "in matchConditions (the server evaluates them without the namespace)"
    in_conditions = tuple(replace_nulls(f, "namespaceObject") for f in every or [Facts(None)])
    cases.append(
        NullCase(
            "namespaceObject", CODE_NAMESPACE_OBJECT_NULL, case, fix.split(" or ")[0], in_conditions,
            lambda site: site.kind is ExpressionKind.MATCH_CONDITION, False,
        )
    )  # fmt: skip
    return cases
