"""Kyverno's autogen: a rule on Pods also applies to the pod template of pod controllers, so the
conversion emits those variants too, as Kyverno computes them.

- ValidatingPolicy (kyverno/kyverno `pkg/cel/policies/vpol/autogen/autogen.go`,
  `pkg/cel/autogen/{support,data,match,replacement}.go`): only a policy whose matchConstraints
  are exactly one rule on core v1 `pods` (no object selector, exclusions or names); the
  controllers of `spec.autogen.podControllers.controllers`, all six by default; two variants,
  `defaults` (DaemonSet, Deployment, Job, ReplicaSet, StatefulSet: `spec.template`) and
  `cronjobs` (`spec.jobTemplate.spec.template`), each the whole spec with `object.spec` and
  `object.metadata` (also of `oldObject`) rewritten, `.namespace` after `metadata` left alone.
- ClusterPolicy rules (`pkg/autogen/v1/autogen.go`, `rule.go`): unless a rule of the policy
  generates, or a match/exclude names resources, has a selector or annotations, or mixes Pod
  with other kinds; the controllers of the annotation `pod-policies.kyverno.io/autogen-controllers`
  (`none` turns it off), all by default; `autogen-<rule>` (DaemonSet, Deployment, Job,
  ReplicaSet, ReplicationController, StatefulSet) and `autogen-cronjob-<rule>` (CronJob), their
  CEL rewritten the same way without the `.namespace` exception.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ANNOTATION = "pod-policies.kyverno.io/autogen-controllers"

# pkg/cel/autogen/data.go ConfigsMap: resource → (group, version, kind, replacements key)
VPOL_CONTROLLERS = {
    "daemonsets": ("apps", "v1", "DaemonSet", "defaults"),
    "deployments": ("apps", "v1", "Deployment", "defaults"),
    "replicasets": ("apps", "v1", "ReplicaSet", "defaults"),
    "statefulsets": ("apps", "v1", "StatefulSet", "defaults"),
    "jobs": ("batch", "v1", "Job", "defaults"),
    "cronjobs": ("batch", "v1", "CronJob", "cronjobs"),
}
# pkg/autogen/v1/autogen.go PodControllers (without CronJob) in the order `splitKinds` sorts them.
CPOL_CONTROLLERS = ("DaemonSet", "Deployment", "Job", "ReplicaSet", "ReplicationController", "StatefulSet")
_CPOL_ALL = frozenset((*CPOL_CONTROLLERS, "CronJob"))

_TEMPLATE = {"defaults": "spec.template", "cronjobs": "spec.jobTemplate.spec.template"}


@dataclass(frozen=True)
class Variant:
    """One autogen variant: its key (`defaults`/`cronjobs` for a ValidatingPolicy, the rule name
    prefix `autogen`/`autogen-cronjob` for a ClusterPolicy), the kinds it serves, the rewritten
    source (a ValidatingPolicy's spec or a ClusterPolicy rule)."""

    key: str
    kinds: tuple[str, ...]
    source: dict[str, Any]


def _replace(text: str, old: str, new: str, protect_namespace: bool) -> str:
    """Every `old` becomes `new`, except (with `protect_namespace`) where `.namespace` follows as a
    whole segment (`replacement.go` `replace`/`isProtected`)."""
    out: list[str] = []
    i = 0
    while True:
        j = text.find(old, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        rest = text[j + len(old) :]
        protected = (
            protect_namespace
            and rest.startswith(".namespace")
            and (
                len(rest) == len(".namespace")
                or not (rest[len(".namespace")].isalnum() or rest[len(".namespace")] == "_")
            )
        )
        out.append(old if protected else new)
        i = j + len(old)


def _rewrite(value: Any, pairs: list[tuple[str, str]], protect_namespace: bool) -> Any:
    if isinstance(value, dict):
        return {k: _rewrite(v, pairs, protect_namespace) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewrite(v, pairs, protect_namespace) for v in value]
    if isinstance(value, str):
        for old, new in pairs:
            value = _replace(value, old, new, protect_namespace)
        return value
    return value


def _pairs(template: str) -> list[tuple[str, str]]:
    """`object.spec` → `object.<template>.spec` and `object.metadata` → `object.<template>.metadata`,
    for `object` then `oldObject` (the order of `Replacement.Apply` and of `updateFields`)."""
    out = []
    for source in ("spec", "metadata"):
        for root in ("object", "oldObject"):
            out.append((f"{root}.{source}", f"{root}.{template}.{source}"))
    return out


def _cpol_pairs(template: str) -> list[tuple[str, str]]:
    """`updateFields`' order: object.spec, oldObject.spec, object.metadata, oldObject.metadata."""
    return [
        ("object.spec", f"object.{template}.spec"),
        ("oldObject.spec", f"oldObject.{template}.spec"),
        ("object.metadata", f"object.{template}.metadata"),
        ("oldObject.metadata", f"oldObject.{template}.metadata"),
    ]


# --- ValidatingPolicy ----------------------------------------------------------------------------


def _selector_empty(selector: Any) -> bool:
    return not isinstance(selector, Mapping) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    )


def vpol_can_autogen(match: Any) -> bool:
    """`CanAutoGen`: one rule on core v1 pods, no object selector, exclusions or names."""
    if not isinstance(match, Mapping):
        return False
    if not _selector_empty(match.get("objectSelector")) or match.get("excludeResourceRules"):
        return False
    rules = match.get("resourceRules")
    if not isinstance(rules, list) or len(rules) != 1 or not isinstance(rules[0], Mapping):
        return False
    rule = rules[0]
    return (
        not rule.get("resourceNames")
        and rule.get("apiGroups") == [""]
        and rule.get("apiVersions") == ["v1"]
        and rule.get("resources") == ["pods"]
    )


def vpol_variants(spec: Mapping[str, Any]) -> list[Variant]:
    """The autogen variants of a ValidatingPolicy's spec (none when it cannot autogen)."""
    match = spec.get("matchConstraints")
    if not vpol_can_autogen(match):
        return []
    assert isinstance(match, Mapping)
    configured = spec.get("autogen")
    controllers: set[str] = set(VPOL_CONTROLLERS)
    pod_controllers = configured.get("podControllers") if isinstance(configured, Mapping) else None
    if isinstance(pod_controllers, Mapping) and isinstance(pod_controllers.get("controllers"), list):
        controllers = {str(c) for c in pod_controllers["controllers"]}
    groups: dict[str, list[tuple[str, str, str, str]]] = {}
    for resource in sorted(controllers):
        found = VPOL_CONTROLLERS.get(resource)
        if found is not None:
            group, version, kind, key = found
            groups.setdefault(key, []).append((group, version, resource, kind))
    operations = list(match["resourceRules"][0].get("operations") or [])
    out = []
    for key in sorted(groups, key=lambda k: k != "defaults"):  # pod controllers, then CronJobs
        targets = groups[key]
        by_gv: dict[tuple[str, str], set[str]] = {}
        for group, version, resource, _ in targets:
            by_gv.setdefault((group, version), set()).add(resource)
        new_match: dict[str, Any] = {
            "resourceRules": [
                {"apiGroups": [g], "apiVersions": [v], "operations": operations, "resources": sorted(r)}
                for (g, v), r in sorted(by_gv.items())
            ]
        }
        if not _selector_empty(match.get("namespaceSelector")):
            new_match["namespaceSelector"] = copy.deepcopy(match["namespaceSelector"])
        rewritten = _rewrite(
            {k: copy.deepcopy(v) for k, v in spec.items() if k != "matchConstraints"},
            _pairs(_TEMPLATE[key]),
            True,
        )
        rewritten["matchConstraints"] = new_match
        out.append(Variant(key, tuple(sorted(kind for *_, kind in targets)), rewritten))
    return out


# --- ClusterPolicy -------------------------------------------------------------------------------


def _descriptions(block: Any) -> list[Mapping[str, Any]]:
    """Every ResourceDescription of a match or exclude block (the block's own and of any/all)."""
    if not isinstance(block, Mapping):
        return []
    out: list[Mapping[str, Any]] = []
    if isinstance(block.get("resources"), Mapping):
        out.append(block["resources"])
    for key in ("any", "all"):
        for entry in block.get(key) or []:
            if isinstance(entry, Mapping) and isinstance(entry.get("resources"), Mapping):
                out.append(entry["resources"])
    return out


def kind_name(selector: str) -> str:
    """The kind of a Kyverno kind selector (`Pod`, `v1/Pod`, `apps/v1/Deployment`,
    `Pod/ephemeralcontainers`): its first part that starts with a capital letter."""
    parts = selector.split("/")
    return next((p for p in parts if p[:1].isupper() or p == "*"), parts[-1])


def _kind_names(kinds: Any) -> list[str]:
    return [kind_name(str(k)) for k in kinds] if isinstance(kinds, list) else []


def cpol_controllers(policy: Mapping[str, Any]) -> set[str]:
    """`computeRules`/`CanAutoGen`: the pod controllers the policy's Pod rules extend to."""
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    needed = False
    for rule in spec.get("rules") or []:
        if not isinstance(rule, Mapping):
            continue
        if rule.get("generate"):
            return set()
        mutate = rule.get("mutate")
        if isinstance(mutate, Mapping) and (
            mutate.get("patchesJson6902")
            or any(isinstance(f, Mapping) and f.get("patchesJson6902") for f in mutate.get("foreach") or [])
        ):
            return set()
        for description in _descriptions(rule.get("match")) + _descriptions(rule.get("exclude")):
            kinds = _kind_names(description.get("kinds"))
            if (
                description.get("name")
                or description.get("names")
                or description.get("selector") is not None
                or description.get("annotations") is not None
                or (len(kinds) > 1 and "Pod" in kinds)
            ):
                return set()
            needed = needed or bool(_CPOL_ALL.union({"Pod"}) & set(kinds))
    if not needed:
        return set()
    meta = policy.get("metadata") if isinstance(policy.get("metadata"), Mapping) else {}
    assert isinstance(meta, Mapping)
    annotations = meta.get("annotations") if isinstance(meta.get("annotations"), Mapping) else {}
    assert isinstance(annotations, Mapping)
    value = annotations.get(ANNOTATION)
    if isinstance(value, str):
        return set(value.split(",")) - {"none"} if value != "none" else set()
    return set(_CPOL_ALL)


def _with_kinds(block: Any, kinds: list[str], only_pod: bool) -> Any:
    """A match/exclude block whose kinds are replaced (`generateRule`): the any/all filters that
    name Pod (or every filter, `only_pod=False`), else the block's own kinds."""
    if not isinstance(block, Mapping):
        return block
    out = copy.deepcopy(dict(block))
    for key in ("any", "all"):
        entries = out.get(key)
        if isinstance(entries, list) and entries:
            for entry in entries:
                resources = entry.get("resources") if isinstance(entry, dict) else None
                if isinstance(resources, dict) and (
                    not only_pod or "Pod" in _kind_names(resources.get("kinds"))
                ):
                    resources["kinds"] = list(kinds)
            return out
    resources = out.get("resources")
    if isinstance(resources, dict):
        resources["kinds"] = list(kinds)
    return out


def cpol_variants(policy: Mapping[str, Any], rule: Mapping[str, Any]) -> list[Variant]:
    """`generateRules` for one rule: `autogen-<rule>` and `autogen-cronjob-<rule>`."""
    controllers = cpol_controllers(policy)
    if not controllers:
        return []
    match_kinds = [k for d in _descriptions(rule.get("match")) for k in _kind_names(d.get("kinds"))]
    exclude_kinds = [k for d in _descriptions(rule.get("exclude")) for k in _kind_names(d.get("kinds"))]
    if "Pod" not in match_kinds or (exclude_kinds and "Pod" not in exclude_kinds):
        return []
    out = []
    others = sorted(c for c in controllers if c != "CronJob")
    listed = [c for c in others if c in CPOL_CONTROLLERS]
    name = str(rule.get("name", ""))
    if listed:
        source = copy.deepcopy(dict(rule))
        source["match"] = _with_kinds(rule.get("match"), listed, True)
        if rule.get("exclude") is not None:
            source["exclude"] = _with_kinds(rule.get("exclude"), listed, True)
        source = _rewrite(source, _cpol_pairs("spec.template"), False)
        source["name"] = f"autogen-{name}"[:63]
        out.append(Variant("autogen", tuple(listed), source))
    if "CronJob" in controllers:
        source = copy.deepcopy(dict(rule))
        source["match"] = _with_kinds(rule.get("match"), ["CronJob"], False)
        if rule.get("exclude") is not None:
            source["exclude"] = _with_kinds(rule.get("exclude"), ["CronJob"], False)
        source = _rewrite(source, _cpol_pairs("spec.jobTemplate.spec.template"), False)
        source["name"] = f"autogen-cronjob-{name}"[:63]
        out.append(Variant("autogen-cronjob", ("CronJob",), source))
    return out
