"""Hover on YAML keys and values: what the schema of the selected Kubernetes version says.

The description, the type, whether the field is required, the allowed values (the API
server's validation sets, since the OpenAPI documents carry no enums) and the default (the
server's defaulting included: the Go defaulters of built-in kinds, `vap_lsp.defaulting`, run
before admission). CEL inside expressions is the CEL hover's business.
"""

from __future__ import annotations

from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.features.results import HoverResult
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.features.yaml_context import document_at, node_path_at, text_path_at
from vap_lsp.features.yaml_schema import FieldInfo, ObjectSchema, field_info, object_schema
from vap_lsp.text import Span
from vap_lsp.yaml.model import Path, ScalarNode


def path_text(path: Path) -> str:
    out = ""
    for elem in path:
        out += f"[{elem}]" if isinstance(elem, int) else ("." if out else "") + elem
    return out


def _code(value: str) -> str:
    return f"`{value}`" if value else '`""`'


def render_field(info: FieldInfo, value: str | None = None) -> str:
    head = f"**{path_text(info.path)}** · `{info.type_text}` · {'required' if info.required else 'optional'}"
    parts = [head]
    if info.description:
        parts.append(info.description)
    facts: list[str] = []
    if info.enum:
        shown = ", ".join(_code(v) for v in info.enum)
        facts.append(f"Allowed values: {shown}")
        if value is not None and value not in info.enum:
            facts.append(f"`{value}` is not an allowed value")
    if info.default is not None:
        source = info.default_source
        by = f" (set by the API server before admission: {source})" if source else ""
        facts.append(f"Default: {_code(info.default)}{by}")
    if facts:
        parts.append("  \n".join(facts))
    return "\n\n".join(parts)


def _kind_hover(obj: ObjectSchema) -> str | None:
    definition = obj.schema_set.definition(obj.definition)
    if definition is None:
        return None
    name = obj.definition.rsplit(".", 1)[-1]
    description = str(definition.get("description") or "")
    return f"**{name}** (Kubernetes {obj.schema_set.version})\n\n{description}".rstrip()


def _word_span(text: str, offset: int) -> Span:
    start = offset
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in ":[]{},":
        start -= 1
    end = offset
    while end < len(text) and not text[end].isspace() and text[end] not in ":[]{},":
        end += 1
    return Span(start, end)


def hover(snapshot: DocumentSnapshot, offset: int) -> HoverResult | None:
    """Schema documentation for the key or scalar value under `offset`, or None."""
    doc = document_at(snapshot.yaml, offset)
    if doc is None:
        return None
    value: str | None = None
    obj: K8sObject | None = None
    if doc.root is not None:
        found = node_path_at(doc.root, offset)
        if found is None:
            return None
        path, where, node = found
        if not isinstance(node, ScalarNode):
            return None
        span = node.span
        obj = snapshot.object_at(offset)
        if obj is None:
            return None
        location = obj.location
        if path[: len(location)] != location:
            return None
        path = path[len(location) :]
        api_version: str | None = obj.api_version
        kind: str | None = obj.kind
        if where == "value":
            value = node.value
    else:
        text_found = text_path_at(snapshot.yaml, offset)
        if text_found is None:
            return None
        path, where, api_version, kind = text_found
        span = _word_span(snapshot.text, offset)
    schema = object_schema(snapshot.kubernetes_version, api_version, kind)
    if schema is None:
        return None
    if path in (("kind",), ("apiVersion",)) and where == "value":
        markdown = _kind_hover(schema)
        return HoverResult(span, markdown) if markdown else None
    info = field_info(schema, path)
    if info is None:
        return None
    markdown = render_field(info, value)
    if where == "key" and obj is not None and path and path[-1] in _EXPRESSION_KEYS:
        from vap_lsp.features.cel_cost import key_cost_markdown

        cost = key_cost_markdown(snapshot, obj, path)
        if cost is not None:
            markdown += "\n\n" + cost
    return HoverResult(span, markdown)


# The keys whose value is a CEL expression (`analysis.sites`): their hover adds its cost.
_EXPRESSION_KEYS = frozenset({"expression", "messageExpression", "valueExpression"})
