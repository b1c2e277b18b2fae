"""Quick fixes for vap-lsp's own diagnostics, as minimal text edits.

Each fix reads the diagnostic's code, field path and range, finds the YAML node again in the
current snapshot, and edits only what must change (see `edits`): a key renamed, a word
inserted into a scalar with the escaping its style needs. Fixes for CEL use the expression
type-checked against the first matched kind, as the type-check warnings do.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.ast import Call, Select
from vap_lsp.cel.compile import CompileResult
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.parser import parse
from vap_lsp.cel.types import Kind, ObjectType, Type
from vap_lsp.features.cel_context import policy_cel
from vap_lsp.features.edits import (
    TextEditResult,
    content_bounds,
    double_quoted,
    edits_in_scalar,
    single_quoted,
)
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.features.yaml_schema import object_schema, property_names
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.text import Span
from vap_lsp.yaml.model import (
    ExpansionLimit,
    MappingNode,
    Path,
    PathElem,
    ScalarNode,
    SequenceNode,
    lookup,
)


@dataclass(frozen=True)
class DiagnosticRef:
    """The parts of a published diagnostic a fix needs (the adapter fills it from LSP)."""

    span: Span
    code: str | None
    message: str
    field: str | None = None


@dataclass(frozen=True)
class CodeActionResult:
    title: str
    edits: list[TextEditResult]
    diagnostic: DiagnosticRef
    preferred: bool = False


_FIELD_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_UNDEFINED_FIELD = re.compile(r"undefined field '([^']+)'")
_OPTIONAL_PATH = re.compile(r": (\S+) is optional in the schema")
_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_CONVERT = re.compile(r"convert it: `([^`]+)`")
_BOOL_SITES = frozenset({ExpressionKind.VALIDATION, ExpressionKind.MATCH_CONDITION})
_LOW_PRECEDENCE = frozenset({"_||_", "_&&_", "_?_:_"})
_RELATIONS = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "@in"})


def parse_field(text: str) -> Path:
    """`spec.validations[0].expression` → ("spec", "validations", 0, "expression")."""
    out: list[PathElem] = []
    for m in _FIELD_TOKEN.finditer(text):
        out.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
    return tuple(out)


# ---- policy context --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Policy:
    obj: K8sObject
    kind: PolicyKind
    spec: dict[str, object]


def _policy(snapshot: DocumentSnapshot, offset: int) -> _Policy | None:
    obj = snapshot.object_at(offset)
    if obj is None:
        return None
    recognised = recognise(obj.api_version, obj.kind)
    if recognised is None:
        return None
    kind, group_version = recognised
    try:
        data = object_data(obj.node)
    except ExpansionLimit:
        return None
    if not isinstance(data, dict):
        return None
    defaulted = apply_defaults(kind, group_version, data)
    spec = defaulted.get("spec")
    return _Policy(obj, kind, spec if isinstance(spec, dict) else {})


def _typed_site(
    snapshot: DocumentSnapshot, policy: _Policy, path: Path
) -> tuple[ExpressionSite, CompileResult] | None:
    """The expression at `path` compiled with vap-lsp's precise types (the first matched kind
    with a schema, variables as inferred): what the type checks, ours and the server's, saw."""
    if policy.kind not in (PolicyKind.VAP, PolicyKind.MAP):
        return None
    pc = policy_cel(snapshot, policy.obj)  # the model the diagnostics were computed from
    if pc is None:
        return None
    context = pc.context
    for site in context.sites:
        if site.path == path:
            return site, context.compile(site)
    return None


def _selects(result: CompileResult) -> list[Select]:
    if result.parsed.ast is None:
        return []
    return [n for n in result.parsed.walk() if isinstance(n, Select) and not n.test_only]


# ---- individual fixes ------------------------------------------------------------------------------


def _unknown_field(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    if not d.field:
        return []
    obj = snapshot.object_at(d.span.start)
    if obj is None:
        return []
    path = parse_field(d.field)
    if not path or not isinstance(path[-1], str):
        return []
    schema = object_schema(snapshot.kubernetes_version, obj.api_version, obj.kind)
    if schema is None:
        return []
    parent, _, found = lookup(obj.node, path[:-1])
    present = set(parent.keys()) if isinstance(parent, MappingNode) and len(found) == len(path) - 1 else set()
    candidates = [n for n in property_names(schema, path[:-1]) if n not in present]
    matches = difflib.get_close_matches(path[-1], candidates, n=3, cutoff=0.6)
    return [
        CodeActionResult(f"Change to '{m}'", [TextEditResult(d.span, m)], d, preferred=i == 0)
        for i, m in enumerate(matches)
    ]


def _undefined_cel_field(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    m = _UNDEFINED_FIELD.search(d.message)
    policy = _policy(snapshot, d.span.start)
    if m is None or policy is None or not d.field:
        return []
    typed = _typed_site(snapshot, policy, parse_field(d.field))
    if typed is None:
        return []
    site, result = typed
    checked = result.checked
    if checked is None:
        return []
    index = site.node.decoded_index(d.span.start)
    if index is None:
        return []
    name = m.group(1)
    for select in _selects(result):
        start = select.field_start + result.offset
        if select.field != name or not (start - 1 <= index <= start + len(name)):
            continue
        operand_t = checked.type_of(select.operand)
        if not isinstance(operand_t, ObjectType):
            return []
        if name in operand_t.untyped_fields:
            # A Quantity field (`resources.limits`): spelled right, only untyped. dyn() around the
            # object it is selected from leaves it to run time, where the object has it.
            operand = select.operand
            first = site.node.source_span(operand.start + result.offset, operand.start + result.offset)
            last = site.node.source_span(operand.end + result.offset, operand.end + result.offset)
            return [
                CodeActionResult(
                    f"Wrap in dyn(): dyn({result.parsed.source[operand.start : operand.end]}).{name}",
                    [TextEditResult(first, "dyn("), TextEditResult(last, ")")],
                    d,
                    preferred=True,
                )
            ]
        matches = difflib.get_close_matches(name, list(operand_t.fields), n=3, cutoff=0.6)
        span = site.node.source_span(start, start + len(name))
        return [
            CodeActionResult(f"Change to '{s}'", [TextEditResult(span, s)], d, preferred=i == 0)
            for i, s in enumerate(matches)
        ]
    return []


def _deny_and_warn(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    obj = snapshot.object_at(d.span.start)
    if obj is None or not d.field:
        return []
    node, _, found = lookup(obj.node, parse_field(d.field))
    if not isinstance(node, SequenceNode) or len(found) != len(parse_field(d.field)):
        return []
    lines = snapshot.lines
    out: list[CodeActionResult] = []
    for action in ("Warn", "Deny"):
        for i, item in enumerate(node.items):
            if not isinstance(item, ScalarNode) or item.value != action:
                continue
            if node.flow:
                items = node.items
                span = (
                    Span(items[i - 1].span.end, item.span.end)
                    if i > 0
                    else Span(item.span.start, items[1].span.start if len(items) > 1 else item.span.end)
                )
            else:
                first = lines.line_of(item.span.start)
                last = lines.line_of(max(item.span.start, item.span.end - 1))
                end = lines.line_start(last + 1) if last + 1 < lines.line_count else lines.line_end(last)
                span = Span(lines.line_start(first), end)
            out.append(
                CodeActionResult(f"Remove '{action}' from validationActions", [TextEditResult(span, "")], d)
            )
            break
    return out


def _missing_parameter_not_found_action(
    snapshot: DocumentSnapshot, d: DiagnosticRef
) -> list[CodeActionResult]:
    obj = snapshot.object_at(d.span.start)
    if obj is None or not d.field:
        return []
    path = parse_field(d.field)[:-1]
    node, _, found = lookup(obj.node, path)
    if not isinstance(node, MappingNode) or len(found) != len(path):
        return []
    entry = "parameterNotFoundAction: Deny"
    if node.flow:
        if node.items:
            at = node.items[-1][1].span.end
            edit = TextEditResult(Span(at, at), f", {entry}")
        else:
            edit = TextEditResult(Span(node.span.start + 1, node.span.start + 1), entry)
    else:
        if not node.items:
            return []
        lines = snapshot.lines
        column = lines.line_col(node.items[0][0].span.start).column
        end = node.items[-1][1].span.end
        text = snapshot.text
        while end > node.span.start and text[end - 1] in " \t\r\n":
            end -= 1
        at = lines.line_end(lines.line_of(max(end - 1, 0)))
        edit = TextEditResult(Span(at, at), "\n" + " " * column + entry)
    return [CodeActionResult("Add parameterNotFoundAction: Deny", [edit], d, preferred=True)]


def _root_call(text: str) -> str | None:
    parsed = parse(text)
    return parsed.ast.function if isinstance(parsed.ast, Call) else None


def _compare_to_true(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    obj = snapshot.object_at(d.span.start)
    if obj is None or not d.field:
        return []
    path = parse_field(d.field)
    node, _, found = lookup(obj.node, path)
    if not isinstance(node, ScalarNode) or len(found) != len(path):
        return []
    start, end = content_bounds(node)
    root = _root_call(node.value[start:end])
    if root in _LOW_PRECEDENCE or root in _RELATIONS:
        inserts = [(start, "("), (end, ") == true")]
    else:
        inserts = [(end, " == true")]
    return [
        CodeActionResult("Compare explicitly: == true", edits_in_scalar(node, inserts), d, preferred=True)
    ]


def _zero_value(t: Type | None) -> str | None:
    if t is None:
        return None
    return {
        Kind.INT: "0",
        Kind.UINT: "0u",
        Kind.DOUBLE: "0.0",
        Kind.STRING: "''",
        Kind.BOOL: "false",
        Kind.LIST: "[]",
        Kind.MAP: "{}",
    }.get(t.kind)


def _optional_field(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    m = _OPTIONAL_PATH.search(d.message)
    policy = _policy(snapshot, d.span.start)
    if m is None or policy is None or not d.field:
        return []
    typed = _typed_site(snapshot, policy, parse_field(d.field))
    if typed is None:
        return []
    site, result = typed
    node = site.node
    index = node.decoded_index(d.span.start)
    out: list[CodeActionResult] = []
    field_path = m.group(1)
    if site.kind in _BOOL_SITES:
        start, end = content_bounds(node)
        root = _root_call(node.value[start:end])
        guard = f"has({field_path}) && "
        inserts = [(start, guard + "("), (end, ")")] if root in ("_||_", "_?_:_") else [(start, guard)]
        out.append(
            CodeActionResult(
                f"Guard with has({field_path})", edits_in_scalar(node, inserts), d, preferred=True
            )
        )
    for select in _selects(result):
        start = select.field_start + result.offset
        if index is None or start != index or select.optional:
            continue
        zero = _zero_value(result.checked.type_of(select) if result.checked is not None else None)
        if zero is None:
            break
        inserts = [(start, "?"), (start + len(select.field), f".orValue({zero})")]
        out.append(
            CodeActionResult(f"Read with .?{select.field}.orValue({zero})", edits_in_scalar(node, inserts), d)
        )
        break
    return out


def _convert_string_value(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    """`string-at-admission`: wrap the value in the conversion the message names
    (`timestamp(x)`, `duration(x)`, `timestamp(dyn(x))`), the diagnostic's range being `x`."""
    m = _CONVERT.search(d.message)
    obj = snapshot.object_at(d.span.start)
    if m is None or obj is None or not d.field or d.span.end <= d.span.start:
        return []
    path = parse_field(d.field)
    node, _, found = lookup(obj.node, path)
    if not isinstance(node, ScalarNode) or len(found) != len(path):
        return []
    start, last = node.decoded_index(d.span.start), node.decoded_index(d.span.end - 1)
    if start is None or last is None:
        return []
    written = " ".join(node.value[start : last + 1].split())  # as the message shows it
    conversion = m.group(1)
    at = conversion.find(written)
    if at < 0:
        return []
    prefix, suffix = conversion[:at], conversion[at + len(written) :]
    edits = edits_in_scalar(node, [(start, prefix), (last + 1, suffix)])
    return [CodeActionResult(f"Convert: {conversion}", edits, d, preferred=True)]


def cel_string_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _message_to_expression(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    obj = snapshot.object_at(d.span.start)
    if obj is None or not d.field:
        return []
    path = parse_field(d.field)
    value, key, found = lookup(obj.node, path)
    parent, _, _ = lookup(obj.node, path[:-1])
    if not isinstance(value, ScalarNode) or key is None or len(found) != len(path):
        return []
    if isinstance(parent, MappingNode) and parent.get("messageExpression") is not None:
        return []
    edits = [TextEditResult(key.span, "messageExpression")]
    if _TEMPLATE.search(value.value):
        literal = cel_string_literal(value.value)
        edits.append(
            TextEditResult(
                value.span, single_quoted(literal) if "\n" not in literal else double_quoted(literal)
            )
        )
        title = "Move to messageExpression (as a CEL string)"
    else:
        title = "Move to messageExpression"
    return [CodeActionResult(title, edits, d, preferred=True)]


_TYPE_CHECK_CODES = frozenset({"cel-type-check", "cel-type-check-extra", "vap-lsp-type-check"})


def code_actions(snapshot: DocumentSnapshot, diagnostics: list[DiagnosticRef]) -> list[CodeActionResult]:
    """Quick fixes for the given diagnostics (those of vap-lsp that have one)."""
    out: list[CodeActionResult] = []
    for d in diagnostics:
        code = d.code or ""
        if code == "unknown-field":
            out.extend(_unknown_field(snapshot, d))
        elif code in _TYPE_CHECK_CODES and "undefined field" in d.message:
            out.extend(_undefined_cel_field(snapshot, d))
        elif code == "FieldValueInvalid" and "must not contain both Deny and Warn" in d.message:
            out.extend(_deny_and_warn(snapshot, d))
        elif code == "FieldValueRequired" and (d.field or "").endswith("paramRef.parameterNotFoundAction"):
            out.extend(_missing_parameter_not_found_action(snapshot, d))
        elif code == "cel-result" and "must evaluate to bool but got dyn" in d.message:
            out.extend(_compare_to_true(snapshot, d))
        elif code == "optional-field":
            out.extend(_optional_field(snapshot, d))
        elif code == "string-at-admission":
            out.extend(_convert_string_value(snapshot, d))
        elif code == "message-not-cel":
            out.extend(_message_to_expression(snapshot, d))
        elif code == "typing-unavailable":
            from vap_lsp.features.typing_fix import typing_unavailable_fixes

            out.extend(typing_unavailable_fixes(snapshot, d))
    return out
