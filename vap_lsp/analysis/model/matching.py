"""Which requests a policy's rules match, and the CEL types of the kinds its `object` can be.

Rule matching is the API server's `webhook/predicates/rules` `Matcher` (scope, operation,
group, version, resource and subresource) with `policy/matching`'s `resourceNames`: offline
admission (`admission.matching`) calls it for one request, the static checks for classes of
requests (`operations_reaching`: which operations of a kind's requests get past `resourceRules`
and `excludeResourceRules`). Which kinds `object` can be (the type-check controller's
`typesToCheck`, which ignores `excludeResourceRules`) is resolved by the typing walk,
`model.typing.walk_rules`, in one walk with what stays untyped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis.model.crds import CRDVersion, published_schema
from vap_lsp.cel.environment import schema_to_type
from vap_lsp.cel.schema_sizes import SchemaRoot
from vap_lsp.cel.types import Type
from vap_lsp.lru import LruCache
from vap_lsp.schema.store import SchemaSet, get_schema_set

MAX_TYPES_PER_RULE = 10

ALL_OPERATIONS = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})

# Quantity has no `type` (`oneOf: [string, number]`) in OpenAPI v3 and in the compiled Go
# definitions the server's type checker resolves built-in kinds from (kube-openapi's generated
# `schema_k8s_io_apimachinery_pkg_api_resource_Quantity`: the v3 schema is the one
# `DefinitionsSchemaResolver` reads; the v2 `type: string` is only an extension there), so
# `SchemaDeclType` drops every Quantity field and map of Quantities (`resources.limits`,
# `emptyDir.sizeLimit`, `status.capacity`): the type checker warns `undefined field 'limits'`
# (confirmed by the oracle, issue 34). The types follow it; the cost estimate's sizes still read
# them as the strings they are at admission (values are not typed there).
_STRING_DEFINITIONS = frozenset({"io.k8s.apimachinery.pkg.api.resource.Quantity"})


@dataclass(frozen=True, order=True)
class GVK:
    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        """As Go's schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`."""
        return f"{self.group}/{self.version}, Kind={self.kind}"

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


@functools.lru_cache(maxsize=64)
def _resolver(schema_set: SchemaSet, *, quantity_as_string: bool = False) -> Any:
    """`$ref`s resolved in the version's definitions; with `quantity_as_string` (the cost
    estimate's sizes) a Quantity is the string it is at run time. One per version: the object
    types converted with it are alike across kinds (`ObjectType.shape` names the resolver)."""

    def resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if quantity_as_string and isinstance(ref, str) and ref in _STRING_DEFINITIONS:
            return {"type": "string", "description": schema.get("description", "")}
        return schema_set.resolve(dict(schema))

    return resolve


@functools.lru_cache(maxsize=512)
def object_type(kubernetes_version: str, gvk: GVK) -> Type | None:
    """CEL type of `object` for one kind; None when the schema is unknown or untyped (then dyn)."""
    schema_set = get_schema_set(kubernetes_version)
    definition = schema_set.definition_for_kind(gvk.group, gvk.version, gvk.kind)
    if definition is None:
        return None
    return schema_to_type({"$ref": definition}, _resolver(schema_set), gvk.kind)


# CRD schemas are plain dicts (unhashable); cache their types by identity, keeping the schema
# alive in the value so an id is never reused while cached.
_CRD_TYPES: LruCache[tuple[str, int], tuple[Mapping[str, Any], Type | None]] = LruCache(256)


def crd_type(kubernetes_version: str, crd: CRDVersion) -> Type | None:
    """The CEL type of a CRD version as the type checker sees it: from the schema the server
    publishes in OpenAPI v3 discovery (`published_schema`: full ObjectMeta at the root and in
    embedded resources), `$ref`s resolved in the selected version's definitions."""
    if crd.schema is None:
        return None
    key = (kubernetes_version, id(crd.schema))
    hit = _CRD_TYPES.get(key)
    if hit is not None and hit[0] is crd.schema:
        return hit[1]
    schema_set = get_schema_set(kubernetes_version)
    converted = schema_to_type(published_schema(crd.schema), _resolver(schema_set), crd.kind)
    _CRD_TYPES.put(key, (crd.schema, converted))
    return converted


# --- rule matching --------------------------------------------------------------------------

ANY = "\x00any"
"""In a `RuleRequest` of a class of requests: any value (only a rule's `*` matches it for sure)."""


@dataclass(frozen=True)
class RuleRequest:
    """What a rule reads of a request: `rules.Matcher` (`GetOperation`, `GetResource`,
    `GetSubresource`, `GetNamespace`: "" for a cluster-scoped object)."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    namespace: str


_NAMESPACES = ("", "v1", "namespaces")


def _exact_or_wildcard(items: Any, requested: str, possible: bool = False) -> bool:
    if not isinstance(items, list):
        return False
    if requested == ANY and possible:
        return any(isinstance(item, str) for item in items)
    return any(item == "*" or item == requested for item in items)


def _resource_matches(resources: Any, resource: str, subresource: str, possible: bool = False) -> bool:
    """`rules.Matcher.resource`: `pods` matches only the main resource, `pods/*` and `*/*` its
    subresources too (an empty subresource included)."""
    for entry in resources if isinstance(resources, list) else []:
        if not isinstance(entry, str):
            continue
        res, _, sub = entry.partition("/")
        res_ok = res == "*" or res == resource or (possible and resource == ANY)
        sub_ok = sub == "*" or sub == subresource or (possible and subresource == ANY and sub != "")
        if res_ok and sub_ok:
            return True
    return False


def rule_matches(rule: Mapping[str, Any], request: RuleRequest, *, possible: bool = False) -> bool:
    """`rules.Matcher.Matches` for one `RuleWithOperations` (not `resourceNames`: `names_match`).
    For a class of requests (`ANY` values): whether it matches every request of the class, or
    with `possible` some of them."""
    scope = rule.get("scope") or "*"
    is_namespace = (request.group, request.version, request.resource) == _NAMESPACES
    if scope == "Namespaced" and (is_namespace or request.namespace == ""):
        return False
    if scope == "Cluster" and not (is_namespace or request.namespace == ""):
        return False
    if scope not in ("*", "Namespaced", "Cluster"):
        return False
    return (
        _exact_or_wildcard(rule.get("operations"), request.operation)
        and _exact_or_wildcard(rule.get("apiGroups"), request.group, possible)
        and _exact_or_wildcard(rule.get("apiVersions"), request.version, possible)
        and _resource_matches(rule.get("resources"), request.resource, request.subresource, possible)
    )


def names_match(rule: Mapping[str, Any], name: str | None) -> bool:
    """`matchesResourceRules`: an empty `resourceNames` matches every name. `name` None: any
    name, matched for sure only by an empty list."""
    names = rule.get("resourceNames")
    if not names:
        return True
    return name is not None and isinstance(names, list) and name in names


def equivalent_resources(
    schema: SchemaSet, group: str, version: str, resource: str, kind: str, subresource: str
) -> list[tuple[tuple[str, str, str], tuple[str, str, str]]]:
    """EquivalentResourcesFor: the same resource (same name and kind) served by other
    group/versions of the REST mapping (apps/v1 ↔ extensions/v1beta1 deployments,
    events ↔ events.k8s.io, autoscaling/v1 ↔ v2), each with the kind it serves."""
    out: list[tuple[tuple[str, str, str], tuple[str, str, str]]] = []
    for r in schema.resources():
        if r.resource != resource or (r.kind != kind and not subresource):
            continue
        if subresource:
            sub = r.subresources.get(subresource)
            if sub is None:
                continue
            served = (sub.group, sub.version, sub.kind)
        else:
            served = (r.group, r.version, r.kind)
        if (r.group, r.version) != (group, version):
            out.append(((r.group, r.version, r.resource), served))
    return out


Equivalents = Callable[[RuleRequest], Iterable[RuleRequest]]
"""The same class of requests as other group/versions of its resource (`matchPolicy: Equivalent`)."""


def _excluded(excludes: Sequence[Any], request: RuleRequest, equivalents: Iterable[RuleRequest] = ()) -> bool:
    """Whether an exclude rule matches every request of the class `request` (every name), as
    it is or (`matchPolicy: Equivalent`, `matchesResourceRules`) as one of `equivalents`."""
    for candidate in (request, *equivalents):
        for rule in excludes:
            if isinstance(rule, Mapping) and rule_matches(rule, candidate) and names_match(rule, None):
                return True
    return False


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _any(value: str) -> str:
    return ANY if "*" in value else value


def _namespaces(scope: Any, namespaced: bool | None) -> tuple[str, ...]:
    if namespaced is not None:
        return ("ns",) if namespaced else ("",)
    return {"Namespaced": ("ns",), "Cluster": ("",)}.get(scope, ("ns", ""))


def rule_requests(
    rules: Sequence[Any],
    operations: Iterable[str],
    kind_resources: Iterable[tuple[str, str, str]] | None = None,
    namespaced: bool | None = None,
) -> list[RuleRequest]:
    """The classes of requests `rules` can match, for `operations`: every (group, version,
    resource[/subresource]) a rule names (a `*` is any value), or with `kind_resources` those
    resources of one kind (with every subresource a rule names for them, and any other)."""
    requests: list[RuleRequest] = []
    operations = tuple(operations)
    kind_resources = list(kind_resources) if kind_resources is not None else None
    for rule in rules:
        if not isinstance(rule, Mapping):
            continue
        if kind_resources is None:
            shapes = [
                (_any(g), _any(v), _any(res), _any(sub) if sep else "")
                for g in _strings(rule.get("apiGroups"))
                for v in _strings(rule.get("apiVersions"))
                for res, sep, sub in (r.partition("/") for r in _strings(rule.get("resources")))
            ]
        else:
            named = {r.partition("/")[2] for r in _strings(rule.get("resources")) if "/" in r} - {"*"}
            shapes = [(g, v, res, sub) for g, v, res in kind_resources for sub in ("", ANY, *sorted(named))]
        for op in operations:
            for ns in _namespaces(rule.get("scope"), namespaced):
                for g, v, res, sub in shapes:
                    request = RuleRequest(op, g, v, res, sub, ns)
                    if request not in requests and rule_matches(rule, request, possible=True):
                        requests.append(request)
    return requests


def requests_past(
    match: Mapping[str, Any] | None, requests: Iterable[RuleRequest], equivalents: Equivalents | None = None
) -> list[RuleRequest]:
    """The classes of `requests` that `match` (a policy's matchConstraints, a binding's
    matchResources) may match and does not exclude whatever their name (`policy/matching`
    `Matches`: exclusion first; no `resourceRules` matches every request). Only what is certain
    is excluded: an exclude rule with `resourceNames` excludes some names. With `equivalents`
    and `matchPolicy: Equivalent` (the default), an exclude rule naming another version of the
    resource excludes it too."""
    if not isinstance(match, Mapping):
        return list(requests)
    includes = match.get("resourceRules")
    excludes = match.get("excludeResourceRules")
    excludes = excludes if isinstance(excludes, list) else []
    includes = includes if isinstance(includes, list) and includes else None
    follow = (
        equivalents if equivalents is not None and excludes and match.get("matchPolicy") != "Exact" else None
    )
    return [
        r
        for r in requests
        if (
            includes is None
            or any(isinstance(i, Mapping) and rule_matches(i, r, possible=True) for i in includes)
        )
        and not _excluded(excludes, r, follow(r) if follow is not None else ())
    ]


_EVERYTHING = ({"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"], "operations": ["*"]},)


def policy_requests(
    match: Mapping[str, Any] | None,
    operations: Iterable[str],
    kind_resources: Iterable[tuple[str, str, str]] | None = None,
    namespaced: bool | None = None,
    equivalents: Equivalents | None = None,
) -> list[RuleRequest]:
    """The classes of requests with `operations` that get past `match` (`requests_past`), from
    its `resourceRules` (without any: every request). `kind_resources`: only the requests for
    those resources of one kind (of scope `namespaced`)."""
    includes = match.get("resourceRules") if isinstance(match, Mapping) else None
    rules = includes if isinstance(includes, list) and includes else _EVERYTHING
    return requests_past(match, rule_requests(rules, operations, kind_resources, namespaced), equivalents)


def operations_reaching(
    match: Mapping[str, Any] | None,
    operations: Iterable[str],
    kind_resources: Iterable[tuple[str, str, str]] | None = None,
    namespaced: bool | None = None,
    equivalents: Equivalents | None = None,
) -> frozenset[str]:
    """The operations of the requests that get past `match` (`policy_requests`)."""
    found = policy_requests(match, operations, kind_resources, namespaced, equivalents)
    return frozenset(r.operation for r in found)


@functools.lru_cache(maxsize=512)
def object_schema_root(kubernetes_version: str, gvk: GVK) -> SchemaRoot | None:
    """The schema `object_type` converts, for the cost estimate's sizes (`cel.schema_sizes`)."""
    schema_set = get_schema_set(kubernetes_version)
    definition = schema_set.definition_for_kind(gvk.group, gvk.version, gvk.kind)
    if definition is None:
        return None
    return SchemaRoot({"$ref": definition}, _resolver(schema_set, quantity_as_string=True))


_CRD_ROOTS: LruCache[tuple[str, int], tuple[Mapping[str, Any], SchemaRoot | None]] = LruCache(256)


def crd_schema_root(kubernetes_version: str, crd: CRDVersion) -> SchemaRoot | None:
    """The schema `crd_type` converts (the published one), for the cost estimate's sizes."""
    if crd.schema is None:
        return None
    key = (kubernetes_version, id(crd.schema))
    hit = _CRD_ROOTS.get(key)
    if hit is not None and hit[0] is crd.schema:
        return hit[1]
    root = SchemaRoot(
        published_schema(crd.schema), _resolver(get_schema_set(kubernetes_version), quantity_as_string=True)
    )
    _CRD_ROOTS.put(key, (crd.schema, root))
    return root
