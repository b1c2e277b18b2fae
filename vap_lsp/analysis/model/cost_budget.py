"""How kube-apiserver accounts CEL cost for an admission policy: the one model of which
expressions share which budget, used by the admission engine (the verdict when a budget runs
out, `run --explain`), the `cel-cost` diagnostic and hover.

What the server does (the same in Kubernetes 1.30–1.35, `k8s.io/apiserver`):

- Every expression is its own cel-go program built with `cel.CostLimit(PerCallLimit)`
  (`pkg/admission/plugin/cel/compile.go`): evaluation stops at 1,000,000 with
  `operation cancelled: actual cost limit exceeded`. A variable is a program of its own, so its
  cost is not part of the per-call cost of the expression that reads it.
- Each list of expressions is evaluated by one `ForInput` call (`plugin/cel/condition.go`,
  `activation.go` `Evaluate`): all of them in order, each one's actual cost (and the cost of the
  variables it read first, `composition.go` `GetAndResetCost`) taken from what is left of the
  budget the call was given. An expression that costs more than what is left ends the call with
  `validation failed due to running out of cost budget, no further validation rules will be
  run`. Each call builds its own lazily evaluated `variables` map (`composition.go`
  `Variables`), so a variable is charged once per call, and again in the next call.
- ValidatingAdmissionPolicy (`policy/validating/validator.go` `Validate`): matchConditions get
  `RuntimeCELCostBudgetMatchConditions` (2,500,000, `webhook/matchconditions/matcher.go`);
  validations get `RuntimeCELCostBudget` (10,000,000) and the messageExpressions what the
  validations left (a second call: variables charged again); auditAnnotations a fresh
  10,000,000 (a third call).
- MutatingAdmissionPolicy (`policy/mutating/dispatcher.go` `dispatchOne`,
  `patch/smd.go`/`json_patch.go`): matchConditions as above; each mutation is one call with its
  own 10,000,000 and its own `variables` map (variables read the object as mutated so far).

The per-evaluation budgets are per (policy, binding, param) evaluation. The constants are
`k8s.io/apiserver/pkg/apis/cel/config.go`'s.

In 1.30–1.31 `StrictCostEnforcementForVAP` is off by default (`pkg/features`: beta, default
false; GA locked on from 1.32) and the runtime cost of Kubernetes library calls is then cel-go's
default 1: the interpreter counts them so for those versions (`interpreter.library_costs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from vap_lsp.cel.environment import ExpressionKind

__all__ = [
    "COST_LIMIT_EXCEEDED",
    "MATCH_CONDITIONS_BUDGET",
    "OUT_OF_BUDGET",
    "PER_CALL_LIMIT",
    "RUNTIME_BUDGET",
    "Budget",
    "BudgetEstimate",
    "BudgetUse",
    "Charge",
    "CostRange",
    "Meter",
    "Phase",
    "budgets",
    "estimate_budgets",
]

PER_CALL_LIMIT = 1_000_000
"""celconfig.PerCallLimit: the most one expression's program may cost."""
RUNTIME_BUDGET = 10_000_000
"""celconfig.RuntimeCELCostBudget: validations (+ messageExpressions), auditAnnotations, each
MAP mutation."""
MATCH_CONDITIONS_BUDGET = 2_500_000
"""celconfig.RuntimeCELCostBudgetMatchConditions: all matchConditions of one evaluation."""

COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
"""cel-go's error when a program passes its per-call limit (`interpreter.EvalCancelledError`)."""
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"
"""`activation.go`'s error when an expression costs more than what is left of the budget."""


@dataclass(frozen=True)
class Phase:
    """One `ForInput` call: its expressions (policy field paths) are evaluated in order with one
    lazily evaluated `variables` map, so a variable read in it is charged once."""

    name: str
    fields: tuple[str, ...]


@dataclass(frozen=True)
class Budget:
    """A budget and the calls that spend it, in order (messageExpressions spend what the
    validations left)."""

    name: str
    """What the budget is for, as `run --explain` and diagnostics name it."""
    field: str
    """Where in the policy (the first phase's list), for diagnostics."""
    limit: int
    phases: tuple[Phase, ...]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(f for p in self.phases for f in p.fields)


_LIST = {
    ExpressionKind.MATCH_CONDITION: "spec.matchConditions",
    ExpressionKind.VALIDATION: "spec.validations",
    ExpressionKind.MESSAGE_EXPRESSION: "spec.validations",
    ExpressionKind.AUDIT_ANNOTATION: "spec.auditAnnotations",
}


def budgets(expressions: Iterable[tuple[ExpressionKind, str]]) -> list[Budget]:
    """The budgets of one policy evaluation, from its expressions (kind, field path) in the
    order the server compiles them (`analysis.sites.expression_sites`). Variables are not
    listed: they are charged to the phase that reads them first."""
    by_kind: dict[ExpressionKind, list[str]] = {}
    for kind, path in expressions:
        by_kind.setdefault(kind, []).append(path)
    out: list[Budget] = []
    conditions = by_kind.get(ExpressionKind.MATCH_CONDITION, [])
    if conditions:
        out.append(
            Budget(
                "matchConditions",
                "spec.matchConditions",
                MATCH_CONDITIONS_BUDGET,
                (Phase("matchConditions", tuple(conditions)),),
            )
        )
    validations = by_kind.get(ExpressionKind.VALIDATION, [])
    messages = by_kind.get(ExpressionKind.MESSAGE_EXPRESSION, [])
    if validations or messages:
        phases = [Phase("validations", tuple(validations))]
        if messages:
            phases.append(Phase("messageExpressions", tuple(messages)))
        out.append(
            Budget("validations and messageExpressions", "spec.validations", RUNTIME_BUDGET, tuple(phases))
        )
    audits = by_kind.get(ExpressionKind.AUDIT_ANNOTATION, [])
    if audits:
        out.append(
            Budget(
                "auditAnnotations",
                "spec.auditAnnotations",
                RUNTIME_BUDGET,
                (Phase("auditAnnotations", tuple(audits)),),
            )
        )
    for kind in (ExpressionKind.MAP_APPLY_CONFIGURATION, ExpressionKind.MAP_JSON_PATCH):
        for path in by_kind.get(kind, []):
            mutation = _mutation_field(path)
            out.append(Budget(mutation, mutation, RUNTIME_BUDGET, (Phase(mutation, (path,)),)))
    out.sort(key=lambda b: _order(b.field))
    return out


def _mutation_field(path: str) -> str:
    """`spec.mutations[2].applyConfiguration.expression` → `spec.mutations[2]`."""
    end = path.find("]")
    return path[: end + 1] if path.startswith("spec.mutations[") and end > 0 else path


def _order(budget_field: str) -> tuple[int, int]:
    """matchConditions first, then validations, auditAnnotations, mutations in index order."""
    for rank, prefix in enumerate(("spec.matchConditions", "spec.validations", "spec.auditAnnotations")):
        if budget_field == prefix:
            return rank, 0
    index = budget_field[len("spec.mutations[") : -1]
    return 3, int(index) if index.isdigit() else 0


# --- at admission ----------------------------------------------------------------------------------


@dataclass
class BudgetUse:
    """What one evaluation spent of one budget (`run --explain`)."""

    name: str
    limit: int
    spent: int = 0
    exhausted: bool = False
    """An expression cost more than what was left: the server stopped there (OUT_OF_BUDGET)."""

    @property
    def left(self) -> int:
        return self.limit - self.spent

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "limit": self.limit,
            "spent": self.spent,
            "left": self.left,
            "exhausted": self.exhausted,
        }


class Meter:
    """One budget as `activation.go` spends it: a cost larger than what is left is refused
    (nothing is taken) and the budget is exhausted; otherwise it is taken."""

    def __init__(self, use: BudgetUse) -> None:
        self.use = use

    def charge(self, cost: int) -> bool:
        """Take `cost`; False (the server's OUT_OF_BUDGET) when it is more than what is left."""
        if cost > self.use.left:
            self.use.exhausted = True
            return False
        self.use.spent += cost
        return True


# --- estimated -------------------------------------------------------------------------------------


class CostRange(Protocol):
    """An estimated cost: the least and the most an expression can cost (the estimator's
    `cel.cost_estimate.CostEstimate`, or any pair)."""

    @property
    def min(self) -> int: ...

    @property
    def max(self) -> int: ...


@dataclass(frozen=True)
class Charge:
    """One program charged to a budget: an expression, or a variable read by a phase."""

    field: str
    cost: CostRange
    variable: str | None = None
    """The variable's name, when the charge is a variable read in `phase`."""
    phase: str = ""


@dataclass(frozen=True)
class BudgetEstimate:
    """The worst case of one budget: every expression of every phase evaluated, each variable
    read in a phase charged once to it. `max` over the limit: the server can run out."""

    budget: Budget
    charges: tuple[Charge, ...] = field(default_factory=tuple)
    unknown: tuple[str, ...] = ()
    """Fields with no estimate (they do not compile): the sums leave them out."""

    @property
    def min(self) -> int:
        """Only the expressions: a variable is read lazily, and maybe not at all."""
        return sum(c.cost.min for c in self.charges if c.variable is None)

    @property
    def max(self) -> int:
        return sum(c.cost.max for c in self.charges)

    @property
    def exceeds(self) -> bool:
        return self.max > self.budget.limit

    def dominant(self) -> Charge | None:
        """The charge with the largest worst case (the first of equals)."""
        best: Charge | None = None
        for c in self.charges:
            if best is None or c.cost.max > best.cost.max:
                best = c
        return best


def estimate_budgets(
    budget_list: Sequence[Budget],
    cost_of: Callable[[str], CostRange | None],
    variables_read: Callable[[str], Iterable[str]],
    variable_fields: Mapping[str, str],
) -> list[BudgetEstimate]:
    """The worst case of each budget. `cost_of(field)`: the estimate of the expression at
    `field` (None: unknown); `variables_read(field)`: the variable names it reads directly;
    `variable_fields`: each variable's name → its expression's field. A variable read by a
    variable is charged too (the same lazy map), once per phase."""
    out: list[BudgetEstimate] = []
    for budget in budget_list:
        charges: list[Charge] = []
        unknown: list[str] = []
        for phase in budget.phases:
            seen: set[str] = set()
            for path in phase.fields:
                cost = cost_of(path)
                if cost is None:
                    unknown.append(path)
                else:
                    charges.append(Charge(path, cost, None, phase.name))
                for name in _closure(path, variables_read, variable_fields):
                    if name in seen:
                        continue
                    seen.add(name)
                    var_field = variable_fields[name]
                    var_cost = cost_of(var_field)
                    if var_cost is None:
                        unknown.append(var_field)
                    else:
                        charges.append(Charge(var_field, var_cost, name, phase.name))
        out.append(BudgetEstimate(budget, tuple(charges), tuple(dict.fromkeys(unknown))))
    return out


def _closure(
    path: str, variables_read: Callable[[str], Iterable[str]], variable_fields: Mapping[str, str]
) -> list[str]:
    """The variables `path` reads, directly or through other variables, in first-read order."""
    out: list[str] = []
    stack = [n for n in reversed(list(variables_read(path))) if n in variable_fields]
    while stack:
        name = stack.pop()
        if name in out:
            continue
        out.append(name)
        stack.extend(n for n in reversed(list(variables_read(variable_fields[name]))) if n in variable_fields)
    return out
