"""Function and macro declarations of the Kubernetes CEL environment, by version.

`LIBRARIES` lists every library in the order `kubernetes/apiserver pkg/cel/environment/base.go`
adds it (after the cel-go standard library); that order is the order of overloads within a
function, which decides the result type when several overloads match a `dyn` argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from types import MappingProxyType

from vap_lsp.cel.library import ext, kubernetes
from vap_lsp.cel.library.decls import (
    ALWAYS,
    OVERLOADS,
    Binding,
    BindingStyle,
    FunctionDecl,
    Library,
    MacroDecl,
    Overload,
    Since,
    Trait,
    minor_of,
    version_str,
)
from vap_lsp.cel.library.stdlib import STDLIB, TYPE_IDENTIFIERS

LIBRARIES: tuple[Library, ...] = (
    STDLIB,
    kubernetes.URLS,
    kubernetes.REGEX,
    kubernetes.LISTS,
    kubernetes.AUTHZ,
    ext.OPTIONAL,
    kubernetes.QUANTITY_LIB,
    ext.STRINGS,
    ext.SETS,
    kubernetes.IP_LIB,
    kubernetes.CIDR_LIB,
    kubernetes.FORMAT,
    kubernetes.AUTHZ_SELECTORS,
    ext.TWO_VAR_COMPREHENSIONS,
    kubernetes.SEMVER_LIB,
    ext.LISTS,
    kubernetes.JSONPATCH,
)

# cel-go compiled into each Kubernetes minor (kubernetes/apiserver go.mod at each tag).
CEL_GO_VERSIONS: dict[int, str] = {
    27: "v0.12.6",
    28: "v0.16.0",
    29: "v0.17.7",
    30: "v0.17.8",
    31: "v0.20.1",
    32: "v0.22.0",
    33: "v0.23.2",
    34: "v0.26.0",
    35: "v0.26.0",
    36: "v0.26.0",
    37: "v0.29.2",
}


def cel_go_before(minor: int, version: tuple[int, int]) -> bool:
    """Whether the cel-go of Kubernetes 1.`minor` (`CEL_GO_VERSIONS`; a newer minor: the newest
    known) is older than `version` (major, minor)."""
    text = CEL_GO_VERSIONS.get(minor) or CEL_GO_VERSIONS[max(CEL_GO_VERSIONS)]
    major_, minor_ = (int(x) for x in text.lstrip("v").split(".")[:2])
    return (major_, minor_) < version


OLDEST_MINOR = 28
"""Oldest minor modelled faithfully (first with base.go's versioned environment)."""
NEWEST_MINOR = 37


def all_overloads(*, patch_types: bool = True) -> Iterable[Overload]:
    for library in LIBRARIES:
        if library.patch_types_only and not patch_types:
            continue
        yield from library.overloads


_BINDINGS: dict[str, Binding] = {name: b for library in LIBRARIES for name, b in library.bindings.items()}


def binding(function: str) -> Binding:
    """How cel-go binds `function` (`Library.bindings`; per overload unless its library says
    otherwise): what a call of it answers when no overload fits its runtime arguments."""
    return _BINDINGS.get(function, OVERLOADS)


def all_macros() -> Iterable[MacroDecl]:
    for library in LIBRARIES:
        yield from library.macros


def _group(overloads: Iterable[Overload]) -> dict[str, FunctionDecl]:
    grouped: dict[str, list[Overload]] = {}
    for overload in overloads:
        grouped.setdefault(overload.function, []).append(overload)
    return {name: FunctionDecl(name, tuple(ovs)) for name, ovs in grouped.items()}


@lru_cache(maxsize=128)
def functions_for(
    minor: int, *, stored: bool, patch_types: bool, nested_scope: bool = False
) -> Mapping[str, FunctionDecl]:
    """Functions declared in one environment: Kubernetes minor, env type, MAP patch types.

    `nested_scope` gives the view inside comprehension bodies (see `Since.nested_scopes_always`).
    """
    return MappingProxyType(
        _group(
            o
            for o in all_overloads(patch_types=patch_types)
            if o.since.available(minor, stored=stored, nested_scope=nested_scope)
        )
    )


def macros_for(minor: int, *, stored: bool) -> tuple[MacroDecl, ...]:
    return tuple(m for m in all_macros() if m.since.available(minor, stored=stored))


def _earliest(sinces: Iterable[Since], *, stored: bool) -> str | None:
    minors = [s.stored_since if stored else s.new_since for s in sinces]
    if not minors:
        return None
    return version_str(min(minors)) or f"1.{ALWAYS}"


def function_introduced_in(name: str, *, stored: bool, patch_types: bool = True) -> str | None:
    """Earliest Kubernetes minor where some overload of `name` exists in that env type.

    None if no library ever declares `name`; `"1.0"` if it always existed.
    """
    return _earliest(
        (o.since for o in all_overloads(patch_types=patch_types) if o.function == name), stored=stored
    )


def macro_introduced_in(name: str, arg_count: int, receiver_style: bool, *, stored: bool) -> str | None:
    """Like `function_introduced_in`, for a macro call shape."""
    return _earliest(
        (
            m.since
            for m in all_macros()
            if m.name == name
            and m.receiver_style == receiver_style
            and (m.arg_count is None or m.arg_count == arg_count)
        ),
        stored=stored,
    )


def library_summary() -> dict[str, tuple[int, int]]:
    """Library name → (number of functions, number of overloads); for documentation."""
    return {lib.name: (len({o.function for o in lib.overloads}), len(lib.overloads)) for lib in LIBRARIES}


__all__ = [
    "CEL_GO_VERSIONS",
    "LIBRARIES",
    "NEWEST_MINOR",
    "OLDEST_MINOR",
    "TYPE_IDENTIFIERS",
    "Binding",
    "BindingStyle",
    "FunctionDecl",
    "Library",
    "MacroDecl",
    "Overload",
    "Since",
    "Trait",
    "all_macros",
    "all_overloads",
    "binding",
    "function_introduced_in",
    "functions_for",
    "library_summary",
    "macro_introduced_in",
    "macros_for",
    "minor_of",
]
