"""Hover: what an expression can cost and the limits the API server applies to it.

The estimate is `analysis.cost_estimates`' (cel-go's estimator over the kind `object` is typed
as here); the limits and the budget the expression shares are `analysis.cost_budget`'s, the worst
case of that budget `analysis.model.cost_advice.policy_budgets`'. The server itself never estimates an
admission policy: it counts at runtime and stops there.
"""

from __future__ import annotations

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.cost_advice import policy_budgets
from vap_lsp.analysis.model.cost_budget import PER_CALL_LIMIT
from vap_lsp.analysis.model.cost_estimates import estimate_site
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.features.cel_context import policy_cel
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.yaml.model import Path

__all__ = ["comprehension_cost_markdown", "expression_cost_markdown", "key_cost_markdown"]


def _range(lo: int, hi: int) -> str:
    return f"{lo:,}" if lo == hi else f"{lo:,} – {hi:,}"


def expression_cost_markdown(
    context: PolicyContext, site: ExpressionSite, kind: KindTyping | None = None
) -> str | None:
    """`Estimated cost: 4 – 1,204 (per-call limit 1,000,000) · budget …`, or None when the
    expression does not compile."""
    found = estimate_site(context, site, kind)
    if found is None:
        return None
    cost = found.cost
    over = " — **over the per-call limit**: the server would cancel it" if cost.max > PER_CALL_LIMIT else ""
    typed = f" for {found.kind.gvk.kind}" if found.kind is not None else ""
    limit = f"(per-call limit {PER_CALL_LIMIT:,})"
    lines = [f"**Estimated cost**{typed}: {_range(cost.min, cost.max)} {limit}{over}"]
    if site.kind is ExpressionKind.VARIABLE:
        lines.append(
            "Charged to the budget of each call that reads it, once per call (validations, "
            "messageExpressions, auditAnnotations, each mutation)."
        )
        return "\n\n".join(lines)
    for budget in policy_budgets(context):
        if site.field in budget.budget.fields:
            worst = f"{budget.max:,}" + (" (**can run out**)" if budget.exceeds else "")
            lines.append(
                f"Budget: {budget.budget.name}, {budget.budget.limit:,} per evaluation; "
                f"together up to {worst}, each expression counted up to the per-call limit "
                "(one past it where the server would cancel it)."
            )
    return "\n\n".join(lines)


def comprehension_cost_markdown(
    context: PolicyContext, site: ExpressionSite, comprehension_id: int, kind: KindTyping | None = None
) -> str | None:
    """The share of the comprehension `comprehension_id` in the expression's estimate."""
    found = estimate_site(context, site, kind)
    if found is None:
        return None
    for c in found.estimate.comprehensions:
        if c.node.id == comprehension_id:
            return (
                f"**This comprehension**: {_range(c.total.min, c.total.max)} of the expression's "
                f"{_range(found.cost.min, found.cost.max)} (up to {c.iterations.max:,} iterations)"
            )
    return None


def key_cost_markdown(snapshot: DocumentSnapshot, obj: K8sObject, path: Path) -> str | None:
    """The cost of the expression whose key (`expression:`, `messageExpression:`, …) is at
    `path` of the policy `obj`, for the YAML hover."""
    pc = policy_cel(snapshot, obj)
    if pc is None:
        return None
    for site in pc.sites:
        if site.path == path:
            return expression_cost_markdown(pc.context, site, pc.context.primary)
    return None
