"""CEL macros, expanded exactly as cel-go does (parser/macro.go, ext/comprehensions.go,
cel/library.go optMap/optFlatMap, ext/bindings.go cel.bind).

Which macros exist depends on the Kubernetes version (cel-go version and the
extension libraries it enables), so the parser takes the enabled set as a
parameter.  A macro is named ``"<function>(<argc>)"`` (e.g. ``"all(2)"``,
``"all(3)"``, ``"cel.bind(3)"``); a bare function name (``"all"``) enables every
arity of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    ErrorExpr,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapEntry,
    MapExpr,
    Select,
    StructExpr,
    StructField,
)

__all__ = [
    "ACCUMULATOR_NAME",
    "ALL_MACROS",
    "BIND_MACROS",
    "BLOCK_MACROS",
    "DEFAULT_MACROS",
    "LEGACY_ACCUMULATOR_NAME",
    "OPTIONAL_MACROS",
    "STANDARD_MACROS",
    "TWO_VAR_MACROS",
    "ExprFactory",
    "MacroError",
    "MacroSpec",
    "find_macro",
    "macro_key",
    "resolve_macros",
]

ACCUMULATOR_NAME = "@result"
LEGACY_ACCUMULATOR_NAME = "__result__"
UNUSED_ITER_VAR = "#unused"


@dataclass
class MacroError:
    message: str
    node: Expr


class ExprFactory:
    """Creates macro-generated nodes the way cel-go's ExprHelper does.

    Generated nodes get fresh ids (allocated in cel-go's order), a zero-width span
    and cel-go location at the macro call's ``(``.
    """

    def __init__(self, new_id: Callable[[], int], positions: dict[int, int], loc: int) -> None:
        self._new_id = new_id
        self._positions = positions
        self.loc = loc

    def _id(self) -> int:
        i = self._new_id()
        self._positions[i] = self.loc
        return i

    def literal(self, kind: LiteralKind, value: object) -> Literal:
        return Literal(self._id(), self.loc, self.loc, kind, value)

    def ident(self, name: str) -> Ident:
        return Ident(self._id(), self.loc, self.loc, name)

    def accu(self) -> Ident:
        return self.ident(ACCUMULATOR_NAME)

    def call(self, function: str, *args: Expr) -> Call:
        return Call(self._id(), self.loc, self.loc, function, list(args))

    def member_call(self, function: str, target: Expr, *args: Expr) -> Call:
        return Call(self._id(), self.loc, self.loc, function, list(args), target)

    def list(self, *elems: Expr) -> ListExpr:
        return ListExpr(self._id(), self.loc, self.loc, list(elems), [])

    def map(self) -> MapExpr:
        return MapExpr(self._id(), self.loc, self.loc, [])

    def presence(self, operand: Expr, field: str, field_start: int) -> Select:
        return Select(self._id(), self.loc, self.loc, operand, field, field_start, test_only=True)

    def comprehension(
        self,
        iter_range: Expr,
        iter_var: str,
        iter_var2: str | None,
        accu_init: Expr,
        cond: Expr,
        step: Expr,
        result: Expr,
        accu_var: str = ACCUMULATOR_NAME,
    ) -> Comprehension:
        return Comprehension(
            self._id(),
            self.loc,
            self.loc,
            iter_var,
            iter_var2,
            iter_range,
            accu_var,
            accu_init,
            cond,
            step,
            result,
        )

    def copy(self, e: Expr) -> Expr:
        """Deep copy with fresh ids but the original spans (cel-go ``Copy``)."""
        i = self._new_id()
        self._positions[i] = self._positions.get(e.id, self.loc)
        out: Expr
        if isinstance(e, Literal):
            out = Literal(i, e.start, e.end, e.kind, e.value)
        elif isinstance(e, Ident):
            out = Ident(i, e.start, e.end, e.name)
        elif isinstance(e, Select):
            out = Select(
                i, e.start, e.end, self.copy(e.operand), e.field, e.field_start, e.test_only, e.optional
            )
        elif isinstance(e, Call):
            args = [self.copy(a) for a in e.args]
            target = self.copy(e.target) if e.target is not None else None
            out = Call(i, e.start, e.end, e.function, args, target, e.function_start)
        elif isinstance(e, ListExpr):
            out = ListExpr(i, e.start, e.end, [self.copy(x) for x in e.elements], list(e.optional_indices))
        elif isinstance(e, MapExpr):
            entries = []
            for en in e.entries:
                eid = self._id()
                entries.append(
                    MapEntry(eid, en.start, en.end, self.copy(en.key), self.copy(en.value), en.optional)
                )
            out = MapExpr(i, e.start, e.end, entries)
        elif isinstance(e, StructExpr):
            fields = []
            for f in e.fields:
                fid = self._id()
                fields.append(
                    StructField(fid, f.start, f.end, f.name, f.name_start, self.copy(f.value), f.optional)
                )
            out = StructExpr(i, e.start, e.end, e.type_name, e.type_name_start, fields)
        elif isinstance(e, Comprehension):
            out = Comprehension(
                i,
                e.start,
                e.end,
                e.iter_var,
                e.iter_var2,
                self.copy(e.iter_range),
                e.accu_var,
                self.copy(e.accu_init),
                self.copy(e.loop_condition),
                self.copy(e.loop_step),
                self.copy(e.result),
            )
        else:
            out = ErrorExpr(i, e.start, e.end)
        return out


Expansion = Expr | MacroError | None
Expander = Callable[[ExprFactory, Expr | None, list[Expr]], Expansion]


@dataclass(frozen=True)
class MacroSpec:
    function: str
    arg_count: int
    receiver: bool
    expander: Expander

    @property
    def key(self) -> str:
        return f"{self.function}({self.arg_count})"


def _ident_name(e: Expr) -> str | None:
    return e.name if isinstance(e, Ident) else None


def _is_accu(name: str) -> bool:
    return name in (ACCUMULATOR_NAME, LEGACY_ACCUMULATOR_NAME)


def _has(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    a = args[0]
    if isinstance(a, Select) and not a.optional and not a.test_only:
        return f.presence(a.operand, a.field, a.field_start)
    return MacroError("invalid argument to has() macro", a)


def _quantifier(kind: str) -> Expander:
    def expand(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
        assert target is not None
        v = _ident_name(args[0])
        if v is None:
            return MacroError("argument must be a simple name", args[0])
        if _is_accu(v):
            return MacroError("iteration variable overwrites accumulator variable", args[0])
        return _quantifier_body(f, kind, target, v, None, args[1])

    return expand


def _quantifier_body(
    f: ExprFactory, kind: str, target: Expr, v: str, v2: str | None, pred: Expr
) -> Expansion:
    if kind == "all":
        init: Expr = f.literal(LiteralKind.BOOL, True)
        cond: Expr = f.call("@not_strictly_false", f.accu())
        step: Expr = f.call("_&&_", f.accu(), pred)
        result: Expr = f.accu()
    elif kind == "exists":
        init = f.literal(LiteralKind.BOOL, False)
        cond = f.call("@not_strictly_false", f.call("!_", f.accu()))
        step = f.call("_||_", f.accu(), pred)
        result = f.accu()
    else:
        init = f.literal(LiteralKind.INT, 0)
        cond = f.literal(LiteralKind.BOOL, True)
        step = f.call("_?_:_", pred, f.call("_+_", f.accu(), f.literal(LiteralKind.INT, 1)), f.accu())
        result = f.call("_==_", f.accu(), f.literal(LiteralKind.INT, 1))
    return f.comprehension(target, v, v2, init, cond, step, result)


def _map(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    assert target is not None
    v = _ident_name(args[0])
    if v is None:
        return MacroError("argument is not an identifier", args[0])
    if _is_accu(v):
        return MacroError("iteration variable overwrites accumulator variable", args[0])
    if len(args) == 3:
        flt: Expr | None = args[1]
        fn = args[2]
    else:
        flt = None
        fn = args[1]
    init = f.list()
    cond = f.literal(LiteralKind.BOOL, True)
    step: Expr = f.call("_+_", f.accu(), f.list(fn))
    if flt is not None:
        step = f.call("_?_:_", flt, step, f.accu())
    return f.comprehension(target, v, None, init, cond, step, f.accu())


def _filter(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    assert target is not None
    v = _ident_name(args[0])
    if v is None:
        return MacroError("argument is not an identifier", args[0])
    if _is_accu(v):
        return MacroError("iteration variable overwrites accumulator variable", args[0])
    init = f.list()
    cond = f.literal(LiteralKind.BOOL, True)
    step: Expr = f.call("_+_", f.accu(), f.list(args[0]))
    step = f.call("_?_:_", args[1], step, f.accu())
    return f.comprehension(target, v, None, init, cond, step, f.accu())


def _iter_vars(args: list[Expr]) -> tuple[str, str] | MacroError:
    v1 = _ident_name(args[0])
    if v1 is None:
        return MacroError("argument must be a simple name", args[0])
    v2 = _ident_name(args[1])
    if v2 is None:
        return MacroError("argument must be a simple name", args[1])
    if v1 == v2:
        return MacroError(f"duplicate variable name: {v1}", args[1])
    if _is_accu(v1):
        return MacroError("iteration variable overwrites accumulator variable", args[0])
    if _is_accu(v2):
        return MacroError("iteration variable overwrites accumulator variable", args[1])
    return v1, v2


def _quantifier2(kind: str) -> Expander:
    def expand(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
        assert target is not None
        vs = _iter_vars(args)
        if isinstance(vs, MacroError):
            return vs
        return _quantifier_body(f, kind, target, vs[0], vs[1], args[2])

    return expand


def _transform(kind: str) -> Expander:
    def expand(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
        assert target is not None
        vs = _iter_vars(args)
        if isinstance(vs, MacroError):
            return vs
        if len(args) == 4:
            flt: Expr | None = args[2]
            fn = args[3]
        else:
            flt = None
            fn = args[2]
        if kind == "list":
            step: Expr = f.call("_+_", f.accu(), f.list(fn))
        elif kind == "map":
            step = f.call("cel.@mapInsert", f.accu(), f.ident(vs[0]), fn)
        else:
            step = f.call("cel.@mapInsert", f.accu(), fn)
        if flt is not None:
            step = f.call("_?_:_", flt, step, f.accu())
        init: Expr = f.list() if kind == "list" else f.map()
        return f.comprehension(target, vs[0], vs[1], init, f.literal(LiteralKind.BOOL, True), step, f.accu())

    return expand


def _opt_map(flat: bool) -> Expander:
    def expand(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
        assert target is not None
        v = _ident_name(args[0])
        if v is None:
            name = "optFlatMap" if flat else "optMap"
            return MacroError(f"{name}() variable name must be a simple identifier", args[0])
        has_value = f.member_call("hasValue", target)

        def body() -> Expr:
            return f.comprehension(
                f.list(),
                UNUSED_ITER_VAR,
                None,
                f.member_call("value", f.copy(target)),
                f.literal(LiteralKind.BOOL, False),
                f.ident(v),
                args[1],
                accu_var=v,
            )

        inner: Expr
        inner = body() if flat else f.call("optional.of", body())
        return f.call("_?_:_", has_value, inner, f.call("optional.none"))

    return expand


_SORT_BY_INPUT = "@__sortBy_input__"


def _sort_by(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    """ext.Lists `l.sortBy(v, key)` (cel-go ext/lists.go): bind the list once, then
    `input.@sortByAssociatedKeys(input.map(v, key))`."""
    assert target is not None
    v = _ident_name(args[0])
    if v is None:
        return MacroError("sortBy(var, ...) variable name must be a simple identifier", args[0])
    keys = f.comprehension(
        f.ident(_SORT_BY_INPUT), v, None, f.list(), f.literal(LiteralKind.BOOL, True),
        f.call("_+_", f.accu(), f.list(args[1])), f.accu(),
    )  # fmt: skip
    sorted_call = f.member_call("@sortByAssociatedKeys", f.ident(_SORT_BY_INPUT), keys)
    return f.comprehension(
        f.list(), UNUSED_ITER_VAR, None, target, f.literal(LiteralKind.BOOL, False),
        f.ident(_SORT_BY_INPUT), sorted_call, accu_var=_SORT_BY_INPUT,
    )  # fmt: skip


def _bind(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    if not (isinstance(target, Ident) and target.name == "cel"):
        return None
    v = _ident_name(args[0])
    if v is None:
        return MacroError("cel.bind() variable names must be simple identifiers", args[0])
    return f.comprehension(
        f.list(),
        UNUSED_ITER_VAR,
        None,
        args[1],
        f.literal(LiteralKind.BOOL, False),
        f.ident(v),
        args[2],
        accu_var=v,
    )


def _block_index(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    """`cel.index(N)` (cel-go ext/bindings.go, BindingsVersion 1): the N-th `cel.block` slot."""
    if not (isinstance(target, Ident) and target.name == "cel"):
        return None
    arg = args[0]
    if not (isinstance(arg, Literal) and arg.kind is LiteralKind.INT and isinstance(arg.value, int)):
        return MacroError("cel.index requires a single non-negative int constant arg", arg)
    return f.ident(f"@index{arg.value}")


def _block_iter_var(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    """`cel.iterVar(depth, i)`: the comprehension variable names `cel.block` optimisers emit."""
    if not (isinstance(target, Ident) and target.name == "cel"):
        return None
    nums = [a.value for a in args if isinstance(a, Literal) and a.kind is LiteralKind.INT]
    if len(nums) != 2:
        return MacroError("cel.iterVar requires two non-negative int constant args", args[0])
    return f.ident(f"@it:{nums[0]}:{nums[1]}")


def _block(f: ExprFactory, target: Expr | None, args: list[Expr]) -> Expansion:
    """`cel.block([e0, e1, …], result)`: each slot bound once, in order, like nested `cel.bind`s
    (cel-go evaluates the slots lazily; the values are the same)."""
    if not (isinstance(target, Ident) and target.name == "cel"):
        return None
    slots = args[0]
    if not isinstance(slots, ListExpr):
        return MacroError("cel.block requires the first arg to be a list literal", slots)
    result = args[1]
    for i in reversed(range(len(slots.elements))):
        name = f"@index{i}"
        result = f.comprehension(
            f.list(),
            UNUSED_ITER_VAR,
            None,
            slots.elements[i],
            f.literal(LiteralKind.BOOL, False),
            f.ident(name),
            result,
            accu_var=name,
        )
    return result


_SPECS: list[MacroSpec] = [
    MacroSpec("has", 1, False, _has),
    MacroSpec("all", 2, True, _quantifier("all")),
    MacroSpec("exists", 2, True, _quantifier("exists")),
    MacroSpec("exists_one", 2, True, _quantifier("exists_one")),
    MacroSpec("existsOne", 2, True, _quantifier("exists_one")),
    MacroSpec("map", 2, True, _map),
    MacroSpec("map", 3, True, _map),
    MacroSpec("filter", 2, True, _filter),
    MacroSpec("all", 3, True, _quantifier2("all")),
    MacroSpec("exists", 3, True, _quantifier2("exists")),
    MacroSpec("existsOne", 3, True, _quantifier2("exists_one")),
    MacroSpec("exists_one", 3, True, _quantifier2("exists_one")),
    MacroSpec("transformList", 3, True, _transform("list")),
    MacroSpec("transformList", 4, True, _transform("list")),
    MacroSpec("transformMap", 3, True, _transform("map")),
    MacroSpec("transformMap", 4, True, _transform("map")),
    MacroSpec("transformMapEntry", 3, True, _transform("entry")),
    MacroSpec("transformMapEntry", 4, True, _transform("entry")),
    MacroSpec("optMap", 2, True, _opt_map(False)),
    MacroSpec("optFlatMap", 2, True, _opt_map(True)),
    MacroSpec("bind", 3, True, _bind),
    MacroSpec("sortBy", 2, True, _sort_by),
]
#: cel.block/cel.index: conformance suite only (cel-go's block extension; no Kubernetes version has it).
_BLOCK_SPECS = [
    MacroSpec("block", 2, True, _block),
    MacroSpec("index", 1, True, _block_index),
    MacroSpec("iterVar", 2, True, _block_iter_var),
]
_BY_KEY: dict[str, MacroSpec] = {("cel.bind(3)" if s.function == "bind" else s.key): s for s in _SPECS}
#: cel-go registers cel.bind as the receiver macro ``bind`` (target must be ``cel``).
_ALIASES = {"bind(3)": "cel.bind(3)"}

STANDARD_MACROS = frozenset(
    {"has(1)", "all(2)", "exists(2)", "exists_one(2)", "existsOne(2)", "map(2)", "map(3)", "filter(2)"}
)
TWO_VAR_MACROS = frozenset(
    {
        "all(3)",
        "exists(3)",
        "existsOne(3)",
        "exists_one(3)",
        "transformList(3)",
        "transformList(4)",
        "transformMap(3)",
        "transformMap(4)",
        "transformMapEntry(3)",
        "transformMapEntry(4)",
    }
)
OPTIONAL_MACROS = frozenset({"optMap(2)", "optFlatMap(2)"})
LISTS_MACROS = frozenset({"sortBy(2)"})
BIND_MACROS = frozenset({"cel.bind(3)"})
ALL_MACROS = frozenset(_BY_KEY)
BLOCK_MACROS = frozenset({"cel.block(2)", "cel.index(1)", "cel.iterVar(2)"})
_BY_KEY.update({f"cel.{s.key}": s for s in _BLOCK_SPECS})
#: Kubernetes (recent versions): standard macros, two-variable comprehensions and
#: optional types; ``cel.bind`` is not part of the Kubernetes environment.
DEFAULT_MACROS = STANDARD_MACROS | TWO_VAR_MACROS | OPTIONAL_MACROS

MacroTable = dict[tuple[str, int, bool], MacroSpec]


def resolve_macros(names: Iterable[str]) -> MacroTable:
    """Lookup table (function, argc, receiver) → spec for the enabled macro names."""
    table: MacroTable = {}
    for name in names:
        if "(" in name:
            spec = _BY_KEY.get(_ALIASES.get(name, name))
            specs = [spec] if spec is not None else []
        else:
            fn = "bind" if name == "cel.bind" else name
            specs = [s for s in _SPECS if s.function == fn]
        for s in specs:
            table[(s.function, s.arg_count, s.receiver)] = s
    return table


def macro_key(function: str, arg_count: int) -> str:
    """Key of a macro in the enabled-set notation, e.g. from a declaration table."""
    return f"{function}({arg_count})"


def find_macro(table: MacroTable, function: str, argc: int, receiver: bool) -> MacroSpec | None:
    return table.get((function, argc, receiver))
