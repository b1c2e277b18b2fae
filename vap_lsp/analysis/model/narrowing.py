"""Narrowing by guards: which parts of an expression can affect its value when `object` is one kind.

Multi-kind policies dispatch on the kind: `object.kind != 'Pod' || object.spec.containers.all(…)`.
The server's type checker checks each expression once per matched kind and warns about the
branch that cannot run for that kind. For one kind (and the operations its rules match) a
small three-valued evaluator decides the conditions it can: `object.kind` / `oldObject.kind`,
`object.apiVersion`, `request.kind.{group,version,kind}`, `request.resource.{group,version,
resource}`, `request.operation`, `has()` of a field the kind's schema does not have (or that
admission guarantees, `analysis.guarantees`),
`oldObject`/`object`/`params`/`namespaceObject` against `null` (and `has()` of one of their
fields, false on a null root), `request.namespace` of a cluster-scoped kind, through `==`, `!=`,
`in [...]`, `!`, `&&`, `||`, `?:`, comprehensions over literal lists
(`['Deployment', 'Job'].all(k, object.kind != k)`) and variables whose value is such a test
(`variables.isPod`).

A sub-expression is *unreachable* for the kind when a decided condition makes its value
irrelevant: the other side of `||` is true, of `&&` false, or the other branch of `?:` was
chosen. CEL's `&&`/`||` are commutative (an error on one side is absorbed when the other
decides), so a guard on either side counts. Anything the evaluator cannot decide keeps its
branches reachable: narrowing never hides a problem in a branch that can run.

The same evaluator decides the null guards of roots (`NullFlow`): with facts in which a root is
null (`object` on DELETE, `namespaceObject` of a cluster-scoped kind, `params` of a binding
without `paramRef`), a read of one of its fields that stays reachable fails at admission.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from vap_lsp.analysis.model.matching import ALL_OPERATIONS, GVK
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    Expr,
    Ident,
    ListExpr,
    Literal,
    ParsedExpr,
    Select,
    children,
    subtree,
)
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.types import ObjectType, Type
from vap_lsp.text import shorten

__all__ = [
    "ALL_OPERATIONS",
    "Facts",
    "Guard",
    "NullFlow",
    "Reachability",
    "VariableAsts",
    "decide",
    "everything_reachable",
    "guarded",
    "reachability",
    "replace_nulls",
    "root_reads",
    "written_span",
]


@dataclass(frozen=True)
class Facts:
    """What is known of an admission request when `object` is of kind `gvk` (None: any kind)."""

    gvk: GVK | None
    resources: frozenset[str] = frozenset()
    """The resources (plural) the rules type as this kind (empty: not known)."""
    operations: frozenset[str] = ALL_OPERATIONS
    """The operations any rule that can match this kind matches."""
    has_params: bool = True
    """Whether the policy has a `paramKind` (without one, `params` is null)."""
    namespaced: bool | None = None
    """The kind's scope (None: unknown). For a cluster-scoped kind `namespaceObject` is null and
    `request.namespace` empty (a Namespace's own requests carry its name there)."""
    null_roots: frozenset[str] = frozenset()
    """Roots null in these requests beyond what the rest says (`params` of a binding without
    `paramRef`, `namespaceObject` in matchConditions)."""
    absent: frozenset[str] = frozenset()
    """Fields absent in these requests, as written from their root (`object.spec.hostNetwork`):
    `has()` of one is false (what a read of an optional field is checked against)."""


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


class _Present:
    """A value known not to be null (`oldObject` when no matched operation is CREATE)."""

    __slots__ = ()


PRESENT = _Present()


@dataclass(frozen=True)
class _OneOf:
    """A string known to be one of a set (`request.operation`, `request.resource.resource`)."""

    values: frozenset[str]


@dataclass(frozen=True)
class _Some:
    """An optional holding a known value (`object.?kind`: `optional.of('Pod')`)."""

    value: Value


Value = str | bool | int | float | None | tuple["Value", ...] | _OneOf | _Some | _Present | _Unknown

_MAX_LIST = 64
_MAX_GUARD_TEXT = 120


@dataclass(frozen=True)
class Guard:
    """Why a sub-expression cannot affect the value: `text` is the deciding condition as written,
    with the connective (`object.kind != 'Pod' || …`), and `variables` what the variables it
    reads hold (`variables.isPod: object.kind == 'Pod'`)."""

    condition: Expr
    text: str
    branch: Expr | None = None
    """The sub-expression it rules out (the other side of the `||`, the branch not chosen); None:
    the whole expression."""

    def __str__(self) -> str:
        return self.text


VariableValue = tuple["Value", bool, int, tuple[str, ...]]
"""What evaluating a variable's expression found: its value, whether it depends on the request,
how many facts it read and the variables it read (for the guard's text), in reading order."""


class VariableAsts(dict[str, ParsedExpr]):
    """The parsed expression of each variable an expression may read (by name), with the values
    evaluators found for them (`evaluated`, by class of requests, evaluator kind and expression):
    a variable is evaluated once per class of requests however many expressions read it. Maps
    may share one `evaluated` store when every name resolves to the same expression in each of them (the
    variables of one policy with unique names, none read before its definition)."""

    def __init__(
        self,
        asts: Mapping[str, ParsedExpr] | None = None,
        values: dict[tuple[Facts, bool, int], VariableValue] | None = None,
    ) -> None:
        super().__init__(asts or {})
        self.evaluated: dict[tuple[Facts, bool, int], VariableValue] = values if values is not None else {}


@dataclass
class _Variable:
    parsed: ParsedExpr
    value: Value = UNKNOWN
    factual: bool = False
    """Its value depends on the request (not on literals alone)."""
    state: int = 0
    """0: not evaluated, 1: being evaluated (a cycle reads UNKNOWN), 2: done."""


@dataclass
class Reachability:
    """Which nodes of one expression can affect its value for one kind (see the module docstring)."""

    parsed: ParsedExpr | None
    facts: Facts | None
    _guards: dict[int, Guard] = field(default_factory=dict)

    def guard_of(self, node: Expr) -> Guard | None:
        """The guard that makes `node` unreachable for this kind (None: it can run)."""
        return self._guards.get(node.id)

    def guard_at(self, location: int) -> Guard | None:
        """The guard of an issue the checker reports at `location` (cel-go's position, relative to
        the compiled text): every node reported there must be unreachable."""
        if self.parsed is None or not self._guards:
            return None
        found: Guard | None = None
        for node in self.parsed.nodes_at_location(location):
            guard = self._guards.get(node.id)
            if guard is None:
                return None
            found = found or guard
        return found

    def guard_at_offset(self, offset: int) -> Guard | None:
        """The guard of the innermost node spanning `offset` (relative to the compiled text)."""
        if self.parsed is None or not self._guards:
            return None
        path = self.parsed.node_at(offset)
        return self._guards.get(path[-1].id) if path else None

    def all_guarded(self, guard: Guard) -> Reachability:
        """The same expression with every node ruled out by `guard` (a variable never read)."""
        if self.parsed is None or self.parsed.ast is None:
            return self
        whole = guard if guard.branch is not None else replace(guard, branch=self.parsed.ast)
        return Reachability(self.parsed, self.facts, {n.id: whole for n in subtree(self.parsed.ast)})

    @property
    def narrowed(self) -> bool:
        """Whether any part of the expression is unreachable for this kind."""
        return bool(self._guards)


def everything_reachable(parsed: ParsedExpr | None = None) -> Reachability:
    """No facts (create time, or a view without a kind): every node can run."""
    return Reachability(parsed, None)


_Env = Mapping[str, Value]
TypeOf = Callable[[Expr], Type | None]
Present = Callable[[Select], bool]
"""Whether every field of a selection chain (`object.spec.template`, as checked for this kind)
is present whenever the root is (`analysis.guarantees`: required, defaulted, server-set)."""


class _Evaluator:
    def __init__(
        self,
        facts: Facts,
        variables: Mapping[str, ParsedExpr],
        type_of: TypeOf | None,
        present: Present | None = None,
        optimistic: bool = False,
    ) -> None:
        self.facts = facts
        self.optimistic = optimistic
        """Read the kind of `object`/`oldObject` where it is null as the kind (for what fails at
        that null root anyway: `reachability`)."""
        self.asts = variables
        self.variables: dict[str, _Variable] = {}
        """The state of each variable read so far (an evaluator reads few of a long policy's)."""
        self.type_of = type_of
        self.present = present
        self.read: dict[str, str] = {}
        """Variables whose value a guard used: name → their text (for the guard's message)."""
        self.facts_read = 0
        """How many times a fact was read (a condition of literals alone is no guard)."""
        self.bound_facts: frozenset[str] = frozenset()
        """Comprehension variables bound to a fact (a null root iterated over), whose reads count."""
        self.shared = variables.evaluated if isinstance(variables, VariableAsts) else None
        self._recording: list[list[str]] = []
        """The variables read (in order) while each variable being evaluated is (for `shared`)."""
        self._cycle = False
        self._memo: dict[int, tuple[Value, int, tuple[str, ...]]] = {}
        """What a node outside any comprehension evaluated to (by the node's identity), with the
        facts and variables it read: the walk asks for a condition's value at every `&&`, `||` and
        `?:` on its way down, and each would evaluate again what the one above it did."""

    def decided(self, node: Expr, env: _Env) -> bool | None:
        """The value of a condition that depends on the request (`x || true` is no guard)."""
        before = self.facts_read
        value = self.eval(node, env)
        return value if isinstance(value, bool) and self.facts_read > before else None

    # --- roots --------------------------------------------------------------------------------

    def _root(self, name: str, env: _Env) -> bool:
        return name not in env

    def _select(self, node: Select, env: _Env) -> Value:
        operand = node.operand
        if isinstance(operand, Ident) and operand.name == "variables" and self._root("variables", env):
            return self._variable(node.field)
        value = self._fact(node, env)
        if not isinstance(value, _Unknown):
            self.facts_read += 1
        return value

    def _fact(self, node: Select, env: _Env) -> Value:
        facts, gvk = self.facts, self.facts.gvk
        if node.test_only:
            return self._has(node, env)
        operand = node.operand
        if isinstance(operand, Ident) and self._root(operand.name, env):
            if operand.name in ("object", "oldObject") and gvk is not None and self._holds_kind(operand.name):
                known = {"kind": gvk.kind, "apiVersion": gvk.api_version}.get(node.field)
                if known is not None:
                    return _Some(known) if node.optional else known
            if node.optional:
                return UNKNOWN
            if operand.name == "request" and node.field == "operation":
                return _one_of(facts.operations)
            if operand.name == "request" and node.field == "namespace" and self._cluster_scoped():
                return ""
            return UNKNOWN
        if isinstance(operand, Select) and isinstance(operand.operand, Ident) and not node.optional:
            root = operand.operand
            if root.name != "request" or not self._root("request", env) or gvk is None:
                return UNKNOWN
            if operand.field == "kind" and "CONNECT" not in facts.operations:
                return {"group": gvk.group, "version": gvk.version, "kind": gvk.kind}.get(node.field, UNKNOWN)
            if operand.field == "resource":
                if node.field == "group":
                    return gvk.group
                if node.field == "version":
                    return gvk.version
                if node.field == "resource" and facts.resources:
                    return _one_of(facts.resources)
        return UNKNOWN

    def _holds_kind(self, name: str) -> bool:
        """Whether `object`/`oldObject` is an object of the facts' kind in every request: not null
        (`oldObject.kind` is an error on CREATE, `object.kind` on DELETE, and `||`/`&&` absorb
        that error: the other side runs) and not a CONNECT's options (`PodExecOptions`)."""
        if "CONNECT" in self.facts.operations:
            return False
        return self.optimistic or isinstance(self._root_value(name), _Present)

    def _cluster_scoped(self) -> bool:
        """A cluster-scoped kind other than Namespace (whose requests carry its own name as the
        namespace, `policy_dispatcher.go` unsets it only to fetch no namespaceObject)."""
        gvk = self.facts.gvk
        return self.facts.namespaced is False and (gvk is None or (gvk.group, gvk.kind) != ("", "Namespace"))

    def _root_value(self, name: str) -> Value:
        """Whether a root is null: `oldObject` on CREATE (and CONNECT), `object` on DELETE,
        `params` without a `paramKind`, `namespaceObject` for a cluster-scoped kind
        (`policy_dispatcher.go`: no namespace to fetch, a Namespace's own request included),
        and the facts' `null_roots`."""
        facts = self.facts
        if name in facts.null_roots:
            return None
        if name == "namespaceObject" and facts.namespaced is False:
            return None
        ops = facts.operations
        if name == "oldObject":
            if ops <= {"CREATE", "CONNECT"}:
                return None
            return PRESENT if ops <= {"UPDATE", "DELETE"} else UNKNOWN
        if name == "object":
            return None if ops <= {"DELETE"} else (PRESENT if "DELETE" not in ops else UNKNOWN)
        if name == "params" and not self.facts.has_params:
            return None
        return UNKNOWN

    def _has(self, node: Select, env: _Env) -> Value:
        """`has(x.f)` is false on a null root `x` (cel-go's presence test on null; `has(x.f.g)`
        selects `f` of null first and fails, deciding nothing); false when `x`'s schema cannot
        hold `f` (built-in objects are decoded with their schema, unknown fields dropped; a field
        the schema declares without a type, such as `resources.limits`, is not in the type but
        is in the object); true
        when `x.f` is guaranteed at admission on a root that is not null."""
        root: Expr = node.operand
        path = [node.field]
        while isinstance(root, Select) and not root.optional and not root.test_only:
            path.append(root.field)
            root = root.operand
        if (
            self.facts.absent
            and isinstance(root, Ident)
            and self._root(root.name, env)
            and ".".join([root.name, *reversed(path)]) in self.facts.absent
        ):
            return False
        if isinstance(root, Ident) and self._root(root.name, env) and self._root_value(root.name) is None:
            return False if root is node.operand else UNKNOWN
        if self.type_of is None:
            return UNKNOWN
        if (
            self.present is not None
            and isinstance(root, Ident)
            and root.name in ("object", "oldObject")
            and self._root(root.name, env)
            and isinstance(self._root_value(root.name), _Present)
            and self.present(node)
        ):
            return True
        owner = self.type_of(node.operand)
        if (
            isinstance(owner, ObjectType)
            and owner.fields
            and owner.open_field_type is None
            and not owner.preserves_unknown_fields
            and node.field not in owner.fields
            and node.field not in owner.untyped_fields
        ):
            return False
        return UNKNOWN

    def _variable(self, name: str) -> Value:
        var = self.variables.get(name)
        if var is None:
            parsed = self.asts.get(name)
            if parsed is None:
                return UNKNOWN
            var = self.variables[name] = _Variable(parsed)
        if var.parsed.ast is None:
            return UNKNOWN
        if var.state == 1:
            self._cycle = True
            return UNKNOWN
        if var.state == 0:
            self._evaluate(var)
        if not isinstance(var.value, _Unknown) and var.factual:
            self.facts_read += 1
            self._note_read(name)
        return var.value

    def _note_read(self, name: str) -> None:
        self.read.setdefault(name, shorten(self.variables[name].parsed.source, _MAX_GUARD_TEXT))
        for frame in self._recording:
            frame.append(name)

    def _evaluate(self, var: _Variable) -> None:
        """A variable's value, once per evaluator (and once per class of requests with `shared`)."""
        assert var.parsed.ast is not None
        key = (self.facts, self.optimistic, id(var.parsed))
        cached = self.shared.get(key) if self.shared is not None else None
        if cached is not None:
            var.value, var.factual, read, names = cached
            self.facts_read += read
            for name in names:
                self._note_read(name)
            var.state = 2
            return
        var.state = 1
        # A variable's own expression was typed in another compile: no types for has().
        saved, self.type_of, present = self.type_of, None, self.present
        self.present = None
        before, cycle = self.facts_read, self._cycle
        self._cycle = False
        frame: list[str] = []
        self._recording.append(frame)
        try:
            var.value = self.eval(var.parsed.ast, {})
            var.factual = self.facts_read > before
        finally:
            self._recording.pop()
            self.type_of, self.present = saved, present
            var.state = 2
        if self.shared is not None and not self._cycle:
            # A value found inside a cycle depends on where the evaluation started: not shared.
            self.shared[key] = (var.value, var.factual, self.facts_read - before, tuple(frame))
        self._cycle = self._cycle or cycle

    # --- evaluation ---------------------------------------------------------------------------

    def eval(self, node: Expr, env: _Env) -> Value:
        if env:
            return self._eval(node, env)
        hit = self._memo.get(id(node))
        if hit is not None:
            value, read, names = hit
            self.facts_read += read
            for name in names:
                self._note_read(name)
            return value
        before = self.facts_read
        frame: list[str] = []
        self._recording.append(frame)
        try:
            value = self._eval(node, env)
        finally:
            self._recording.pop()
        self._memo[id(node)] = (value, self.facts_read - before, tuple(frame))
        return value

    def _eval(self, node: Expr, env: _Env) -> Value:
        if isinstance(node, Literal):
            value = node.value
            return value if isinstance(value, (str, bool, int, float)) or value is None else UNKNOWN
        if isinstance(node, Ident):
            if node.name in env:
                if node.name in self.bound_facts:
                    self.facts_read += 1
                return env[node.name]
            value = self._root_value(node.name)
            if not isinstance(value, _Unknown):
                self.facts_read += 1
            return value
        if isinstance(node, Select):
            return self._select(node, env)
        if isinstance(node, ListExpr):
            if node.optional_indices or len(node.elements) > _MAX_LIST:
                return UNKNOWN
            return tuple(self.eval(e, env) for e in node.elements)
        if isinstance(node, Comprehension):
            return self._comprehension(node, env)
        if isinstance(node, Call):
            return self._call(node, env)
        return UNKNOWN

    def _comprehension(self, node: Comprehension, env: _Env) -> Value:
        if node.iter_var2 is not None:
            return UNKNOWN
        items = self.eval(node.iter_range, env)
        if not isinstance(items, tuple):
            return UNKNOWN
        accu = self.eval(node.accu_init, env)
        for item in items:
            scope = {**env, node.iter_var: item, node.accu_var: accu}
            if self.eval(node.loop_condition, scope) is False:
                break
            accu = self.eval(node.loop_step, scope)
        return self.eval(node.result, {**env, node.accu_var: accu})

    def _call(self, node: Call, env: _Env) -> Value:
        fn, args = node.function, node.args
        if fn in ("_&&_", "_||_") and len(args) == 2:
            stop = fn == "_||_"
            left, right = self.eval(args[0], env), self.eval(args[1], env)
            if left is stop or right is stop:
                return stop
            if left is (not stop) and right is (not stop):
                return not stop
            return UNKNOWN
        if fn == "!_" and len(args) == 1:
            inner = self.eval(args[0], env)
            return (not inner) if isinstance(inner, bool) else UNKNOWN
        if fn == "@not_strictly_false" and len(args) == 1:
            inner = self.eval(args[0], env)
            return inner if isinstance(inner, bool) else UNKNOWN
        if fn == "_?_:_" and len(args) == 3:
            cond = self.eval(args[0], env)
            if isinstance(cond, bool):
                return self.eval(args[1] if cond else args[2], env)
            return UNKNOWN
        if fn in ("_==_", "_!=_") and len(args) == 2:
            equal = _equal(self.eval(args[0], env), self.eval(args[1], env))
            return equal if fn == "_==_" or not isinstance(equal, bool) else not equal
        if fn == "@in" and len(args) == 2:
            return _contains(self.eval(args[1], env), self.eval(args[0], env))
        if (
            node.target is not None
            and fn in ("orValue", "value", "hasValue")
            and len(args) == (fn == "orValue")
        ):
            target = self.eval(node.target, env)
            if isinstance(target, _Some):
                return True if fn == "hasValue" else target.value
            return UNKNOWN
        if node.target is not None and fn in ("startsWith", "endsWith", "contains") and len(args) == 1:
            target, arg = self.eval(node.target, env), self.eval(args[0], env)
            if isinstance(target, str) and isinstance(arg, str):
                if fn == "startsWith":
                    return target.startswith(arg)
                return target.endswith(arg) if fn == "endsWith" else arg in target
        return UNKNOWN


def _one_of(values: frozenset[str]) -> Value:
    if len(values) == 1:
        return next(iter(values))
    return _OneOf(values) if values else UNKNOWN


def _equal(a: Value, b: Value) -> Value:
    if isinstance(a, _Present) or isinstance(b, _Present):
        return False if a is None or b is None else UNKNOWN
    if isinstance(a, (_Unknown, tuple, _Some)) or isinstance(b, (_Unknown, tuple, _Some)):
        return UNKNOWN
    if isinstance(a, _OneOf) or isinstance(b, _OneOf):
        one, other = (a, b) if isinstance(a, _OneOf) else (b, a)
        assert isinstance(one, _OneOf)
        if not isinstance(other, str):
            return UNKNOWN
        return False if other not in one.values else (True if one.values == {other} else UNKNOWN)
    if a is None or b is None:
        return a is b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, bool) and isinstance(b, bool):
        return a == b
    if isinstance(a, str) != isinstance(b, str) or isinstance(a, bool) != isinstance(b, bool):
        return False  # CEL's heterogeneous equality: values of different types are not equal
    return UNKNOWN


def _contains(items: Value, item: Value) -> Value:
    if not isinstance(items, tuple):
        return UNKNOWN
    verdicts = [_equal(item, x) for x in items]
    if any(v is True for v in verdicts):
        return True
    if all(v is False for v in verdicts):
        return False
    if isinstance(item, _OneOf) and all(isinstance(x, str) for x in items):
        return True if item.values <= frozenset(x for x in items if isinstance(x, str)) else UNKNOWN
    return UNKNOWN


def written_span(parsed: ParsedExpr, node: Expr) -> tuple[int, int]:
    """Where `node` (an operand of `&&`, `||` or `?:`) is written, with the parentheses its span
    leaves out: the closing ones (`!(a == b)`), the opening ones of a first operand in
    parentheses (`((a || b) ? c : d)`), and those around it (`(a || b) && …`)."""
    source, start, end = parsed.source, node.start, node.end
    text = source[start:end]
    while text.count("(") > text.count(")"):
        close = source.find(")", end)
        if close < 0:
            break
        end = close + 1
        text = source[start:end]
    while text.count(")") > text.count("("):
        opening = source.rfind("(", 0, start)
        if opening < 0:
            break
        start = opening
        text = source[start:end]
    before, after = source[:start].rstrip(), source[end:].lstrip()
    if before.endswith("(") and after.startswith(")"):
        # an operand in parentheses: `(a || b) && …` is not `a || b && …`
        start, end = len(before) - 1, len(source) - len(after) + 1
    return start, end


def _text(parsed: ParsedExpr, node: Expr) -> str:
    """`node` as written (`written_span`), shortened for a guard's text."""
    start, end = written_span(parsed, node)
    return shorten(parsed.source[start:end], _MAX_GUARD_TEXT)


def _fails(node: Expr, env: _Env, null_roots: frozenset[str], memo: dict[int, bool] | None = None) -> bool:
    """Whether `node` is certainly an error because it reads a field of a root in `null_roots`
    (not shadowed by `env`): a selection or index of it (`has(x.f)` of a null `x` is false, `.?`
    and `[?…]` are optional), and anything that needs such a value (a call's operands, a
    conditional's condition, a comprehension's range, a list's elements). `&&` and `||` absorb
    errors. `memo`: answers by node id (a node is always under the same scope)."""
    if memo is not None and node.id in memo:
        return memo[node.id]
    found = False
    if isinstance(node, Select):
        operand = node.operand
        if node.optional:
            found = False
        elif isinstance(operand, Ident):
            found = not node.test_only and operand.name in null_roots and operand.name not in env
        else:
            found = _fails(operand, env, null_roots, memo)
    elif isinstance(node, Call):
        fn = node.function
        if fn in ("_&&_", "_||_", "@not_strictly_false", "_[?_]"):
            found = False
        elif fn == "_?_:_":
            found = bool(node.args) and _fails(node.args[0], env, null_roots, memo)
        elif (
            fn == "_[_]"
            and node.args
            and isinstance(node.args[0], Ident)
            and node.args[0].name in null_roots
            and node.args[0].name not in env
        ):
            found = True
        else:
            parts = ([node.target] if node.target is not None else []) + list(node.args)
            found = any(_fails(p, env, null_roots, memo) for p in parts)
    elif isinstance(node, Comprehension):
        found = _fails(node.iter_range, env, null_roots, memo)
    elif isinstance(node, ListExpr):
        found = not node.optional_indices and any(_fails(e, env, null_roots, memo) for e in node.elements)
    if memo is not None:
        memo[node.id] = found
    return found


class _Walker:
    def __init__(
        self, parsed: ParsedExpr, evaluator: _Evaluator, null_roots: frozenset[str] = frozenset()
    ) -> None:
        self.parsed = parsed
        self.evaluator = evaluator
        self.guards: dict[int, Guard] = {}

    def _guard(self, condition: Expr, text: str, branch: Expr) -> Guard:
        read = self.evaluator.read
        names = [n for n in read if f"variables.{n}" in text]
        if names:
            text += " (" + "; ".join(f"variables.{n}: {read[n]}" for n in names) + ")"
        return Guard(condition, text, branch)

    def walk(self, node: Expr, env: _Env, guard: Guard | None) -> None:
        if guard is not None:
            for inner in subtree(node):
                self.guards.setdefault(inner.id, guard)
            return
        ev = self.evaluator
        if isinstance(node, Call) and node.function in ("_&&_", "_||_") and len(node.args) == 2:
            stop = node.function == "_||_"
            op = " || " if stop else " && "
            left, right = node.args
            if ev.decided(left, env) is stop:
                self.walk(left, env, None)
                self.walk(right, env, self._guard(left, _text(self.parsed, left) + op + "…", right))
                return
            if ev.decided(right, env) is stop:
                self.walk(left, env, self._guard(right, "…" + op + _text(self.parsed, right), left))
                self.walk(right, env, None)
                return
        elif isinstance(node, Call) and node.function == "_?_:_" and len(node.args) == 3:
            cond = ev.decided(node.args[0], env)
            if cond is not None:
                text = _text(self.parsed, node.args[0]) + " ? … : …"
                self.walk(node.args[0], env, None)
                self.walk(node.args[1], env, None if cond else self._guard(node.args[0], text, node.args[1]))
                self.walk(node.args[2], env, self._guard(node.args[0], text, node.args[2]) if cond else None)
                return
        elif isinstance(node, Comprehension):
            self.walk(node.iter_range, env, None)
            self.walk(node.accu_init, env, None)
            hidden = {node.iter_var: UNKNOWN, node.accu_var: UNKNOWN}
            if node.iter_var2 is not None:
                hidden[node.iter_var2] = UNKNOWN
            scope = {**env, **hidden}
            for part in (node.loop_condition, node.loop_step, node.result):
                self.walk(part, scope, None)
            return
        for child in children(node):
            self.walk(child, env, None)


def _target_guarded(evaluator: _Evaluator, path: list[Expr]) -> bool:
    """Whether `_Walker.walk` would rule out the last node of `path` (its ancestors from the root
    down, as `children` links them): the same decisions, taken only on the way to it."""
    env: _Env = {}
    for parent, child in itertools.pairwise(path):
        if isinstance(parent, Call) and parent.function in ("_&&_", "_||_") and len(parent.args) == 2:
            stop = parent.function == "_||_"
            left, right = parent.args
            if evaluator.decided(left, env) is stop:
                if child is right:
                    return True
            elif child is left and evaluator.decided(right, env) is stop:
                return True
        elif isinstance(parent, Call) and parent.function == "_?_:_" and len(parent.args) == 3:
            cond = evaluator.decided(parent.args[0], env)
            if cond is not None and child is (parent.args[2] if cond else parent.args[1]):
                return True
        elif isinstance(parent, Comprehension) and child in (
            parent.loop_condition,
            parent.loop_step,
            parent.result,
        ):
            hidden = {parent.iter_var: UNKNOWN, parent.accu_var: UNKNOWN}
            if parent.iter_var2 is not None:
                hidden[parent.iter_var2] = UNKNOWN
            env = {**env, **hidden}
    return False


def _fails_on_path(path: list[Expr], null_roots: frozenset[str]) -> bool:
    """Whether the last node of `path` is in `_failing`: some node on the way to it fails at a
    null root (in the scope of the comprehensions above it)."""
    env: _Env = {}
    memo: dict[int, bool] = {}
    for i, node in enumerate(path):
        if _fails(node, env, null_roots, memo):
            return True
        child = path[i + 1] if i + 1 < len(path) else None
        if isinstance(node, Comprehension) and child in (node.loop_condition, node.loop_step, node.result):
            env = {**env, node.iter_var: UNKNOWN, node.accu_var: UNKNOWN}
            if node.iter_var2 is not None:
                env = {**env, node.iter_var2: UNKNOWN}
    return False


def guarded(
    parsed: ParsedExpr,
    facts: Facts,
    variables: Mapping[str, ParsedExpr],
    node: Expr,
    type_of: TypeOf | None = None,
    present: Present | None = None,
) -> bool:
    """`reachability(parsed, facts, …).guard_of(node) is not None`, deciding only the conditions
    on the way from the root to `node`: what the optional-field check asks once per read and
    field (`has(x.f) && x.f` where `f` is absent), which a whole walk per read made quadratic."""
    path = parsed.path_to(node)
    if parsed.ast is None or not path:
        return False
    for cls in _by_operation(facts, True):
        if _target_guarded(_Evaluator(cls, variables, type_of, present), path):
            continue
        nulls = _null_roots(cls)
        if not nulls or not _fails_on_path(path, nulls):
            return False
        if not _target_guarded(_Evaluator(cls, variables, type_of, present, optimistic=True), path):
            return False
    return True


def _by_operation(facts: Facts, for_kind: bool) -> list[Facts]:
    """`facts` as one class per operation when that decides more: whether `object`/`oldObject`
    is null (and so whether its kind is the kind) depends on the operation. `for_kind`: only
    the requests whose `object` is of the kind (not a CONNECT's options), unless CONNECT is all."""
    ops = facts.operations
    if len(ops) <= 1:
        return [facts]
    probe = _Evaluator(facts, {}, None)
    undecided = any(isinstance(probe._root_value(r), _Unknown) for r in ("object", "oldObject"))
    if not undecided and "CONNECT" not in ops:
        return [facts]
    if for_kind and ops - {"CONNECT"}:
        ops = ops - {"CONNECT"}
    return [replace(facts, operations=frozenset({op})) for op in sorted(ops)]


def _null_roots(facts: Facts) -> frozenset[str]:
    """`object`/`oldObject` when null in every request of `facts`."""
    probe = _Evaluator(facts, {}, None)
    return frozenset(r for r in ("object", "oldObject") if probe._root_value(r) is None)


def _failing(ast: Expr, null_roots: frozenset[str]) -> set[int]:
    """The nodes of `ast` that fail at one of `null_roots` (`_fails`)."""
    memo: dict[int, bool] = {}
    out: set[int] = set()
    stack: list[tuple[Expr, _Env]] = [(ast, {})]
    while stack:
        node, env = stack.pop()
        if _fails(node, env, null_roots, memo):
            out.update(n.id for n in subtree(node))
            continue
        if isinstance(node, Comprehension):
            inner = {**env, node.iter_var: UNKNOWN, node.accu_var: UNKNOWN}
            if node.iter_var2 is not None:
                inner[node.iter_var2] = UNKNOWN
            stack.extend([(node.iter_range, env), (node.accu_init, env)])
            stack.extend((part, inner) for part in (node.loop_condition, node.loop_step, node.result))
        else:
            stack.extend((child, env) for child in children(node))
    return out


def _class_guards(
    parsed: ParsedExpr,
    facts: Facts,
    variables: Mapping[str, ParsedExpr],
    type_of: TypeOf | None,
    present: Present | None,
    for_kind: bool,
) -> tuple[dict[int, Guard], str]:
    """The guards of one class of requests, and a note when some of them are for nodes that fail
    at a null root. `for_kind`, where `object` or `oldObject` is null: a
    node that fails at that null root (never reaching a field of the kind) is unreachable where
    it would be if the root held the kind (`object.kind != 'Pod' || object.spec.containers` on
    DELETE: `object.kind` is an error there, but so is the right side, at `object`)."""
    assert parsed.ast is not None
    walker = _Walker(parsed, _Evaluator(facts, variables, type_of, present))
    walker.walk(parsed.ast, {}, None)
    nulls = _null_roots(facts) if for_kind else frozenset()
    if not nulls or nulls.isdisjoint(parsed.identifiers()):
        # Only a node reading a null root directly can fail there (`_fails`): none, no extra guard.
        return walker.guards, ""
    optimistic = _Walker(parsed, _Evaluator(facts, variables, type_of, present, optimistic=True))
    optimistic.walk(parsed.ast, {}, None)
    extra = {i: g for i, g in optimistic.guards.items() if i not in walker.guards}
    failing = _failing(parsed.ast, nulls) if extra else set()
    out = dict(walker.guards)
    out.update((i, g) for i, g in extra.items() if i in failing)
    if len(out) == len(walker.guards):
        return out, ""
    ops = " and ".join(sorted(facts.operations))
    return out, f"on {ops} {' and '.join(sorted(nulls))} is null: it fails there first"


def reachability(
    parsed: ParsedExpr,
    facts: Facts,
    variables: Mapping[str, ParsedExpr],
    type_of: TypeOf | None = None,
    present: Present | None = None,
    *,
    for_kind: bool = True,
) -> Reachability:
    """Which nodes of `parsed` can affect its value for `facts`' kind. `variables`: the parsed
    expression of each variable (by name) the expression may read; `type_of`: the types of
    `parsed`'s nodes in this kind's compile (for `has()` of a field the schema lacks); `present`:
    whether a selection is guaranteed at admission (for `has()` of such a field).

    Decided per operation when the operations disagree on a root being null (`oldObject.kind` is
    the kind on UPDATE, an error on CREATE): a node is unreachable when it is in every
    operation's requests. `for_kind`: the nodes that can run when `object` is of the kind (not
    the options of a CONNECT; a read failing at a null root first does not reach the kind's
    fields, `_class_guards`); without it (the null checks, which look for such reads) every
    request counts."""
    if parsed.ast is None:
        return Reachability(parsed, facts)
    classes = _by_operation(facts, for_kind)
    found: list[tuple[dict[int, Guard], str]] = []
    for cls in classes:
        of_class, note = _class_guards(parsed, cls, variables, type_of, present, for_kind)
        if not of_class:
            return Reachability(parsed, facts)
        found.append((of_class, note))
    if len(found) == 1 and not found[0][1]:
        return Reachability(parsed, facts, found[0][0])
    out: dict[int, Guard] = {}
    for node_id in found[0][0]:
        maybe = [g.get(node_id) for g, _ in found]
        guards = [g for g in maybe if g is not None]
        if len(guards) < len(maybe):
            continue
        texts = list(dict.fromkeys(g.text for g in guards))
        if len(texts) == 1:
            text = texts[0]
        else:
            text = "; ".join(
                f"on {next(iter(c.operations))}: {g.text}" for c, g in zip(classes, guards, strict=True)
            )
        notes = [note for (g, note) in found if note and node_id in g]
        if notes:
            text += f" ({'; '.join(notes)})"
        out[node_id] = (
            guards[0] if text == guards[0].text else Guard(guards[0].condition, text, guards[0].branch)
        )
    return Reachability(parsed, facts, out)


def decide(
    condition: Expr,
    facts: Facts,
    variables: Mapping[str, ParsedExpr],
    *,
    for_kind: bool = True,
    type_of: TypeOf | None = None,
    present: Present | None = None,
) -> bool | None:
    """The value of `condition` for `facts`' kind, when the evaluator can decide it: the same in
    every operation's requests. `for_kind` (the kind's type): leaving out the requests where it
    fails at a null root (`object.kind` on DELETE: a variable holding it fails there, whatever
    its type) and a CONNECT's."""
    verdicts: set[bool] = set()
    for cls in _by_operation(facts, for_kind):
        if for_kind and _fails(condition, {}, _null_roots(cls)):
            continue
        verdict = _Evaluator(cls, variables, type_of, present).decided(condition, {})
        if verdict is None:
            return None
        verdicts.add(verdict)
    return verdicts.pop() if len(verdicts) == 1 else None


# --- null roots ----------------------------------------------------------------------------


def root_reads(ast: Expr | None, root: str) -> Iterator[tuple[Expr, Ident]]:
    """Every read of a field or an index of `root` that fails when it is null (`has()`, `.?` and
    `[?…]` do not), with the root's identifier."""
    for node in subtree(ast) if ast is not None else ():
        if isinstance(node, Select) and not node.test_only and not node.optional:
            operand: Expr | None = node.operand
        elif isinstance(node, Call) and node.function == "_[_]" and node.args:
            operand = node.args[0]
        else:
            continue
        if isinstance(operand, Ident) and operand.name == root:
            yield node, operand


def _first(reads: Iterator[tuple[Expr, Ident]]) -> tuple[Expr, Ident] | None:
    """The read written first (the walk visits nodes in no source order)."""
    return min(reads, key=lambda read: read[1].start, default=None)


VariablesOf = Callable[[ExpressionSite], Mapping[str, ParsedExpr]]


class NullFlow:
    """Which reads of `root` can run in requests where it is null: `facts`, one per class of such
    requests (a kind with the operation that makes it null, or any kind). A matchCondition that
    decides false for a class keeps it out of every expression (with `conditions_guard`; not
    when the null case is the matchConditions themselves); a messageExpression that fails falls
    back to `message`, so its reads never count; a variable's reads count only where an
    expression that can run reads the variable (variables are evaluated lazily)."""

    def __init__(
        self,
        root: str,
        facts: list[Facts],
        sites: list[tuple[ExpressionSite, ParsedExpr]],
        variables_of: VariablesOf,
        *,
        conditions_guard: bool = True,
    ) -> None:
        self.root = root
        self.sites = sites
        self.variables_of = variables_of
        conditions = [
            p.ast for s, p in sites if s.kind is ExpressionKind.MATCH_CONDITION and p.ast is not None
        ]
        if conditions_guard:
            # matchConditions run without the namespace (`matchconditions/matcher.go`).
            facts = [
                f
                for f in facts
                if not any(
                    decide(c, replace_nulls(f, "namespaceObject"), {}, for_kind=False) is False
                    for c in conditions
                )
            ]
        self.facts = facts
        self._parsed = {id(s): p for s, p in sites}
        self._reaches: dict[int, list[Reachability]] = {}
        self._variable_reaches: dict[tuple[int, Facts, int], tuple[ParsedExpr, object, Reachability]] = {}
        """By the variable's parse, the class and its readers' variables (kept alive here)."""

    @property
    def excluded(self) -> bool:
        """No request where the root is null reaches the expressions."""
        return not self.facts

    def _reachable(self, site: ExpressionSite, parsed: ParsedExpr, node: Expr) -> bool:
        return any(reach.guard_of(node) is None for reach in self._reach(site, parsed))

    def _reach(self, site: ExpressionSite, parsed: ParsedExpr) -> list[Reachability]:
        """`site`'s narrowing for each class of requests (computed once)."""
        found = self._reaches.get(id(site))
        if found is None:
            variables = self.variables_of(site)
            found = [reachability(parsed, f, variables, for_kind=False) for f in self.facts]
            self._reaches[id(site)] = found
        return found

    def _unguarded(self, site: ExpressionSite) -> tuple[Expr, Expr] | None:
        """The first read of the root in `site` that can run when it is null, with what holds
        the root there (its identifier, or `variables.x` holding it)."""
        parsed = self._parsed.get(id(site))
        if parsed is None or parsed.ast is None or not self.facts:
            return None
        variables = self.variables_of(site)
        found: list[tuple[Expr, Expr]] = []
        for index, facts in enumerate(self.facts):

            def guarded(node: Expr, index: int = index) -> bool:
                # The class's narrowing, computed only once a read holding the root is found.
                return self._reach(site, parsed)[index].guard_of(node) is not None

            found.extend(self._reads(parsed, parsed.ast, {}, guarded, facts, variables))
        return min(found, key=lambda read: read[1].start, default=None)

    def _reads(
        self,
        parsed: ParsedExpr,
        ast: Expr,
        env: Mapping[str, Expr | None],
        guarded: Callable[[Expr], bool],
        facts: Facts,
        variables: Mapping[str, ParsedExpr],
    ) -> Iterator[tuple[Expr, Expr]]:
        """The reads under `ast` that fail where the root is null and are not `guarded`: a
        field or an index of a value that is the root (`oldObject.f`, `(c ? oldObject :
        object).f`, `variables.old.f`, `o.f` iterating over `[object, oldObject]`). `env`: the
        comprehension variables in scope, each with what holds the root in it (None: not it)."""
        stack: list[tuple[Expr, Mapping[str, Expr | None], Callable[[Expr], bool]]] = [(ast, env, guarded)]
        while stack:
            node, scope, skip = stack.pop()
            operand: Expr | None = None
            if isinstance(node, Select) and not node.test_only and not node.optional:
                operand = node.operand
            elif isinstance(node, Call) and node.function == "_[_]" and node.args:
                operand = node.args[0]
            if operand is not None:
                via = self._holds(operand, scope, skip, facts, variables, frozenset())
                if via is not None and not skip(node):
                    yield node, via
            if not isinstance(node, Comprehension):
                stack.extend((child, scope, skip) for child in children(node))
                continue
            stack.extend([(node.iter_range, scope, skip), (node.accu_init, scope, skip)])
            hidden: dict[str, Expr | None] = {node.iter_var: None, node.accu_var: None}
            if node.iter_var2 is not None:
                hidden[node.iter_var2] = None
            parts = (node.loop_condition, node.loop_step, node.result)
            stack.extend((part, {**scope, **hidden}, skip) for part in parts)
            items = node.iter_range
            if node.iter_var2 is not None or not isinstance(items, ListExpr) or skip(items):
                continue
            for element in items.elements:
                via = self._holds(element, scope, skip, facts, variables, frozenset())
                if via is None:
                    continue
                # The body with the iteration variable null: its own guards (`o == null || o.f`).
                evaluator = _Evaluator(facts, variables, None)
                evaluator.bound_facts = frozenset({node.iter_var})
                walker = _Walker(parsed, evaluator)
                values: dict[str, Value] = {name: UNKNOWN for name in (*scope, *hidden)}
                values[node.iter_var] = None
                for part in parts:
                    walker.walk(part, values, None)
                inner = walker.guards

                def skip_null(
                    n: Expr, outer: Callable[[Expr], bool] = skip, inner: dict[int, Guard] = inner
                ) -> bool:
                    return outer(n) or n.id in inner

                aliased = {**scope, **hidden, node.iter_var: via}
                stack.extend((part, aliased, skip_null) for part in parts)

    def _holds(
        self,
        node: Expr,
        scope: Mapping[str, Expr | None],
        guarded: Callable[[Expr], bool],
        facts: Facts,
        variables: Mapping[str, ParsedExpr],
        seen: frozenset[str],
    ) -> Expr | None:
        """What makes `node`'s value the root (None: it is not): the root's identifier, a
        branch of a conditional that can run, `dyn(…)` of it, a variable holding it."""
        if isinstance(node, Ident):
            if node.name in scope:
                return scope[node.name]
            return node if node.name == self.root else None
        if isinstance(node, Call) and node.function == "_?_:_" and len(node.args) == 3:
            for branch in node.args[1:]:
                if not guarded(branch):
                    found = self._holds(branch, scope, guarded, facts, variables, seen)
                    if found is not None:
                        return found
            return None
        if isinstance(node, Call) and node.function == "dyn" and node.target is None and len(node.args) == 1:
            return self._holds(node.args[0], scope, guarded, facts, variables, seen)
        if (
            isinstance(node, Select)
            and not node.test_only
            and isinstance(node.operand, Ident)
            and node.operand.name == "variables"
            and "variables" not in scope
            and node.field not in seen
        ):
            parsed = variables.get(node.field)
            if parsed is None or parsed.ast is None:
                return None
            reach = self._variable_reach(parsed, facts, variables)
            inner = self._holds(parsed.ast, {}, _guarded_by(reach), facts, variables, seen | {node.field})
            return node if inner is not None else None
        return None

    def _variable_reach(
        self, parsed: ParsedExpr, facts: Facts, variables: Mapping[str, ParsedExpr]
    ) -> Reachability:
        """A variable's narrowing for one class of requests, once per flow and the variables its
        reads resolve to (maps sharing a `VariableAsts` store resolve every name alike): each
        read of `variables.x.f` asks it."""
        scope = variables.evaluated if isinstance(variables, VariableAsts) else variables
        key = (id(parsed), facts, id(scope))
        hit = self._variable_reaches.get(key)
        if hit is None:
            hit = (parsed, scope, reachability(parsed, facts, variables, for_kind=False))
            self._variable_reaches[key] = hit
        return hit[2]

    def _reads_variable(self, site: ExpressionSite, name: str) -> bool:
        """Whether `site` reads `variables.<name>` where the root can be null."""
        parsed = self._parsed.get(id(site))
        if parsed is None or parsed.ast is None or site.kind is ExpressionKind.MESSAGE_EXPRESSION:
            return False
        return any(
            isinstance(n, Select) and n.field == name and not n.test_only and isinstance(n.operand, Ident)
            and n.operand.name == "variables" and self._reachable(site, parsed, n)
            for n in subtree(parsed.ast)
        )  # fmt: skip

    def unguarded_read(self, site: ExpressionSite) -> Expr | None:
        """What holds the root (its identifier, or `variables.x` holding it) in the first read
        of `site` that fails where the root is null (None: every read is guarded, never runs
        there, or only a messageExpression reads it)."""
        if site.kind is ExpressionKind.MESSAGE_EXPRESSION:
            return None
        found = self._unguarded(site)
        if found is None:
            return None
        if site.kind is ExpressionKind.VARIABLE:
            name = site.name or ""
            if not any(s is not site and self._reads_variable(s, name) for s, _ in self.sites):
                return None  # evaluated only where the root is guarded (or never)
        return found[1]


def _guarded_by(reach: Reachability) -> Callable[[Expr], bool]:
    return lambda node: reach.guard_of(node) is not None


def replace_nulls(facts: Facts, *roots: str) -> Facts:
    """`facts` with `roots` null too."""
    return replace(facts, null_roots=facts.null_roots | frozenset(roots))


def params_unguarded(sites: Iterable[ExpressionSite]) -> bool:
    """Whether a policy reads `params` where it can be null without a guard: when a binding has
    no `paramRef`, `params` is null for every request (`CollectParams`: "Validate with nil
    params"). Narrowing (`NullFlow`) decides the guards: in the expression, in the variables it
    reads, in a matchCondition (which covers every expression); a messageExpression that fails
    falls back to `message`."""
    from vap_lsp.cel.parser import parse  # the workspace index calls this: CEL only when needed

    parsed = [(site, parse(site.text)) for site in sites if "params" in site.text or "variables" in site.text]
    variables = {s.name: p for s, p in parsed if s.kind is ExpressionKind.VARIABLE and s.name is not None}
    flow = NullFlow("params", [Facts(None, has_params=False)], parsed, lambda site: variables)
    return not flow.excluded and any(flow.unguarded_read(site) is not None for site, _ in parsed)
