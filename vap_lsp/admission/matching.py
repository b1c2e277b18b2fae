"""Which policies and bindings match a request: `matchConstraints` / `matchResources`.

Mirrors `pkg/admission/plugin/policy/matching` (namespace and object selectors, resource rules
with subresources, scope and resourceNames, excludeResourceRules, matchPolicy Equivalent) and
`pkg/admission/plugin/webhook/predicates/rules`, whose one rule is matched by
`analysis.matching.rule_matches` (the static checks' home of it too). Kept apart from the engine
so the rules are testable on plain data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.analysis.model.matching import RuleRequest, equivalent_resources, names_match
from vap_lsp.analysis.model.matching import rule_matches as shared_rule_matches
from vap_lsp.schema.store import SchemaSet


@dataclass(frozen=True)
class GVR:
    group: str
    version: str
    resource: str


@dataclass(frozen=True)
class GVKey:
    group: str
    version: str
    kind: str


@dataclass
class RequestAttrs:
    """The request attributes the matcher looks at (admission.Attributes)."""

    operation: str
    kind: GVKey
    resource: GVR
    sub_resource: str
    namespace: str
    name: str
    object: Mapping[str, Any] | None
    old_object: Mapping[str, Any] | None
    namespace_labels: Mapping[str, str] | None = None
    equivalents: list[tuple[GVR, GVKey]] = field(default_factory=list)
    """Other GVRs serving the same resource, with the kind each serves (EquivalentResourcesFor)."""


class SelectorError(Exception):
    """A label selector the server cannot parse (a configuration error)."""


_OPS = {"In", "NotIn", "Exists", "DoesNotExist"}


def selector_matches(selector: Any, labels: Mapping[str, Any] | None) -> bool:
    """metav1.LabelSelectorAsSelector + Matches; an empty selector matches everything."""
    labels = labels or {}
    if selector is None:
        return True
    if not isinstance(selector, Mapping):
        raise SelectorError("invalid label selector")
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, Mapping):
        raise SelectorError("invalid matchLabels")
    for k, v in match_labels.items():
        if labels.get(k) != v:
            return False
    for req in selector.get("matchExpressions") or []:
        if not isinstance(req, Mapping):
            raise SelectorError("invalid matchExpressions")
        key, op, values = str(req.get("key")), req.get("operator"), req.get("values") or []
        if op not in _OPS:
            raise SelectorError(f'"{op}" is not a valid label selector operator')
        if op in ("In", "NotIn") and not values:
            raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def selector_empty(selector: Any) -> bool:
    return not isinstance(selector, Mapping) or (
        not selector.get("matchLabels") and not selector.get("matchExpressions")
    )


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if not isinstance(obj, Mapping):
        return None
    meta = obj.get("metadata")
    if not isinstance(meta, Mapping):
        return {}
    labels = meta.get("labels")
    return labels if isinstance(labels, Mapping) else {}


def rule_matches(rule: Mapping[str, Any], attrs: RequestAttrs, resource: GVR) -> bool:
    """rules.Matcher.Matches for one RuleWithOperations, with `resource` as the request's."""
    request = RuleRequest(
        attrs.operation,
        resource.group,
        resource.version,
        resource.resource,
        attrs.sub_resource,
        attrs.namespace,
    )
    return shared_rule_matches(rule, request)


def rules_match(rules: Sequence[Any], match_policy: Any, attrs: RequestAttrs) -> tuple[bool, GVR, GVKey]:
    """matchesResourceRules: exact first, then (Equivalent) the other GVRs of the resource."""
    index, gvr, gvk = matching_rule(rules, match_policy, attrs)
    return index is not None, gvr, gvk


def matching_rule(
    rules: Sequence[Any], match_policy: Any, attrs: RequestAttrs
) -> tuple[int | None, GVR, GVKey]:
    """The index of the rule that matches (exact GVR first, then Equivalent ones), with the
    resource and kind it matched as; None when none does."""
    for i, rule in enumerate(rules):
        matched = isinstance(rule, Mapping) and rule_matches(rule, attrs, attrs.resource)
        if matched and names_match(rule, attrs.name):
            return i, attrs.resource, attrs.kind
    if match_policy == "Exact" or match_policy is None:
        return None, attrs.resource, attrs.kind
    for i, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            continue
        for gvr, gvk in attrs.equivalents:
            if (gvr.group, gvr.version) == (attrs.resource.group, attrs.resource.version):
                continue
            if rule_matches(rule, attrs, gvr) and names_match(rule, attrs.name):
                return i, gvr, gvk
    return None, attrs.resource, attrs.kind


@dataclass
class MatchOutcome:
    matches: bool
    resource: GVR
    kind: GVKey
    why_not: str | None = None
    error: str | None = None


def match_resources(mr: Any, attrs: RequestAttrs) -> MatchOutcome:
    """matching.Matcher.Matches for a policy's matchConstraints or a binding's matchResources."""
    if not isinstance(mr, Mapping):
        return MatchOutcome(True, attrs.resource, attrs.kind)
    ns_error: str | None = None
    obj_error: str | None = None
    ns_sel = mr.get("namespaceSelector")
    if not (attrs.namespace == "" and attrs.resource.resource != "namespaces") and not selector_empty(ns_sel):
        try:
            if not selector_matches(ns_sel, attrs.namespace_labels):
                return MatchOutcome(False, attrs.resource, attrs.kind, "namespaceSelector does not match")
        except SelectorError as exc:
            ns_error = str(exc)
    obj_sel = mr.get("objectSelector")
    if not selector_empty(obj_sel):
        try:
            if not (
                (attrs.object is not None and selector_matches(obj_sel, _labels(attrs.object)))
                or (attrs.old_object is not None and selector_matches(obj_sel, _labels(attrs.old_object)))
            ):
                return MatchOutcome(False, attrs.resource, attrs.kind, "objectSelector does not match")
        except SelectorError as exc:
            obj_error = str(exc)
    policy = mr.get("matchPolicy")
    excluded, _, _ = rules_match(mr.get("excludeResourceRules") or [], policy, attrs)
    if excluded:
        return MatchOutcome(False, attrs.resource, attrs.kind, "excluded by excludeResourceRules")
    rules = mr.get("resourceRules") or []
    if not rules:
        ok, gvr, gvk = True, attrs.resource, attrs.kind
    else:
        ok, gvr, gvk = rules_match(rules, policy, attrs)
    if not ok:
        res = attrs.resource
        what = "/".join(p for p in (res.group, res.version, res.resource) if p)
        if attrs.sub_resource:
            what += "/" + attrs.sub_resource
        return MatchOutcome(False, gvr, gvk, f"no resourceRule matches {attrs.operation} {what}")
    if ns_error or obj_error:
        return MatchOutcome(False, gvr, gvk, error=ns_error or obj_error)
    return MatchOutcome(True, gvr, gvk)


def equivalents_for(
    schema: SchemaSet, resource: GVR, kind: GVKey, sub_resource: str
) -> list[tuple[GVR, GVKey]]:
    """EquivalentResourcesFor (`analysis.matching.equivalent_resources`), with the kind each serves."""
    found = equivalent_resources(
        schema, resource.group, resource.version, resource.resource, kind.kind, sub_resource
    )
    return [(GVR(*gvr), GVKey(*gvk)) for gvr, gvk in found]
