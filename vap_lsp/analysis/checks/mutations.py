"""MutatingAdmissionPolicy mutations checked beyond the server: what fails only at admission.

The API server compiles mutations with a schemaless `Object` type and a `JSONPatch` type whose
fields are plain strings (reference §1.5), so a misspelt field, a type name off the field path,
or a JSON Pointer into nothing is accepted at create time and fails on every admission request.
Both patch types are checked here against the matched kinds' schemas:

- ApplyConfiguration: `Object{...}` literals. A nested `Object.<path>` type name must be the
  field path from its parent literal (the runtime's `CheckTypeNamesMatchFieldPathNames`; list
  and map elements keep the path of their field); field names must exist in the schema (server:
  `field not declared in schema`); values of a known type must fit the schema field's type.
- JSONPatch: `JSONPatch{...}` literals (and map literals with an `op` key) with literal `op`
  and `path`: a known operation, JSON Pointer syntax, path segments that exist in the schema,
  `from` for move/copy and `value` for add/replace/test. Computed paths (e.g. built with
  `jsonpatch.escapeKey`) are not checked.

All findings are warnings (hints when only some of several matched kinds are affected): the
server accepts the policy; admission requests fail.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.narrowing import Reachability
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping
from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    Expr,
    ListExpr,
    Literal,
    LiteralKind,
    MapExpr,
    ParsedExpr,
    StructExpr,
    StructField,
    children,
)
from vap_lsp.cel.compile import CompileResult
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.cel.types import DYN, Kind, ObjectType, Type
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.text import Span

CODE_APPLY = "map-apply-configuration"
CODE_JSON_PATCH = "map-json-patch"

OBJECT = "Object"
JSON_PATCH_OPS = ("add", "remove", "replace", "move", "copy", "test")
_NEEDS_FROM = frozenset({"move", "copy"})
_NEEDS_VALUE = frozenset({"add", "replace", "test"})
_APPENDS = frozenset({"add", "move", "copy"})  # operations whose `path` may end in `-`
_BAD_TILDE = re.compile(r"~(?![01])")
_INDEX = re.compile(r"[0-9]+")  # evanphx/json-patch parses indices with strconv.Atoi


@dataclass(frozen=True)
class _Finding:
    span: tuple[int, int]  # offsets in the site's text
    code: str
    message: str
    kinds: tuple[GVK, ...] = ()  # kinds the finding holds for; empty: kind-independent
    runs: int = 0  # for how many kinds the place can run (0: every kind)


ReachOf = Callable[[ExpressionSite, ParsedExpr, GVK], Reachability]
"""Which nodes of a site's parsed expression can run when `object` is of a kind (narrowing)."""


def check_mutations(
    compiled: Sequence[tuple[ExpressionSite, CompileResult]],
    matched: Sequence[KindTyping],
    reach_of: ReachOf | None = None,
) -> list[Diagnostic]:
    """Warnings for the mutations of one MAP (`compiled`: its create-time compile results;
    `matched`: the policy context's matched kinds, those with a schema checked against;
    `reach_of`: narrowing, so that a literal in a branch that cannot run for a kind, or under
    matchConditions that keep the kind out, is not checked against that kind)."""
    sites = [
        (site, result)
        for site, result in compiled
        if site.kind in (ExpressionKind.MAP_APPLY_CONFIGURATION, ExpressionKind.MAP_JSON_PATCH)
        and result.parsed.ast is not None
        and not any(i.phase in ("syntax", "check") for i in result.issues)
    ]
    if not sites:
        return []
    kinds = [(k.gvk, k.object_type) for k in matched if k.has_schema]
    diagnostics: list[Diagnostic] = []
    for site, result in sites:
        ast = result.parsed.ast
        assert ast is not None
        reach = {gvk: reach_of(site, result.parsed, gvk) for gvk, _ in kinds} if reach_of is not None else {}
        checker = _Walker(result, kinds, reach)
        if site.kind is ExpressionKind.MAP_APPLY_CONFIGURATION:
            checker.apply_configuration(ast)
        else:
            checker.json_patch(ast)
        for finding in checker.findings:
            diagnostics.append(_diagnostic(site, result, finding, len(kinds)))
    return diagnostics


def _diagnostic(site: ExpressionSite, result: CompileResult, finding: _Finding, n_kinds: int) -> Diagnostic:
    start, end = (o + result.offset for o in finding.span)
    end = min(max(end, start + 1), len(site.text))
    span: Span = site.node.source_span(start, end)
    severity = Severity.WARNING
    if finding.kinds and len(finding.kinds) < (finding.runs or n_kinds):
        severity = Severity.HINT  # the expression may be meant for the other kinds
    return Diagnostic(span, severity, finding.code, f"{site.field}: {finding.message}", field=site.field)


def _kinds_text(kinds: Sequence[GVK]) -> str:
    return "; ".join(str(k) for k in kinds)


def _did_you_mean(name: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


# --- schema navigation --------------------------------------------------------------------------


def _raw_fields(obj: ObjectType) -> dict[str, Type]:
    """Field types by JSON property name (the names a patch uses); a property the schema declares
    without a type (a Quantity, a map of them) is `dyn`: the merge takes any value there."""
    raw = obj.raw_names
    fields = {raw.get(name, name): decl.type for name, decl in obj.fields.items()}
    for name in obj.untyped_fields:
        fields.setdefault(raw.get(name, name), DYN)
    return fields


def _is_open(typ: Type) -> bool:
    """Schemas we cannot judge field names by: no declared properties (preserve-unknown-fields,
    or a free-form object) and the `{name, generateName}` stand-in for an undeclared `metadata`."""
    if not isinstance(typ, ObjectType):
        return True
    names = set(_raw_fields(typ))
    return not names or (typ.name.endswith(".metadata") and names <= {"name", "generateName"})


def _elements(typ: Type) -> Type:
    while typ.kind is Kind.LIST:
        typ = typ.elem_type
    return typ


def _resolve(root: Type, path: Sequence[str]) -> Type | None:
    """The schema type a type-name path denotes (lists are passed through, map keys consumed);
    None when the path leaves the schema or goes through `dyn`/an open object."""
    current = _elements(root)
    for segment in path:
        if current.kind is Kind.MAP:
            current = _elements(current.elem_type)
            continue
        if not isinstance(current, ObjectType) or _is_open(current):
            return None
        found = _raw_fields(current).get(segment)
        if found is None:
            return None
        current = _elements(found)
    return current


_COMPATIBLE: dict[Kind, frozenset[Kind]] = {
    # schema kind → CEL value kinds that convert to it (besides null and dyn)
    Kind.STRUCT: frozenset({Kind.STRUCT, Kind.MAP}),
    Kind.MAP: frozenset({Kind.STRUCT, Kind.MAP}),
    Kind.LIST: frozenset({Kind.LIST}),
    Kind.BOOL: frozenset({Kind.BOOL}),
    Kind.INT: frozenset({Kind.INT, Kind.UINT}),
    Kind.DOUBLE: frozenset({Kind.DOUBLE, Kind.INT, Kind.UINT}),
    # Quantity-like strings also take numbers; format date-time/duration/byte take their types.
    Kind.STRING: frozenset({Kind.STRING, Kind.INT, Kind.UINT, Kind.DOUBLE}),
    Kind.TIMESTAMP: frozenset({Kind.STRING, Kind.TIMESTAMP}),
    Kind.DURATION: frozenset({Kind.STRING, Kind.DURATION}),
    Kind.BYTES: frozenset({Kind.STRING, Kind.BYTES}),
}


def _fits(schema: Type, value: Type) -> bool:
    if value.kind in (Kind.DYN, Kind.ANY, Kind.ERROR, Kind.NULL, Kind.TYPE_PARAM, Kind.OPAQUE):
        return True
    allowed = _COMPATIBLE.get(schema.kind)
    return allowed is None or value.kind in allowed


def _schema_kind_name(typ: Type) -> str:
    return {Kind.STRUCT: "object", Kind.MAP: "map", Kind.LIST: "list"}.get(typ.kind, str(typ))


def _path_text(type_name: str) -> str:
    return type_name[len(OBJECT) + 1 :] if type_name.startswith(OBJECT + ".") else ""


# --- the walk -----------------------------------------------------------------------------------


def _is_object_literal(e: Expr) -> bool:
    return isinstance(e, StructExpr) and (e.type_name == OBJECT or e.type_name.startswith(OBJECT + "."))


def _string(e: Expr | None) -> str | None:
    if isinstance(e, Literal) and e.kind is LiteralKind.STRING and isinstance(e.value, str):
        return e.value
    return None


class _Walker:
    def __init__(
        self, result: CompileResult, kinds: list[tuple[GVK, Type]], reach: Mapping[GVK, Reachability]
    ) -> None:
        self.kinds = kinds
        self.reach = reach
        checked = result.checked
        self.types: Mapping[int, Type] = checked.types if checked is not None else {}
        self.findings: list[_Finding] = []

    def add(
        self, start: int, end: int, code: str, message: str, kinds: Sequence[GVK] = (), runs: int = 0
    ) -> None:
        self.findings.append(_Finding((start, end), code, message, tuple(kinds), runs))

    def _kinds_at(self, node: Expr) -> list[tuple[GVK, Type]]:
        """The kinds (with their root types) for which `node` can run."""
        return [
            (gvk, root)
            for gvk, root in self.kinds
            if gvk not in self.reach or self.reach[gvk].guard_of(node) is None
        ]

    # -- ApplyConfiguration ---------------------------------------------------------------------

    def apply_configuration(self, ast: Expr) -> None:
        for literal in self._roots(ast):
            self._object(literal, literal.type_name, CODE_APPLY, schema=True)

    def _roots(self, e: Expr) -> Iterator[StructExpr]:
        """Object literals not placed directly in another literal's field (their own names are
        the only context known)."""
        if _is_object_literal(e):
            assert isinstance(e, StructExpr)
            yield e
            return
        for child in children(e):
            yield from self._roots(child)

    def _object(self, literal: StructExpr, expected: str, code: str, *, schema: bool) -> None:
        name = literal.type_name.lstrip(".")
        if name != expected:
            start = literal.type_name_start
            self.add(
                start,
                start + len(literal.type_name),
                code,
                f'unexpected type name "{name}", expected "{expected}", which matches field name '
                "path from root Object type (fails at admission)",
            )
        path = [s for s in _path_text(expected).split(".") if s]
        if schema:
            self._fields_against_schema(literal, expected, path, code)
        for f in literal.fields:
            for nested in self._placed(f.value):
                self._object(nested, f"{expected}.{f.name}", code, schema=schema)
            for other in self._unplaced(f.value):
                self._object(other, other.type_name.lstrip("."), code, schema=schema)

    def _placed(self, e: Expr) -> Iterator[StructExpr]:
        """Object literals whose value lands in the field holding `e`: `e` itself, list
        elements, map values, conditional branches, list concatenations and `map()` results."""
        if _is_object_literal(e):
            assert isinstance(e, StructExpr)
            yield e
        elif isinstance(e, ListExpr):
            for elem in e.elements:
                yield from self._placed(elem)
        elif isinstance(e, MapExpr):
            for entry in e.entries:
                yield from self._placed(entry.value)
        elif isinstance(e, Call) and e.target is None and e.function in ("_?_:_", "_+_"):
            for arg in e.args[1:] if e.function == "_?_:_" else e.args:
                yield from self._placed(arg)
        elif isinstance(e, Comprehension):
            yield from self._placed(e.loop_step)
            yield from self._placed(e.result)

    def _unplaced(self, e: Expr) -> Iterator[StructExpr]:
        """Object literals inside `e` that `_placed` does not reach (arguments of calls…)."""
        placed_ids = {id(x) for x in self._placed(e)}
        stack = [e]
        while stack:
            node = stack.pop()
            if _is_object_literal(node):
                if id(node) not in placed_ids:
                    assert isinstance(node, StructExpr)
                    yield node
                continue
            stack.extend(children(node))

    def _fields_against_schema(self, literal: StructExpr, type_name: str, path: list[str], code: str) -> None:
        if not self.kinds:
            return
        where = _path_text(type_name) or "the object root"
        undefined: dict[str, tuple[StructField, list[GVK], list[str]]] = {}
        mismatched: dict[str, tuple[StructField, list[GVK], Type, Type]] = {}
        running = self._kinds_at(literal)
        for gvk, root in running:
            target = _resolve(root, path)
            if target is None:
                continue
            if target.kind is Kind.MAP:  # a map built as an object: field names are keys
                for f in literal.fields:
                    self._value_type(f, _elements(target.elem_type), gvk, mismatched)
                continue
            if not isinstance(target, ObjectType) or _is_open(target):
                continue
            fields = _raw_fields(target)
            for f in literal.fields:
                field_type = fields.get(f.name)
                if field_type is None:
                    undefined.setdefault(f.name, (f, [], sorted(fields)))[1].append(gvk)
                else:
                    self._value_type(f, field_type, gvk, mismatched)
        for name, (f, gvks, candidates) in undefined.items():
            self.add(
                f.name_start,
                f.name_start + len(name),
                code,
                f"undefined field '{name}' in {where} of {_kinds_text(gvks)}"
                f"{_did_you_mean(name, candidates)} (admission fails: field not declared in schema)",
                gvks,
                len(running),
            )
        for name, (f, gvks, schema_t, value_t) in mismatched.items():
            field_path = f"{_path_text(type_name)}.{name}".lstrip(".")
            self.add(
                f.value.start,
                f.value.end,
                code,
                f"field '{field_path}' of {_kinds_text(gvks)} is a {_schema_kind_name(schema_t)} "
                f"but the value is '{value_t}' (fails at admission)",
                gvks,
                len(running),
            )

    def _value_type(
        self,
        f: StructField,
        schema_t: Type,
        gvk: GVK,
        mismatched: dict[str, tuple[StructField, list[GVK], Type, Type]],
    ) -> None:
        value_t = self.types.get(f.value.id)
        if value_t is None or _fits(schema_t, value_t):
            return
        mismatched.setdefault(f.name, (f, [], schema_t, value_t))[1].append(gvk)

    # -- JSONPatch ------------------------------------------------------------------------------

    def json_patch(self, ast: Expr) -> None:
        stack: list[Expr] = [ast]
        while stack:
            node = stack.pop()
            if isinstance(node, StructExpr) and node.type_name.lstrip(".") == "JSONPatch":
                fields = {f.name: f.value for f in node.fields}
                self._patch(fields, node.type_name_start, len(node.type_name))
            elif isinstance(node, MapExpr):
                entries = {_string(e.key): e.value for e in node.entries}
                if "op" in entries and "path" in entries:
                    self._patch({k: v for k, v in entries.items() if k is not None}, node.start, 1)
            if _is_object_literal(node):
                assert isinstance(node, StructExpr)
                self._object(node, node.type_name.lstrip("."), CODE_JSON_PATCH, schema=False)
                continue  # nested literals were checked by _object
            stack.extend(children(node))

    def _patch(self, fields: Mapping[str, Expr], anchor: int, anchor_len: int) -> None:
        op_expr = fields.get("op")
        op = _string(op_expr)
        if op is not None and op_expr is not None and op not in JSON_PATCH_OPS:
            close = _did_you_mean(op, JSON_PATCH_OPS)
            self.add(
                op_expr.start,
                op_expr.end,
                CODE_JSON_PATCH,
                f"unknown JSON Patch operation '{op}'{close} (expected one of "
                f"{', '.join(JSON_PATCH_OPS)}; fails at admission)",
            )
            op = None
        if op is not None:
            for needed, ops in (("from", _NEEDS_FROM), ("value", _NEEDS_VALUE)):
                if op in ops and needed not in fields:
                    self.add(
                        anchor,
                        anchor + anchor_len,
                        CODE_JSON_PATCH,
                        f"JSON Patch '{op}' operation without '{needed}' (fails at admission)",
                    )
        for key in ("path", "from"):
            expr = fields.get(key)
            pointer = _string(expr)
            if expr is not None and pointer is not None:
                self._pointer(expr, key, pointer, op)

    def _pointer(self, expr: Expr, key: str, pointer: str, op: str | None) -> None:
        def warn(message: str) -> None:
            self.add(expr.start, expr.end, CODE_JSON_PATCH, f"JSON Patch {key} '{pointer}': {message}")

        if pointer and not pointer.startswith("/"):
            warn("a JSON Pointer must start with '/' (fails at admission)")
            return
        if _BAD_TILDE.search(pointer):
            warn("'~' must be followed by 0 or 1 in a JSON Pointer ('~0' is '~', '~1' is '/')")
            return
        segments = [s.replace("~1", "/").replace("~0", "~") for s in pointer.split("/")[1:]]
        if not self.kinds or not segments:
            return
        problems: dict[tuple[str, str], list[GVK]] = {}
        running = self._kinds_at(expr)
        for gvk, root in running:
            found = _pointer_problem(root, segments, appends=key == "path" and op in _APPENDS)
            if found is not None:
                problems.setdefault(found, []).append(gvk)
        for (problem, suggestion), gvks in problems.items():
            self.add(
                expr.start,
                expr.end,
                CODE_JSON_PATCH,
                f"JSON Patch {key} '{pointer}': {problem} in {_kinds_text(gvks)}{suggestion} "
                "(fails at admission)",
                gvks,
                len(running),
            )


def _pointer_problem(root: Type, segments: Sequence[str], *, appends: bool) -> tuple[str, str] | None:
    """Why a JSON Pointer does not lead into the schema (and a did-you-mean), or None."""
    current = root
    walked = ""
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if current.kind is Kind.LIST:
            if segment == "-":
                if not (last and appends):
                    where = walked or "/"
                    return f"'-' at {where} only appends (as the last segment of add, move or copy)", ""
            elif not _INDEX.fullmatch(segment):
                return f"{walked or '/'} is a list: '{segment}' is not an index or '-'", ""
            current = current.elem_type
        elif current.kind is Kind.MAP:
            current = current.elem_type
        elif isinstance(current, ObjectType):
            if _is_open(current):
                return None
            fields = _raw_fields(current)
            found = fields.get(segment)
            if found is None:
                return f"no field '{segment}' at {walked or '/'}", _did_you_mean(segment, sorted(fields))
            current = found
        else:
            return None  # dyn (int-or-string…) or a scalar: nothing more to judge
        walked += "/" + segment.replace("~", "~0").replace("/", "~1")
    return None


def mutations(context: PolicyContext) -> list[Diagnostic]:
    """The mutations of a MAP against the schema of each kind they can run for."""
    return check_mutations(
        context.create_time().results(), context.reaching_kinds, context.create_time_reachability
    )


CHECK = policy_check(
    "mutations",
    (CODE_APPLY, CODE_JSON_PATCH),
    "A MAP's Object{} literals and JSON patches against the schema of each kind they can mutate.",
    frozenset({PolicyKind.MAP}),
)(mutations)
