"""CEL runtime values.

Why native Python values: JSON-shaped admission data (dict/list/str/int/float/bool/None) *is*
already a CEL value in this representation, so `object`/`params` are used without copying and
nested values are only touched when an expression reads them (lazy by construction). cel-python's
`celtypes` deviate from cel-go where it matters here (`IntType(1) == DoubleType(1.0)` raises
instead of heterogeneous equality, timestamps/durations keep microseconds instead of
nanoseconds, map lookups do not normalise numeric keys, `BoolType(True) == IntType(1)`), so only
its `UintType` is used, as the marker of the CEL `uint` type (an `int` subclass, so numeric map
keys normalise for free). Everything else is a small class here.

| CEL type | Python |
|---|---|
| null_type | `None` |
| bool / int / double / string / bytes | `bool` / `int` / `float` / `str` / `bytes` |
| uint | `celpy.celtypes.UintType` |
| list / map | `list` or `tuple` / `dict` |
| timestamp / duration | `Timestamp` / `Duration` (nanosecond precision) |
| type | `TypeValue` |
| optional_type | `Optional` |
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping, Sequence
from typing import Any

from celpy.celtypes import UintType

from vap_lsp.cel.library.decls import Binding, BindingStyle, Trait

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "NONE",
    "UINT64_MAX",
    "CelError",
    "CostLimitExceeded",
    "Duration",
    "GoPanic",
    "LibraryValue",
    "Optional",
    "Timestamp",
    "TypeValue",
    "TypedList",
    "TypedMap",
    "TypedStruct",
    "UintType",
    "Value",
    "assertion_panic",
    "cel_equals",
    "cel_hash_key",
    "format_key",
    "from_python",
    "go_equals",
    "go_value_type",
    "no_such_overload",
    "num_compare",
    "overload_error",
    "size_of",
    "to_python",
    "traits_of",
    "type_name",
    "type_string",
]

Value = Any
"""Any CEL runtime value (see the module table)."""

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


class CelError(Exception):
    """A CEL evaluation error (cel-go's `types.Err`); `message` is cel-go's text."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CostLimitExceeded(Exception):
    """Not a CEL error value: aborts the whole evaluation (cel-go panics with
    EvalCancelledError), so `false && <over limit>` is not absorbed."""

    message = "operation cancelled: actual cost limit exceeded"

    def __init__(self) -> None:
        super().__init__(self.message)


class GoPanic(Exception):
    """Not a CEL error value: a Go panic inside cel-go or Kubernetes' library, which the program's
    `Eval` recovers as `internal error: <panic>` (cel-go cel/program.go, its deferred
    `recover`). It aborts the whole evaluation like `CostLimitExceeded`: `||`, `&&` and macros do
    not absorb it."""

    def __init__(self, panic: str) -> None:
        self.message = f"internal error: {panic}"
        super().__init__(self.message)


def assertion_panic(value: object, asserted: str) -> GoPanic | None:
    """The panic of a Go type assertion on a CEL value, None when it holds, as Go words it:
    `v.(traits.Lister)` on a value that is no list names the value's dynamic Go type and the
    first method of the interface (by name) that type lacks (one that can be added,
    `traits.Adder`, lacks `Contains`, any other `Add`); `v.(types.Int)` names both types."""
    go_type = go_value_type(value)
    if asserted == "traits.Lister":
        traits = traits_of(value)
        if traits & Trait.LISTER == Trait.LISTER:
            return None
        missing = "Contains" if traits & Trait.ADDER else "Add"
        return GoPanic(f"interface conversion: {go_type} is not traits.Lister: missing method {missing}")
    if go_type == asserted:
        return None
    return GoPanic(f"interface conversion: ref.Val is {go_type}, not {asserted}")


def go_value_type(value: object) -> str:
    """The Go type cel-go holds a runtime value in (`%T`; what a Go panic names): `*types.Err`
    for an error, `*types.baseMap` for a JSON or literal map, `types.Int`, ... A library value's
    own `go_type`; Kubernetes 1.37's typed values are reflected (`*common.reflectSchemalessTyped...`)."""
    if isinstance(value, CelError):
        return "*types.Err"
    if value is None:
        return "types.Null"
    if isinstance(value, bool):
        return "types.Bool"
    if isinstance(value, UintType):
        return "types.Uint"
    if isinstance(value, TypedStruct):
        return "*common.reflectSchemalessTypedStruct"
    if isinstance(value, TypedMap):
        return "*common.reflectSchemalessTypedMap"
    if isinstance(value, TypedList):
        return "*common.reflectSchemalessTypedList"
    for python, go in _GO_TYPES:
        if isinstance(value, python):
            return go
    return str(getattr(value, "go_type", "") or type(value).__name__)


def no_such_overload() -> CelError:
    """cel-go's `types.NoSuchOverloadErr`: what an implementation answers for arguments it does
    not take (`MaybeNoSuchOverloadErr`, the operand traits' methods, `ValOrErr`)."""
    return CelError("no such overload")


class TypeValue:
    """A CEL type used as a value (`type(1) == int`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeValue) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class Optional:
    """cel-go `types.Optional`: a value or none."""

    __slots__ = ("has_value", "value")

    def __init__(self, value: Value, has_value: bool = True) -> None:
        self.value = value
        self.has_value = has_value

    def get(self) -> Value:
        if not self.has_value:
            raise CelError("optional.none() dereference")
        return self.value

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.has_value else "optional.none()"


NONE = Optional(None, False)

_NANOS = 1_000_000_000
MIN_UNIX = -62135596800  # 0001-01-01T00:00:00Z
MAX_UNIX = 253402300799  # 9999-12-31T23:59:59Z


class Duration:
    """A signed duration in nanoseconds (Go `time.Duration` range)."""

    __slots__ = ("nanos",)

    def __init__(self, nanos: int) -> None:
        if not INT64_MIN <= nanos <= INT64_MAX:
            raise CelError("duration overflow")
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.nanos == self.nanos

    def __hash__(self) -> int:
        return hash(("duration", self.nanos))

    def __repr__(self) -> str:
        from vap_lsp.cel.runtime.timefmt import format_duration

        return f"duration({format_duration(self.nanos)!r})"


class Timestamp:
    """Nanoseconds since the Unix epoch in [0001-01-01, 9999-12-31T23:59:59.999999999] UTC, and
    the zone offset (seconds east) it was parsed with: Go's `time.Time` keeps it, so cel-go
    prints it and reads the wall clock there. Equal instants are equal whatever their offsets."""

    __slots__ = ("nanos", "offset")

    def __init__(self, nanos: int, offset: int = 0) -> None:
        if not MIN_UNIX * _NANOS <= nanos < (MAX_UNIX + 1) * _NANOS:
            raise CelError("timestamp overflow")
        self.nanos = nanos
        self.offset = offset

    @property
    def seconds(self) -> int:
        return self.nanos // _NANOS

    @property
    def subsec(self) -> int:
        return self.nanos % _NANOS

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.nanos == self.nanos

    def __hash__(self) -> int:
        return hash(("timestamp", self.nanos))

    def __repr__(self) -> str:
        from vap_lsp.cel.runtime.timefmt import format_timestamp

        return f"timestamp({format_timestamp(self)!r})"


class LibraryValue:
    """Base of library object values (Quantity, URL, IP, …): `cel_type` names their CEL type."""

    __slots__ = ()
    cel_type = "object"
    go_type = ""
    """The Go type the library's value is (`cel.Quantity`, `library.authorizerVal`): what a Go
    panic names (`go_value_type`)."""

    def equals(self, other: object) -> bool:
        return self == other

    def is_zero_value(self) -> bool:
        """cel-go's `IsZeroValue` (for `optional.ofNonZeroValue`); library values are never zero
        unless their type says so."""
        return False


_NAMES: dict[type, str] = {
    bool: "bool",
    int: "int",
    UintType: "uint",
    float: "double",
    str: "string",
    bytes: "bytes",
    type(None): "null_type",
    list: "list",
    tuple: "list",
    dict: "map",
    Timestamp: "google.protobuf.Timestamp",
    Duration: "google.protobuf.Duration",
    TypeValue: "type",
    Optional: "optional_type",
}


def type_name(v: Value) -> str:
    """The CEL type name of a runtime value (cel-go `v.Type().TypeName()`), as `type(v)` and
    `no such overload: f(<type names>)` print it. Kubernetes 1.37's schemaless typed values are
    `map` and `list` (valuesschemalesstyped.go: `Type()` is `types.MapType`/`types.ListType`), as
    the JSON objects of earlier versions are; a library value names its type (`net.IP`,
    `kubernetes.Quantity`, a MAP `Object{...}`'s type)."""
    name = _NAMES.get(type(v))
    if name is not None:
        return name
    if isinstance(v, LibraryValue):
        return v.cel_type
    if isinstance(v, (list, tuple)):
        return "list"
    if isinstance(v, Mapping):
        return "map"
    return type(v).__name__


_PARAMETERISED = {"list": "list(dyn)", "map": "map(dyn, dyn)", "optional_type": "optional_type(dyn)"}


def type_string(v: Value) -> str:
    """cel-go's `%v` of a value's runtime type (`Type.String`): its name, and the `dyn`
    parameters of the runtime list, map and optional types (`list(dyn)`)."""
    name = type_name(v)
    return _PARAMETERISED.get(name, name)


_NUMBER = Trait.ADDER | Trait.COMPARER | Trait.DIVIDER | Trait.MULTIPLIER | Trait.SUBTRACTOR
_TIME = Trait.ADDER | Trait.COMPARER | Trait.RECEIVER | Trait.SUBTRACTOR
_TRAITS: dict[str, Trait] = {
    "bool": Trait.COMPARER | Trait.NEGATOR,
    "bytes": Trait.ADDER | Trait.COMPARER | Trait.SIZER,
    "double": _NUMBER | Trait.NEGATOR,
    "google.protobuf.Duration": _TIME | Trait.NEGATOR,
    "int": _NUMBER | Trait.MODDER | Trait.NEGATOR,
    "list": Trait.LISTER,
    "map": Trait.CONTAINER | Trait.INDEXER | Trait.ITERABLE | Trait.SIZER,
    "string": Trait.ADDER | Trait.COMPARER | Trait.MATCHER | Trait.RECEIVER | Trait.SIZER,
    "google.protobuf.Timestamp": _TIME,
    "uint": _NUMBER | Trait.MODDER,
}
"""The trait masks of cel-go's runtime types (common/types/types.go, the same from v0.17 to v0.29);
null, type and optional values have none, and so have Kubernetes' library types as far as any
binding asks (`types.NewTypeValue`, `cel.OpaqueType`; object types carry only FieldTester and
Indexer)."""


def traits_of(v: Value) -> Trait:
    """The operand traits of a runtime value's type (cel-go `v.Type().HasTrait`)."""
    if isinstance(v, LibraryValue):
        return Trait.NONE
    return _TRAITS.get(type_name(v), Trait.NONE)


def overload_error(
    binding: Binding | None, function: str, args: Sequence[Value], *, call_id: int | None = None
) -> CelError:
    """What a call of `function` answers when none of its overloads fits its runtime `args`, by
    how the function is bound (`binding`; None: cel-go's dispatcher has no implementation of it):

    * per overload: `no such overload: <function>(<type names>)` (common/decls/decls.go
      `MaybeNoSuchOverload` from the guards `guardedUnaryOp`/`guardedBinaryOp`/
      `guardedFunctionOp` and the dispatch over several overloads);
    * a singleton whose operand trait the first argument has, or a receiver (string, timestamp,
      duration: its `Receive` knows none of these functions), or guards disabled: the
      implementation answers, plain `no such overload`;
    * otherwise interpreter/interpretable.go `evalUnary`/`evalBinary`: `no such overload:
      <function>`, and `evalVarArgs` (three arguments or more) adds the call's node id from
      cel-go v0.20, which the caller passes as `call_id` then."""
    if binding is not None and binding.style is BindingStyle.OVERLOADS:
        return CelError(f"no such overload: {function}({', '.join(type_name(a) for a in args)})")
    if binding is not None and binding.style is BindingStyle.UNGUARDED:
        return no_such_overload()
    traits = traits_of(args[0]) if args else Trait.NONE
    if binding is not None and traits & binding.trait == binding.trait:
        return no_such_overload()
    if traits & Trait.RECEIVER:
        return no_such_overload()
    if not args:
        return CelError(f"no such overload: {function}()")
    if call_id is not None and len(args) > 2:
        return CelError(f"no such overload: {function} {call_id}")
    return CelError(f"no such overload: {function}")


def _double_vs_integer(d: float, i: int, unsigned: bool) -> int:
    """cel-go `compareDoubleInt`/`compareDoubleUint`: outside the integer type's range the double
    wins; inside, the integer is converted to double (lossy: 2^63-1 equals 2^63 as a double)."""
    if d < (0 if unsigned else INT64_MIN):
        return -1
    if d > float(UINT64_MAX if unsigned else INT64_MAX):
        return 1
    f = float(i)
    return -1 if d < f else (1 if d > f else 0)


def num_compare(a: Value, b: Value) -> int:
    """cel-go's ordering of two numbers of any of int/uint/double (NaN handled by callers)."""
    ta, tb = type(a), type(b)
    if ta is float and tb is not float:
        return _double_vs_integer(a, int(b), tb is UintType)
    if tb is float and ta is not float:
        return -_double_vs_integer(b, int(a), ta is UintType)
    x = int(a) if ta is UintType else a
    y = int(b) if tb is UintType else b
    return -1 if x < y else (1 if x > y else 0)


def _num_equals(a: Value, b: Value) -> bool:
    # NaN equals nothing; int/uint exact; with a double, cel-go's lossy comparison
    if (type(a) is float and math.isnan(a)) or (type(b) is float and math.isnan(b)):
        return False
    return num_compare(a, b) == 0


_NUMERIC = (int, UintType, float)


def cel_equals(a: Value, b: Value) -> bool:
    """cel-go `Equal` with heterogeneous numeric equality; values of other kinds are unequal."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in _NUMERIC and tb in _NUMERIC:
        return _num_equals(a, b)
    if ta is str or ta is bytes:
        return ta is tb and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        return all(cel_equals(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_get(b, k)
            if not found or not cel_equals(v, other):
                return False
        return True
    if isinstance(a, Optional):
        if not isinstance(b, Optional):
            return False
        if not a.has_value or not b.has_value:
            return a.has_value == b.has_value
        return cel_equals(a.value, b.value)
    if isinstance(a, LibraryValue):
        return a.equals(b)
    return bool(a == b)


# --- Kubernetes 1.37's schemaless typed values -----------------------------------------------------


class TypedStruct(dict[str, Any]):
    """A Go struct of a built-in kind as admission CEL sees it from Kubernetes 1.37
    (apiserver pkg/cel/common/valuesschemalesstyped.go `reflectSchemalessTypedStruct`): a map
    whose `==` against a value that is not a map is an error. `go_type` names its Go type (the
    OpenAPI definition), which struct-to-struct equality compares (`apiequality.Semantic`)."""

    __slots__ = ("go_type",)

    def __init__(self, items: Mapping[str, Any], go_type: str) -> None:
        super().__init__(items)
        self.go_type = go_type


class TypedMap(dict[str, Any]):
    """A Go map of a built-in kind (labels, a ConfigMap's data) from Kubernetes 1.37
    (valuesschemalesstyped.go `reflectSchemalessTypedMap`)."""

    __slots__ = ()


class TypedList(list[Any]):
    """A Go slice of a built-in kind from Kubernetes 1.37 (valuesschemalesstyped.go
    `reflectSchemalessTypedList`)."""

    __slots__ = ()


_TYPED = (TypedStruct, TypedMap, TypedList)


def go_equals(a: Value, b: Value) -> bool | CelError:
    """cel-go `types.Equal` (common/types/util.go: null equals only null, else `a.Equal(b)`)
    over values that may hold Kubernetes 1.37's schemaless typed values; an error is returned,
    not raised, as cel-go returns an error value. Without typed values this is `cel_equals`."""
    if a is None or b is None:
        return a is None and b is None
    return _equal(a, b)


def _equal(a: Value, b: Value) -> bool | CelError:
    """`a.Equal(b)` (ref.Val): the receiver's own semantics, without the null check."""
    ta = type(a)
    if ta is TypedStruct:
        return _struct_equal(a, b)
    if ta is TypedMap:
        # reflectSchemalessTypedMap.Equal: another map, every key found and Equal to True
        if not isinstance(b, dict):
            return no_such_overload()
        if len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_get(b, k)
            if not found or _equal(v, other) is not True:
                return False
        return True
    if ta is TypedList:
        # reflectSchemalessTypedList.Equal: another list, every element Equal to True
        if not isinstance(b, (list, tuple)):
            return no_such_overload()
        if len(a) != len(b):
            return False
        return all(_equal(x, y) is True for x, y in zip(a, b, strict=True))
    if isinstance(a, (list, tuple)):
        # cel-go baseList.Equal (literals and comprehension results alike: a mutable list is
        # made immutable as the comprehension ends): only an element comparison that is False
        # decides; an error between elements (a typed element) counts as equal
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        return all(go_equals(x, y) is not False for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        # cel-go baseMap.Equal, the same way
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_get(b, k)
            if not found or go_equals(v, other) is False:
                return False
        return True
    if a is None:
        return b is None
    return cel_equals(a, b)


def _struct_equal(a: TypedStruct, b: Value) -> bool | CelError:
    """reflectSchemalessTypedStruct.Equal: two structs are `apiequality.Semantic.DeepEqual` (Go
    values of different types never are); against another map, the first field that is not
    Equal decides, an error included; anything else is `no such overload`."""
    if type(b) is TypedStruct:
        return a.go_type == b.go_type and cel_equals(a, b)
    if not isinstance(b, dict):
        return no_such_overload()
    if len(a) != len(b):
        return False
    for k, v in a.items():
        found, other = map_get(b, k)
        if not found:
            return False
        eq = _equal(v, other)
        if eq is not True:
            return eq
    return True


def map_get(m: Mapping[Any, Value], key: Value) -> tuple[bool, Value]:
    """Map lookup with cel-go's key semantics: numeric keys normalise (1 == 1u == 1.0), a bool
    never finds an int key and vice versa, a non-integral double finds nothing."""
    tk = type(key)
    if tk is str:
        if key in m:
            return True, m[key]
        return False, None
    if tk is float:
        if not math.isfinite(key) or key != int(key):
            return False, None
        key = int(key)
        tk = int
    elif tk is UintType:
        key = int(key)
        tk = int
    try:
        if key in m:
            for stored in m:  # distinguish True/1 and False/0 (equal and same hash in Python)
                if stored == key and (type(stored) is bool) == (tk is bool):
                    return True, m[stored]
            return False, None
    except TypeError:
        return False, None
    return False, None


def cel_hash_key(key: Value) -> Value:
    """Validate a map literal key (cel-go allows int, uint, bool, string)."""
    if type(key) in (str, int, bool, UintType):
        return key
    raise CelError(f"unsupported key type: {type_name(key)}")


def format_key(key: Value) -> str:
    """Go `%v` of a CEL value, as in `no such key: <key>`."""
    if type(key) is bool:
        return "true" if key else "false"
    if type(key) is float:
        from vap_lsp.golang.fmt import format_g

        return format_g(key)
    if isinstance(key, bytes):
        return key.decode("utf-8", "replace")
    if key is None:
        return "<nil>"
    return str(int(key)) if isinstance(key, int) else str(key)


def size_of(v: Value) -> int:
    """cel-go `actualSize`: size of strings (code points), bytes, lists, maps; else 1."""
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    if isinstance(v, Optional) and v.has_value:
        return size_of(v.value)
    return 1


_PASS = frozenset({str, int, float, bool, type(None), dict, list, TypedStruct, TypedMap, TypedList})


def from_python(v: object) -> Value:
    """Convert JSON-shaped data to a CEL value; containers are converted on access (see
    `normalize`), so this is constant-time for dicts and lists."""
    return normalize(v)


def normalize(v: object) -> Value:
    """One value read from JSON-shaped data: JSON types pass through; YAML timestamps become
    RFC 3339 strings (Kubernetes values are JSON: timestamps are strings); tuples are lists."""
    t = type(v)
    if t in _PASS:
        return v
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, UintType):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, str):
        return str(v)
    if isinstance(v, dict):
        return dict(v)
    if isinstance(v, Mapping):
        return v  # a lazy mapping (e.g. `variables`): read on access, never copied
    if isinstance(v, tuple):
        return v
    if isinstance(v, _dt.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=_dt.UTC)
        return v.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, (bytes, Timestamp, Duration, TypeValue, Optional, LibraryValue)):
        return v
    if isinstance(v, (list, set, frozenset)):
        return list(v)
    raise CelError(f"unsupported conversion to ref.Val: ({type(v).__name__}){v!r}")


JSON_LEAVES = frozenset({str, int, float, bool, type(None)})


def to_python(v: Value) -> object:
    """A CEL value back to JSON-shaped Python data (uint → int, timestamp → RFC 3339 string,
    duration → Go duration string, optional → its value or None)."""
    if type(v) in JSON_LEAVES:  # first: reports convert every leaf of an object
        return v
    from vap_lsp.cel.runtime.timefmt import format_go_duration, format_timestamp

    if isinstance(v, UintType):
        return int(v)
    if isinstance(v, (list, tuple)):
        return [to_python(x) for x in v]
    if isinstance(v, dict):
        return {to_python(k): to_python(x) for k, x in v.items()}
    if isinstance(v, Timestamp):
        return format_timestamp(v)
    if isinstance(v, Duration):
        return format_go_duration(v.nanos)
    if isinstance(v, Optional):
        return to_python(v.value) if v.has_value else None
    if isinstance(v, TypeValue):
        return v.name
    if isinstance(v, bytes):
        import base64

        return base64.b64encode(v).decode("ascii")
    if isinstance(v, LibraryValue):
        return str(v)
    return v


_GO_TYPES: tuple[tuple[type, str], ...] = (
    (int, "types.Int"),
    (float, "types.Double"),
    (str, "types.String"),
    (bytes, "types.Bytes"),
    (Duration, "types.Duration"),
    (Timestamp, "types.Timestamp"),
    (Optional, "*types.Optional"),
    (TypeValue, "*types.Type"),
    (dict, "*types.baseMap"),
    (list, "*types.baseList"),
)
"""cel-go's Go type for each runtime value class (after the cases `go_value_type` tells apart
first: bool and uint are ints here, Kubernetes 1.37's typed values are dicts and lists)."""
