"""Kyverno policies as ValidatingAdmissionPolicies and bindings.

- ValidatingPolicy (`policies.kyverno.io` v1alpha1, v1beta1, v1; kyverno/api
  `api/policies.kyverno.io/v1beta1/validating_policy.go`): its spec is a VAP spec already —
  matchConstraints, matchConditions, variables, validations, auditAnnotations, failurePolicy —
  and `validationActions` (Deny when empty, `ValidationActions()`) go to the binding, as
  Kyverno's own generation does (kyverno/kyverno `pkg/admissionpolicy/builder.go`).
- ClusterPolicy and Policy (`kyverno.io/v1`): each rule with `validate.cel` becomes a policy —
  `match`/`exclude` as matchConstraints (kinds through the REST mapping, `pods` with
  `pods/ephemeralcontainers`, operations, names as resourceNames, namespaces and selectors, as
  `translateResource` does) and match conditions for what selectors cannot say (wildcards,
  annotations, subjects); `celPreconditions` as matchConditions; `validate.cel`'s expressions,
  variables, auditAnnotations, paramKind and paramRef; the failure action as validationActions
  (Enforce → Deny, Audit → Audit, with Warn when the policy sets `emitWarning`). A Policy
  applies in its own namespace only.
- Autogen (`convert.autogen`): the pod controller variants, as more policies.

What has no counterpart in the API server is listed with its reason, never dropped: Kyverno's
CEL libraries (`resource`, `http`, `globalContext`, `image`...), context entries, JMESPath
patterns, deny conditions and preconditions, foreach, podSecurity, image verification,
mutate and generate rules, roles of the requester.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from vap_lsp.convert import autogen
from vap_lsp.convert.cel_text import list_literal, missing_names, string_literal
from vap_lsp.convert.messages import fix_messages
from vap_lsp.convert.model import Converted, Emitted, Options, Origin, Unconvertible
from vap_lsp.schema.store import get_schema_set
from vap_lsp.testfiles.loader import SourceObject

POLICY_GROUP = "kyverno.io"
CEL_GROUP = "policies.kyverno.io"
VALIDATING = ("ValidatingPolicy", "NamespacedValidatingPolicy")
OTHER_CEL_KINDS = {
    "MutatingPolicy": (
        "a MutatingPolicy mutates; this conversion writes validating policies "
        "(MutatingAdmissionPolicy is its counterpart)"
    ),
    "NamespacedMutatingPolicy": (
        "a NamespacedMutatingPolicy mutates; this conversion writes validating policies"
    ),
    "GeneratingPolicy": "a GeneratingPolicy creates objects; admission policies cannot",
    "NamespacedGeneratingPolicy": "a NamespacedGeneratingPolicy creates objects; admission policies cannot",
    "ImageValidatingPolicy": (
        "an ImageValidatingPolicy verifies image signatures and attestations in "
        "registries; the API server reads no registry"
    ),
    "NamespacedImageValidatingPolicy": (
        "an ImageValidatingPolicy verifies image signatures in registries; the API server reads no registry"
    ),
    "DeletingPolicy": (
        "a DeletingPolicy deletes objects on a schedule; admission policies act on requests only"
    ),
    "NamespacedDeletingPolicy": (
        "a DeletingPolicy deletes objects on a schedule; admission policies act on requests only"
    ),
}
POLICY_KINDS = ("ClusterPolicy", "Policy")
CLEANUP_KINDS = ("CleanupPolicy", "ClusterCleanupPolicy")
_POD_CONTROLLER_NOTE = "Kyverno autogen"
_NAME_LABEL = "kubernetes.io/metadata.name"
# Absent from `request` when empty (cluster-scoped objects, generated names): read optionally.
_NAMESPACE = 'request.?namespace.orValue("")'
_NAME = 'request.?name.orValue("")'
_VERSION = re.compile(r"^(v\d+((alpha|beta)\d+)?|\*)$")


def _group(obj: Mapping[str, Any]) -> str:
    api_version = str(obj.get("apiVersion", ""))
    return api_version.rpartition("/")[0]


def is_kyverno_policy(obj: Mapping[str, Any]) -> bool:
    group, kind = _group(obj), obj.get("kind")
    if group == CEL_GROUP:
        return kind in VALIDATING or kind in OTHER_CEL_KINDS
    return group == POLICY_GROUP and kind in (*POLICY_KINDS, *CLEANUP_KINDS)


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def dns_name(*parts: str) -> str:
    """A DNS subdomain from a policy and rule name (rule names may hold any character)."""
    text = "-".join(p for p in parts if p).lower()
    text = re.sub(r"[^a-z0-9.-]+", "-", text).strip("-.")
    return text[:253].rstrip("-.") or "policy"


# --- Kyverno wildcards and kinds ------------------------------------------------------------------


def _wildcard_regex(pattern: str) -> str:
    """Kyverno's wildcard (`ext/wildcard`: `*` any text, `?` one character) as an RE2 pattern."""
    out = []
    for c in pattern:
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c in r"\.+()[]{}^$|":
            out.append("\\" + c)
        else:
            out.append(c)
    return "^" + "".join(out) + "$"


def has_wildcard(value: str) -> bool:
    return "*" in value or "?" in value


def parse_kind(selector: str) -> tuple[str, str, str, str]:
    """kyverno `pkg/utils/kube/kind.go` `ParseKindSelector`: (group, version, kind, subresource)."""
    parts = selector.split("/")
    parts = [*parts[:-1], *parts[-1].split(".")]
    if len(parts) == 1:
        return "*", "*", parts[0], ""
    if len(parts) == 2:
        if parts == ["*", "*"]:
            return "*", "*", "*", "*"
        if parts[0] == "*" and parts[1].lower() == parts[1]:
            return "*", "*", parts[0], parts[1]
        if _VERSION.match(parts[0]):
            return "*", parts[0], parts[1], ""
        return "*", "*", parts[0], parts[1]
    if len(parts) == 3:
        if _VERSION.match(parts[0]):
            return "*", parts[0], parts[1], parts[2]
        return parts[0], parts[1], parts[2], ""
    if len(parts) == 4:
        return parts[0], parts[1], parts[2], parts[3]
    return "", "", "", ""


class _Rules:
    """Resource rules built from Kyverno kinds, one per group/version
    (`constructValidatingAdmissionPolicyRules`)."""

    def __init__(self, version: str) -> None:
        self.schema = get_schema_set(version)
        self.rules: list[dict[str, Any]] = []
        self.unmapped: list[tuple[str, str]] = []  # (group, kind) matched by a condition
        self.problems: list[str] = []
        self.cluster_scoped = False  # whether a rule may match a cluster-scoped kind other than Namespace

    def _add(
        self, group: str, version: str, resources: list[str], operations: list[str], names: list[str]
    ) -> None:
        for rule in self.rules:
            if (
                rule["apiGroups"] == [group]
                and rule["apiVersions"] == [version]
                and rule.get("resourceNames", []) == names
                and rule["operations"] == operations
            ):
                rule["resources"] = sorted(set(rule["resources"]) | set(resources))
                return
        new: dict[str, Any] = {
            "apiGroups": [group],
            "apiVersions": [version],
            "operations": operations,
            "resources": sorted(set(resources)),
        }
        if names:
            new["resourceNames"] = names
        self.rules.append(new)

    def add(self, selector: str, operations: list[str], names: list[str]) -> None:
        group, version, kind, sub = parse_kind(selector)
        if kind == "*" and group == "*" and version == "*":
            self.cluster_scoped = True
            self._add("*", "*", ["*/*"] if sub == "*" else ["*"], operations, names)
            return
        preferred = self.schema.groups()
        found: dict[tuple[str, str], list[str]] = {}
        for r in self.schema.resources():
            if r.kind != kind and kind != "*":
                continue
            if group != "*" and r.group != group:
                continue
            if version != "*" and r.version != version:
                continue
            if version == "*" and preferred.get(r.group) and r.version != preferred[r.group][0]:
                continue
            resources = found.setdefault((r.group, r.version), [])
            if not r.namespaced and (r.group, r.kind) != ("", "Namespace"):
                self.cluster_scoped = True
            if sub:
                if sub in r.subresources:
                    resources.append(f"{r.resource}/{sub}")
            else:
                resources.append(r.resource)
                if r.resource == "pods" and r.group == "":
                    resources.append("pods/ephemeralcontainers")
        found = {k: v for k, v in found.items() if v}
        if not found:
            # Not a built-in kind (a CRD): every resource of its group, and its kind in a match condition.
            self.unmapped.append((group if group != "*" else "*", kind))
            self.cluster_scoped = True
            self._add(
                group,
                version if version != "*" else "*",
                ["*"] if not sub else [f"*/{sub}"],
                operations,
                names,
            )
            return
        for (g, v), resources in sorted(found.items()):
            self._add(g, v, resources, operations, names)


_OPERATIONS = ("CREATE", "UPDATE", "CONNECT", "DELETE")


def _operations(description: Mapping[str, Any]) -> list[str]:
    """`translateOperations`: the listed ones, all four when none."""
    listed = [str(o).upper() for o in _list(description.get("operations"))]
    ops = [o for o in _OPERATIONS if o in listed]
    return ops or list(_OPERATIONS)


# --- match and exclude ----------------------------------------------------------------------------


class _MatchResult:
    def __init__(self) -> None:
        self.match_constraints: dict[str, Any] = {}
        self.conditions: list[dict[str, Any]] = []
        self.unconvertible: list[tuple[str, str, str]] = []  # construct, reason, field


def _filters(block: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """("any" | "all", the filters) of a match or exclude block; the deprecated plain form is one filter."""
    if _list(block.get("any")):
        return "any", [_map(f) for f in block["any"]]
    if _list(block.get("all")):
        return "all", [_map(f) for f in block["all"]]
    plain = {k: v for k, v in block.items() if k in ("resources", "subjects", "roles", "clusterRoles")}
    return "all", [plain] if plain else []


def _any(tests: list[str]) -> str:
    """Alternatives joined with `||`, in parentheses when there are several."""
    return tests[0] if len(tests) == 1 else "(" + " || ".join(tests) + ")"


def _subjects_expression(subjects: list[Any]) -> str:
    """request.userInfo against Kyverno's subjects (User, Group, ServiceAccount)."""
    tests = []
    for subject in subjects:
        subject = _map(subject)
        kind, name = str(subject.get("kind", "")), str(subject.get("name", ""))
        if kind == "ServiceAccount":
            full = f"system:serviceaccount:{subject.get('namespace', '')}:{name}"
            tests.append(f"request.userInfo.username == {string_literal(full)}")
        elif kind == "Group":
            tests.append(f"{string_literal(name)} in request.userInfo.groups")
        else:
            tests.append(f"request.userInfo.username == {string_literal(name)}")
    return " || ".join(tests) or "false"


def _rest_expression(
    description: Mapping[str, Any], filter_: Mapping[str, Any], wildcard_names: bool
) -> list[str]:
    """The CEL tests of a filter that selectors and rules cannot say."""
    tests = []
    names = [str(n) for n in _list(description.get("names"))] + (
        [str(description["name"])]
        if isinstance(description.get("name"), str) and description.get("name")
        else []
    )
    if names and wildcard_names:
        tests.append(_any([f"{_NAME}.matches({string_literal(_wildcard_regex(n))})" for n in names]))
    namespaces = [str(n) for n in _list(description.get("namespaces"))]
    if namespaces and any(has_wildcard(n) for n in namespaces):
        tests.append(
            _any([f"{_NAMESPACE}.matches({string_literal(_wildcard_regex(n))})" for n in namespaces])
        )
    annotations = _map(description.get("annotations"))
    for key, value in sorted(annotations.items()):
        subject = f"(object != null ? object : oldObject).metadata.?annotations[?{string_literal(str(key))}]"
        tests.append(f'{subject}.orValue("").matches({string_literal(_wildcard_regex(str(value)))})')
    if _list(filter_.get("subjects")):
        tests.append(f"({_subjects_expression(_list(filter_.get('subjects')))})")
    return tests


def _selector_wildcards(selector: Any) -> bool:
    selector = _map(selector)
    values = [str(v) for v in _map(selector.get("matchLabels")).values()] + [
        str(v) for e in _list(selector.get("matchExpressions")) for v in _list(_map(e).get("values"))
    ]
    keys = [str(k) for k in _map(selector.get("matchLabels"))]
    return any(has_wildcard(v) for v in values + keys)


def _kind_condition(unmapped: list[tuple[str, str]], mapped_kinds: list[tuple[str, str]]) -> str:
    """Kinds the REST mapping does not know, matched on request.kind (with the others listed too)."""
    pairs = sorted(set(unmapped) | set(mapped_kinds))
    tests = []
    for group, kind in pairs:
        parts = []
        if group != "*":
            parts.append(f"request.kind.group == {string_literal(group)}")
        if kind != "*":
            parts.append(f"request.kind.kind == {string_literal(kind)}")
        tests.append(" && ".join(parts) or "true")
    return " ||\n".join(f"({t})" if " && " in t else t for t in tests)


def convert_match(rule: Mapping[str, Any], version: str, where: str) -> _MatchResult:
    out = _MatchResult()
    match = _map(rule.get("match"))
    mode, filters = _filters(match)
    if not filters:
        out.unconvertible.append(
            (
                "match",
                "the rule matches nothing it names (no match.any, match.all or match.resources)",
                f"{where}.match",
            )
        )
        return out
    rules = _Rules(version)
    namespace_selector: dict[str, Any] | None = None
    object_selector: dict[str, Any] | None = None
    exact_namespaces: list[str] | None = None
    rest: list[list[str]] = []
    mapped_kinds: list[tuple[str, str]] = []
    selectors_seen = 0
    for i, filter_ in enumerate(filters):
        fwhere = f"{where}.match.{mode}[{i}]" if mode in match else f"{where}.match"
        if filter_.get("roles") or filter_.get("clusterRoles"):
            out.unconvertible.append(
                (
                    "roles of the requester",
                    (
                        "Kyverno resolves the RBAC roles bound to the requester; a ValidatingAdmissionPolicy "
                        "sees only the user's name and groups"
                    ),
                    fwhere,
                )
            )
        description = _map(filter_.get("resources"))
        kinds = [str(k) for k in _list(description.get("kinds"))]
        if not kinds:
            out.unconvertible.append(
                ("match without kinds", "Kyverno requires kinds in a match; none given", fwhere)
            )
            continue
        names = [str(n) for n in _list(description.get("names"))] + (
            [str(description["name"])]
            if isinstance(description.get("name"), str) and description.get("name")
            else []
        )
        wildcard_names = any(has_wildcard(n) for n in names)
        operations = _operations(description)
        for kind in kinds:
            group, _, kind_only, _ = parse_kind(kind)
            mapped_kinds.append((group, kind_only))
            rules.add(kind, operations, [] if wildcard_names else names)
        ns_sel = description.get("namespaceSelector")
        obj_sel = description.get("selector")
        namespaces = [str(n) for n in _list(description.get("namespaces"))]
        if _selector_wildcards(ns_sel) or _selector_wildcards(obj_sel):
            out.unconvertible.append(
                (
                    "wildcards in a label selector",
                    "Kyverno's selectors accept wildcards; label selectors of the API server do not",
                    fwhere,
                )
            )
        if ns_sel is not None or obj_sel is not None or namespaces:
            selectors_seen += 1
        if isinstance(ns_sel, dict):
            namespace_selector = copy.deepcopy(ns_sel)
        if isinstance(obj_sel, dict):
            object_selector = copy.deepcopy(obj_sel)
        if namespaces and not any(has_wildcard(n) for n in namespaces):
            exact_namespaces = namespaces
        rest.append(_rest_expression(description, filter_, wildcard_names))
    if mode == "all" and len(filters) > 1:
        out.unconvertible.append(
            (
                "match.all with several filters",
                (
                    "a request must match every filter of match.all; one matchConstraints cannot intersect "
                    "them (Kyverno's own generation refuses it too)"
                ),
                f"{where}.match.all",
            )
        )
        return out
    if mode == "any" and len(filters) > 1 and (selectors_seen or any(rest)):
        out.unconvertible.append(
            (
                "match.any with selectors",
                (
                    "filters of match.any with their own selectors, namespaces or names cannot share one "
                    "matchConstraints"
                ),
                f"{where}.match.any",
            )
        )
        return out
    if exact_namespaces:
        if rules.cluster_scoped:
            # Kyverno matches a cluster-scoped object by no namespace (`checkNameSpace`); a
            # namespaceSelector never skips one.
            rest.append([f'{_NAMESPACE} != ""'])
        expressions = list(_list(_map(namespace_selector).get("matchExpressions")))
        expressions.append({"key": _NAME_LABEL, "operator": "In", "values": exact_namespaces})
        namespace_selector = {**_map(namespace_selector), "matchExpressions": expressions}
    constraints: dict[str, Any] = {"resourceRules": rules.rules}
    if namespace_selector:
        constraints["namespaceSelector"] = namespace_selector
    if object_selector:
        constraints["objectSelector"] = object_selector
    tests = [t for group in rest for t in group]
    if rules.unmapped:
        tests.insert(0, "(" + _kind_condition(rules.unmapped, mapped_kinds) + ")")
    if tests:
        out.conditions.append({"name": "match", "expression": " &&\n".join(tests)})

    exclude = _map(rule.get("exclude"))
    if exclude:
        emode, efilters = _filters(exclude)
        excluded: list[str] = []
        excluded_namespaces: list[str] = []
        exclude_rules = _Rules(version)
        for i, filter_ in enumerate(efilters):
            fwhere = f"{where}.exclude.{emode}[{i}]" if emode in exclude else f"{where}.exclude"
            if filter_.get("roles") or filter_.get("clusterRoles"):
                out.unconvertible.append(
                    (
                        "roles of the requester",
                        (
                            "Kyverno resolves the RBAC roles bound to the requester; a "
                            "ValidatingAdmissionPolicy sees only the user's name and groups"
                        ),
                        fwhere,
                    )
                )
                continue
            description = _map(filter_.get("resources"))
            kinds = [str(k) for k in _list(description.get("kinds"))]
            names = [str(n) for n in _list(description.get("names"))] + (
                [str(description["name"])]
                if isinstance(description.get("name"), str) and description.get("name")
                else []
            )
            others = [k for k in description if k not in ("kinds", "names", "name", "operations")]
            if (
                kinds
                and not others
                and not _list(filter_.get("subjects"))
                and not any(has_wildcard(n) for n in names)
            ):
                for kind in kinds:
                    exclude_rules.add(kind, _operations(description), names)
                continue
            namespaces = [str(n) for n in _list(description.get("namespaces"))]
            only_namespaces = (
                not kinds and not others_but("namespaces", description) and not _list(filter_.get("subjects"))
            )
            if only_namespaces and emode == "any" and not any(has_wildcard(n) for n in namespaces):
                # Requests in these namespaces (a Namespace by its own name) are left alone; a
                # cluster-scoped object is in none: a NotIn requirement says exactly that.
                excluded_namespaces.extend(n for n in namespaces if n not in excluded_namespaces)
                continue
            if _selector_wildcards(description.get("namespaceSelector")) or _selector_wildcards(
                description.get("selector")
            ):
                out.unconvertible.append(
                    (
                        "wildcards in a label selector",
                        "label selectors of the API server take no wildcards",
                        fwhere,
                    )
                )
                continue
            if description.get("namespaceSelector") is not None or description.get("selector") is not None:
                out.unconvertible.append(
                    (
                        "selector in exclude",
                        (
                            "an exclusion by selector cannot be said in one matchConstraints (Kyverno's own "
                            "generation refuses it too)"
                        ),
                        fwhere,
                    )
                )
                continue
            parts = []
            if kinds:
                parts.append(_any([_kind_test(k) for k in kinds]))
            if _list(description.get("operations")):
                parts.append(f"request.operation in {list_literal(_operations(description))}")
            if names:
                parts.append(_any([f"{_NAME}.matches({string_literal(_wildcard_regex(n))})" for n in names]))
            namespaces = [str(n) for n in _list(description.get("namespaces"))]
            if namespaces:
                parts.append(
                    _any([f"{_NAMESPACE}.matches({string_literal(_wildcard_regex(n))})" for n in namespaces])
                )
            for key, value in sorted(_map(description.get("annotations")).items()):
                subject = (
                    "(object != null ? object : "
                    f"oldObject).metadata.?annotations[?{string_literal(str(key))}]"
                )
                parts.append(f'{subject}.orValue("").matches({string_literal(_wildcard_regex(str(value)))})')
            if _list(filter_.get("subjects")):
                parts.append(f"({_subjects_expression(_list(filter_.get('subjects')))})")
            if parts:
                excluded.append(" && ".join(parts))
        if exclude_rules.rules:
            constraints["excludeResourceRules"] = exclude_rules.rules
        if excluded_namespaces:
            selector = _map(constraints.get("namespaceSelector"))
            expressions = [
                *_list(selector.get("matchExpressions")),
                {"key": _NAME_LABEL, "operator": "NotIn", "values": excluded_namespaces},
            ]
            constraints["namespaceSelector"] = {**selector, "matchExpressions": expressions}
        if excluded:
            joined = " ||\n".join(f"({e})" if " && " in e or " || " in e else e for e in excluded)
            if emode == "all" and len(excluded) > 1:
                joined = " &&\n".join(f"({e})" for e in excluded)
            out.conditions.append(
                {"name": "exclude", "expression": f"!(\n{joined}\n)" if "\n" in joined else f"!({joined})"}
            )
    out.match_constraints = constraints
    return out


def others_but(key: str, description: Mapping[str, Any]) -> list[str]:
    """The fields of a ResourceDescription besides `key` and empty ones."""
    return [k for k, v in description.items() if k != key and v not in (None, [], {}, "")]


def _kind_test(selector: str) -> str:
    group, _, kind, sub = parse_kind(selector)
    parts = []
    if group not in ("*", ""):
        parts.append(f"request.kind.group == {string_literal(group)}")
    if kind != "*":
        parts.append(f"request.kind.kind == {string_literal(kind)}")
    if sub:
        parts.append(f"request.subResource == {string_literal(sub)}")
    return " && ".join(parts) or "true"


# --- unconvertible rule parts ----------------------------------------------------------------------

_CONTEXT = {
    "apiCall": (
        "resource lookup (context apiCall)",
        (
            "the rule reads other objects (or a service) through the API at admission time; a "
            "ValidatingAdmissionPolicy reads only the request, its namespace and its params"
        ),
    ),
    "configMap": (
        "ConfigMap lookup (context configMap)",
        (
            "the rule reads a ConfigMap at admission time; a ValidatingAdmissionPolicy can read one only as "
            "its params (paramKind ConfigMap)"
        ),
    ),
    "globalReference": (
        "globalContext",
        "the rule reads Kyverno's globalContext cache; the API server has none",
    ),
    "imageRegistry": (
        "image data (context imageRegistry)",
        "the rule reads image metadata from a registry; the API server reads no registry",
    ),
    "variable": (
        "JMESPath variable (context variable)",
        "the rule computes a variable with JMESPath; the API server evaluates only CEL",
    ),
}


def _rule_problems(rule: Mapping[str, Any], where: str) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    if rule.get("mutate"):
        out.append(
            (
                "mutate rule",
                "a mutate rule changes the object; this conversion writes validating policies",
                f"{where}.mutate",
            )
        )
    if rule.get("generate"):
        out.append(
            (
                "generate rule",
                "a generate rule creates or clones objects; admission policies cannot",
                f"{where}.generate",
            )
        )
    if rule.get("verifyImages"):
        out.append(
            (
                "image verification",
                (
                    "verifyImages checks signatures and attestations in a registry; the API server reads no "
                    "registry"
                ),
                f"{where}.verifyImages",
            )
        )
    validate = _map(rule.get("validate"))
    for key, construct, reason in (
        (
            "pattern",
            "JMESPath pattern",
            (
                "a validate.pattern is Kyverno's pattern language over the object (with JMESPath variables); "
                "rewrite it as a CEL expression"
            ),
        ),
        (
            "anyPattern",
            "JMESPath pattern",
            "a validate.anyPattern is Kyverno's pattern language; rewrite it as CEL expressions",
        ),
        (
            "deny",
            "JMESPath deny conditions",
            "validate.deny conditions are JMESPath; rewrite them as a CEL expression",
        ),
        (
            "foreach",
            "foreach",
            "validate.foreach loops with Kyverno's patterns and JMESPath; rewrite as CEL (all/exists)",
        ),
        (
            "podSecurity",
            "podSecurity",
            (
                "validate.podSecurity runs Pod Security Standards inside Kyverno; use Pod Security Admission "
                "(namespace labels) or the PSS policies written in CEL"
            ),
        ),
        (
            "manifests",
            "manifest verification",
            "validate.manifests verifies signed YAML; the API server cannot",
        ),
        ("assert", "assertion trees", "validate.assert uses Kyverno's assertion trees; rewrite as CEL"),
    ):
        if validate.get(key) is not None:
            out.append((construct, reason, f"{where}.validate.{key}"))
    for i, entry in enumerate(_list(rule.get("context"))):
        entry = _map(entry)
        for key, (construct, reason) in _CONTEXT.items():
            if key in entry:
                if key == "apiCall" and _map(entry.get(key)).get("service"):
                    construct, reason = (
                        "http (context apiCall service)",
                        "the rule calls a web service; the API server makes no calls from a policy",
                    )
                out.append((construct, reason, f"{where}.context[{i}]"))
    if rule.get("preconditions"):
        out.append(
            (
                "JMESPath preconditions",
                "preconditions are JMESPath conditions; write them as celPreconditions (CEL) first",
                f"{where}.preconditions",
            )
        )
    if not validate.get("cel") and not out:
        out.append(("rule without validate.cel", "only validate.cel rules have a CEL counterpart", where))
    return out


def _cel_problems(expressions: list[tuple[str, str]], version: str) -> list[tuple[str, str, str]]:
    found: dict[str, tuple[str, str, str]] = {}
    for text, where in expressions:
        for missing in missing_names(text, version):
            found.setdefault(missing.construct, (missing.construct, missing.reason, where))
    return list(found.values())


# --- the conversion ------------------------------------------------------------------------------


def _emit_pair(
    out: Converted,
    name: str,
    spec: dict[str, Any],
    actions: list[str],
    origin: Origin,
    comment: str,
    binding_extra: dict[str, Any] | None = None,
) -> None:
    notes: list[str] = []
    fix_messages(spec.get("validations") or [], f"{name}: spec.validations", notes)
    out.notes.extend(n for n in notes if n not in out.notes)
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": spec,
    }
    bspec: dict[str, Any] = {"policyName": name}
    bspec.update(binding_extra or {})
    bspec["validationActions"] = actions
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": f"{name}-binding"[:253]},
        "spec": bspec,
    }
    out.objects.append(Emitted(policy, origin, comment))
    out.objects.append(Emitted(binding, origin, f"Binds {name}: {', '.join(actions)}."))


def _namespace_binding(namespace: str | None) -> dict[str, Any]:
    if not namespace:
        return {}
    return {"matchResources": {"namespaceSelector": {"matchLabels": {_NAME_LABEL: namespace}}}}


def _vpol_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (
        "failurePolicy",
        "matchConstraints",
        "matchConditions",
        "variables",
        "validations",
        "auditAnnotations",
    ):
        if spec.get(key) not in (None, [], {}):
            out[key] = copy.deepcopy(spec[key])
    return out


def convert_validating_policy(obj: SourceObject, options: Options) -> Converted:
    origin = Origin(obj.path, obj.line, obj.kind, obj.name)
    out = Converted(origin, f"{dns_name(obj.name)}.yaml")
    spec = _map(obj.data.get("spec"))
    problems: list[tuple[str, str, str]] = []
    evaluation = _map(spec.get("evaluation"))
    if str(evaluation.get("mode", "Kubernetes")) == "JSON":
        problems.append(
            (
                "JSON evaluation mode",
                (
                    "evaluation.mode JSON validates arbitrary JSON payloads outside Kubernetes; a "
                    "ValidatingAdmissionPolicy sees admission requests only"
                ),
                "spec.evaluation.mode",
            )
        )
    if _map(evaluation.get("admission")).get("enabled") is False:
        problems.append(
            (
                "background-only policy",
                (
                    "evaluation.admission.enabled is false: the policy only reports on existing objects; a "
                    "ValidatingAdmissionPolicy acts at admission"
                ),
                "spec.evaluation.admission",
            )
        )
    if not isinstance(spec.get("matchConstraints"), dict):
        problems.append(
            ("no matchConstraints", "a ValidatingPolicy without matchConstraints matches nothing", "spec")
        )
    expressions: list[tuple[str, str]] = []
    for key, fields in (
        ("matchConditions", ("expression",)),
        ("variables", ("expression",)),
        ("validations", ("expression", "messageExpression")),
        ("auditAnnotations", ("valueExpression",)),
    ):
        for i, item in enumerate(_list(spec.get(key))):
            for f in fields:
                if isinstance(_map(item).get(f), str):
                    expressions.append((item[f], f"spec.{key}[{i}].{f}"))
    problems.extend(_cel_problems(expressions, options.kubernetes_version))
    if problems:
        out.unconvertible.extend(Unconvertible(origin, c, r, w) for c, r, w in problems)
        return out
    if _map(spec.get("webhookConfiguration")).get("timeoutSeconds") is not None:
        out.notes.append(
            "webhookConfiguration.timeoutSeconds: a ValidatingAdmissionPolicy runs in the API server, with "
            "no webhook timeout"
        )
    actions = [str(a) for a in _list(spec.get("validationActions"))] or ["Deny"]
    namespace = obj.namespace if obj.kind == "NamespacedValidatingPolicy" else None
    name = dns_name(obj.name)
    base_comment = f"Converted by vap-lsp from {obj.path} ({obj.kind} {obj.name})."
    _emit_pair(out, name, _vpol_spec(spec), actions, origin, base_comment, _namespace_binding(namespace))
    out.rules[""] = [name]
    if options.autogen:
        for variant in autogen.vpol_variants(spec):
            suffix = "autogen" if variant.key == "defaults" else "autogen-cronjob"
            vname = dns_name(obj.name, suffix)
            comment = (
                f"Converted by vap-lsp from {obj.path} ({obj.kind} {obj.name}), {_POD_CONTROLLER_NOTE}: "
                f"the pod template of {', '.join(variant.kinds)}."
            )
            _emit_pair(
                out,
                vname,
                _vpol_spec(variant.source),
                actions,
                origin,
                comment,
                _namespace_binding(namespace),
            )
            out.rules[""].append(vname)
    return out


def _failure_actions(policy_spec: Mapping[str, Any], validate: Mapping[str, Any]) -> list[str]:
    """Enforce → Deny; Audit → Audit (Kyverno reports; it warns the client only with `emitWarning`)."""
    action = validate.get("failureAction") or policy_spec.get("validationFailureAction") or "Audit"
    if str(action).lower() == "enforce":
        return ["Deny"]
    return ["Audit", "Warn"] if policy_spec.get("emitWarning") is True else ["Audit"]


def _cel_rule_spec(
    rule: Mapping[str, Any], policy_spec: Mapping[str, Any], version: str, where: str
) -> tuple[dict[str, Any] | None, dict[str, Any], list[tuple[str, str, str]]]:
    """The VAP spec of one validate.cel rule, the binding's extra fields, and what is unconvertible."""
    problems = _rule_problems(rule, where)
    validate = _map(rule.get("validate"))
    cel = _map(validate.get("cel"))
    expressions: list[tuple[str, str]] = []
    for i, item in enumerate(_list(rule.get("celPreconditions"))):
        expressions.append(
            (str(_map(item).get("expression", "")), f"{where}.celPreconditions[{i}].expression")
        )
    for i, item in enumerate(_list(cel.get("variables"))):
        expressions.append(
            (str(_map(item).get("expression", "")), f"{where}.validate.cel.variables[{i}].expression")
        )
    for i, item in enumerate(_list(cel.get("expressions"))):
        for f in ("expression", "messageExpression"):
            if isinstance(_map(item).get(f), str):
                expressions.append((item[f], f"{where}.validate.cel.expressions[{i}].{f}"))
    for i, item in enumerate(_list(cel.get("auditAnnotations"))):
        expressions.append(
            (
                str(_map(item).get("valueExpression", "")),
                f"{where}.validate.cel.auditAnnotations[{i}].valueExpression",
            )
        )
    problems.extend(_cel_problems(expressions, version))
    for key in ("validationFailureActionOverrides",):
        if _list(policy_spec.get(key)):
            problems.append(
                (
                    "failure action per namespace",
                    (
                        "validationFailureActionOverrides set the action per namespace; convert with one "
                        "binding per namespace set by hand"
                    ),
                    f"spec.{key}",
                )
            )
    if _list(validate.get("failureActionOverrides")):
        problems.append(
            (
                "failure action per namespace",
                (
                    "failureActionOverrides set the action per namespace; convert with one binding per "
                    "namespace set by hand"
                ),
                f"{where}.validate.failureActionOverrides",
            )
        )
    match = convert_match(rule, version, where)
    problems.extend(match.unconvertible)
    if problems:
        return None, {}, problems
    spec: dict[str, Any] = {}
    if isinstance(policy_spec.get("failurePolicy"), str):
        spec["failurePolicy"] = policy_spec["failurePolicy"]
    if isinstance(cel.get("paramKind"), dict):
        spec["paramKind"] = copy.deepcopy(cel["paramKind"])
    spec["matchConstraints"] = match.match_constraints
    conditions = [copy.deepcopy(_map(c)) for c in _list(rule.get("celPreconditions"))]
    webhook = _map(policy_spec.get("webhookConfiguration"))
    conditions += [copy.deepcopy(_map(c)) for c in _list(webhook.get("matchConditions"))]
    taken = {str(c.get("name")) for c in conditions}
    for c in match.conditions:  # the names stay unique among the rule's own
        if c["name"] in taken:
            c["name"] = f"kyverno-{c['name']}"
    conditions += match.conditions
    if conditions:
        spec["matchConditions"] = conditions
    if _list(cel.get("variables")):
        spec["variables"] = copy.deepcopy(cel["variables"])
    spec["validations"] = copy.deepcopy(_list(cel.get("expressions")))
    if _list(cel.get("auditAnnotations")):
        spec["auditAnnotations"] = copy.deepcopy(cel["auditAnnotations"])
    extra: dict[str, Any] = {}
    if isinstance(cel.get("paramRef"), dict):
        extra["paramRef"] = copy.deepcopy(cel["paramRef"])
    return spec, extra, []


def convert_cluster_policy(obj: SourceObject, options: Options) -> Converted:
    origin = Origin(obj.path, obj.line, obj.kind, obj.name)
    out = Converted(origin, f"{dns_name(obj.name)}.yaml")
    spec = _map(obj.data.get("spec"))
    rules = [_map(r) for r in _list(spec.get("rules"))]
    if spec.get("admission") is False:
        out.unconvertible.append(
            Unconvertible(
                origin,
                "background-only policy",
                (
                    "spec.admission is false: the policy only reports on existing objects; a "
                    "ValidatingAdmissionPolicy acts at admission"
                ),
                "spec.admission",
            )
        )
        return out
    namespace = obj.namespace if obj.kind == "Policy" else None
    cel_rules = [r for r in rules if _map(r.get("validate")).get("cel") is not None]
    for i, rule in enumerate(rules):
        rname = str(rule.get("name", f"rule-{i}"))
        rorigin = origin.with_rule(rname)
        where = f"spec.rules[{i}]"
        rule_spec, extra, problems = _cel_rule_spec(rule, spec, options.kubernetes_version, where)
        if rule_spec is None:
            out.unconvertible.extend(Unconvertible(rorigin, c, r, w) for c, r, w in problems)
            continue
        actions = _failure_actions(spec, _map(rule.get("validate")))
        base = dns_name(obj.name) if len(cel_rules) == 1 else dns_name(obj.name, rname)
        binding_extra = {**extra, **_namespace_binding(namespace)}
        comment = f"Converted by vap-lsp from {obj.path} ({obj.kind} {obj.name}, rule {rname})."
        _emit_pair(out, base, rule_spec, actions, rorigin, comment, binding_extra)
        out.rules[rname] = [base]
        if not options.autogen:
            continue
        for variant in autogen.cpol_variants(obj.data, rule):
            vspec, vextra, vproblems = _cel_rule_spec(variant.source, spec, options.kubernetes_version, where)
            if vspec is None:
                out.unconvertible.extend(
                    Unconvertible(origin.with_rule(str(variant.source.get("name"))), c, r, w)
                    for c, r, w in vproblems
                )
                continue
            vname = dns_name(base, variant.key)
            vcomment = (
                f"Converted by vap-lsp from {obj.path} ({obj.kind} {obj.name}, rule "
                f"{variant.source.get('name')}), "
                f"{_POD_CONTROLLER_NOTE}: the pod template of {', '.join(variant.kinds)}."
            )
            _emit_pair(
                out, vname, vspec, actions, rorigin, vcomment, {**vextra, **_namespace_binding(namespace)}
            )
            out.rules[rname].append(vname)
    return out


def convert_kyverno(obj: SourceObject, options: Options) -> Converted:
    origin = Origin(obj.path, obj.line, obj.kind, obj.name)
    group, kind = _group(obj.data), obj.kind
    if group == CEL_GROUP and kind in VALIDATING:
        return convert_validating_policy(obj, options)
    if group == CEL_GROUP:
        out = Converted(origin, f"{dns_name(obj.name)}.yaml")
        out.unconvertible.append(Unconvertible(origin, kind, OTHER_CEL_KINDS[kind], "kind"))
        return out
    if kind in CLEANUP_KINDS:
        out = Converted(origin, f"{dns_name(obj.name)}.yaml")
        out.unconvertible.append(
            Unconvertible(
                origin,
                "cleanup policy",
                "a cleanup policy deletes objects on a schedule; admission policies act on requests only",
                "kind",
            )
        )
        return out
    return convert_cluster_policy(obj, options)
