"""Completion in the YAML of the four policy kinds, while it is being typed.

Keys valid at the cursor that are not there yet (snippets for nested objects and lists),
allowed values, the REST mapping of the selected Kubernetes version for resource rules
(filtered by what the rule already says), policy names and CRD kinds of the workspace, and
a skeleton for each kind in an empty document. The cursor's context comes from
`yaml_context`, which falls back to indentation when the YAML is broken at the cursor.

Multi-line snippets carry absolute indentation (the adapter inserts them as they are).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from vap_lsp.features.results import CompletionEntry, CompletionKind, CompletionResult
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.features.yaml_context import CursorContext, cursor_context, in_block_scalar
from vap_lsp.features.yaml_schema import (
    ObjectSchema,
    field_info,
    is_object,
    object_schema,
    property_names,
    schema_at,
)
from vap_lsp.policy.kinds import POLICY_GROUP, SERVED_VERSIONS, PolicyKind
from vap_lsp.schema.store import get_schema_set

_RULE_DEFINITIONS = ("NamedRuleWithOperations", "RuleWithOperations", "Rule")
_PLAIN_UNSAFE_START = set("*&!|>'\"%@`{}[],#?:-")


def _yaml_scalar(value: str, ctx: CursorContext) -> str:
    """`value` as YAML text where the cursor is (quoted when plain YAML would misread it)."""
    if ctx.quoted:
        return value
    if value == "" or value[0] in _PLAIN_UNSAFE_START or value in ("true", "false", "null", "~"):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if ": " in value or " #" in value or (ctx.in_flow and any(c in value for c in ",[]{}")):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def _snippet_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _entry(
    label: str,
    kind: CompletionKind,
    ctx: CursorContext,
    insert: str | None = None,
    *,
    detail: str | None = None,
    documentation: str | None = None,
    snippet: bool = False,
    sort: str | None = None,
) -> CompletionEntry:
    return CompletionEntry(
        label=label,
        kind=kind,
        detail=detail,
        documentation=documentation,
        insert_text=insert if insert is not None else label,
        insert_is_snippet=snippet,
        replace_span=ctx.replace,
        sort_text=sort,
        filter_text=label,
    )


# ---- skeletons ---------------------------------------------------------------------------------

_SKELETON_SPECS: dict[PolicyKind, str] = {
    PolicyKind.VAP: """\
metadata:
  name: ${1:policy-name}
spec:
  failurePolicy: ${2|Fail,Ignore|}
  matchConstraints:
    resourceRules:
      - apiGroups: ["${3:apps}"]
        apiVersions: ["${4:v1}"]
        operations: ["CREATE", "UPDATE"]
        resources: ["${5:deployments}"]
  validations:
    - expression: "${6:object.spec.replicas <= 5}"
      message: "${7:replicas must be at most 5}"
""",
    PolicyKind.VAPB: """\
metadata:
  name: ${1:binding-name}
spec:
  policyName: ${2:policy-name}
  validationActions: [${3|Deny,Warn,Audit|}]
  matchResources:
    namespaceSelector:
      matchLabels:
        ${4:environment}: ${5:test}
""",
    PolicyKind.MAP: """\
metadata:
  name: ${1:policy-name}
spec:
  failurePolicy: ${2|Fail,Ignore|}
  reinvocationPolicy: ${3|Never,IfNeeded|}
  matchConstraints:
    resourceRules:
      - apiGroups: ["${4:apps}"]
        apiVersions: ["${5:v1}"]
        operations: ["CREATE"]
        resources: ["${6:deployments}"]
  mutations:
    - patchType: ApplyConfiguration
      applyConfiguration:
        expression: >
          Object{metadata: Object.metadata{labels: {"${7:key}": "${8:value}"}}}
""",
    PolicyKind.MAPB: """\
metadata:
  name: ${1:binding-name}
spec:
  policyName: ${2:policy-name}
  matchResources:
    namespaceSelector:
      matchLabels:
        ${3:environment}: ${4:test}
""",
}


def _newest_api_version(kubernetes_version: str, kind: PolicyKind) -> str:
    schema_set = get_schema_set(kubernetes_version)
    for version in reversed(SERVED_VERSIONS[kind]):
        if schema_set.definition_for_kind(POLICY_GROUP, version, kind.kind) is not None:
            return f"{POLICY_GROUP}/{version}"
    return f"{POLICY_GROUP}/{SERVED_VERSIONS[kind][-1]}"


def _skeletons(snapshot: DocumentSnapshot, ctx: CursorContext) -> list[CompletionEntry]:
    out: list[CompletionEntry] = []
    for kind, body in _SKELETON_SPECS.items():
        api_version = _newest_api_version(snapshot.kubernetes_version, kind)
        text = f"apiVersion: {api_version}\nkind: {kind.kind}\n{body}"
        out.append(
            _entry(
                kind.kind,
                "snippet",
                ctx,
                text,
                detail=f"{api_version} skeleton",
                snippet=True,
                sort=f"0_{kind.kind}",
            )
        )
    return out


# ---- keys --------------------------------------------------------------------------------------


def _key_insert(
    name: str, schema: dict[str, Any] | None, enum: tuple[str, ...], ctx: CursorContext
) -> tuple[str, bool]:
    """Insert text (and whether it is a snippet) for a key and the start of its value."""
    if ctx.after.lstrip().startswith(":"):
        return name, False
    if ctx.in_flow:
        return f"{name}: ", False
    inner = " " * (ctx.key_column + 2)
    if schema is not None and schema.get("type") == "array":
        items = schema.get("items")
        items_object = isinstance(items, dict) and ("$ref" in items or items.get("type") == "object")
        if items_object:
            return f"{name}:\n{inner}- $0", True
        if enum:
            return f"{name}: [${{1|{','.join(enum)}|}}]", True
        return f"{name}: [$0]", True
    if is_object(schema) and not isinstance(schema.get("additionalProperties") if schema else None, dict):
        return f"{name}:\n{inner}$0", True
    if schema is not None and isinstance(schema.get("additionalProperties"), dict):
        return f"{name}:\n{inner}$0", True
    if enum:
        return f"{name}: ${{1|{','.join(enum)}|}}", True
    return f"{name}: ", False


def _key_entries(obj: ObjectSchema, ctx: CursorContext) -> list[CompletionEntry]:
    path = ctx.path
    schema = schema_at(obj, path)
    dash = ""
    if schema is not None and schema.get("type") == "array":
        path, dash = (*path, 0), "- "  # context under a list's key: the keys of a new item
        ctx = replace(ctx, key_column=ctx.key_column + 2)
    out: list[CompletionEntry] = []
    for name in property_names(obj, path):
        if name in ctx.existing_keys or (path == () and name == "status") or name.startswith("$"):
            continue
        info = field_info(obj, (*path, name))
        if info is None:
            continue
        raw = _raw_schema(obj, (*path, name))
        insert, snippet = _key_insert(name, raw, info.enum, ctx)
        insert = dash + insert
        out.append(
            _entry(
                name,
                "property",
                ctx,
                insert,
                detail=f"{info.type_text}{' (required)' if info.required else ''}",
                documentation=info.description or None,
                snippet=snippet,
                sort=f"{0 if info.required else 1}_{name}",
            )
        )
    return out


def _raw_schema(obj: ObjectSchema, path: tuple[str | int, ...]) -> dict[str, Any] | None:
    """The field's schema with its own type (`$ref` resolved, `type: array` kept)."""
    return schema_at(obj, path)


# ---- values ------------------------------------------------------------------------------------


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _values(
    values: Iterable[str], ctx: CursorContext, kind: CompletionKind = "value", detail: str | None = None
) -> list[CompletionEntry]:
    seen: set[str] = set()
    out: list[CompletionEntry] = []
    taken = set(ctx.list_values)
    for i, value in enumerate(values):
        if value in seen or value in taken:
            continue
        seen.add(value)
        label = value if value else '""'
        out.append(_entry(label, kind, ctx, _yaml_scalar(value, ctx), detail=detail, sort=f"{i:04d}"))
    return out


def _rule_values(snapshot: DocumentSnapshot, field: str, ctx: CursorContext) -> list[CompletionEntry]:
    """apiGroups, apiVersions and resources from the REST mapping, filtered by the rule."""
    schema_set = get_schema_set(snapshot.kubernetes_version)
    groups = [g for g in _strings(ctx.siblings.get("apiGroups")) if g != "*"]
    versions = [v for v in _strings(ctx.siblings.get("apiVersions")) if v != "*"]
    crds = snapshot.workspace.crds() if snapshot.workspace is not None else []
    if field == "apiGroups":
        names = ["*", *schema_set.groups(), *sorted({c.group for c in crds})]
        return _values(names, ctx, "module", "API group")
    if field == "apiVersions":
        served = schema_set.groups()
        found: list[str] = ["*"]
        for group in groups or list(served):
            found.extend(served.get(group, []))
        found.extend(c.version for c in crds if not groups or c.group in groups)
        return _values(found, ctx, "value", "API version")
    names = ["*"]
    details: dict[str, str] = {}
    for resource in schema_set.resources():
        if (groups and resource.group not in groups) or (versions and resource.version not in versions):
            continue
        names.append(resource.resource)
        details.setdefault(resource.resource, f"{resource.api_version} {resource.kind}")
        for sub in resource.subresources.values():
            full = f"{resource.resource}/{sub.name}"
            names.append(full)
            details.setdefault(full, f"{sub.group + '/' if sub.group else ''}{sub.version} {sub.kind}")
    for crd in crds:
        if (groups and crd.group not in groups) or (versions and crd.version not in versions):
            continue
        names.append(crd.plural)
        details.setdefault(crd.plural, f"{crd.group}/{crd.version} {crd.kind} (CRD)")
    entries = _values(names, ctx, "value")
    return [
        CompletionEntry(**{**e.__dict__, "detail": details.get(e.label)}) if e.label in details else e
        for e in entries
    ]


def _param_kind_values(snapshot: DocumentSnapshot, field: str, ctx: CursorContext) -> list[CompletionEntry]:
    schema_set = get_schema_set(snapshot.kubernetes_version)
    crds = snapshot.workspace.crds() if snapshot.workspace is not None else []
    if field == "apiVersion":
        names = [f"{c.group}/{c.version}" for c in crds]
        for group, versions in schema_set.groups().items():
            names.extend(f"{group}/{v}" if group else v for v in versions)
        return _values(names, ctx, "module", "API version")
    api_version = ctx.siblings.get("apiVersion")
    kinds: list[str] = []
    for crd in crds:
        if not isinstance(api_version, str) or f"{crd.group}/{crd.version}" == api_version:
            kinds.append(crd.kind)
    if isinstance(api_version, str):
        group, _, version = api_version.rpartition("/")
        kinds.extend(sorted({r.kind for r in schema_set.resources(group) if r.version == version}))
    else:
        kinds.extend(["ConfigMap", "Secret"])
    return _values(kinds, ctx, "enum", "kind")


def _policy_names(
    snapshot: DocumentSnapshot, binding: PolicyKind, ctx: CursorContext
) -> list[CompletionEntry]:
    if snapshot.workspace is None:
        return []
    policy_kind = PolicyKind.VAP if binding is PolicyKind.VAPB else PolicyKind.MAP
    names = sorted({p.name for p in snapshot.workspace.policies(policy_kind)})
    return _values(names, ctx, "value", policy_kind.kind)


def _value_entries(
    snapshot: DocumentSnapshot, obj: ObjectSchema | None, ctx: CursorContext
) -> list[CompletionEntry]:
    path = ctx.path
    if path == ("kind",):
        return _values([k.kind for k in PolicyKind], ctx, "enum", "kind")
    if path == ("apiVersion",):
        kind = next((k for k in PolicyKind if k.kind == ctx.kind), None)
        versions = SERVED_VERSIONS[kind] if kind is not None else ("v1", "v1beta1", "v1alpha1")
        return _values([f"{POLICY_GROUP}/{v}" for v in reversed(versions)], ctx, "module", "apiVersion")
    if obj is None:
        return []
    info = field_info(obj, path)
    if info is None:
        return []
    definition = (info.parent_definition or "").rsplit(".", 1)[-1]
    if definition in _RULE_DEFINITIONS and info.name in ("apiGroups", "apiVersions", "resources"):
        return _rule_values(snapshot, info.name, ctx)
    if info.path == ("spec", "paramKind", "apiVersion") or info.path == ("spec", "paramKind", "kind"):
        return _param_kind_values(snapshot, info.name, ctx)
    if info.path == ("spec", "policyName") and obj.policy_kind is not None and obj.policy_kind.is_binding:
        return _policy_names(snapshot, obj.policy_kind, ctx)
    if info.enum:
        return _values(info.enum, ctx, "enum", info.path[-1] if isinstance(info.path[-1], str) else None)
    item_schema = schema_at(obj, path)
    if item_schema is not None and item_schema.get("type") == "boolean":
        return _values(["true", "false"], ctx, "value")
    return []


def complete(snapshot: DocumentSnapshot, offset: int) -> CompletionResult | None:
    """Completion items at `offset` outside CEL, or None when there is nothing to offer."""
    if in_block_scalar(snapshot.yaml, offset):
        return None
    ctx = cursor_context(snapshot.yaml, offset)
    obj = object_schema(snapshot.kubernetes_version, ctx.api_version, ctx.kind)
    where = ctx.where
    if where == "key" and obj is not None and ctx.path:
        schema = schema_at(obj, ctx.path)
        if schema is not None and not is_object(schema) and schema.get("type") != "array":
            where = "value"  # `- ` in a list of strings
    items: list[CompletionEntry]
    if where == "key":
        if obj is None:
            if ctx.path:
                return None
            items = [] if ctx.existing_keys else _skeletons(snapshot, ctx)
            top = [k for k in ("apiVersion", "kind") if k not in ctx.existing_keys]
            items.extend(_entry(k, "property", ctx, f"{k}: ", sort=f"1_{k}") for k in top)
        else:
            items = _key_entries(obj, ctx)
    else:
        items = _value_entries(snapshot, obj, ctx)
    if not items:
        return None
    return CompletionResult(items)
