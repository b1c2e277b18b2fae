"""Where the CEL expressions of a policy are, and which environment each one gets."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.golang.strings import trim_space
from vap_lsp.policy.field_errors import path_string
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import MappingNode, Path, ScalarNode, lookup

# Expression kinds the server compiles after strings.TrimSpace (reference §6.1).
TRIMMED = frozenset(
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
        return path_string(self.path)

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
    if len(found) != len(path) or not isinstance(node, ScalarNode) or not trim_space(node.value):
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
