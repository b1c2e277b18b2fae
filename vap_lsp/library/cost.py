"""What a generated policy can cost at admission, by the same static estimate `vap-lsp check`
and hover give (`analysis.model.cost_estimates`: cel-go's estimator, lists without `maxItems` sized
from the 3 MiB request limit), set against the server's limits (`analysis.model.cost_budget`): each
expression and each variable is one program under the per-call limit; the validations and their
messageExpressions share one budget per evaluation."""

from __future__ import annotations

from dataclasses import dataclass

from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.model.cost_advice import policy_budgets, variables_read
from vap_lsp.analysis.model.cost_budget import PER_CALL_LIMIT, BudgetEstimate
from vap_lsp.analysis.model.cost_estimates import estimate_policy
from vap_lsp.analysis.model.object_context import ObjectContext
from vap_lsp.analysis.model.objects import object_data
from vap_lsp.cel.environment import ExpressionKind

__all__ = ["PER_CALL_LIMIT", "CheckCost", "PolicyCost", "estimate", "render"]


@dataclass(frozen=True)
class CheckCost:
    """One validation: its expression's estimate and its variables' (each a program of its own)."""

    check: str
    field: str
    expression: int
    """Worst case of the validation's expression (without the variables it reads)."""
    variables: int
    """Worst case of the costliest variable it reads."""
    kind: str

    @property
    def worst(self) -> int:
        return max(self.expression, self.variables)


@dataclass(frozen=True)
class PolicyCost:
    policy: str
    checks: tuple[CheckCost, ...]
    budgets: tuple[BudgetEstimate, ...]


def estimate(text: str, kubernetes_version: str) -> list[PolicyCost]:
    """The estimates of every ValidatingAdmissionPolicy in `text` (generated YAML)."""
    _, objects = parse_text(text)
    out: list[PolicyCost] = []
    for obj in objects:
        context = ObjectContext(obj, kubernetes_version).policy
        data = object_data(obj.node)
        if context is None or not isinstance(data, dict) or obj.kind != "ValidatingAdmissionPolicy":
            continue
        estimates = estimate_policy(context)
        variables = {e.site.name: e for e in estimates if e.site.kind is ExpressionKind.VARIABLE}
        annotations = (data.get("metadata") or {}).get("annotations") or {}
        names = str(annotations.get("vap-lsp/pss-checks", "")).split(",")
        checks: list[CheckCost] = []
        for e in estimates:
            if e.site.kind is not ExpressionKind.VALIDATION:
                continue
            index = e.site.path[2] if len(e.site.path) > 2 and isinstance(e.site.path[2], int) else -1
            parsed = context.view("precise", e.kind).result(e.site).parsed
            read = [variables[n].cost.max for n in variables_read(parsed) if n in variables]
            checks.append(
                CheckCost(
                    names[index] if 0 <= index < len(names) else e.site.field,
                    e.site.field,
                    e.cost.max,
                    max(read, default=0),
                    e.kind.gvk.kind if e.kind is not None else "",
                )
            )
        name = str((data.get("metadata") or {}).get("name", ""))
        out.append(PolicyCost(name, tuple(checks), tuple(policy_budgets(context))))
    return out


def _n(value: int) -> str:
    return "unbounded" if value >= 2**63 else f"{value:,}"


def render(costs: list[PolicyCost]) -> str:
    """A table per policy: each check's worst case against the per-call limit, then the budgets."""
    lines: list[str] = []
    for policy in costs:
        over = sum(1 for c in policy.checks if c.worst > PER_CALL_LIMIT)
        lines.append(
            f"{policy.policy}: {len(policy.checks)} validations, {over} of them over the per-call limit "
            f"({PER_CALL_LIMIT:,}) for a request of the largest size the server accepts (3 MiB)"
        )
        width = max((len(c.check) for c in policy.checks), default=5)
        lines.append(f"  {'check':<{width}}  {'expression':>26}  {'variables read (costliest)':>26}")
        for c in policy.checks:
            lines.append(f"  {c.check:<{width}}  {_n(c.expression):>26}  {_n(c.variables):>26}")
        for b in policy.budgets:
            lines.append(
                f"  budget {b.budget.name}: up to {_n(b.max)} of {b.budget.limit:,} "
                "(each program counted up to the per-call limit, where the server cancels it)"
            )
        lines.append("")
    return "\n".join(lines)
