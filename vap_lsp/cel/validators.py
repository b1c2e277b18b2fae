"""cel-go's AST validators that Kubernetes enables (literals from compat 1.29, `format` strings).

Mirrors `google/cel-go cel/validator.go` (v0.26): `ValidateDurationLiterals`,
`ValidateTimestampLiterals`, `ValidateRegexLiterals`, `ValidateHomogeneousAggregateLiterals`,
added by `kubernetes/apiserver pkg/cel/environment/base.go` at 1.29. They run only on an
expression that type-checked without errors, and their messages are cel-go's:
`invalid duration argument`, `invalid timestamp argument`, `invalid matches argument` (at the
literal), `expected type 'int' but found 'string'` (at the first disagreeing element).

Literal values are judged as the runtime converts them (`vap_lsp.golang`): durations with
`time.ParseDuration`, timestamps with `time.Parse(time.RFC3339, …)` plus CEL's year 1–9999
range (the runtime's own `parse_timestamp`), regular expressions with Go's `regexp.Compile`.
The string `format` function is exempt from the homogeneous-literal check, as `ext.Strings`
(v1+) configures it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from vap_lsp.cel import types as t
from vap_lsp.cel.ast import Call, CelIssue, Expr, ListExpr, Literal, LiteralKind, MapExpr, children
from vap_lsp.cel.checker import CheckedExpr, CheckIssue
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.runtime.timefmt import parse_timestamp
from vap_lsp.cel.runtime.values import MAX_UNIX, MIN_UNIX
from vap_lsp.cel.types import Type
from vap_lsp.golang import regexp
from vap_lsp.golang.timefmt import parse_duration

__all__ = [
    "validate",
]

_HOMOGENEOUS_EXEMPT = frozenset({"format"})

# --- the validators ---------------------------------------------------------------------------------


def _timestamp_ok(arg: Literal) -> bool:
    if arg.kind is LiteralKind.STRING and isinstance(arg.value, str):
        return parse_timestamp(arg.value) is not None
    if arg.kind is LiteralKind.INT and isinstance(arg.value, int):
        return MIN_UNIX <= arg.value <= MAX_UNIX
    return arg.kind is not LiteralKind.NULL


def _duration_ok(arg: Literal) -> bool:
    if arg.kind is LiteralKind.STRING and isinstance(arg.value, str):
        return parse_duration(arg.value) is not None
    # `duration(int)` is declared but cannot be evaluated (no conversion from int).
    return arg.kind is not LiteralKind.INT


def _matches_ok(arg: Literal) -> bool:
    if arg.kind is LiteralKind.STRING and isinstance(arg.value, str):
        return regexp.compiles(arg.value)
    return True


_FORMAT_CHECKS = {
    "duration": _duration_ok,
    "timestamp": _timestamp_ok,
    "matches": _matches_ok,
}


def _post_order(checked: CheckedExpr) -> Iterator[tuple[Expr, tuple[str, ...]]]:
    """Nodes of the checked AST in cel-go's post-order, with the names of enclosing calls.

    The namespace part of a namespaced call (`sets` of `sets.contains`) is not an operand.
    """
    root = checked.parsed.ast
    if root is None:
        return
    refs = checked.references
    stack: list[tuple[Expr, tuple[str, ...], bool]] = [(root, (), False)]
    while stack:
        node, calls, expanded = stack.pop()
        if expanded:
            yield node, calls
            continue
        stack.append((node, calls, True))
        inner = calls
        kids = children(node)
        if isinstance(node, Call):
            ref = refs.get(node.id)
            inner = (*calls, ref.name if ref is not None and ref.kind == "function" else node.function)
            if node.target is not None:
                target_ref = refs.get(node.target.id)
                if target_ref is not None and target_ref.kind == "namespace":
                    kids = list(node.args)
        for kid in reversed(kids):
            stack.append((kid, inner, False))


def validate(checked: CheckedExpr, env: Environment) -> list[CelIssue]:
    """Issues of the AST validators, in cel-go's order.

    The literal validators exist from compat 1.29; the homogeneous-literal validator in every
    binary from 1.29 on (`cel.HomogeneousAggregateLiterals()` became a validator in cel-go 0.17;
    in 1.28 the checker itself enforces it).
    """
    parsed = checked.parsed
    issues: list[CelIssue] = []

    def report(node: Expr, message: str) -> None:
        loc = parsed.location(node)
        issues.append(CheckIssue(message, loc, max(node.end, loc), cel_message=message))

    nodes = list(_post_order(checked))
    if env.features.literal_validators:
        _literal_formats(checked, nodes, report)
    if env.features.homogeneous_aggregate_literals and env.minor >= 29:
        _homogeneous(checked, env, nodes, report)
    if env.find_function("format") is not None:
        _string_format(checked, nodes, report)
    return issues


def _literal_formats(
    checked: CheckedExpr,
    nodes: list[tuple[Expr, tuple[str, ...]]],
    report: Callable[[Expr, str], None],
) -> None:
    for fn_name, ok in _FORMAT_CHECKS.items():
        for node, _ in nodes:
            if not isinstance(node, Call) or not node.args:
                continue
            ref = checked.references.get(node.id)
            name = ref.name if ref is not None and ref.kind == "function" else node.function
            if name != fn_name:
                continue
            arg = node.args[0]
            if isinstance(arg, Literal) and not ok(arg):
                report(arg, f"invalid {fn_name} argument")


def _homogeneous(
    checked: CheckedExpr,
    env: Environment,
    nodes: list[tuple[Expr, tuple[str, ...]]],
    report: Callable[[Expr, str], None],
) -> None:
    exempt = _HOMOGENEOUS_EXEMPT if env.find_function("format") is not None else frozenset()
    types = checked.types
    for node, calls in nodes:
        if not isinstance(node, ListExpr) or any(c in exempt for c in calls):
            continue
        elem_type: Type | None = None
        optionals = set(node.optional_indices)
        for i, elem in enumerate(node.elements):
            et = types.get(elem.id, t.DYN)
            if i in optionals and et.params:
                et = et.params[0]
            if elem_type is None:
                elem_type = et
                continue
            if not t.is_equivalent_type(elem_type, et):
                report(elem, _mismatch(elem_type, et))
                break
    for node, calls in nodes:
        if not isinstance(node, MapExpr) or any(c in exempt for c in calls):
            continue
        key_type: Type | None = None
        val_type: Type | None = None
        for entry in node.entries:
            kt = types.get(entry.key.id, t.DYN)
            vt = types.get(entry.value.id, t.DYN)
            if entry.optional and vt.params:
                vt = vt.params[0]
            if key_type is None or val_type is None:
                key_type, val_type = kt, vt
                continue
            if not t.is_equivalent_type(key_type, kt):
                report(entry.key, _mismatch(key_type, kt))
            if not t.is_equivalent_type(val_type, vt):
                report(entry.value, _mismatch(val_type, vt))


# --- ext.Strings `format` validator (cel-go ext/formatting.go stringFormatValidator) ----------------


class _FormatError(Exception):
    """A clause/argument disagreement; `node` is the argument cel-go reports it at."""

    def __init__(self, message: str, node: Expr | None = None) -> None:
        super().__init__(message)
        self.node = node


_STRING_CLAUSE_KINDS = frozenset(
    {
        t.Kind.LIST,
        t.Kind.MAP,
        t.Kind.INT,
        t.Kind.UINT,
        t.Kind.DOUBLE,
        t.Kind.BOOL,
        t.Kind.STRING,
        t.Kind.TIMESTAMP,
        t.Kind.BYTES,
        t.Kind.DURATION,
        t.Kind.TYPE,
        t.Kind.NULL,
    }
)
_CLAUSES: dict[str, tuple[frozenset[t.Kind], str]] = {
    "d": (frozenset({t.Kind.INT, t.Kind.UINT}), "decimal clause can only be used on integers"),
    "f": (frozenset({t.Kind.DOUBLE, t.Kind.STRING}), "fixed-point clause can only be used on doubles"),
    "e": (frozenset({t.Kind.DOUBLE, t.Kind.STRING}), "scientific clause can only be used on doubles"),
    "b": (
        frozenset({t.Kind.INT, t.Kind.UINT, t.Kind.BOOL}),
        "only integers and bools can be formatted as binary",
    ),
    "x": (
        frozenset({t.Kind.INT, t.Kind.UINT, t.Kind.STRING, t.Kind.BYTES}),
        "only integers, byte buffers, and strings can be formatted as hex",
    ),
    "o": (frozenset({t.Kind.INT, t.Kind.UINT}), "octal clause can only be used on integers"),
}
_CLAUSES["X"] = _CLAUSES["x"]


def _string_format(
    checked: CheckedExpr,
    nodes: list[tuple[Expr, tuple[str, ...]]],
    report: Callable[[Expr, str], None],
) -> None:
    """`'<literal>'.format([<list literal>])`: clauses must suit the argument types."""
    for node, _ in nodes:
        if not isinstance(node, Call) or node.function != "format" or node.target is None:
            continue
        ref = checked.references.get(node.id)
        if ref is not None and ref.overload_ids and "string_format" not in ref.overload_ids:
            continue
        target = node.target
        if not (isinstance(target, Literal) and target.kind is LiteralKind.STRING):
            continue
        if len(node.args) != 1 or not isinstance(node.args[0], ListExpr):
            continue
        args = node.args[0].elements
        try:
            requested = _check_format_string(str(target.value), args, checked.types)
        except _FormatError as err:
            report(err.node if err.node is not None else node, str(err))
            continue
        if len(args) > requested:
            report(
                node,
                f"too many arguments supplied to string.format (expected {requested}, got {len(args)})",
            )


def _type_name(typ: Type) -> str:
    """cel-go `Type.TypeName()` (runtime names: `list`, `google.protobuf.Timestamp`)."""
    return typ.name


def _check_format_string(text: str, args: list[Expr], types: dict[int, Type]) -> int:
    """Walk the format string like `parseFormatString`; returns the number of clauses."""
    i = 0
    arg_index = 0
    requested = 0
    while i < len(text):
        if text[i] != "%":
            i += 1
            continue
        if i + 1 < len(text) and text[i + 1] == "%":
            i += 2
            continue
        requested += 1
        if i + 1 >= len(text):
            raise _FormatError("unexpected end of string")
        if arg_index >= len(args):
            raise _FormatError(f"index {arg_index} out of range")
        i += 1 + _check_clause(text[i + 1 :], args[arg_index], types)
        arg_index += 1
    return requested


def _check_clause(clause: str, arg: Expr, types: dict[int, Type]) -> int:
    i = 0
    if clause[0] == ".":
        i = 1
        while True:
            if i >= len(clause):
                raise _FormatError(
                    "could not parse formatting clause: error while parsing precision: "
                    "could not find end of precision specifier"
                )
            if not ("0" <= clause[i] <= "9"):
                break
            i += 1
        if i == 1:
            raise _FormatError(
                "could not parse formatting clause: error while parsing precision: error while "
                'converting precision to integer: strconv.Atoi: parsing "": invalid syntax'
            )
    verb = clause[i]
    i += 1
    if verb == "s":
        bad = _verify_string(arg, types)
        if bad is not None:
            raise _FormatError(
                "error during formatting: string clause can only be used on strings, bools, bytes, "
                "ints, doubles, maps, lists, types, durations, and timestamps, was given "
                f"{_type_name(types.get(bad.id, t.DYN))}",
                bad,
            )
        return i
    spec = _CLAUSES.get(verb)
    if spec is None:
        raise _FormatError(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')
    kinds, text = spec
    typ = types.get(arg.id, t.DYN)
    if typ.kind is not t.Kind.DYN and typ.kind not in kinds:
        raise _FormatError(f"error during formatting: {text}, was given {_type_name(typ)}", arg)
    return i


def _verify_string(arg: Expr, types: dict[int, Type]) -> Expr | None:
    """The (nested) argument a `%s` clause cannot print, or None."""
    typ = types.get(arg.id, t.DYN)
    if typ.kind is not t.Kind.DYN and typ.kind not in _STRING_CLAUSE_KINDS:
        return arg
    if isinstance(arg, ListExpr):
        for elem in arg.elements:
            bad = _verify_string(elem, types)
            if bad is not None:
                return bad
    elif isinstance(arg, MapExpr):
        for entry in arg.entries:
            bad = _verify_string(entry.key, types) or _verify_string(entry.value, types)
            if bad is not None:
                return bad
    return None


def _mismatch(expected: Type, actual: Type) -> str:
    return f"expected type '{t.format_cel_type(expected)}' but found '{t.format_cel_type(actual)}'"
