"""Signature help inside CEL calls: the overloads of the function whose `(` is open at the cursor.

The call is found lexically (the innermost unclosed `(` preceded by a name), so it works on
unfinished text; the receiver's type comes from the repaired, type-checked prefix so only
overloads whose receiver matches are offered (`'a'.replace(` shows string overloads only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vap_lsp.cel import types as t
from vap_lsp.cel.library.decls import MacroDecl, Overload
from vap_lsp.cel.types import Kind, Type
from vap_lsp.features.cel_context import CelContext, cel_context_at, qualified, receiver_of, repair, scan
from vap_lsp.features.cel_docs import macro_args, macros_named, overloads_of, since_text
from vap_lsp.features.snapshot import DocumentSnapshot

__all__ = ["SignatureHelpResult", "SignatureInfo", "signature_help", "signature_help_in_context"]

_IDENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class SignatureInfo:
    """`parameters` are [start, end) offsets into `label` (as LSP ParameterInformation allows)."""

    label: str
    documentation: str
    parameters: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class SignatureHelpResult:
    signatures: list[SignatureInfo]
    active_signature: int
    active_parameter: int


def signature_help(snapshot: DocumentSnapshot, offset: int) -> SignatureHelpResult | None:
    ctx = cel_context_at(snapshot, offset)
    return signature_help_in_context(ctx) if ctx is not None else None


def _label(
    prefix: str, name: str, params: list[str], result: str | None
) -> tuple[str, list[tuple[int, int]]]:
    label = f"{prefix}{name}("
    spans: list[tuple[int, int]] = []
    for i, param in enumerate(params):
        if i:
            label += ", "
        spans.append((len(label), len(label) + len(param)))
        label += param
    label += ")"
    if result is not None:
        label += f" -> {result}"
    return label, spans


def _overload_info(o: Overload) -> SignatureInfo:
    params = [t.format_cel_type(p) for p in o.params]
    prefix = ""
    if o.receiver_style:
        prefix = f"<{params[0]}>."
        params = params[1:]
    label, spans = _label(prefix, o.function, params, t.format_cel_type(o.result))
    doc = f"{o.doc}\n\n{since_text([o])}".strip()
    return SignatureInfo(label, doc, spans)


def _macro_info(m: MacroDecl) -> SignatureInfo:
    prefix = "<list|map>." if m.receiver_style else ""
    label, spans = _label(prefix, m.name, list(macro_args(m)), None)
    return SignatureInfo(label, f"Macro: {m.doc}", spans)


def _matches(param: Type, receiver: Type | None) -> bool:
    if receiver is None or receiver.kind in (Kind.DYN, Kind.ERROR, Kind.ANY, Kind.TYPE_PARAM):
        return True
    return param.kind is Kind.DYN or t.is_assignable(t.TypeMapping(), param, receiver) is not None


def _open_call(text: str, cursor: int) -> tuple[int, int, int] | None:
    """(name start, name end, index of `(`) of the innermost named call open at `cursor`."""
    state = scan(text, cursor)
    if state.in_string:
        return None
    for bracket, index in reversed(state.open_brackets):
        if bracket != "(":
            continue
        end = index
        while end > 0 and text[end - 1] in " \t\r\n":
            end -= 1
        start = end
        while start > 0 and text[start - 1] in _IDENT:
            start -= 1
        if start < end and not text[start].isdigit():
            return start, end, index
    return None


def _active_parameter(text: str, open_paren: int, cursor: int) -> int:
    """Commas at the call's own nesting level between its `(` and the cursor."""
    count = 0
    depth = 0
    i = open_paren + 1
    while i < cursor:
        ch = text[i]
        if ch in "'\"":
            quote = ch
            i += 1
            while i < cursor and text[i] != quote:
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
        i += 1
    return count


def signature_help_in_context(ctx: CelContext) -> SignatureHelpResult | None:
    text, cursor = ctx.text, ctx.index
    found = _open_call(text, cursor)
    if found is None:
        return None
    name_start, name_end, open_paren = found
    name = text[name_start:name_end]
    active = _active_parameter(text, open_paren, cursor)
    member = name_start > 0 and text[name_start - 1] == "."
    receiver_type: Type | None = None
    full_name = name
    if member:
        repaired = repair(text, name_start, ctx.env)
        node = repaired.placeholder_node()
        if node is not None:
            operand = receiver_of(node)
            qname = qualified(operand)
            if qname is not None and ctx.env.find_function(f"{qname}.{name}") is not None:
                full_name, member = f"{qname}.{name}", False
            elif operand is not None:
                receiver_type = repaired.checked.type_of(operand)
    signatures: list[SignatureInfo] = []
    arities: list[int] = []
    for macro in macros_named(name, ctx.env, member):
        signatures.append(_macro_info(macro))
        arities.append(macro.arg_count if macro.arg_count is not None else 99)
    overloads, _ = overloads_of(full_name, ctx.env)
    for o in overloads:
        if o.receiver_style != member:
            continue
        if member and not _matches(o.params[0], receiver_type):
            continue
        signatures.append(_overload_info(o))
        arities.append(o.arg_count)
    if not signatures:
        return None
    active_sig = next((i for i, n in enumerate(arities) if n > active), 0)
    return SignatureHelpResult(signatures, active_sig, active)
