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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.matching import GVK, kind_type, matched_kinds
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
from vap_lsp.yaml.model import MappingNode, Path, ScalarNode, lookup

# Expression kinds the server compiles after strings.TrimSpace (reference §6.1).
_TRIMMED = frozenset(
    {
        ExpressionKind.MATCH_CONDITION,
        ExpressionKind.AUDIT_ANNOTATION,
        ExpressionKind.MAP_APPLY_CONFIGURATION,
        ExpressionKind.MAP_JSON_PATCH,
    }
)


@dataclass(frozen=True)
class ExpressionSite:
    kind: ExpressionKind
    path: Path
    node: ScalarNode
    name: str | None = None  # a variable's name

    @property
    def field(self) -> str:
        out = ""
        for elem in self.path:
            out += f"[{elem}]" if isinstance(elem, int) else ("." if out else "") + elem
        return out

    @property
    def text(self) -> str:
        return self.node.value


def _items(spec: Mapping[str, Any], key: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    value = spec.get(key)
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, Mapping):
                yield i, item


def _site(
    root: MappingNode, kind: ExpressionKind, path: Path, name: str | None = None
) -> ExpressionSite | None:
    node, _, found = lookup(root, path)
    if len(found) != len(path) or not isinstance(node, ScalarNode) or not node.value.strip():
        return None  # blank or missing: the validation rules report it
    return ExpressionSite(kind, path, node, name)


def expression_sites(root: MappingNode, policy: PolicyKind, spec: Mapping[str, Any]) -> list[ExpressionSite]:
    """Every CEL expression of a VAP or MAP, in the order the server compiles them."""
    sites: list[ExpressionSite | None] = []
    for i, _ in _items(spec, "matchConditions"):
        sites.append(
            _site(root, ExpressionKind.MATCH_CONDITION, ("spec", "matchConditions", i, "expression"))
        )
    for i, var in _items(spec, "variables"):
        name = var.get("name") if isinstance(var.get("name"), str) else None
        sites.append(_site(root, ExpressionKind.VARIABLE, ("spec", "variables", i, "expression"), name))
    if policy is PolicyKind.VAP:
        for i, _ in _items(spec, "validations"):
            base: Path = ("spec", "validations", i)
            sites.append(_site(root, ExpressionKind.VALIDATION, (*base, "expression")))
            sites.append(_site(root, ExpressionKind.MESSAGE_EXPRESSION, (*base, "messageExpression")))
        for i, _ in _items(spec, "auditAnnotations"):
            path: Path = ("spec", "auditAnnotations", i, "valueExpression")
            sites.append(_site(root, ExpressionKind.AUDIT_ANNOTATION, path))
    elif policy is PolicyKind.MAP:
        for i, mutation in _items(spec, "mutations"):
            base = ("spec", "mutations", i)
            if isinstance(mutation.get("applyConfiguration"), Mapping):
                path = (*base, "applyConfiguration", "expression")
                sites.append(_site(root, ExpressionKind.MAP_APPLY_CONFIGURATION, path))
            if isinstance(mutation.get("jsonPatch"), Mapping):
                sites.append(_site(root, ExpressionKind.MAP_JSON_PATCH, (*base, "jsonPatch", "expression")))
    return [s for s in sites if s is not None]


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
) -> Environment:
    """Environments are cached so the compile cache (keyed by environment identity) hits."""
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
                ctx.mode, ctx.type_check,
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
            ctx.type_check,
        )  # fmt: skip
        results.append((site, compile_expression(site.text, env, trim=site.kind in _TRIMMED)))
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
    sites = expression_sites(root, policy, spec)
    if not sites:
        return []
    has_params = isinstance(spec.get("paramKind"), Mapping)
    has_variables = policy is PolicyKind.MAP or bool(spec.get("variables"))
    diagnostics: list[Diagnostic] = []
    reported: set[tuple[Path, int, int, str]] = set()

    create_time = _Context(version, has_params, has_variables)
    for site, result in _compile_all(sites, create_time):
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

    if policy is PolicyKind.VAP:
        diagnostics.extend(
            _type_check_warnings(sites, spec, version, has_params, has_variables, reported, workspace)
        )
    return diagnostics


_TYPE_CHECKED = frozenset({ExpressionKind.VALIDATION, ExpressionKind.MESSAGE_EXPRESSION})


def _type_check_warnings(
    sites: list[ExpressionSite],
    spec: Mapping[str, Any],
    version: str,
    has_params: bool,
    has_variables: bool,
    reported: set[tuple[Path, int, int, str]],
    workspace: WorkspaceIndex | None,
) -> list[Diagnostic]:
    """What `status.typeChecking` would say: per problem, the kinds it fails for."""
    kinds = matched_kinds(spec, get_schema_set(version), workspace)
    if not kinds:
        return []
    params_t = _params_type(version, spec, workspace) if has_params else DYN
    found: dict[
        tuple[Path, int, int, str], tuple[ExpressionSite, CompileResult, CompileIssue, list[GVK]]
    ] = {}
    for gvk in kinds:
        object_t = kind_type(version, gvk, workspace) or DYN
        ctx = _Context(version, has_params, has_variables, object_t, params_t, "stored", True)
        for site, result in _compile_all(sites, ctx):
            if site.kind not in _TYPE_CHECKED:
                continue
            for issue in result.issues:
                if issue.phase == "result":
                    continue  # the type checker does not check result types
                key = (site.path, issue.start, issue.end, issue.cel_message)
                if key in reported:
                    continue
                found.setdefault(key, (site, result, issue, []))[3].append(gvk)
    diagnostics: list[Diagnostic] = []
    for site, result, issue, gvks in found.values():
        where = "; ".join(str(g) for g in gvks)
        diagnostics.append(
            Diagnostic(
                _issue_span(site, issue),
                Severity.WARNING,
                "cel-type-check",
                f"{site.field}: type checking against {where}: ERROR: {_position_text(result, issue)}: "
                f"{issue.message}",
                field=site.field,
            )
        )
    return diagnostics
