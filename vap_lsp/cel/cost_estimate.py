"""Static cost estimate of a checked CEL expression: cel-go's checker cost estimator with Kubernetes'
library estimators, as the API server computes it for CRD validation rules.

Sources (read, not copied):

* google/cel-go v0.26 (Kubernetes 1.34–1.36) `checker/cost.go`: `SizeEstimate`/`CostEstimate` with
  saturating uint64 arithmetic (`addUint64NoOverflow`, `multiplyByCostFactor` through float64 and
  `ceil`), per-node costs (literal 0, identifier and field selection 1, list 10, map 30, message 40,
  presence test 0 under Kubernetes' `PresenceTestHasCost(false)`), comprehensions as range size ×
  (loop condition + step), `cel.bind` as its initialiser and result, field paths through
  `@items`/`@values`/`@keys`/`@indices`, entry sizes of literal lists and maps, and the per-overload
  defaults (`matches`, `contains`, string concatenation, comparisons by the smaller size, `in`
  over lists, `startsWith`/`endsWith`, `bytes`/`string` conversions, `strings.quote`, `format`);
* cel-go v0.26 `ext/sets.go` and `ext/lists.go` (`OverloadCostEstimate` of the ext libraries);
* kubernetes/apiserver `pkg/cel/library/cost.go` `CostEstimator.EstimateCallCost` (v0.30–v0.36,
  and `includes` of the lists library as the development branch for 1.37 estimates it):
  authz, selectors, lists, regex, url, ip, cidr, quantity, semver, format, jsonpatch; equality of
  Kubernetes types is estimated from 1.32 (`_==_`, "Add equality cost checking"), the semver
  functions from 1.33; before that they take cel-go's defaults.

What is estimated is the checked AST (no `OptOptimize` folding, which only the runtime does), so
the estimate of an expression over constant lists is Kubernetes' figure, above the runtime cost.

Sizes of variables come from a `SizeEstimator` (the Kubernetes `sizeEstimator` of
apiextensions `compilation.go` walks the rule's schema by field path; `schema_sizes` does the same
for `object`/`oldObject`/`params`). Without one, every string, list and map is unbounded
(0..2^64-1), as in cel-go.

Known differences: 1.30–1.32 bundle cel-go v0.17–v0.22, whose estimator lacked entry sizes of
literal containers and two-variable comprehensions; this module always estimates as v0.23+ does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from vap_lsp.cel import types as t
from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapExpr,
    Select,
    StructExpr,
)
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.library import cel_go_before
from vap_lsp.cel.library import kubernetes as k8slib
from vap_lsp.cel.library.decls import minor_of
from vap_lsp.cel.macros import ACCUMULATOR_NAME, LEGACY_ACCUMULATOR_NAME
from vap_lsp.cel.runtime.cost import LIST_CREATE, MAP_CREATE, REGEX_FACTOR, STRING_FACTOR, STRUCT_CREATE
from vap_lsp.cel.types import Kind, Type

__all__ = [
    "MAX_U64",
    "UNKNOWN_SIZE",
    "ComprehensionCost",
    "CostEstimate",
    "Estimate",
    "Path",
    "SizeEstimate",
    "SizeEstimator",
    "estimate_cost",
    "field_path",
]

MAX_U64 = (1 << 64) - 1
_TWO_TO_64 = math.ldexp(1.0, 64)

SELECT_AND_IDENT = 1
CONST = 0
MAX_NAME_FORMAT_REGEX_SIZE = 128
"""`pkg/cel/types.go` `MaxNameFormatRegexSize`: the longest regex of a `format.named` format."""
MAX_FORMAT_SIZE = 64
"""`pkg/cel/format.go` `MaxFormatSize`: the longest `format.named` name."""


def _add(x: int, y: int) -> int:
    return min(x + y, MAX_U64)


def _mul(x: int, y: int) -> int:
    return min(x * y, MAX_U64)


def _wrapping(x: int) -> int:
    """Go's uint64 arithmetic where cel-go writes it plainly (`sz.Max*2 + 2` in checker/cost.go):
    it wraps around, `math.MaxUint64*2 + 2` is 0, where the estimator's helpers saturate."""
    return x & MAX_U64


def _by_factor(x: int, factor: float) -> int:
    """cel-go `multiplyByCostFactor`: float64 product rounded up, saturating at 2^64-1."""
    xf = float(x)
    if xf > 0 and factor > 0 and xf > float(MAX_U64) / factor:
        return MAX_U64
    product = math.ceil(xf * factor)
    if product >= _TWO_TO_64:
        return MAX_U64
    return int(product)


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """A cost range (cel-go `checker.CostEstimate`); arithmetic saturates at 2^64-1."""

    min: int
    max: int

    def add(self, other: CostEstimate) -> CostEstimate:
        return CostEstimate(_add(self.min, other.min), _add(self.max, other.max))

    def multiply(self, other: CostEstimate) -> CostEstimate:
        return CostEstimate(_mul(self.min, other.min), _mul(self.max, other.max))

    def multiply_by_cost_factor(self, factor: float) -> CostEstimate:
        return CostEstimate(_by_factor(self.min, factor), _by_factor(self.max, factor))

    def union(self, other: CostEstimate) -> CostEstimate:
        return CostEstimate(min(self.min, other.min), max(self.max, other.max))


@dataclass(frozen=True, slots=True)
class SizeEstimate:
    """The range of `size()` of a string, bytes, list or map (cel-go `checker.SizeEstimate`)."""

    min: int
    max: int

    def add(self, other: SizeEstimate) -> SizeEstimate:
        return SizeEstimate(_add(self.min, other.min), _add(self.max, other.max))

    def multiply(self, other: SizeEstimate) -> SizeEstimate:
        return SizeEstimate(_mul(self.min, other.min), _mul(self.max, other.max))

    def multiply_by_cost_factor(self, factor: float) -> CostEstimate:
        return CostEstimate(_by_factor(self.min, factor), _by_factor(self.max, factor))

    def multiply_by_cost(self, cost: CostEstimate) -> CostEstimate:
        return CostEstimate(_mul(self.min, cost.min), _mul(self.max, cost.max))

    def union(self, other: SizeEstimate) -> SizeEstimate:
        return SizeEstimate(min(self.min, other.min), max(self.max, other.max))

    def as_cost(self) -> CostEstimate:
        return CostEstimate(self.min, self.max)


UNKNOWN_SIZE = SizeEstimate(0, MAX_U64)
ZERO = CostEstimate(0, 0)
ONE = CostEstimate(1, 1)
_SELECT = CostEstimate(SELECT_AND_IDENT, SELECT_AND_IDENT)
_CONST = CostEstimate(CONST, CONST)

Path = tuple[str, ...]


class SizeEstimator(Protocol):
    """Sizes of values the expression cannot know (cel-go `CostEstimator.EstimateSize`).

    `path` starts with a variable name; the rest are field names and `@items`, `@values`,
    `@keys`, `@indices` (None when the value is not reachable from a variable by fields and
    iteration, e.g. a call result). Return None when there is no estimate.
    """

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None: ...


def field_path(path: Path) -> str:
    """A size path as a Kubernetes field path without the variable: `spec.containers[*].env`."""
    out = ""
    for part in path[1:]:
        if part in ("@items", "@values", "@keys", "@indices"):
            out += "[*]"
        else:
            out += f".{part}" if out else part
    return out


@dataclass(frozen=True, slots=True)
class ComprehensionCost:
    """One comprehension (macro) and what its iterations cost.

    `iterations` is the size of its range; `per_iteration` the loop condition and step (nested
    comprehensions included); `cost` = iterations × per_iteration, for one evaluation of the
    comprehension; `total` multiplies that by the iterations of the enclosing comprehensions, i.e.
    its share of the whole expression's estimate. `range_path` is the range's field path from a
    variable (None for a computed range).
    """

    node: Comprehension
    depth: int
    parent: int | None
    iterations: SizeEstimate
    per_iteration: CostEstimate
    cost: CostEstimate
    total: CostEstimate
    range_path: Path | None
    range_kind: str = "list"
    """`list`, `map` or `dyn`: what the range is typed as."""


@dataclass(frozen=True)
class Estimate:
    """The estimate of one expression: its cost range, the size of its result (for variables
    read by other expressions), and every comprehension's share."""

    cost: CostEstimate
    result_size: SizeEstimate | None
    comprehensions: tuple[ComprehensionCost, ...] = ()
    result_path: Path | None = None
    """The field path the result is read from (`object.spec.containers` → that path), when it is
    one: a variable aliasing a field keeps the field's size bounds."""

    @property
    def dominant(self) -> ComprehensionCost | None:
        """The outermost comprehension of the costliest nest (None without comprehensions)."""
        top = [c for c in self.comprehensions if c.depth == 0]
        if not top:
            return None
        return max(top, key=lambda c: (c.total.max, -c.node.start))

    def nest(self, outer: ComprehensionCost) -> tuple[ComprehensionCost, ...]:
        """`outer` and every comprehension inside it, outermost first."""
        ids = {outer.node.id}
        out = [outer]
        for c in sorted(self.comprehensions, key=lambda c: c.depth):
            if c.parent in ids and c.node.id not in ids:
                ids.add(c.node.id)
                out.append(c)
        return tuple(out)


# --- the AST node an estimator sees (cel-go `checker.AstNode`) ----------------------------------


@dataclass(slots=True)
class _Node:
    path: Path | None
    type: Type
    expr: Expr | None
    computed: SizeEstimate | None


@dataclass(slots=True)
class _CallEstimate:
    cost: CostEstimate
    result_size: SizeEstimate | None = None


@dataclass(slots=True)
class _Entry:
    """cel-go `entrySizeEstimate`: sizes of a literal container's keys (indices) and values."""

    container: Kind
    key: SizeEstimate
    val: SizeEstimate

    def union(self, other: _Entry | None) -> _Entry | None:
        if other is None:
            return None
        return _Entry(self.container, self.key.union(other.key), self.val.union(other.val))


@dataclass(slots=True)
class _Local:
    path: Path | None
    size: SizeEstimate | None
    entry: _Entry | None


def _is_scalar(typ: Type) -> bool:
    if typ.kind in (Kind.BOOL, Kind.DOUBLE, Kind.DURATION, Kind.INT, Kind.TIMESTAMP, Kind.UINT):
        return True
    if typ.kind == Kind.OPAQUE and typ.name == "optional_type" and typ.params:
        return _is_scalar(typ.params[0])
    return False


def _is_accumulator(name: str) -> bool:
    return name in (ACCUMULATOR_NAME, LEGACY_ACCUMULATOR_NAME)


def _literal_int(node: _Node, default: int) -> int:
    """ext `nodeAsIntValue`: an int literal argument as uint64, else `default`."""
    e = node.expr
    if isinstance(e, Literal) and e.kind == LiteralKind.INT and isinstance(e.value, int):
        return e.value & MAX_U64
    return default


class _Coster:
    def __init__(self, checked: CheckedExpr, sizes: SizeEstimator | None, minor: int, presence: int) -> None:
        self.checked = checked
        self.presence = CostEstimate(presence, presence)
        self.sizes = sizes
        self.minor = minor
        self.cel_go_029 = not cel_go_before(minor, (0, 29))
        self.paths: dict[int, Path] = {}
        self.locals: dict[str, list[_Local]] = {}
        self.computed: dict[int, SizeEstimate] = {}
        self.entries: dict[int, _Entry] = {}
        self.comprehensions: list[ComprehensionCost] = []
        self.enclosing: list[tuple[int, SizeEstimate]] = []

    # -- helpers ---------------------------------------------------------------------------------

    def type_of(self, e: Expr) -> Type:
        return self.checked.types.get(e.id, t.DYN)

    def peek(self, name: str) -> _Local | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, local: _Local) -> None:
        self.locals.setdefault(name, []).append(local)

    def pop(self, name: str) -> None:
        stack = self.locals.get(name)
        if stack:
            stack.pop()

    def get_path(self, e: Expr) -> Path | None:
        if isinstance(e, Ident):
            local = self.peek(e.name)
            if local is not None:
                return local.path
        return self.paths.get(e.id)

    def estimator_size(self, path: Path | None, typ: Type) -> SizeEstimate | None:
        if self.sizes is None:
            return None
        return self.sizes.estimate_size(path if path else None, typ)

    def compute_size(self, e: Expr) -> SizeEstimate | None:
        cached = self.computed.get(e.id)
        if cached is not None:
            return cached
        literal = _expr_size(e)
        if literal is not None:
            return literal
        typ = self.type_of(e)
        estimated = self.estimator_size(self.get_path(e), typ)
        if estimated is not None:
            self.computed[e.id] = estimated
            return estimated
        if _is_scalar(typ):
            return SizeEstimate(1, 1)
        if isinstance(e, Ident):
            local = self.peek(e.name)
            if local is not None and local.size is not None:
                return local.size
        return None

    def size_or_unknown(self, e: Expr) -> SizeEstimate:
        return self.compute_size(e) or UNKNOWN_SIZE

    def entry_size(self, e: Expr) -> _Entry | None:
        found = self.entries.get(e.id)
        if found is not None:
            return found
        if isinstance(e, Ident):
            local = self.peek(e.name)
            if local is not None:
                return local.entry
        return None

    def set_size(self, e: Expr, size: SizeEstimate | None) -> None:
        if size is not None:
            self.computed[e.id] = size

    def set_entry(self, e: Expr, entry: _Entry | None) -> None:
        if entry is not None:
            self.entries[e.id] = entry

    def node(self, e: Expr) -> _Node:
        path = self.get_path(e)
        if path and _is_accumulator(path[0]):
            path = None  # only paths from root variables
        return _Node(path, self.type_of(e), e, self.compute_size(e))

    def node_size(self, n: _Node) -> SizeEstimate:
        """Kubernetes `sizeEstimate` (also ext `estimateSize`): computed, else estimated, else unknown."""
        if n.computed is not None:
            return n.computed
        return self.estimator_size(n.path, n.type) or UNKNOWN_SIZE

    # -- nodes -----------------------------------------------------------------------------------

    def cost(self, e: Expr | None) -> CostEstimate:
        if e is None:
            return ZERO
        if isinstance(e, Literal):
            return _CONST
        if isinstance(e, Ident):
            return self.ident(e)
        if isinstance(e, Select):
            return self.select(e)
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, ListExpr):
            return self.create_list(e)
        if isinstance(e, MapExpr):
            return self.create_map(e)
        if isinstance(e, StructExpr):
            total = ZERO
            for f in e.fields:
                total = total.add(self.cost(f.value))
            return total.add(CostEstimate(STRUCT_CREATE, STRUCT_CREATE))
        if isinstance(e, Comprehension):
            return self.bind(e) if self.is_bind(e) else self.comprehension(e)
        return ZERO

    def ident(self, e: Ident) -> CostEstimate:
        local = self.peek(e.name)
        if local is not None:
            if local.path is not None:
                self.paths[e.id] = local.path
        else:
            self.paths[e.id] = (e.name,)
        return _SELECT

    def select(self, e: Select) -> CostEstimate:
        ref = self.checked.references.get(e.id)
        if ref is not None and ref.kind in ("variable", "type") and not e.test_only:
            # cel-go's checker rewrote the qualified name into one identifier.
            self.paths[e.id] = (ref.name,)
            return _SELECT
        if e.test_only:
            return self.presence.add(self.cost(e.operand))
        if e.optional:
            # `a.?b` is the call `_?._`(a, "b") in cel-go: one for the call, no path.
            return self.cost(e.operand).add(ONE)
        total = self.cost(e.operand)
        if self.type_of(e.operand).kind in (Kind.MAP, Kind.STRUCT, Kind.TYPE_PARAM):
            total = total.add(_SELECT)
        base = self.get_path(e.operand)
        if base is not None:
            self.paths[e.id] = (*base, e.field)
        return total

    def call(self, e: Call) -> CostEstimate:
        ref = self.checked.references.get(e.id)
        target = e.target
        if target is not None:
            tref = self.checked.references.get(target.id)
            if tref is not None and tref.kind == "namespace":
                target = None  # `sets.contains(...)` is a global function in cel-go
        name = ref.name if ref is not None else e.function
        if name == "dyn" and target is None and len(e.args) == 1:
            arg_cost = self.cost(e.args[0])
            self.set_size(e, self.compute_size(e.args[0]))
            self.set_entry(e, self.entry_size(e.args[0]))
            return ONE.add(arg_cost)
        arg_costs = []
        arg_nodes = []
        for arg in e.args:
            arg_costs.append(self.cost(arg))
            arg_nodes.append(self.node(arg))
        overloads = ref.overload_ids if ref is not None and ref.kind == "function" else ()
        if not overloads:
            return ZERO
        total = ZERO
        target_node: _Node | None = None
        if target is not None:
            total = total.add(self.cost(target))
            target_node = self.node(target)
        fn_cost = CostEstimate(MAX_U64, 0)
        result_size: SizeEstimate | None = None
        for overload in overloads:
            est = self.function_cost(e, name, overload, target_node, arg_nodes, arg_costs)
            fn_cost = fn_cost.union(est.cost)
            if est.result_size is not None:
                result_size = est.result_size if result_size is None else result_size.union(est.result_size)
            if overload in ("index_list", "index_map") and e.args:
                entry = self.entry_size(e.args[0])
                result_size = None if entry is None else entry.val
                base = self.get_path(e.args[0])
                if base is not None:
                    self.paths[e.id] = (*base, "@items" if overload == "index_list" else "@values")
            if result_size is None:
                result_size = self.compute_size(e)
        self.set_size(e, result_size)
        return total.add(fn_cost)

    def create_list(self, e: ListExpr) -> CostEstimate:
        total = ZERO
        item = SizeEstimate(0 if not e.elements else MAX_U64, 0)
        for el in e.elements:
            total = total.add(self.cost(el))
            item = item.union(self.size_or_unknown(el))
        self.entries[e.id] = _Entry(Kind.LIST, SizeEstimate(1, 1), item)
        return total.add(CostEstimate(LIST_CREATE, LIST_CREATE))

    def create_map(self, e: MapExpr) -> CostEstimate:
        total = ZERO
        empty = not e.entries
        key = SizeEstimate(0 if empty else MAX_U64, 0)
        val = SizeEstimate(0 if empty else MAX_U64, 0)
        for entry in e.entries:
            total = total.add(self.cost(entry.key)).add(self.cost(entry.value))
            key = key.union(self.size_or_unknown(entry.key))
            val = val.union(self.size_or_unknown(entry.value))
        self.entries[e.id] = _Entry(Kind.MAP, key, val)
        return total.add(CostEstimate(MAP_CREATE, MAP_CREATE))

    def is_bind(self, e: Comprehension) -> bool:
        cond = e.loop_condition
        return (
            isinstance(e.iter_range, ListExpr)
            and not e.iter_range.elements
            and isinstance(cond, Literal)
            and cond.value is False
            and e.accu_var != LEGACY_ACCUMULATOR_NAME
        )

    def bind(self, e: Comprehension) -> CostEstimate:
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self.push_local(e.accu_var, e.accu_init)
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        self.set_size(e, self.compute_size(e.result))
        self.set_entry(e, self.entry_size(e.result))
        return total

    def push_local(self, name: str, e: Expr) -> None:
        self.push(name, _Local(self.get_path(e), self.compute_size(e), self.entry_size(e)))

    def push_iter(self, name: str, rng: Expr, role: str) -> None:
        entry = self.entry_size(rng)
        container = entry.container if entry is not None else self.type_of(rng).kind
        is_list = container == Kind.LIST
        if role == "key":
            size = entry.key if entry is not None else None
            sub = "@indices" if is_list else "@keys"
        elif role == "value":
            size = entry.val if entry is not None else None
            sub = "@items" if is_list else "@values"
        else:  # one iteration variable: list items or map keys
            if is_list:
                size, sub = (entry.val if entry is not None else None), "@items"
            else:
                size, sub = (entry.key if entry is not None else None), "@keys"
        base = self.get_path(rng)
        self.push(name, _Local((*base, sub) if base is not None else None, size, None))

    def comprehension(self, e: Comprehension) -> CostEstimate:
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        # The range's size, as cel-go computes it after the loop (nothing in the loop changes it).
        iterations = self.size_or_unknown(e.iter_range)
        range_path = self.get_path(e.iter_range)
        self.push_local(e.accu_var, e.accu_init)
        if e.iter_var2 is not None:
            self.push_iter(e.iter_var, e.iter_range, "key")
            self.push_iter(e.iter_var2, e.iter_range, "value")
        else:
            self.push_iter(e.iter_var, e.iter_range, "single")
        parent = self.enclosing[-1][0] if self.enclosing else None
        depth = len(self.enclosing)
        outer = SizeEstimate(1, 1)
        for _, n in self.enclosing:
            outer = outer.multiply(n)
        self.enclosing.append((e.id, iterations))
        loop = self.cost(e.loop_condition)
        step = self.cost(e.loop_step)
        self.enclosing.pop()
        self.pop(e.iter_var)
        if e.iter_var2 is not None:
            self.pop(e.iter_var2)
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        per_iteration = step.add(loop)
        range_cost = iterations.multiply_by_cost(per_iteration)
        total = total.add(range_cost)
        self.comprehensions.append(
            ComprehensionCost(
                e,
                depth,
                parent,
                iterations,
                per_iteration,
                range_cost,
                outer.multiply_by_cost(range_cost),
                range_path if range_path and not _is_accumulator(range_path[0]) else None,
                _RANGE_KINDS.get(self.type_of(e.iter_range).kind, "dyn"),
            )
        )
        init = e.accu_init
        if isinstance(init, Literal):
            self.set_size(e, self.compute_size(init))
        elif isinstance(init, (ListExpr, MapExpr)):
            self.set_size(e, iterations)
            self.set_entry(e, self.entry_size(e.loop_step))
        return total

    # -- calls -----------------------------------------------------------------------------------

    def function_cost(
        self,
        e: Call,
        function: str,
        overload: str,
        target: _Node | None,
        args: Sequence[_Node],
        arg_costs: Sequence[CostEstimate],
    ) -> _CallEstimate:
        arg_sum = ZERO
        for c in arg_costs:
            arg_sum = arg_sum.add(c)
        ext = _EXT_ESTIMATORS.get(overload)
        if ext is not None:
            est = ext(self, target, args)
            if est is not None:
                return _CallEstimate(est.cost.add(arg_sum), est.result_size)
        k8s = self.kubernetes_call(function, overload, target, args)
        if k8s is not None:
            return _CallEstimate(k8s.cost.add(arg_sum), k8s.result_size)
        return self.default_call(e, overload, target, args, arg_costs, arg_sum)

    def default_call(
        self,
        e: Call,
        overload: str,
        target: _Node | None,
        args: Sequence[_Node],
        arg_costs: Sequence[CostEstimate],
        arg_sum: CostEstimate,
    ) -> _CallEstimate:
        size = self.node_computed_or_unknown
        if overload == "string_format" and target is not None:
            return _CallEstimate(size(target).multiply_by_cost_factor(STRING_FACTOR).add(arg_sum))
        if overload == "string_to_bytes" and len(args) == 1:
            sz = size(args[0])
            return _CallEstimate(
                sz.multiply_by_cost_factor(STRING_FACTOR).add(arg_sum),
                SizeEstimate(sz.min, _wrapping(sz.max * 4)),
            )
        if overload == "bytes_to_string" and len(args) == 1:
            sz = size(args[0])
            return _CallEstimate(
                sz.multiply_by_cost_factor(STRING_FACTOR).add(arg_sum), SizeEstimate(sz.min // 4, sz.max)
            )
        if overload == "strings_quote" and len(args) == 1:
            sz = size(args[0])
            quoted = SizeEstimate(_wrapping(sz.min + 2), _wrapping(sz.max * 2 + 2))
            return _CallEstimate(sz.multiply_by_cost_factor(STRING_FACTOR).add(arg_sum), quoted)
        if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
            return _CallEstimate(size(args[0]).multiply_by_cost_factor(STRING_FACTOR).add(arg_sum))
        if overload == "in_list" and len(args) == 2:
            return _CallEstimate(size(args[1]).multiply_by_cost_factor(1).add(arg_sum))
        matched = (
            (target, args[0])
            if overload == "matches_string" and target is not None and len(args) == 1
            else (args[0], args[1])
            if overload == "matches" and target is None and len(args) == 2 and self.cel_go_029
            else None
        )
        if matched is not None:
            # cel-go v0.29 (Kubernetes 1.37) estimates the global `matches(s, re)` too
            str_cost = size(matched[0]).add(SizeEstimate(1, 1)).multiply_by_cost_factor(STRING_FACTOR)
            regex_cost = size(matched[1]).multiply_by_cost_factor(REGEX_FACTOR)
            return _CallEstimate(str_cost.multiply(regex_cost).add(arg_sum))
        if overload == "contains_string" and target is not None and len(args) == 1:
            str_cost = size(target).multiply_by_cost_factor(STRING_FACTOR)
            sub_cost = size(args[0]).multiply_by_cost_factor(STRING_FACTOR)
            return _CallEstimate(str_cost.multiply(sub_cost).add(arg_sum))
        if overload in ("logical_or", "logical_and") and len(arg_costs) == 2:
            lhs, rhs = arg_costs
            return _CallEstimate(CostEstimate(lhs.min, lhs.add(rhs).max))
        if overload == "conditional" and len(args) == 3:
            result = size(args[1]).union(size(args[2]))
            a1, a2 = e.args[1], e.args[2]
            first = self.entry_size(a1)
            self.set_entry(e, first.union(self.entry_size(a2)) if first is not None else None)
            return _CallEstimate(arg_costs[0].add(arg_costs[1].union(arg_costs[2])), result)
        if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
            result = size(args[0]).add(size(args[1]))
            first = self.entry_size(e.args[0])
            merged = first.union(self.entry_size(e.args[1])) if first is not None else None
            self.set_entry(e, merged)
            if overload == "add_list":
                return _CallEstimate(ONE.add(arg_sum), result)
            return _CallEstimate(result.multiply_by_cost_factor(STRING_FACTOR).add(arg_sum), result)
        if overload in _SIZE_COMPARISONS and len(args) == 2:
            smallest = min(size(args[0]).max, size(args[1]).max)
            low = 1 if smallest > 0 else 0
            return _CallEstimate(
                CostEstimate(low, smallest).multiply_by_cost_factor(STRING_FACTOR).add(arg_sum)
            )
        return _CallEstimate(ONE.add(arg_sum))

    @staticmethod
    def node_computed_or_unknown(n: _Node) -> SizeEstimate:
        """cel-go `sizeOrUnknown(AstNode)`: the computed size only (the estimator was asked already)."""
        return n.computed if n.computed is not None else UNKNOWN_SIZE

    def list_element(self, lst: _Node) -> _Node | None:
        """Kubernetes `listElementNode`: the element of a list, by path when there is one."""
        if not lst.type.params:  # as cost.go: the first type parameter, whatever the kind
            return None
        path = (*lst.path, "@items") if lst.path is not None else None
        return _Node(path, lst.type.params[0], None, None)

    def kubernetes_call(
        self, function: str, overload: str, target: _Node | None, args: Sequence[_Node]
    ) -> _CallEstimate | None:
        """`pkg/cel/library/cost.go` `EstimateCallCost`."""
        size = self.node_size
        if function == "check":
            return _CallEstimate(CostEstimate(350_000, 350_000))
        if function in _AUTHZ_NOMINAL or function in _NOMINAL:
            return _CallEstimate(ONE)
        if function in _SEMVER_NOMINAL and self.minor >= 33:
            return _CallEstimate(ONE)
        if function in ("fieldSelector", "labelSelector"):
            if len(args) == 1:
                return _CallEstimate(_selector_cost(size(args[0])))
            return None
        if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
            if target is None:
                return None
            element = self.list_element(target)
            if element is not None:
                el_cost = ONE
                if element.type.kind in (Kind.STRING, Kind.BYTES):
                    el_cost = el_cost.add(size(element).multiply_by_cost_factor(STRING_FACTOR))
                return _CallEstimate(size(target).multiply_by_cost(el_cost))
            if function == "includes":  # `includes` takes a dyn target: a list of unit compares at worst
                return _CallEstimate(size(target).multiply_by_cost(ONE))
            return _CallEstimate(size(target).multiply_by_cost_factor(STRING_FACTOR))
        if function in ("url", "jsonpatch.escapeKey"):
            if len(args) == 1:
                sz = size(args[0])
                return _CallEstimate(sz.multiply_by_cost_factor(STRING_FACTOR), sz)
            return None
        if function in ("lowerAscii", "upperAscii", "substring", "trim"):
            if target is not None:
                sz = size(target)
                return _CallEstimate(sz.multiply_by_cost_factor(STRING_FACTOR), sz)
            return None
        if function == "replace":
            if target is not None and len(args) >= 2:
                return self.replace(size(target), size(args[0]), size(args[1]))
            return None
        if function == "split":
            if target is not None:
                sz = size(target)
                most = sz.max
                if len(args) > 1:
                    e = args[1].expr
                    if isinstance(e, Literal) and e.kind == LiteralKind.INT and isinstance(e.value, int):
                        most = e.value & MAX_U64
                return _CallEstimate(sz.multiply_by_cost_factor(2 * STRING_FACTOR), SizeEstimate(0, most))
            return None
        if function == "join":
            if target is not None:
                list_size = size(target)
                joined = SizeEstimate(0, 0)
                element = self.list_element(target)
                if element is not None:
                    joined = list_size.multiply(size(element))
                if args:
                    separators = SizeEstimate(max(list_size.min - 1, 0), max(list_size.max - 1, 0))
                    joined = joined.add(size(args[0]).multiply(separators))
                return _CallEstimate(joined.multiply_by_cost_factor(STRING_FACTOR), joined)
            return None
        if function in ("find", "findAll"):
            if target is not None and args:
                sz = size(target)
                str_cost = sz.add(SizeEstimate(1, 1)).multiply_by_cost_factor(STRING_FACTOR)
                regex_cost = size(args[0]).multiply_by_cost_factor(REGEX_FACTOR)
                return _CallEstimate(str_cost.multiply(regex_cost), SizeEstimate(0, sz.max))
            return None
        if function in ("cidr", "isIP", "isCIDR", "quantity", "isQuantity"):
            if args:
                return _CallEstimate(size(args[0]).multiply_by_cost_factor(STRING_FACTOR))
            return None
        if function in ("semver", "isSemver") and self.minor >= 33:
            if args:
                return _CallEstimate(size(args[0]).multiply_by_cost_factor(STRING_FACTOR))
            return None
        if function == "ip":
            if overload == "cidr_ip":
                return _CallEstimate(ONE)
            if args:
                return _CallEstimate(size(args[0]).multiply_by_cost_factor(STRING_FACTOR))
            return None
        if function == "ip.isCanonical":
            if args:
                return _CallEstimate(size(args[0]).multiply_by_cost_factor(2 * STRING_FACTOR))
            return None
        if function in ("containsIP", "containsCIDR"):
            if not args:
                return None
            ip_bytes = SizeEstimate(4, 16)  # IPv4 or IPv6 byte lengths
            cost = ip_bytes.add(ip_bytes).multiply_by_cost_factor(STRING_FACTOR)
            if function == "containsCIDR":
                cost = cost.add(ip_bytes.multiply_by_cost_factor(STRING_FACTOR)).add(ONE)
            if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                cost = cost.add(size(args[0]).as_cost().multiply_by_cost_factor(STRING_FACTOR))
            return _CallEstimate(cost)
        if function == "validate":
            if args:
                factor = MAX_NAME_FORMAT_REGEX_SIZE * REGEX_FACTOR
                return _CallEstimate(
                    size(args[0]).multiply_by_cost_factor(STRING_FACTOR).multiply_by_cost_factor(factor)
                )
            return None
        if function == "_==_" and self.minor >= 32 and len(args) == 2:
            return self.kubernetes_equality(args[0], args[1])
        return None

    def replace(self, sz: SizeEstimate, old: SizeEstimate, new: SizeEstimate) -> _CallEstimate:
        """The result size of `replace` (`cost.go`): the most and the fewest replacements."""
        if old.min == 0:
            count_max = sz.max + 1 if sz.max < MAX_U64 else sz.max
            retained_max = sz.max
        elif new.max <= old.min:
            count_max, retained_max = 0, sz.max
        else:
            count_max, retained_max = math.ceil(sz.max / old.min), 0
        if old.max == 0:
            count_min = sz.min + 1 if sz.min < MAX_U64 else sz.min
            retained_min = sz.min
        elif old.max <= new.min:
            count_min, retained_min = 0, sz.min
        else:
            count_min, retained_min = math.ceil(sz.min / old.max), 0
        count_max = min(count_max, MAX_U64)
        result = (
            SizeEstimate(count_min, count_max).multiply(new).add(SizeEstimate(retained_min, retained_max))
        )
        return _CallEstimate(sz.multiply_by_cost_factor(2 * STRING_FACTOR), result)

    def kubernetes_equality(self, lhs: _Node, rhs: _Node) -> _CallEstimate | None:
        if lhs.type != rhs.type:
            return None
        typ = lhs.type
        if typ.kind == Kind.OPAQUE and typ.name in (k8slib.IP.name, k8slib.CIDR.name):
            return _CallEstimate(ONE)
        if typ.kind == Kind.STRUCT:
            if typ.name in _UNIT_EQUALITY:
                return _CallEstimate(ONE)
            if typ.name == k8slib.NAMED_FORMAT.name:
                return _CallEstimate(CostEstimate(1, MAX_FORMAT_SIZE).multiply_by_cost_factor(STRING_FACTOR))
            if typ.name == k8slib.URL.name:
                # cost.go reads the right-hand side's computed size twice (its `lhSize` too).
                url = SizeEstimate(1, 1)
                if rhs.computed is not None:
                    url = rhs.computed.union(rhs.computed)
                return _CallEstimate(CostEstimate(1, url.max).multiply_by_cost_factor(STRING_FACTOR))
        return None


_RANGE_KINDS = {Kind.LIST: "list", Kind.MAP: "map"}
_SIZE_COMPARISONS = frozenset(
    {"less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes",
     "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals"}
)  # fmt: skip
_AUTHZ_NOMINAL = frozenset(
    {"serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed", "reason",
     "error", "errored"}
)  # fmt: skip
_NOMINAL = frozenset(
    {"masked", "isMask", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
     "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign", "asInteger", "isInteger",
     "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo", "add", "sub", "getScheme",
     "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"}
)  # fmt: skip
_SEMVER_NOMINAL = frozenset({"major", "minor", "patch"})
_UNIT_EQUALITY = frozenset(
    {k8slib.QUANTITY.name, k8slib.AUTHORIZER.name, k8slib.PATH_CHECK.name, k8slib.GROUP_CHECK.name,
     k8slib.RESOURCE_CHECK.name, k8slib.DECISION.name, k8slib.SEMVER.name}
)  # fmt: skip


def _selector_cost(length: SizeEstimate) -> CostEstimate:
    """`selectorCostEstimate`: a list, the parse, and a struct and list per requirement (one per
    two characters)."""
    parse = length.multiply_by_cost_factor(STRING_FACTOR)
    requirements = length.multiply_by_cost_factor(0.5)
    per_requirement = requirements.multiply_by_cost_factor(float(LIST_CREATE + STRUCT_CREATE))
    return CostEstimate(LIST_CREATE, LIST_CREATE).add(parse).add(per_requirement)


def _expr_size(e: Expr) -> SizeEstimate | None:
    """cel-go `computeExprSize`: sizes CEL knows from the expression itself."""
    if isinstance(e, Literal):
        if e.kind == LiteralKind.STRING and isinstance(e.value, str):
            return SizeEstimate(len(e.value), len(e.value))
        if e.kind == LiteralKind.BYTES and isinstance(e.value, bytes):
            return SizeEstimate(len(e.value), len(e.value))
        return SizeEstimate(1, 1)
    if isinstance(e, ListExpr):
        return SizeEstimate(len(e.elements), len(e.elements))
    if isinstance(e, MapExpr):
        return SizeEstimate(len(e.entries), len(e.entries))
    return None


# --- cel-go ext library estimators (`checker.OverloadCostEstimate`) ------------------------------

_ExtEstimator = Callable[[_Coster, _Node | None, Sequence[_Node]], _CallEstimate | None]


def _allocating(factor: float, size: SizeEstimate) -> _CallEstimate:
    """ext `estimateAllocatingListCall`: per element, the call, and the new list."""
    cost = size.multiply_by_cost_factor(factor).add(ONE).add(CostEstimate(LIST_CREATE, LIST_CREATE))
    return _CallEstimate(cost, size)


def _sets(factor: float) -> _ExtEstimator:
    def estimate(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
        if len(args) != 2:
            return None
        product = c.node_size(args[0]).multiply(c.node_size(args[1]))
        return _CallEstimate(product.multiply_by_cost_factor(factor).add(ONE))

    return estimate


def _slice(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
    if target is None or len(args) != 2:
        return None
    sz = c.node_size(target)
    start = _literal_int(args[0], 0)
    end = _literal_int(args[1], sz.max)
    n = (end - start) & MAX_U64
    return _allocating(1, SizeEstimate(n, n))


def _range(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
    if target is not None or len(args) != 1:
        return None
    n = _literal_int(args[0], MAX_U64)
    return _allocating(1, SizeEstimate(n, n))


def _reverse(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
    if target is None or args:
        return None
    return _allocating(1, c.node_size(target))


def _flatten(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
    if target is None or len(args) > 1:
        return None
    depth = _literal_int(args[0], MAX_U64) if args else 1
    return _allocating(float(depth), c.node_size(target))


def _distinct(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
    if target is None or args:
        return None
    sz = c.node_size(target)
    return _allocating(2.0, sz.multiply(sz))


def _sort_cost(c: _Coster, node: _Node, elem: str) -> _CallEstimate:
    sz = c.node_size(node)
    factor = 2.0 + (STRING_FACTOR if elem in ("string", "bytes") else 0.0)
    return _allocating(factor, sz.multiply(sz))


def _sort(elem: str) -> _ExtEstimator:
    def estimate(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
        if target is None or args:
            return None
        return _sort_cost(c, target, elem)

    return estimate


def _sort_by(elem: str) -> _ExtEstimator:
    def estimate(c: _Coster, target: _Node | None, args: Sequence[_Node]) -> _CallEstimate | None:
        if target is None or len(args) != 1:
            return None
        return _sort_cost(c, args[0], elem)

    return estimate


_SORTABLE = {
    "int": "int", "uint": "uint", "double": "double", "bool": "bool",
    "google.protobuf.Duration": "duration", "google.protobuf.Timestamp": "timestamp",
    "string": "string", "bytes": "bytes",
}  # fmt: skip

_EXT_ESTIMATORS: dict[str, _ExtEstimator] = {
    "list_sets_contains_list": _sets(1),
    "list_sets_intersects_list": _sets(1),
    "list_sets_equivalent_list": _sets(2),
    "list_slice": _slice,
    "list_flatten": _flatten,
    "list_flatten_int": _flatten,
    "lists_range": _range,
    "list_reverse": _reverse,
    "list_distinct": _distinct,
    **{f"list_{name}_sort": _sort(elem) for name, elem in _SORTABLE.items()},
    **{f"list_{name}_sortByAssociatedKeys": _sort_by(elem) for name, elem in _SORTABLE.items()},
}


def estimate_cost(
    checked: CheckedExpr,
    sizes: SizeEstimator | None = None,
    *,
    kubernetes_version: str | int = 35,
    presence_test_cost: int = 0,
) -> Estimate:
    """The static cost estimate of `checked` (cel-go `Env.EstimateCost` with Kubernetes'
    `library.CostEstimator{SizeEstimator: sizes}`), with each comprehension's share.

    `checked` should have no errors (nodes typed `!error!` are estimated as `dyn`).
    `kubernetes_version` is `"1.35"` or the minor (35). `presence_test_cost`: what `has()` costs,
    0 as every Kubernetes environment sets it (`PresenceTestHasCost(false)`, base.go), 1 in plain
    cel-go. Never raises for a checked expression.
    """
    minor = kubernetes_version if isinstance(kubernetes_version, int) else minor_of(kubernetes_version)
    root = checked.parsed.ast
    coster = _Coster(checked, sizes, minor, presence_test_cost)
    if root is None:
        return Estimate(ZERO, None)
    cost = coster.cost(root)
    path = coster.get_path(root)
    if path and _is_accumulator(path[0]):
        path = None
    return Estimate(cost, coster.compute_size(root), tuple(coster.comprehensions), path)
