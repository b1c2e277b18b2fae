"""CEL types as the Kubernetes API server's cel-go type checker sees them.

Mirrors `google/cel-go` `common/types/types.go` (kinds, runtime names, `String()`),
`checker/format.go` (`FormatCELType`, used inside checker messages), `checker/types.go`
(assignability with type-parameter unification) and `checker/mapping.go` (substitutions).
Kubernetes object types (`pkg/cel/types.go` `DeclType`) are `ObjectType` values whose fields may be
computed lazily, so converting a large OpenAPI schema costs nothing until a field is selected.

Two printers exist because cel-go has two: `format_cel_type` (checker errors:
`found no matching overload …`, `expected type …`) prints `timestamp`, `null`, `A`;
`type_string` (`Type.String()`, used by Kubernetes for `must evaluate to …`) prints
`google.protobuf.Timestamp`, `null_type`, `<A>`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass


class Kind(enum.Enum):
    """cel-go `types.Kind`."""

    DYN = "dyn"
    ANY = "any"
    BOOL = "bool"
    BYTES = "bytes"
    DOUBLE = "double"
    DURATION = "duration"
    ERROR = "error"
    INT = "int"
    LIST = "list"
    MAP = "map"
    NULL = "null_type"
    OPAQUE = "opaque"
    STRING = "string"
    STRUCT = "struct"
    TIMESTAMP = "timestamp"
    TYPE = "type"
    TYPE_PARAM = "type_param"
    UINT = "uint"
    UNSPECIFIED = "unspecified"
    """A nil `*types.Type` in cel-go: what Kubernetes' JSONPatch type gives unknown field names."""


class Type:
    """An immutable CEL type: kind, runtime type name and type parameters.

    Equality is cel-go's `IsExactType`: same kind, same name, equal parameters. Object types
    compare by name only, as in cel-go (two declarations with one name are one type).
    """

    __slots__ = ("kind", "name", "params")

    kind: Kind
    name: str
    params: tuple[Type, ...]

    def __init__(self, kind: Kind, name: str, params: tuple[Type, ...] = ()) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "params", params)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        return self is other or (
            self.kind == other.kind and self.name == other.name and self.params == other.params
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.name, self.params))

    def __repr__(self) -> str:
        return f"Type({type_string(self)})"

    def __str__(self) -> str:
        return format_cel_type(self)

    # Convenience accessors for the parameterised kinds.
    @property
    def elem_type(self) -> Type:
        """Element type of a list (or value type of a map)."""
        return self.params[-1]

    @property
    def key_type(self) -> Type:
        return self.params[0]


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """One field of an object type (`pkg/cel/types.go` `DeclField`)."""

    type: Type
    description: str = ""
    required: bool = False
    has_default: bool = False
    default: str = ""
    """The schema's `default` as JSON text (empty without one): what hover says it defaults to."""
    format: str = ""
    """The schema's `format` of a string field (`date-time`, `date`, `byte`...; empty without one):
    a `date` and a `date-time` are both `timestamp`, and only the second converts back."""


FieldTable = tuple[Mapping[str, FieldDecl], Mapping[str, str], frozenset[str]]
"""An object's fields (by escaped name), its escaped → raw property-name map, and the escaped
names of the properties its schema declares without a type (`SchemaDeclType` leaves them out:
a Quantity, a map of them), which objects at admission do hold."""

FieldThunk = Callable[[], FieldTable]


class ObjectType(Type):
    """A struct/message type with named fields (`cel.ObjectType` + a `DeclType` field map).

    `fields` may be a mapping or a thunk computing `(fields, raw_names)` on first access (schemas
    are big and most fields are never selected). `raw_names` maps escaped field names back to
    the JSON property names (`pkg/cel/escaping.go`). `open_field_type`, when set, types every field name not
    declared explicitly (Kubernetes' schemaless `Object.*` types accept any field as `dyn`).
    `preserves_unknown_fields`: the schema has `x-kubernetes-preserve-unknown-fields`; the type
    checker sees only the declared fields, but stored objects may hold any other.
    `shape`: what makes two object types alike but for their names (and their own description):
    the same definition converted alike (`Pod.spec.containers.@idx` and
    `Deployment.spec.template.spec.containers.@idx` are both `Container`); None when unknown.
    """

    __slots__ = ("_cache", "_shape", "_thunk", "description", "open_field_type", "preserves_unknown_fields")

    description: str
    open_field_type: Type | None
    preserves_unknown_fields: bool
    _shape: Hashable | Callable[[], Hashable | None] | None
    _thunk: FieldThunk | None
    _cache: list[FieldTable]

    def __init__(
        self,
        name: str,
        fields: Mapping[str, FieldDecl] | FieldThunk | None = None,
        *,
        raw_names: Mapping[str, str] | None = None,
        description: str = "",
        open_field_type: Type | None = None,
        preserves_unknown_fields: bool = False,
        shape: Hashable | Callable[[], Hashable | None] | None = None,
    ) -> None:
        super().__init__(Kind.STRUCT, name)
        object.__setattr__(self, "_shape", shape)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "open_field_type", open_field_type)
        object.__setattr__(self, "preserves_unknown_fields", preserves_unknown_fields)
        cache: list[FieldTable] = []
        if callable(fields):
            object.__setattr__(self, "_thunk", fields)
        else:
            object.__setattr__(self, "_thunk", None)
            cache.append((dict(fields or {}), dict(raw_names or {}), frozenset()))
        object.__setattr__(self, "_cache", cache)

    def _resolved(self) -> FieldTable:
        if not self._cache:
            thunk = self._thunk
            assert thunk is not None
            self._cache.append(thunk())
        return self._cache[0]

    @property
    def fields(self) -> Mapping[str, FieldDecl]:
        return self._resolved()[0]

    @property
    def raw_names(self) -> Mapping[str, str]:
        """Escaped field name → raw property name, only for names that differ."""
        return self._resolved()[1]

    @property
    def untyped_fields(self) -> frozenset[str]:
        """Properties of the schema the type leaves out for lack of a type (not selectable in a
        type-checked expression, yet present in objects at admission)."""
        return self._resolved()[2]

    @property
    def shape(self) -> Hashable | None:
        """`shape`, worked out on first use (a thunk may walk the definitions it can reach)."""
        found = self._shape
        if callable(found):
            found = found()
            object.__setattr__(self, "_shape", found)
        return found

    @property
    def from_schema(self) -> bool:
        """Whether the type was converted from a schema (a kind's, a CRD's: its fields worked out
        on first use), so named by its place in that schema; a library's types are declared."""
        return self._thunk is not None

    @property
    def is_resolved(self) -> bool:
        """Whether the field map has been computed (for tests of laziness)."""
        return bool(self._cache)

    def find_field(self, name: str, *, recognize_keywords: bool = False) -> FieldDecl | None:
        """Field lookup as `DeclTypeProvider.FindStructFieldType` does it.

        With `recognize_keywords` (compat version ≥ 1.31) an unescaped reserved word also finds
        its escaped field (`namespace` → `__namespace__`).
        """
        fields = self.fields
        found = fields.get(name)
        if found is None and recognize_keywords and name in RESERVED_WORDS:
            found = fields.get(f"__{name}__")
        if found is None and self.open_field_type is not None:
            return FieldDecl(self.open_field_type)
        return found


def shape_of(typ: Type) -> Hashable:
    """What `typ` is but for the names of the object types in it: equal for types that differ
    only by them (`list(Pod.spec.containers.@idx)` and
    `list(Deployment.spec.template.spec.containers.@idx)`); `typ` itself when it names no
    object type. An object type without a `shape` stands for itself (a library type, a kind's
    root, an inline schema)."""
    if isinstance(typ, ObjectType):
        return ("shape", typ.shape) if typ.shape is not None else ("itself", id(typ), typ)
    if not typ.params:
        return typ
    params = tuple(shape_of(p) for p in typ.params)
    return typ if params == typ.params else (typ.kind, typ.name, params)


# CEL reserved words (`pkg/cel/escaping.go` celReservedSymbols; also `validation.go` isCELIdentifier).
RESERVED_WORDS: frozenset[str] = frozenset(
    "true false null in as break const continue else for function if import let loop package "  # noqa: SIM905
    "namespace return var void while".split()
)


def _simple(kind: Kind, name: str) -> Type:
    return Type(kind, name)


DYN = _simple(Kind.DYN, "dyn")
ANY = _simple(Kind.ANY, "google.protobuf.Any")
BOOL = _simple(Kind.BOOL, "bool")
BYTES = _simple(Kind.BYTES, "bytes")
DOUBLE = _simple(Kind.DOUBLE, "double")
DURATION = _simple(Kind.DURATION, "google.protobuf.Duration")
ERROR = _simple(Kind.ERROR, "error")
INT = _simple(Kind.INT, "int")
NULL = _simple(Kind.NULL, "null_type")
STRING = _simple(Kind.STRING, "string")
TIMESTAMP = _simple(Kind.TIMESTAMP, "google.protobuf.Timestamp")
TYPE = _simple(Kind.TYPE, "type")
UINT = _simple(Kind.UINT, "uint")
UNSPECIFIED = _simple(Kind.UNSPECIFIED, "")


class WrapperType(Type):
    """A protobuf wrapper (`google.protobuf.Int64Value`): cel-go's `NewNullableType(T)`.

    Same kind, name and parameters as the wrapped primitive (so `is_exact_type` holds, as in
    cel-go), but it also accepts `null` and prints as `wrapper(int)`. Python equality and hash
    tell it apart from the primitive so caches keyed by types never confuse the two.
    """

    __slots__ = ()

    def __init__(self, wrapped: Type) -> None:
        super().__init__(wrapped.kind, wrapped.name, wrapped.params)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        return isinstance(other, WrapperType) and self.kind == other.kind and self.name == other.name

    def __hash__(self) -> int:
        return hash(("wrapper", self.kind, self.name))

    @property
    def wrapped(self) -> Type:
        """The primitive type (`int` for `wrapper(int)`)."""
        return Type(self.kind, self.name, self.params)


def wrapper_of(primitive: Type) -> WrapperType:
    """`wrapper(T)` for a primitive T (bool, bytes, double, int, string, uint)."""
    return WrapperType(primitive)


def declared_type_name(t: Type) -> str:
    """cel-go `DeclaredTypeName`: the type name, `wrapper(T)` for wrappers."""
    return f"wrapper({t.name})" if isinstance(t, WrapperType) else t.name


def list_of(elem: Type) -> Type:
    return Type(Kind.LIST, "list", (elem,))


def map_of(key: Type, value: Type) -> Type:
    return Type(Kind.MAP, "map", (key, value))


def opaque(name: str, *params: Type) -> Type:
    """An abstract type without fields (`types.NewOpaqueType`), e.g. `net.IP`."""
    return Type(Kind.OPAQUE, name, tuple(params))


def optional_of(value: Type) -> Type:
    """`optional_type(T)` — an opaque type in cel-go."""
    return opaque("optional_type", value)


def type_of(param: Type) -> Type:
    """`type(T)`: the type of the type T (`types.NewTypeTypeWithParam`)."""
    return Type(Kind.TYPE, "type", (param,))


def type_param(name: str) -> Type:
    return Type(Kind.TYPE_PARAM, name)


def function_type(result: Type, args: Sequence[Type]) -> Type:
    """The checker's opaque `function(result, args…)` type used while resolving overloads."""
    return opaque("function", result, *args)


# Aliases used in messages for kinds whose runtime name differs (`FormatCELType`).
_FORMAT_ALIASES = {
    Kind.ANY: "any",
    Kind.DURATION: "duration",
    Kind.ERROR: "!error!",
    Kind.NULL: "null",
    Kind.TIMESTAMP: "timestamp",
    Kind.UNSPECIFIED: "",
}


def format_cel_type(t: Type) -> str:
    """cel-go `checker.FormatCELType`: the form used inside type-checker error messages."""
    alias = _FORMAT_ALIASES.get(t.kind)
    if alias is not None:
        return alias
    if t.kind is Kind.TYPE_PARAM:
        return t.name
    if t.kind is Kind.OPAQUE and t.name == "function":
        return format_function_signature(t.params[0], t.params[1:], is_instance=False)
    if not t.params:
        return declared_type_name(t)
    return f"{t.name}({', '.join(format_cel_type(p) for p in t.params)})"


def type_string(t: Type) -> str:
    """cel-go `(*types.Type).String()`: used by Kubernetes' `must evaluate to …` messages."""
    if t.kind is Kind.TYPE_PARAM:
        return f"<{t.name}>"
    if not t.params:
        return declared_type_name(t)
    return f"{t.name}({', '.join(type_string(p) for p in t.params)})"


def go_list_string(types: Iterable[Type]) -> str:
    """Go's `%v` of a `[]*cel.Type`: `[string null_type]`."""
    return "[" + " ".join(type_string(t) for t in types) + "]"


def format_function_signature(result: Type | None, args: Sequence[Type], *, is_instance: bool) -> str:
    """cel-go `formatFunctionDeclType`: `(int, string)`, `string.(int)`, `(int) -> bool`."""
    prefix = ""
    if is_instance and args:
        prefix = format_cel_type(args[0]) + "."
        args = args[1:]
    text = f"{prefix}({', '.join(format_cel_type(a) for a in args)})"
    if result is not None:
        text += f" -> {format_cel_type(result)}"
    return text


def is_dyn(t: Type) -> bool:
    """`dyn` or `google.protobuf.Any` (checker/types.go `isDyn`)."""
    return t.kind in (Kind.DYN, Kind.ANY)


def is_dyn_or_error(t: Type) -> bool:
    return t.kind is Kind.ERROR or is_dyn(t)


def is_optional(t: Type) -> bool:
    return t.kind is Kind.OPAQUE and t.name == "optional_type"


def maybe_unwrap_optional(t: Type) -> tuple[Type, bool]:
    if is_optional(t):
        return t.params[0], True
    return t, False


def is_exact_type(a: Type, b: Type) -> bool:
    """cel-go `IsExactType` (type-parameter names must match too; a wrapper is exactly its
    primitive, since cel-go compares kind, name and parameters only)."""
    if a is b:
        return True
    if a.kind is not b.kind or a.name != b.name or len(a.params) != len(b.params):
        return False
    return all(is_exact_type(p, q) for p, q in zip(a.params, b.params, strict=True))


def is_equivalent_type(a: Type, b: Type) -> bool:
    """cel-go `IsEquivalentType`: like exact, but type-parameter names are ignored."""
    if a.kind is not b.kind or len(a.params) != len(b.params):
        return False
    if a.kind is not Kind.TYPE_PARAM and a.name != b.name:
        return False
    return all(is_equivalent_type(p, q) for p, q in zip(a.params, b.params, strict=True))


def _is_runtime_dyn(t: Type) -> bool:
    return t.kind in (Kind.DYN, Kind.ANY, Kind.TYPE_PARAM)


def is_assignable_type(target: Type, source: Type) -> bool:
    """`(*types.Type).IsAssignableType` default rule: `target` accepts `source`.

    Dynamic targets accept anything; otherwise kind, name and arity must agree and every
    parameter be assignable in turn. A wrapper (`NewNullableType`) also accepts `null`.
    """
    if target is source or _is_runtime_dyn(target):
        return True
    if isinstance(target, WrapperType) and source.kind is Kind.NULL:
        return True
    if target.kind is not source.kind or target.name != source.name:
        return False
    if len(target.params) != len(source.params):
        return False
    return all(is_assignable_type(tp, sp) for tp, sp in zip(target.params, source.params, strict=True))


def is_legacy_nullable(t: Type) -> bool:
    """Types that accept `null` (checker/types.go `isLegacyNullable`)."""
    return t.kind in (Kind.OPAQUE, Kind.STRUCT, Kind.ANY, Kind.DURATION, Kind.TIMESTAMP)


def is_assignable_null(t: Type) -> bool:
    """Whether `null` may be used where `t` is expected (`internalIsAssignableNull`)."""
    return is_legacy_nullable(t) or is_assignable_type(t, NULL)


class TypeMapping:
    """Type-parameter substitutions (`checker/mapping.go`), keyed by the formatted parameter."""

    __slots__ = ("_subs",)

    def __init__(self, subs: Mapping[str, Type] | None = None) -> None:
        self._subs: dict[str, Type] = dict(subs or {})

    def add(self, source: Type, target: Type) -> None:
        self._subs[format_cel_type(source)] = target

    def find(self, source: Type) -> Type | None:
        return self._subs.get(format_cel_type(source))

    def copy(self) -> TypeMapping:
        return TypeMapping(self._subs)

    def items(self) -> list[tuple[str, Type]]:
        return list(self._subs.items())

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}: {format_cel_type(v)}" for k, v in self._subs.items())
        return f"TypeMapping({{{inner}}})"


def is_equal_or_less_specific(t1: Type, t2: Type) -> bool:
    """Whether t1 is equal to or less specific (more `dyn`) than t2."""
    if is_dyn(t1) or t1.kind is Kind.TYPE_PARAM:
        return True
    if is_dyn(t2) or t2.kind is Kind.TYPE_PARAM:
        return False
    if t1.kind is not t2.kind:
        return False
    if t1.kind is Kind.OPAQUE:
        if t1.name != t2.name or len(t1.params) != len(t2.params):
            return False
        return all(is_equal_or_less_specific(p, q) for p, q in zip(t1.params, t2.params, strict=True))
    if t1.kind in (Kind.LIST, Kind.MAP):
        return all(is_equal_or_less_specific(p, q) for p, q in zip(t1.params, t2.params, strict=True))
    if t1.kind is Kind.TYPE:
        return True
    return is_exact_type(t1, t2)


def most_general(t1: Type, t2: Type) -> Type:
    """The more general of two types known to unify."""
    return t1 if is_equal_or_less_specific(t1, t2) else t2


def not_referenced_in(m: TypeMapping, t: Type, within: Type) -> bool:
    """The unification occurs check: `t` does not appear in `within` (through substitutions)."""
    if is_exact_type(t, within):
        return False
    if within.kind is Kind.TYPE_PARAM:
        sub = m.find(within)
        return True if sub is None else not_referenced_in(m, t, sub)
    if within.kind in (Kind.OPAQUE, Kind.LIST, Kind.MAP, Kind.TYPE):
        return all(not_referenced_in(m, t, p) for p in within.params)
    return True


def _is_valid_type_substitution(m: TypeMapping, t1: Type, t2: Type) -> tuple[bool, bool]:
    """Whether t2 (or its substitution) may stand for t1; second item: t2 already bound."""
    if t1.kind is t2.kind and is_exact_type(t1, t2):
        return True, True
    t2_sub = m.find(t2)
    if t2_sub is not None:
        if t1.kind is t2_sub.kind and is_exact_type(t1, t2_sub):
            return True, True
        if internal_is_assignable(m, t1, t2_sub):
            t2_new = most_general(t1, t2_sub)
            if not_referenced_in(m, t2, t2_new):
                m.add(t2, t2_new)
            return True, True
        return False, True
    if not_referenced_in(m, t2, t1):
        m.add(t2, t1)
        return True, False
    return False, False


def internal_is_assignable(m: TypeMapping, t1: Type, t2: Type) -> bool:
    """Whether a value of type t1 may be used where t2 is expected; extends `m` in place."""
    if t2.kind is Kind.TYPE_PARAM:
        valid, t2_has_sub = _is_valid_type_substitution(m, t1, t2)
        if valid:
            return True
        if t2_has_sub:
            return False
    if t1.kind is Kind.TYPE_PARAM:
        return _is_valid_type_substitution(m, t2, t1)[0]
    if is_dyn_or_error(t1) or is_dyn_or_error(t2):
        return True
    if t1.kind is Kind.NULL:
        return is_assignable_null(t2)
    if t2.kind is Kind.NULL:
        return is_assignable_null(t1)
    if t1.kind in _LEAF_KINDS:
        return is_assignable_type(t2, t1)
    if t1.kind is Kind.TYPE:
        return t2.kind is Kind.TYPE
    if t1.kind in (Kind.OPAQUE, Kind.LIST, Kind.MAP):
        return (
            t1.kind is t2.kind and t1.name == t2.name and internal_is_assignable_list(m, t1.params, t2.params)
        )
    return False


_LEAF_KINDS = frozenset(
    {
        Kind.BOOL,
        Kind.BYTES,
        Kind.DOUBLE,
        Kind.INT,
        Kind.STRING,
        Kind.UINT,
        Kind.ANY,
        Kind.DURATION,
        Kind.TIMESTAMP,
        Kind.STRUCT,
    }
)


def internal_is_assignable_list(m: TypeMapping, l1: Sequence[Type], l2: Sequence[Type]) -> bool:
    if len(l1) != len(l2):
        return False
    return all(internal_is_assignable(m, a, b) for a, b in zip(l1, l2, strict=True))


def is_assignable(m: TypeMapping, t1: Type, t2: Type) -> TypeMapping | None:
    """cel-go `isAssignable`: the extended mapping if t1 is assignable to t2, else None."""
    copy = m.copy()
    return copy if internal_is_assignable(copy, t1, t2) else None


def is_assignable_list(m: TypeMapping, l1: Sequence[Type], l2: Sequence[Type]) -> TypeMapping | None:
    copy = m.copy()
    return copy if internal_is_assignable_list(copy, l1, l2) else None


def substitute(m: TypeMapping, t: Type, type_param_to_dyn: bool) -> Type:
    """Replace bound type parameters (and, optionally, unbound ones by `dyn`)."""
    sub = m.find(t)
    if sub is not None:
        return substitute(m, sub, type_param_to_dyn)
    if t.kind is Kind.TYPE_PARAM:
        return DYN if type_param_to_dyn else t
    if t.kind in (Kind.OPAQUE, Kind.LIST, Kind.MAP, Kind.TYPE) and t.params:
        return Type(t.kind, t.name, tuple(substitute(m, p, type_param_to_dyn) for p in t.params))
    return t


def type_params_of(types: Iterable[Type]) -> tuple[str, ...]:
    """Names of the type parameters occurring in `types`, in first-occurrence order."""
    seen: dict[str, None] = {}

    def walk(t: Type) -> None:
        if t.kind is Kind.TYPE_PARAM:
            seen.setdefault(t.name, None)
        for p in t.params:
            walk(p)

    for t in types:
        walk(t)
    return tuple(seen)


def join_element_types(
    m: TypeMapping, previous: Type | None, current: Type
) -> tuple[Type, TypeMapping] | None:
    """Element-type join of list/map literals under HomogeneousAggregateLiterals.

    cel-go `checker.joinTypes`: the first element fixes the type; each further element must be
    assignable, and the more general of the two is kept. None means the literal is mixed: the
    checker reports `expected type '<previous>' but found '<current>'` and types it as error.
    """
    if previous is None:
        return current, m
    extended = is_assignable(m, previous, current)
    if extended is None:
        return None
    return most_general(previous, current), extended


def element_types_compatible(previous: Type, current: Type) -> bool:
    """Whether two literal elements may appear in one homogeneous list/map literal."""
    return join_element_types(TypeMapping(), previous, current) is not None
