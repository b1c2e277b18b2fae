"""Static cost estimates of a policy's expressions, with sizes from the matched kinds' schemas.

The API server never estimates the cost of an admission policy's expressions (kubernetes/apiserver
`pkg/admission/plugin/cel/compile.go` `CompileCELExpression` builds the program with no
`EstimateCost`; the per-call limit and budgets are enforced at runtime only). So the estimate here is
the one it makes for a CRD's `x-kubernetes-validations` rule (apiextensions
`pkg/apiserver/schema/cel/compilation.go`: `EstimateCost` with `library.CostEstimator` over a
`sizeEstimator` walking the rule's schema), applied to `object`/`oldObject` (the matched kind's
schema) and `params` (the `paramKind`'s): cel-go's estimator in `vap_lsp.cel.cost_estimate`, the
schema bounds in `vap_lsp.cel.schema_sizes`.

Variables: an expression reading `variables.x` sees `x`'s field path when `x` is a field read
(`variables.containers` = `object.spec.containers` keeps that list's bounds) and else the size
of `x`'s result. Their cost is not included (the server evaluates a variable once, charged to
the first expression that reads it): budget accounting adds each variable's own estimate once.

`request`, `namespaceObject` and `authorizer` get no sizes: their lists, maps and strings are
unbounded (0..2^64-1). (compile.go declares `request`'s and `namespaceObject`'s lists and maps with
MaxElements -1, i.e. unbounded too, and their strings with none: an estimate by those DeclTypes
would price every string of them at 0, which no request bounds.)

Types come from the precise view of each matched kind (`PolicyContext.view("precise", kind)`);
a policy matching several kinds is estimated per kind and the worst kind reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.matching import crd_schema_root, object_schema_root
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.cost_estimate import (
    ComprehensionCost,
    CostEstimate,
    Estimate,
    Path,
    SizeEstimate,
    estimate_cost,
    field_path,
)
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.schema_sizes import SchemaBound, SchemaRoot, SchemaSizes
from vap_lsp.cel.types import Type

__all__ = [
    "ExpressionEstimate",
    "RangeSize",
    "estimate_policy",
    "estimate_site",
    "kind_schema_root",
    "policy_sizes",
]


@dataclass(frozen=True, slots=True)
class RangeSize:
    """The range a comprehension iterates and what bounds it.

    `bound` is None when the range is not a schema field (a computed list, `request`, `dyn`);
    `bound.keyword` is None when the schema sets no bound, so the size is the most a 3 MiB request
    can hold: the schema keyword to add is `suggested_keyword`.
    """

    comprehension: ComprehensionCost
    path: Path | None
    bound: SchemaBound | None

    @property
    def field_path(self) -> str | None:
        """`spec.containers[*].env` (without the variable), None for a computed range."""
        return field_path(self.path) if self.path else None

    @property
    def variable(self) -> str | None:
        """`object`, `oldObject`, `params`, … (None for a computed range)."""
        return self.path[0] if self.path else None

    @property
    def bounded_by_schema(self) -> bool:
        return self.bound is not None and self.bound.keyword is not None

    @property
    def suggested_keyword(self) -> str:
        """`maxProperties` for a map, `maxItems` for a list (what the comprehension iterates)."""
        return "maxProperties" if self.comprehension.range_kind == "map" else "maxItems"


@dataclass(frozen=True)
class ExpressionEstimate:
    """The estimate of one expression site for one matched kind (None: `object` is `dyn`)."""

    site: ExpressionSite
    kind: KindTyping | None
    estimate: Estimate
    sizes: _PolicySizes
    checked: CheckedExpr = field(repr=False, compare=False)
    """What was estimated (for `with_bound`)."""
    version: str = ""

    @property
    def cost(self) -> CostEstimate:
        return self.estimate.cost

    @property
    def dominant(self) -> ComprehensionCost | None:
        """The outermost comprehension of the costliest nest."""
        return self.estimate.dominant

    def ranges(self, outer: ComprehensionCost | None = None) -> tuple[RangeSize, ...]:
        """The ranges of `outer`'s nest (default: the dominant one), outermost first."""
        outer = outer if outer is not None else self.dominant
        if outer is None:
            return ()
        out = []
        for c in self.estimate.nest(outer):
            bound = self.sizes.bound(c.range_path)
            # through a variable aliasing a field, the field's path (what a schema bound fixes)
            out.append(RangeSize(c, bound.path if bound is not None else c.range_path, bound))
        return tuple(out)

    def unbounded(self, outer: ComprehensionCost | None = None) -> tuple[RangeSize, ...]:
        """The ranges of the nest whose size no schema keyword bounds (the request-size worst case,
        or no schema at all): adding `maxItems`/`maxProperties` there lowers the estimate."""
        return tuple(r for r in self.ranges(outer) if not r.bounded_by_schema)

    def with_bound(self, path: Path, most: int) -> CostEstimate:
        """The estimate if the schema bounded the list or map at `path` to `most` items (what
        adding `maxItems: most` there would give), other sizes unchanged."""
        sizes = self.sizes.overridden(path, most)
        return estimate_cost(self.checked, sizes, kubernetes_version=self.version).cost

    def largest_bound_within(self, r: RangeSize, limit: int) -> int | None:
        """The largest `maxItems`/`maxProperties` on `r`'s field under which the estimate's
        maximum stays within `limit` (others as they are); 0 when only an empty one does; None
        when no bound does (the rest of the expression is too costly even with no items) or `r`
        is no schema field. A binary search over `with_bound` (the estimate grows with the bound)."""
        if r.path is None or r.bound is None:
            return None
        high = r.comprehension.iterations.max
        if self.with_bound(r.path, high).max <= limit:
            return high
        if self.with_bound(r.path, 0).max > limit:
            return None
        low = 0  # fits; `high` does not: the estimate grows with the bound
        while high - low > 1:
            middle = (low + high) // 2
            if self.with_bound(r.path, middle).max <= limit:
                low = middle
            else:
                high = middle
        return low


class _PolicySizes:
    """`SchemaSizes` for `object`/`oldObject`/`params`, plus `variables.<name>` as its source
    field path (an alias) or its result size."""

    def __init__(
        self,
        schema: SchemaSizes,
        variables: Mapping[str, Estimate],
        overrides: Mapping[Path, int] | None = None,
    ) -> None:
        self.schema = schema
        self.variables = dict(variables)
        self.overrides = dict(overrides or {})

    def overridden(self, path: Path, most: int) -> _PolicySizes:
        return _PolicySizes(self.schema, self.variables, {**self.overrides, path: most})

    def _aliased(self, path: Path) -> Path | None:
        if len(path) >= 2 and path[0] == "variables":
            found = self.variables.get(path[1])
            if found is not None and found.result_path is not None:
                return (*found.result_path, *path[2:])
        return None

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None:
        if not path:
            return None
        alias = self._aliased(path)
        resolved = alias if alias is not None else path
        if resolved in self.overrides:
            return SizeEstimate(0, self.overrides[resolved])
        if alias is not None:
            return self.schema.estimate_size(alias, type_)
        if len(path) == 2 and path[0] == "variables":
            found = self.variables.get(path[1])
            return found.result_size if found is not None else None
        return self.schema.estimate_size(path, type_)

    def bound(self, path: Path | None) -> SchemaBound | None:
        if not path:
            return None
        alias = self._aliased(path)
        return self.schema.bound(alias if alias is not None else path)


def kind_schema_root(context: PolicyContext, kind: KindTyping | None) -> SchemaRoot | None:
    """The schema `object` has for `kind` (built-in or CRD), None without one."""
    if kind is None or not kind.has_schema:
        return None
    gvk = kind.gvk
    if kind.source == "built-in":
        return object_schema_root(context.version, gvk)
    workspace = context.workspace
    crd = workspace.crd(gvk.group, gvk.version, gvk.kind, served_only=True) if workspace is not None else None
    return crd_schema_root(context.version, crd) if crd is not None else None


def policy_sizes(context: PolicyContext, kind: KindTyping | None) -> SchemaSizes:
    """Sizes of `object`, `oldObject` (the kind's schema) and `params` (the paramKind's)."""
    roots: dict[str, SchemaRoot] = {}
    root = kind_schema_root(context, kind)
    if root is not None:
        roots["object"] = roots["oldObject"] = root
    params = kind_schema_root(context, context.params_kind)
    if params is not None:
        roots["params"] = params
    return SchemaSizes(roots, kubernetes_version=context.version)


def estimate_site(
    context: PolicyContext, site: ExpressionSite, kind: KindTyping | None = None
) -> ExpressionEstimate | None:
    """The estimate of `site` for `kind` (default: the primary kind); None when the expression
    does not compile in that kind's precise view. Kept on the model, per kind and site."""
    kind = kind if kind is not None else context.primary
    gvk = kind.gvk if kind is not None else None
    found = context.derived(
        ("cost-estimate", gvk, id(site)),
        lambda: context.shared_estimate(gvk, site, lambda: _estimate(context, site, kind)),
    )
    if found is not None and found.site is not site:
        found = replace(found, site=site)  # the same text in this context's YAML
    return found


def _estimate(
    context: PolicyContext, site: ExpressionSite, kind: KindTyping | None
) -> ExpressionEstimate | None:
    checkpoint()
    view = context.view("precise", kind)
    result = view.result(site)
    checked = result.checked
    if not result.ok or checked is None:
        return None
    schema = _sizes(context, kind)
    variables: dict[str, Estimate] = {}
    if site.kind is not ExpressionKind.MATCH_CONDITION:
        read = context.variables_read(site)  # only what the expression selects: not the chain
        for other, name, _ in view.variables:
            if read is not None and name not in read:
                continue
            if other is site or (site.kind is ExpressionKind.VARIABLE and _index(other) >= _index(site)):
                continue
            found = estimate_site(context, other, kind)
            if found is not None:
                variables[name] = found.estimate
    sizes = _PolicySizes(schema, variables)
    estimate = estimate_cost(checked, sizes, kubernetes_version=context.version)
    return ExpressionEstimate(site, kind, estimate, sizes, checked, context.version)


def _sizes(context: PolicyContext, kind: KindTyping | None) -> SchemaSizes:
    """`policy_sizes`, one per model and kind: its walks of the schemas are shared by every site."""
    gvk = kind.gvk if kind is not None else None
    return context.derived(("schema-sizes", gvk), lambda: policy_sizes(context, kind))


def _index(site: ExpressionSite) -> int:
    index = site.path[2] if len(site.path) > 2 else None
    return index if isinstance(index, int) else 1 << 30


def estimate_policy(context: PolicyContext) -> list[ExpressionEstimate]:
    """Each expression site's estimate for its worst matched kind (by maximum cost), in site
    order; sites that do not compile are left out. With no typed kind, `object` is `dyn`."""
    kinds: list[KindTyping | None] = [k for k in context.kinds if k.has_schema] or [None]
    out: list[ExpressionEstimate] = []
    for site in context.sites:
        worst: ExpressionEstimate | None = None
        for kind in kinds:
            found = estimate_site(context, site, kind)
            if found is not None and (worst is None or found.cost.max > worst.cost.max):
                worst = found
        if worst is not None:
            out.append(worst)
    return out
