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
from dataclasses import dataclass, replace

from vap_lsp.analysis.cost_budget import (
    COST_LIMIT_EXCEEDED,
    OUT_OF_BUDGET,
    PER_CALL_LIMIT,
    BudgetEstimate,
    Charge,
    budgets,
    estimate_budgets,
)
from vap_lsp.analysis.cost_estimates import ExpressionEstimate, RangeSize, estimate_policy
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.sites import ExpressionSite
from vap_lsp.analysis.typing import PolicyTyping
from vap_lsp.cel.ast import Ident, ParsedExpr, Select
from vap_lsp.cel.cost_estimate import Path, SizeEstimate, SizeEstimator, estimate_cost, field_path
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.types import Kind, Type
from vap_lsp.text import Span, shorten

__all__ = [
    "BoundFix",
    "SiteCost",
    "cost_diagnostics",
    "policy_budgets",
    "policy_cost_diagnostics",
    "site_cost",
    "variables_read",
]


@dataclass(frozen=True)
class BoundFix:
    """A schema bound that lowers an expression's estimate: `keyword` on `field` of `owner`."""

    field: str
    """`spec.items` (the range's field path without its variable)."""
    keyword: str
    """`maxItems` or `maxProperties`."""
    owner: str
    """Whose schema: `the CRD of example.com/v1 Widget`, `the built-in schema of v1 Pod`."""
    editable: bool
    """A CRD the user can change (False for built-in kinds)."""
    current: int | None = None
    """The bound the schema sets (None: none, sized from the request limit)."""
    passing: int | None = None
    """The largest bound (on every range of the nest the author can bound, at once) that brings
    the expression under the per-call limit (None: not worked out, or none is enough)."""
    none_passes: bool = False
    """Worked out, and no bound the author can set brings the expression under the per-call
    limit: what no schema can bound (a built-in kind's lists, computed values) costs too much."""


@dataclass(frozen=True)
class SiteCost:
    """What `cel-cost` needs of one expression's estimate."""

    site: ExpressionSite
    min: int
    max: int
    comprehension: tuple[int, int] | None = None
    """The dominating comprehension's [start, end) in the expression's compiled text."""
    comprehension_text: str = ""
    offset: int = 0
    """Where the compiled text starts in the scalar (`CompileResult.offset`)."""
    schema_ranges: bool = True
    """Every range of the dominating nest is a schema field (else nothing to suggest)."""
    fixes: tuple[BoundFix, ...] = ()
    reads: tuple[str, ...] = ()
    """The variables it reads directly."""
    nested: bool = False
    """The dominating comprehension has comprehensions inside it."""

    @property
    def actionable(self) -> bool:
        """Something the author can change: a CRD bound to add, or a nest to flatten. One pass
        over a built-in kind's list (containers) is left alone: its request-sized worst case is
        no advice anyone can follow."""
        return self.schema_ranges and (self.nested or any(f.editable for f in self.fixes))

    def span(self) -> Span:
        if self.comprehension is None:
            return self.site.node.source_span(self.offset, self.offset + len(self.site.text.strip()))
        start, end = self.comprehension
        return self.site.node.source_span(start + self.offset, end + self.offset)


def variables_read(parsed: ParsedExpr) -> tuple[str, ...]:
    """The `variables.<name>` an expression selects, in order of first use."""
    names: dict[str, None] = {}
    for node in parsed.walk():
        if isinstance(node, Select) and isinstance(node.operand, Ident) and node.operand.name == "variables":
            names.setdefault(node.field, None)
    return tuple(names)


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
                    f"{PER_CALL_LIMIT:,} the API server enforces at admission (`{COST_LIMIT_EXCEEDED}`, "
                    "then failurePolicy decides)" + (f"; {why}" if (why := _why(c)) else ""),
                    field=c.site.field,
                )
            )
    site_list = [s for s in sites if s.kind is not ExpressionKind.VARIABLE]
    plan = budgets((s.kind, s.field) for s in site_list)

    def cost_of(path: str) -> _Capped | None:
        found = by_field.get(path)
        return None if found is None else _Capped(found.min, _charged(found.max))

    def reads(path: str) -> tuple[str, ...]:
        found = by_field.get(path)
        return found.reads if found is not None else ()

    for estimate in estimate_budgets(plan, cost_of, reads, variable_fields):
        finding = _budget_finding(estimate, by_field)
        if finding is not None:
            out.append(finding)
    return out


def _charged(most: int) -> int:
    """The most an expression estimated at up to `most` is charged to its budget, counted as a
    worst case the server surely reaches: cel-go cancels a program once its cost passes the
    per-call limit (`cost > limit`), so a cancelled one is charged at least the limit plus one."""
    return min(most, PER_CALL_LIMIT + 1)


@dataclass(frozen=True)
class _Capped:
    min: int
    max: int


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


# --- from the estimator ------------------------------------------------------------------------


def policy_cost_diagnostics(typing: PolicyTyping) -> list[Diagnostic]:
    """`cel-cost` for one policy: each expression estimated for its worst matched kind."""
    costs = [site_cost(typing, e) for e in estimate_policy(typing)]
    if not costs:
        return []
    return cost_diagnostics(costs, typing.sites, _variable_fields(typing))


def policy_budgets(typing: PolicyTyping) -> list[BudgetEstimate]:
    """The estimated worst case of each budget of the policy (hover), charges capped at the
    per-call limit as in `cost_diagnostics`."""
    costs = {e.site.field: e for e in estimate_policy(typing)}
    plan = budgets((s.kind, s.field) for s in typing.sites if s.kind is not ExpressionKind.VARIABLE)

    def cost_of(path: str) -> _Capped | None:
        found = costs.get(path)
        return None if found is None else _Capped(found.cost.min, _charged(found.cost.max))

    def reads(path: str) -> tuple[str, ...]:
        found = costs.get(path)
        if found is None:
            return ()
        return variables_read(typing.view("precise", found.kind).result(found.site).parsed)

    return estimate_budgets(plan, cost_of, reads, _variable_fields(typing))


def _variable_fields(typing: PolicyTyping) -> dict[str, str]:
    return {s.name: s.field for s in typing.sites if s.kind is ExpressionKind.VARIABLE and s.name is not None}


def site_cost(typing: PolicyTyping, found: ExpressionEstimate) -> SiteCost:
    """What `cel-cost` and hover read of one estimate: the dominating comprehension, whether its
    ranges are schema fields, and the bounds that would lower it."""
    result = typing.view("precise", found.kind).result(found.site)
    dominant = found.dominant
    ranges = found.ranges()
    span = (dominant.node.start, dominant.node.end) if dominant is not None else None
    text = result.compiled_text[span[0] : span[1]] if span is not None else ""
    over = found.cost.max > PER_CALL_LIMIT
    fixes: dict[tuple[str, str], BoundFix] = {}
    for r in ranges:
        if r.bound is None or r.field_path is None:
            continue
        if r.bound.keyword is not None and r.bound.keyword not in ("maxItems", "maxProperties"):
            continue
        owner, editable = _owner(typing, found, r.variable)
        keyword = r.bound.keyword or r.suggested_keyword
        current = r.bound.max if r.bound.keyword else None
        fixes.setdefault((r.field_path, keyword), BoundFix(r.field_path, keyword, owner, editable, current))
    schema_ranges = all(r.bound is not None for r in ranges)
    # numbers only where the author can add them (a CRD), and only for what will be reported
    worth = over and schema_ranges and any(f.editable for f in fixes.values())
    strings = _unbounded_elements(found, ranges) if worth else ()
    strings = tuple(p for p in strings if _owner(typing, found, p[0])[1])  # a CRD's strings only
    for path in strings:
        owner, editable = _owner(typing, found, path[0])
        fixes.setdefault(
            (field_path(path), "maxLength"), BoundFix(field_path(path), "maxLength", owner, editable)
        )
    if worth:
        # only the ranges a CRD bounds can be lowered: a built-in kind's keep their size
        boundable = {
            path: most for path, most in _range_bounds(ranges).items() if _owner(typing, found, path[0])[1]
        }
        passing = _passing(found, boundable, strings)
        fixes = {
            k: replace(f, passing=passing, none_passes=passing is None)
            if f.keyword != "maxLength" and f.editable
            else f
            for k, f in fixes.items()
        }
    return SiteCost(
        found.site,
        found.cost.min,
        found.cost.max,
        span,
        text,
        result.offset,
        schema_ranges,
        tuple(fixes.values()),
        variables_read(result.parsed),
        len(ranges) > 1,
    )


def _owner(typing: PolicyTyping, found: ExpressionEstimate, variable: str | None) -> tuple[str, bool]:
    """Whose schema bounds a range of `variable` (`object`, `oldObject`, `params`)."""
    kind = typing.params_kind if variable == "params" else found.kind
    if kind is None:
        return "its schema", False
    gvk = kind.gvk
    name = f"{gvk.group}/{gvk.version} {gvk.kind}" if gvk.group else f"{gvk.version} {gvk.kind}"
    if kind.source == "built-in":
        return f"the built-in schema of {name}", False
    return f"the CRD of {name}", True


ELEMENT_LENGTH = 256
"""The maxLength assumed for unbounded string elements when working out a passing maxItems."""


class _Asked:
    """`sizes` that notes every path the estimator asks about (and its type)."""

    def __init__(self, sizes: SizeEstimator) -> None:
        self.sizes = sizes
        self.asked: dict[Path, Type] = {}

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None:
        if path is not None:
            self.asked.setdefault(tuple(path), type_)
        return self.sizes.estimate_size(path, type_)


def _max_with(found: ExpressionEstimate, bounds: Mapping[Path, int]) -> int:
    """The estimate's maximum if the schema bounded each path of `bounds` (lists and maps to
    that many items, strings to that length): `cost_estimates`' overrides, chained."""
    sizes = found.sizes
    for path, most in bounds.items():
        sizes = sizes.overridden(path, most)
    return estimate_cost(found.checked, sizes, kubernetes_version=found.version).cost.max


def _range_paths(ranges: Sequence[RangeSize]) -> tuple[Path, ...]:
    return tuple(_range_bounds(ranges))


def _range_bounds(ranges: Sequence[RangeSize]) -> dict[Path, int]:
    """Each schema range's path and the most items it can have now (its bound, or the request's
    worst case)."""
    out: dict[Path, int] = {}
    for r in ranges:
        if r.path is not None and r.bound is not None:
            out[tuple(r.path)] = max(out.get(tuple(r.path), 0), r.bound.max)
    return out


def _unbounded_elements(found: ExpressionEstimate, ranges: Sequence[RangeSize]) -> tuple[Path, ...]:
    """Strings inside the iterated ranges (`spec.items[*]`, `spec.items[*].name`) that no
    maxLength bounds and whose length counts: bounding one alone lowers the estimate."""
    paths = _range_paths(ranges)
    if not paths:
        return ()
    asked = _Asked(found.sizes)
    estimate_cost(found.checked, asked, kubernetes_version=found.version)
    out: dict[Path, None] = {}
    for path, typ in asked.asked.items():
        bound = found.sizes.bound(path) if typ.kind in (Kind.STRING, Kind.BYTES) else None
        if bound is None or bound.keyword is not None:
            continue
        resolved = tuple(bound.path)  # through a variable aliasing a field, the field
        if not any(resolved[: len(p)] == p for p in paths) or resolved in out:
            continue
        if _max_with(found, {resolved: ELEMENT_LENGTH}) < found.cost.max:
            out[resolved] = None
    return tuple(out)


def _passing(found: ExpressionEstimate, ranges: Mapping[Path, int], strings: tuple[Path, ...]) -> int | None:
    """The largest bound on the ranges the author can bound (`ranges`: path → the most items it can
    have now), all at once and none above what it has, with their unbounded string elements at
    ELEMENT_LENGTH, that brings the expression under the per-call limit: a binary search over
    re-estimates (`ExpressionEstimate.largest_bound_within` does one range alone; a nest over two
    lists needs both bounded). The other ranges keep their size. None when even 1 is not enough."""
    most = max(ranges.values(), default=0)
    if most < 1:
        return None

    def fits(n: int) -> bool:
        bounds = {**{p: ELEMENT_LENGTH for p in strings}, **{p: min(n, now) for p, now in ranges.items()}}
        return _max_with(found, bounds) <= PER_CALL_LIMIT

    if not fits(1):
        return None
    lo, hi = 1, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
