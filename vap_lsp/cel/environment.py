"""The CEL environment the API server compiles an admission-policy expression in.

Mirrors `kubernetes/apiserver`:
* `pkg/admission/plugin/cel/compile.go` — declared variables (`createEnvForOpts`), the
  hand-built `kubernetes.AdmissionRequest` / `kubernetes.Namespace` types, the result-type check;
* `pkg/admission/plugin/cel/composition.go` — `variables` as an object type `kubernetes.variables`;
* `pkg/cel/environment/{base,environment}.go` — libraries per version and env type;
* `pkg/cel/mutation/*` — the MAP `Object` / `JSONPatch` types;
* `pkg/cel/common/schemas.go`, `pkg/cel/escaping.go`, `pkg/cel/openapi/resolver/refs.go` —
  OpenAPI schema → CEL type (`schema_to_type`).
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections import ChainMap
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from vap_lsp.cel import library as lib
from vap_lsp.cel import types as t
from vap_lsp.cel.library import kubernetes as k8slib
from vap_lsp.cel.library.decls import BASE_TYPES as _BASE_TYPES
from vap_lsp.cel.library.decls import FunctionDecl, MacroDecl, NamedTypes, Overload, Since, minor_of
from vap_lsp.cel.types import DYN, FieldDecl, ObjectType, Type
from vap_lsp.lru import LruCache

Mode = Literal["new", "stored"]
"""`new`: NewExpressions env (create, or update of a changed expression); `stored`: the
StoredExpressions env (runtime, type-check controller, unchanged expressions on update)."""

# --- MAP patch types (pkg/cel/mutation) --------------------------------------------------------

OBJECT_TYPE_NAME = "Object"
PATCH_OBJECT = ObjectType(OBJECT_TYPE_NAME, open_field_type=DYN)
JSONPATCH = ObjectType(
    "JSONPatch",
    {
        "op": FieldDecl(t.STRING, "the JSON Patch operation: add, remove, replace, move, copy or test"),
        "path": FieldDecl(t.STRING, "the JSON Pointer to the target location"),
        "from": FieldDecl(t.STRING, "the source JSON Pointer for move and copy"),
        "value": FieldDecl(DYN, "the value to add, replace or test"),
    },
    # JSONPatchType.Field reports every name as found, with a nil type for unknown ones: the
    # checker then rejects any non-dyn value (`expected type of field 'x' is '' but provided
    # type is 'int'`), and unknown names fail at runtime.
    open_field_type=t.UNSPECIFIED,
)


def patch_object_type(name: str) -> ObjectType | None:
    """`Object` and `Object.<a>.<b>…` resolve to schemaless types (`DynamicTypeResolver`)."""
    if name == OBJECT_TYPE_NAME or name.startswith(OBJECT_TYPE_NAME + "."):
        return ObjectType(name, open_field_type=DYN)
    return None


# --- Protobuf well-known types (cel-go's default registry) ------------------------------------
#
# Kubernetes' DeclTypeProvider passes names it does not know on to cel-go's registry, whose
# protobuf database always holds any, duration, empty, struct, timestamp and wrappers
# (`common/types/pb/pb.go`); `NewObjectType` turns those names into CEL types
# (`common/types/types.go` checkedWellKnowns). Their message fields serve struct creation.

_WRAPPED = {
    "Bool": t.BOOL,
    "Bytes": t.BYTES,
    "Double": t.DOUBLE,
    "Float": t.DOUBLE,
    "Int32": t.INT,
    "Int64": t.INT,
    "String": t.STRING,
    "UInt32": t.UINT,
    "UInt64": t.UINT,
}
_JSON_STRUCT = t.map_of(t.STRING, DYN)
_JSON_LIST = t.list_of(DYN)

WELL_KNOWN_TYPES: Mapping[str, Type] = {
    **{f"google.protobuf.{n}Value": t.wrapper_of(p) for n, p in _WRAPPED.items()},
    "google.protobuf.Any": t.ANY,
    "google.protobuf.Duration": t.DURATION,
    "google.protobuf.Timestamp": t.TIMESTAMP,
    "google.protobuf.ListValue": _JSON_LIST,
    "google.protobuf.Struct": _JSON_STRUCT,
    "google.protobuf.Value": DYN,
}
"""Well-known type name → the CEL type it denotes (as a type identifier: `type(T)`)."""


def _message(name: str, spec: Mapping[str, Type]) -> ObjectType:
    return ObjectType(f"google.protobuf.{name}", {n: FieldDecl(typ) for n, typ in spec.items()})


_SECONDS_NANOS = {"seconds": t.INT, "nanos": t.INT}
WELL_KNOWN_MESSAGES: Mapping[str, ObjectType] = {
    m.name: m
    for m in (
        *(_message(f"{n}Value", {"value": p}) for n, p in _WRAPPED.items()),
        _message("Any", {"type_url": t.STRING, "value": t.BYTES}),
        _message("Duration", _SECONDS_NANOS),
        _message("Timestamp", _SECONDS_NANOS),
        _message("Empty", {}),
        _message("ListValue", {"values": _JSON_LIST}),
        _message("Struct", {"fields": _JSON_STRUCT}),
        _message(
            "Value",
            {
                "null_value": t.INT,
                "number_value": t.DOUBLE,
                "string_value": t.STRING,
                "bool_value": t.BOOL,
                "struct_value": _JSON_STRUCT,
                "list_value": _JSON_LIST,
            },
        ),
    )
}
"""The protobuf messages by full name, with their fields as CEL types (enums are `int`)."""

WELL_KNOWN_CONSTANTS: Mapping[str, Type] = {"google.protobuf.NullValue.NULL_VALUE": t.INT}
"""Enum values of the registry, usable as identifiers (`EnumValue` → an int constant)."""


# --- Expression kinds ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _KindInfo:
    result_types: tuple[Type, ...] | None  # None: any type accepted
    has_authorizer: bool
    composited: bool  # always compiled with `variables` declared
    stateless: bool  # never has `variables`
    patch_types: bool


class ExpressionKind(enum.Enum):
    """Where an expression sits in a policy; decides variables and the required result type."""

    VALIDATION = "validation"
    MESSAGE_EXPRESSION = "messageExpression"
    AUDIT_ANNOTATION = "auditAnnotation"
    MATCH_CONDITION = "matchCondition"
    VARIABLE = "variable"
    MAP_APPLY_CONFIGURATION = "applyConfiguration"
    MAP_JSON_PATCH = "jsonPatch"

    @property
    def info(self) -> _KindInfo:
        return _KIND_INFO[self]

    @property
    def result_types(self) -> tuple[Type, ...] | None:
        """Accepted output types (`ReturnTypes()` of the accessor), compared exactly; None = any."""
        return self.info.result_types


_KIND_INFO: dict[ExpressionKind, _KindInfo] = {
    ExpressionKind.VALIDATION: _KindInfo((t.BOOL,), True, False, False, False),
    ExpressionKind.MESSAGE_EXPRESSION: _KindInfo((t.STRING,), False, False, False, False),
    ExpressionKind.AUDIT_ANNOTATION: _KindInfo((t.STRING, t.NULL), True, False, False, False),
    ExpressionKind.MATCH_CONDITION: _KindInfo((t.BOOL,), True, False, True, False),
    ExpressionKind.VARIABLE: _KindInfo(None, True, True, False, False),
    ExpressionKind.MAP_APPLY_CONFIGURATION: _KindInfo((PATCH_OBJECT,), True, True, False, True),
    ExpressionKind.MAP_JSON_PATCH: _KindInfo((t.list_of(JSONPATCH),), True, True, False, True),
}


def result_type_error(kind: ExpressionKind, output: Type, kubernetes_version: str) -> str | None:
    """The `compile.go` result-type error detail, or None if `output` is accepted.

    The check is exact (`IsExactType`): `dyn` is not `bool`. Since 1.32 the text ends with
    `but got <T>` (commit 0e6467b2); types print with cel-go `Type.String()`.
    """
    accepted = kind.result_types
    if accepted is None or any(t.is_exact_type(output, r) for r in accepted):
        return None
    if len(accepted) == 1:
        reason = f"must evaluate to {t.type_string(accepted[0])}"
    else:
        reason = f"must evaluate to one of {t.go_list_string(accepted)}"
    if minor_of(kubernetes_version) >= 32:
        reason += f" but got {t.type_string(output)}"
    return reason


# --- Hand-built admission types (compile.go BuildRequestType / BuildNamespaceType) --------------


def _object(name: str, spec: str, docs: Mapping[str, str] | None = None) -> ObjectType:
    """An object type from `field:type` items; a trailing `?` marks a field not required."""
    fields: dict[str, FieldDecl] = {}
    for item in spec.split(";"):
        field_name, _, type_text = (part.strip() for part in item.partition(":"))
        optional = field_name.endswith("?")
        field_name = field_name.rstrip("?")
        fields[field_name] = FieldDecl(
            _NAMED.parse(type_text),
            (docs or {}).get(field_name, ""),
            required=not optional,
        )
    result = ObjectType(name, fields)
    _REGISTERED[name] = result
    return result


_REGISTERED: dict[str, Type] = {}
_NAMED = NamedTypes(ChainMap(_REGISTERED, _BASE_TYPES, k8slib.LIBRARY_TYPES))

_GVK = _object("kubernetes.GroupVersionKind", "group: string; version: string; kind: string")
_GVR = _object("kubernetes.GroupVersionResource", "group: string; version: string; resource: string")
_USER_INFO = _object(
    "kubernetes.UserInfo",
    "username?: string; uid?: string; groups?: list(string); extra?: map(string, list(string))",
)
REQUEST_TYPE = _object(
    "kubernetes.AdmissionRequest",
    "kind: kubernetes.GroupVersionKind; resource: kubernetes.GroupVersionResource; subResource?: string;"
    "requestKind: kubernetes.GroupVersionKind; requestResource: kubernetes.GroupVersionResource;"
    "requestSubResource?: string; name: string; namespace?: string; operation: string;"
    "userInfo: kubernetes.UserInfo; dryRun?: bool; options?: dyn",
    {
        "kind": "the matched (equivalent) kind of the object",
        "resource": "the matched (equivalent) resource",
        "subResource": "the subresource, '' or absent for the main resource",
        "requestKind": "the kind of the original request",
        "requestResource": "the resource of the original request",
        "requestSubResource": "the subresource of the original request",
        "name": "the object's name ('' or absent when the server generates it)",
        "namespace": "the namespace; absent for cluster-scoped resources",
        "operation": "CREATE, UPDATE, DELETE or CONNECT",
        "userInfo": "the requesting user",
        "dryRun": "whether the request is a dry run",
        "options": "the operation options (e.g. CreateOptions)",
    },
)
_NS_SPEC = _object("kubernetes.NamespaceSpec", "finalizers: list(string)")
_NS_CONDITION = _object(
    "kubernetes.NamespaceCondition",
    "status: string; type: string; lastTransitionTime: timestamp; message: string; reason: string",
)
_NS_STATUS = _object(
    "kubernetes.NamespaceStatus", "conditions: list(kubernetes.NamespaceCondition); phase: string"
)
_NS_METADATA = _object(
    "kubernetes.NamespaceMetadata",
    "name: string; generateName: string; namespace: string; labels: map(string, string);"
    "annotations: map(string, string); UID: string; creationTimestamp: timestamp;"
    "deletionGracePeriodSeconds: int; deletionTimestamp: timestamp; generation: int;"
    "resourceVersion: string; finalizers: list(string)",
)
NAMESPACE_TYPE = _object(
    "kubernetes.Namespace",
    "metadata: kubernetes.NamespaceMetadata; spec: kubernetes.NamespaceSpec;"
    "status: kubernetes.NamespaceStatus",
    {"metadata": "a subset of the namespace's metadata (runtime key of UID is 'uid')"},
)
ADMISSION_TYPES: dict[str, ObjectType] = {
    n: typ for n, typ in _REGISTERED.items() if isinstance(typ, ObjectType)
}
"""Object types registered by name in every admission env (the DeclTypes of compile.go)."""

VARIABLES_TYPE_NAME = "kubernetes.variables"


def variable_field_type(inferred: Type) -> Type:
    """The field type `variables.<name>` gets from the variable's inferred output type.

    composition.go `convertCelTypeToDeclType`: primitives (and `null_type`, `any`) keep their
    type, lists and maps are converted element-wise, everything else — object types, opaque
    library types such as `net.IP`, `optional_type(T)`, `type(T)`, errors — becomes `dyn`.
    """
    if inferred.kind in _VARIABLE_KEPT_KINDS:
        return inferred
    if inferred.kind in (t.Kind.LIST, t.Kind.MAP):
        return t.Type(inferred.kind, inferred.name, tuple(variable_field_type(p) for p in inferred.params))
    return DYN


_VARIABLE_KEPT_KINDS = frozenset(
    {
        t.Kind.ANY,
        t.Kind.BOOL,
        t.Kind.BYTES,
        t.Kind.DOUBLE,
        t.Kind.DURATION,
        t.Kind.INT,
        t.Kind.NULL,
        t.Kind.STRING,
        t.Kind.TIMESTAMP,
        t.Kind.UINT,
    }
)


def variables_type(variables: Mapping[str, Type], *, precise: bool = False) -> ObjectType:
    """`kubernetes.variables` with one field per (earlier) variable, types converted as the
    server converts them, or kept as inferred (`precise`: vap-lsp's own view, never the server's)."""
    convert = (lambda v: v) if precise else variable_field_type
    return ObjectType(VARIABLES_TYPE_NAME, {n: FieldDecl(convert(v)) for n, v in variables.items()})


# --- The environment ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Features:
    """Language options of one environment (base.go), beyond its declarations."""

    optional_syntax: bool
    """`cel.OptionalTypes()`: `x.?f`, `m[?k]`, `[?x]`, `{?k: v}` parse (compat 1.28)."""
    cross_type_numeric_comparisons: bool
    """`1 < 1.5` type-checks (compat 1.28); see `Since.nested_scopes_always` for the quirk."""
    literal_validators: bool
    """Compat 1.29 AST validators: bad `duration('…')`/`timestamp('…')`/regex literals and
    mixed aggregate literals are compile errors."""
    recognize_keyword_field_names: bool
    """`object.metadata.namespace` finds the escaped field `__namespace__` (compat 1.31)."""
    homogeneous_aggregate_literals: bool = True
    """Always on: `[1, 'a']` is an error."""


@dataclass(frozen=True)
class Environment:
    """What one expression is compiled against: variables, functions, macros, types."""

    kubernetes_version: str
    kind: ExpressionKind
    mode: Mode
    variables: Mapping[str, Type]
    functions: Mapping[str, FunctionDecl]
    nested_functions: Mapping[str, FunctionDecl]
    macros: tuple[MacroDecl, ...]
    type_identifiers: Mapping[str, Type]
    struct_types: Mapping[str, ObjectType]
    features: Features
    roots: tuple[Type, ...] = field(default=())
    # cel-go's container for name resolution; the API server compiles with none (only the
    # cel-spec conformance environment sets one).
    container: str = ""
    _type_identifiers_found: dict[str, Type | None] = field(
        default_factory=dict, init=False, compare=False, hash=False, repr=False
    )
    """`find_type_identifier`'s answers: the checker asks for every qualified name it resolves
    (`variables.v1` before selecting `v1`), most of them no type."""

    @property
    def minor(self) -> int:
        return minor_of(self.kubernetes_version)

    @property
    def stored(self) -> bool:
        return self.mode == "stored"

    def find_variable(self, name: str) -> Type | None:
        """A declared variable, by its full name (`authorizer.requestResource` has a dot)."""
        return self.variables.get(name)

    def find_function(self, name: str, *, nested_scope: bool = False) -> FunctionDecl | None:
        """The function with its overloads usable here (`nested_scope`: inside a comprehension)."""
        return (self.nested_functions if nested_scope else self.functions).get(name)

    def function_introduced_in(self, name: str) -> str | None:
        """Earliest Kubernetes minor declaring `name` in this env type (None: never declared)."""
        return lib.function_introduced_in(name, stored=self.stored, patch_types=self.kind.info.patch_types)

    def unavailable_overloads(self, name: str) -> tuple[Overload, ...]:
        """Overloads of `name` that exist in another version but not here (for hints)."""
        present = {o.id for o in (self.functions.get(name) or FunctionDecl(name, ())).overloads}
        return tuple(
            o
            for o in lib.all_overloads(patch_types=self.kind.info.patch_types)
            if o.function == name and o.id not in present
        )

    def find_macro(self, name: str, arg_count: int, receiver_style: bool) -> MacroDecl | None:
        for macro in self.macros:
            if (
                macro.name == name
                and macro.receiver_style == receiver_style
                and (macro.arg_count is None or macro.arg_count == arg_count)
            ):
                return macro
        return None

    def macro_introduced_in(self, name: str, arg_count: int, receiver_style: bool) -> str | None:
        return lib.macro_introduced_in(name, arg_count, receiver_style, stored=self.stored)

    def find_type_identifier(self, name: str) -> Type | None:
        """An identifier naming a type (`int`, `list`, `Object`…), typed `type(T)`."""
        memo = self._type_identifiers_found
        if name in memo:
            return memo[name]
        found = self._find_type_identifier(name)
        memo[name] = found
        return found

    def _find_type_identifier(self, name: str) -> Type | None:
        found = self.type_identifiers.get(name)
        if found is not None:
            return found
        well_known = WELL_KNOWN_TYPES.get(name)
        if well_known is not None:
            return t.type_of(well_known)
        struct = self.find_struct_type(name)
        return t.type_of(struct) if struct is not None else None

    def find_struct_type(self, name: str) -> ObjectType | None:
        """A named object type: admission types, MAP patch types, and object/params schema
        types by their path names (`Deployment123.spec.template`)."""
        found = self.struct_types.get(name) or WELL_KNOWN_MESSAGES.get(name)
        if found is not None:
            return found
        if self.kind.info.patch_types:
            patch = patch_object_type(name)
            if patch is not None:
                return patch
        for root in self.roots:
            nested = _find_nested_object(root, name)
            if nested is not None:
                return nested
        return None

    def find_constant(self, name: str) -> Type | None:
        """A registry enum value (`google.protobuf.NullValue.NULL_VALUE`), typed `int`."""
        return WELL_KNOWN_CONSTANTS.get(name)

    def find_field(self, obj: ObjectType, name: str) -> FieldDecl | None:
        """Field selection on an object type with this environment's keyword rule."""
        return obj.find_field(name, recognize_keywords=self.features.recognize_keyword_field_names)

    def result_type_error(self, output: Type) -> str | None:
        return result_type_error(self.kind, output, self.kubernetes_version)


def _find_nested_object(root: Type, name: str) -> ObjectType | None:
    """Walk `<root>.<field>.@idx.@elem…` without resolving unrelated fields."""
    if not isinstance(root, ObjectType) or not (name == root.name or name.startswith(root.name + ".")):
        return None
    current: Type = root
    for segment in name[len(root.name) :].split(".")[1:]:
        if segment in ("@idx", "@elem") and current.kind in (t.Kind.LIST, t.Kind.MAP):
            current = current.elem_type
        elif isinstance(current, ObjectType) and segment in current.fields:
            current = current.fields[segment].type
        else:
            return None
    return current if isinstance(current, ObjectType) else None


def _since_available(since: Since, minor: int, stored: bool) -> bool:
    return since.available(minor, stored=stored)


_OPTIONAL_SINCE = Since(compat=28)
_CROSS_TYPE_SINCE = Since(compat=28)
_VALIDATORS_SINCE = Since(compat=29)
_KEYWORD_FIELDS_SINCE = Since(compat=31, binary=31)


@functools.lru_cache(maxsize=64)
def _type_identifiers(minor: int, stored: bool) -> Mapping[str, Type]:
    """The type identifiers (`int`, `list`, `net.IP`…) of a Kubernetes version's library: the same
    for every environment of that version and mode (a policy builds one per variable and view)."""
    identifiers = {
        ident: t.type_of(_NAMED.parse(type_text))
        for ident, type_text, since in lib.TYPE_IDENTIFIERS
        if _since_available(since, minor, stored)
    }
    if _since_available(_OPTIONAL_SINCE, minor, stored):
        identifiers["optional_type"] = t.type_of(t.optional_of(t.type_param("T")))
    return MappingProxyType(identifiers)


def build_environment(
    kubernetes_version: str,
    kind: ExpressionKind,
    *,
    has_params: bool,
    object_type: Type = DYN,
    params_type: Type = DYN,
    variables: Mapping[str, Type] | None = None,
    mode: Mode = "new",
    declare_request_resource_authorizer: bool = True,
    precise_variables: bool = False,
) -> Environment:
    """The environment of one expression.

    `variables`: inferred types of the policy's variables visible to this expression (for a
    VARIABLE, only the earlier ones), converted with `variable_field_type`. None means the policy
    has no `spec.variables`: VAP validations, messageExpressions and auditAnnotations then use
    the stateless compiler and `variables` is undeclared; VARIABLE and MAP mutation expressions
    always use the composited compiler (declared, maybe empty); MATCH_CONDITION never has it.

    `declare_request_resource_authorizer=False` reproduces the type-check controller, which
    does not declare `authorizer.requestResource` (reference §4.5).

    `precise_variables=True` keeps each variable's inferred type (object types included) instead
    of the server's conversion: vap-lsp's own view, for editor features and its advisory check.
    """
    minor = minor_of(kubernetes_version)
    stored = mode == "stored"
    info = kind.info

    declared: dict[str, Type] = {
        "object": object_type,
        "oldObject": object_type,
        "namespaceObject": NAMESPACE_TYPE,
        "request": REQUEST_TYPE,
    }
    if has_params:
        declared["params"] = params_type
    if info.has_authorizer:
        declared["authorizer"] = k8slib.AUTHORIZER
        if declare_request_resource_authorizer:
            declared["authorizer.requestResource"] = k8slib.RESOURCE_CHECK
    struct_types = dict(ADMISSION_TYPES)
    if not info.stateless and (variables is not None or info.composited):
        vars_type = variables_type(variables or {}, precise=precise_variables)
        declared["variables"] = vars_type
        struct_types[VARIABLES_TYPE_NAME] = vars_type
    if info.patch_types:
        struct_types[JSONPATCH.name] = JSONPATCH
        struct_types[OBJECT_TYPE_NAME] = PATCH_OBJECT

    optional = _since_available(_OPTIONAL_SINCE, minor, stored)
    type_identifiers = _type_identifiers(minor, stored)

    features = Features(
        optional_syntax=optional,
        cross_type_numeric_comparisons=_since_available(_CROSS_TYPE_SINCE, minor, stored),
        literal_validators=_since_available(_VALIDATORS_SINCE, minor, stored),
        recognize_keyword_field_names=_since_available(_KEYWORD_FIELDS_SINCE, minor, stored),
    )
    return Environment(
        kubernetes_version=f"1.{minor}",
        kind=kind,
        mode=mode,
        variables=declared,
        functions=lib.functions_for(minor, stored=stored, patch_types=info.patch_types),
        nested_functions=lib.functions_for(
            minor, stored=stored, patch_types=info.patch_types, nested_scope=True
        ),
        macros=lib.macros_for(minor, stored=stored),
        type_identifiers=type_identifiers,
        struct_types=struct_types,
        features=features,
        roots=tuple(r for r in (object_type, params_type) if isinstance(r, ObjectType)),
    )


# --- OpenAPI schema → CEL type ------------------------------------------------------------------

Schema = Mapping[str, Any]
Resolver = Callable[[Schema], Schema]
"""Given a schema holding `$ref`, returns the referenced definition."""

_EXPAND = re.compile(r"__|[-./]|[^a-zA-Z0-9\-./_]")
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}


def escape_field_name(name: str) -> str | None:
    """`pkg/cel/escaping.go` `Escape`: the CEL field name of a property, None if inaccessible.

    Names must match `[a-zA-Z_.\\-/][a-zA-Z0-9_.\\-/]*`; `__`, `.`, `-`, `/` are spelled out and a
    reserved word `w` becomes `__w__`.
    """
    if not name or "0" <= name[0] <= "9":
        return None
    if name in t.RESERVED_WORDS:
        return f"__{name}__"
    invalid = False

    def replace(match: re.Match[str]) -> str:
        nonlocal invalid
        escaped = _ESCAPES.get(match.group(0))
        if escaped is None:
            invalid = True
            return ""
        return escaped

    result = _EXPAND.sub(replace, name)
    return None if invalid else result


def _ref_of(schema: Schema) -> Schema | None:
    """The `$ref`-holding schema, also when wrapped in `allOf` (refs.go `refOf`)."""
    if "$ref" in schema:
        return schema
    for sub in schema.get("allOf") or ():
        if isinstance(sub, Mapping):
            found = _ref_of(sub)
            if found is not None:
                return found
    return None


_EMPTY_OBJECT: Schema = {"type": "object"}


def deref_schema(schema: Schema, resolve: Resolver, visited: frozenset[str]) -> tuple[Schema, frozenset[str]]:
    """Inline a reference like `PopulateRefs`: the whole schema is replaced by its target; a
    reference already on the current path (a cycle) becomes an empty object."""
    while True:
        ref = _ref_of(schema)
        if ref is None:
            return schema, visited
        name = str(ref["$ref"])
        if name in visited:
            return _EMPTY_OBJECT, visited
        visited = visited | {name}
        schema = resolve(ref)


def schema_type_name(schema: Schema) -> str:
    declared = schema.get("type")
    if isinstance(declared, list):
        return str(declared[0]) if declared else ""
    return str(declared or "")


def _is_true(schema: Schema, key: str) -> bool:
    return schema.get(key) is True


def is_int_or_string(schema: Schema) -> bool:
    return schema.get("format") == "int-or-string" or _is_true(schema, "x-kubernetes-int-or-string")


def _prop_has_type(
    props: Mapping[str, Any], key: str, wanted: str, resolve: Resolver, visited: frozenset[str]
) -> bool:
    prop = props.get(key)
    if not isinstance(prop, Mapping):
        return False
    declared = deref_schema(prop, resolve, visited)[0].get("type")
    return wanted in declared if isinstance(declared, list) else declared == wanted


_STRING: Schema = {"type": "string"}


def with_type_and_object_meta(schema: Schema, resolve: Resolver, visited: frozenset[str]) -> Schema:
    """schemas.go `WithTypeAndObjectMeta`: roots and embedded resources always expose
    `apiVersion`, `kind`, `metadata.name`, `metadata.generateName`; if any is missing, `metadata`
    is *replaced* by just those two."""
    props: Mapping[str, Any] = schema.get("properties") or {}
    meta = props.get("metadata")
    meta_props: Mapping[str, Any] = {}
    if isinstance(meta, Mapping):
        meta_props = deref_schema(meta, resolve, visited)[0].get("properties") or {}
    complete = (
        "properties" in schema
        and _prop_has_type(props, "kind", "string", resolve, visited)
        and _prop_has_type(props, "apiVersion", "string", resolve, visited)
        and _prop_has_type(props, "metadata", "object", resolve, visited)
        and bool(meta_props)
        and _prop_has_type(meta_props, "name", "string", resolve, visited)
        and _prop_has_type(meta_props, "generateName", "string", resolve, visited)
    )
    if complete:
        return schema
    new_props = dict(props)
    new_props["kind"] = _STRING
    new_props["apiVersion"] = _STRING
    new_props["metadata"] = {"type": "object", "properties": {"name": _STRING, "generateName": _STRING}}
    return {**schema, "properties": new_props}


_STRING_FORMATS = {"byte": t.BYTES, "duration": t.DURATION, "date": t.TIMESTAMP, "date-time": t.TIMESTAMP}
_SCALARS = {"boolean": t.BOOL, "number": t.DOUBLE, "integer": t.INT}


def schema_to_type(
    schema: Schema, resolve: Resolver, name: str, *, resource_root: bool = True
) -> Type | None:
    """The CEL type of an OpenAPI v3 schema (`SchemaDeclType` + `MaybeAssignTypeName`).

    `name` names the root object type (the type checker uses `<Kind><nanoseconds>`); nested
    objects are `<parent>.<escaped field>`, list elements `<list>.@idx`, map values
    `<map>.@elem`. Returns None for a schema that is not exposed (no `type`): as the root,
    callers then declare `object`/`params` as `dyn`. Object fields are converted lazily.
    """
    resolved, visited = deref_schema(schema, resolve, frozenset())
    return _convert(resolved, resolve, visited, name, resource_root)


def _convert(
    schema: Schema,
    resolve: Resolver,
    visited: frozenset[str],
    name: str,
    root: bool,
    shape: Callable[[], Hashable | None] | None = None,
) -> Type | None:
    if is_int_or_string(schema):
        return DYN
    if root:
        schema = with_type_and_object_meta(schema, resolve, visited)
    kind = schema_type_name(schema)
    if kind == "array":
        items = schema.get("items")
        if not isinstance(items, Mapping):
            return None
        elem = _convert_child(items, resolve, visited, f"{name}.@idx")
        return None if elem is None else t.list_of(elem)
    if kind == "object":
        additional = schema.get("additionalProperties")
        if isinstance(additional, Mapping):
            value = _convert_child(additional, resolve, visited, f"{name}.@elem")
            return None if value is None else t.map_of(t.STRING, value)
        return ObjectType(
            name,
            lambda: _object_fields(schema, resolve, visited, name),
            description=str(schema.get("description") or ""),
            preserves_unknown_fields=_is_true(schema, "x-kubernetes-preserve-unknown-fields"),
            shape=shape,
        )
    if kind == "string":
        return _STRING_FORMATS.get(str(schema.get("format") or ""), t.STRING)
    return _SCALARS.get(kind)


def _convert_child(child: Schema, resolve: Resolver, visited: frozenset[str], name: str) -> Type | None:
    resolved, child_visited = deref_schema(child, resolve, visited)
    return _convert(
        resolved,
        resolve,
        child_visited,
        name,
        _is_true(resolved, "x-kubernetes-embedded-resource"),
        functools.partial(_shape, child, resolve, visited),
    )


def _shape(child: Schema, resolve: Resolver, visited: frozenset[str]) -> Hashable | None:
    """What the conversion of a `$ref`-holding `child` depends on but names (`ObjectType.shape`):
    the definition, what the schema says beside the reference (a description aside), and the
    definitions on the path that it can lead back to (a cycle is cut there). None when `child`
    is no reference, or one cut as a cycle."""
    ref = _ref_of(child)
    if ref is None or str(ref["$ref"]) in visited:
        return None
    target = str(ref["$ref"])
    beside = _json_text({k: v for k, v in child.items() if k != "description"})
    return (resolve, beside, visited & _refs_reachable(resolve, target))


# The definitions each definition can lead to, by resolver (one per Kubernetes version) and name.
_REACHABLE: LruCache[tuple[Resolver, str], frozenset[str]] = LruCache(8192)


def _refs_reachable(resolve: Resolver, ref: str) -> frozenset[str]:
    """`ref` and every definition its schema can reach through `$ref`s."""
    key = (resolve, ref)
    found = _REACHABLE.get(key)
    if found is not None:
        return found
    seen = {ref}
    pending = [ref]
    while pending:
        stack: list[Any] = [resolve({"$ref": pending.pop()})]
        while stack:
            node = stack.pop()
            if isinstance(node, Mapping):
                name = node.get("$ref")
                if isinstance(name, str) and name not in seen:
                    seen.add(name)
                    pending.append(name)
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    reachable = frozenset(seen)
    _REACHABLE.put(key, reachable)
    return reachable


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _object_fields(schema: Schema, resolve: Resolver, visited: frozenset[str], name: str) -> t.FieldTable:
    required = set(schema.get("required") or ())
    fields: dict[str, FieldDecl] = {}
    raw_names: dict[str, str] = {}
    untyped: set[str] = set()
    for raw, prop in (schema.get("properties") or {}).items():
        escaped = escape_field_name(raw)
        if escaped is None or not isinstance(prop, Mapping):
            continue
        field_type = _convert_child(prop, resolve, visited, f"{name}.{escaped}")
        if field_type is None:
            untyped.add(escaped)
            continue
        target = deref_schema(prop, resolve, visited)[0]
        owner = prop if "default" in prop else target
        fields[escaped] = FieldDecl(
            field_type,
            str(prop.get("description") or target.get("description") or ""),
            required=raw in required,
            has_default="default" in owner,
            default=_json_text(owner["default"]) if "default" in owner else "",
            format=str(target.get("format") or "") if schema_type_name(target) == "string" else "",
        )
        if escaped != raw:
            raw_names[escaped] = raw
    return fields, raw_names, frozenset(untyped)
