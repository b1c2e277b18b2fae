"""The environment google/cel-spec's conformance suite is run in (`tools/cel_conformance.py`).

Why a separate environment: the suite tests plain CEL plus cel-go extensions the API server does
not load (math, encoders, bindings, block, network). Those are declared here only, on top of the
newest Kubernetes library set, so no Kubernetes environment (`environment.build_environment`)
ever sees them. The suite's variables and functions come from each test's `type_env`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from vap_lsp.cel import library as lib
from vap_lsp.cel.ast import ParsedExpr
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.cel.library import celext
from vap_lsp.cel.library.decls import FunctionDecl
from vap_lsp.cel.macros import ALL_MACROS, BLOCK_MACROS
from vap_lsp.cel.parser import parse
from vap_lsp.cel.types import Type

__all__ = ["ConformanceDecls", "conformance_environment", "conformance_parse"]


@dataclass(frozen=True)
class ConformanceDecls:
    """A test's `type_env`: variables and extra functions."""

    variables: Mapping[str, Type] = field(default_factory=dict)
    functions: Mapping[str, FunctionDecl] = field(default_factory=dict)


_EXTENSIONS = (celext.MATH, celext.ENCODERS, celext.STRINGS_V3)


@lru_cache(maxsize=1)
def _base() -> Environment:
    k8s = build_environment(f"1.{lib.NEWEST_MINOR}", ExpressionKind.VARIABLE, has_params=False, mode="stored")
    extra = lib._group(o for library in _EXTENSIONS for o in library.overloads)
    return replace(
        k8s,
        functions=_merge(k8s.functions, extra),
        nested_functions=_merge(k8s.nested_functions, extra),
        # plain CEL: mixed list/map literals are list(dyn)/map(K, dyn) (Kubernetes sets
        # cel.HomogeneousAggregateLiterals)
        features=replace(k8s.features, homogeneous_aggregate_literals=False),
    )


def _merge(a: Mapping[str, FunctionDecl], b: Mapping[str, FunctionDecl]) -> dict[str, FunctionDecl]:
    out = dict(a)
    for name, decl in b.items():
        old = out.get(name)
        out[name] = decl if old is None else FunctionDecl(name, old.overloads + decl.overloads)
    return out


def conformance_environment(decls: ConformanceDecls, container: str = "") -> Environment:
    """The newest Kubernetes library set, the conformance-only extensions, and the test's decls."""
    base = _base()
    functions = _merge(base.functions, decls.functions)
    nested = _merge(base.nested_functions, decls.functions)
    return replace(
        base,
        variables=dict(decls.variables),
        functions=functions,
        nested_functions=nested,
        container=container,
    )


def conformance_parse(text: str, env: Environment, *, macros: bool = True) -> ParsedExpr:
    """Parse with every macro (or none: `disable_macros`), optional syntax and backtick escapes."""
    return parse(
        text, macros=ALL_MACROS | BLOCK_MACROS if macros else frozenset(), enable_optional_syntax=True
    )
