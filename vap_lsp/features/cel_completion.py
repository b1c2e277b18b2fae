"""Completion inside CEL expressions, on what the user is context (often not parseable yet).

The text before the cursor is repaired (a placeholder identifier at the cursor, open brackets
closed) and type-checked in the expression's typed environment, so `…containers.all(c, c.`
knows `c` is a container. After `.`/`.?`: the receiver type's fields, then its methods and
macros (on a receiver of unknown type, `dyn`, only the macros: no method applies to any
value); otherwise: comprehension variables, root variables, global functions and macros.
Variables have the type their expression infers (vap-lsp's precise view, `analysis.model.context`), so
`variables.spec.` on a Deployment policy offers `replicas`, `template`, `selector`….
Insert texts are escaped for the YAML scalar style they land in.
"""

from __future__ import annotations

from vap_lsp.analysis.model.typing import untyped_field_note
from vap_lsp.cel import types as t
from vap_lsp.cel.ast import ParsedExpr
from vap_lsp.cel.compile import parse_expression
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.library.decls import MacroDecl, Overload
from vap_lsp.cel.types import Kind, ObjectType, Type
from vap_lsp.features.cel_context import (
    PLACEHOLDER,
    CelContext,
    Repaired,
    cel_context_at,
    qualified,
    receiver_of,
    repair,
    scan,
)
from vap_lsp.features.cel_docs import (
    ROOT_DOCS,
    is_user_function,
    macro_args,
    macro_signature,
    since_text,
    type_text,
)
from vap_lsp.features.edits import encode_fragment
from vap_lsp.features.results import CompletionEntry, CompletionKind, CompletionResult
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.text import Span

__all__ = ["complete", "complete_in_context"]

_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


# Receiver kinds of which nothing is known: no method applies to every such value.
_UNKNOWN = frozenset({Kind.DYN, Kind.ERROR, Kind.TYPE_PARAM, Kind.ANY})


def complete(snapshot: DocumentSnapshot, offset: int, trigger: str | None = None) -> CompletionResult | None:
    """None when `offset` is not inside a CEL expression (the YAML completion answers then)."""
    ctx = cel_context_at(snapshot, offset)
    return complete_in_context(ctx, trigger) if ctx is not None else None


class _Builder:
    def __init__(self, ctx: CelContext, prefix_start: int) -> None:
        self.ctx = ctx
        node = ctx.node
        self.span = Span(node.source_offset(prefix_start), node.source_offset(ctx.index))
        self.items: list[CompletionEntry] = []
        self.seen: set[str] = set()

    def add(
        self,
        label: str,
        kind: CompletionKind,
        rank: int,
        detail: str | None = None,
        doc: str | None = None,
        insert: str | None = None,
        snippet: bool = False,
        filter_text: str | None = None,
    ) -> None:
        if label in self.seen:
            return
        self.seen.add(label)
        raw = insert if insert is not None else label
        text = encode_fragment(self.ctx.node.style, raw) or raw
        if snippet:
            text = text.replace("\\", "\\\\") if "\\" in text else text
        self.items.append(
            CompletionEntry(
                label=label,
                kind=kind,
                detail=detail,
                documentation=doc or None,
                insert_text=text,
                insert_is_snippet=snippet,
                replace_span=self.span,
                sort_text=f"{rank}_{label}",
                filter_text=filter_text or label,
            )
        )


def _prev_word(text: str, end: int) -> tuple[str, int]:
    """The non-space text just before `end`: an identifier, or one other character."""
    i = end
    while i > 0 and text[i - 1] in " \t\r\n":
        i -= 1
    j = i
    while j > 0 and text[j - 1] in _IDENT:
        j -= 1
    return (text[j:i], j) if j < i else (text[i - 1 : i], i - 1)


def _whole(text: str, start: int, cursor: int, ctx: CelContext) -> ParsedExpr | None:
    """The whole expression with the word at the cursor replaced by a placeholder, when that
    parses: a guard after the cursor narrows the kind too (`object.spec.| || object.kind !=
    'Pod'`; CEL's `||` is commutative). None otherwise (the text before the cursor decides)."""
    end = cursor
    while end < len(text) and text[end] in _IDENT:
        end += 1
    if end == len(text) or not text[end:].strip():
        return None  # nothing after the cursor: the repaired text says the same
    parsed = parse_expression(text[:start] + PLACEHOLDER + text[end:], ctx.env)
    return parsed if parsed.ast is not None and parsed.ok else None


def complete_in_context(ctx: CelContext, trigger: str | None = None) -> CompletionResult:
    """`trigger` is accepted for symmetry with the LSP request; the text alone decides."""
    text, cursor = ctx.text, ctx.index
    start = cursor
    while start > 0 and text[start - 1] in _IDENT:
        start -= 1
    prefix = text[start:cursor]
    if prefix[:1].isdigit() or scan(text, start).in_string:
        return CompletionResult([])
    dot = start
    optional = text[max(0, start - 2) : start] == ".?"
    if optional:
        dot = start - 1
    member = dot > 0 and text[dot - 1] == "."
    repaired = repair(text, start, ctx.env)
    narrowed = ctx.narrowed(_whole(text, start, cursor, ctx) or repaired.parsed, start)
    if narrowed is not ctx:  # in a branch a guard rules out for the kind ctx was typed as
        ctx = narrowed
        repaired = repair(text, start, ctx.env)
    builder = _Builder(ctx, start)
    if member:
        _member_items(builder, repaired, optional)
        return CompletionResult(builder.items)
    word, word_start = _prev_word(text, start)
    after_operand = bool(word) and ((word[0] in _IDENT and word != "in") or word in ")]}'\"")
    if not prefix and after_operand:
        return CompletionResult([])  # an operator comes next, not a name
    in_has = word == "(" and text[:word_start].rstrip().endswith("has")
    _identifier_items(builder, repaired, in_has)
    return CompletionResult(builder.items)


def _receiver_matches(param: Type, receiver: Type) -> bool:
    if receiver.kind in _UNKNOWN or param.kind is Kind.DYN:
        return True
    return t.is_assignable(t.TypeMapping(), param, receiver) is not None


def _call_insert(name: str, overloads: list[Overload]) -> tuple[str, bool]:
    if all(o.arg_count == 0 for o in overloads):
        return f"{name}()", False
    return f"{name}($1)", True


def _member_items(b: _Builder, repaired: Repaired, optional: bool) -> None:
    node = repaired.placeholder_node()
    receiver = receiver_of(node) if node is not None else None
    if receiver is None:
        return
    checked = repaired.checked
    recv_type = checked.type_of(receiver) or t.DYN
    target, _ = t.maybe_unwrap_optional(recv_type)
    env = b.ctx.env
    qname = qualified(receiver)
    if isinstance(target, ObjectType):
        variables = qname == "variables"
        for name, decl in target.fields.items():
            doc = decl.description
            kind: CompletionKind = "field"
            if variables:
                var = b.ctx.policy.variable(name)
                kind = "variable"
                if var is not None:
                    doc = f"```cel\n{var.site.text.strip()}\n```"
            b.add(name, kind, 0, type_text(decl.type), doc)
        for name in sorted(target.untyped_fields):
            b.add(
                name,
                "field",
                0,
                "untyped (Quantity)",
                f"{untyped_field_note(name)} (the API server warns `undefined field '{name}'`): "
                f"`dyn({qname or 'x'}).{name}`.",
            )
    if qname is not None:
        for var_name, var_type in env.variables.items():
            if var_name.startswith(qname + ".") and "." not in var_name[len(qname) + 1 :]:
                rest = var_name[len(qname) + 1 :]
                b.add(rest, "variable", 0, type_text(var_type), ROOT_DOCS.get(var_name))
        namespaced = False
        for fn_name, fn in env.functions.items():
            if fn_name.startswith(qname + ".") and is_user_function(fn_name):
                rest = fn_name[len(qname) + 1 :]
                if "." in rest or not is_user_function(rest):
                    continue
                namespaced = True
                overloads = [o for o in fn.overloads if not o.receiver_style]
                if overloads:
                    insert, snippet = _call_insert(rest, overloads)
                    doc = "; ".join(dict.fromkeys(o.doc for o in overloads if o.doc))
                    b.add(
                        rest,
                        "function",
                        1,
                        overloads[0].signature(),
                        f"{doc}\n\n{since_text(overloads)}",
                        insert,
                        snippet,
                    )
        if namespaced and target.kind is Kind.ERROR:
            return
    if optional:
        return
    if target.kind in _UNKNOWN:
        # Nothing is known of the value: listing every method of every type (`getFullYear`,
        # `startsWith`…) would be noise. No method applies to any value; the macros may.
        for macro in env.macros:
            if macro.receiver_style:
                _add_macro(b, macro, 3)
        return
    nested = env.nested_functions
    for fn_name, fn in nested.items():
        if not is_user_function(fn_name) or "." in fn_name:
            continue
        overloads = [
            o for o in fn.overloads if o.receiver_style and _receiver_matches(o.params[0], recv_type)
        ]
        if not overloads:
            continue
        insert, snippet = _call_insert(fn_name, overloads)
        doc = "; ".join(dict.fromkeys(o.doc for o in overloads if o.doc))
        detail = overloads[0].signature() + (f" (+{len(overloads) - 1})" if len(overloads) > 1 else "")
        b.add(fn_name, "method", 1, detail, f"{doc}\n\n{since_text(overloads)}", insert, snippet)
    for macro in env.macros:
        if macro.receiver_style and _macro_applies(macro, recv_type):
            _add_macro(b, macro, 2)


def _macro_applies(macro: MacroDecl, receiver: Type) -> bool:
    kind = receiver.kind
    if kind in _UNKNOWN:
        return True
    if macro.name in ("optMap", "optFlatMap"):
        return t.is_optional(receiver)
    if macro.name == "sortBy":
        return kind is Kind.LIST
    return kind in (Kind.LIST, Kind.MAP)


def _add_macro(b: _Builder, macro: MacroDecl, rank: int) -> None:
    args = macro_args(macro)
    placeholders = ", ".join(f"${{{i + 1}:{a}}}" for i, a in enumerate(args))
    label = f"{macro.name}({', '.join(args)})"
    since = (
        "Available in every supported Kubernetes version."
        if macro.introduced is None
        else (f"Introduced in Kubernetes {macro.introduced}.")
    )
    b.add(
        label,
        "snippet",
        rank,
        f"macro {macro_signature(macro)}",
        f"{macro.doc}\n\n{since}",
        f"{macro.name}({placeholders})",
        True,
        filter_text=macro.name,
    )


_STRUCT_SNIPPETS: dict[ExpressionKind, list[tuple[str, str, str]]] = {
    ExpressionKind.MAP_APPLY_CONFIGURATION: [
        (
            "Object{…}",
            "Object{${1:spec}: Object.${1:spec}{$2}}",
            "an apply configuration (server-side apply)",
        ),
    ],
    ExpressionKind.MAP_JSON_PATCH: [
        (
            "JSONPatch{…}",
            'JSONPatch{op: "${1:add}", path: "${2:/metadata/labels}", value: $3}',
            "one JSON Patch operation",
        ),
    ],
}


def _identifier_items(b: _Builder, repaired: Repaired, in_has: bool) -> None:
    env = b.ctx.env
    for name, typ in repaired.scopes_at().items():
        b.add(name, "variable", 0, type_text(typ), "Comprehension variable.")
    for name, typ in env.variables.items():
        if "." in name:
            continue
        doc = ROOT_DOCS.get(name, "")
        if name in ("object", "oldObject") and b.ctx.policy.kinds:
            doc += f"\n\nMatched kinds: {b.ctx.policy.kinds_text}"
        b.add(name, "variable", 1, type_text(typ), doc)
    if in_has:
        return
    for fn_name, fn in env.functions.items():
        if not is_user_function(fn_name):
            continue
        overloads = [o for o in fn.overloads if not o.receiver_style]
        if not overloads:
            continue
        insert, snippet = _call_insert(fn_name, overloads)
        doc = "; ".join(dict.fromkeys(o.doc for o in overloads if o.doc))
        detail = overloads[0].signature() + (f" (+{len(overloads) - 1})" if len(overloads) > 1 else "")
        b.add(fn_name, "function", 2, detail, f"{doc}\n\n{since_text(overloads)}", insert, snippet)
    for macro in env.macros:
        if not macro.receiver_style:
            _add_macro(b, macro, 2)
    for label, insert, doc in _STRUCT_SNIPPETS.get(b.ctx.site.kind, []):
        b.add(label, "snippet", 2, None, doc, insert, True, filter_text=label.split("{")[0])
    for keyword in ("true", "false", "null"):
        b.add(keyword, "keyword", 3)
