"""An offline authorizer for `authorizer.*` in policies: answers from a small rules file.

Why: admission expressions may ask "may this user do X?"; offline there is no RBAC, so the
user states the answers. A rule is a mapping with one subject (`user`, `group` or
`serviceAccount: ns/name`) and lists `verbs`, `apiGroups`, `resources`, `subresources`,
`namespaces`, `names` (resource requests) or `paths` (non-resource requests); a missing list
or `*` matches anything. The first matching rule allows; nothing matching denies. Deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vap_lsp.cel.runtime.k8s import AuthzRequest, Decision
from vap_lsp.suggest import did_you_mean

SUBJECT_KEYS = ("user", "group", "serviceAccount")
RULE_KEYS = (*SUBJECT_KEYS, "verbs", "apiGroups", "resources", "subresources", "namespaces", "names", "paths")


def rule_problems(rules: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong in a rules file, by rule index: a key no rule has (a missing list matches
    anything, so a misspelt `resources` would allow every resource) or no subject."""
    problems: list[str] = []
    for i, rule in enumerate(rules):
        for key in rule:
            if key not in RULE_KEYS:
                problems.append(
                    f"rule {i}: unknown key {key!r}{did_you_mean(str(key), RULE_KEYS)} "
                    f"(a rule has {', '.join(RULE_KEYS)})"
                )
        if not any(key in rule for key in SUBJECT_KEYS):
            problems.append(f"rule {i}: no subject: give user, group or serviceAccount")
    return problems


def _any(values: Any, value: str) -> bool:
    if values is None:
        return True
    if isinstance(values, str):
        values = [values]
    return isinstance(values, list) and ("*" in values or value in values)


class RulesAuthorizer:
    """Implements `vap_lsp.cel.runtime.k8s.Authorizer` for one requesting user."""

    def __init__(self, rules: Sequence[Mapping[str, Any]], username: str, groups: Sequence[str]) -> None:
        self.rules = [r for r in rules if isinstance(r, Mapping)]
        self.username = username
        self.groups = tuple(groups)

    def _subject_matches(self, rule: Mapping[str, Any], request: AuthzRequest) -> bool:
        groups: tuple[str, ...]
        if request.service_account is not None:
            ns, name = request.service_account
            user, groups = (
                f"system:serviceaccount:{ns}:{name}",
                (
                    "system:serviceaccounts",
                    f"system:serviceaccounts:{ns}",
                    "system:authenticated",
                ),
            )
        else:
            user, groups = self.username, self.groups
        if "user" in rule:
            return _any(rule.get("user"), user)
        if "group" in rule:
            wanted = rule.get("group")
            return any(_any(wanted, g) for g in groups)
        if "serviceAccount" in rule:
            sa = rule.get("serviceAccount")
            if isinstance(sa, str) and "/" in sa:
                ns, _, name = sa.partition("/")
                sa = f"system:serviceaccount:{ns}:{name}"
            return _any(sa, user)
        return False

    def authorize(self, request: AuthzRequest) -> Decision:
        for i, rule in enumerate(self.rules):
            if not self._subject_matches(rule, request) or not _any(rule.get("verbs"), request.verb):
                continue
            if request.path:
                if "paths" in rule and _any(rule.get("paths"), request.path):
                    return Decision(True, f"allowed by rule {i}")
                continue
            if "paths" in rule and "resources" not in rule:
                continue
            resources = rule.get("resources")
            sub_ok = _any(rule.get("subresources"), request.subresource)
            combined = f"{request.resource}/{request.subresource}"
            if isinstance(resources, list) and request.subresource and combined in resources:
                sub_ok, resources = True, None
            if (
                _any(rule.get("apiGroups"), request.group)
                and _any(resources, request.resource)
                and sub_ok
                and _any(rule.get("namespaces"), request.namespace)
                and _any(rule.get("names"), request.name)
            ):
                return Decision(True, f"allowed by rule {i}")
        return Decision(False, "no rule allows this request")
