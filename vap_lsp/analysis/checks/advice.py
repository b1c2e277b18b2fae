"""Advice beyond the API server: never errors, because the server accepts all of this.

What admission guarantees (a root that is null, a field that is present) comes from one model,
`analysis.guarantees`:
- a root read without a null guard where it can be null: `oldObject` on CREATE, `object` on
  DELETE, `namespaceObject` for cluster-scoped kinds and in matchConditions — the expression
  fails at admission for every such request (warning);
- a `message` that holds `{{ }}` templates or looks like CEL: it is shown verbatim
  (information: `messageExpression` is probably what was meant);
- selecting a field that can be absent at that point of admission (not defaulted, not
  required, not set by the API server), without `has()` or `?.`: fails at admission whenever
  it is absent (hint: too frequent to be a warning).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.guarantees import (
    Guarantee,
    KindGuarantee,
    Point,
    Subject,
    field_guarantee,
    null_cases,
    per_kind_text,
    type_path,
)
from vap_lsp.analysis.narrowing import NullFlow, Reachability
from vap_lsp.analysis.sites import ExpressionSite
from vap_lsp.analysis.typing import PolicyTyping
from vap_lsp.cel.ast import Call, Expr, Ident, ListExpr, Literal, Select, children
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.text import Span
from vap_lsp.yaml.model import MappingNode, ScalarNode, lookup

_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_CEL_LOOKING = re.compile(r"\b(object|oldObject|params|request|variables)\.[A-Za-z_]")


def _walk(node: Expr | None) -> Iterator[Expr]:
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def null_roots(typing: PolicyTyping, results: list[tuple[ExpressionSite, CompileResult]]) -> list[Diagnostic]:
    """Roots read without a null guard where they can be null (warnings: the expression fails
    for every such request). Narrowing (`narrowing.NullFlow`, per matched kind in the requests
    where the root is null) decides the guards: `request.operation`, `x == null`, `has(x.f)`,
    a kind or scope test, variables holding such tests, in the expression and in
    matchConditions; `.?` and `has()` are safe on null."""
    diagnostics: list[Diagnostic] = []
    parsed = [(site, result.parsed) for site, result in results]
    offsets = {id(site): result.offset for site, result in results}
    for case in null_cases(typing):
        flow = NullFlow(
            case.root, list(case.facts), parsed, typing.variable_asts, conditions_guard=case.conditions_guard
        )
        if flow.excluded:
            continue  # a match condition already keeps those requests out
        for site, _ in parsed:
            if not case.sites(site):
                continue
            holder = flow.unguarded_read(site)
            if holder is None:
                continue
            start, end = holder.start + offsets[id(site)], holder.end + offsets[id(site)]
            root = case.root
            if not isinstance(holder, Ident):  # a variable holding the root
                root += f" (through {site.text[holder.start : holder.end]})"
            diagnostics.append(
                Diagnostic(
                    site.node.source_span(start, end),
                    Severity.WARNING,
                    case.code,
                    f"{site.field}: {root} is null {case.case}; {case.fix}",
                    field=site.field,
                )
            )
    return diagnostics


def _kind_read(node: Expr) -> str | None:
    """`object.kind`, `oldObject.kind` or `request.kind.kind` as written (None: another node)."""
    if not isinstance(node, Select) or node.test_only or node.optional or node.field != "kind":
        return None
    operand = node.operand
    if isinstance(operand, Ident) and operand.name in ("object", "oldObject"):
        return f"{operand.name}.kind"
    if (
        isinstance(operand, Select)
        and operand.field == "kind"
        and isinstance(operand.operand, Ident)
        and operand.operand.name == "request"
    ):
        return "request.kind.kind"
    return None


def kind_tests(typing: PolicyTyping, results: list[tuple[ExpressionSite, CompileResult]]) -> list[Diagnostic]:
    """A kind test no matched kind can pass: `object.kind == 'pod'` (a wrong case), a kind the
    rules never match. Narrowing rules out the branch it guards for every kind, so the problems
    there are only `cel-type-check-guarded` and the branch never runs: a mistake, said once.
    Only when every rule is typed (a `*` or an unknown resource may hold any kind) and for a
    comparison with a string or a list of strings none of which is a matched kind."""
    kinds = sorted({k.gvk.kind for k in typing.kinds})
    if not kinds or typing.untyped_resources():
        return []
    out: list[Diagnostic] = []
    for site, result in results:
        parsed = result.parsed
        for node in _walk(parsed.ast):
            if (
                not isinstance(node, Call)
                or node.function not in ("_==_", "_!=_", "@in")
                or len(node.args) != 2
            ):
                continue
            left, right = node.args
            read = _kind_read(left) or (_kind_read(right) if node.function != "@in" else None)
            if read is None:
                continue
            other = right if _kind_read(left) else left
            items = other.elements if node.function == "@in" and isinstance(other, ListExpr) else [other]
            literals = [i for i in items if isinstance(i, Literal) and isinstance(i.value, str)]
            if not literals or len(literals) != len(items) or any(i.value in kinds for i in literals):
                continue
            names = ", ".join(f"'{i.value}'" for i in literals)
            close = sorted({k for i in literals for k in kinds if str(i.value).lower() == k.lower()})
            hint = f" (did you mean {', '.join(repr(k) for k in close)}?)" if close else ""
            start, end = other.start + result.offset, other.end + result.offset
            if node.function == "@in":
                end = max(end, literals[-1].end + result.offset + 1)
            out.append(
                Diagnostic(
                    site.node.source_span(start, end),
                    Severity.WARNING,
                    "kind-never-matched",
                    f"{site.field}: {read} is never {names}{hint}: this policy matches "
                    f"{', '.join(kinds)}, so the test has the same value for every request and "
                    "what it guards never runs (or always does)",
                    field=site.field,
                )
            )
    return out


def message_templates(root: MappingNode, spec: Mapping[str, Any]) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    validations = spec.get("validations")
    for i, v in enumerate(validations if isinstance(validations, list) else []):
        if not isinstance(v, Mapping) or not isinstance(v.get("message"), str):
            continue
        node, _, found = lookup(root, ("spec", "validations", i, "message"))
        if not isinstance(node, ScalarNode) or len(found) != 4:
            continue
        field = f"spec.validations[{i}].message"
        if _TEMPLATE.search(node.value):
            what = "contains a {{ }} template, which is never interpolated"
        elif _CEL_LOOKING.search(node.value) and "messageExpression" not in v:
            what = "looks like CEL, but message is shown verbatim"
        else:
            continue
        diagnostics.append(
            Diagnostic(
                node.span,
                Severity.INFORMATION,
                "message-not-cel",
                f"{field} {what}; use messageExpression for a computed message",
                field=field,
            )
        )
    return diagnostics


def _path_text(node: Expr) -> str | None:
    parts: list[str] = []
    cur: Expr = node
    while isinstance(cur, Select):
        if cur.optional:
            return None
        parts.append(cur.field)
        cur = cur.operand
    if not isinstance(cur, Ident):
        return None
    parts.append(cur.name)
    return ".".join(reversed(parts))


_SCHEMA_ROOTS = frozenset({"object", "oldObject", "params"})


@dataclass(frozen=True)
class FieldRead:
    """A field read without `has()`/`.?` in one kind's compile, and whether it is there."""

    span: Span
    """Of the field's name, in the file."""
    path: str
    """As written: `object.spec.replicas`."""
    guarantee: Guarantee


def optional_field_reads(
    site: ExpressionSite,
    result: CompileResult,
    checked: CheckedExpr,
    subjects: Mapping[str, Subject | None],
    point: Point,
    version: str,
    reach: Reachability | None = None,
    absent_guard: Callable[[str, Select, frozenset[str]], bool] | None = None,
) -> list[FieldRead]:
    """Fields of the schema-typed roots read without `has()`/`.?` (the first read of each path
    that can run where the field is absent), with whether they are present where the expression
    runs (`guarantees.field_guarantee`, with the kind each root holds). `reach`: the kind's
    narrowing (a node in a branch that cannot run for the kind is not read for it).
    `absent_guard(path, node, operations)`: whether a read of a field is ruled out in the
    requests with `operations` where it can be absent, `has()` of it false there (`has(x.f) &&
    x.f`, not `has(x.f) || x.f`; `request.operation == 'UPDATE' ? object.metadata.name : ''` in a
    mutating policy); without it, a `has()` test anywhere guards every read of the field."""
    parsed = result.parsed
    if parsed.ast is None:
        return []
    guarded: set[str] = set()
    selects: list[Select] = []
    for node in _walk(parsed.ast):
        if isinstance(node, Select):
            if node.test_only:
                path = _path_text(node)
                if path:
                    guarded.add(path)
            else:
                selects.append(node)
    # has() macros keep their original call; the expanded test-only select is what we saw above.
    reads: list[FieldRead] = []
    seen: set[str] = set()
    for node in selects:
        if reach is not None and reach.guard_of(node) is not None:
            continue  # a branch that cannot run for this kind
        ref = checked.references.get(node.id)
        decl = ref.field if ref is not None else None
        if decl is None or ref is None:
            continue
        path = _path_text(node)
        if path is None or path in seen:
            continue
        if absent_guard is None and path in guarded:
            continue
        root = path.split(".", 1)[0]
        if root not in _SCHEMA_ROOTS:
            continue  # variables' fields are inferred, not optional
        owner = subjects.get(root)
        fields = type_path(ref.owner, node.field, owner.type_name) if owner is not None else None
        if fields is None:
            fields = tuple(path.split(".")[1:])
        guarantee = field_guarantee(root, fields, decl, owner, point, version)
        if not guarantee.present and absent_guard is not None:
            absent = frozenset(
                op
                for op in point.operations
                if not field_guarantee(
                    root, fields, decl, owner, Point(point.policy, frozenset({op})), version
                ).present
            )
            if absent_guard(path, node, absent or point.operations):
                continue  # where it can be absent this read does not run (a later one may)
        seen.add(path)
        start = node.field_start + result.offset
        span = site.node.source_span(start, start + len(node.field))
        reads.append(FieldRead(span, path, guarantee))
    return reads


def optional_field_hint(
    site: ExpressionSite, path: str, found: list[KindGuarantee], span: Span
) -> Diagnostic | None:
    """The hint for a field read without a guard, from what each kind the read runs for says
    (None: present for every one): "optional in the schema for apps/v1 DaemonSet; defaulted to 1
    … for apps/v1 Deployment"."""
    if all(item.guarantee.present for item in found):
        return None
    return Diagnostic(
        span,
        Severity.HINT,
        "optional-field",
        f"{site.field}: {path} is {per_kind_text(found)}; without has() or `.?` the expression fails "
        "when it is absent",
        field=site.field,
    )
