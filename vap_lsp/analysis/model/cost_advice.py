"""What cost advice needs of a policy's estimates: the comprehension that dominates an
expression, whether its ranges are schema fields, and the schema bounds that would lower it.

The estimates are `model.cost_estimates`' (cel-go's estimator with Kubernetes' size estimator over
the matched kinds' schemas); the budgets are kube-apiserver's (`model.cost_budget`). For a range
without `maxItems`/`maxProperties`, sized from the 3 MiB request limit, the largest bound that
brings the expression under the per-call limit is worked out with only the ranges a CRD bounds
lowered (a built-in kind's lists keep their size). The `cel-cost` check and hover read these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.cost_budget import PER_CALL_LIMIT, BudgetEstimate, budgets, estimate_budgets
from vap_lsp.analysis.model.cost_estimates import ExpressionEstimate, RangeSize, estimate_policy
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.ast import Ident, ParsedExpr, Select
from vap_lsp.cel.cost_estimate import Path, SizeEstimate, SizeEstimator, estimate_cost, field_path
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.types import Kind, Type
from vap_lsp.text import Span

__all__ = [
    "ELEMENT_LENGTH",
    "BoundFix",
    "Capped",
    "SiteCost",
    "charged",
    "policy_budgets",
    "policy_costs",
    "site_cost",
    "variable_fields",
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


def charged(most: int) -> int:
    """The most an expression estimated at up to `most` is charged to its budget, counted as a
    worst case the server surely reaches: cel-go cancels a program once its cost passes the
    per-call limit (`cost > limit`), so a cancelled one is charged at least the limit plus one."""
    return min(most, PER_CALL_LIMIT + 1)


@dataclass(frozen=True)
class Capped:
    min: int
    max: int


def policy_costs(context: PolicyContext) -> list[SiteCost]:
    """Each expression's estimate for its worst matched kind, as cost advice reads it."""
    return [site_cost(context, e) for e in estimate_policy(context)]


def policy_budgets(context: PolicyContext) -> list[BudgetEstimate]:
    """The estimated worst case of each budget of the policy (hover), charges capped at the
    per-call limit as in `cost_diagnostics`."""
    costs = {e.site.field: e for e in estimate_policy(context)}
    plan = budgets((s.kind, s.field) for s in context.sites if s.kind is not ExpressionKind.VARIABLE)

    def cost_of(path: str) -> Capped | None:
        found = costs.get(path)
        return None if found is None else Capped(found.cost.min, charged(found.cost.max))

    def reads(path: str) -> tuple[str, ...]:
        found = costs.get(path)
        if found is None:
            return ()
        return variables_read(context.view("precise", found.kind).result(found.site).parsed)

    return estimate_budgets(plan, cost_of, reads, variable_fields(context))


def variable_fields(context: PolicyContext) -> dict[str, str]:
    return {
        s.name: s.field for s in context.sites if s.kind is ExpressionKind.VARIABLE and s.name is not None
    }


def site_cost(context: PolicyContext, found: ExpressionEstimate) -> SiteCost:
    """What `cel-cost` and hover read of one estimate: the dominating comprehension, whether its
    ranges are schema fields, and the bounds that would lower it."""
    result = context.view("precise", found.kind).result(found.site)
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
        owner, editable = _owner(context, found, r.variable)
        keyword = r.bound.keyword or r.suggested_keyword
        current = r.bound.max if r.bound.keyword else None
        fixes.setdefault((r.field_path, keyword), BoundFix(r.field_path, keyword, owner, editable, current))
    schema_ranges = all(r.bound is not None for r in ranges)
    # numbers only where the author can add them (a CRD), and only for what will be reported
    worth = over and schema_ranges and any(f.editable for f in fixes.values())
    strings = _unbounded_elements(found, ranges) if worth else ()
    strings = tuple(p for p in strings if _owner(context, found, p[0])[1])  # a CRD's strings only
    for path in strings:
        owner, editable = _owner(context, found, path[0])
        fixes.setdefault(
            (field_path(path), "maxLength"), BoundFix(field_path(path), "maxLength", owner, editable)
        )
    if worth:
        # only the ranges a CRD bounds can be lowered: a built-in kind's keep their size
        boundable = {
            path: most for path, most in _range_bounds(ranges).items() if _owner(context, found, path[0])[1]
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


def _owner(context: PolicyContext, found: ExpressionEstimate, variable: str | None) -> tuple[str, bool]:
    """Whose schema bounds a range of `variable` (`object`, `oldObject`, `params`)."""
    kind = context.params_kind if variable == "params" else found.kind
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
