"""Structural checking of a YAML object against a built-in type, as the API server decodes it.

The server converts YAML to JSON (YAML 1.1 scalars, sigs.k8s.io/yaml) and decodes it into the Go
type with strict field validation, so the user sees three kinds of errors. We reproduce their
wording so what the editor shows matches what `kubectl apply` would say:

* ``unknown field "spec.validations[0].foo"`` (strict decoding; path with indices),
* ``duplicate field "spec.failurePolicy"``,
* ``json: cannot unmarshal array into Go struct field MatchResources.spec.matchConstraints.objectSelector
  of type v1.LabelSelector`` (encoding/json's UnmarshalTypeError: innermost Go struct, the JSON field
  path without indices, and the Go type being decoded into).

Go's decoder stops at its first type error; we report all of them, each worded as if it were first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from vap_lsp.schema.store import JsonDict, SchemaSet
from vap_lsp.schema.walk import (
    INT_OR_STRING,
    QUANTITY,
    accepts_anything,
    go_struct_name,
    go_type,
    is_int_or_string,
)
from vap_lsp.text import Span
from vap_lsp.yaml.model import AliasNode, MappingNode, Node, ScalarNode, ScalarStyle, SequenceNode
from vap_lsp.yaml.resolve import resolve_scalar

UNKNOWN_FIELD = "unknown-field"
DUPLICATE_FIELD = "duplicate-field"
TYPE_MISMATCH = "type-mismatch"
STRUCTURAL_CODES = (UNKNOWN_FIELD, DUPLICATE_FIELD, TYPE_MISMATCH)
"""Every code a structural issue can have."""

# Budget of visited nodes, so an alias bomb cannot make checking expensive.
NODE_BUDGET = 200_000

_QUANTITY_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)


@dataclass(frozen=True)
class StructuralIssue:
    span: Span
    message: str
    code: str  # "unknown-field" | "duplicate-field" | "type-mismatch"
    field: str  # dotted path with indices, e.g. "spec.validations[0].expression"


# Go named string types of admissionregistration fields, which OpenAPI flattens to "string".
# "{pkg}" is the definition's own package (v1, v1beta1, v1alpha1); some are aliases of v1 types.
_ADMISSION_NAMED: dict[str, str] = {
    "failurePolicy": "{pkg}.FailurePolicyType",
    "matchPolicy": "{pkg}.MatchPolicyType",
    "parameterNotFoundAction": "{pkg}.ParameterNotFoundActionType",
    "validationActions": "{pkg}.ValidationAction",
    "sideEffects": "{pkg}.SideEffectClass",
    "patchType": "{pkg}.PatchType",
    "reinvocationPolicy": "v1.ReinvocationPolicyType",
    "operations": "v1.OperationType",
    "scope": "v1.ScopeType",
    "reason": "v1.StatusReason",
}


def _named_string_type(definition: str, prop: str) -> str | None:
    """Go named type of a string (or []string element) field, where we know it."""
    if definition.startswith("io.k8s.api.admissionregistration."):
        template = _ADMISSION_NAMED.get(prop)
        if template:
            pkg = definition.rsplit(".", 2)[-2]
            return template.format(pkg=pkg)
    return None


def _resolve_scalar(node: ScalarNode) -> Any:
    return resolve_scalar(node)


def _json_number_text(value: int | float) -> str:
    """How the number reads in the JSON the server decodes (encoding/json float formatting)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


def _key_text(node: Node) -> str | None:
    """The JSON object key a YAML key becomes (sigs.k8s.io/yaml stringifies scalars)."""
    if not isinstance(node, ScalarNode):
        return None
    value = _resolve_scalar(node)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _json_number_text(value)
    return value if isinstance(value, str) else node.value


@dataclass(frozen=True)
class _Ctx:
    path: str  # with indices, for `unknown field` and StructuralIssue.field
    go_path: str  # JSON field names only, for UnmarshalTypeError.Field
    struct: str | None  # innermost Go struct holding the current field
    definition: str | None  # OpenAPI definition of that struct
    prop: str | None  # the current field's JSON name


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class _Checker:
    def __init__(self, schema_set: SchemaSet, directive: Callable[[str], bool] | None = None) -> None:
        self.ss = schema_set
        self.directive = directive
        self.issues: list[StructuralIssue] = []
        self.budget = NODE_BUDGET
        self.seen: set[tuple[int, int]] = set()

    # ---- reporting ----------------------------------------------------------------------------

    def _type_error(self, node: Node, got: str, schema: JsonDict, ctx: _Ctx) -> None:
        # The Go type name is only needed for a message, so it is computed only on error.
        target = self._field_go_type(schema, ctx)
        if ctx.struct is not None:
            where = f"Go struct field {ctx.struct}.{ctx.go_path}"
            msg = f"json: cannot unmarshal {got} into {where} of type {target}"
        else:
            msg = f"json: cannot unmarshal {got} into Go value of type {target}"
        self.issues.append(StructuralIssue(node.span, msg, TYPE_MISMATCH, ctx.path))

    # ---- walking ------------------------------------------------------------------------------

    def _deref(self, node: Node, schema: JsonDict) -> Node | None:
        """Follow aliases; a collection already checked under this schema is skipped (alias bombs)."""
        hops = 0
        while isinstance(node, AliasNode):
            if node.target is None or hops > 64:
                return None
            node = node.target
            hops += 1
        if isinstance(node, (MappingNode, SequenceNode)):
            key = (id(node), id(schema))
            if key in self.seen:
                return None
            self.seen.add(key)
        return node

    def check(self, node: Node, schema: JsonDict, ctx: _Ctx, shown: Node | None = None) -> None:
        """Check `node` against a field schema; `shown` is where to report (an alias, not its anchor)."""
        self.budget -= 1
        if self.budget < 0:
            return
        at = shown or node
        real = self._deref(node, schema)
        if real is None:
            return
        resolved = self.ss.resolve(schema)
        ref = schema.get("$ref")
        kind, value = self._json_kind(real)
        if kind == "null":
            return  # Go leaves the zero value
        if ref == QUANTITY:
            if kind not in ("string", "number"):
                self.issues.append(StructuralIssue(at.span, _QUANTITY_ERROR, TYPE_MISMATCH, ctx.path))
            return
        if ref == INT_OR_STRING or is_int_or_string(resolved):
            if kind == "string":
                return
            if kind == "number" and isinstance(value, (int, float)) and self._fits_int(value, "int32"):
                return
            got = f"number {_json_number_text(value)}" if kind == "number" else kind
            self.issues.append(
                StructuralIssue(
                    at.span,
                    f"json: cannot unmarshal {got} into Go value of type int32",
                    TYPE_MISMATCH,
                    ctx.path,
                )
            )
            return
        if resolved.get("format") in ("date-time", "date-time-micro") and isinstance(ref, str):
            # metav1.Time / MicroTime decode through their own UnmarshalJSON into a string first.
            if kind != "string":
                self.issues.append(
                    StructuralIssue(
                        at.span,
                        f"json: cannot unmarshal {kind} into Go value of type string",
                        TYPE_MISMATCH,
                        ctx.path,
                    )
                )
            return
        if accepts_anything(resolved):
            return
        t = resolved.get("type")
        if t == "object" and isinstance(resolved.get("properties"), dict):
            if not isinstance(real, MappingNode):
                self._type_error(at, kind, schema, ctx)
                return
            struct_def = ref if isinstance(ref, str) else ctx.definition
            self.check_struct(real, resolved, ctx, struct_def)
        elif t == "object":
            if not isinstance(real, MappingNode):
                self._type_error(at, kind, schema, ctx)
                return
            ap = resolved.get("additionalProperties")
            if isinstance(ap, dict):
                self.check_map(real, ap, ctx)
        elif t == "array":
            if not isinstance(real, SequenceNode):
                self._type_error(at, kind, schema, ctx)
                return
            items = resolved.get("items")
            if isinstance(items, dict):
                elem_ctx = ctx
                for i, item in enumerate(real.items):
                    elem_ctx = _Ctx(f"{ctx.path}[{i}]", ctx.go_path, ctx.struct, ctx.definition, ctx.prop)
                    self.check(item, items, elem_ctx, shown=item)
        elif t == "string":
            if resolved.get("format") == "byte" and kind == "array":
                return  # encoding/json fills a []byte from an array of numbers too
            if kind != "string":
                self._type_error(at, kind, schema, ctx)
        elif t == "integer":
            if kind != "number":
                self._type_error(at, kind, schema, ctx)
            elif not self._fits_int(value, str(resolved.get("format") or "int64")):
                self._type_error(at, f"number {_json_number_text(value)}", schema, ctx)
        elif t == "number":
            if kind != "number":
                self._type_error(at, kind, schema, ctx)
        elif t == "boolean" and kind != "bool":
            self._type_error(at, kind, schema, ctx)

    def _field_go_type(self, schema: JsonDict, ctx: _Ctx) -> str:
        """Go type of the value being decoded (a list element's type for items)."""
        named = _named_string_type(ctx.definition, ctx.prop) if ctx.definition and ctx.prop else None
        base = go_type(schema)
        if named and base.endswith("string"):
            return base[: -len("string")] + named
        return base

    @staticmethod
    def _fits_int(value: Any, fmt: str) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float):
            if not value.is_integer():
                return False
            value = int(value)
        bits = 32 if fmt == "int32" else 64
        return bool(-(2 ** (bits - 1)) <= value < 2 ** (bits - 1))

    def _json_kind(self, node: Node) -> tuple[str, Any]:
        if isinstance(node, MappingNode):
            return "object", None
        if isinstance(node, SequenceNode):
            return "array", None
        if isinstance(node, ScalarNode):
            value = _resolve_scalar(node)
            if value is None:
                return "null", None
            if isinstance(value, bool):
                return "bool", value
            if isinstance(value, (int, float)):
                return "number", value
            return "string", value
        return "null", None

    def _entries(self, node: MappingNode, depth: int = 0) -> Iterator[tuple[Node, Node, bool]]:
        """(key, value, explicit) entries, expanding YAML merge keys (`<<: *base`) after explicit ones."""
        merges: list[Node] = []
        for k, v in node.items:
            if (
                isinstance(k, ScalarNode)
                and k.value == "<<"
                and k.style is ScalarStyle.PLAIN
                and k.tag is None
            ):
                merges.append(v)
            else:
                yield k, v, True
        if depth > 16:
            return
        for m in merges:
            target = m.target if isinstance(m, AliasNode) else m
            sources = target.items if isinstance(target, SequenceNode) else [target]
            for src in sources:
                src = src.target if isinstance(src, AliasNode) else src
                if isinstance(src, MappingNode):
                    for k, v, _ in self._entries(src, depth + 1):
                        yield k, v, False

    def check_struct(self, node: MappingNode, schema: JsonDict, ctx: _Ctx, definition: str | None) -> None:
        props: dict[str, JsonDict] = schema.get("properties") or {}
        struct = go_struct_name(definition) if definition else ctx.struct
        seen: set[str] = set()
        for key_node, value, explicit in self._entries(node):
            name = _key_text(key_node)
            if name is None or (self.directive is not None and self.directive(name)):
                continue
            path = _join(ctx.path, name)
            if name in seen:
                if explicit:
                    self.issues.append(
                        StructuralIssue(key_node.span, f'duplicate field "{path}"', DUPLICATE_FIELD, path)
                    )
                else:
                    continue  # a merged key overridden by an explicit one
            seen.add(name)
            sub = props.get(name)
            if sub is None:
                self.issues.append(
                    StructuralIssue(key_node.span, f'unknown field "{path}"', UNKNOWN_FIELD, path)
                )
                continue
            self.check(
                value, sub, _Ctx(path, _join(ctx.go_path, name), struct, definition, name), shown=value
            )

    def check_map(self, node: MappingNode, value_schema: JsonDict, ctx: _Ctx) -> None:
        seen: set[str] = set()
        for key_node, value, explicit in self._entries(node):
            name = _key_text(key_node)
            if name is None or (self.directive is not None and self.directive(name)):
                continue
            path = _join(ctx.path, name)
            if name in seen:
                if explicit:
                    self.issues.append(
                        StructuralIssue(key_node.span, f'duplicate field "{path}"', DUPLICATE_FIELD, path)
                    )
                continue
            seen.add(name)
            self.check(
                value,
                value_schema,
                _Ctx(path, ctx.go_path, ctx.struct, ctx.definition, ctx.prop),
                shown=value,
            )


def check_structure(
    root: Node, schema_set: SchemaSet, definition: str, directive: Callable[[str], bool] | None = None
) -> list[StructuralIssue]:
    """Unknown fields, duplicate fields and Go decode type errors of `root` against `definition`.

    `definition` is an OpenAPI definition name, e.g. from `SchemaSet.definition_for_kind`. Issues
    come in document order. Keys for which `directive` is true are skipped (a strategic-merge
    patch's `$patch`, `$retainKeys`, ...).
    """
    checker = _Checker(schema_set, directive)
    schema = schema_set.definition(definition)
    if schema is None:
        return []
    real = root.target if isinstance(root, AliasNode) else root
    if real is None:
        return []
    ctx = _Ctx("", "", None, None, None)
    if not isinstance(real, MappingNode):
        kind, _ = checker._json_kind(real)
        if kind != "null":
            checker._type_error(root, kind, {"$ref": definition}, ctx)
        return checker.issues
    # apiVersion/kind are read first by the server's TypeMeta sniffing, into an anonymous struct.
    for key_node, value in real.items:
        name = _key_text(key_node)
        if name in ("apiVersion", "kind"):
            v = value.target if isinstance(value, AliasNode) else value
            if v is None:
                continue
            kind, _ = checker._json_kind(v)
            if kind not in ("string", "null"):
                checker.issues.append(
                    StructuralIssue(
                        value.span,
                        "couldn't get version/kind; json parse error: json: cannot unmarshal "
                        f"{kind} into Go struct field .{name} of type string",
                        TYPE_MISMATCH,
                        name,
                    )
                )
    schema_no_typemeta = dict(schema)
    props = dict(schema.get("properties") or {})
    for name in ("apiVersion", "kind"):
        props[name] = {}  # checked above
    schema_no_typemeta["properties"] = props
    checker.check_struct(real, schema_no_typemeta, ctx, definition)
    checker.issues.sort(key=lambda i: (i.span.start, i.span.end))
    return checker.issues


def check_value(node: Node, schema_set: SchemaSet, schema: JsonDict, path: str) -> list[StructuralIssue]:
    """The issues of `node` decoded as the field `schema` at `path` (a JSON patch's `value`)."""
    checker = _Checker(schema_set)
    checker.check(node, schema, _Ctx(path, path, None, None, None))
    checker.issues.sort(key=lambda i: (i.span.start, i.span.end))
    return checker.issues
