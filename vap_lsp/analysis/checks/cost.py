"""`cel-cost`: expressions whose estimated worst case the API server's cost limits would stop.

The server never estimates an admission policy's cost (`pkg/admission/plugin/cel/compile.go`
builds programs without `EstimateCost`): it enforces the limits at runtime, on the largest
objects, and `failurePolicy` decides. So this is advice (information by default, re-gradable):

- an expression whose estimated worst case exceeds the per-call limit (1,000,000): at runtime
  it would be cancelled with `operation cancelled: actual cost limit exceeded`;
- a budget of one evaluation (`analysis.cost_budget`: matchConditions; validations and
  messageExpressions; auditAnnotations; each mutation) that its expressions and the variables
  they read can exhaust together, each charge capped just past the per-call limit (an expression is
  cancelled there), so `validation failed due to running out of cost budget, …`.

Estimates are `analysis.cost_estimates`' (cel-go's estimator with Kubernetes' size estimator
over the matched kinds' schemas). The message names the comprehension that dominates and the
schema bound that would make it pass: for a range without `maxItems`/`maxProperties`, sized
from the 3 MiB request limit, the largest bound that brings the expression under the limit,
worked out with only the ranges a CRD bounds lowered (a built-in kind's lists keep their size: when
they alone cost too much, the message says that no bound there is enough instead of a number).
Ranges that are not schema fields (computed lists, `dyn` objects) have no bound to suggest:
those expressions are not reported (typing_coverage already says where types are missing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.cost_advice import (
    ELEMENT_LENGTH,
    Capped,
    SiteCost,
    charged,
    policy_costs,
    variable_fields,
)
from vap_lsp.analysis.model.cost_budget import (
    COST_LIMIT_EXCEEDED,
    OUT_OF_BUDGET,
    PER_CALL_LIMIT,
    BudgetEstimate,
    Charge,
    budgets,
    estimate_budgets,
)
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.text import shorten

__all__ = ["CHECK", "cost_diagnostics", "policy_cost_diagnostics"]


def _why(cost: SiteCost) -> str:
    """`dominated by `…`; spec.items has no maxItems in the CRD of …: add maxItems (…)`."""
    parts: list[str] = []
    if cost.comprehension_text:
        parts.append(f"dominated by `{shorten(cost.comprehension_text, 80)}`")
    lengths = [f.field for f in cost.fixes if f.keyword == "maxLength" and f.editable]
    with_lengths = f" with maxLength {ELEMENT_LENGTH} on {', '.join(lengths)}" if lengths else ""
    for f in cost.fixes:
        if f.current is None:
            text = (
                f"{f.field} has no {f.keyword} in {f.owner}, so it is sized as the most a 3 MiB "
                "request can hold"
            )
            action = f"add {f.keyword}"
        else:
            text = f"{f.field} has {f.keyword} {f.current:,} in {f.owner}"
            action = f"lower {f.keyword}"
        if not f.editable:
            text += ": nest fewer comprehensions over it"
        elif f.none_passes:
            alone = "no bound there alone keeps the expression under the per-call limit"
            text += f": {action} ({alone})" if f.current is None else f": {alone}"
        elif f.passing is not None and f.current is not None and f.passing >= f.current:
            pass  # the bound it has is enough once the others are set
        else:
            text += f": {action}" + (
                f" (at most {f.passing:,}{with_lengths} keeps the expression under the per-call limit)"
                if f.passing is not None
                else ""
            )
        parts.append(text)
    return "; ".join(parts)


def _times_over(cost: int) -> str:
    """How far over the per-call limit, when it is far enough to tell a user something (a cost
    near the limit wants a small bound; one a million times over wants a different expression)."""
    factor = cost / PER_CALL_LIMIT
    if factor < 2:
        return ""
    return f", {round(factor):,} times over" if factor >= 10 else f", {factor:.1f} times over"


def cost_diagnostics(
    costs: Sequence[SiteCost], sites: Iterable[ExpressionSite], variable_fields: Mapping[str, str]
) -> list[Diagnostic]:
    """`cel-cost` findings from the estimates of a policy's expressions. `sites`: all of the
    policy's expression sites in compile order (for its budgets); `variable_fields`: each
    variable's name → its expression's field."""
    out: list[Diagnostic] = []
    by_field = {c.site.field: c for c in costs}
    for c in costs:
        if c.max > PER_CALL_LIMIT and c.actionable:
            out.append(
                Diagnostic(
                    c.span(),
                    Severity.INFORMATION,
                    "cel-cost",
                    f"{c.site.field}: estimated cost up to {c.max:,} exceeds the per-call limit of "
                    f"{PER_CALL_LIMIT:,} the API server enforces at admission{_times_over(c.max)} "
                    f"(`{COST_LIMIT_EXCEEDED}`, then failurePolicy decides)"
                    + (f"; {why}" if (why := _why(c)) else ""),
                    field=c.site.field,
                )
            )
    site_list = [s for s in sites if s.kind is not ExpressionKind.VARIABLE]
    plan = budgets((s.kind, s.field) for s in site_list)

    def cost_of(path: str) -> Capped | None:
        found = by_field.get(path)
        return None if found is None else Capped(found.min, charged(found.max))

    def reads(path: str) -> tuple[str, ...]:
        found = by_field.get(path)
        return found.reads if found is not None else ()

    for estimate in estimate_budgets(plan, cost_of, reads, variable_fields):
        finding = _budget_finding(estimate, by_field)
        if finding is not None:
            out.append(finding)
    return out


def _budget_finding(estimate: BudgetEstimate, by_field: Mapping[str, SiteCost]) -> Diagnostic | None:
    if not estimate.exceeds:
        return None
    top: Charge | None = estimate.dominant()
    where = by_field.get(top.field) if top is not None else None
    if top is None or where is None or not where.actionable or not _all_schema(estimate, by_field):
        return None
    budget = estimate.budget
    shares = sum(1 for ch in estimate.charges if ch.cost.max > PER_CALL_LIMIT)
    capped = (
        f" ({shares} of them cancelled past the per-call limit, at {PER_CALL_LIMIT + 1:,} at least)"
        if shares > 1
        else ""
    )
    name = f"variables.{top.variable} ({top.field})" if top.variable else top.field
    message = (
        f"{budget.field}: the {budget.name} of one evaluation can cost up to {estimate.max:,} together"
        f"{capped}, over the {budget.limit:,} budget the API server gives them (`{OUT_OF_BUDGET}`); "
        f"the largest share is {name}, up to {where.max:,}"
    )
    why = _why(where)
    return Diagnostic(
        where.span(),
        Severity.INFORMATION,
        "cel-cost",
        message + (f": {why}" if why else ""),
        field=budget.field,
    )


def _all_schema(estimate: BudgetEstimate, by_field: Mapping[str, SiteCost]) -> bool:
    """Every charge that matters is estimated from schema fields (none from `dyn` data)."""
    return all(
        (found := by_field.get(ch.field)) is not None and found.schema_ranges
        for ch in estimate.charges
        if ch.cost.max > 0
    )


def policy_cost_diagnostics(context: PolicyContext) -> list[Diagnostic]:
    """`cel-cost` for one policy: each expression estimated for its worst matched kind."""
    costs = policy_costs(context)
    if not costs:
        return []
    return cost_diagnostics(costs, context.sites, variable_fields(context))


CHECK = policy_check(
    "cost",
    ("cel-cost",),
    "Expressions whose estimated worst case the server's per-call limit or a budget of one "
    "evaluation would stop, with the comprehension that dominates and the schema bound that passes.",
)(policy_cost_diagnostics)
