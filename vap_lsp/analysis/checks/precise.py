"""`vap-lsp-type-check`: what context through variables finds and the server cannot see.

The server's compiler reads object types (and optionals) as `dyn` through `variables`; vap-lsp
keeps the type each variable's expression infers (the precise view, `model.context`), so
`variables.spec.replics` of a Deployment's spec is an undefined field. Only findings that fail on
the JSON-shaped values admission evaluates are reported, never as the server's verdict.
"""

from __future__ import annotations

from collections.abc import Mapping

from vap_lsp.analysis.checks.cel_text import issue_span
from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.checks.type_check import select_at, selects_from_open_data
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.analysis.model.context import IssueKey, PolicyContext, View, issue_key
from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping, VariableTyping
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Call, Expr, Ident, Select, children
from vap_lsp.cel.compile import CompileIssue, CompileResult
from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.types import Kind, Type, TypeMapping, is_assignable, is_optional, substitute

__all__ = ["CHECK", "PRECISE_CODE", "precise_check"]

PRECISE_CODE = "vap-lsp-type-check"
"""vap-lsp's own check through variables (never the server's verdict)."""


def precise_check(context: PolicyContext) -> list[Diagnostic]:
    """What context through variables finds and the server cannot: the server reads object types
    (and optionals) as `dyn` through `variables`, vap-lsp keeps the inferred types.

    Only findings that fail on the JSON-shaped values admission evaluates are reported (an
    undefined field of a typed object, an overload no runtime value could match), once per
    problem, with the kinds it holds for and the variables it reads as related information.
    A warning when it holds for every typed kind, else a hint (the expression may dispatch on
    `object.kind`).
    """
    if not any(site.kind is ExpressionKind.VARIABLE for site in context.sites):
        return []
    passes: list[KindTyping | None] = [k for k in context.kinds if k.has_schema] or [None]
    found: dict[IssueKey, tuple[ExpressionSite, CompileIssue, list[GVK], list[VariableTyping]]] = {}
    for kind in passes:
        view = context.precise(kind) if kind is not None else context.view("precise", None)
        by_name = _precise_variables(context, view)
        if not by_name:
            continue
        server_keys = context.create_time_keys() | (
            context.typed_keys(kind.gvk) if kind is not None else set()
        )
        for site in context.sites:
            if "variables" not in site.text:
                continue
            checkpoint()
            result = view.result(site)
            for issue in result.issues:
                if issue.phase != "check" or issue_key(site, issue) in server_keys:
                    continue
                if view.reachability(site).guard_at(issue.start - result.offset) is not None:
                    continue  # a branch that cannot run for this kind
                through = _certain_finding(view.environment(site), result, issue, by_name)
                if through:
                    entry = found.setdefault(issue_key(site, issue), (site, issue, [], through))
                    if kind is not None:
                        entry[2].append(kind.gvk)
    diagnostics: list[Diagnostic] = []
    typed_passes = len([p for p in passes if p is not None])
    for site, issue, gvks, through in found.values():
        names = ", ".join(f"`variables.{v.name}`" for v in through)
        where = f", typed from {'; '.join(str(g) for g in gvks)}" if gvks else ""
        text = (
            f"{site.field}: {issue.message} (vap-lsp's own type check through {names}{where}; the API "
            f"server reads object types as dyn through variables and does not report this)"
        )
        severity = (
            Severity.WARNING if len(gvks) == _runs_for(context, site, issue, typed_passes) else Severity.HINT
        )
        related = tuple(
            Related(v.site.node.span, f"`variables.{v.name}` is defined here; vap-lsp types it as `{v.type}`")
            for v in through
        )
        span = issue_span(site, issue)
        diagnostics.append(Diagnostic(span, severity, PRECISE_CODE, text, field=site.field, related=related))
    return diagnostics


def _runs_for(context: PolicyContext, site: ExpressionSite, issue: CompileIssue, passes: int) -> int:
    """For how many typed kinds the place of `issue` can run (not ruled out by a guard)."""
    count = 0
    for kind in (k for k in context.kinds if k.has_schema):
        view = context.precise(kind)
        if view.reachability(site).guard_at(issue.start - view.result(site).offset) is None:
            count += 1
    return count if passes else 0


def _precise_variables(context: PolicyContext, view: View) -> dict[str, VariableTyping]:
    """The variables this view types more precisely than the server's compiler (by name)."""
    out: dict[str, VariableTyping] = {}
    for var in context.variables_for(view.kind):
        name = var.name
        if var.more_precise:
            out[name] = var
        else:
            out.pop(name, None)  # a later variable of the same name wins
    return out


# Runtime values are JSON-shaped (reference §1.2, §3): objects are maps, timestamps and bytes are
# strings, a `number` may hold an int. Only these types are what they say at run time.
_FAITHFUL = frozenset({Kind.INT, Kind.BOOL, Kind.STRING, Kind.NULL})
# Heterogeneous equality never fails at run time (`1 == 'a'` is false), whatever the checker says.
_NEVER_FAILING = frozenset({"_==_", "_!=_", "@in"})


def _faithful(typ: Type) -> bool:
    if typ.kind in _FAITHFUL:
        return True
    if typ.kind in (Kind.LIST, Kind.MAP) or is_optional(typ):
        return all(_faithful(p) for p in typ.params)
    return False


def _generic_at_runtime(env: Environment, call: Call, types: list[Type]) -> bool:
    """Whether an overload takes these argument types once its type parameters are free: the
    checker wants `list(T) + list(T)` or `optional(T).orValue(T)` to agree on `T`, the runtime
    does not (`[1] + ['a']` is a list, `o.orValue('x')` a value), so no failure is certain."""
    fn = env.find_function(call.function)
    if fn is None:
        return True  # a namespaced or unknown function: nothing certain
    for overload in fn.overloads:
        if overload.receiver_style != (call.target is not None) or len(overload.params) != len(types):
            continue
        params = [substitute(TypeMapping(), p, True) for p in overload.params]
        if all(is_assignable(TypeMapping(), p, a) is not None for p, a in zip(params, types, strict=True)):
            return True
    return False


def _certain_finding(
    env: Environment, result: CompileResult, issue: CompileIssue, variables: Mapping[str, VariableTyping]
) -> list[VariableTyping]:
    """The precisely typed variables a check issue goes through, if evaluating the expression
    would certainly fail on admission's values; [] when it is uncertain or not through one."""
    checked = result.checked
    if checked is None or issue.start < 0:
        return []
    parsed = result.parsed
    loc = issue.start - result.offset
    node: Expr | None = None
    if issue.cel_message.startswith("undefined field"):
        node = select_at(result, issue)
        if node is None or node.test_only or selects_from_open_data(result, node):
            return []
    elif issue.cel_message.startswith("found no matching overload"):
        node = next((n for n in parsed.nodes_at_location(loc) if isinstance(n, Call)), None)
        if not isinstance(node, Call) or node.function in _NEVER_FAILING:
            return []
        operands = ([node.target] if node.target is not None else []) + list(node.args)
        types = [checked.type_of(a) for a in operands]
        if not all(t is not None and _faithful(t) for t in types):
            return []
        if _generic_at_runtime(env, node, [t for t in types if t is not None]):
            return []
    else:
        return []
    return _variables_read(node, variables) or _variables_read(parsed.ast, variables)


def _variables_read(root: Expr | None, variables: Mapping[str, VariableTyping]) -> list[VariableTyping]:
    """`variables.<name>` selections under `root`, among `variables`, in order of first use."""
    out: dict[str, VariableTyping] = {}
    stack: list[Expr] = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Select) and isinstance(node.operand, Ident) and node.operand.name == "variables":
            var = variables.get(node.field)
            if var is not None:
                out.setdefault(node.field, var)
        stack.extend(reversed(list(children(node))))
    return list(out.values())


CHECK = policy_check(
    "precise-type-check",
    (PRECISE_CODE,),
    "vap-lsp's own type check through variables (the server reads object types as dyn there): "
    "only what certainly fails on admission's values.",
)(precise_check)
