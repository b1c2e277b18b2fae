"""Values the type checker types as timestamps, durations or bytes that are strings at admission.

Admission policies read `object`, `oldObject`, `params` and `namespaceObject` as JSON-shaped
values (reference §1.2: `objectToResolveVal` → `runtime.DefaultUnstructuredConverter` up to
1.36, `SchemalessTypedToVal` in 1.37). A field the type checker types
`google.protobuf.Timestamp` (`format: date-time`/`date`: `metadata.creationTimestamp`, a
condition's `lastTransitionTime`), `google.protobuf.Duration` (`format: duration`) or `bytes`
(`format: byte`: a Secret's `data`, a ConfigMap's `binaryData`) is a plain string there (base64
for bytes). The server compiles for admission with `object`, `oldObject` and `params` as `dyn`,
and with `namespaceObject` declared by hand with timestamps (`BuildNamespaceType`), so
`object.metadata.creationTimestamp < timestamp('…')` passes its compiler and its type checker,
and fails whenever the field is present: no overload of `_<_` takes a string and a timestamp
(cel-go's "no such overload").

The check (`string-at-admission`, vap-lsp's own advice), per matched kind with a schema (or once
without one: `namespaceObject` and `params` may still be typed):
- the nodes whose value comes straight from those roots (field selections and indexes,
  iteration variables of comprehensions over them, `filter`/`map` results, optionals and their
  `orValue`/`value`, conditionals whose two branches do, list literals and concatenations of
  them, `variables.x` whose expression does) with one of the three static types;
- for each call taking such a node, the types its operands have at run time (a string for such
  a node, the static type for a value that is what its type says, else nothing is certain) and
  the overloads the server's own compile of the expression chose for that call (cel-go
  dispatches among those, each behind a guard on its argument types): when none takes those
  types, evaluating the call fails (warning). `timestamp()`, `duration()`, `string()` keep
  working on an `object` field (its compile has `dyn` there and picks the string overload), not
  on a `namespaceObject` one (declared `timestamp`: `timestamp(dyn(…))`);
- equality with a value of the typed kind (`object.data.k == b'…'`: always false, not an
  error), `in` a list of them, and `size()` of bytes (the base64 text's length) are hints.
Never in a branch narrowing rules out for the kind (`View.reachability`), one finding per node.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.analysis.model.context import PolicyContext, View
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping
from vap_lsp.cancel import checkpoint
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
    children,
)
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.library.decls import Overload
from vap_lsp.cel.types import (
    STRING,
    Kind,
    Type,
    TypeMapping,
    is_assignable,
    is_optional,
    substitute,
    type_string,
)
from vap_lsp.text import Span, shorten

__all__ = ["CODE", "JSON_ROOTS", "string_at_admission"]

CODE = "string-at-admission"

JSON_ROOTS = frozenset({"object", "oldObject", "params", "namespaceObject"})
"""The roots admission binds to JSON-shaped values (`request` is too, but its declared type has
no timestamp, duration or bytes field)."""

_STRING_AT_ADMISSION = frozenset({Kind.TIMESTAMP, Kind.DURATION, Kind.BYTES})
# What a JSON-shaped value of these static types is at run time (reference §1.2, §3): nothing
# else is certain (a `number` may hold an int, an object is a map).
_FAITHFUL = frozenset({Kind.INT, Kind.BOOL, Kind.STRING, Kind.NULL})
# Conversions build a value of their result type (or fail), whatever their argument was.
_CONVERSIONS = frozenset({"bool", "bytes", "double", "duration", "int", "string", "timestamp", "uint"})
# Calls that pass a value through (its static type says no more than the operand's), and those
# that never take one of our values as an operand that matters (logic, indexing by a key).
_PASS_THROUGH = frozenset({"_?_:_", "_[_]", "_[?_]", "orValue", "value", "dyn"})
_NOT_CHECKED = frozenset({"_&&_", "_||_", "!_", "@not_strictly_false", "_?_:_", "_[_]", "_[?_]"})
_SHOWN = {"@in": "in"}


@dataclass
class _Origin:
    """Where a JSON-shaped value comes from: its root and the variables it was read through."""

    root: str
    through: tuple[tuple[str, ExpressionSite], ...] = ()


def _faithful(t: Type) -> bool:
    if t.kind in _FAITHFUL:
        return True
    if t.kind in (Kind.LIST, Kind.MAP) or is_optional(t):
        return bool(t.params) and all(_faithful(p) for p in t.params)
    return False


class _Shapes:
    """Which nodes of one compile result hold values straight from a JSON root (`origins`), and
    which hold a value of their static type at run time (`holds`)."""

    def __init__(
        self,
        result: CompileResult,
        variable: Callable[[str], _Origin | None],
        variable_holds: Callable[[str], bool],
    ) -> None:
        checked = result.checked
        assert checked is not None
        self.parsed = result.parsed
        self.checked: CheckedExpr = checked
        self.variable = variable
        self.variable_holds = variable_holds
        self.origins: dict[int, _Origin] = {}
        if result.parsed.ast is not None:
            self._visit(result.parsed.ast, {})

    def _visit(self, node: Expr, scope: Mapping[str, _Origin | None]) -> _Origin | None:
        found = self._origin(node, scope)
        if found is not None:
            self.origins[node.id] = found
        return found

    def _origin(self, node: Expr, scope: Mapping[str, _Origin | None]) -> _Origin | None:
        refs = self.checked.references
        if isinstance(node, Ident):
            ref = refs.get(node.id)
            if ref is not None and ref.kind == "local":
                return scope.get(node.name)
            if ref is not None and ref.kind == "variable" and ref.name in JSON_ROOTS:
                return _Origin(ref.name)
            return None
        if isinstance(node, Select):
            operand = self._visit(node.operand, scope)
            ref = refs.get(node.id)
            if node.test_only or (ref is not None and ref.kind == "variable"):
                return None  # has(), or a declared dotted name (`authorizer.requestResource`)
            if _reads_variable(self.checked, node):
                return self.variable(node.field)
            return operand
        if isinstance(node, Call):
            target = self._visit(node.target, scope) if node.target is not None else None
            args = [self._visit(a, scope) for a in node.args]
            fn = node.function
            if node.target is None and fn in ("_[_]", "_[?_]") and len(args) == 2:
                return args[0]
            if node.target is not None and fn in ("orValue", "value"):
                return target
            if fn == "_?_:_" and len(args) == 3 and args[1] is not None and args[2] is not None:
                return args[1]
            typ = self.checked.type_of(node)
            if fn == "_+_" and typ is not None and typ.kind is Kind.LIST and all(args) and len(args) == 2:
                return args[0]
            return None
        if isinstance(node, Comprehension):
            return self._comprehension(node, scope)
        if isinstance(node, ListExpr):
            elements = [self._visit(e, scope) for e in node.elements]
            return elements[0] if elements and all(elements) else None
        for child in children(node):
            self._visit(child, scope)
        if isinstance(node, MapExpr):
            for entry in node.entries:
                self._visit(entry.key, scope)
                self._visit(entry.value, scope)
        return None

    def _comprehension(self, node: Comprehension, scope: Mapping[str, _Origin | None]) -> _Origin | None:
        source = self._visit(node.iter_range, scope)
        range_type = self.checked.type_of(node.iter_range)
        over_map = range_type is not None and range_type.kind is Kind.MAP
        inner = dict(scope)
        if node.iter_var2 is None:
            inner[node.iter_var] = None if over_map else source  # a map's keys, a list's elements
        else:
            inner[node.iter_var] = None  # the index or the key
            inner[node.iter_var2] = source
        inner[node.accu_var] = None
        self._visit(node.accu_init, scope)
        for part in (node.loop_condition, node.loop_step, node.result):
            self._visit(part, inner)
        macro = self.parsed.macro_calls.get(node.id)
        if macro is None or macro.target is None or not macro.args:
            return None
        if macro.function == "filter" and not over_map:
            return source
        if macro.function == "map":
            return self.origins.get(macro.args[-1].id)
        return None

    def formatted(self, node: Expr) -> bool:
        """Typed timestamp, duration or bytes, and a string at run time."""
        typ = self.checked.type_of(node)
        return node.id in self.origins and typ is not None and typ.kind in _STRING_AT_ADMISSION

    def holds(self, node: Expr) -> bool:
        """Whether `node`'s value at run time (when it has one) is of its static type."""
        typ = self.checked.type_of(node)
        if typ is None or typ.kind in (Kind.DYN, Kind.ERROR, Kind.TYPE_PARAM, Kind.ANY):
            return False
        if _faithful(typ) or isinstance(node, Literal):
            return True
        if isinstance(node, Call):
            if node.target is None and node.function in _CONVERSIONS:
                return True
            if node.function in _PASS_THROUGH:
                return False
            return all(self.holds(o) for o in _operands(node))
        if isinstance(node, ListExpr):
            return all(self.holds(e) for e in node.elements)
        if isinstance(node, MapExpr):
            return all(self.holds(e.key) and self.holds(e.value) for e in node.entries)
        if isinstance(node, Select) and not node.test_only and _reads_variable(self.checked, node):
            return self.variable_holds(node.field)  # `variables.cutoff`: `timestamp('…')`
        return False

    def runtime_type(self, node: Expr) -> Type | None:
        """The type `node` has at run time, when certain."""
        if self.formatted(node):
            return STRING
        return self.checked.type_of(node) if self.holds(node) else None


def _reads_variable(checked: CheckedExpr, node: Select) -> bool:
    """`variables.<name>` (not a comprehension variable named `variables`)."""
    holder = checked.references.get(node.operand.id)
    return (
        isinstance(node.operand, Ident)
        and node.operand.name == "variables"
        and holder is not None
        and holder.kind == "variable"
    )


def _operands(call: Call) -> list[Expr]:
    return ([call.target] if call.target is not None else []) + list(call.args)


@dataclass
class _Finding:
    site: ExpressionSite
    span: Span
    severity: Severity
    text: str
    related: tuple[Related, ...]
    call: tuple[int, int, str]
    """The call's (start, end, function) in the compiled text: where the finding runs."""
    gvks: list[str] = field(default_factory=list)


class _Checker:
    """One policy's findings over every kind pass."""

    def __init__(self, context: PolicyContext) -> None:
        self.context = context
        self.create = context.create_time()
        self.found: dict[tuple[object, ...], _Finding] = {}
        self._shapes: dict[tuple[int, int], _Shapes] = {}

    # --- which view, which variables ------------------------------------------------------------

    def view_for(self, kind: KindTyping | None, site: ExpressionSite) -> View:
        """The type-check view (the precise one where the expression reads variables, which it
        types as their expressions infer; create time without a schema)."""
        if "variables" in site.text:
            return self.context.view("precise", kind)
        return self.context.server_view(kind)

    def shapes(self, view: View, site: ExpressionSite) -> _Shapes | None:
        key = (id(view), id(site))
        hit = self._shapes.get(key)
        if hit is not None:
            return hit
        result = view.result(site)
        if result.checked is None:
            return None
        built = _Shapes(
            result,
            lambda name: self._variable_origin(view, site, name),
            lambda name: self._variable_holds(view, site, name),
        )
        self._shapes[key] = built
        return built

    def _variable(
        self, view: View, reader: ExpressionSite, name: str
    ) -> tuple[ExpressionSite, _Shapes, Expr] | None:
        """The variable `variables.<name>` read in `reader` is (a later one of the same name
        wins, a variable sees only those before it), with its expression's shapes in the precise
        view (where variables are typed as their expressions infer) and its root node."""
        found: ExpressionSite | None = None
        for site in self.context.sites:  # variables come before every site that can read them
            if site is reader:
                break
            if site.kind is ExpressionKind.VARIABLE and site.name == name:
                found = site
        if found is None:
            return None
        own = self.context.view("precise", view.kind)
        shapes = self.shapes(own, found)
        ast = own.result(found).parsed.ast
        return (found, shapes, ast) if shapes is not None and ast is not None else None

    def _variable_origin(self, view: View, reader: ExpressionSite, name: str) -> _Origin | None:
        """Where `variables.<name>` comes from: its expression's root, through the variable
        itself first."""
        variable = self._variable(view, reader, name)
        origin = variable[1].origins.get(variable[2].id) if variable is not None else None
        if variable is None or origin is None:
            return None
        return _Origin(origin.root, ((name, variable[0]), *origin.through))

    def _variable_holds(self, view: View, reader: ExpressionSite, name: str) -> bool:
        """Whether `variables.<name>` holds a value of its static type at run time."""
        variable = self._variable(view, reader, name)
        return variable is not None and variable[1].holds(variable[2])

    # --- the check ------------------------------------------------------------------------------

    def check_site(self, kind: KindTyping | None, site: ExpressionSite) -> None:
        server = self.create.result(site)
        if not server.ok or server.checked is None:
            return  # the server rejects the policy: errors are reported
        view = self.view_for(kind, site)
        result = view.result(site)
        checked = result.checked
        if checked is None or not any(t.kind in _STRING_AT_ADMISSION for t in checked.types.values()):
            return
        shapes = self.shapes(view, site)
        if shapes is None or not shapes.origins:
            return
        reach = view.reachability(site)
        # The same text parses to the same nodes (ids and spans) in every view.
        server_nodes = {n.id: n for n in server.parsed.walk() if isinstance(n, Expr)}
        env = self.create.environment(site)
        parents = {o.id: n for n in result.parsed.walk() if isinstance(n, Call) for o in _operands(n)}
        for node in result.parsed.walk():
            if not isinstance(node, Call) or node.function in _NOT_CHECKED:
                continue
            operands = _operands(node)
            subjects = [o for o in operands if shapes.formatted(o)]
            if not subjects or reach.guard_of(node) is not None:
                continue
            ref = checked.references.get(node.id)
            if ref is None or ref.kind != "function" or not ref.overload_ids:
                continue  # it does not type-check: the type checks say so
            runtime = [shapes.runtime_type(o) for o in operands]
            if any(t is None for t in runtime):
                continue
            known = [t for t in runtime if t is not None]
            if node.function == "size" and _emptiness_test(parents.get(node.id), node):
                continue  # `size(x) > 0`: base64 text is empty exactly when the bytes are
            finding = self._judge(
                site, result, shapes, node, subjects, known, server.checked, server_nodes, env
            )
            if finding is None:
                continue
            key = (site.path, finding.span.start, finding.span.end, node.function)
            entry = self.found.setdefault(key, finding)
            if kind is not None:
                entry.gvks.append(str(kind.gvk))

    def _judge(
        self,
        site: ExpressionSite,
        result: CompileResult,
        shapes: _Shapes,
        call: Call,
        subjects: list[Expr],
        runtime: list[Type],
        server_checked: CheckedExpr,
        server_nodes: Mapping[int, Expr],
        env: Environment,
    ) -> _Finding | None:
        subject = subjects[0]
        static = shapes.checked.type_of(subject)
        origin = shapes.origins[subject.id]
        assert static is not None
        text = _written(result, subject)
        conversions = []
        for each in subjects:
            # What the server's compile types the value as: `dyn` for object fields, so
            # timestamp() picks its string overload; `timestamp` for namespaceObject's, which
            # needs dyn() first.
            server_node = _same(server_nodes, each)
            server_type = server_checked.type_of(server_node) if server_node is not None else None
            typed = server_type is not None and server_type.kind is not Kind.DYN
            ref = shapes.checked.references.get(each.id)
            date = ref is not None and ref.field is not None and ref.field.format == "date"
            each_type = shapes.checked.type_of(each) or static
            conversions.append(_conversion(each_type, _written(result, each), typed, date))
        convert = _converted(static, conversions)
        source = f"policies read {origin.root} as JSON"
        if origin.through:
            steps = ", ".join(f"variables.{name}" for name, _ in origin.through)
            source = f"it comes from {origin.root} through {steps}, and {source}"
        head = f"{site.field}: {text} is typed {type_string(static)} but is a string at admission ({source})"
        fn = call.function
        shown = _SHOWN.get(fn, fn)
        severity = Severity.HINT
        if fn in ("_==_", "_!=_"):
            other = runtime[1] if call.args[0] is subject else runtime[0]
            if len([o for o in call.args if shapes.formatted(o)]) != 1 or other.kind in (
                Kind.STRING,
                Kind.DYN,
                Kind.NULL,
            ):
                return None
            verdict = "false" if fn == "_==_" else "true"
            literal = next((a for a in call.args if a is not subject), None)
            fix = _equality_fix(static, text, convert, literal)
            detail = (
                f"'{shown}' with a {type_string(other)} value is always {verdict} there (CEL's "
                f"equality across types is false, not an error); {fix}"
            )
        elif fn == "@in":
            container = runtime[1]
            if call.args[0] is not subject or container.kind not in (Kind.LIST, Kind.MAP):
                return None
            element = container.params[0] if container.params else None
            if element is None or element.kind in (Kind.STRING, Kind.DYN):
                return None
            detail = (
                f"'{shown}' a {type_string(container)} is always false there (CEL's equality across "
                f"types is false, not an error); {_equality_fix(static, text, convert, None)}"
            )
        elif fn == "size" and static.kind is Kind.BYTES:
            detail = "size() counts the characters of its base64 text (4 for every 3 bytes), not its bytes"
        else:
            server_call = _same(server_nodes, call)
            if not isinstance(server_call, Call) or server_call.function != fn:
                return None
            server_ref = server_checked.references.get(server_call.id)
            if server_ref is None or server_ref.kind != "function":
                return None
            receiver = call.target is not None
            overloads = _overloads(env, server_ref.name, server_ref.overload_ids)
            if not overloads or any(_accepts(o, receiver, runtime) for o in overloads):
                return None
            signature = _signature(runtime, receiver)
            detail = (
                f"'{shown}' applied to {signature} has no overload, so it fails with \"no such "
                f'overload" whenever it is present; {convert}'
            )
            severity = Severity.WARNING
            if site.kind is ExpressionKind.MESSAGE_EXPRESSION:
                severity = Severity.HINT
                detail += " (a failing messageExpression falls back to message)"
        start, end = subject.start + result.offset, subject.end + result.offset
        related = tuple(
            Related(var.node.span, f"`variables.{name}` is defined here: {shorten(var.text, 100)}")
            for name, var in origin.through
        )
        return _Finding(
            site,
            site.node.source_span(start, end),
            severity,
            f"{head}: {detail}",
            related,
            (call.start, call.end, fn),
        )

    def runs_for(self, finding: _Finding) -> int:
        """For how many kinds with a schema the finding's call can run."""
        count = 0
        for kind in (k for k in self.context.kinds if k.has_schema):
            view = self.view_for(kind, finding.site)
            result = view.result(finding.site)
            reach = view.reachability(finding.site)
            start, end, fn = finding.call
            node = next(
                (
                    n
                    for n in result.parsed.walk()
                    if isinstance(n, Call) and (n.start, n.end, n.function) == (start, end, fn)
                ),
                None,
            )
            if node is None or reach.guard_of(node) is None:
                count += 1
        return count


_RELATIONS = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"})


def _emptiness_test(parent: Call | None, size: Call) -> bool:
    """`size(x)` compared with 0: the same verdict for the base64 text as for the bytes."""
    if parent is None or parent.function not in _RELATIONS or len(parent.args) != 2:
        return False
    other = parent.args[1] if parent.args[0] is size else parent.args[0]
    return isinstance(other, Literal) and other.kind is LiteralKind.INT and other.value == 0


def _same(nodes: Mapping[int, Expr], node: Expr) -> Expr | None:
    """`node` in another compile of the same text (same id and span), or None."""
    found = nodes.get(node.id)
    return found if found is not None and (found.start, found.end) == (node.start, node.end) else None


def _written(result: CompileResult, node: Expr) -> str:
    return shorten(result.compiled_text[node.start : node.end], 100)


def _conversion(static: Type, text: str, server_typed: bool, date: bool = False) -> str:
    """The value read as what it is: `timestamp(x)`, `duration(x)`, `string(x)` (base64 text).
    A `format: date` value (`2024-05-01`) is no RFC 3339 timestamp: it gets a time first,
    through `string()` so that the type checker, which sees a timestamp, accepts the `+`."""
    inner = f"dyn({text})" if server_typed else text
    if static.kind is Kind.TIMESTAMP and date:
        return f"timestamp(string({inner}) + 'T00:00:00Z')"
    if static.kind is Kind.TIMESTAMP:
        return f"timestamp({inner})"
    if static.kind is Kind.DURATION:
        return f"duration({inner})"
    return f"string({inner})"


def _converted(static: Type, conversions: list[str]) -> str:
    """The fix: each operand read as what it is."""
    what = " and ".join(f"`{c}`" for c in conversions)
    if static.kind is Kind.BYTES:
        return (
            f"it holds the base64 text: read it as {what} (base64.decode() is not in Kubernetes' CEL "
            "environment)"
        )
    return f"convert it: {what}" if len(conversions) == 1 else f"convert them: {what}"


def _equality_fix(static: Type, text: str, convert: str, other: Expr | None) -> str:
    if static.kind is Kind.BYTES and isinstance(other, Literal) and other.kind is LiteralKind.BYTES:
        value = other.value if isinstance(other.value, bytes) else str(other.value).encode()
        encoded = base64.b64encode(value).decode("ascii")
        return f"compare `string({text})` with the base64 text, '{encoded}'"
    return convert


def _signature(types: list[Type], receiver: bool) -> str:
    """cel-go's form of an argument list: `(string, google.protobuf.Timestamp)`, `string.()`."""
    if receiver:
        head, rest = types[0], types[1:]
        return f"{type_string(head)}.({', '.join(type_string(t) for t in rest)})"
    return f"({', '.join(type_string(t) for t in types)})"


def _overloads(env: Environment, name: str, ids: Iterable[str]) -> list[Overload]:
    wanted = set(ids)
    out: dict[str, Overload] = {}
    for nested in (False, True):
        decl = env.find_function(name, nested_scope=nested)
        for overload in decl.overloads if decl is not None else ():
            if overload.id in wanted:
                out.setdefault(overload.id, overload)
    return list(out.values())


def _accepts(overload: Overload, receiver: bool, types: list[Type]) -> bool:
    """Whether cel-go's guard on `overload` lets arguments of `types` through (its type
    parameters take anything at run time)."""
    if overload.receiver_style != receiver or len(overload.params) != len(types):
        return False
    params = [substitute(TypeMapping(), p, True) for p in overload.params]
    return all(is_assignable(TypeMapping(), p, a) is not None for p, a in zip(params, types, strict=True))


def string_at_admission(context: PolicyContext) -> list[Diagnostic]:
    """The `string-at-admission` findings of one policy (see the module docstring)."""
    if not context.sites:
        return []
    checker = _Checker(context)
    kinds: list[KindTyping | None] = [k for k in context.kinds if k.has_schema] or [None]
    for kind in kinds:
        for site in context.sites:
            checkpoint()
            checker.check_site(kind, site)
    out: list[Diagnostic] = []
    typed = len([k for k in kinds if k is not None])
    for finding in checker.found.values():
        severity = finding.severity
        text = finding.text
        if finding.gvks and typed and len(finding.gvks) < checker.runs_for(finding):
            severity = Severity.HINT
            text += f" (typed so for {'; '.join(finding.gvks)} only)"
        out.append(
            Diagnostic(finding.span, severity, CODE, text, field=finding.site.field, related=finding.related)
        )
    return out


CHECK = policy_check(
    "string-at-admission",
    (CODE,),
    "Timestamp, duration and bytes fields used as such although admission hands them over as "
    "strings: a call no overload of which takes a string fails at admission.",
)(string_at_admission)
