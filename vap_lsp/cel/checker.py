"""CEL type checker reproducing cel-go's `checker.Check` (v0.26, Kubernetes 1.34–1.36).

Why a port rather than an approximation: the API server rejects a policy with cel-go's exact
message text and column, so the editor must find the same errors at the same places, and must
*not* report anything cel-go accepts. The structure therefore follows `checker/checker.go`
function by function (identifier and qualified-name resolution, field selection, overload
resolution with type-parameter unification, aggregate literals, struct creation,
comprehension scopes) and the quirks are kept on purpose:

* a member call only matches receiver-style overloads (`q.sign()` fails although `sign(q)`
  exists), and `a.b.c()` is first tried as the namespaced function `a.b.c`;
* overloads are tried in declaration order; the first match fixes the result type and a
  disagreeing later match turns it into `dyn`; free type variables are numbered `_var0`,
  `_var1`, … in cel-go's allocation order (they show up in messages such as
  `type 'list(_var0)' does not support field selection`);
* `Env.enterScope` does not copy the overload filter, so once the first comprehension is
  entered the cross-type numeric comparisons are usable for the rest of the check;
* a struct literal of an undeclared type does not check its field values;
* the protobuf well-known types of cel-go's default registry resolve as type names
  (`google.protobuf.Int64Value` is `type(wrapper(int))`) and can be constructed.

Invariants:

* every expression node of the expanded AST gets a type, even under errors (unresolvable
  nodes are `!error!`, parser-recovery `ErrorExpr` nodes are `!error!` without any issue);
  the call as written for a macro (`ParsedExpr.macro_calls`) gets the expansion's type and its
  iteration-variable identifiers get the variable types; the only nodes left untyped are the
  namespace parts of a namespaced call (`sets` in `sets.contains(...)`), which are names, not
  expressions (they get a ``namespace`` reference instead);
* the final type map has every bound type parameter substituted and unbound ones as `dyn`;
* `CheckIssue.cel_message` is exactly what cel-go reports; `message` may carry a version hint
  after `; ` (e.g. `'ip' is available from Kubernetes 1.31`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

from vap_lsp.cel import types as t
from vap_lsp.cel.ast import (
    Call,
    CelIssue,
    Comprehension,
    ErrorExpr,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapExpr,
    Node,
    ParsedExpr,
    Select,
    StructExpr,
    children,
)
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.library.decls import FunctionDecl, Overload, minor_of
from vap_lsp.cel.types import DYN, ERROR, FieldDecl, Kind, ObjectType, Type, TypeMapping

__all__ = ["CheckIssue", "CheckedExpr", "Reference", "check", "qualified_name"]

ReferenceKind = TypingLiteral["variable", "local", "type", "function", "field", "namespace"]


@dataclass(frozen=True, slots=True)
class Reference:
    """What a node resolved to (cel-go `ReferenceInfo`, plus field selections for hover).

    `variable`: a declared variable (`name` is its full, possibly dotted name); `local`: a
    comprehension variable; `type`: a type name (`int`, `Object.spec`); `function`: a call with
    the overload ids that matched; `field`: an object field (`owner` is the selected type);
    `namespace`: the prefix of a namespaced function call.
    """

    kind: ReferenceKind
    name: str
    overload_ids: tuple[str, ...] = ()
    field: FieldDecl | None = None
    owner: Type | None = None


@dataclass(eq=False)
class CheckIssue(CelIssue):
    """A checker or validator issue; `cel_message` is cel-go's exact text (`message` may add a hint)."""

    cel_message: str = ""

    def render(self, source: str, description: str = "<input>") -> str:
        """Rendered with cel-go's text only, as the API server shows it."""
        plain = CelIssue(self.cel_message or self.message, self.start, self.end, self.severity)
        return plain.render(source, description)


@dataclass(eq=False)
class CheckedExpr:
    """Result of :func:`check`: types and references by node id, issues, the output type."""

    parsed: ParsedExpr
    types: dict[int, Type]
    references: dict[int, Reference]
    issues: list[CelIssue]
    output_type: Type
    #: comprehension node id → its variables (iteration variable(s) and accumulator) and types.
    scopes: dict[int, dict[str, Type]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(i.severity == "error" for i in self.issues)

    def type_of(self, node: Node) -> Type | None:
        return self.types.get(node.id)


_LITERAL_TYPES = {
    LiteralKind.INT: t.INT,
    LiteralKind.UINT: t.UINT,
    LiteralKind.DOUBLE: t.DOUBLE,
    LiteralKind.STRING: t.STRING,
    LiteralKind.BYTES: t.BYTES,
    LiteralKind.BOOL: t.BOOL,
    LiteralKind.NULL: t.NULL,
}

_LOGICAL = frozenset({"_&&_", "_||_"})
_HINTED = ("undeclared reference", "found no matching overload")


def qualified_name(e: Expr) -> str | None:
    """cel-go `containers.ToQualifiedName`: `a.b.c` for an Ident/Select chain, else None.

    Presence tests (`has()`) and optional selections (`a.?b`, a call in cel-go) never qualify.
    """
    parts: list[str] = []
    node = e
    while isinstance(node, Select):
        if node.test_only or node.optional:
            return None
        parts.append(node.field)
        node = node.operand
    if not isinstance(node, Ident):
        return None
    parts.append(node.name)
    return ".".join(reversed(parts))


NAMESPACE_RESOLUTION_MINOR = 37
"""First Kubernetes minor whose cel-go (v0.29; the change is v0.27's "Namespace resolution fix",
google/cel-go#1256) resolves `.name` globally even inside a comprehension binding `name`, and
lets a comprehension variable shadow a dotted global (`y.z` inside `exists(y, …)`)."""


def shadowing_fixed(env: Environment) -> bool:
    return env.minor >= NAMESPACE_RESOLUTION_MINOR


def container_candidates(container: str, name: str, root_only: bool = False) -> list[str]:
    """cel-go `Container.ResolveCandidateNames`: `name` qualified by the container and each of its
    parents, most qualified first, then `name` itself."""
    if root_only or not container:
        return [name]
    parts = container.split(".")
    return [".".join([*parts[:i], name]) for i in range(len(parts), 0, -1)] + [name]


def _has_type_params(typ: Type) -> bool:
    if typ.kind is Kind.TYPE_PARAM:
        return True
    params = typ.params
    return bool(params) and any(_has_type_params(p) for p in params)


def _instantiate(typ: Type, subs: dict[str, Type]) -> Type:
    """Replace an overload's declared type parameters by fresh type variables."""
    if typ.kind is Kind.TYPE_PARAM:
        return subs.get(typ.name, typ)
    if not typ.params:
        return typ
    return Type(typ.kind, typ.name, tuple(_instantiate(p, subs) for p in typ.params))


_SIMPLE_LEAF = frozenset(
    {
        Kind.BOOL,
        Kind.BYTES,
        Kind.DOUBLE,
        Kind.INT,
        Kind.STRING,
        Kind.UINT,
        Kind.DURATION,
        Kind.TIMESTAMP,
        Kind.STRUCT,
    }
)


def _assignable_concrete(t1: Type, t2: Type) -> bool:
    """`internalIsAssignable` for types without type parameters (no mapping involved)."""
    if t1 is t2:
        return True
    k1, k2 = t1.kind, t2.kind
    if k1 in (Kind.DYN, Kind.ANY, Kind.ERROR) or k2 in (Kind.DYN, Kind.ANY, Kind.ERROR):
        return True
    if k1 is Kind.NULL:
        return t.is_assignable_null(t2)
    if k2 is Kind.NULL:
        return t.is_assignable_null(t1)
    if k1 in _SIMPLE_LEAF:
        return t.is_assignable_type(t2, t1)
    if k1 is Kind.TYPE:
        return k2 is Kind.TYPE
    if k1 in (Kind.OPAQUE, Kind.LIST, Kind.MAP):
        return (
            k1 is k2
            and t1.name == t2.name
            and len(t1.params) == len(t2.params)
            and all(_assignable_concrete(a, b) for a, b in zip(t1.params, t2.params, strict=True))
        )
    return False


@dataclass(frozen=True, slots=True)
class _Resolution:
    result: Type | None  # None: no overload matched
    overload_ids: tuple[str, ...]
    type_vars: int  # fresh type variables allocated while resolving


# Overload resolution results for argument types without type parameters, per function
# declaration (kept alive by the entry so `id()` is never reused).
_RESOLUTION_CACHE: dict[tuple[int, bool, tuple[Type, ...]], tuple[FunctionDecl, _Resolution]] = {}
_RESOLUTION_CACHE_LIMIT = 50_000


class _Checker:
    def __init__(self, parsed: ParsedExpr, env: Environment) -> None:
        self.parsed = parsed
        self.env = env
        self.types: dict[int, Type] = {}
        self.refs: dict[int, Reference] = {}
        self.issues: list[CelIssue] = []
        self.mapping = TypeMapping()
        self.counter = 0
        self.scopes: list[dict[str, Type]] = []
        self.comp_scopes: dict[int, dict[str, Type]] = {}
        # cel-go's Env.enterScope drops the overload filter, for the rest of the check.
        self.unfiltered = False
        self.quiet = 0
        self.minor = minor_of(env.kubernetes_version)
        # `cel.HomogeneousAggregateLiterals()` is a checker option in cel-go 0.16 (Kubernetes
        # 1.28) and an AST validator from 0.17 on (see validators.py), where the checker joins
        # mixed element types to `dyn`.
        self.homogeneous = env.features.homogeneous_aggregate_literals and self.minor < 29
        self.shadowing_fixed = shadowing_fixed(env)
        self._dispatch: dict[type, Callable[[Expr], None]] = {
            Literal: self._literal,  # type: ignore[dict-item]
            Ident: self._ident,  # type: ignore[dict-item]
            Select: self._select,  # type: ignore[dict-item]
            Call: self._call,  # type: ignore[dict-item]
            ListExpr: self._list,  # type: ignore[dict-item]
            MapExpr: self._map,  # type: ignore[dict-item]
            StructExpr: self._struct,  # type: ignore[dict-item]
            Comprehension: self._comprehension,  # type: ignore[dict-item]
            ErrorExpr: self._error_expr,
        }

    # -- bookkeeping ----------------------------------------------------------------------

    def error(self, node: Node, message: str, hint: str = "") -> None:
        if self.quiet:
            return
        loc = self.parsed.location(node)
        end = max(node.end, loc)
        text = f"{message}; {hint}" if hint else message
        self.issues.append(CheckIssue(text, loc, end, cel_message=message))

    def set_type(self, e: Expr, typ: Type) -> None:
        self.types[e.id] = typ

    def get_type(self, e: Expr) -> Type:
        return self.types.get(e.id, ERROR)

    def subst(self, typ: Type, to_dyn: bool = False) -> Type:
        if not _has_type_params(typ):
            return typ
        return t.substitute(self.mapping, typ, to_dyn)

    def new_type_var(self) -> Type:
        var = t.type_param(f"_var{self.counter}")
        self.counter += 1
        return var

    def is_assignable(self, t1: Type, t2: Type) -> bool:
        if not _has_type_params(t1) and not _has_type_params(t2):
            return _assignable_concrete(t1, t2)
        extended = t.is_assignable(self.mapping, t1, t2)
        if extended is None:
            return False
        self.mapping = extended
        return True

    def is_assignable_list(self, l1: Sequence[Type], l2: Sequence[Type]) -> bool:
        if len(l1) != len(l2):
            return False
        if not any(_has_type_params(x) for x in l1) and not any(_has_type_params(x) for x in l2):
            return all(_assignable_concrete(a, b) for a, b in zip(l1, l2, strict=True))
        extended = t.is_assignable_list(self.mapping, l1, l2)
        if extended is None:
            return False
        self.mapping = extended
        return True

    def type_mismatch(self, node: Node, expected: Type, actual: Type) -> None:
        self.error(
            node, f"expected type '{t.format_cel_type(expected)}' but found '{t.format_cel_type(actual)}'"
        )

    # -- lookups --------------------------------------------------------------------------

    def lookup_ident(self, name: str) -> tuple[Type, Reference] | None:
        """cel-go `Env.LookupIdent`: local scopes (not for `.name`, which is always global),
        then declared variables, type names and constants under each name the container
        makes of it (`a.b.y`, `a.y`, `y` in container `a.b`; Kubernetes has none)."""
        root_only = name.startswith(".")
        if root_only:
            name = name[1:]
        if not (root_only and self.shadowing_fixed):
            for scope in reversed(self.scopes):
                found = scope.get(name)
                if found is not None:
                    return found, Reference("local", name)
        for candidate in container_candidates(self.env.container, name, root_only):
            var = self.env.find_variable(candidate)
            if var is not None:
                return var, Reference("variable", candidate)
            typ = self.env.find_type_identifier(candidate)
            if typ is not None:
                return typ, Reference("type", candidate)
            constant = self.env.find_constant(candidate)
            if constant is not None:
                return constant, Reference("variable", candidate)
        return None

    def is_local_root(self, qualified: str) -> bool:
        """Whether a dotted name starts with a comprehension variable, which shadows a global of
        that dotted name from cel-go v0.27 on (before, `y.z` found the global `y.z`)."""
        return (
            self.shadowing_fixed
            and not qualified.startswith(".")
            and any(qualified.split(".")[0] in s for s in self.scopes)
        )

    def lookup_function(self, name: str) -> FunctionDecl | None:
        if name.startswith("."):
            name = name[1:]
        return self.env.find_function(name, nested_scope=self.unfiltered)

    # -- dispatch -------------------------------------------------------------------------

    def check(self, e: Expr) -> None:
        self._dispatch[type(e)](e)

    def _error_expr(self, e: Expr) -> None:
        self.set_type(e, ERROR)

    def _literal(self, e: Literal) -> None:
        self.set_type(e, _LITERAL_TYPES[e.kind])

    def _ident(self, e: Ident) -> None:
        found = self.lookup_ident(e.name)
        if found is not None:
            self.set_type(e, found[0])
            self.refs[e.id] = found[1]
            return
        self.set_type(e, ERROR)
        self.error(e, f"undeclared reference to '{e.name}' (in container '')")

    def _select(self, e: Select) -> None:
        if not e.test_only and not e.optional:
            qname = qualified_name(e)
            if qname is not None and not self.is_local_root(qname):
                found = self.lookup_ident(qname)
                if found is not None:
                    self.set_type(e, found[0])
                    self.refs[e.id] = found[1]
                    self._type_qualified_parts(e.operand)
                    return
        result = self.select_field(e, e.operand, e.field, optional=e.optional)
        if e.test_only:
            result = t.BOOL
        if e.optional and e.id not in self.refs:  # a field reference is more useful for hover
            self.refs[e.id] = Reference("function", "_?._", ("select_optional_field",))
        self.set_type(e, self.subst(result))

    def _type_qualified_parts(self, e: Expr) -> None:
        """Prefix nodes of a dotted variable name (`authorizer` of `authorizer.requestResource`)
        are not checked by cel-go; type them quietly so hover still works."""
        self.quiet += 1
        try:
            if isinstance(e, Select):
                self._type_qualified_parts(e.operand)
                self.set_type(e, self.subst(self._select_type_of(e, self.get_type(e.operand))))
            elif isinstance(e, Ident):
                found = self.lookup_ident(e.name)
                self.set_type(e, found[0] if found is not None else DYN)
        finally:
            self.quiet -= 1

    def select_field(self, e: Expr, operand: Expr, name: str, *, optional: bool) -> Type:
        """cel-go `checkSelectField`."""
        self.check(operand)
        operand_type = self.subst(self.get_type(operand))
        target, is_opt = t.maybe_unwrap_optional(operand_type)
        result: Type = ERROR
        kind = target.kind
        if kind is Kind.MAP:
            result = target.params[1]
        elif kind is Kind.STRUCT:
            found = self.lookup_field(e, target, name)
            if found is not None:
                result = found.type
                self.refs[e.id] = Reference("field", name, field=found, owner=target)
        elif kind is Kind.TYPE_PARAM:
            self.is_assignable(DYN, target)
            result = DYN
        else:
            if not t.is_dyn_or_error(target) and name:
                self.error(e, f"type '{t.format_cel_type(target)}' does not support field selection")
            result = DYN
        if is_opt or optional:
            return t.optional_of(result)
        return result

    def _select_type_of(self, e: Select, operand_type: Type) -> Type:
        """Field type without reporting (for nodes cel-go does not check)."""
        target, is_opt = t.maybe_unwrap_optional(operand_type)
        result: Type = DYN
        if target.kind is Kind.MAP:
            result = target.params[1]
        elif isinstance(target, ObjectType):
            found = self.env.find_field(target, e.field)
            result = found.type if found is not None else ERROR
        if e.test_only:
            return t.BOOL
        return t.optional_of(result) if (is_opt or e.optional) else result

    def lookup_field(self, e: Node, target: Type, name: str) -> FieldDecl | None:
        if not isinstance(target, ObjectType):
            obj = self.env.find_struct_type(target.name)
            if obj is None:
                self.error(e, f"unexpected failed resolution of '{target.name}'")
                return None
            target = obj
        found = self.env.find_field(target, name)
        if found is None:
            if name:  # an empty name comes from parser recovery (`a.`): already a syntax error
                self.error(e, f"undefined field '{name}'")
            return None
        return found

    # -- calls ----------------------------------------------------------------------------

    def _call(self, e: Call) -> None:
        for arg in e.args:
            self.check(arg)
        name = e.function
        if e.target is None:
            fn = self.lookup_function(name)
            if fn is None:
                self.set_type(e, ERROR)
                self.error(e, f"undeclared reference to '{name}' (in container '')", self._fn_hint(name, e))
                return
            self.resolve_or_error(e, fn, None)
            return
        target = e.target
        prefix = qualified_name(target)
        namespaced_hint = ""
        if prefix is not None:
            fn = self.lookup_function(f"{prefix}.{name}")
            if fn is not None:
                self._mark_namespace(target)
                self.resolve_or_error(e, fn, None)
                return
            namespaced_hint = self._fn_hint(f"{prefix}.{name}", None)
        before = len(self.issues)
        self.check(target)
        if namespaced_hint:
            self._add_hint(before, namespaced_hint)
        fn = self.lookup_function(name)
        if fn is not None:
            before = len(self.issues)
            self.resolve_or_error(e, fn, target)
            if namespaced_hint:
                self._add_hint(before, namespaced_hint)
            return
        self.set_type(e, ERROR)
        hint = namespaced_hint or self._fn_hint(name, e)
        self.error(e, f"undeclared reference to '{name}' (in container '')", hint)

    def _mark_namespace(self, target: Expr) -> None:
        node: Expr = target
        while isinstance(node, Select):
            self.refs[node.id] = Reference("namespace", qualified_name(node) or node.field)
            node = node.operand
        if isinstance(node, Ident):
            self.refs[node.id] = Reference("namespace", node.name.lstrip("."))

    def _add_hint(self, since: int, hint: str) -> None:
        """Append a version hint to the unresolved-name issues raised since `since`."""
        for i in range(since, len(self.issues)):
            issue = self.issues[i]
            if isinstance(issue, CheckIssue) and issue.cel_message.startswith(_HINTED):
                issue.message = f"{issue.cel_message}; {hint}"

    def _fn_hint(self, name: str, call: Call | None) -> str:
        """`'ip' is available from Kubernetes 1.31` when another version declares `name`."""
        bare = name.lstrip(".")
        if call is not None:
            since = self.env.macro_introduced_in(bare, len(call.args), call.target is not None)
            if since is not None and minor_of(since) > self.minor:
                return f"'{bare}' with {len(call.args)} arguments is available from Kubernetes {since}"
        since = self.env.function_introduced_in(bare)
        if since is not None and minor_of(since) > self.minor:
            return f"'{bare}' is available from Kubernetes {since}"
        return ""

    def resolve_or_error(self, e: Call, fn: FunctionDecl, target: Expr | None) -> None:
        resolution = self.resolve_overload(e, fn, target)
        if resolution is None:
            self.set_type(e, ERROR)
            return
        result, ids = resolution
        self.set_type(e, result)
        self.refs[e.id] = Reference("function", fn.name, ids)

    def resolve_overload(
        self, call: Call, fn: FunctionDecl, target: Expr | None
    ) -> tuple[Type, tuple[str, ...]] | None:
        """cel-go `resolveOverload`."""
        arg_types = [self.get_type(a) for a in call.args]
        if target is not None:
            arg_types.insert(0, self.get_type(target))
        member = target is not None
        if fn.name in _LOGICAL:
            return self._resolve_logical(call, fn, arg_types)

        concrete = not any(_has_type_params(a) for a in arg_types)
        key = (id(fn), member, tuple(arg_types))
        if concrete:
            cached = _RESOLUTION_CACHE.get(key)
            if cached is not None and cached[0] is fn:
                res = cached[1]
                self.counter += res.type_vars
                if res.result is None:
                    self._no_matching_overload(call, fn, arg_types, member)
                    return None
                return res.result, res.overload_ids

        start_counter = self.counter
        result: Type | None = None
        ids: list[str] = []
        for overload in fn.overloads:
            if overload.receiver_style != member:
                continue
            params: Sequence[Type] = overload.params
            ret = overload.result
            if overload.type_params:
                subs = {name: self.new_type_var() for name in overload.type_params}
                params = [_instantiate(p, subs) for p in params]
                ret = _instantiate(ret, subs)
            if not self.is_assignable_list(arg_types, params):
                continue
            ids.append(overload.id)
            fn_result = self.subst(ret)
            if result is None:
                result = fn_result
            elif not t.is_dyn(result) and fn_result != result:
                result = DYN

        if concrete and (result is None or not _has_type_params(result)):
            if len(_RESOLUTION_CACHE) >= _RESOLUTION_CACHE_LIMIT:
                _RESOLUTION_CACHE.clear()
            _RESOLUTION_CACHE[key] = (fn, _Resolution(result, tuple(ids), self.counter - start_counter))
        if result is None:
            self._no_matching_overload(call, fn, arg_types, member)
            return None
        return result, tuple(ids)

    def _resolve_logical(
        self, call: Call, fn: FunctionDecl, arg_types: list[Type]
    ) -> tuple[Type, tuple[str, ...]] | None:
        """`_&&_`/`_||_`: every argument must be bool; errors name the argument."""
        overload = next((o for o in fn.overloads if not o.receiver_style), None)
        if overload is None:
            self._no_matching_overload(call, fn, arg_types, False)
            return None
        failed = False
        for arg, arg_type in zip(call.args, arg_types, strict=True):
            if not self.is_assignable(arg_type, t.BOOL):
                self.type_mismatch(arg, t.BOOL, arg_type)
                failed = True
        if failed:
            return None
        return t.BOOL, (overload.id,)

    def _no_matching_overload(
        self, call: Call, fn: FunctionDecl, arg_types: list[Type], member: bool
    ) -> None:
        shown = [self.subst(a, True) for a in arg_types]
        signature = t.format_function_signature(None, shown, is_instance=member)
        hint = self._overload_hint(fn.name, arg_types, member)
        self.error(call, f"found no matching overload for '{fn.name}' applied to '{signature}'", hint)

    def _overload_hint(self, name: str, arg_types: list[Type], member: bool) -> str:
        """Name an overload of another Kubernetes version that would have matched."""
        if self.quiet:
            return ""
        for overload in self.env.unavailable_overloads(name):
            if overload.receiver_style != member or len(overload.params) != len(arg_types):
                continue
            if not _would_match(overload, arg_types, self.mapping):
                continue
            removed = overload.since.removed
            if removed is not None and self.minor >= removed:
                return f"'{overload.signature()}' was removed in Kubernetes 1.{removed}"
            since = overload.introduced
            if since is not None and minor_of(since) > self.minor:
                return f"'{overload.signature()}' is available from Kubernetes {since}"
        return ""

    # -- aggregate literals ---------------------------------------------------------------

    def _list(self, e: ListExpr) -> None:
        elems_type: Type | None = None
        optionals = set(e.optional_indices)
        for i, elem in enumerate(e.elements):
            self.check(elem)
            elem_type = self.get_type(elem)
            if i in optionals:
                elem_type, is_opt = t.maybe_unwrap_optional(elem_type)
                if not is_opt and not t.is_dyn(elem_type):
                    self.type_mismatch(elem, t.optional_of(elem_type), elem_type)
            elems_type = self.join_types(elem, elems_type, elem_type)
        if elems_type is None:
            elems_type = self.new_type_var()
        self.set_type(e, t.list_of(elems_type))

    def _map(self, e: MapExpr) -> None:
        key_type: Type | None = None
        value_type: Type | None = None
        for entry in e.entries:
            self.check(entry.key)
            key_type = self.join_types(entry.key, key_type, self.get_type(entry.key))
            self.check(entry.value)
            val_type = self.get_type(entry.value)
            if entry.optional:
                val_type, is_opt = t.maybe_unwrap_optional(val_type)
                if not is_opt and not t.is_dyn(val_type):
                    self.type_mismatch(entry.value, t.optional_of(val_type), val_type)
            value_type = self.join_types(entry.value, value_type, val_type)
        if key_type is None or value_type is None:
            key_type = self.new_type_var()
            value_type = self.new_type_var()
        self.set_type(e, t.map_of(key_type, value_type))

    def join_types(self, e: Expr, previous: Type | None, current: Type) -> Type:
        """cel-go `joinTypes` (with HomogeneousAggregateLiterals: a mismatch is an error)."""
        if previous is None:
            return current
        if self.is_assignable(previous, current):
            return t.most_general(previous, current)
        if not self.homogeneous:
            return DYN  # mixed literals are then the homogeneous validator's business
        self.type_mismatch(e, previous, current)
        return ERROR

    def _struct(self, e: StructExpr) -> None:
        found = self.lookup_ident(e.type_name)
        if found is None:
            self.error(e, f"undeclared reference to '{e.type_name}' (in container '')")
            self.set_type(e, ERROR)
            self.quiet += 1  # cel-go stops here; values are typed for the editor only
            try:
                for f in e.fields:
                    self.check(f.value)
            finally:
                self.quiet -= 1
            return
        ident_type, _ = found
        type_name = e.type_name.lstrip(".")
        self.refs[e.id] = Reference("type", type_name)
        result: Type = ERROR
        struct: ObjectType | None = None
        if ident_type.kind is not Kind.ERROR:
            if ident_type.kind is not Kind.TYPE or not ident_type.params:
                self.error(e, f"'{ident_type.name}' is not a type")
            else:
                result = ident_type.params[0]
                if _is_well_known(result):
                    type_name = _WELL_KNOWN_NAMES.get(result.kind, "")
                elif isinstance(result, ObjectType):
                    type_name = result.name
                    struct = result
                else:
                    self.error(e, f"'{result.name}' is not a message type")
                    type_name = result.name
                    result = ERROR
        self.set_type(e, result)
        for f in e.fields:
            self.check(f.value)
            field_type: Type = ERROR
            target = struct if struct is not None else self.env.find_struct_type(type_name)
            if target is None:
                self.error(f, f"unexpected failed resolution of '{type_name}'")
            else:
                decl = self.env.find_field(target, f.name)
                if decl is None:
                    self.error(f, f"undefined field '{f.name}'")
                else:
                    field_type = decl.type
                    self.refs[f.id] = Reference("field", f.name, field=decl, owner=target)
            val_type = self.get_type(f.value)
            if f.optional:
                val_type, is_opt = t.maybe_unwrap_optional(val_type)
                if not is_opt and not t.is_dyn(val_type):
                    self.type_mismatch(f.value, t.optional_of(val_type), val_type)
            if not self.is_assignable(field_type, val_type):
                self.error(
                    f,
                    f"expected type of field '{f.name}' is '{t.format_cel_type(field_type)}' "
                    f"but provided type is '{t.format_cel_type(val_type)}'",
                )

    # -- comprehensions -------------------------------------------------------------------

    def _comprehension(self, e: Comprehension) -> None:
        self.check(e.iter_range)
        self.check(e.accu_init)
        range_type = self.subst(self.get_type(e.iter_range))
        accu_type = self.get_type(e.accu_init)
        self.scopes.append({e.accu_var: accu_type})
        self.unfiltered = True
        two = e.iter_var2 is not None
        var2_type: Type | None = None
        kind = range_type.kind
        if kind is Kind.LIST:
            var_type = range_type.params[0]
            if two:
                var2_type, var_type = var_type, t.INT
        elif kind is Kind.MAP:
            var_type = range_type.params[0]
            if two:
                var2_type = range_type.params[1]
        elif kind in (Kind.DYN, Kind.ERROR, Kind.TYPE_PARAM):
            self.is_assignable(DYN, range_type)
            var_type = DYN
            if two:
                var2_type = DYN
        else:
            self.error(
                e.iter_range,
                f"expression of type '{t.format_cel_type(range_type)}' cannot be range of a "
                "comprehension (must be list, map, or dynamic)",
            )
            var_type = ERROR
            if two:
                var2_type = ERROR
        loop_scope = {e.iter_var: var_type}
        if e.iter_var2 is not None and var2_type is not None:
            loop_scope[e.iter_var2] = var2_type
        self.scopes.append(loop_scope)
        self.comp_scopes[e.id] = {**loop_scope, e.accu_var: accu_type}
        self.check(e.loop_condition)
        self.assert_type(e.loop_condition, t.BOOL)
        self.check(e.loop_step)
        self.assert_type(e.loop_step, accu_type)
        self.scopes.pop()
        self.check(e.result)
        self.scopes.pop()
        self.set_type(e, self.subst(self.get_type(e.result)))

    def assert_type(self, e: Expr, expected: Type) -> None:
        actual = self.get_type(e)
        if not self.is_assignable(expected, actual):
            self.type_mismatch(e, expected, actual)

    # -- macro call forms -----------------------------------------------------------------

    def type_macro_calls(self) -> None:
        """Give the calls as written (`l.all(x, p)`, `has(a.b)`) and their pieces types."""
        self.quiet += 1
        try:
            for expansion_id, call in self.parsed.macro_calls.items():
                expansion_type = self.types.get(expansion_id, ERROR)
                self.types.setdefault(call.id, expansion_type)
                scope = self.comp_scopes.get(expansion_id, {})
                pieces = ([call.target] if call.target is not None else []) + list(call.args)
                for piece in pieces:
                    if piece.id in self.types:
                        continue
                    if isinstance(piece, Ident) and piece.name in scope:
                        self.types[piece.id] = scope[piece.name]
                        self.refs[piece.id] = Reference("local", piece.name)
                    elif isinstance(piece, Select) and piece.operand.id in self.types:
                        self.types[piece.id] = self.subst(
                            self._select_type_of(piece, self.get_type(piece.operand))
                        )
                    else:
                        self._check_untyped(piece)
        finally:
            self.quiet -= 1

    def _check_untyped(self, e: Expr) -> None:
        """Type a subtree that was not part of the checked AST (errors suppressed)."""
        if e.id in self.types:
            return
        missing = [c for c in children(e) if c.id not in self.types]
        if len(missing) == len(children(e)):
            self.check(e)
            return
        for c in missing:
            self._check_untyped(c)
        self.types.setdefault(e.id, DYN)


def _would_match(overload: Overload, arg_types: Sequence[Type], mapping: TypeMapping) -> bool:
    subs = {name: t.type_param(f"_hint{i}") for i, name in enumerate(overload.type_params)}
    params = [_instantiate(p, subs) for p in overload.params]
    return t.is_assignable_list(mapping, arg_types, params) is not None


def _is_well_known(typ: Type) -> bool:
    """cel-go `isWellKnownType`: protobuf wrapper and JSON types, `any`, time types."""
    kind = typ.kind
    if kind in (Kind.ANY, Kind.TIMESTAMP, Kind.DURATION, Kind.DYN, Kind.NULL):
        return True
    if kind in _WRAPPABLE:
        return isinstance(typ, t.WrapperType)
    if kind is Kind.LIST:
        return typ.params[0] == DYN
    if kind is Kind.MAP:
        return typ.params[0] == t.STRING and typ.params[1] == DYN
    return False


_WRAPPABLE = frozenset({Kind.BOOL, Kind.BYTES, Kind.DOUBLE, Kind.INT, Kind.STRING, Kind.UINT})

_WELL_KNOWN_NAMES = {
    Kind.ANY: "google.protobuf.Any",
    Kind.BOOL: "google.protobuf.BoolValue",
    Kind.BYTES: "google.protobuf.BytesValue",
    Kind.DOUBLE: "google.protobuf.DoubleValue",
    Kind.DURATION: "google.protobuf.Duration",
    Kind.DYN: "google.protobuf.Value",
    Kind.INT: "google.protobuf.Int64Value",
    Kind.LIST: "google.protobuf.ListValue",
    Kind.NULL: "google.protobuf.NullValue",
    Kind.MAP: "google.protobuf.Struct",
    Kind.STRING: "google.protobuf.StringValue",
    Kind.TIMESTAMP: "google.protobuf.Timestamp",
    Kind.UINT: "google.protobuf.UInt64Value",
}


def check(parsed: ParsedExpr, env: Environment) -> CheckedExpr:
    """Type-check a parsed expression in `env` the way cel-go does; never raises.

    Works on partial ASTs from parser recovery (error nodes are typed `!error!` silently), so
    editor features get types even for broken input; callers decide whether check issues
    count when the parse failed (cel-go does not check at all then).
    """
    checker = _Checker(parsed, env)
    if parsed.ast is None:
        return CheckedExpr(parsed, {}, {}, [], ERROR)
    checker.check(parsed.ast)
    checker.type_macro_calls()
    mapping = checker.mapping
    final = {
        node_id: (t.substitute(mapping, typ, True) if _has_type_params(typ) else typ)
        for node_id, typ in checker.types.items()
    }
    scopes = {
        cid: {
            name: (t.substitute(mapping, typ, True) if _has_type_params(typ) else typ)
            for name, typ in s.items()
        }
        for cid, s in checker.comp_scopes.items()
    }
    return CheckedExpr(
        parsed=parsed,
        types=final,
        references=checker.refs,
        issues=checker.issues,
        output_type=final.get(parsed.ast.id, ERROR),
        scopes=scopes,
    )
