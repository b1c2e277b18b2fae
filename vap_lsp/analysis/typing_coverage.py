"""Say when typing is lost: kinds a policy matches that no schema types.

The type checker (and vap-lsp's own typed pass) types `object` from each kind `matchConstraints`
resolves to (`matching.matched_kinds`, mirroring `typesToCheck`). What falls outside is read as
`dyn`, silently: rules with `*` in apiGroups/apiVersions (skipped whole), `*` and subresource
entries (dropped), resources that resolve to no kind (a CRD that is not among the checked
files), kinds without a schema, and everything after the 10th kind (the controller stops
there). `paramKind` without a schema leaves `params` as `dyn` the same way.

One INFORMATION diagnostic (code `typing-unavailable`) per rule, naming what is untyped and how
to give the schema; never more than advice: the server accepts such policies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.matching import GVK, MAX_TYPES_PER_RULE, kind_type
from vap_lsp.analysis.placement import head_span, span_for_path
from vap_lsp.analysis.workspace import CRDVersion, WorkspaceIndex
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.schema.store import get_schema_set
from vap_lsp.text import LineIndex
from vap_lsp.yaml.model import MappingNode, Path

CODE = "typing-unavailable"
HOW = (
    "give its CRD with `--crd FILE` (CLI), the `vapLsp.crds` setting (editor) "
    "or `crds` in the configuration file (both)"
)


@dataclass(frozen=True)
class Untyped:
    """One thing a rule matches whose `object` is `dyn`."""

    what: str  # `gateway.networking.k8s.io/v1 httproutes`, `apps/v1, Kind=Deployment`, `*`
    # unknown | not-served | no-schema | wildcard-group | wildcard-resource | subresource | over-limit
    reason: str
    group: str = ""
    version: str = ""
    resource: str = ""
    # CRD versions of the same group and resource known elsewhere (quick fix: use one of those).
    elsewhere: tuple[CRDVersion, ...] = ()


@dataclass(frozen=True)
class RuleCoverage:
    index: int
    typed: tuple[GVK, ...] = ()
    untyped: tuple[Untyped, ...] = field(default=())


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _elsewhere(
    workspace: WorkspaceIndex | None, group: str, version: str, resource: str
) -> tuple[CRDVersion, ...]:
    if workspace is None:
        return ()
    return tuple(
        c
        for c in workspace.crd_versions_of(group, resource)
        if c.version != version and c.served and c.schema is not None
    )


def rule_coverage(
    spec: Mapping[str, Any], kubernetes_version: str, workspace: WorkspaceIndex | None
) -> list[RuleCoverage]:
    """Per resource rule, what is typed and what is not, in `typesToCheck`'s order and limit."""
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    if not isinstance(rules, list):
        return []
    schema_set = get_schema_set(kubernetes_version)
    out: list[RuleCoverage] = []
    limit_reached = False
    typed_resources: dict[tuple[str, str, str], GVK] = {}
    subresource_scope: dict[int, tuple[list[str], list[str]]] = {}
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        groups, versions = _strings(rule.get("apiGroups")), _strings(rule.get("apiVersions"))
        resources = _strings(rule.get("resources"))
        if not groups or not versions or not resources:
            continue
        untyped: list[Untyped] = []
        typed: list[GVK] = []
        if any("*" in g for g in groups) or any("*" in v for v in versions):
            wild = [f"apiGroups {groups}" if any("*" in g for g in groups) else "", ""]
            wild[1] = f"apiVersions {versions}" if any("*" in v for v in versions) else ""
            untyped.append(Untyped(" and ".join(w for w in wild if w).replace("'", ""), "wildcard-group"))
            out.append(RuleCoverage(index, (), tuple(untyped)))
            continue
        for r in resources:
            if "*" in r.split("/")[0]:
                untyped.append(Untyped(r, "wildcard-resource"))
            elif "/" in r:
                untyped.append(Untyped(r, "subresource", resource=r))
                subresource_scope[index] = (groups, versions)
        concrete = sorted(r for r in resources if "*" not in r and "/" not in r)
        count = 0
        for group in sorted(groups):
            for version in sorted(versions):
                for resource in concrete:
                    label = f"{group}/{version} {resource}" if group else f"{version} {resource}"
                    if limit_reached:
                        untyped.append(Untyped(label, "over-limit", group, version, resource))
                        continue
                    kinds = schema_set.kinds_for(group, version, resource)[:1]
                    if not kinds and workspace is not None:
                        kinds = [
                            (c.group, c.version, c.kind)
                            for c in workspace.crd_kinds_for(group, version, resource)
                        ]
                    if not kinds:
                        reason = "unknown"
                        if workspace is not None and any(
                            c.version == version for c in workspace.crd_versions_of(group, resource)
                        ):
                            reason = "not-served"  # the CRD has this version, with served: false
                        elsewhere = _elsewhere(workspace, group, version, resource)
                        untyped.append(Untyped(label, reason, group, version, resource, elsewhere))
                        continue
                    gvk = GVK(*kinds[0])
                    if kind_type(kubernetes_version, gvk, workspace) is None:
                        untyped.append(Untyped(str(gvk), "no-schema", group, version, resource))
                    else:
                        typed.append(gvk)
                        typed_resources[(group, version, resource.lower())] = gvk
                    count += 1
                    if count >= MAX_TYPES_PER_RULE:
                        limit_reached = True
        out.append(RuleCoverage(index, tuple(typed), tuple(untyped)))
    return [
        _without_covered_subresources(c, subresource_scope, typed_resources, kubernetes_version) for c in out
    ]


def _without_covered_subresources(
    cov: RuleCoverage,
    scope: dict[int, tuple[list[str], list[str]]],
    typed_resources: dict[tuple[str, str, str], GVK],
    kubernetes_version: str,
) -> RuleCoverage:
    """A subresource whose object is the main resource's kind (`pods/ephemeralcontainers`,
    `deployments/status`) when the policy types that resource: already type-checked, not worth
    a word. Others (`deployments/scale` is a Scale) stay untyped."""
    if cov.index not in scope:
        return cov
    groups, versions = scope[cov.index]
    schema_set = get_schema_set(kubernetes_version)

    def same_kind(g: str, v: str, sub: str) -> bool:
        parent, _, name = sub.lower().partition("/")
        gvk = typed_resources.get((g, v, parent))
        if gvk is None:
            return False
        kinds = schema_set.kinds_for(g, v, sub)[:1]
        if not kinds:  # a CRD: its status subresource is the object itself, scale is a Scale
            return name == "status"
        return GVK(*kinds[0]) == gvk

    def covered(u: Untyped) -> bool:
        return u.reason == "subresource" and all(
            same_kind(g, v, u.resource) for g in groups for v in versions
        )

    return RuleCoverage(cov.index, cov.typed, tuple(u for u in cov.untyped if not covered(u)))


def param_untyped(
    spec: Mapping[str, Any], kubernetes_version: str, workspace: WorkspaceIndex | None
) -> Untyped | None:
    """`paramKind` whose kind has no schema (so `params` is `dyn`), or None."""
    param_kind = spec.get("paramKind")
    if not isinstance(param_kind, Mapping):
        return None
    api_version, kind = param_kind.get("apiVersion"), param_kind.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    group, _, version = api_version.rpartition("/")
    gvk = GVK(group, version, kind)
    if kind_type(kubernetes_version, gvk, workspace) is not None:
        return None
    elsewhere: tuple[CRDVersion, ...] = ()
    reason = "unknown"
    if workspace is not None:
        own = workspace.crd(group, version, kind)
        if own is not None:
            reason = "no-schema" if own.served else "not-served"
        elsewhere = tuple(
            c
            for c in workspace.crds()
            if c.group == group
            and c.kind == kind
            and c.version != version
            and c.served
            and c.schema is not None
        )
    return Untyped(f"{api_version} {kind}", reason, group, version, "", elsewhere)


_REASONS = {
    "wildcard-group": "the API server does not type-check rules with `*` in apiGroups or apiVersions",
    "wildcard-resource": "`*` resources are not type-checked (list the resources to have them typed)",
    "subresource": "subresource requests are not type-checked",
    "over-limit": f"the type checker stops at the {MAX_TYPES_PER_RULE}th kind of a rule and skips the rest",
}


def _clause(items: list[Untyped]) -> str:
    names = ", ".join(u.what for u in items)
    reason = items[0].reason
    hints = [
        f"{u.what.split(' ')[-1]} is served in {', '.join(f'{c.group}/{c.version}' for c in u.elsewhere)}"
        for u in items
        if u.elsewhere
    ]
    also = f" ({'; '.join(hints)})" if hints else ""
    if reason == "unknown":
        text = f"{names}: no schema (not a built-in resource, and no CRD for it among the checked files"
        return text + (f"; {'; '.join(hints)}" if hints else "") + f"); {HOW}"
    if reason == "not-served":
        return f"{names}: its CRD does not serve this version{also}"
    if reason == "no-schema":
        return f"{names}: its CRD version has no schema"
    return f"{names}: {_REASONS[reason]}"


def untyped_message(subject: str, items: list[Untyped]) -> str:
    """`object is untyped (dyn) for <what>: <why>; <how to give the schema>`, grouped by reason."""
    by_reason: dict[str, list[Untyped]] = {}
    for u in items:
        by_reason.setdefault(u.reason, []).append(u)
    clauses = " — ".join(_clause(group) for group in by_reason.values())
    return f"{subject} is untyped (dyn) for {clauses}"


def check_typing_coverage(
    root: MappingNode,
    policy: PolicyKind,
    spec: Mapping[str, Any],
    kubernetes_version: str,
    workspace: WorkspaceIndex | None,
    lines: LineIndex,
    has_expressions: bool,
) -> list[Diagnostic]:
    """One information diagnostic per rule (and on `paramKind`) where typing is lost."""
    if policy not in (PolicyKind.VAP, PolicyKind.MAP) or not has_expressions:
        return []
    diagnostics: list[Diagnostic] = []
    for cov in rule_coverage(spec, kubernetes_version, workspace):
        if not cov.untyped:
            continue
        path: Path = ("spec", "matchConstraints", "resourceRules", cov.index)
        field_text = f"spec.matchConstraints.resourceRules[{cov.index}]"
        span = span_for_path(root, path, lines)
        diagnostics.append(
            Diagnostic(
                span,
                Severity.INFORMATION,
                CODE,
                f"{field_text}: " + untyped_message("object", list(cov.untyped)),
                field=field_text,
            )
        )
    param = param_untyped(spec, kubernetes_version, workspace)
    if param is not None:
        node = root.get("spec")
        pk = node.get("paramKind") if isinstance(node, MappingNode) else None
        span = head_span(pk, lines) if pk is not None else head_span(root, lines)
        message = "spec.paramKind: " + untyped_message("params", [param])
        diagnostics.append(Diagnostic(span, Severity.INFORMATION, CODE, message, field="spec.paramKind"))
    return diagnostics


def typing_note(
    spec: Mapping[str, Any], kubernetes_version: str, workspace: WorkspaceIndex | None, root: str
) -> str | None:
    """For hover on `object`/`oldObject` (or `params`): what is untyped, or None."""
    if root == "params":
        param = param_untyped(spec, kubernetes_version, workspace)
        return untyped_message("params", [param]) if param is not None else None
    items = [u for cov in rule_coverage(spec, kubernetes_version, workspace) for u in cov.untyped]
    return untyped_message(root, items) if items else None
