"""`cel-type-check`: what the server's type checker says of each expression, per matched kind.

The type-check controller (`typechecking.go`) compiles VAP validations and messageExpressions
against each matched kind's schema in the StoredExpressions environment and writes its warnings to
`status.typeChecking`: one warning per problem here, naming the kinds it fails for. The other
expressions (and every MAP expression, which the server never type-checks) get the same check as
vap-lsp's own (`cel-type-check-extra`), reported only where a field the schema lacks is read.

Narrowing by guards (`model.narrowing`): a problem in a branch that cannot run for a kind
(`object.kind != 'Pod' || …` for a Deployment) is still the server's warning, labelled
`cel-type-check-guarded` (information) with the guard; vap-lsp's own check is silent there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from vap_lsp.analysis.checks.cel_text import issue_span, kinds_text, position_text
from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import SERVER_TYPE_CHECKED, IssueKey, PolicyContext, issue_key
from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Select
from vap_lsp.cel.compile import CompileIssue, CompileResult
from vap_lsp.cel.types import DYN, ObjectType, maybe_unwrap_optional
from vap_lsp.policy.kinds import PolicyKind

__all__ = ["CHECK", "select_at", "selects_from_open_data", "type_check"]


@dataclass
class _Found:
    """One type-check problem: the kinds it is reachable for, and those a guard rules it out for."""

    site: ExpressionSite
    result: CompileResult
    issue: CompileIssue
    unguarded: list[GVK] = field(default_factory=list)
    guarded: dict[str, list[GVK]] = field(default_factory=dict)
    """Guard text → the kinds it makes the problem unreachable for."""


def _problems(context: PolicyContext) -> dict[IssueKey, _Found]:
    """Each problem of the type-check views not already a create-time error, with the kinds it can
    run for and those a guard rules it out for. A kind whose schema is not found is skipped, as
    the server skips it (reference §4.1)."""
    reported = context.create_time_keys()
    found: dict[IssueKey, _Found] = {}
    for kind in (k for k in context.kinds if k.has_schema):
        view = context.type_check(kind)
        for site, result in view.results():
            checkpoint()
            reach = view.reachability(site)
            for issue in result.issues:
                if issue.phase == "result":
                    continue  # the type checker does not check result types
                key = issue_key(site, issue)
                if key in reported:
                    continue
                guard = reach.guard_at(issue.start - result.offset) if issue.start >= 0 else None
                entry = found.setdefault(key, _Found(site, result, issue))
                if guard is None:
                    entry.unguarded.append(kind.gvk)
                else:
                    entry.guarded.setdefault(guard.text, []).append(kind.gvk)
    return found


def type_check(context: PolicyContext) -> Iterator[Diagnostic]:
    if not context.kinds:
        return
    for entry in _problems(context).values():
        site, result, issue = entry.site, entry.result, entry.issue
        position = f"ERROR: {position_text(result, issue)}: {issue.message}"
        span = issue_span(site, issue)
        if context.policy is PolicyKind.VAP and site.kind in SERVER_TYPE_CHECKED:
            if entry.unguarded:
                text = f"{site.field}: type checking against {kinds_text(entry.unguarded)}: {position}"
                yield Diagnostic(span, Severity.WARNING, "cel-type-check", text, field=site.field)
            for guard_text, gvks in entry.guarded.items():
                where = kinds_text(gvks)
                text = (
                    f"{site.field}: type checking against {where}: {position}; "
                    f"unreachable for {where}: guarded by {guard_text}"
                )
                yield Diagnostic(span, Severity.INFORMATION, "cel-type-check-guarded", text, field=site.field)
            continue
        # Our own check of expressions the server never type-checks. Only a field the schema
        # lacks is a finding: typed overload errors (list(A.@idx) + list(B.@idx)) do not fail on
        # JSON-shaped runtime values. With several kinds the expression may dispatch on
        # object.kind, so the finding is only a hint then. Never in a branch a guard rules out.
        if not entry.unguarded:
            continue
        select = select_at(result, issue)
        if not issue.cel_message.startswith("undefined field") or selects_from_open_data(result, select):
            continue
        if select is not None and select.test_only:
            continue  # has() of a field the schema lacks is false at run time, never a failure
        severity = Severity.WARNING if len(context.kinds) == 1 else Severity.HINT
        text = (
            f"{site.field}: type checking against {kinds_text(entry.unguarded)} (vap-lsp's own check: the "
            f"API server does not type-check this expression): {position}"
        )
        yield Diagnostic(span, severity, "cel-type-check-extra", text, field=site.field)


def select_at(result: CompileResult, issue: CompileIssue) -> Select | None:
    """The field selection an "undefined field" issue is about."""
    parsed = result.parsed
    loc = issue.start - result.offset
    node = next((n for n in parsed.nodes_at_location(loc) if isinstance(n, Select)), None)
    return node if isinstance(node, Select) else None


def selects_from_open_data(result: CompileResult, node: Select | None) -> bool:
    """Whether the selection an "undefined field" issue is about (`select_at`) reads an object
    that may hold any field at run time: one without declared fields (schemaless), with open
    fields (a map), or whose schema preserves unknown fields (the type checker sees only the
    declared ones). Unknown: True."""
    if node is None or result.checked is None:
        return True
    owner, _ = maybe_unwrap_optional(result.checked.type_of(node.operand) or DYN)
    return (
        not isinstance(owner, ObjectType)
        or not owner.fields
        or owner.open_field_type is not None
        or owner.preserves_unknown_fields
    )


CHECK = policy_check(
    "type-check",
    ("cel-type-check", "cel-type-check-guarded", "cel-type-check-extra"),
    "Each expression against each matched kind's schema: the server's status.typeChecking warnings "
    "(guarded ones as information), and the same check of the expressions the server never "
    "type-checks.",
)(type_check)
