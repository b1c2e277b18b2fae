"""CEL in policies: the server's create-time compilation and its type checker, as diagnostics.

Two passes, as the API server has two:
- create/update validation (`validation.go`): every expression compiled with `object`,
  `oldObject` and `params` as `dyn` in the NewExpressions environment → **errors**;
- the type-check controller (`typechecking.go`): VAP validations and messageExpressions
  compiled against each matched kind's schema in the StoredExpressions environment →
  **warnings**, one per problem, naming the kinds it affects.

Every finding is placed on the sub-expression through the scalar's decoded→source map.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis import advice, mutations
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.matching import GVK, kind_type, matched_kinds
from vap_lsp.analysis.sites import TRIMMED, ExpressionSite, expression_sites
from vap_lsp.analysis.workspace import WorkspaceIndex
from vap_lsp.cel.compile import CompileIssue, CompileResult, compile_expression
from vap_lsp.cel.environment import (
    Environment,
    ExpressionKind,
    Mode,
    build_environment,
    variable_field_type,
)
from vap_lsp.cel.types import DYN, Type
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.schema.store import get_schema_set
from vap_lsp.text import Span
from vap_lsp.yaml.model import MappingNode, Path


@functools.lru_cache(maxsize=1024)
def _environment(
    version: str,
    kind: ExpressionKind,
    has_params: bool,
    object_t: Type,
    params_t: Type,
    variables: tuple[tuple[str, Type], ...] | None,
    mode: Mode,
    type_check: bool,
    type_ids: tuple[int, int],
) -> Environment:
    """Environments are cached so the compile cache (keyed by environment identity) hits.

    CEL types compare by name, so two versions of a workspace CRD give equal `ReplicaLimit`
    types: `type_ids` (the identities of `object_t` and `params_t`, kept alive by the key)
    tell them apart, or an edited CRD would keep typing with its old fields."""
    return build_environment(
        version,
        kind,
        has_params=has_params,
        object_type=object_t,
        params_type=params_t,
        variables=None if variables is None else dict(variables),
        mode=mode,
        declare_request_resource_authorizer=not type_check,
    )


@dataclass(frozen=True)
class _Context:
    version: str
    has_params: bool
    has_variables: bool
    object_t: Type = DYN
    params_t: Type = DYN
    mode: Mode = "new"
    type_check: bool = False


def _compile_all(sites: list[ExpressionSite], ctx: _Context) -> list[tuple[ExpressionSite, CompileResult]]:
    """Compile variables first (each sees the earlier ones), then everything else."""
    var_types: list[tuple[str, Type]] = []
    results: list[tuple[ExpressionSite, CompileResult]] = []
    for site in sites:
        if site.kind is ExpressionKind.VARIABLE:
            env = _environment(
                ctx.version, site.kind, ctx.has_params, ctx.object_t, ctx.params_t, tuple(var_types),
                ctx.mode, ctx.type_check, (id(ctx.object_t), id(ctx.params_t)),
            )  # fmt: skip
            result = compile_expression(site.text, env, trim=False)
            results.append((site, result))
            if site.name is not None:
                out = result.output_type if result.ok else None
                var_types.append((site.name, variable_field_type(out) if out is not None else DYN))
    all_vars: tuple[tuple[str, Type], ...] | None = tuple(var_types) if ctx.has_variables else None
    for site in sites:
        if site.kind is ExpressionKind.VARIABLE:
            continue
        env = _environment(
            ctx.version, site.kind, ctx.has_params, ctx.object_t, ctx.params_t, all_vars, ctx.mode,
            ctx.type_check, (id(ctx.object_t), id(ctx.params_t)),
        )  # fmt: skip
        results.append((site, compile_expression(site.text, env, trim=site.kind in TRIMMED)))
    return results


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
    if issue.phase == "result":
        return f"{site.field}: {issue.message}"
    return f"{site.field}: compilation failed: ERROR: {_position_text(result, issue)}: {issue.message}"


def _params_type(version: str, spec: Mapping[str, Any], workspace: WorkspaceIndex | None) -> Type:
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, Mapping):
        return DYN
    api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return DYN
    group, _, ver = api_version.rpartition("/")
    return kind_type(version, GVK(group, ver, kind), workspace) or DYN


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
    sites = expression_sites(root, policy, spec)
    if not sites:
        return diagnostics
    has_params = isinstance(spec.get("paramKind"), Mapping)
    has_variables = policy is PolicyKind.MAP or bool(spec.get("variables"))
    reported: set[tuple[Path, int, int, str]] = set()

    create_time = _compile_all(sites, _Context(version, has_params, has_variables))
    for site, result in create_time:
        for issue in result.issues:
            reported.add((site.path, issue.start, issue.end, issue.cel_message))
            diagnostics.append(
                Diagnostic(
                    _issue_span(site, issue),
                    Severity.ERROR,
                    "cel-" + issue.phase,
                    _message(site, result, issue),
                    field=site.field,
                )
            )
    diagnostics.extend(advice.old_object_on_create(create_time, spec))
    if policy is PolicyKind.MAP:
        diagnostics.extend(mutations.check_mutations(create_time, spec, version, workspace))
    diagnostics.extend(
        _typed_checks(policy, sites, spec, version, has_params, has_variables, reported, workspace)
    )
    return diagnostics


# What the server's type-check controller covers; everything else is vap-lsp's own typed check.
_SERVER_TYPE_CHECKED = frozenset({ExpressionKind.VALIDATION, ExpressionKind.MESSAGE_EXPRESSION})


def _typed_checks(
    policy: PolicyKind,
    sites: list[ExpressionSite],
    spec: Mapping[str, Any],
    version: str,
    has_params: bool,
    has_variables: bool,
    reported: set[tuple[Path, int, int, str]],
    workspace: WorkspaceIndex | None,
) -> list[Diagnostic]:
    """Each expression against each matched kind's schema.

    For VAP validations and messageExpressions this is what `status.typeChecking` would say;
    for the other expression kinds (and all MAP expressions, which the server never
    type-checks) it is the same check, said as vap-lsp's own. One warning per problem, naming
    the kinds it fails for; hints for optional fields read without a guard.
    """
    kinds = matched_kinds(spec, get_schema_set(version), workspace)
    if not kinds:
        return []
    params_t = _params_type(version, spec, workspace) if has_params else DYN
    found: dict[
        tuple[Path, int, int, str], tuple[ExpressionSite, CompileResult, CompileIssue, list[GVK]]
    ] = {}
    hints: dict[tuple[Path, int], Diagnostic] = {}
    for gvk in kinds:
        object_t = kind_type(version, gvk, workspace) or DYN
        ctx = _Context(version, has_params, has_variables, object_t, params_t, "stored", True)
        for site, result in _compile_all(sites, ctx):
            for issue in result.issues:
                if issue.phase == "result":
                    continue  # the type checker does not check result types
                key = (site.path, issue.start, issue.end, issue.cel_message)
                if key not in reported:
                    found.setdefault(key, (site, result, issue, []))[3].append(gvk)
            if result.checked is not None and not result.issues:
                for hint in advice.unguarded_optional_fields(site, result, result.checked):
                    hints.setdefault((site.path, hint.span.start), hint)
    diagnostics: list[Diagnostic] = []
    for site, result, issue, gvks in found.values():
        where = "; ".join(str(g) for g in gvks)
        position = f"ERROR: {_position_text(result, issue)}: {issue.message}"
        span = _issue_span(site, issue)
        if policy is PolicyKind.VAP and site.kind in _SERVER_TYPE_CHECKED:
            text = f"{site.field}: type checking against {where}: {position}"
            diagnostics.append(Diagnostic(span, Severity.WARNING, "cel-type-check", text, field=site.field))
            continue
        # Our own check of expressions the server never type-checks. Only a field the schema
        # lacks is a finding: typed overload errors (list(A.@idx) + list(B.@idx)) do not fail on
        # JSON-shaped runtime values. With several kinds the expression may dispatch on
        # object.kind, so the finding is only a hint then.
        if not issue.cel_message.startswith("undefined field"):
            continue
        severity = Severity.WARNING if len(kinds) == 1 else Severity.HINT
        text = (
            f"{site.field}: type checking against {where} (vap-lsp's own check: the API server "
            f"does not type-check this expression): {position}"
        )
        diagnostics.append(Diagnostic(span, severity, "cel-type-check-extra", text, field=site.field))
    diagnostics.extend(hints.values())
    return diagnostics
