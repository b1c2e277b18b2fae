"""What a kustomize patch can get wrong (`analysis.kustomize` says which files and objects are
patches): a strategic-merge patch is decoded as a partial object (unknown fields, wrong types;
directive keys skipped; never required fields or create-time rules), and a JSON 6902 patch's
operations are read against the target kind's schema (an unknown operation, a path that
cannot exist in the kind, a value of the wrong type)."""

from __future__ import annotations

from vap_lsp.analysis.checks.check import Check, FileCheck, FileContext
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.kustomize import JSON6902_OPS, PatchTarget, is_directive, is_json6902
from vap_lsp.analysis.model.object_context import Role
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.served import select_schema
from vap_lsp.policy.kinds import POLICY_GROUP, recognise
from vap_lsp.schema.store import JsonDict, SchemaSet, get_schema_set
from vap_lsp.schema.structure import STRUCTURAL_CODES, check_structure, check_value
from vap_lsp.schema.walk import accepts_anything
from vap_lsp.yaml.model import MappingNode, Node, ScalarNode, SequenceNode, deref


def check_patch_object(obj: K8sObject, kubernetes_version: str) -> list[Diagnostic]:
    """A CRD or admission policy patch: strict decoding, as far as the patch goes."""
    if obj.is_crd:
        schema_set = get_schema_set(kubernetes_version)
    elif recognise(obj.api_version, obj.kind) is not None:
        schema_set = select_schema(kubernetes_version, POLICY_GROUP, obj.version, obj.kind)[0].schema_set
    else:
        return []
    definition = schema_set.definition_for_kind(obj.group, obj.version, obj.kind)
    if definition is None:
        return []
    return [
        Diagnostic(issue.span, Severity.ERROR, issue.code, issue.message, field=issue.field)
        for issue in check_structure(obj.node, schema_set, definition, directive=is_directive)
    ]


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def _field(path: str, name: str, index: bool) -> str:
    if index:
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def _resolve_path(
    schema_set: SchemaSet, root: JsonDict, pointer: str
) -> tuple[JsonDict | None, str, str | None]:
    """(schema at the pointer or None where anything goes, field path, problem or None)."""
    current: JsonDict = root
    field = ""
    for raw in pointer.split("/")[1:]:
        segment = _unescape(raw)
        resolved = schema_set.resolve(current)
        if accepts_anything(resolved) or resolved.get("x-kubernetes-preserve-unknown-fields"):
            return None, field, None
        props = resolved.get("properties")
        additional = resolved.get("additionalProperties")
        kind = resolved.get("type")
        if isinstance(props, dict) and props:
            sub = props.get(segment)
            if not isinstance(sub, dict):
                return None, field, f'unknown field "{_field(field, segment, False)}"'
            current, field = sub, _field(field, segment, False)
        elif kind == "array":
            if segment != "-" and not segment.isdigit():
                return None, field, f'"{segment}" is not an index of the list {field}'
            items = resolved.get("items")
            if not isinstance(items, dict):
                return None, field, None
            current, field = items, _field(field, segment, True)
        elif kind == "object" or isinstance(additional, dict):
            if not isinstance(additional, dict):
                return None, field, None
            current, field = additional, _field(field, segment, False)
        else:
            return None, field, f'{field or "the object"} is a {kind or "value"}: it has no field "{segment}"'
    return current, field, None


def _target_schema(target: PatchTarget | None, kubernetes_version: str) -> tuple[SchemaSet, JsonDict] | None:
    if target is None or not target.kind or not target.version:
        return None
    schema_set = get_schema_set(kubernetes_version)
    if target.group == POLICY_GROUP and recognise(f"{POLICY_GROUP}/{target.version}", target.kind):
        schema_set = select_schema(kubernetes_version, POLICY_GROUP, target.version, target.kind)[
            0
        ].schema_set
    definition = schema_set.definition_for_kind(target.group, target.version, target.kind)
    schema = schema_set.definition(definition) if definition else None
    return (schema_set, schema) if schema is not None else None


def check_json6902(root: Node, target: PatchTarget | None, kubernetes_version: str) -> list[Diagnostic]:
    """A JSON 6902 patch (a list of operations) against the built-in kind it targets."""
    ops = deref(root)
    if not isinstance(ops, SequenceNode):
        return []
    found = _target_schema(target, kubernetes_version)
    out: list[Diagnostic] = []
    for item in ops.items:
        op_node = deref(item)
        if not isinstance(op_node, MappingNode):
            continue
        op = deref(op_node.get("op"))
        if not isinstance(op, ScalarNode) or op.value not in JSON6902_OPS:
            where = op if op is not None else op_node
            out.append(
                Diagnostic(
                    where.span,
                    Severity.ERROR,
                    "json-patch",
                    f"unexpected JSON patch operation {getattr(op, 'value', '')!r} "
                    f"(expected one of {', '.join(JSON6902_OPS)})",
                )
            )
            continue
        path = deref(op_node.get("path"))
        if not isinstance(path, ScalarNode) or not path.value.startswith("/"):
            where = path if path is not None else op_node
            out.append(
                Diagnostic(
                    where.span,
                    Severity.ERROR,
                    "json-patch",
                    'JSON patch "path" must be a JSON pointer (/a/b)',
                )
            )
            continue
        if found is None:
            continue
        schema_set, schema = found
        sub, field, problem = _resolve_path(schema_set, schema, path.value)
        if problem is not None:
            assert target is not None
            out.append(
                Diagnostic(
                    path.span,
                    Severity.ERROR,
                    "json-patch",
                    f'path "{path.value}" cannot exist in a {target.kind}: {problem}',
                    field=field or None,
                )
            )
            continue
        value = op_node.get("value")
        if sub is not None and value is not None and op.value in ("add", "replace", "test"):
            for issue in check_value(value, schema_set, sub, field):
                out.append(
                    Diagnostic(issue.span, Severity.ERROR, issue.code, issue.message, field=issue.field)
                )
    return out


def json6902_patches(ctx: FileContext) -> list[Diagnostic]:
    """The JSON 6902 documents of a file a kustomization names as a patch."""
    if not ctx.is_patch:
        return []
    out: list[Diagnostic] = []
    for doc in ctx.yaml_file.documents:
        if doc.root is not None and is_json6902(doc.root):
            out.extend(check_json6902(doc.root, ctx.patch, ctx.version))
    return out


CHECK = Check(
    "patch",
    STRUCTURAL_CODES,
    Role.PATCH,
    lambda ctx: check_patch_object(ctx.obj, ctx.version),
    "A kustomize patch decoded as a partial object: unknown fields and wrong types, never what it "
    "leaves out.",
)

JSON6902_CHECK = FileCheck(
    "json6902",
    ("json-patch", *STRUCTURAL_CODES),
    json6902_patches,
    "A JSON 6902 patch's operations against the target kind's schema: unknown operations, paths "
    "that cannot exist, values of the wrong type.",
)
