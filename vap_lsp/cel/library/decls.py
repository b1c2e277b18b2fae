"""Function, overload and macro declarations, and the version model they carry.

Declarations are written as data rows `(overload id, signature, doc)` where the signature uses
the notation of the reference (`<list(A)>.indexOf(A) -> int` for receiver-style overloads,
`sets.contains(list(T), list(T)) -> bool` for global ones) and is parsed once at import.

Version model (Kubernetes minors, `1.N` kept as the int N internally):

* A library added to `kubernetes/apiserver pkg/cel/environment/base.go` with
  `IntroducedVersion: 1.C` is in the **stored-expressions** env of every 1.C+ server and in the
  **new-expressions** env only from 1.(C+1), because new expressions are checked against the
  compatibility version = binary minor − 1 (`environment.go filterAndBuildOpts`).
* Surface that comes from the cel-go version compiled into a binary (unversioned libraries such
  as `cel.OptionalTypes()`, standard-library changes) appears in **both** envs of that binary.
* `introduced` = first minor usable in new expressions, `stored_since` = first minor present in
  the stored env, `removed` = first minor where the overload is gone from both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, IntFlag

from vap_lsp.cel import types as t
from vap_lsp.cel.types import Type

ALWAYS = 0
"""Pseudo minor for surface present in every supported Kubernetes version."""


def minor_of(version: str) -> int:
    """`"1.31"` / `"v1.31.2"` → 31."""
    match = re.fullmatch(r"v?1\.(\d+)(?:\.\d+)?(?:[-+].*)?", version.strip())
    if match is None:
        raise ValueError(f"not a Kubernetes 1.x version: {version!r}")
    return int(match.group(1))


def version_str(minor: int | None) -> str | None:
    return None if minor is None or minor == ALWAYS else f"1.{minor}"


@dataclass(frozen=True, slots=True)
class Since:
    """Where a declaration comes from, in the two ways that can gate it.

    `compat`: `IntroducedVersion` of the base.go option that adds it (None: always).
    `binary`: first Kubernetes binary whose cel-go/apiserver code declares it (None: always).
    `removed`: first binary in which it is gone from both environments.
    """

    compat: int | None = None
    binary: int | None = None
    removed: int | None = None
    nested_scopes_always: bool = False
    """cel-go quirk: the gate is a checker overload filter that `Env.enterScope` does not copy,
    so inside comprehension bodies the overload is usable regardless (cross-type comparisons)."""

    def merged(self, other: Since) -> Since:
        """Combine a library's gating with a row's extra gating (the later version wins)."""
        return Since(
            compat=_latest(self.compat, other.compat),
            binary=_latest(self.binary, other.binary),
            removed=other.removed if other.removed is not None else self.removed,
            nested_scopes_always=self.nested_scopes_always or other.nested_scopes_always,
        )

    @property
    def new_since(self) -> int:
        compat = ALWAYS if self.compat is None else self.compat + 1
        return max(compat, self.binary or ALWAYS)

    @property
    def stored_since(self) -> int:
        return max(self.compat or ALWAYS, self.binary or ALWAYS)

    def available(self, minor: int, *, stored: bool, nested_scope: bool = False) -> bool:
        if self.removed is not None and minor >= self.removed:
            return False
        if nested_scope and self.nested_scopes_always:
            return True
        return minor >= (self.stored_since if stored else self.new_since)


def _latest(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


@dataclass(frozen=True, slots=True)
class Overload:
    """One overload of a CEL function (cel-go `decls.OverloadDecl`).

    As in cel-go, `params` of a receiver-style overload start with the receiver type.
    """

    id: str
    function: str
    params: tuple[Type, ...]
    result: Type
    receiver_style: bool
    type_params: tuple[str, ...]
    doc: str
    library: str
    since: Since = field(default_factory=Since)

    @property
    def introduced(self) -> str | None:
        """First Kubernetes minor usable in new expressions (None: every version)."""
        return version_str(self.since.new_since)

    @property
    def stored_since(self) -> str | None:
        return version_str(self.since.stored_since)

    @property
    def removed(self) -> str | None:
        return version_str(self.since.removed)

    @property
    def arg_count(self) -> int:
        """Number of arguments written in the call, receiver excluded."""
        return len(self.params) - (1 if self.receiver_style else 0)

    def signature(self) -> str:
        """Reference notation, e.g. `<list(A)>.indexOf(A) -> int`, for hover text."""
        params = [t.format_cel_type(p) for p in self.params]
        prefix = ""
        if self.receiver_style:
            prefix = f"<{params[0]}>."
            params = params[1:]
        return f"{prefix}{self.function}({', '.join(params)}) -> {t.format_cel_type(self.result)}"


class Trait(IntFlag):
    """cel-go's operand traits (common/types/traits/traits.go), the capabilities a runtime type
    declares in its trait mask (common/types/types.go); a singleton binding names the one its
    first argument must have."""

    NONE = 0
    ADDER = 1 << 0
    COMPARER = 1 << 1
    CONTAINER = 1 << 2
    DIVIDER = 1 << 3
    FIELD_TESTER = 1 << 4
    INDEXER = 1 << 5
    ITERABLE = 1 << 6
    ITERATOR = 1 << 7
    MATCHER = 1 << 8
    MODDER = 1 << 9
    MULTIPLIER = 1 << 10
    NEGATOR = 1 << 11
    RECEIVER = 1 << 12
    SIZER = 1 << 13
    SUBTRACTOR = 1 << 14
    LISTER = ADDER | CONTAINER | INDEXER | ITERABLE | SIZER
    """traits.ListerType."""


class BindingStyle(Enum):
    """How a function's implementation is bound in cel-go, which decides what a call answers when
    its runtime arguments fit no overload."""

    OVERLOADS = "overloads"
    """Each overload has its own binding (`UnaryBinding`/`BinaryBinding`/`FunctionBinding`):
    common/decls/decls.go guards each with its runtime signature (`matchesRuntime*Signature`:
    kinds, and the first element of a list or entry of a map) and answers `MaybeNoSuchOverload`,
    `no such overload: <function>(<argument type names>)`. Every Kubernetes library function."""
    UNGUARDED = "unguarded"
    """Overloads with bindings under `decls.DisableTypeGuards(true)`: the first overload of the
    call's arity runs whatever the arguments, and its implementation answers."""
    SINGLETON = "singleton"
    """`decls.Singleton*Binding`: one implementation for every overload, run when the first
    argument has the binding's operand trait (interpreter/interpretable.go `evalUnary`,
    `evalBinary`); else a receiver (string, timestamp, duration) is asked (`Receive`: plain
    `no such overload`), and anything else is `no such overload: <function>`."""


@dataclass(frozen=True, slots=True)
class Binding:
    """A function's binding style, declared beside the function in its library (`Library.bindings`;
    a function not listed there has `OVERLOADS`)."""

    style: BindingStyle
    trait: Trait = Trait.NONE
    """For a singleton: the operand trait its first argument must have (0: none asked)."""


OVERLOADS = Binding(BindingStyle.OVERLOADS)
UNGUARDED = Binding(BindingStyle.UNGUARDED)


def singleton(trait: Trait = Trait.NONE) -> Binding:
    return Binding(BindingStyle.SINGLETON, trait)


@dataclass(frozen=True, slots=True)
class FunctionDecl:
    """A CEL function and its overloads, in declaration order (order decides result types
    when several overloads match a `dyn` argument: cel-go keeps the first, or `dyn` on conflict)."""

    name: str
    overloads: tuple[Overload, ...]

    def overload(self, overload_id: str) -> Overload | None:
        return next((o for o in self.overloads if o.id == overload_id), None)


@dataclass(frozen=True, slots=True)
class MacroDecl:
    """A parser macro (cel-go `parser.Macro`): name, argument count, call style.

    `arg_count` None means variadic. Macros are expanded by the parser; the table tells the
    parser and checker which ones a given environment enables.
    """

    name: str
    arg_count: int | None
    receiver_style: bool
    doc: str
    library: str
    since: Since = field(default_factory=Since)

    @property
    def introduced(self) -> str | None:
        return version_str(self.since.new_since)

    @property
    def stored_since(self) -> str | None:
        return version_str(self.since.stored_since)

    def signature(self) -> str:
        args = "…" if self.arg_count is None else ", ".join(_MACRO_ARG_NAMES[: self.arg_count])
        return f"<target>.{self.name}({args})" if self.receiver_style else f"{self.name}({args})"


_MACRO_ARG_NAMES = ("a", "b", "c", "d")


@dataclass(frozen=True, slots=True)
class Library:
    """A set of declarations added to the environment as one base.go option."""

    name: str
    source: str
    overloads: tuple[Overload, ...]
    macros: tuple[MacroDecl, ...] = ()
    patch_types_only: bool = False
    """Declared only where Kubernetes adds MAP patch types (mutations' expressions)."""
    bindings: Mapping[str, Binding] = field(default_factory=dict)
    """The binding style of the library's functions that are not bound per overload (`OVERLOADS`)."""


# --- Signature parsing -------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*([A-Za-z_@.][A-Za-z0-9_@.]*|[(),])")


class NamedTypes:
    """Type names usable in signature rows: the CEL primitives plus library types."""

    def __init__(self, named: Mapping[str, Type]) -> None:
        self._named = named  # kept by reference: callers may register more names later

    def parse(self, text: str) -> Type:
        tokens = _tokenize(text)
        result, rest = self._parse(tokens)
        if rest:
            raise ValueError(f"trailing tokens in type {text!r}: {rest}")
        return result

    def _parse(self, tokens: list[str]) -> tuple[Type, list[str]]:
        name, rest = tokens[0], tokens[1:]
        args: list[Type] = []
        if rest and rest[0] == "(":
            rest = rest[1:]
            while rest[0] != ")":
                arg, rest = self._parse(rest)
                args.append(arg)
                if rest[0] == ",":
                    rest = rest[1:]
            rest = rest[1:]
        return self._build(name, args), rest

    def _build(self, name: str, args: list[Type]) -> Type:
        if len(name) == 1 and name.isupper():
            return t.type_param(name)
        if not args:
            return self._named[name]
        if name == "map":
            return t.map_of(*args)
        unary: dict[str, Callable[[Type], Type]] = {
            "list": t.list_of,
            "optional_type": t.optional_of,
            "type": t.type_of,
        }
        return unary[name](*args)


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ValueError(f"cannot tokenize {text!r} at {pos}")
        tokens.append(match.group(1))
        pos = match.end()
    return tokens


_SIGNATURE = re.compile(r"^(?:<(?P<recv>[^>]+)>\.)?(?P<name>[^(]+)\((?P<args>.*)\)\s*->\s*(?P<result>.+)$")


def _split_args(text: str) -> list[str]:
    """Split a comma-separated argument list at depth 0."""
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        current += ch
    if current.strip():
        parts.append(current)
    return [p.strip() for p in parts]


Row = tuple[str, str, str] | tuple[str, str, str, Since]
"""`(overload id, signature, doc[, extra gating])`."""


def build_overloads(
    library: str, named: NamedTypes, rows: Iterable[Row], since: Since
) -> tuple[Overload, ...]:
    """Parse signature rows into overloads gated by `since` (merged with each row's own)."""
    result: list[Overload] = []
    for row in rows:
        overload_id, signature, doc = row[0], row[1], row[2]
        row_since = since.merged(row[3]) if len(row) == 4 else since
        match = _SIGNATURE.match(signature)
        if match is None:
            raise ValueError(f"bad signature {signature!r}")
        params = [named.parse(a) for a in _split_args(match["args"])]
        receiver = match["recv"]
        if receiver is not None:
            params.insert(0, named.parse(receiver))
        result_type = named.parse(match["result"])
        result.append(
            Overload(
                id=overload_id,
                function=match["name"].strip(),
                params=tuple(params),
                result=result_type,
                receiver_style=receiver is not None,
                type_params=t.type_params_of([*params, result_type]),
                doc=doc,
                library=library,
                since=row_since,
            )
        )
    return tuple(result)


def templated(rows: Sequence[tuple[str, str, str]], type_names: Iterable[str]) -> list[tuple[str, str, str]]:
    """Expand `{T}` (type) and `{id}` (its spelling in overload ids) placeholders per type.

    cel-go and Kubernetes declare families such as `list_int_sum_int` with a loop over types.
    A spec `"google.protobuf.Timestamp=timestamp"` spells ids with the part before `=` and the
    signature with the part after; a plain `"int"` is used for both.
    """
    expanded: list[tuple[str, str, str]] = []
    for spec in type_names:
        ident, _, type_name = spec.partition("=")
        type_name = type_name or ident
        for overload_id, signature, doc in rows:
            expanded.append(
                (
                    overload_id.format(id=ident, T=type_name),
                    signature.format(id=ident, T=type_name),
                    doc.format(id=ident, T=type_name),
                )
            )
    return expanded


BASE_TYPES = {
    "int": t.INT,
    "uint": t.UINT,
    "double": t.DOUBLE,
    "bool": t.BOOL,
    "string": t.STRING,
    "bytes": t.BYTES,
    "null_type": t.NULL,
    "dyn": t.DYN,
    "any": t.ANY,
    "duration": t.DURATION,
    "timestamp": t.TIMESTAMP,
    "type": t.TYPE,
}
