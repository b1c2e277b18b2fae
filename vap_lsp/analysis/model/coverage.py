"""Where context is lost, in words: the kinds a policy matches that no schema types, and why.

The type checker (and vap-lsp's own typed pass) types `object` from each kind `matchConstraints`
resolves to. What falls outside is read as `dyn`, silently: rules with `*` in
apiGroups/apiVersions (skipped whole), `*` and subresource entries (dropped), resources that
resolve to no kind (a CRD that is not among the checked files), kinds without a schema, and
everything after the 10th kind (the controller stops there). `paramKind` without a schema leaves
`params` as `dyn` the same way. What is lost, and why, is the policy context's
(`PolicyContext.rules`, `.params_untyped`); this module words it for the `typing-unavailable`
check, hover and the quick fix.
"""

from __future__ import annotations

from dataclasses import dataclass

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.crds import CRDVersion
from vap_lsp.analysis.model.matching import MAX_TYPES_PER_RULE
from vap_lsp.analysis.model.typing import RuleTyping, UntypedResource

__all__ = ["HOW", "Untyped", "params_item", "rule_items", "typing_note", "untyped_message"]

HOW = (
    "give its CRD with `--crd FILE` (CLI), the `vapLsp.crds` setting (editor) "
    "or `crds` in the configuration file (both)"
)


@dataclass(frozen=True)
class Untyped:
    """One thing a rule matches whose `object` is `dyn`, as the diagnostic names it."""

    what: str  # `gateway.networking.k8s.io/v1 httproutes`, `apps/v1, Kind=Deployment`, `*`
    # unknown | not-served | no-schema | wildcard-group | wildcard-resource | subresource | over-limit
    reason: str
    version: str = ""
    # CRD versions of the same group and resource known elsewhere (quick fix: use one of those).
    elsewhere: tuple[CRDVersion, ...] = ()


def _label(u: UntypedResource) -> str:
    group_version = f"{u.group}/{u.version}" if u.group else u.version
    return f"{group_version} {u.resource}"


def rule_items(rule: RuleTyping) -> list[Untyped]:
    """The model's untyped entries of one rule, as the diagnostic lists them: a `*` group or
    version once for the rule, `*` and subresource entries once per resource (as written),
    then the rest in `typesToCheck` order."""
    if not rule.untyped:
        return []
    if any("*" in g for g in rule.groups) or any("*" in v for v in rule.versions):
        wild = [f"apiGroups {list(rule.groups)}" if any("*" in g for g in rule.groups) else ""]
        wild.append(f"apiVersions {list(rule.versions)}" if any("*" in v for v in rule.versions) else "")
        return [Untyped(" and ".join(w for w in wild if w).replace("'", ""), "wildcard-group")]
    dropped = {u.resource for u in rule.untyped if u.reason in ("wildcard", "subresource")}
    items = [
        Untyped(r, "wildcard-resource" if "*" in r.split("/")[0] else "subresource")
        for r in dict.fromkeys(rule.resources)
        if r in dropped
    ]
    for u in rule.untyped:
        if u.reason in ("wildcard", "subresource"):
            continue
        what = str(u.gvk) if u.reason == "no-schema" and u.gvk is not None else _label(u)
        items.append(Untyped(what, u.reason, u.version, u.elsewhere))
    return items


def params_item(context: PolicyContext) -> Untyped | None:
    """`paramKind` without a schema, as the diagnostic names it."""
    u = context.params_untyped
    if u is None or u.gvk is None:
        return None
    return Untyped(f"{u.gvk.api_version} {u.gvk.kind}", u.reason, u.version, u.elsewhere)


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


def typing_note(context: PolicyContext, root: str) -> str | None:
    """For hover on `object`/`oldObject` (or `params`): what is untyped, or None."""
    if root == "params":
        param = params_item(context)
        return untyped_message("params", [param]) if param is not None else None
    items = [u for rule in context.rules for u in rule_items(rule)]
    return untyped_message(root, items) if items else None
