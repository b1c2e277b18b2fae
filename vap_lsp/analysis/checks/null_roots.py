"""A root read without a null guard where admission makes it null: the expression fails.

`oldObject` on CREATE, `object` on DELETE, `namespaceObject` for cluster-scoped kinds and in
every matchCondition (they run without the namespace): the policy context says which requests
the policy sees (`PolicyContext.null_cases`), narrowing (`model.narrowing.NullFlow`) which reads
a guard keeps from running there. A warning: the expression fails for every such request.
"""

from __future__ import annotations

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.guarantees import (
    CODE_NAMESPACE_OBJECT_NULL,
    CODE_OBJECT_ON_DELETE,
    CODE_OLD_OBJECT_ON_CREATE,
)
from vap_lsp.analysis.model.narrowing import NullFlow
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Ident

__all__ = ["CHECK", "null_roots"]


def null_roots(context: PolicyContext) -> list[Diagnostic]:
    """Roots read without a null guard where they can be null (warnings: the expression fails
    for every such request). Narrowing (`narrowing.NullFlow`, per matched kind in the requests
    where the root is null) decides the guards: `request.operation`, `x == null`, `has(x.f)`,
    a kind or scope test, variables holding such tests, in the expression and in
    matchConditions; `.?` and `has()` are safe on null."""
    diagnostics: list[Diagnostic] = []
    results = context.create_time().results()
    parsed = [(site, result.parsed) for site, result in results]
    offsets = {id(site): result.offset for site, result in results}
    for case in context.null_cases():
        flow = NullFlow(
            case.root, list(case.facts), parsed, context.variable_asts, conditions_guard=case.conditions_guard
        )
        if flow.excluded:
            continue  # a match condition already keeps those requests out
        for site, _ in parsed:
            if not case.sites(site):
                continue
            checkpoint()
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


CHECK = policy_check(
    "null-roots",
    (CODE_OLD_OBJECT_ON_CREATE, CODE_OBJECT_ON_DELETE, CODE_NAMESPACE_OBJECT_NULL),
    "A root read without a null guard where admission makes it null (oldObject on CREATE, object "
    "on DELETE, namespaceObject of cluster-scoped kinds and in matchConditions).",
)(null_roots)
