"""Go to definition, references and rename across a policy and the workspace.

Variables are found through the CEL AST of every expression of the policy (never by text
search, so `'variables.x'` in a string literal is not a reference), and their spans are
mapped through each scalar's decoded→source map, so edits are right in `|` blocks and in
quoted scalars alike. Cross-file targets come from the workspace index; the document being
edited counts as its current text, not as the last indexed version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.sites import expression_sites
from vap_lsp.analysis.model.workspace import ObjectEntry, extract
from vap_lsp.cel.ast import Ident, Select
from vap_lsp.cel.parser import parse
from vap_lsp.cel.types import RESERVED_WORDS, Kind, ObjectType, Type
from vap_lsp.features.edits import TextEditResult
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.features.yaml_context import node_path_at
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.text import Span
from vap_lsp.yaml.model import (
    ExpansionLimit,
    MappingNode,
    Path,
    ScalarNode,
    SequenceNode,
    deref,
    lookup,
)

_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")


@dataclass(frozen=True)
class Location:
    uri: str
    span: Span


@dataclass(frozen=True)
class VariableOccurrence:
    name: str
    span: Span  # the identifier only
    declaration: bool


def _policy_kind(obj: K8sObject) -> PolicyKind | None:
    recognised = recognise(obj.api_version, obj.kind)
    return recognised[0] if recognised is not None else None


def variable_occurrences(obj: K8sObject) -> list[VariableOccurrence]:
    """Every declaration of a variable and every `variables.<name>` in the policy's CEL."""
    kind = _policy_kind(obj)
    if kind not in (PolicyKind.VAP, PolicyKind.MAP):
        return []
    spec_node = obj.node.get("spec")
    try:
        spec = object_data(spec_node)
    except ExpansionLimit:
        return []
    if not isinstance(spec, dict):
        return []
    out: list[VariableOccurrence] = []
    variables, _, found = lookup(obj.node, ("spec", "variables"))
    if isinstance(variables, SequenceNode) and len(found) == 2:
        for raw in variables.items:
            item = deref(raw)
            name = deref(item.get("name")) if isinstance(item, MappingNode) else None
            if isinstance(name, ScalarNode) and name.value:
                out.append(VariableOccurrence(name.value, name.source_span(0, len(name.value)), True))
    for site in expression_sites(obj.node, kind, spec):
        parsed = parse(site.text)
        seen: set[int] = set()
        for node in parsed.walk():
            if (
                isinstance(node, Select)
                and isinstance(node.operand, Ident)
                and node.operand.name == "variables"
                and node.field_start not in seen
            ):
                seen.add(node.field_start)
                span = site.node.source_span(node.field_start, node.field_start + len(node.field))
                out.append(VariableOccurrence(node.field, span, False))
    return out


def _occurrence_at(snapshot: DocumentSnapshot, offset: int) -> tuple[K8sObject, VariableOccurrence] | None:
    obj = snapshot.object_at(offset)
    if obj is None:
        return None
    for occurrence in variable_occurrences(obj):
        if occurrence.span.start <= offset <= occurrence.span.end:
            return obj, occurrence
    return None


def _objects(snapshot: DocumentSnapshot) -> list[ObjectEntry]:
    """Objects of the workspace, with this document as its current text."""
    own = extract(snapshot.uri, snapshot.objects, snapshot.text).objects
    others = [o for o in snapshot.workspace.objects() if o.uri != snapshot.uri] if snapshot.workspace else []
    return own + others


def _path_at(snapshot: DocumentSnapshot, offset: int) -> tuple[K8sObject, Path, ScalarNode] | None:
    obj = snapshot.object_at(offset)
    if obj is None:
        return None
    found = node_path_at(obj.node, offset)
    if found is None or not isinstance(found[2], ScalarNode):
        return None
    return obj, found[0], found[2]


def _string_at(obj: K8sObject, path: Path) -> str | None:
    node, _, found = lookup(obj.node, path)
    return node.value if isinstance(node, ScalarNode) and len(found) == len(path) and node.value else None


def definition(snapshot: DocumentSnapshot, offset: int) -> list[Location]:
    """Where the thing under `offset` is defined: a variable, a policy, a CRD, a param object."""
    hit = _occurrence_at(snapshot, offset)
    if hit is not None:
        obj, occurrence = hit
        return [
            Location(snapshot.uri, o.span)
            for o in variable_occurrences(obj)
            if o.declaration and o.name == occurrence.name
        ]
    field = _field_definition(snapshot, offset)
    if field is not None:
        return field
    at = _path_at(snapshot, offset)
    if at is None:
        return []
    obj, path, _ = at
    kind = _policy_kind(obj)
    if kind is None:
        return []
    if kind.is_binding and path == ("spec", "policyName"):
        name = _string_at(obj, path)
        policy_kind = PolicyKind.VAP if kind is PolicyKind.VAPB else PolicyKind.MAP
        return [
            Location(o.uri, o.span)
            for o in _objects(snapshot)
            if o.kind == policy_kind.kind and o.name == name
        ]
    if not kind.is_binding and path[:2] == ("spec", "paramKind"):
        return _crd_locations(snapshot, obj)
    if kind.is_binding and path == ("spec", "paramRef", "name"):
        return _param_locations(snapshot, obj, kind)
    return []


def _field_definition(snapshot: DocumentSnapshot, offset: int) -> list[Location] | None:
    """A CEL field of an object typed from a workspace CRD (through variables and comprehension
    variables too, as the policy context types them) → its property in the CRD's schema when the
    CRD is in this document, else the CRD. None when the offset is not on such a field."""
    from vap_lsp.features.cel_context import cel_context_at  # CEL services load on first use

    ctx = cel_context_at(snapshot, offset)
    if ctx is None or ctx.checked is None or snapshot.workspace is None:
        return None
    cursor = ctx.index - ctx.result.offset
    select = next(
        (n for n in reversed(ctx.node_path()) if isinstance(n, Select) and n.field_start <= cursor <= n.end),
        None,
    )
    ref = ctx.checked.references.get(select.id) if select is not None else None
    if select is None or ref is None or ref.kind != "field" or not isinstance(ref.owner, ObjectType):
        return None
    root, *steps = ref.owner.name.split(".")
    context = ctx.policy.context
    kinds = [*context.kinds, *([context.params_kind] if context.params_kind is not None else [])]
    roots = [(k.gvk, k.object_type) for k in kinds if k.source == "workspace"]
    for gvk, typ in roots:
        crd = snapshot.workspace.crd(gvk.group, gvk.version, gvk.kind) if typ.name == root else None
        schema_path = _schema_path(typ, [*steps, select.field])
        if crd is None or schema_path is None:
            continue
        name = f"{crd.plural}.{crd.group}"
        for obj in snapshot.objects:
            if obj.kind == "CustomResourceDefinition" and obj.name == name:
                span = _schema_property(obj, gvk.version, schema_path)
                if span is not None:
                    return [Location(snapshot.uri, span)]
        return [
            Location(o.uri, o.span)
            for o in _objects(snapshot)
            if o.kind == "CustomResourceDefinition" and o.name == name
        ]
    return None


def _schema_path(root: Type, steps: list[str]) -> list[str] | None:
    """`spec.items.@idx.name` as the schema's `properties`/`items`/`additionalProperties` steps,
    with escaped CEL field names turned back into property names."""
    out: list[str] = []
    current = root
    for step in steps:
        if step in ("@idx", "@elem") and current.kind in (Kind.LIST, Kind.MAP):
            out.append("items" if step == "@idx" else "additionalProperties")
            current = current.elem_type
        elif isinstance(current, ObjectType) and step in current.fields:
            out += ["properties", current.raw_names.get(step, step)]
            current = current.fields[step].type
        else:
            return None
    return out


def _schema_property(crd: K8sObject, version: str, path: list[str]) -> Span | None:
    """The key of a property in a CRD version's openAPIV3Schema (`path`: properties/items steps)."""
    versions, _, _ = lookup(crd.node, ("spec", "versions"))
    if not isinstance(versions, SequenceNode):
        return None
    for i, item in enumerate(versions.items):
        name, _, _ = lookup(item, ("name",))
        if isinstance(name, ScalarNode) and name.value == version:
            full: Path = ("spec", "versions", i, "schema", "openAPIV3Schema", *path)
            _, key, found = lookup(crd.node, full)
            return key.span if key is not None and len(found) == len(full) else None
    return None


def _crd_locations(snapshot: DocumentSnapshot, policy: K8sObject) -> list[Location]:
    api_version = _string_at(policy, ("spec", "paramKind", "apiVersion"))
    kind = _string_at(policy, ("spec", "paramKind", "kind"))
    if api_version is None or kind is None or snapshot.workspace is None:
        return []
    group, _, version = api_version.rpartition("/")
    crd = snapshot.workspace.crd(group, version, kind)
    if crd is None:
        return []
    name = f"{crd.plural}.{crd.group}"
    return [
        Location(o.uri, o.span)
        for o in _objects(snapshot)
        if o.kind == "CustomResourceDefinition" and o.name == name
    ]


def _param_locations(snapshot: DocumentSnapshot, binding: K8sObject, kind: PolicyKind) -> list[Location]:
    name = _string_at(binding, ("spec", "paramRef", "name"))
    namespace = _string_at(binding, ("spec", "paramRef", "namespace"))
    policy_name = _string_at(binding, ("spec", "policyName"))
    objects = _objects(snapshot)
    policy_kind = PolicyKind.VAP if kind is PolicyKind.VAPB else PolicyKind.MAP
    param_kinds = {
        o.param_kind for o in objects if o.kind == policy_kind.kind and o.name == policy_name and o.param_kind
    }
    return [
        Location(o.uri, o.span)
        for o in objects
        if o.name == name
        and (namespace is None or o.namespace in (namespace, None))
        and recognise(o.api_version, o.kind) is None
        and (not param_kinds or (o.api_version, o.kind) in param_kinds)
    ]


def _binds(binding: PolicyKind, policy: PolicyKind) -> bool:
    return (binding, policy) in ((PolicyKind.VAPB, PolicyKind.VAP), (PolicyKind.MAPB, PolicyKind.MAP))


def references(snapshot: DocumentSnapshot, offset: int, include_declaration: bool = True) -> list[Location]:
    """Uses of the variable under `offset`; bindings of the policy whose name is under it."""
    hit = _occurrence_at(snapshot, offset)
    if hit is not None:
        obj, occurrence = hit
        return [
            Location(snapshot.uri, o.span)
            for o in variable_occurrences(obj)
            if o.name == occurrence.name and (include_declaration or not o.declaration)
        ]
    at = _path_at(snapshot, offset)
    if at is None:
        return []
    obj, path, node = at
    kind = _policy_kind(obj)
    if kind is None or kind.is_binding or path != ("metadata", "name") or snapshot.workspace is None:
        return []
    found = [Location(snapshot.uri, node.span)] if include_declaration else []
    for binding in snapshot.workspace.bindings(kind, node.value):
        if binding.uri != snapshot.uri:
            found.append(Location(binding.uri, binding.span))
    for other in snapshot.objects:
        other_kind = _policy_kind(other)
        if other_kind is not None and other_kind.is_binding and _binds(other_kind, kind):
            value, _, ok = lookup(other.node, ("spec", "policyName"))
            if isinstance(value, ScalarNode) and len(ok) == 2 and value.value == node.value:
                found.append(Location(snapshot.uri, value.span))
    return found


def prepare_rename(snapshot: DocumentSnapshot, offset: int) -> tuple[Span, str] | None:
    """The identifier a rename would change, and its current name."""
    hit = _occurrence_at(snapshot, offset)
    if hit is None:
        return None
    return hit[1].span, hit[1].name


class RenameError(ValueError):
    """The new name is not usable (the adapter reports the message)."""


def rename(snapshot: DocumentSnapshot, offset: int, new_name: str) -> list[TextEditResult] | None:
    """Edits renaming the variable under `offset` everywhere in its policy."""
    hit = _occurrence_at(snapshot, offset)
    if hit is None:
        return None
    if not _IDENTIFIER.fullmatch(new_name) or new_name in RESERVED_WORDS:
        raise RenameError(f"{new_name!r} is not a valid CEL identifier")
    obj, occurrence = hit
    return [TextEditResult(o.span, new_name) for o in variable_occurrences(obj) if o.name == occurrence.name]
