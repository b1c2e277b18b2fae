"""Every overload of every library function, in every Kubernetes version 1.30–1.37.

For each environment (minor × `new`/`stored` mode; MAP patch-type functions only where
mutations' expressions see them) a call is built from each overload's signature — operators in
their syntax, receiver-style as `a.f(b)`, global as `f(a, b)` — over variables declared with
the parameter types (type parameters instantiated with `int`, `string`, `bool`, … so swapped
parameters do not unify). Available overloads must type-check to the declared result type (type
parameters that occur only in the result become `dyn`, as in cel-go); absent ones must be
rejected, with a hint naming a later version that declares them (or the version that removed
them).

Why: the declaration tables are hand-written from cel-go and Kubernetes sources; this catches a
mistyped signature, a wrong `Since`, or a checker path that only some overloads exercise.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import CompileResult, compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, Mode, build_environment
from vap_lsp.cel.library import all_overloads, minor_of
from vap_lsp.cel.library.decls import Overload

MINORS = range(30, 38)
MODES: tuple[Mode, ...] = ("new", "stored")
CONCRETE = (t.INT, t.STRING, t.BOOL, t.DOUBLE, t.UINT, t.BYTES)
"""Instantiations of an overload's type parameters, in order of first occurrence."""

_UNARY = {"!_": "!{0}", "-_": "-{0}"}
_BINARY = {
    "_+_": "+",
    "_-_": "-",
    "_*_": "*",
    "_/_": "/",
    "_%_": "%",
    "_==_": "==",
    "_!=_": "!=",
    "_<_": "<",
    "_<=_": "<=",
    "_>_": ">",
    "_>=_": ">=",
    "_&&_": "&&",
    "_||_": "||",
    "@in": "in",
}
_SPECIAL = {"_?_:_": "{0} ? {1} : {2}", "_[_]": "{0}[{1}]", "_[?_]": "{0}[?{1}]", "_?._": "{0}.?f"}


def _internal(overload: Overload) -> bool:
    """Functions that cannot be written in source (`@not_strictly_false`, `cel.@mapInsert`)."""
    return "@" in overload.function and overload.function != "@in"


@dataclass(frozen=True)
class Case:
    overload: Overload
    text: str
    variables: dict[str, t.Type]
    expected: t.Type

    @property
    def patch_only(self) -> bool:
        return self.overload.function.startswith("jsonpatch.")


def _instantiate(typ: t.Type, subs: dict[str, t.Type]) -> t.Type:
    if typ.kind is t.Kind.TYPE_PARAM:
        return subs.get(typ.name, t.DYN)
    if not typ.params:
        return typ
    return t.Type(typ.kind, typ.name, tuple(_instantiate(p, subs) for p in typ.params))


def _case(index: int, overload: Overload) -> Case:
    param_params = t.type_params_of(overload.params)
    subs = {name: CONCRETE[i % len(CONCRETE)] for i, name in enumerate(param_params)}
    names = [f"v{index}_{j}" for j in range(len(overload.params))]
    variables = {n: _instantiate(p, subs) for n, p in zip(names, overload.params, strict=True)}
    fn = overload.function
    if fn == "_?._":
        names, variables = names[:1], {names[0]: variables[names[0]]}  # the field is a name
    if fn in _UNARY:
        text = _UNARY[fn].format(*names)
    elif fn in _BINARY:
        text = f"{names[0]} {_BINARY[fn]} {names[1]}"
    elif fn in _SPECIAL:
        text = _SPECIAL[fn].format(*names)
    elif overload.receiver_style:
        text = f"{names[0]}.{fn}({', '.join(names[1:])})"
    else:
        text = f"{fn}({', '.join(names)})"
    return Case(overload, text, variables, _instantiate(overload.result, subs))


CASES: tuple[Case, ...] = tuple(
    _case(i, o) for i, o in enumerate(all_overloads(patch_types=True)) if not _internal(o)
)


def _environment(minor: int, mode: Mode, patch: bool) -> Environment:
    """The base environment plus one variable per overload parameter."""
    kind = ExpressionKind.MAP_JSON_PATCH if patch else ExpressionKind.VARIABLE
    env = build_environment(f"1.{minor}", kind, has_params=False, mode=mode)
    declared = dict(env.variables)
    for case in CASES:
        declared.update(case.variables)
    return dataclasses.replace(env, variables=declared)


def _check_issues(result: CompileResult) -> list[str]:
    return [i.message for i in result.issues if i.phase in ("syntax", "check")]


def _available(overload: Overload, minor: int, mode: Mode) -> bool:
    return overload.since.available(minor, stored=mode == "stored")


_HINT = re.compile(r"available from Kubernetes (1\.\d+)")


def _verdicts(minor: int, mode: Mode) -> Iterator[str]:
    """Every disagreement in one environment, as a readable line."""
    envs = {patch: _environment(minor, mode, patch) for patch in (False, True)}
    for case in CASES:
        env = envs[case.patch_only]
        result = compile_expression(case.text, env)
        issues = _check_issues(result)
        label = f"1.{minor} {mode} {case.overload.id} `{case.text}`"
        if _available(case.overload, minor, mode):
            got = result.checked.output_type if result.checked is not None else None
            if issues or got is None or t.format_cel_type(got) != t.format_cel_type(case.expected):
                shown = t.format_cel_type(got) if got is not None else None
                yield f"{label}: expected {t.format_cel_type(case.expected)}, got {shown} {issues}"
            continue
        if not issues:
            yield f"{label}: accepted although absent"
            continue
        removed = case.overload.since.removed
        if removed is not None and minor >= removed:
            if not any(f"was removed in Kubernetes 1.{removed}" in m for m in issues):
                yield f"{label}: no hint saying it was removed in 1.{removed}: {issues}"
            continue
        hints = [m for m in map(_HINT.search, issues) if m is not None]
        newest = case.overload.since.new_since
        if not hints or not minor < minor_of(hints[0].group(1)) <= newest:
            yield f"{label}: no hint naming a version in 1.{minor + 1}–1.{newest}: {issues}"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("minor", MINORS)
def test_every_overload_checks_to_its_result_type(minor: int, mode: Mode) -> None:
    assert list(_verdicts(minor, mode)) == []


def test_cases_cover_every_library_overload() -> None:
    written = {c.overload.id for c in CASES}
    internal = {o.id for o in all_overloads(patch_types=True) if _internal(o)}
    assert written | internal == {o.id for o in all_overloads(patch_types=True)}
    assert len(written) > 300


def test_patch_type_functions_only_in_mutations() -> None:
    escape = next(c for c in CASES if c.patch_only)
    env = _environment(37, "new", patch=False)
    assert _check_issues(compile_expression(escape.text, env)) != []
    assert _check_issues(compile_expression(escape.text, _environment(37, "new", patch=True))) == []


def test_some_overloads_are_absent_in_older_versions() -> None:
    absent = [c for c in CASES if not _available(c.overload, 30, "new")]
    assert len(absent) > 50  # so the hint assertions are exercised
    assert any(c.overload.since.removed is not None for c in CASES)
