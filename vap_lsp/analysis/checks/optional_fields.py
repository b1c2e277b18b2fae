"""`optional-field`: a field read without `has()` or `.?` where admission may not have it.

What admission guarantees comes from one model (`model.guarantees`, through the policy context):
a field that is not defaulted, not required, not set by the API server or a default-enabled
admission plugin can be absent, and reading it then fails the expression. Said once per read, from
what every kind the read runs for says ("optional in the schema for apps/v1 DaemonSet; defaulted
to 1 … for apps/v1 Deployment"); a hint, too frequent to be more. Only for expressions that
type-check for the kind (a type error there is already reported).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.checks.type_check import untyped_field
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext, View
from vap_lsp.analysis.model.guarantees import (
    Guarantee,
    KindGuarantee,
    Point,
    Subject,
    field_guarantee,
    per_kind_text,
    type_path,
)
from vap_lsp.analysis.model.narrowing import Reachability
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Expr, Ident, Select, children
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.text import Span

__all__ = ["CHECK", "FieldRead", "optional_field_reads", "optional_fields"]


def optional_fields(context: PolicyContext) -> Iterator[Diagnostic]:
    """One hint per read, from what every kind it runs for says (silent when all guarantee it)."""
    reads: dict[tuple[object, int], tuple[ExpressionSite, str, Span, list[KindGuarantee]]] = {}
    for kind in (k for k in context.kinds if k.has_schema):
        subjects = context.root_subjects(context.subject(kind))
        view = context.type_check(kind)
        for site, result in view.results():
            checkpoint()
            # A Quantity field the type leaves out (`resources.limits`) is the server's warning
            # but no failure at admission: the other reads are still worth a hint.
            runs = any(
                issue.start < 0 or view.reachability(site).guard_at(issue.start - result.offset) is None
                for issue in result.issues
                if issue.phase != "result" and untyped_field(result, issue) is None
            )
            if result.checked is None or runs or result.result_error is not None:
                continue
            point = Point(context.policy, context.site_facts(kind, site).operations)
            found = optional_field_reads(
                site, result, result.checked, subjects, point, context.version,
                partial(view.reachability, site), partial(_absent_guard, view, site),
            )  # fmt: skip
            for read in found:
                at = (site.path, read.span.start)
                reads.setdefault(at, (site, read.path, read.span, []))[3].append(
                    KindGuarantee(kind.gvk, read.guarantee)
                )
    for site, path, span, per_kind in reads.values():
        hint = optional_field_hint(site, path, per_kind, span)
        if hint is not None:
            yield hint


def _absent_guard(
    view: View, site: ExpressionSite, path: str, node: Select, operations: frozenset[str]
) -> bool:
    """Whether the read `node` of the field `path` cannot run for the view's kind in the requests
    with `operations` where the field is absent (`has(x.f) && x.f`: `View.absent_guarded`)."""
    return view.absent_guarded(site, path, node, operations)


def _walk(node: Expr | None) -> Iterator[Expr]:
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


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
    reach: Callable[[], Reachability] | None = None,
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
    narrowing: Reachability | None = None
    for node in selects:
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
        if reach is not None:
            narrowing = narrowing or reach()
            if narrowing.guard_of(node) is not None:
                continue  # a branch that cannot run for this kind
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


CHECK = policy_check(
    "optional-fields",
    ("optional-field",),
    "A field read without has() or `.?` where admission may not have it (not defaulted, required "
    "or set by the server): hints, per kind the read runs for.",
)(optional_fields)
