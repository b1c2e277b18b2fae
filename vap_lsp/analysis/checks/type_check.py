"""CEL in policies: the server's create-time compilation and its type checker, as diagnostics.

Two passes, as the API server has two, read from the policy's typing model (`analysis.typing`):
- create/update validation (`validation.go`): every expression compiled with `object`,
  `oldObject` and `params` as `dyn` in the NewExpressions environment → **errors**;
- the type-check controller (`typechecking.go`): VAP validations and messageExpressions
  compiled against each matched kind's schema in the StoredExpressions environment →
  **warnings**, one per problem, naming the kinds it affects.
Then vap-lsp's own advisory check (`vap-lsp-type-check`): what typing *through variables*
finds that the server cannot see (it reads object types as `dyn` there) → warnings labelled as
vap-lsp's, with the variables' definitions as related information.

Every finding is placed on the sub-expression through the scalar's decoded→source map.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.analysis import advice, cost_checks, mutations, runtime_shape
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.analysis.guarantees import KindGuarantee, Point, root_subjects, subject
from vap_lsp.analysis.matching import GVK
from vap_lsp.analysis.narrowing import Guard, Reachability, reachability
from vap_lsp.analysis.sites import ExpressionSite
from vap_lsp.analysis.typing import KindTyping, PolicyTyping, VariableTyping, View, policy_typing
from vap_lsp.analysis.workspace import WorkspaceIndex
from vap_lsp.cel.ast import Call, Expr, Ident, ParsedExpr, Select, children
from vap_lsp.cel.compile import CompileIssue, CompileResult
from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.types import (
    DYN,
    Kind,
    ObjectType,
    Type,
    TypeMapping,
    is_assignable,
    is_optional,
    maybe_unwrap_optional,
    substitute,
)
from vap_lsp.policy.field_errors import ErrorType, invalid
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.text import Span
from vap_lsp.yaml.model import MappingNode, Path


def _issue_span(site: ExpressionSite, issue: CompileIssue) -> Span:
    if issue.start < 0:
        return site.node.span
    end = max(issue.end, issue.start + 1)
    return site.node.source_span(issue.start, min(end, len(site.text)))


def _position_text(result: CompileResult, issue: CompileIssue) -> str:
    """`<input>:line:col` relative to the text the server compiled (trimmed or not)."""
    if issue.start < 0:
        return "<input>:-1:0"
    offset = issue.start - result.offset
    source = result.compiled_text
    line_start = source.rfind("\n", 0, offset) + 1
    return f"<input>:{source.count(chr(10), 0, line_start) + 1}:{offset - line_start + 1}"


def _message(site: ExpressionSite, result: CompileResult, issue: CompileIssue) -> str:
    """The server's `convertCELErrorToValidationError`: an invalid expression is
    `field.Invalid(path, expression, detail)` — the expression quoted as Go's `%q` prints it
    (trimmed where the server compiled it trimmed: matchConditions) — and a failure to build
    the program is `field.InternalError`. One message per issue, each with the server's text."""
    if issue.phase == "program":
        return f"{site.field}: {ErrorType.INTERNAL.label}: {issue.message}"  # no value, as ErrorBody
    if issue.phase == "result":
        detail = issue.message
    else:
        detail = f"compilation failed: ERROR: {_position_text(result, issue)}: {issue.message}"
    shown = result.compiled_text if site.kind is ExpressionKind.MATCH_CONDITION else result.text
    return invalid(site.path, shown, detail).message()


def check_cel(
    root: MappingNode,
    policy: PolicyKind,
    spec: Mapping[str, Any],
    version: str,
    workspace: WorkspaceIndex | None = None,
) -> list[Diagnostic]:
    if policy not in (PolicyKind.VAP, PolicyKind.MAP):
        return []
    diagnostics: list[Diagnostic] = advice.message_templates(root, spec) if policy is PolicyKind.VAP else []
    typing = policy_typing(root, policy, spec, version, workspace)
    if not typing.sites:
        return diagnostics
    reported: set[_Key] = set()

    create_time = typing.create_time().results()
    for site, result in create_time:
        for issue in result.issues:
            reported.add(_key(site, issue))
            diagnostics.append(
                Diagnostic(
                    _issue_span(site, issue),
                    Severity.ERROR,
                    "cel-" + issue.phase,
                    _message(site, result, issue),
                    field=site.field,
                )
            )
    diagnostics.extend(advice.null_roots(typing, create_time))
    diagnostics.extend(advice.kind_tests(typing, create_time))
    if policy is PolicyKind.MAP:
        reach_of = functools.partial(_reach_of, typing)
        diagnostics.extend(mutations.check_mutations(create_time, typing.reaching_kinds, reach_of))
    server_typed = _typed_checks(typing, reported)
    diagnostics.extend(server_typed.diagnostics)
    diagnostics.extend(_precise_checks(typing, reported, server_typed.issues))
    diagnostics.extend(runtime_shape.string_at_admission(typing))
    diagnostics.extend(cost_checks.policy_cost_diagnostics(typing))
    return diagnostics


_Key = tuple[Path, int, int, str]


def _key(site: ExpressionSite, issue: CompileIssue) -> _Key:
    return (site.path, issue.start, issue.end, issue.cel_message)


# What the server's type-check controller covers; everything else is vap-lsp's own typed check.
_SERVER_TYPE_CHECKED = frozenset({ExpressionKind.VALIDATION, ExpressionKind.MESSAGE_EXPRESSION})


@dataclass
class _TypedFindings:
    diagnostics: list[Diagnostic]
    issues: dict[GVK, set[_Key]]
    """Every issue of the server-typed compile per kind, reported or not (for de-duplication)."""


def _typed_checks(typing: PolicyTyping, reported: set[_Key]) -> _TypedFindings:
    """Each expression against each matched kind's schema.

    For VAP validations and messageExpressions this is what `status.typeChecking` would say;
    for the other expression kinds (and all MAP expressions, which the server never
    type-checks) it is the same check, said as vap-lsp's own. One warning per problem, naming
    the kinds it fails for; hints for optional fields read without a guard.

    Narrowing by guards (`analysis.narrowing`): a problem in a branch that cannot run for a kind
    (`object.kind != 'Pod' || …` for a Deployment) is still the server's warning, labelled
    `cel-type-check-guarded` (information) with the guard; vap-lsp's own checks are silent there.
    """
    out = _TypedFindings([], {})
    if not typing.kinds:
        return out
    found: dict[_Key, _Found] = {}
    reads: dict[tuple[Path, int], tuple[ExpressionSite, str, Span, list[KindGuarantee]]] = {}
    # A kind whose schema is not found is skipped, as the server skips it (reference §4.1).
    for kind in (k for k in typing.kinds if k.has_schema):
        subjects = root_subjects(typing, subject(kind, typing.version, typing.workspace))
        keys = out.issues.setdefault(kind.gvk, set())
        view = typing.type_check(kind)
        for site, result in view.results():
            point = Point(typing.policy, typing.site_facts(kind, site).operations)
            reach = view.reachability(site)
            runs = False
            for issue in result.issues:
                if issue.phase == "result":
                    continue  # the type checker does not check result types
                key = _key(site, issue)
                keys.add(key)
                guard = reach.guard_at(issue.start - result.offset) if issue.start >= 0 else None
                runs = runs or guard is None
                if key not in reported:
                    entry = found.setdefault(key, _Found(site, result, issue))
                    if guard is None:
                        entry.unguarded.append(kind.gvk)
                    else:
                        entry.guarded.setdefault(guard.text, []).append(kind.gvk)
            if result.checked is not None and not runs and result.result_error is None:
                found_reads = advice.optional_field_reads(
                    site, result, result.checked, subjects, point, typing.version, reach,
                    functools.partial(_absent_guard, view, site),
                )  # fmt: skip
                for read in found_reads:
                    at = (site.path, read.span.start)
                    reads.setdefault(at, (site, read.path, read.span, []))[3].append(
                        KindGuarantee(kind.gvk, read.guarantee)
                    )
    for entry in found.values():
        site, result, issue = entry.site, entry.result, entry.issue
        position = f"ERROR: {_position_text(result, issue)}: {issue.message}"
        span = _issue_span(site, issue)
        if typing.policy is PolicyKind.VAP and site.kind in _SERVER_TYPE_CHECKED:
            if entry.unguarded:
                text = f"{site.field}: type checking against {_kinds(entry.unguarded)}: {position}"
                out.diagnostics.append(
                    Diagnostic(span, Severity.WARNING, "cel-type-check", text, field=site.field)
                )
            for guard_text, gvks in entry.guarded.items():
                where = _kinds(gvks)
                text = (
                    f"{site.field}: type checking against {where}: {position}; "
                    f"unreachable for {where}: guarded by {guard_text}"
                )
                out.diagnostics.append(
                    Diagnostic(span, Severity.INFORMATION, "cel-type-check-guarded", text, field=site.field)
                )
            continue
        # Our own check of expressions the server never type-checks. Only a field the schema
        # lacks is a finding: typed overload errors (list(A.@idx) + list(B.@idx)) do not fail on
        # JSON-shaped runtime values. With several kinds the expression may dispatch on
        # object.kind, so the finding is only a hint then. Never in a branch a guard rules out.
        if not entry.unguarded:
            continue
        select = _select_at(result, issue)
        if not issue.cel_message.startswith("undefined field") or _selects_from_open_data(result, select):
            continue
        if select is not None and select.test_only:
            continue  # has() of a field the schema lacks is false at run time, never a failure
        severity = Severity.WARNING if len(typing.kinds) == 1 else Severity.HINT
        text = (
            f"{site.field}: type checking against {_kinds(entry.unguarded)} (vap-lsp's own check: the API "
            f"server does not type-check this expression): {position}"
        )
        out.diagnostics.append(Diagnostic(span, severity, "cel-type-check-extra", text, field=site.field))
    # One hint per read, from what every kind it runs for says (silent when all guarantee it).
    for site, path, span, per_kind in reads.values():
        hint = advice.optional_field_hint(site, path, per_kind, span)
        if hint is not None:
            out.diagnostics.append(hint)
    return out


def _reach_of(typing: PolicyTyping, site: ExpressionSite, parsed: ParsedExpr, gvk: GVK) -> Reachability:
    """Which nodes of `parsed` (a create-time compile of `site`) can run when `object` is of
    `gvk`: none when the matchConditions keep the kind out."""
    kind = next(k for k in typing.kinds if k.gvk == gvk)
    excluded = typing.conditions_exclude(kind) if site.kind is not ExpressionKind.MATCH_CONDITION else None
    found = reachability(parsed, typing.site_facts(kind, site), typing.variable_asts(site))
    if excluded is not None and parsed.ast is not None:
        return found.all_guarded(Guard(parsed.ast, excluded))
    return found


def _absent_guard(
    view: View, site: ExpressionSite, path: str, node: Select, operations: frozenset[str]
) -> bool:
    """Whether the read `node` of the field `path` cannot run for the view's kind in the requests
    with `operations` where the field is absent (`has(x.f) && x.f`: `View.absent_reachability`)."""
    return view.absent_reachability(site, path, operations).guard_of(node) is not None


@dataclass
class _Found:
    """One type-check problem: the kinds it is reachable for, and those a guard rules it out for."""

    site: ExpressionSite
    result: CompileResult
    issue: CompileIssue
    unguarded: list[GVK] = field(default_factory=list)
    guarded: dict[str, list[GVK]] = field(default_factory=dict)
    """Guard text → the kinds it makes the problem unreachable for."""


def _kinds(gvks: list[GVK]) -> str:
    return "; ".join(str(g) for g in gvks)


PRECISE_CODE = "vap-lsp-type-check"
"""vap-lsp's own check through variables (never the server's verdict)."""


def _precise_checks(
    typing: PolicyTyping, reported: set[_Key], typed: dict[GVK, set[_Key]]
) -> list[Diagnostic]:
    """What typing through variables finds and the server cannot: the server reads object types
    (and optionals) as `dyn` through `variables`, vap-lsp keeps the inferred types.

    Only findings that fail on the JSON-shaped values admission evaluates are reported (an
    undefined field of a typed object, an overload no runtime value could match), once per
    problem, with the kinds it holds for and the variables it reads as related information.
    A warning when it holds for every typed kind, else a hint (the expression may dispatch on
    `object.kind`).
    """
    if not any(site.kind is ExpressionKind.VARIABLE for site in typing.sites):
        return []
    passes: list[KindTyping | None] = [k for k in typing.kinds if k.has_schema] or [None]
    found: dict[_Key, tuple[ExpressionSite, CompileIssue, list[GVK], list[VariableTyping]]] = {}
    for kind in passes:
        view = typing.precise(kind) if kind is not None else typing.view("precise", None)
        by_name = _precise_variables(typing, view)
        if not by_name:
            continue
        server_keys = reported | (typed.get(kind.gvk, set()) if kind is not None else set())
        for site in typing.sites:
            if "variables" not in site.text:
                continue
            result = view.result(site)
            reach = view.reachability(site)
            for issue in result.issues:
                if issue.phase != "check" or _key(site, issue) in server_keys:
                    continue
                if reach.guard_at(issue.start - result.offset) is not None:
                    continue  # a branch that cannot run for this kind
                through = _certain_finding(view.environment(site), result, issue, by_name)
                if through:
                    entry = found.setdefault(_key(site, issue), (site, issue, [], through))
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
            Severity.WARNING if len(gvks) == _runs_for(typing, site, issue, typed_passes) else Severity.HINT
        )
        related = tuple(
            Related(v.site.node.span, f"`variables.{v.name}` is defined here; vap-lsp types it as `{v.type}`")
            for v in through
        )
        span = _issue_span(site, issue)
        diagnostics.append(Diagnostic(span, severity, PRECISE_CODE, text, field=site.field, related=related))
    return diagnostics


def _runs_for(typing: PolicyTyping, site: ExpressionSite, issue: CompileIssue, passes: int) -> int:
    """For how many typed kinds the place of `issue` can run (not ruled out by a guard)."""
    count = 0
    for kind in (k for k in typing.kinds if k.has_schema):
        view = typing.precise(kind)
        if view.reachability(site).guard_at(issue.start - view.result(site).offset) is None:
            count += 1
    return count if passes else 0


def _precise_variables(typing: PolicyTyping, view: View) -> dict[str, VariableTyping]:
    """The variables this view types more precisely than the server's compiler (by name)."""
    out: dict[str, VariableTyping] = {}
    for var in typing.variables_for(view.kind):
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


def _select_at(result: CompileResult, issue: CompileIssue) -> Select | None:
    """The field selection an "undefined field" issue is about."""
    parsed = result.parsed
    loc = issue.start - result.offset
    node = next((n for n in parsed.walk() if isinstance(n, Select) and parsed.location(n) == loc), None)
    return node if isinstance(node, Select) else None


def _selects_from_open_data(result: CompileResult, node: Select | None) -> bool:
    """Whether the selection an "undefined field" issue is about (`_select_at`) reads an object
    that may hold any field at run time: one without declared fields (schemaless), with open
    fields (a map), or whose schema preserves unknown fields (the type checker sees only the
    declared ones). Unknown: True."""
    if node is None or result.checked is None:
        return True
    owner, _ = maybe_unwrap_optional(result.checked.type_of(node.operand) or DYN)
    return (
        not isinstance(owner, ObjectType)
        or not owner.fields
        or owner.open_field_type is not None
        or owner.preserves_unknown_fields
    )


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
        node = _select_at(result, issue)
        if node is None or node.test_only or _selects_from_open_data(result, node):
            return []
    elif issue.cel_message.startswith("found no matching overload"):
        node = next((n for n in parsed.walk() if isinstance(n, Call) and parsed.location(n) == loc), None)
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
