"""Hover inside CEL expressions: what a name is here, and its type.

Uses the typed compile result of the expression (object typed from the first matched kind),
so a field shows its schema type and description, a root variable what it is in this kind of
expression, a function its overloads and the Kubernetes version that introduced it.
"""

from __future__ import annotations

from vap_lsp.analysis.model.coverage import typing_note
from vap_lsp.analysis.model.guarantees import field_guarantee, per_kind_text, type_path
from vap_lsp.analysis.model.typing import KindTyping, untyped_field_note
from vap_lsp.cel.ast import Call, Comprehension, Expr, Ident, Literal, Select, StructExpr
from vap_lsp.cel.types import FieldDecl, ObjectType, Type
from vap_lsp.features.cel_context import CelContext, cel_context_at, qualified
from vap_lsp.features.cel_docs import (
    KIND_NAMES,
    ROOT_DOCS,
    function_markdown,
    macro_markdown,
    macros_named,
    type_text,
)
from vap_lsp.features.results import HoverResult
from vap_lsp.features.snapshot import DocumentSnapshot

__all__ = ["hover", "hover_in_context"]


def hover(snapshot: DocumentSnapshot, offset: int) -> HoverResult | None:
    ctx = cel_context_at(snapshot, offset)
    return hover_in_context(ctx) if ctx is not None else None


def _code(text: str) -> str:
    return f"```cel\n{text}\n```"


def _result(ctx: CelContext, start: int, end: int, markdown: str) -> HoverResult:
    shift = ctx.result.offset
    return HoverResult(ctx.source_span(start + shift, end + shift), markdown)


def _type_of(ctx: CelContext, node: Expr) -> Type | None:
    checked = ctx.checked
    return checked.type_of(node) if checked is not None else None


def _root_markdown(ctx: CelContext, name: str, typ: Type | None) -> str:
    doc = ROOT_DOCS.get(name, "")
    where = KIND_NAMES.get(ctx.site.kind, ctx.site.kind.value)
    lines = [_code(f"{name}: {type_text(typ)}"), f"{doc} In {where}."]
    if name in ("object", "oldObject"):
        kinds = ctx.policy.kinds_text
        if kinds:
            typed_as = ""
            if len(ctx.policy.kinds) > 1:
                context = ctx.policy.context
                first = next((k for k in context.kinds if k.has_schema), None)
                typed_as = " (typed as the first)"
                if ctx.kind is not None and ctx.kind is not first:
                    why = (
                        "a guard rules the first out here"
                        if ctx.kind is not context.primary
                        else "no request of the first gets past the rules"
                    )
                    typed_as = f" (typed as {ctx.kind.gvk.kind}: {why})"
            lines.append(f"Matched kinds: {kinds}{typed_as}")
        else:
            lines.append("No matched kind is known (matchConstraints), so it is `dyn`.")
        lines.append(_schema_sources(ctx.policy.kinds))
    if name == "params":
        lines.append("Typed from `spec.paramKind`." if ctx.policy.has_params else "")
        params = ctx.policy.context.params_kind
        lines.append(_schema_sources((params,) if params is not None else ()))
    null = [c.case for c in ctx.policy.context.null_cases() if c.root == name and c.sites(ctx.site)]
    if null:
        lines.append(f"**At admission**: null {'; null '.join(null)}.")
    if name in ("object", "oldObject", "params"):
        # Where context is lost, as the `typing-unavailable` diagnostic says.
        note = typing_note(ctx.policy.context, name)
        lines.append(f"**Typing unavailable**: {note}." if note is not None else "")
    return "\n\n".join(line for line in lines if line)


_SOURCES = {
    "workspace": "its CRD in the checked files",
    "external": "its CRD given from outside the checked files (`--crd`, `vapLsp.crds`, configuration)",
}


def _schema_sources(kinds: tuple[KindTyping, ...]) -> str:
    """Where the schema of each kind typed from a CRD comes from (built-in kinds go unsaid)."""
    parts = [
        f"{k.gvk.api_version} {k.gvk.kind} from {_SOURCES[k.source]}" for k in kinds if k.source in _SOURCES
    ]
    return f"Schema: {'; '.join(parts)}." if parts else ""


def _variable_markdown(ctx: CelContext, name: str) -> str | None:
    var = ctx.policy.variable(name)
    if var is None:
        return None
    if var.inferred is None:
        text = [_code(f"variables.{name}: dyn"), "The expression does not compile, so it is `dyn`."]
    else:
        text = [_code(f"variables.{name}: {type_text(var.inferred)}")]
        server = type_text(var.server_type)
        if server != type_text(var.inferred):
            text.append(
                f"The API server reads it as `{server}` (object types read as `dyn` through "
                "`variables`); vap-lsp keeps the inferred type for completion and its own checks."
            )
    text.append(f"Variable `{name}` =\n\n{_code(var.site.text.strip())}")
    return "\n\n".join(text)


def _field_markdown(ctx: CelContext, node: Select) -> str:
    checked = ctx.checked
    ref = checked.references.get(node.id) if checked is not None else None
    typ = _type_of(ctx, node)
    if ref is not None and ref.kind == "field" and ref.field is not None:
        owner = ref.owner.name if isinstance(ref.owner, ObjectType) else type_text(ref.owner)
        parts = [_code(f"{node.field}: {type_text(ref.field.type)}")]
        facts = [f"Field of `{owner}`"]
        if ref.field.required:
            facts.append("required")
        if ref.field.has_default:
            facts.append("defaulted")
        parts.append(", ".join(facts) + ".")
        admission = _admission_note(ctx, node, ref.owner, ref.field)
        shape = _STRING_AT_ADMISSION.get(ref.field.format)
        if shape is not None and ref.field.type.name in _FORMATTED_TYPES:
            admission = (admission or "**At admission**:") + (
                f" It is {shape} string there, not a `{type_text(ref.field.type)}`: policies read "
                "objects as JSON (`string-at-admission`)."
            )
        if admission:
            parts.append(admission)
        if ref.field.description:
            parts.append(ref.field.description)
        return "\n\n".join(parts)
    owner_type = _type_of(ctx, node.operand)
    if isinstance(owner_type, ObjectType) and node.field in owner_type.untyped_fields:
        return "\n\n".join(
            [
                _code(f"{node.field}: untyped (Quantity)"),
                f"Field of `{owner_type.name}`: {untyped_field_note(node.field)} (the API server's "
                f"type checker warns `undefined field '{node.field}'`; select it from `dyn(...)`).",
            ]
        )
    return _code(f"{node.field}: {type_text(typ)}")


_STRING_AT_ADMISSION = {
    "date-time": "an RFC 3339",
    "date": "a `YYYY-MM-DD`",
    "duration": "a duration",
    "byte": "a base64",
}
_FORMATTED_TYPES = frozenset({"google.protobuf.Timestamp", "google.protobuf.Duration", "bytes"})


def _admission_note(ctx: CelContext, node: Select, owner: Type | None, decl: FieldDecl) -> str:
    """Whether the field is there when the policy runs, and why (`analysis.guarantees`), for the
    kind editor features type `object` as."""
    context = ctx.policy.context
    typed_as = ctx.kind or context.primary
    kind = context.subject(typed_as) if typed_as is not None else None
    subjects = context.root_subjects(kind)
    chain: Expr = node
    while isinstance(chain, Select):
        chain = chain.operand
    root = chain.name if isinstance(chain, Ident) and chain.name in subjects else None
    candidates = [root] if root is not None else [r for r in ("object", "params") if subjects[r] is not None]
    for name in candidates:
        held = subjects[name]
        path = type_path(owner, node.field, held.type_name) if held is not None else None
        if path is None and root is None:
            continue
        found = field_guarantee(name, path or (node.field,), decl, held, context.point, context.version)
        present, why = found.present, found.why
        if path is not None and name in ("object", "oldObject") and len(context.kinds) > 1:
            # Each kind the field's read can run for says why (`guarantees.kind_guarantees`).
            parsed = ctx.result.parsed
            kinds = context.kinds_at(ctx.site, parsed, node.field_start)
            per_kind = context.kind_guarantees(name, path, kinds)
            if per_kind:
                present = all(item.guarantee.present for item in per_kind)
                why = per_kind_text(per_kind)
        if present:
            return f"**At admission**: always present ({why})."
        return f"**At admission**: may be absent ({why}); read it with `has()` or `.?`."
    return ""


def _ident_hover(ctx: CelContext, node: Ident) -> HoverResult | None:
    checked = ctx.checked
    ref = checked.references.get(node.id) if checked is not None else None
    typ = _type_of(ctx, node)
    if ref is None:
        if node.start == node.end:
            return None
        return _result(ctx, node.start, node.end, _code(f"{node.name}: {type_text(typ)}"))
    if ref.kind == "local":
        text = _code(f"{node.name}: {type_text(typ)}") + "\n\nComprehension variable."
        return _result(ctx, node.start, node.end, text)
    if ref.kind == "variable":
        return _result(ctx, node.start, node.end, _root_markdown(ctx, ref.name, typ))
    if ref.kind == "type":
        return _result(
            ctx, node.start, node.end, _code(f"{node.name}: {type_text(typ)}") + "\n\nA type name."
        )
    if ref.kind == "namespace":
        return _result(ctx, node.start, node.end, f"Namespace `{ref.name}` of library functions.")
    return None


def _call_hover(ctx: CelContext, node: Call, macro: bool) -> HoverResult | None:
    if node.function_start < 0:
        return None
    name_end = node.function_start + len(node.function)
    if macro:
        receiver = node.target is not None
        text = macro_markdown(macros_named(node.function, ctx.env, receiver), ctx.env)
        if text is not None:
            text += _cost_markdown(ctx, node)
    else:
        checked = ctx.checked
        ref = checked.references.get(node.id) if checked is not None else None
        name = ref.name if ref is not None and ref.kind == "function" else node.function
        matched = ref.overload_ids if ref is not None else ()
        text = function_markdown(name, ctx.env, matched)
        typ = _type_of(ctx, node)
        if text is not None and typ is not None:
            text += f"\n\nHere: `{type_text(typ)}`"
    if text is None:
        return None
    return _result(ctx, node.function_start, name_end, text)


def _cost_markdown(ctx: CelContext, macro: Call) -> str:
    """The comprehension's share of the estimated cost, the expression's and its budget."""
    from vap_lsp.features.cel_cost import comprehension_cost_markdown, expression_cost_markdown

    context = ctx.policy.context
    parts: list[str] = []
    for comprehension_id, call in ctx.result.parsed.macro_calls.items():
        if call is macro:
            share = comprehension_cost_markdown(context, ctx.site, comprehension_id, ctx.kind)
            if share is not None:
                parts.append(share)
    whole = expression_cost_markdown(context, ctx.site, ctx.kind)
    if whole is not None:
        parts.append(whole)
    return "".join("\n\n" + p for p in parts)


def hover_in_context(ctx: CelContext) -> HoverResult | None:
    path = ctx.node_path()
    if not path:
        return None
    cursor = ctx.index - ctx.result.offset
    macro_calls = set(id(c) for c in ctx.result.parsed.macro_calls.values())
    for node in reversed(path):
        if isinstance(node, Comprehension):
            continue
        if isinstance(node, Ident):
            return _ident_hover(ctx, node)
        if isinstance(node, Select):
            if not node.field_start <= cursor <= node.end:
                continue
            operand_name = qualified(node.operand)
            if operand_name == "variables":
                md = _variable_markdown(ctx, node.field)
                if md is not None:
                    return _result(ctx, node.field_start, node.end, md)
            checked = ctx.checked
            ref = checked.references.get(node.id) if checked is not None else None
            if ref is not None and ref.kind == "variable":
                return _result(
                    ctx, node.field_start, node.end, _root_markdown(ctx, ref.name, _type_of(ctx, node))
                )
            if ref is not None and ref.kind == "namespace":
                return None
            return _result(ctx, node.field_start, node.end, _field_markdown(ctx, node))
        if isinstance(node, Call):
            end = node.function_start + len(node.function)
            if node.function_start >= 0 and node.function_start <= cursor <= end:
                return _call_hover(ctx, node, id(node) in macro_calls)
            continue
        if isinstance(node, Literal):
            return _result(ctx, node.start, node.end, _code(type_text(_type_of(ctx, node))))
        if isinstance(node, StructExpr):
            end = node.type_name_start + len(node.type_name)
            if node.type_name_start <= cursor <= end:
                return _result(
                    ctx,
                    node.type_name_start,
                    end,
                    _code(f"{node.type_name}{{…}}: {type_text(_type_of(ctx, node))}"),
                )
    return None
