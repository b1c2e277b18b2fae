"""`cel-type-check`: what the server's type checker says of each expression, per matched kind.

The type-check controller (`typechecking.go`) compiles VAP validations and messageExpressions
against each matched kind's schema in the StoredExpressions environment and writes its warnings to
`status.typeChecking`: one warning per problem here, naming the kinds it fails for. The other
expressions (and every MAP expression, which the server never type-checks) get the same check as
vap-lsp's own (`cel-type-check-extra`), reported only where a field the schema lacks is read.

Narrowing by guards (`model.narrowing`): a problem in a branch that cannot run for a kind
(`object.kind != 'Pod' || …` for a Deployment) is still the server's warning, but the branch is
one thing: one `cel-type-check-guarded` note per unreachable branch (information), naming the
kinds it cannot run for and the guard, with the server's warnings inside it as related
information. A branch that runs for no kind at all is dead code: tagged unnecessary (editors fade
it). vap-lsp's own check is silent there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from vap_lsp.analysis.checks.cel_text import issue_span, kinds_text, position_text
from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.analysis.model.context import SERVER_TYPE_CHECKED, IssueKey, PolicyContext, issue_key
from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.narrowing import Guard, written_span
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import untyped_field_note
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Expr, Select
from vap_lsp.cel.compile import CompileIssue, CompileResult
from vap_lsp.cel.types import DYN, ObjectType, maybe_unwrap_optional
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import Path

__all__ = ["CHECK", "select_at", "selects_from_open_data", "type_check", "untyped_field"]


@dataclass
class _Found:
    """One type-check problem: the kinds it is reachable for, and those a guard rules it out for."""

    site: ExpressionSite
    result: CompileResult
    issue: CompileIssue
    unguarded: list[GVK] = field(default_factory=list)
    guarded: list[tuple[Guard, GVK]] = field(default_factory=list)
    """The guard that makes the problem unreachable, for each kind it does."""


@dataclass
class _Branch:
    """A sub-expression a guard rules out for some kinds, and the server's warnings inside it."""

    site: ExpressionSite
    result: CompileResult
    node: Expr
    guards: dict[str, list[GVK]] = field(default_factory=dict)
    """Guard text → the kinds it rules the branch out for."""
    problems: list[tuple[CompileIssue, list[GVK]]] = field(default_factory=list)


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
            for issue in result.issues:
                if issue.phase == "result":
                    continue  # the type checker does not check result types
                key = issue_key(site, issue)
                if key in reported:
                    continue
                at = issue.start - result.offset
                guard = view.reachability(site).guard_at(at) if issue.start >= 0 else None
                entry = found.setdefault(key, _Found(site, result, issue))
                if guard is None:
                    entry.unguarded.append(kind.gvk)
                else:
                    entry.guarded.append((guard, kind.gvk))
    return found


def type_check(context: PolicyContext) -> Iterator[Diagnostic]:
    if not context.kinds:
        return
    branches: dict[tuple[Path, int, int], _Branch] = {}
    for entry in _problems(context).values():
        site, result, issue = entry.site, entry.result, entry.issue
        position = f"ERROR: {position_text(result, issue)}: {issue.message}"
        span = issue_span(site, issue)
        if context.policy is PolicyKind.VAP and site.kind in SERVER_TYPE_CHECKED:
            if entry.unguarded:
                text = f"{site.field}: type checking against {kinds_text(entry.unguarded)}: {position}"
                untyped = untyped_field(result, issue)
                related = () if untyped is None else (Related(span, untyped_field_note(untyped)),)
                yield Diagnostic(
                    span, Severity.WARNING, "cel-type-check", text, field=site.field, related=related
                )
            _fold(branches, entry)
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
    yield from _branch_notes(context, branches)


def _fold(branches: dict[tuple[Path, int, int], _Branch], entry: _Found) -> None:
    """Each kind's guarded occurrence of a problem, into the branch its guard rules out."""
    by_branch: dict[tuple[Path, int, int], list[GVK]] = {}
    for guard, gvk in entry.guarded:
        node = guard.branch if guard.branch is not None else entry.result.parsed.ast
        if node is None:
            continue
        key = (entry.site.path, node.start, node.end)
        branch = branches.setdefault(key, _Branch(entry.site, entry.result, node))
        kinds = branch.guards.setdefault(guard.text, [])
        if gvk not in kinds:
            kinds.append(gvk)
        by_branch.setdefault(key, []).append(gvk)
    for key, gvks in by_branch.items():
        branches[key].problems.append((entry.issue, gvks))


def _branch_notes(
    context: PolicyContext, branches: dict[tuple[Path, int, int], _Branch]
) -> Iterator[Diagnostic]:
    """One note per unreachable branch, the server's warnings inside it as related information."""
    typed = [k for k in context.kinds if k.has_schema]
    for branch in branches.values():
        site, result, node = branch.site, branch.result, branch.node
        kinds = [k.gvk for k in typed if any(k.gvk in gvks for gvks in branch.guards.values())]
        guards = list(branch.guards.items())
        if len(guards) == 1:
            why = f"unreachable for {kinds_text(kinds)}: guarded by {guards[0][0]}"
        else:
            why = "; ".join(f"unreachable for {kinds_text(gvks)}: guarded by {text}" for text, gvks in guards)
        count = len(branch.problems)
        message = (
            f"{site.field}: {why}; the API server's type checker reports {count} "
            f"problem{'' if count == 1 else 's'} here for "
            f"{'it' if len(kinds) == 1 else 'them'} (status.typeChecking); none can occur at admission"
        )
        related = tuple(
            Related(
                issue_span(site, issue),
                f"type checking against {kinds_text(gvks)}: "
                f"ERROR: {position_text(result, issue)}: {issue.message}",
            )
            for issue, gvks in branch.problems
        )
        # Dead code only when no kind the policy is type-checked against can run it.
        dead = all(context.type_check(k).reachability(site).guard_of(node) is not None for k in typed)
        start, end = written_span(result.parsed, node)
        span = site.node.source_span(start + result.offset, end + result.offset)
        yield Diagnostic(
            span,
            Severity.INFORMATION,
            "cel-type-check-guarded",
            message,
            field=site.field,
            related=related,
            unnecessary=dead,
        )


def select_at(result: CompileResult, issue: CompileIssue) -> Select | None:
    """The field selection an "undefined field" issue is about."""
    parsed = result.parsed
    loc = issue.start - result.offset
    node = next((n for n in parsed.nodes_at_location(loc) if isinstance(n, Select)), None)
    return node if isinstance(node, Select) else None


def selects_from_open_data(result: CompileResult, node: Select | None) -> bool:
    """Whether the selection an "undefined field" issue is about (`select_at`) reads an object
    that may hold any field at run time: one without declared fields (schemaless), with open
    fields (a map), whose schema preserves unknown fields (the type checker sees only the
    declared ones), or a field its schema declares without a type (`untyped_field`). Unknown:
    True."""
    if node is None or result.checked is None:
        return True
    owner, _ = maybe_unwrap_optional(result.checked.type_of(node.operand) or DYN)
    return (
        not isinstance(owner, ObjectType)
        or not owner.fields
        or owner.open_field_type is not None
        or owner.preserves_unknown_fields
        or node.field in owner.untyped_fields
    )


def untyped_field(result: CompileResult, issue: CompileIssue) -> str | None:
    """The field an "undefined field" issue selects when the schema declares it without a type
    (a Quantity or a map of them: `resources.limits`, `emptyDir.sizeLimit`): `SchemaDeclType`
    leaves it out of the type, so the server warns, though objects at admission hold it."""
    if not issue.cel_message.startswith("undefined field") or result.checked is None:
        return None
    node = select_at(result, issue)
    if node is None:
        return None
    owner, _ = maybe_unwrap_optional(result.checked.type_of(node.operand) or DYN)
    return node.field if isinstance(owner, ObjectType) and node.field in owner.untyped_fields else None


CHECK = policy_check(
    "type-check",
    ("cel-type-check", "cel-type-check-guarded", "cel-type-check-extra"),
    "Each expression against each matched kind's schema: the server's status.typeChecking warnings "
    "(guarded ones as information), and the same check of the expressions the server never "
    "type-checks.",
)(type_check)
