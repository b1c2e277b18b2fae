"""Gatekeeper ConstraintTemplates with a `K8sNativeValidation` engine, and their Constraints,
as ValidatingAdmissionPolicies and bindings.

Gatekeeper generates the same objects inside a cluster (open-policy-agent/gatekeeper
`pkg/drivers/k8scel/transform/make_vap_objects.go`, `TemplateToPolicyDefinition` and
`ConstraintToBinding`; `cel_snippets.go`): one policy per template, named
`gatekeeper-<template>`, whose paramKind is the constraint kind
(`constraints.gatekeeper.sh/v1beta1`), the variables `anyObject` (`object`, or `oldObject` on
DELETE) and `params` (the constraint's `spec.parameters`, null when absent) before the
template's own; one binding per constraint, `gatekeeper-<kind>-<constraint>`, whose paramRef is
the constraint (`parameterNotFoundAction: Allow`) and whose validationActions come from
`enforcementAction` (deny → Deny, warn → Warn, dryrun → Audit; `scoped`: the actions of the
`vap.k8s.io` enforcement point).

Where Gatekeeper's generation matches every resource and re-implements the constraint's
`spec.match` in CEL, the conversion writes what the API server can match itself — the binding's
resource rules from `match.kinds` through the REST mapping (with the subresources Gatekeeper's
webhook receives for those kinds, `deploy/gatekeeper.yaml`), `scope`, `labelSelector` as the
object selector, `namespaceSelector`, exact `namespaces`/`excludedNamespaces` as
`kubernetes.io/metadata.name` requirements — and keeps CEL match conditions for what selectors
cannot say (namespace and name globs, kinds no REST mapping knows), as Gatekeeper's matcher
decides them (`pkg/mutation/match/match.go`: a Namespace is matched by its own name, a
cluster-scoped object by no namespace rule).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.convert.cel_text import missing_names
from vap_lsp.convert.messages import fix_messages
from vap_lsp.convert.model import Converted, Emitted, Options, Origin, Unconvertible
from vap_lsp.schema.store import get_schema_set
from vap_lsp.testfiles.loader import SourceObject

TEMPLATE_GROUP = "templates.gatekeeper.sh"
CONSTRAINT_GROUP = "constraints.gatekeeper.sh"
CONFIG_GROUP = "config.gatekeeper.sh"
PARAM_VERSION = "v1beta1"  # Gatekeeper's paramKind: constraints.gatekeeper.sh/v1beta1
ENGINE = "K8sNativeValidation"
TARGET = "admission.k8s.gatekeeper.sh"
# Gatekeeper's default webhook: CREATE and UPDATE of every resource and of these subresources
# (`deploy/gatekeeper.yaml`, ValidatingWebhookConfiguration `validation.gatekeeper.sh`); those
# whose kind is a matched kind reach the constraint.
WEBHOOK_OPERATIONS = ("CREATE", "UPDATE")
WEBHOOK_SUBRESOURCES = frozenset(
    {
        "pods/ephemeralcontainers",
        "pods/exec",
        "pods/log",
        "pods/eviction",
        "pods/portforward",
        "pods/proxy",
        "pods/attach",
        "pods/binding",
        "pods/resize",
        "deployments/scale",
        "replicasets/scale",
        "statefulsets/scale",
        "replicationcontrollers/scale",
        "services/proxy",
        "nodes/proxy",
        "services/status",
    }
)
_ACTIONS = {"deny": "Deny", "warn": "Warn", "dryrun": "Audit"}
_VAP_POINT = "vap.k8s.io"
_WEBHOOK_POINT = "validation.gatekeeper.sh"
# Gatekeeper rejects templates using these variable names (`pkg/drivers/k8scel/schema/schema.go`).
_RESERVED_PREFIX = "gatekeeper_internal_"
_RESERVED = ("params", "anyObject")
_NAME_LABEL = "kubernetes.io/metadata.name"
_MAX_NAME = 253


def group_of(obj: Mapping[str, Any]) -> str:
    api_version = str(obj.get("apiVersion", ""))
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def is_template(obj: Mapping[str, Any]) -> bool:
    return group_of(obj) == TEMPLATE_GROUP and obj.get("kind") == "ConstraintTemplate"


def is_constraint(obj: Mapping[str, Any]) -> bool:
    return group_of(obj) == CONSTRAINT_GROUP


def is_config(obj: Mapping[str, Any]) -> bool:
    return group_of(obj) == CONFIG_GROUP and obj.get("kind") == "Config"


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _name(obj: Mapping[str, Any]) -> str:
    return str(_map(obj.get("metadata")).get("name", ""))


def policy_name(template_name: str) -> str:
    return f"gatekeeper-{template_name}"


def binding_name(kind: str, constraint: str) -> str:
    """`GetVAPBindingName`: `gatekeeper-<kind>-<constraint>`, cut to 253 characters with a hash."""
    name = f"gatekeeper-{kind.lower()}-{constraint}"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return name[: _MAX_NAME - len(digest) - 1].rstrip("-.") + "-" + digest


def origin_of(obj: SourceObject) -> Origin:
    return Origin(obj.path, obj.line, obj.kind, obj.name)


# --- spec.match → the binding's matchResources --------------------------------------------------


@dataclass
class _Match:
    """What one constraint's `spec.match` becomes."""

    rules: list[dict[str, Any]] | None  # None: every resource
    unmapped_kinds: list[str] = field(default_factory=list)
    namespace_selector: dict[str, Any] | None = None
    object_selector: dict[str, Any] | None = None
    globs: list[str] = field(default_factory=list)  # match fields needing a match condition
    notes: list[str] = field(default_factory=list)


def _is_glob(value: str) -> bool:
    return "*" in value


def _resources_for(
    kinds: list[str], groups: list[str], version: str
) -> tuple[dict[str, tuple[set[str], set[str]]], list[str]]:
    """group → (versions, resources with the subresources Gatekeeper's webhook sends) serving
    these kinds, and the kinds no REST mapping knows."""
    schema = get_schema_set(version)
    found: dict[str, tuple[set[str], set[str]]] = {}
    unmapped: list[str] = []
    for kind in kinds:
        hit = False
        for resource in schema.resources():
            if resource.kind != kind or ("*" not in groups and resource.group not in groups):
                continue
            hit = True
            versions, names = found.setdefault(resource.group, (set(), set()))
            versions.add(resource.version)
            names.add(resource.resource)
            for sub, info in resource.subresources.items():
                full = f"{resource.resource}/{sub}"
                writable = {"create", "update", "patch"} & set(info.verbs)
                if full in WEBHOOK_SUBRESOURCES and info.kind == kind and writable:
                    names.add(full)
        if not hit:
            unmapped.extend(f"{g}/{kind}" if g else kind for g in groups)
    return found, unmapped


def _kind_rules(match: Mapping[str, Any], version: str) -> tuple[list[dict[str, Any]] | None, list[str]]:
    entries = _list(match.get("kinds"))
    if not entries:
        return None, []
    by_group: dict[str, tuple[set[str], set[str]]] = {}
    unmapped: list[str] = []
    for entry in entries:
        entry = _map(entry)
        groups = [str(g) for g in _list(entry.get("apiGroups"))] or ["*"]
        kinds = [str(k) for k in _list(entry.get("kinds"))] or ["*"]
        if "*" in kinds:
            for g in groups:
                by_group.setdefault(g, (set(), set()))[1].add("*")
            continue
        found, missing = _resources_for(kinds, groups, version)
        for g, (versions, names) in found.items():
            have = by_group.setdefault(g, (set(), set()))
            have[0].update(versions)
            have[1].update(names)
        for item in missing:
            group = item.rpartition("/")[0] if "/" in item else ""
            by_group.setdefault(group, (set(), set()))[1].add("*")
        unmapped.extend(missing)
    if "*" in by_group and "*" in by_group["*"][1]:
        return None, unmapped
    rules = []
    for g, (versions, names) in sorted(by_group.items()):
        wildcard = "*" in names
        rules.append(
            {
                "apiGroups": [g],
                "apiVersions": sorted(versions) if versions and not wildcard else ["*"],
                "resources": ["*"] if wildcard else sorted(names),
            }
        )
    return rules, unmapped


def _selector(value: Any) -> dict[str, Any] | None:
    return copy.deepcopy(value) if isinstance(value, dict) else None


def _with_requirement(selector: dict[str, Any] | None, operator: str, names: list[str]) -> dict[str, Any]:
    out = selector or {}
    expressions = list(_list(out.get("matchExpressions")))
    expressions.append({"key": _NAME_LABEL, "operator": operator, "values": names})
    out["matchExpressions"] = expressions
    return out


def _convert_match(constraint: Mapping[str, Any], version: str) -> _Match:
    match = _map(_map(constraint.get("spec")).get("match"))
    rules, unmapped = _kind_rules(match, version)
    out = _Match(rules, unmapped)
    if unmapped:
        out.globs.append("kinds")
    scope = match.get("scope")
    if isinstance(scope, str) and scope in ("Cluster", "Namespaced"):
        rules = out.rules or [{"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]
        for rule in rules:
            rule["scope"] = scope
        out.rules = rules
    out.object_selector = _selector(match.get("labelSelector"))
    out.namespace_selector = _selector(match.get("namespaceSelector"))
    for key, operator in (("namespaces", "In"), ("excludedNamespaces", "NotIn")):
        names = [str(n) for n in _list(match.get(key))]
        if not names:
            continue
        if any(_is_glob(n) for n in names):
            out.globs.append(key)
        else:
            out.namespace_selector = _with_requirement(out.namespace_selector, operator, names)
    name = match.get("name")
    if isinstance(name, str) and name:
        out.globs.append("name")
    if match.get("source") not in (None, "", "All", "Original"):
        out.notes.append(
            f"spec.match.source {match.get('source')!r}: a ValidatingAdmissionPolicy sees only the "
            "request's own object (as `Original`)"
        )
    return out


# --- match conditions for what selectors cannot say ----------------------------------------------


# The request's namespace and name: absent from `request` when empty (a cluster-scoped object;
# a name to be generated), as the server converts the AdmissionRequest with omitempty.
_NAMESPACE = 'request.?namespace.orValue("")'
_NAME = 'request.?name.orValue("")'


def _glob_test(subject: str, pattern: str) -> str:
    """Gatekeeper's wildcard (`*` as a prefix or suffix) as a regular expression, as its own VAP
    generation does (`cel_snippets.go`: valid since the CRD's pattern allows no other
    metacharacter)."""
    return f'{subject}.matches("^" + {pattern}.replace("*", ".*") + "$")'


@dataclass(frozen=True)
class _ParamsAccess:
    """How a match condition reads a constraint's `spec.match` field from the params."""

    mode: str

    def list_of(self, key: str) -> tuple[str, str]:
        """(an expression true when the list is absent or empty, the list)."""
        if self.mode == "configmap":
            raw = f'params.?data[?"match.{key}"].orValue("")'
            return f'{raw} == ""', f'{raw}.split("\\n")'
        return f"params.?spec.?match.?{key}.orValue([]).size() == 0", f"params.spec.match.{key}"

    def name(self) -> tuple[str, str]:
        if self.mode == "configmap":
            raw = 'params.?data[?"match.name"].orValue("")'
            return f'{raw} == ""', raw
        return 'params.?spec.?match.?name.orValue("") == ""', "params.spec.match.name"

    def kinds(self) -> tuple[str, str]:
        if self.mode == "configmap":
            raw = 'params.?data[?"match.kinds"].orValue("")'
            group, kind = "request.kind.group", "request.kind.kind"
            accepted = f'["*", "*/*", {kind}, {group} + "/*", {group} + "/" + {kind}, "*/" + {kind}]'
            return f'{raw} == ""', f'{raw}.split("\\n").exists(k, k in {accepted})'
        return (
            "params.?spec.?match.?kinds.orValue([]).size() == 0",
            "params.spec.match.kinds.exists(k,\n"
            '  (k.?kinds.orValue([]).size() == 0 || "*" in k.kinds ||\n'
            "    request.kind.kind in k.kinds) &&\n"
            '  (k.?apiGroups.orValue([]).size() == 0 || "*" in k.apiGroups ||\n'
            "    request.kind.group in k.apiGroups))",
        )


def _match_conditions(needed: set[str], access: _ParamsAccess) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if "kinds" in needed:
        empty, test = access.kinds()
        out.append({"name": "constraint-kinds", "expression": f"{empty} ||\n{test}"})
    for key, negate in (("namespaces", False), ("excludedNamespaces", True)):
        if key not in needed:
            continue
        empty, values = access.list_of(key)
        found = f"{values}.exists(n, {_glob_test(_NAMESPACE, 'n')})"
        name = "constraint-namespaces" if not negate else "constraint-excluded-namespaces"
        out.append(
            {
                "name": name,
                # A cluster-scoped object has no namespace: no namespace rule applies to it (a
                # Namespace's request carries its own name as namespace).
                "expression": f'{empty} || {_NAMESPACE} == "" ||\n{"!" if negate else ""}{found}',
            }
        )
    if "name" in needed:
        empty, pattern = access.name()
        generate_name = '(object != null ? object : oldObject).metadata.?generateName.orValue("")'
        out.append(
            {
                "name": "constraint-name",
                "expression": f"{empty} ||\n{_glob_test(_NAME, pattern)} ||\n"
                f'({pattern}.endsWith("*") && {_glob_test(generate_name, pattern)})',
            }
        )
    return out


# --- enforcementAction → validationActions -------------------------------------------------------


def _validation_actions(constraint: Mapping[str, Any], notes: list[str]) -> tuple[list[str] | None, str]:
    """The binding's actions, or None with the reason the constraint cannot be converted."""
    spec = _map(constraint.get("spec"))
    action = spec.get("enforcementAction", "deny")
    if not isinstance(action, str) or not action:
        action = "deny"
    action = action.lower() if action.lower() in (*_ACTIONS, "scoped") else action
    if action in _ACTIONS:
        return [_ACTIONS[action]], ""
    if action != "scoped":
        return None, f"enforcementAction {action!r} is not deny, warn, dryrun or scoped"
    scoped = [_map(s) for s in _list(spec.get("scopedEnforcementActions"))]

    def actions_for(point: str) -> list[str]:
        out: list[str] = []
        for entry in scoped:
            names = {str(_map(p).get("name")) for p in _list(entry.get("enforcementPoints"))}
            value = str(entry.get("action", "")).lower()
            if (point in names or "*" in names) and value in _ACTIONS and _ACTIONS[value] not in out:
                out.append(_ACTIONS[value])
        return out

    found = actions_for(_VAP_POINT)
    if found:
        return found, ""
    found = actions_for(_WEBHOOK_POINT)
    if found:
        notes.append(
            f"scoped enforcement: no action for {_VAP_POINT}; the actions of the admission webhook "
            f"({_WEBHOOK_POINT}) are used, the point this policy replaces"
        )
        return found, ""
    return None, f"scopedEnforcementActions name no action for {_VAP_POINT} or {_WEBHOOK_POINT}"


# --- params as ConfigMaps (--params configmap) ---------------------------------------------------


def _param_type(schema: Mapping[str, Any], key: str, values: list[Any]) -> str | None:
    """string, boolean, integer, number, string-list, integer-list; None: not expressible."""
    prop = _map(_map(schema.get("properties")).get(key))
    kind = prop.get("type")
    if kind == "array":
        items = _map(prop.get("items")).get("type")
        return f"{items}-list" if items in ("string", "integer") else None
    if kind in ("string", "boolean", "integer", "number"):
        return str(kind)
    inferred = set()
    for value in values:
        if isinstance(value, bool):
            inferred.add("boolean")
        elif isinstance(value, int):
            inferred.add("integer")
        elif isinstance(value, float):
            inferred.add("number")
        elif isinstance(value, str):
            inferred.add("string")
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            inferred.add("string-list")
        else:
            inferred.add("?")
    return inferred.pop() if len(inferred) == 1 and "?" not in inferred else None


def _encode(kind: str, value: Any) -> str | None:
    """A parameter value as ConfigMap text, or None when the text could not be read back exactly."""
    if kind == "string" and isinstance(value, str):
        return value
    if kind == "boolean" and isinstance(value, bool):
        return "true" if value else "false"
    if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return repr(float(value))
    if kind.endswith("-list") and isinstance(value, list):
        texts = [str(v) for v in value]
        if value == [""] or any("\n" in t for t in texts):
            return None
        if kind == "integer-list" and not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return None
        if kind == "string-list" and not all(isinstance(v, str) for v in value):
            return None
        return "\n".join(texts)
    return None


# How CEL reads each kind back. `params` is dyn when the server evaluates (only the type check
# knows the ConfigMap's schema), so the optional's value is made dyn before a conversion: on a
# free type parameter `int(v)` would pick `int(int)` and fail at run time ("no such overload").
_DECODE = {
    "string": "v",
    "boolean": 'dyn(v) == "true"',
    "integer": "int(dyn(v))",
    "number": "double(dyn(v))",
    "string-list": 'dyn(v) == "" ? [] : dyn(v).split("\\n")',
    "integer-list": 'dyn(v) == "" ? [] : dyn(v).split("\\n").map(x, int(x))',
}


def _configmap_params_expression(types: dict[str, str]) -> str:
    if not types:
        return "!has(params.data) ? null : dyn({})"
    entries = ",\n".join(
        f'  ?"{key}": params.data[?"{key}"].optMap(v, dyn({_DECODE[kind]}))'
        for key, kind in sorted(types.items())
    )
    return f"!has(params.data) ? null : dyn({{\n{entries}\n}})"


# --- the conversion ------------------------------------------------------------------------------


def _code(target: Mapping[str, Any]) -> tuple[dict[str, Any] | None, bool]:
    """The K8sNativeValidation source of a target, and whether the target has Rego."""
    native = None
    rego = bool(target.get("rego"))
    for entry in _list(target.get("code")):
        entry = _map(entry)
        if entry.get("engine") == ENGINE and native is None:
            native = _map(entry.get("source"))
        elif entry.get("engine") == "Rego":
            rego = True
    return native, rego


def _rego_text(target: Mapping[str, Any]) -> str:
    parts = [str(target.get("rego", ""))] + [str(x) for x in _list(target.get("libs"))]
    for entry in _list(target.get("code")):
        source = _map(_map(entry).get("source"))
        parts.append(str(source.get("rego", "")))
        parts.extend(str(x) for x in _list(source.get("libs")))
    return "\n".join(parts)


def _rego_only(origin: Origin, target: Mapping[str, Any]) -> list[Unconvertible]:
    out = [
        Unconvertible(
            origin,
            "Rego-only template",
            "the template has no K8sNativeValidation (CEL) engine; Rego runs in Gatekeeper, never in "
            "the API server: add a K8sNativeValidation source to the template first",
            "spec.targets[0]",
        )
    ]
    text = _rego_text(target)
    if "data.inventory" in text:
        out.append(
            Unconvertible(
                origin,
                "data.inventory",
                "the Rego reads Gatekeeper's replicated cluster inventory (referential data); a "
                "ValidatingAdmissionPolicy sees only the request, its namespace and its params",
                "spec.targets[0]",
            )
        )
    if "external_data" in text:
        out.append(
            Unconvertible(
                origin,
                "external data",
                "the Rego calls a Gatekeeper external data provider; the API server calls no provider",
                "spec.targets[0]",
            )
        )
    return out


def config_exemptions(config: SourceObject) -> list[Unconvertible]:
    """Gatekeeper's Config: namespaces it exempts for every constraint are cluster-wide
    configuration, not part of any template or constraint."""
    origin = origin_of(config)
    out = []
    for i, entry in enumerate(_list(_map(config.data.get("spec")).get("match"))):
        entry = _map(entry)
        names = [str(n) for n in _list(entry.get("excludedNamespaces"))]
        processes = [str(p) for p in _list(entry.get("processes"))]
        if names:
            out.append(
                Unconvertible(
                    origin,
                    "cluster-wide namespace exemption",
                    f"Gatekeeper's Config exempts namespaces {', '.join(names)} from "
                    f"{', '.join(processes) or 'every process'} for every constraint; a "
                    "ValidatingAdmissionPolicy has no cluster-wide exemption: add them to each "
                    "binding's namespaceSelector (key kubernetes.io/metadata.name, operator NotIn)",
                    f"spec.match[{i}]",
                )
            )
    return out


def _crd(kind: str, schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The constraint CRD Gatekeeper creates for a template (frameworks
    `constraint/pkg/client/crds/crds.go` `CreateCRD`), as far as typing `params` needs it."""
    parameters: dict[str, Any] = (
        copy.deepcopy(dict(schema))
        if schema
        else {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    )
    plural = kind.lower()
    any_object = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{CONSTRAINT_GROUP}"},
        "spec": {
            "group": CONSTRAINT_GROUP,
            "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural, "singular": plural},
            "scope": "Cluster",
            "versions": [
                {
                    "name": PARAM_VERSION,
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "enforcementAction": {"type": "string"},
                                        "scopedEnforcementActions": {"type": "array", "items": any_object},
                                        "match": any_object,
                                        "parameters": parameters,
                                    },
                                },
                                "status": any_object,
                            },
                        }
                    },
                }
            ],
        },
    }


def convert_template(template: SourceObject, constraints: list[SourceObject], options: Options) -> Converted:
    """One template and the constraints of its kind."""
    origin = origin_of(template)
    name = template.name
    out = Converted(origin, f"{policy_name(name)}.yaml")
    spec = _map(template.data.get("spec"))
    kind = str(_map(_map(_map(spec.get("crd")).get("spec")).get("names")).get("kind", ""))
    targets = _list(spec.get("targets"))
    if not kind:
        out.unconvertible.append(
            Unconvertible(origin, "template without kind", "spec.crd.spec.names.kind is missing", "spec.crd")
        )
        return out
    if len(targets) != 1 or _map(targets[0]).get("target") != TARGET:
        out.unconvertible.append(
            Unconvertible(
                origin, "template targets", f"Gatekeeper allows exactly one target, {TARGET}", "spec.targets"
            )
        )
        return out
    target = _map(targets[0])
    source, _ = _code(target)
    if source is None:
        out.unconvertible.extend(_rego_only(origin, target))
        for c in constraints:
            out.unconvertible.append(
                Unconvertible(
                    origin_of(c),
                    "constraint of an unconvertible template",
                    f"its template {name} is not converted",
                )
            )
        return out
    if source.get("generateVAP") is False:
        out.notes.append(
            "the template sets generateVAP: false (Gatekeeper would not generate a policy); converted anyway"
        )
    variables = [_map(v) for v in _list(source.get("variables"))]
    conditions = [_map(m) for m in _list(source.get("matchCondition", source.get("matchConditions")))]
    for i, v in enumerate(variables):
        vname = str(v.get("name", ""))
        if vname in _RESERVED or vname.startswith(_RESERVED_PREFIX):
            out.unconvertible.append(
                Unconvertible(
                    origin,
                    "reserved variable name",
                    f"Gatekeeper reserves the variable name {vname!r}; it rejects this template",
                    f"spec.targets[0].code.source.variables[{i}]",
                )
            )
    missing: dict[str, tuple[str, str]] = {}
    expressions = [str(v.get("expression", "")) for v in variables] + [
        str(m.get("expression", "")) for m in conditions
    ]
    for validation in _list(source.get("validations")):
        validation = _map(validation)
        expressions.extend(
            str(validation.get(k, "")) for k in ("expression", "messageExpression") if validation.get(k)
        )
    for text in expressions:
        for m in missing_names(text, options.kubernetes_version):
            missing.setdefault(m.construct, (m.name, m.reason))
    for construct, (_, reason) in missing.items():
        out.unconvertible.append(Unconvertible(origin, construct, reason, "spec.targets[0].code"))
    if out.unconvertible:
        return out

    schema = _map(_map(_map(spec.get("crd")).get("spec")).get("validation")).get("openAPIV3Schema")
    schema = schema if isinstance(schema, dict) else None
    access = _ParamsAccess(options.params)
    operations = [str(o) for o in _list(target.get("operations"))] or list(WEBHOOK_OPERATIONS)
    if "*" in operations:
        operations = ["*"]

    # Constraints: each its binding and params.
    matches: list[tuple[SourceObject, _Match, list[str]]] = []
    needed: set[str] = set()
    param_types: dict[str, str] = {}
    if options.params == "configmap":
        keys = sorted({k for c in constraints for k in _map(_map(c.data.get("spec")).get("parameters"))})
        for key in keys:
            values = [_map(_map(c.data.get("spec")).get("parameters")).get(key) for c in constraints]
            kind_of = _param_type(schema or {}, key, [v for v in values if v is not None])
            if kind_of is not None:
                param_types[key] = kind_of
    by_name: dict[str, list[SourceObject]] = {}
    for c in constraints:
        by_name.setdefault(c.name, []).append(c)
    for cname, same in by_name.items():
        if len(same) > 1:
            out.notes.append(
                f"{kind} {cname} is defined {len(same)} times "
                f"({', '.join(f'{c.path}:{c.line}' for c in same)}): "
                "a cluster keeps one object per name; its binding is converted from the last"
            )
    constraints = [same[-1] for same in by_name.values()]
    for c in constraints:
        c_origin = origin_of(c)
        notes: list[str] = []
        actions, why = _validation_actions(c.data, notes)
        if actions is None:
            out.unconvertible.append(
                Unconvertible(c_origin, "enforcementAction", why, "spec.enforcementAction")
            )
            continue
        parameters = _map(c.data.get("spec")).get("parameters")
        if options.params == "configmap" and isinstance(parameters, dict):
            bad = [
                k for k, v in parameters.items() if k not in param_types or _encode(param_types[k], v) is None
            ]
            if bad:
                out.unconvertible.append(
                    Unconvertible(
                        c_origin,
                        "parameters a ConfigMap cannot hold",
                        f"parameters {', '.join(sorted(bad))} are not strings, numbers, booleans or lists of "
                        "strings or integers a ConfigMap key can hold and CEL read back; convert with "
                        "--params constraint (the constraint as the params)",
                        "spec.parameters",
                    )
                )
                continue
        match = _convert_match(c.data, options.kubernetes_version)
        for note in [*notes, *match.notes]:
            out.notes.append(f"{c.kind} {c.name}: {note}")
        if match.unmapped_kinds:
            out.notes.append(
                f"{c.kind} {c.name}: kinds {', '.join(match.unmapped_kinds)} have no REST mapping in "
                f"Kubernetes {options.kubernetes_version}: matched by a match condition on request.kind"
            )
        needed.update(match.globs)
        matches.append((c, match, actions))

    all_rules: list[dict[str, Any]] | None = []
    for _, match, _ in matches:
        if match.rules is None or all_rules is None:
            all_rules = None
        else:
            for rule in match.rules:
                rule = {k: v for k, v in rule.items() if k != "scope"}
                existing = next((r for r in all_rules if r["apiGroups"] == rule["apiGroups"]), None)
                if existing is None:
                    all_rules.append(copy.deepcopy(rule))
                elif existing["resources"] != ["*"]:
                    merged = set(existing["resources"]) | set(rule["resources"])
                    existing["resources"] = ["*"] if "*" in merged else sorted(merged)
    if not matches:
        all_rules = None
        out.notes.append(
            "no constraint of this template was given: the policy matches every resource, as "
            "Gatekeeper's own generation does; bindings narrow it"
        )
    policy_rules = (
        [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": operations, "resources": ["*"]}]
        if all_rules is None
        else [{**r, "operations": operations} for r in sorted(all_rules, key=lambda r: r["apiGroups"])]
    )

    vap_name = policy_name(name)
    params_expression = (
        _configmap_params_expression(param_types)
        if options.params == "configmap"
        else "has(params.spec) && has(params.spec.parameters) ? params.spec.parameters : null"
    )
    policy_spec: dict[str, Any] = {}
    if isinstance(source.get("failurePolicy"), str):
        policy_spec["failurePolicy"] = source["failurePolicy"]
    policy_spec["paramKind"] = (
        {"apiVersion": "v1", "kind": "ConfigMap"}
        if options.params == "configmap"
        else {"apiVersion": f"{CONSTRAINT_GROUP}/{PARAM_VERSION}", "kind": kind}
    )
    policy_spec["matchConstraints"] = {"resourceRules": policy_rules}
    match_conditions = [
        {"name": str(m.get("name", "")), "expression": str(m.get("expression", ""))} for m in conditions
    ] + _match_conditions(needed, access)
    if match_conditions:
        policy_spec["matchConditions"] = match_conditions
    policy_spec["variables"] = [
        {"name": "anyObject", "expression": 'request.operation == "DELETE" ? oldObject : object'},
        {"name": "params", "expression": params_expression},
        *({"name": str(v.get("name", "")), "expression": str(v.get("expression", ""))} for v in variables),
    ]
    validations = []
    for validation in _list(source.get("validations")):
        validation = _map(validation)
        item = {"expression": str(validation.get("expression", ""))}
        for key in ("message", "messageExpression"):
            if validation.get(key):
                item[key] = str(validation[key])
        validations.append(item)
    fix_messages(validations, "spec.validations", out.notes)
    policy_spec["validations"] = validations
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": vap_name},
        "spec": policy_spec,
    }
    params_note = (
        f"Params: each {kind} constraint (paramKind), as Gatekeeper's own generation; its CRD is "
        "Gatekeeper's."
        if options.params == "constraint"
        else f"Params: one ConfigMap per {kind} constraint, in namespace {options.params_namespace}."
    )
    comment = (
        f"Converted by vap-lsp from {template.path} (ConstraintTemplate {name}, engine "
        f"{ENGINE}).\n{params_note}"
    )
    out.objects.append(Emitted(policy, origin, comment))
    out.rules[""] = [vap_name]
    if options.params == "constraint":
        out.crds.append(_crd(kind, schema))

    for c, match, actions in matches:
        bname = binding_name(kind, c.name)
        bspec: dict[str, Any] = {"policyName": vap_name}
        if options.params == "configmap":
            param_name = f"gatekeeper-{kind.lower()}-{c.name}"[:_MAX_NAME]
            bspec["paramRef"] = {
                "name": param_name,
                "namespace": options.params_namespace,
                "parameterNotFoundAction": "Allow",
            }
        else:
            bspec["paramRef"] = {"name": c.name, "parameterNotFoundAction": "Allow"}
        bspec["validationActions"] = actions
        resources: dict[str, Any] = {}
        if match.namespace_selector:
            resources["namespaceSelector"] = match.namespace_selector
        if match.object_selector:
            resources["objectSelector"] = match.object_selector
        rules = match.rules
        same_rules = rules is not None and rules == [
            {k: v for k, v in r.items() if k != "operations"} for r in policy_rules
        ]
        if rules is not None and not same_rules:
            resources["resourceRules"] = [{**r, "operations": operations} for r in rules]
        if resources:
            bspec["matchResources"] = resources
        binding = {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": bname},
            "spec": bspec,
        }
        c_origin = origin_of(c)
        out.objects.append(
            Emitted(binding, c_origin, f"Converted by vap-lsp from {c.path} ({c.kind} {c.name}).")
        )
        out.bindings[c.name] = bname
        if options.params == "configmap":
            parameters = _map(_map(c.data.get("spec")).get("parameters"))
            data = {k: _encode(param_types[k], v) for k, v in parameters.items()}
            cm_match = _map(_map(c.data.get("spec")).get("match"))
            for key in ("namespaces", "excludedNamespaces"):
                if key in needed and _list(cm_match.get(key)):
                    data[f"match.{key}"] = "\n".join(str(n) for n in _list(cm_match.get(key)))
            if "name" in needed and isinstance(cm_match.get("name"), str) and cm_match.get("name"):
                data["match.name"] = str(cm_match["name"])
            if "kinds" in needed and _list(cm_match.get("kinds")):
                lines = []
                for entry in _list(cm_match.get("kinds")):
                    entry = _map(entry)
                    for g in [str(x) for x in _list(entry.get("apiGroups"))] or ["*"]:
                        for k in [str(x) for x in _list(entry.get("kinds"))] or ["*"]:
                            lines.append(f"{g}/{k}" if g != "*" or k != "*" else "*")
                data["match.kinds"] = "\n".join(lines)
            config_map: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": param_name, "namespace": options.params_namespace},
            }
            if data:
                config_map["data"] = data
            out.objects.append(
                Emitted(
                    config_map,
                    c_origin,
                    f"Converted by vap-lsp from {c.path} ({c.kind} {c.name}): its parameters"
                    + (" and match globs" if any(k.startswith("match.") for k in data) else "")
                    + ".",
                )
            )
            out.params[c.name] = config_map
        else:
            param = copy.deepcopy(c.data)
            param["apiVersion"] = f"{CONSTRAINT_GROUP}/{PARAM_VERSION}"
            out.params[c.name] = param
    return out


def kind_of_template(template: Mapping[str, Any]) -> str:
    return str(
        _map(_map(_map(_map(template.get("spec")).get("crd")).get("spec")).get("names")).get("kind", "")
    )
