"""CEL evaluation over the checker's AST (cel-go `interpreter` semantics, Kubernetes' cost model).

Why a planner: the expression is turned once into nested Python closures (cached per
`CheckedExpr`/`ParsedExpr`), so evaluating the same policy against many objects costs only the
closure calls. Errors are Python exceptions (`CelError`) caught where CEL absorbs them
(`false && error`, `true || error`, `@not_strictly_false`, comprehension accumulators).

Function calls dispatch on the overload ids the checker recorded (the candidates that matched
statically), choosing the first whose parameter types match the runtime arguments, as cel-go's
type guards and dynamic dispatch do; without a checked AST every overload of the name is a
candidate. When none fits, the call answers as cel-go binds the function (`library.binding`,
worded by `values.overload_error`). Costs follow cel-go's `CostTracker` with Kubernetes' options
(`has()` costs 0, `OptOptimize` folds constant list/map literals and conversions of constants to
cost-0 constants) and `library/cost.go` for library calls.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vap_lsp.cel import library as lib
from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    ErrorExpr,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapExpr,
    ParsedExpr,
    Select,
    StructExpr,
)
from vap_lsp.cel.checker import CheckedExpr, container_candidates, qualified_name, shadowing_fixed
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.library import ext as ext_decls
from vap_lsp.cel.library.decls import UNGUARDED as UNGUARDED_BINDING
from vap_lsp.cel.library.decls import BindingStyle, Overload
from vap_lsp.cel.runtime import extlib, k8s
from vap_lsp.cel.runtime.cost import LIST_CREATE, MAP_CREATE, STRUCT_CREATE, call_cost, is_unit_cost
from vap_lsp.cel.runtime.stdlib import IMPLS, MutableList
from vap_lsp.cel.runtime.values import (
    NONE,
    CelError,
    CostLimitExceeded,
    Duration,
    GoPanic,
    LibraryValue,
    Optional,
    Timestamp,
    TypeValue,
    UintType,
    Value,
    assertion_panic,
    cel_equals,
    cel_hash_key,
    format_key,
    map_get,
    no_such_overload,
    normalize,
    overload_error,
    to_python,
    type_name,
)
from vap_lsp.cel.trace import Frame, Iteration, Trace, TracedError
from vap_lsp.cel.types import Kind, Type, WrapperType
from vap_lsp.golang import regexp
from vap_lsp.golang.toolchain import NEWEST, Go, for_kubernetes

__all__ = [
    "EvalResult",
    "LazyVariables",
    "VariableDef",
    "build_errors",
    "evaluate",
    "to_python",
]

_UNLIMITED = 1 << 63


@dataclass
class EvalResult:
    """Outcome of one evaluation: a value or cel-go's error text, and the actual cost."""

    value: Value = None
    error: str | None = None
    cost: int = 0
    cost_limit_exceeded: bool = False
    trace: Trace | None = None
    """Set by `evaluate(..., trace=True)`: every evaluated node's value or error."""
    variables_cost: int = 0
    """Of `cost`, what the `variables` this evaluation read first cost: programs of their own
    (composition.go), charged to the same budget but not to this expression's per-call limit."""

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_python(self) -> object:
        return to_python(self.value)


class _ErrBox:
    """An error held as a comprehension accumulator value (errors are values in CEL)."""

    __slots__ = ("err",)

    def __init__(self, err: CelError) -> None:
        self.err = err


class _Ctx:
    __slots__ = ("activation", "cost", "extra_cost", "frame", "limit", "locals")

    def __init__(self, activation: Mapping[str, Any], limit: int, frame: Frame | None = None) -> None:
        self.activation = activation
        self.locals: dict[str, Value] = {}
        self.cost = 0
        self.extra_cost = 0
        self.limit = limit
        self.frame = frame  # only a traced plan reads it

    def charge(self, n: int) -> None:
        c = self.cost + n
        self.cost = c
        if c > self.limit:
            raise CostLimitExceeded()


Fn = Callable[[_Ctx], Value]
_MISSING = object()


# --- lazily evaluated variables ----------------------------------------------------------------


@dataclass
class VariableDef:
    """One composited variable: its compiled expression and environment, or a compile error."""

    expr: CheckedExpr | ParsedExpr | None
    env: Environment | None = None
    compile_error: str | None = None


class LazyVariables(Mapping[str, Value]):
    """`variables`: each evaluated on first access and memoised; the cost of the evaluation is
    added to the cost of the expression that first reads it (composition.go `lazy.MapValue`).
    With `trace`, each evaluation is traced (`traces`); a name without a result was never read."""

    def __init__(
        self,
        definitions: Mapping[str, VariableDef],
        activation: Mapping[str, Any],
        *,
        cost_limit: int | None = 1_000_000,
        trace: bool = False,
    ) -> None:
        self._defs = dict(definitions)
        self._activation = activation
        self._cost_limit = cost_limit
        self._results: dict[str, EvalResult] = {}
        self._trace = trace
        self.total_cost = 0

    @property
    def definitions(self) -> Mapping[str, VariableDef]:
        return self._defs

    def result(self, name: str) -> EvalResult | None:
        """The memoised outcome of `name` (with its trace when tracing), None if never read."""
        return self._results.get(name)

    def resolve(self, name: str, ctx: _Ctx | None = None) -> Value:
        result = self._results.get(name)
        if result is None:
            definition = self._defs.get(name)
            if definition is None:
                raise CelError(f"no such key: {name}")
            if definition.compile_error is not None or definition.expr is None:
                detail = definition.compile_error or "missing expression"
                result = EvalResult(error=f'composited variable "{name}" fails to compile: {detail}')
            else:
                activation = _ChainActivation({"variables": self}, self._activation)
                assert definition.env is not None
                result = evaluate(
                    definition.expr,
                    activation,
                    env=definition.env,
                    cost_limit=self._cost_limit,
                    trace=self._trace,
                )
                if result.error is not None:
                    # over its own per-call limit too: a variable is a program of its own, whose
                    # error is a value for the expression reading it (composition.go Callback)
                    result = EvalResult(
                        error=f'composited variable "{name}" fails to evaluate: {result.error}',
                        cost=result.cost,
                        trace=result.trace,
                        variables_cost=result.variables_cost,
                    )
            self._results[name] = result
            self.total_cost += result.cost
            if ctx is not None:
                ctx.extra_cost += result.cost
        if result.error is not None:
            raise CelError(result.error)
        return result.value

    def __getitem__(self, name: str) -> Value:
        return self.resolve(name)

    def __contains__(self, name: object) -> bool:
        return name in self._defs

    def __iter__(self) -> Iterator[str]:
        return iter(self._defs)

    def __len__(self) -> int:
        return len(self._defs)


class _ChainActivation(Mapping[str, Any]):
    def __init__(self, first: Mapping[str, Any], second: Mapping[str, Any]) -> None:
        self._first = first
        self._second = second

    def __getitem__(self, key: str) -> Any:
        if key in self._first:
            return self._first[key]
        return self._second[key]

    def __contains__(self, key: object) -> bool:
        return key in self._first or key in self._second

    def __iter__(self) -> Iterator[str]:
        yield from self._first
        yield from (k for k in self._second if k not in self._first)

    def __len__(self) -> int:
        return len(set(self._first) | set(self._second))


# --- runtime helpers ---------------------------------------------------------------------------


def _select(operand: Value, name: str, ctx: _Ctx) -> Value:
    """`operand.name` on a map, struct or library object (cel-go `refQualify`)."""
    if type(operand) is dict:
        v = operand.get(name, _MISSING)
        if v is _MISSING:
            raise CelError(f"no such key: {name}")
        return normalize(v)
    if isinstance(operand, LazyVariables):
        return operand.resolve(name, ctx)
    if isinstance(operand, Mapping):
        if name in operand:
            return normalize(operand[name])
        raise CelError(f"no such key: {name}")
    if isinstance(operand, k8s.StructValue):
        return operand.get_field(name)
    if isinstance(operand, (list, tuple)):
        raise CelError("unsupported index type 'string' in list")
    raise CelError(f"no such key: {name}")


def _optional_field(operand: Value, name: str, ctx: _Ctx) -> Optional:
    """`x.?name` / `opt.name`: none when the field is absent, and also on a value without
    fields (null, a number): cel-go's `refQualify` without `cel.EnableErrorOnBadPresenceTest`,
    which Kubernetes does not set."""
    return Optional(_select(operand, name, ctx)) if _has_field_quiet(operand, name) else NONE


def _has_field(operand: Value, name: str) -> bool:
    if isinstance(operand, Mapping):
        return name in operand
    if isinstance(operand, k8s.StructValue):
        return operand.has_field(name)
    if isinstance(operand, Optional):
        return operand.has_value and _has_field(operand.value, name)
    if isinstance(operand, (list, tuple)):
        raise CelError("unsupported index type 'string' in list")
    return False


def _list_index(index: Value) -> int:
    t = type(index)
    if t is int or t is UintType:
        return int(index)
    if t is float:
        if index != index or index in (float("inf"), float("-inf")) or index != int(index):
            raise CelError(f"unsupported index value {format_key(index)} in list")
        return int(index)
    raise CelError(f"unsupported index type '{type_name(index)}' in list")


def _index(operand: Value, key: Value, ctx: _Ctx) -> Value:
    """`operand[key]` (cel-go `refQualify`)."""
    if isinstance(operand, (list, tuple)):
        i = _list_index(key)
        if 0 <= i < len(operand):
            return normalize(operand[i])
        raise CelError(f"index out of bounds: {format_key(key)}")
    if isinstance(operand, dict):
        found, v = map_get(operand, key)
        if found:
            return normalize(v)
        raise CelError(f"no such key: {format_key(key)}")
    if isinstance(operand, LazyVariables):
        if type(key) is str:
            return operand.resolve(key, ctx)
        raise CelError(f"no such key: {format_key(key)}")
    if isinstance(operand, Mapping):
        found, v = map_get(operand, key)
        if found:
            return normalize(v)
        raise CelError(f"no such key: {format_key(key)}")
    if isinstance(operand, k8s.StructValue) and type(key) is str:
        return operand.get_field(key)
    raise CelError(f"no such key: {format_key(key)}")


def _index_if_present(operand: Value, key: Value, ctx: _Ctx) -> Optional:
    if isinstance(operand, (list, tuple)):
        i = _list_index(key)
        return Optional(normalize(operand[i])) if 0 <= i < len(operand) else NONE
    if isinstance(operand, LazyVariables):
        return Optional(operand.resolve(key, ctx)) if key in operand else NONE
    if isinstance(operand, Mapping):
        found, v = map_get(operand, key)
        return Optional(normalize(v)) if found else NONE
    if isinstance(operand, k8s.StructValue) and type(key) is str:
        return Optional(operand.get_field(key)) if operand.has_field(key) else NONE
    raise CelError(f"no such key: {format_key(key)}")


_GO_TYPES = {
    "string": "types.String",
    "int": "types.Int",
    "uint": "types.Uint",
    "double": "types.Double",
    "bool": "types.Bool",
    "bytes": "types.Bytes",
    "null_type": "types.Null",
    "google.protobuf.Timestamp": "types.Timestamp",
    "google.protobuf.Duration": "types.Duration",
    "optional_type": "*types.Optional",
    "type": "*types.Type",
}


def _iter_range(v: Value) -> Value:
    if isinstance(v, (list, tuple, Mapping)):
        return v
    name = type_name(v)
    raise CelError(f"got '{_GO_TYPES.get(name, name)}', expected iterable type")


# --- overload dispatch -------------------------------------------------------------------------

_OVERLOADS: dict[str, Overload] = {o.id: o for o in lib.all_overloads()}
_BY_FUNCTION: dict[str, list[Overload]] = {}
for _o in lib.all_overloads():
    _BY_FUNCTION.setdefault(_o.function, []).append(_o)

Matcher = Callable[[Value], bool] | None
Fail = Callable[[Sequence[Value]], CelError]
"""A call's answer when no overload fits its runtime arguments (`values.overload_error`)."""

_KIND_MATCHERS: dict[Kind, Matcher] = {
    Kind.INT: lambda v: type(v) is int,
    Kind.UINT: lambda v: type(v) is UintType,
    Kind.DOUBLE: lambda v: type(v) is float,
    Kind.STRING: lambda v: type(v) is str,
    Kind.BYTES: lambda v: type(v) is bytes,
    Kind.BOOL: lambda v: type(v) is bool,
    Kind.NULL: lambda v: v is None,
    Kind.DURATION: lambda v: type(v) is Duration,
    Kind.TIMESTAMP: lambda v: type(v) is Timestamp,
    Kind.LIST: lambda v: isinstance(v, (list, tuple)),
    Kind.MAP: lambda v: isinstance(v, Mapping),
    Kind.TYPE: lambda v: type(v) is TypeValue,
}


def _matcher(t: Type, guard: bool = False) -> Matcher:
    """Whether a runtime value fits parameter type `t`: its kind; as a type guard (`guard`: cel-go's
    `IsAssignableRuntimeType`, common/types/types.go), also the first element of a list and the
    first entry of a map against the element types that are not `dyn` or a type parameter."""
    if t.kind in (Kind.DYN, Kind.ANY, Kind.TYPE_PARAM, Kind.ERROR, Kind.UNSPECIFIED):
        return None
    base = _KIND_MATCHERS.get(t.kind)
    if isinstance(t, WrapperType) and base is not None:
        inner = base
        return lambda v: v is None or inner(v)
    if guard and t.kind is Kind.LIST:
        elem = _matcher(t.elem_type, True)
        if elem is not None:
            return lambda v: isinstance(v, (list, tuple)) and (not v or elem(normalize(v[0])))
    if guard and t.kind is Kind.MAP:
        key, value = _matcher(t.key_type, True), _matcher(t.elem_type, True)
        if key is not None or value is not None:
            return lambda v: isinstance(v, Mapping) and (not v or _first_entry_fits(v, key, value))
    if base is not None:
        return base
    if t.kind is Kind.OPAQUE and t.name == "optional_type":
        return lambda v: type(v) is Optional
    name = t.name
    return lambda v: isinstance(v, LibraryValue) and v.cel_type == name


def _inspects_elements(t: Type) -> bool:
    """Whether a type guard of `t` looks at a list's or map's first element (`_matcher`)."""
    if t.kind is Kind.LIST:
        return _matcher(t.elem_type, True) is not None
    if t.kind is Kind.MAP:
        return _matcher(t.key_type, True) is not None or _matcher(t.elem_type, True) is not None
    return False


def _first_entry_fits(m: Mapping[Any, Value], key: Matcher, value: Matcher) -> bool:
    k = next(iter(m))
    return (key is None or key(normalize(k))) and (value is None or value(normalize(m[k])))


@dataclass(frozen=True)
class _Candidate:
    overload_id: str
    function: str
    matchers: tuple[Matcher, ...]
    impl: Callable[..., Value]
    unit_cost: bool
    by_kind: bool
    """Whether its matchers look at the arguments' Python types only (no list element), so that
    a dispatch can be cached by them."""


_CANDIDATES: dict[tuple[str, Go | None], _Candidate | None] = {}
"""By overload id, and the Go for an overload that answers as Go does (`k8s.GO_DEPENDENT`)."""
_CANDIDATES_DEFAULT_COSTS: dict[tuple[str, Go | None], _Candidate | None] = {}  # without the library's costs


def _extension_impls() -> Mapping[str, Callable[..., Value]]:
    """The cel-go extensions only the conformance environment declares (`vap_lsp.cel.conformance`),
    imported on first need: a Kubernetes overload never gets here, so the server does not load them."""
    from vap_lsp.cel.runtime import celext

    return celext.IMPLS


def library_costs(env: Environment) -> bool:
    """Whether Kubernetes' library cost functions price calls at runtime in `env`'s version:
    `StrictCostEnforcementForVAP` (1.30–1.31: beta, off by default, absent from 1.30.0; GA and
    locked on from 1.32) adds `cel.CostTracking(&library.CostEstimator{})` to the programs
    (`environment.StrictCostOpt`); without it cel-go prices them at its default 1."""
    return env.minor >= 32


def _candidate(overload: Overload, library: bool = True, go: Go = NEWEST) -> _Candidate | None:
    """The overload's implementation; one that answers as Go does (`k8s.GO_DEPENDENT`) as `go` does,
    the Go the environment's Kubernetes version is built with."""
    cache = _CANDIDATES if library else _CANDIDATES_DEFAULT_COSTS
    go_dependent = k8s.GO_DEPENDENT.get(overload.id)
    key = (overload.id, go if go_dependent is not None else None)
    found = cache.get(key, _MISSING)
    if found is _MISSING:
        impl = (
            (go_dependent(go) if go_dependent is not None else None)
            or IMPLS.get(overload.id)
            or extlib.IMPLS.get(overload.id)
            or k8s.IMPLS.get(overload.id)
            or _extension_impls().get(overload.id)
        )
        style = lib.binding(overload.function).style
        guard = style is BindingStyle.OVERLOADS
        if style is BindingStyle.UNGUARDED:
            matchers: tuple[Matcher, ...] = tuple(None for _ in overload.params)  # the impl decides
        else:
            matchers = tuple(_matcher(p, guard) for p in overload.params)
        found = (
            None
            if impl is None
            else _Candidate(
                overload.id,
                overload.function,
                matchers,
                impl,
                is_unit_cost(overload.function, overload.id, library=library),
                not (guard and any(_inspects_elements(p) for p in overload.params)),
            )
        )
        cache[key] = found
    return found  # type: ignore[return-value]


def _operands(ctx: _Ctx, first: Fn, second: Fn) -> tuple[Value, Value]:
    """Both operands of a binary call as cel-go evaluates them (interpretable.go `evalBinary`,
    `evalEq`, `evalNe`): the second also when the first failed, so that its cost counts and its
    panic (`GoPanic`) or a cost limit ends the evaluation, then the first's error."""
    try:
        x = first(ctx)
    except CelError as err:
        with contextlib.suppress(CelError):
            second(ctx)
        raise err from None
    return x, second(ctx)


def _dispatch(candidates: Sequence[_Candidate], args: list[Value], fail: Fail) -> _Candidate:
    for c in candidates:
        for m, a in zip(c.matchers, args, strict=True):
            if m is not None and not m(a):
                break
        else:
            return c
    raise fail(args)


_REGEX_OPTIMIZED = frozenset({"matches", "find", "findAll"})
"""Functions whose constant pattern (argument 1, the receiver counted) cel-go compiles while it
builds the program: `matches` under OptOptimize, Kubernetes' `find`/`findAll` (`library.Regex`)."""

_TYPE_CONVERSIONS = frozenset(
    {"bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint"}
)


# --- the planner -------------------------------------------------------------------------------


class _Const:
    """A planned node with a value known at plan time (cel-go `InterpretableConst`)."""

    __slots__ = ("value",)

    def __init__(self, value: Value) -> None:
        self.value = value

    def __call__(self, ctx: _Ctx) -> Value:
        return self.value


class _ErrorConst:
    __slots__ = ("err",)

    def __init__(self, err: CelError) -> None:
        self.err = err

    def __call__(self, ctx: _Ctx) -> Value:
        raise self.err


# Traced plans: the same closures, each wrapped to note its node's value or error in the current
# frame (`ctx.frame`). Constants stay `_Const`/`_ErrorConst` instances so the planner folds
# exactly as it does for a plain plan: cost and results cannot differ.


class _TracedConst(_Const):
    __slots__ = ("nid",)

    def __init__(self, value: Value, nid: int) -> None:
        super().__init__(value)
        self.nid = nid

    def __call__(self, ctx: _Ctx) -> Value:
        ctx.frame.values[self.nid] = self.value  # type: ignore[union-attr]
        return self.value


class _TracedErrorConst(_ErrorConst):
    __slots__ = ("nid",)

    def __init__(self, err: CelError, nid: int) -> None:
        super().__init__(err)
        self.nid = nid

    def __call__(self, ctx: _Ctx) -> Value:
        ctx.frame.values[self.nid] = TracedError(self.err.message)  # type: ignore[union-attr]
        raise self.err


def _traced(nid: int, fn: Fn) -> Fn:
    if isinstance(fn, _Const):
        return _TracedConst(fn.value, nid)
    if isinstance(fn, _ErrorConst):
        return _TracedErrorConst(fn.err, nid)

    def traced(ctx: _Ctx) -> Value:
        try:
            v = fn(ctx)
        except CelError as err:
            ctx.frame.values[nid] = TracedError(err.message)  # type: ignore[union-attr]
            raise
        except (CostLimitExceeded, GoPanic) as exc:
            ctx.frame.values[nid] = TracedError(exc.message)  # type: ignore[union-attr]
            raise
        ctx.frame.values[nid] = v  # type: ignore[union-attr]
        return v

    return traced


_ACCU_NAMES = frozenset({"@result", "__result__", "@__sortBy_input__"})


class _Planner:
    def __init__(
        self, parsed: ParsedExpr, checked: CheckedExpr | None, env: Environment, traced: bool = False
    ) -> None:
        self.parsed = parsed
        self.traced = traced
        self.refs = checked.references if checked is not None else {}
        self.checked = checked is not None
        self.env = env
        self.scopes: list[set[str]] = []
        self.accus: list[set[str]] = []
        self.library_costs = library_costs(env)
        self.go = for_kubernetes(env.minor)
        """The Go kube-apiserver of the environment's version is built with (URL parsing)."""
        self.cel_go_029 = not lib.cel_go_before(env.minor, (0, 29))
        """cel-go v0.29's runtime costs (`call_cost`'s `cel_go_029`): Kubernetes 1.37 on."""
        self.build_errors: list[tuple[int, str]] = []
        """What fails while cel-go builds the program (node id, error), in planning order:
        conversions of constants folded (OptOptimize), constant regexes compiled."""

    # -- helpers --------------------------------------------------------------------------

    def _env_overload(self, function: str, overload_id: str) -> Overload | None:
        """An overload only this environment declares (the conformance suite's extensions; the
        Kubernetes overloads are all in `_OVERLOADS`)."""
        decl = self.env.find_function(function)
        return decl.overload(overload_id) if decl is not None else None

    def _compile_constant_regex(self, e: Call, function: str, arg_fns: Sequence[Fn]) -> bool:
        """cel-go's `CompileRegexConstants`: a constant pattern (a literal, or a conversion
        OptOptimize folded: `dyn('(')`) of `matches` (OptOptimize's `MatchesRegexOptimization`)
        and of Kubernetes' `find`/`findAll` (`library.Regex`'s program options) is compiled while
        the program is built; a pattern Go's `regexp` rejects fails the build. Whether the call
        is so optimised (interpreter/decorators.go `decRegexOptimizer`)."""
        if function not in _REGEX_OPTIMIZED or len(arg_fns) < 2 or len(e.args) < 1:
            return False
        pattern = arg_fns[1]
        if not isinstance(pattern, _Const) or not isinstance(pattern.value, str):
            return False
        if function != "matches" and self.env.find_function(function) is None:
            return False
        try:
            regexp.compile(pattern.value)
        except regexp.RegexpError as exc:
            node = e.args[0] if e.target is not None else e.args[min(1, len(e.args) - 1)]
            self.build_errors.append((node.id, str(exc)))
        return True

    def is_local(self, name: str) -> bool:
        return any(name in s for s in self.scopes)

    def is_accu(self, name: str) -> bool:
        for scope, accus in zip(reversed(self.scopes), reversed(self.accus), strict=True):
            if name in scope:
                return name in accus
        return False

    def plan(self, e: Expr) -> Fn:
        fn = self._plan(e)
        return _traced(e.id, fn) if self.traced else fn

    def _plan(self, e: Expr) -> Fn:
        if isinstance(e, Literal):
            return _Const(_literal(e))
        if isinstance(e, Ident):
            return self.plan_ident(e)
        if isinstance(e, Select):
            return self.plan_select(e)
        if isinstance(e, Call):
            return self.plan_call(e)
        if isinstance(e, ListExpr):
            return self.plan_list(e)
        if isinstance(e, MapExpr):
            return self.plan_map(e)
        if isinstance(e, StructExpr):
            return self.plan_struct(e)
        if isinstance(e, Comprehension):
            return self.plan_comprehension(e)
        if isinstance(e, ErrorExpr):
            return _ErrorConst(CelError("expression has syntax errors"))
        raise AssertionError(type(e))

    def _variable(self, name: str) -> Fn:
        def var(ctx: _Ctx) -> Value:
            ctx.charge(1)
            act = ctx.activation
            try:
                v = act[name]
            except KeyError:
                raise CelError(f"no such attribute(s): {name}") from None
            return k8s.wrap_activation_value(v) if type(v) not in _PLAIN else v

        return var

    def plan_ident(self, e: Ident) -> Fn:
        root_only = e.name.startswith(".")
        name = e.name.lstrip(".")
        if not (root_only and shadowing_fixed(self.env)) and self.is_local(name):
            if self.is_accu(name):

                def accu(ctx: _Ctx) -> Value:
                    ctx.charge(1)
                    v = ctx.locals[name]
                    if type(v) is _ErrBox:
                        raise v.err
                    return v

                return accu

            def local(ctx: _Ctx) -> Value:
                ctx.charge(1)
                return ctx.locals[name]

            return local
        ref = self.refs.get(e.id)
        if ref is not None and ref.kind == "type":
            return _Const(TypeValue(ref.name))
        if (
            ref is None
            and not self.checked
            and self.env.find_variable(name) is None
            and self.env.find_type_identifier(name) is not None
        ):
            return _Const(TypeValue(name))
        if ref is not None and ref.kind == "variable":
            return self._variable(ref.name)
        container = self.env.container
        if container and not self.checked:
            return self._variable_in_container(container_candidates(container, name, root_only))
        return self._variable(name)

    def _variable_in_container(self, candidates: list[str]) -> Fn:
        """Unchecked name resolution in a container: the first candidate the activation has."""

        def var(ctx: _Ctx) -> Value:
            ctx.charge(1)
            for candidate in candidates:
                if candidate in ctx.activation:
                    v = ctx.activation[candidate]
                    return k8s.wrap_activation_value(v) if type(v) not in _PLAIN else v
            raise CelError(f"no such attribute(s): {candidates[-1]}")

        return var

    def plan_select(self, e: Select) -> Fn:
        ref = self.refs.get(e.id)
        if ref is not None and ref.kind == "type" and not e.test_only:
            return _Const(TypeValue(ref.name))
        if not e.test_only and not e.optional:
            dotted: str | None = None
            if ref is not None and ref.kind == "variable":
                dotted = ref.name
            elif not self.checked:
                q = qualified_name(e)
                if q is not None and self.env.find_variable(q) is not None:
                    root = q.split(".")[0]
                    if not self.is_local(root):
                        dotted = q
            if dotted is not None and "." in dotted:
                return self._dotted_variable(e, dotted)
        operand = self.plan(e.operand)
        name = e.field
        extra = 0 if _is_attribute(e.operand) else 1
        if e.test_only:

            def has(ctx: _Ctx) -> Value:
                v = operand(ctx)
                if extra:
                    ctx.charge(extra)
                return _has_field(v, name)

            return has
        if e.optional:
            # cel-go charges a qualifier when it is observed, and an optional qualifier on an
            # absent field is not (interpretable.go `evalWatchConstQual.QualifyIfPresent`
            # observes only when present); a relative attribute's base (`extra`) is charged
            # always. Found by the oracle (issue 34).

            def opt_select(ctx: _Ctx) -> Value:
                v = operand(ctx)
                if extra:
                    ctx.charge(extra)
                if type(v) is Optional:
                    if not v.has_value:
                        return NONE
                    v = v.value
                r = _optional_field(v, name, ctx)
                if type(r) is Optional and r.has_value:
                    ctx.charge(1)
                return r

            return opt_select

        cost = 1 + extra

        def select(ctx: _Ctx) -> Value:
            v = operand(ctx)
            c = ctx.cost + cost
            ctx.cost = c
            if c > ctx.limit:
                raise CostLimitExceeded()
            if type(v) is dict:
                r = v.get(name, _MISSING)
                if r is _MISSING:
                    raise CelError(f"no such key: {name}")
                return r if type(r) in _PLAIN else normalize(r)
            if type(v) is Optional:
                if not v.has_value:
                    return NONE
                return _optional_field(v.value, name, ctx)
            return _select(v, name, ctx)

        return select

    def _dotted_variable(self, e: Select, dotted: str) -> Fn:
        fallback_operand = self.plan(e.operand)
        name = e.field

        def var(ctx: _Ctx) -> Value:
            act = ctx.activation
            if dotted in act:
                ctx.charge(1)
                return k8s.wrap_activation_value(act[dotted])
            v = fallback_operand(ctx)
            ctx.charge(1)
            return _select(v, name, ctx)

        return var

    # -- calls ----------------------------------------------------------------------------

    def plan_call(self, e: Call) -> Fn:
        fn = e.function
        if fn == "_&&_" or fn == "_||_":
            return self.plan_logic(e, fn == "_&&_")
        if fn == "_?_:_":
            return self.plan_conditional(e)
        if fn == "@not_strictly_false":
            arg = self.plan(e.args[0])

            def nsf(ctx: _Ctx) -> Value:
                try:
                    v = arg(ctx)
                except CelError:
                    ctx.charge(1)
                    return True
                ctx.charge(1)
                return v is not False

            return nsf
        if fn == "!_":
            arg = self.plan(e.args[0])

            def not_(ctx: _Ctx) -> Value:
                v = arg(ctx)
                ctx.charge(1)
                if type(v) is not bool:
                    raise no_such_overload()
                return not v

            return not_
        if fn in ("_[_]", "_[?_]") and e.target is None and len(e.args) == 2:
            return self.plan_index(e, optional=fn == "_[?_]")
        if fn in _OPTIONAL_OR and e.target is not None and len(e.args) == 1:
            ref = self.refs.get(e.id)
            if ref is None or not ref.overload_ids or set(ref.overload_ids) <= {_OPTIONAL_OR[fn]}:
                return self.plan_optional_or(e, value=fn == "orValue")
        if fn == "@in" and len(e.args) == 2 and isinstance(e.args[1], ListExpr):
            fast = self.plan_set_membership(e)
            if fast is not None:
                return fast

        ref = self.refs.get(e.id)
        target = e.target
        function = fn
        if ref is not None and ref.kind == "function":
            function = ref.name
            if target is not None and ref.name != fn:
                target = None  # namespaced function: `sets.contains(...)`
            ids = ref.overload_ids
            overloads = [o for o in (_OVERLOADS.get(i) or self._env_overload(function, i) for i in ids) if o]
        else:
            if target is not None:
                prefix = qualified_name(target)
                if prefix is not None and self.env.find_function(f"{prefix}.{fn}") is not None:
                    root = prefix.split(".")[0]
                    if not self.is_local(root) and self.env.find_variable(root) is None:
                        function = f"{prefix}.{fn}"
                        target = None
            decl = self.env.find_function(function)
            overloads = list(_BY_FUNCTION.get(function) or (decl.overloads if decl is not None else []))
        member = target is not None
        argc = len(e.args) + (1 if member else 0)
        overloads = [o for o in overloads if o.receiver_style == member and len(o.params) == argc]
        library = self.library_costs
        v029 = self.cel_go_029
        candidates = [c for c in (_candidate(o, library, self.go) for o in overloads) if c is not None]
        arg_fns = ([self.plan(target)] if target is not None else []) + [self.plan(a) for a in e.args]
        if not candidates:
            # No implementation (a parsed-only call of an undeclared function): cel-go plans the
            # call without one, and evalVarArgs names the call's node from v0.20.
            call_id = None if lib.cel_go_before(self.env.minor, (0, 20)) else e.id

            def unknown(ctx: _Ctx) -> Value:
                raise overload_error(None, function, [a(ctx) for a in arg_fns], call_id=call_id)

            return unknown

        binding = lib.binding(function)
        if self._compile_constant_regex(e, function, arg_fns):
            # interpreter.RegexOptimization's call, a plain implementation, replaces the guards
            binding = UNGUARDED_BINDING

        def fail(args: Sequence[Value]) -> CelError:
            return overload_error(binding, function, args)

        # OptOptimize: a type conversion of a constant is folded into a cost-0 constant.
        if function in _TYPE_CONVERSIONS and len(arg_fns) == 1 and isinstance(arg_fns[0], _Const):
            try:
                args0 = [arg_fns[0].value]
                return _Const(_dispatch(candidates, args0, fail).impl(*args0))
            except CelError as err:
                self.build_errors.append((e.id, err.message))
                return _ErrorConst(err)

        pre = extlib.PRE_CHECKS.get(function)
        single = ref.overload_ids[0] if ref is not None and len(ref.overload_ids) == 1 else None
        tracked = ext_decls.TRACKER_ASSERTIONS.get(single) if single is not None else None

        if len(candidates) == 1 and len(arg_fns) == 2 and tracked is None:
            only = candidates[0]
            m0, m1 = only.matchers
            impl = only.impl
            a0, a1 = arg_fns
            oid, fname, unit = only.overload_id, only.function, only.unit_cost

            def call2(ctx: _Ctx) -> Value:
                x, y = _operands(ctx, a0, a1)
                if (m0 is not None and not m0(x)) or (m1 is not None and not m1(y)):
                    raise fail((x, y))
                if pre is not None:
                    pre(ctx, [x, y])
                try:
                    result = impl(x, y)
                except CelError:
                    ctx.charge(1)
                    raise
                ctx.charge(
                    1 if unit else call_cost(fname, oid, (x, y), result, library=library, cel_go_029=v029)
                )
                return result

            return call2

        by_types: dict[tuple[type, ...], _Candidate] = {}
        cache = all(c.by_kind for c in candidates)  # else a list's element decides too

        binary = arg_fns if len(arg_fns) == 2 else None

        def call(ctx: _Ctx, given: list[Value] | None = None) -> Value:
            if given is not None:
                args = given
            elif binary is not None:
                args = list(_operands(ctx, binary[0], binary[1]))
            else:
                args = [a(ctx) for a in arg_fns]  # evalVarArgs: the first error returns at once
            key = tuple(map(type, args))
            chosen = by_types.get(key)
            if chosen is None:
                chosen = _dispatch(candidates, args, fail)
                if cache and len(by_types) < 64:
                    by_types[key] = chosen
            if pre is not None:
                pre(ctx, args)
            try:
                result = chosen.impl(*args)
            except CelError:
                ctx.charge(1)
                raise
            if chosen.unit_cost:
                c = ctx.cost + 1
                ctx.cost = c
                if c > ctx.limit:
                    raise CostLimitExceeded()
            else:
                ctx.charge(
                    call_cost(
                        chosen.function, chosen.overload_id, args, result, library=library, cel_go_029=v029
                    )
                )
            return result

        if tracked is None:
            return call
        held, asserted = tracked

        def cost_tracked(ctx: _Ctx) -> Value:
            # cel-go evaluates every argument (the tracked overloads take one or two: evalUnary,
            # evalBinary, as `_operands`), then its cost tracker asserts one's Go type
            # (`library.ext.TRACKER_ASSERTIONS`): a panic however the call went, else the first error.
            args: list[Value] = []
            failed: CelError | None = None
            for a in arg_fns:
                try:
                    args.append(a(ctx))
                except CelError as err:
                    args.append(err)
                    failed = failed or err
            panic = assertion_panic(args[held], asserted)
            if panic is not None:
                raise panic
            if failed is not None:
                raise failed
            return call(ctx, args)

        return cost_tracked

    def plan_logic(self, e: Call, is_and: bool) -> Fn:
        left, right = (self.plan(a) for a in e.args)
        absorbing = not is_and  # `||` short-circuits on true, `&&` on false

        def logic(ctx: _Ctx) -> Value:
            err: CelError | None = None
            try:
                lv = left(ctx)
                if lv is absorbing:
                    return absorbing
                if type(lv) is not bool:
                    err = no_such_overload()
            except CelError as exc:
                err = exc
            try:
                rv = right(ctx)
                if rv is absorbing:
                    return absorbing
                if type(rv) is not bool and err is None:
                    err = no_such_overload()
            except CelError as exc:
                if err is None:
                    err = exc
            if err is not None:
                raise err
            return not absorbing

        return logic

    def plan_resolved(self, e: Expr) -> Fn:
        """`e` where cel-go resolves it as an attribute instead of evaluating it: a branch of a
        conditional (`planCallConditional` takes the branch's `Attr()`, `conditionalAttribute`
        resolves it) and an index key that is an attribute (`attrQualifier` resolves it). The
        observer charges an attribute's own 1 (SelectAndIdentCost) only when it is evaluated, so
        the identifier or relative attribute at its root is free there; its qualifiers are not."""
        fn = self.plan(e)
        if isinstance(fn, _Const) or not _attribute_base(e):
            return fn

        def resolved(ctx: _Ctx) -> Value:
            try:
                return fn(ctx)
            finally:
                ctx.cost -= 1

        return resolved

    def plan_conditional(self, e: Call) -> Fn:
        cond = self.plan(e.args[0])
        then, other = self.plan_resolved(e.args[1]), self.plan_resolved(e.args[2])

        def conditional(ctx: _Ctx) -> Value:
            c = cond(ctx)
            if c is True:
                return then(ctx)
            if c is False:
                return other(ctx)
            raise no_such_overload()

        return conditional

    def plan_index(self, e: Call, *, optional: bool) -> Fn:
        operand = self.plan(e.args[0])
        key = self.plan_resolved(e.args[1]) if _is_attribute(e.args[1]) else self.plan(e.args[1])
        extra = 0 if _is_attribute(e.args[0]) else 1
        cost = 1 + extra

        def index(ctx: _Ctx) -> Value:
            v = operand(ctx)
            k = key(ctx)
            if type(v) is Optional or optional:
                # An optional qualifier is charged only when its key is present (as in
                # plan_select's `opt_select`; cel-go `QualifyIfPresent`).
                if extra:
                    ctx.charge(extra)
                if type(v) is Optional:
                    if not v.has_value:
                        return NONE
                    v = v.value
                r = _index_if_present(v, k, ctx)
                if type(r) is Optional and r.has_value:
                    ctx.charge(1)
                return r
            ctx.charge(cost)
            return _index(v, k, ctx)

        return index

    def plan_optional_or(self, e: Call, *, value: bool) -> Fn:
        """`o.or(p)` and `o.orValue(v)` as cel-go's optional library plans them
        (`cel/library.go` `decorateOptionalOr`: `evalOptionalOr`, `evalOptionalOrValue`): the
        right side only when `o` has no value. A left side that is not an optional (a field read
        without `?`) is returned as it is up to cel-go v0.27, Kubernetes 1.36 (`if !ok { return
        optLHS }`); from v0.28 (Kubernetes 1.37) it is `no such overload`."""
        assert e.target is not None
        lhs = self.plan(e.target)
        rhs = self.plan(e.args[0])
        lenient = lib.cel_go_before(self.env.minor, (0, 28))

        def or_(ctx: _Ctx) -> Value:
            # No charge of its own: evalOptionalOr/evalOptionalOrValue are no InterpretableCall,
            # so cel-go's cost tracker prices only their operands (interpreter/runtimecost.go
            # `Observe`; confirmed by the oracle, issue 34).
            v = lhs(ctx)
            if type(v) is not Optional:
                if lenient:
                    return v
                raise no_such_overload()
            if v.has_value:
                return v.value if value else v
            return rhs(ctx)

        return or_

    def plan_set_membership(self, e: Call) -> Fn | None:
        """OptOptimize's `x in [constants]`: a set lookup of cost 0 (primitive elements only)."""
        lst = self.plan(e.args[1])
        if not isinstance(lst, _Const):
            return None
        values = lst.value
        if not values:
            # planner.go maybeOptimizeSetMembership: `x in []` is the constant false (x is
            # planned, so its own folding errors stand, but never evaluated), which folds further
            # (found by the oracle, issue 34).
            self.plan(e.args[0])
            return _Const(False)
        if any(type(v) not in (str, int, float, bool, UintType) for v in values):
            return None
        elem = self.plan(e.args[0])

        def member(ctx: _Ctx) -> Value:
            x = elem(ctx)
            return any(cel_equals(x, v) for v in values)

        return member

    # -- literals -------------------------------------------------------------------------

    def plan_list(self, e: ListExpr) -> Fn:
        elems = [self.plan(x) for x in e.elements]
        optionals = frozenset(e.optional_indices)
        if not optionals and all(isinstance(x, _Const) for x in elems):
            return _Const([x.value for x in elems])  # type: ignore[attr-defined]

        def make_list(ctx: _Ctx) -> Value:
            out: list[Value] = []
            for i, x in enumerate(elems):
                v = x(ctx)
                if i in optionals:
                    if type(v) is not Optional:
                        raise CelError(
                            f"cannot initialize optional list element from non-optional value {_go_str(v)}"
                        )
                    if not v.has_value:
                        continue
                    v = v.value
                out.append(v)
            ctx.charge(LIST_CREATE)
            return out

        return make_list

    def plan_map(self, e: MapExpr) -> Fn:
        entries = [(self.plan(en.key), self.plan(en.value), en.optional) for en in e.entries]
        if all(isinstance(k, _Const) and isinstance(v, _Const) and not o for k, v, o in entries):
            try:
                const: dict[Value, Value] = {}
                for k, v, _ in entries:  # a repeated key keeps the last value, as in cel-go
                    const[cel_hash_key(k.value)] = v.value  # type: ignore[attr-defined]
                return _Const(const)
            except CelError as err:
                return _ErrorConst(err)

        def make_map(ctx: _Ctx) -> Value:
            out: dict[Value, Value] = {}
            for kf, vf, opt in entries:
                k = cel_hash_key(kf(ctx))
                v = vf(ctx)
                if opt:
                    if type(v) is not Optional:
                        raise CelError(
                            f"cannot initialize optional entry '{format_key(k)}' from non-optional "
                            f"value {_go_str(v)}"
                        )
                    if not v.has_value:
                        out.pop(k, None)
                        continue
                    v = v.value
                out[k] = v
            ctx.charge(MAP_CREATE)
            return out

        return make_map

    def plan_struct(self, e: StructExpr) -> Fn:
        ref = self.refs.get(e.id)
        type_name_ = ref.name if ref is not None and ref.kind == "type" else e.type_name.lstrip(".")
        fields = [(f.name, self.plan(f.value), f.optional) for f in e.fields]

        def make_struct(ctx: _Ctx) -> Value:
            values: dict[str, Value] = {}
            for name, vf, opt in fields:
                v = vf(ctx)
                if opt:
                    if type(v) is not Optional:
                        raise CelError(
                            f"cannot initialize optional entry '{name}' from non-optional value {_go_str(v)}"
                        )
                    if not v.has_value:
                        continue
                    v = v.value
                values[name] = v
            ctx.charge(STRUCT_CREATE)
            return k8s.make_struct(type_name_, values)

        return make_struct

    # -- comprehensions -------------------------------------------------------------------

    def plan_comprehension(self, e: Comprehension) -> Fn:
        iter_range = self.plan(e.iter_range)
        accu_init = self.plan(e.accu_init)
        accu_var, v1, v2 = e.accu_var, e.iter_var, e.iter_var2
        fresh_list = isinstance(e.accu_init, ListExpr) and not e.accu_init.elements
        fresh_map = isinstance(e.accu_init, MapExpr) and not e.accu_init.entries
        self.scopes.append({accu_var})
        self.accus.append({accu_var})
        loop_vars = {v1} | ({v2} if v2 else set())
        self.scopes.append(loop_vars)
        self.accus.append(set())
        cond = self.plan(e.loop_condition)
        step = self.plan(e.loop_step)
        self.scopes.pop()
        self.accus.pop()
        result = self.plan(e.result)
        self.scopes.pop()
        self.accus.pop()
        cond_const = cond.value if isinstance(cond, _Const) else None
        saved_names = (accu_var, v1, v2) if v2 else (accu_var, v1)
        traced, cid = self.traced, e.id

        def comprehension(ctx: _Ctx) -> Value:
            rng = _iter_range(iter_range(ctx))
            if fresh_list:
                accu_init(ctx)
                accu: Value = MutableList()
            elif fresh_map:
                accu_init(ctx)
                accu = extlib.MutableMap()
            else:
                accu = accu_init(ctx)
            locals_ = ctx.locals
            saved = [locals_.get(n, _MISSING) for n in saved_names]
            parent = ctx.frame
            iterations: list[Iteration] = []
            if traced:
                parent.loops[cid] = iterations  # type: ignore[union-attr]
            try:
                locals_[accu_var] = accu
                is_map = isinstance(rng, Mapping)
                items: Any = rng.keys() if is_map else rng
                for i, item in enumerate(items):
                    item = normalize(item)
                    if traced:
                        frame = Frame()
                        iterations.append(
                            Iteration(item, normalize(rng[item]), frame)
                            if is_map
                            else Iteration(i, item, frame)
                        )
                        ctx.frame = frame
                    if v2 is not None:
                        if is_map:
                            locals_[v1] = item
                            locals_[v2] = normalize(rng[item])
                        else:
                            locals_[v1] = i
                            locals_[v2] = item
                    else:
                        locals_[v1] = item
                    if cond_const is not True:
                        try:
                            c = cond(ctx)
                        except CelError:
                            c = None
                        if c is False:
                            break
                    try:
                        locals_[accu_var] = step(ctx)
                    except CelError as err:
                        locals_[accu_var] = _ErrBox(err)
                ctx.frame = parent
                out = result(ctx)
            finally:
                ctx.frame = parent
                for n, old in zip(saved_names, saved, strict=True):
                    if old is _MISSING:
                        locals_.pop(n, None)
                    else:
                        locals_[n] = old
            if type(accu) is MutableList or type(accu) is extlib.MutableMap:
                accu.mutable = False
            return out

        return comprehension


_PLAIN = frozenset({str, int, float, bool, type(None), dict, list})


def _has_field_quiet(v: Value, name: str) -> bool:
    try:
        return _has_field(v, name)
    except CelError:
        return False


_OPTIONAL_OR = {"or": "optional_or_optional", "orValue": "optional_orValue_value"}


def _is_attribute(e: Expr) -> bool:
    """Whether cel-go plans `e` as an attribute (qualifiers then cost 1 each, no extra
    relative-attribute cost): identifiers, selections, indexing, the conditional."""
    if isinstance(e, (Ident, Select)):
        return not (isinstance(e, Select) and e.test_only)
    return isinstance(e, Call) and e.function in ("_[_]", "_[?_]", "_?_:_") and e.target is None


def _attribute_base(e: Expr) -> bool:
    """Whether evaluating `e` charges an attribute's own 1 at its root (cel-go's observer on an
    `InterpretableAttribute`): a variable or comprehension identifier with its selections and
    indexes, or selections and indexes of a computed value (a relative attribute); not a
    conditional (free itself: its branches are resolved) nor a presence test."""
    root, qualified = e, False
    while True:
        if isinstance(root, Select) and not root.test_only:
            root, qualified = root.operand, True
        elif isinstance(root, Call) and root.function in ("_[_]", "_[?_]") and root.target is None:
            root, qualified = root.args[0], True
        else:
            break
    if isinstance(root, Ident):
        return True
    if _is_attribute(root) or (isinstance(root, Select) and root.test_only):
        return False  # a conditional
    return qualified  # a relative attribute over a computed operand


def _go_str(v: Value) -> str:
    if type(v) is str:
        return v
    if type(v) is bool:
        return "true" if v else "false"
    return str(to_python(v))


def _literal(e: Literal) -> Value:
    k = e.kind
    if k is LiteralKind.UINT:
        return UintType(int(e.value))  # type: ignore[call-overload]
    if k is LiteralKind.NULL:
        return None
    if k is LiteralKind.DOUBLE:
        return float(e.value)  # type: ignore[arg-type]
    return e.value


# --- entry point -------------------------------------------------------------------------------

_PLANS: dict[int, tuple[object, Environment, Fn]] = {}
_TRACED_PLANS: dict[int, tuple[object, Environment, Fn]] = {}


def _plan_for(expr: CheckedExpr | ParsedExpr, env: Environment, traced: bool = False) -> Fn:
    """The plan of `expr`, cached; a traced plan is a separate plan, so plain evaluation runs
    exactly the closures it ran before tracing existed."""
    plans = _TRACED_PLANS if traced else _PLANS
    key = id(expr)
    hit = plans.get(key)
    if hit is not None and hit[0] is expr and hit[1] is env:
        return hit[2]
    if isinstance(expr, CheckedExpr):
        parsed, checked = expr.parsed, expr
    else:
        parsed, checked = expr, None
    if parsed.ast is None:
        plan: Fn = _ErrorConst(CelError("expression has syntax errors"))
    else:
        plan = _Planner(parsed, checked, env, traced).plan(parsed.ast)
    if len(plans) > 2048:
        plans.clear()
    plans[key] = (expr, env, plan)
    return plan


def build_errors(checked: CheckedExpr, env: Environment) -> list[tuple[int, str]]:
    """What fails while the server builds the program of `checked` (node id, cel-go's error), in
    the order the planner meets it (operands first): a type conversion of a constant, which
    OptOptimize's `decOptimize` folds then (`maybeOptimizeConstUnary`; this evaluator folds the
    same ones into `_Const`/`_ErrorConst`), and a constant regex `CompileRegexConstants` compiles.
    Either fails `env.Program`: compile.go's `program instantiation failed: …`."""
    if checked.parsed.ast is None:
        return []
    planner = _Planner(checked.parsed, checked, env)
    planner.plan(checked.parsed.ast)
    return planner.build_errors


def evaluate(
    checked: CheckedExpr | ParsedExpr,
    activation: Mapping[str, object],
    *,
    env: Environment,
    cost_limit: int | None = 1_000_000,
    trace: bool = False,
) -> EvalResult:
    """Evaluate a compiled expression against JSON-shaped variables; never raises.

    `activation` maps variable names (`object`, `oldObject`, `params`, `request`,
    `namespaceObject`, `authorizer`, `authorizer.requestResource`, `variables`) to values;
    JSON data is used as-is (read lazily), `variables` may be a `LazyVariables`, `authorizer`
    any `k8s.Authorizer`. `cost_limit` is the per-call limit (None: unlimited); budgets shared by
    several expressions are the caller's (`vap_lsp.analysis.model.cost_budget`). With `trace`, the
    result carries every evaluated node's value or error (`EvalResult.trace`); value, error and
    cost are those of a plain evaluation.
    """
    limit = _UNLIMITED if cost_limit is None else cost_limit
    parsed = checked.parsed if isinstance(checked, CheckedExpr) else checked
    recorded = Trace(parsed) if trace else None
    ctx = _Ctx(activation, limit, recorded.root if recorded is not None else None)
    try:
        plan = _plan_for(checked, env, trace)
        value = plan(ctx)
        result = EvalResult(value=value, cost=ctx.cost + ctx.extra_cost, variables_cost=ctx.extra_cost)
    except CelError as err:
        result = EvalResult(error=err.message, cost=ctx.cost + ctx.extra_cost, variables_cost=ctx.extra_cost)
    except CostLimitExceeded as exc:
        result = EvalResult(
            error=exc.message,
            cost=ctx.cost + ctx.extra_cost,
            cost_limit_exceeded=True,
            variables_cost=ctx.extra_cost,
        )
    except GoPanic as exc:
        result = EvalResult(error=exc.message, cost=ctx.cost + ctx.extra_cost, variables_cost=ctx.extra_cost)
    except RecursionError:
        result = EvalResult(
            error="max recursion depth exceeded",
            cost=ctx.cost + ctx.extra_cost,
            variables_cost=ctx.extra_cost,
        )
    except Exception as exc:  # a bug here must not take the caller down: report it as an error
        result = EvalResult(error=f"internal error: {type(exc).__name__}: {exc}", cost=ctx.cost)
    result.trace = recorded
    return result
