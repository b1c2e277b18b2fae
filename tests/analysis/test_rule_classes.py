"""`analysis.model.matching` over classes of requests (issue 39): which classes of requests a
policy's rules can match, which of them get past `excludeResourceRules`, the equivalent
resources of the REST mapping, and the types and schema roots of CRDs (cached per schema).

The API server's matcher these classes stand for: `pkg/admission/plugin/webhook/predicates/
rules/rules.go` (`Matcher.Matches`: scope, operation, group, version, `resource/subresource`
with `*` and `*/*`), `pkg/admission/plugin/policy/matching/matching.go` (`Matches`: exclusion
first, an exclude rule with `resourceNames` excludes only those names; `matchesResourceRules`
with matchPolicy Equivalent) and `endpoints/discovery` / the REST mapper's
`EquivalentResourcesFor` (same resource name and kind in other group/versions).
"""

from __future__ import annotations

from typing import Any

import pytest

from vap_lsp.analysis.model.crds import CRDVersion
from vap_lsp.analysis.model.matching import (
    ANY,
    GVK,
    RuleRequest,
    crd_schema_root,
    crd_type,
    equivalent_resources,
    object_type,
    operations_reaching,
    policy_requests,
    requests_past,
    rule_matches,
    rule_requests,
)
from vap_lsp.schema import get_schema_set

DEPLOYMENTS = {
    "apiGroups": ["apps"],
    "apiVersions": ["v1"],
    "operations": ["*"],
    "resources": ["deployments"],
}


def R(op: str, g: str, v: str, res: str, sub: str = "", ns: str = "ns") -> RuleRequest:
    return RuleRequest(op, g, v, res, sub, ns)


@pytest.mark.parametrize(
    ("rule", "request_", "certain", "possible"),
    [
        # A named group matches a class of any group only possibly; `*` matches it for sure.
        (DEPLOYMENTS, R("CREATE", ANY, "v1", "deployments"), False, True),
        ({**DEPLOYMENTS, "apiGroups": ["*"]}, R("CREATE", ANY, "v1", "deployments"), True, True),
        (DEPLOYMENTS, R("CREATE", "apps", ANY, "deployments"), False, True),
        ({**DEPLOYMENTS, "apiVersions": ["*"]}, R("CREATE", "apps", ANY, "deployments"), True, True),
        (DEPLOYMENTS, R("CREATE", "apps", "v1", ANY), False, True),
        ({**DEPLOYMENTS, "resources": ["*"]}, R("CREATE", "apps", "v1", ANY), True, True),
        # Any subresource: `deployments` (main resource only) cannot match a subresource for sure,
        # `deployments/*` matches every one.
        (DEPLOYMENTS, R("UPDATE", "apps", "v1", "deployments", ANY), False, False),
        (
            {**DEPLOYMENTS, "resources": ["deployments/scale"]},
            R("UPDATE", "apps", "v1", "deployments", ANY),
            False,
            True,
        ),
        (
            {**DEPLOYMENTS, "resources": ["deployments/*"]},
            R("UPDATE", "apps", "v1", "deployments", ANY),
            True,
            True,
        ),
        # Operations are never a class: `*` or the operation itself.
        ({**DEPLOYMENTS, "operations": ["CREATE"]}, R("DELETE", "apps", "v1", "deployments"), False, False),
        # A group list that is not a list matches nothing, possibly or not.
        ({**DEPLOYMENTS, "apiGroups": "apps"}, R("CREATE", ANY, "v1", "deployments"), False, False),
        ({**DEPLOYMENTS, "apiGroups": [1]}, R("CREATE", ANY, "v1", "deployments"), False, False),
        ({**DEPLOYMENTS, "resources": "deployments"}, R("CREATE", "apps", "v1", "deployments"), False, False),
    ],
)
def test_rule_matches_a_class_for_sure_or_possibly(
    rule: dict[str, Any], request_: RuleRequest, certain: bool, possible: bool
) -> None:
    assert rule_matches(rule, request_) is certain
    assert rule_matches(rule, request_, possible=True) is possible


@pytest.mark.parametrize(
    ("scope", "request_", "matches"),
    [
        ("Namespaced", R("CREATE", "apps", "v1", "deployments", ns="ns"), True),
        ("Namespaced", R("CREATE", "apps", "v1", "deployments", ns=""), False),
        # A Namespace is cluster-scoped, even when its request carries its own name as namespace.
        ("Namespaced", R("CREATE", "", "v1", "namespaces", ns="ns"), False),
        ("Cluster", R("CREATE", "", "v1", "namespaces", ns="ns"), True),
        ("Cluster", R("CREATE", "apps", "v1", "deployments", ns=""), True),
        ("Cluster", R("CREATE", "apps", "v1", "deployments", ns="ns"), False),
        ("*", R("CREATE", "apps", "v1", "deployments", ns=""), True),
        (None, R("CREATE", "apps", "v1", "deployments", ns="ns"), True),
        ("cluster", R("CREATE", "apps", "v1", "deployments", ns=""), False),
    ],
)
def test_scope(scope: Any, request_: RuleRequest, matches: bool) -> None:
    """rules.go `Matcher.scope`: Namespaced needs a namespace and is never a Namespace; Cluster
    the reverse."""
    rule = {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"], "scope": scope}
    assert rule_matches(rule, request_) is matches


def test_rule_requests_from_the_rules_alone() -> None:
    """Every group × version × resource a rule names, `*` as any value, per operation and scope."""
    rule = {
        "apiGroups": ["apps", "*"],
        "apiVersions": ["v1"],
        "operations": ["CREATE"],
        "resources": ["deployments", "deployments/scale", "*/status"],
        "scope": "Namespaced",
    }
    assert rule_requests([rule, "junk"], ["CREATE", "UPDATE"]) == [
        R("CREATE", "apps", "v1", "deployments"),
        R("CREATE", "apps", "v1", "deployments", "scale"),
        R("CREATE", "apps", "v1", ANY, "status"),
        R("CREATE", ANY, "v1", "deployments"),
        R("CREATE", ANY, "v1", "deployments", "scale"),
        R("CREATE", ANY, "v1", ANY, "status"),
    ]
    cluster = {**rule, "scope": "Cluster", "apiGroups": ["apps"], "resources": ["deployments/*"]}
    assert rule_requests([cluster], ["CREATE"]) == [R("CREATE", "apps", "v1", "deployments", ANY, "")]
    # No scope: both namespaced and cluster-scoped requests.
    anywhere = {**rule, "scope": None, "apiGroups": ["apps"], "resources": ["deployments"]}
    assert rule_requests([anywhere], ["CREATE"]) == [
        R("CREATE", "apps", "v1", "deployments", ns="ns"),
        R("CREATE", "apps", "v1", "deployments", ns=""),
    ]
    # The kind's scope, when known, decides over the rule's.
    assert rule_requests([anywhere], ["CREATE"], namespaced=False) == [
        R("CREATE", "apps", "v1", "deployments", ns="")
    ]
    assert rule_requests([anywhere], ["CREATE"], namespaced=True) == [
        R("CREATE", "apps", "v1", "deployments", ns="ns")
    ]


def test_rule_requests_for_the_resources_of_one_kind() -> None:
    """With a kind's resources: the main resource, any subresource, and each one the rule names."""
    rule = {**DEPLOYMENTS, "resources": ["deployments", "deployments/scale", "*/status", "deployments/*"]}
    kind = [("apps", "v1", "deployments")]
    assert rule_requests([rule], ["UPDATE"], kind, namespaced=True) == [
        R("UPDATE", "apps", "v1", "deployments"),
        R("UPDATE", "apps", "v1", "deployments", ANY),
        R("UPDATE", "apps", "v1", "deployments", "scale"),
        R("UPDATE", "apps", "v1", "deployments", "status"),
    ]
    # A rule for another group contributes nothing for this kind.
    other = {**DEPLOYMENTS, "apiGroups": ["extensions"]}
    assert rule_requests([other], ["UPDATE"], kind, namespaced=True) == []


def test_requests_past_exclusions() -> None:
    requests = [R("CREATE", "apps", "v1", "deployments"), R("DELETE", "apps", "v1", "deployments")]
    exclude_delete = {**DEPLOYMENTS, "operations": ["DELETE"]}
    assert requests_past(None, requests) == requests
    assert requests_past({"excludeResourceRules": [exclude_delete]}, requests) == requests[:1]
    # An exclusion with resourceNames excludes some names only: the class stays.
    named = {**exclude_delete, "resourceNames": ["web"]}
    assert requests_past({"excludeResourceRules": [named]}, requests) == requests
    # resourceRules that match none of the classes leave none; empty resourceRules leave all.
    pods = {**DEPLOYMENTS, "apiGroups": [""], "resources": ["pods"]}
    assert requests_past({"resourceRules": [pods]}, requests) == []
    assert requests_past({"resourceRules": []}, requests) == requests
    assert requests_past({"excludeResourceRules": "junk"}, requests) == requests


def test_requests_past_an_exclusion_of_an_equivalent_version() -> None:
    """matchPolicy Equivalent (the default) follows an exclude rule to the other versions of the
    resource; Exact does not."""
    request = R("CREATE", "apps", "v1", "deployments")
    old = {**DEPLOYMENTS, "apiGroups": ["extensions"], "apiVersions": ["v1beta1"]}

    def equivalents(r: RuleRequest) -> list[RuleRequest]:
        return [RuleRequest(r.operation, "extensions", "v1beta1", r.resource, r.subresource, r.namespace)]

    match: dict[str, Any] = {"excludeResourceRules": [old]}
    assert requests_past(match, [request], equivalents) == []
    assert requests_past({**match, "matchPolicy": "Equivalent"}, [request], equivalents) == []
    assert requests_past({**match, "matchPolicy": "Exact"}, [request], equivalents) == [request]
    assert requests_past(match, [request]) == [request]


@pytest.mark.parametrize(
    ("match", "operations"),
    [
        (None, {"CREATE", "UPDATE", "DELETE", "CONNECT"}),
        ({}, {"CREATE", "UPDATE", "DELETE", "CONNECT"}),
        ({"resourceRules": [{**DEPLOYMENTS, "operations": ["CONNECT"]}]}, {"CONNECT"}),
        ({"resourceRules": [{**DEPLOYMENTS, "operations": ["CREATE", "UPDATE"]}]}, {"CREATE", "UPDATE"}),
        (
            {
                "resourceRules": [DEPLOYMENTS],
                "excludeResourceRules": [{**DEPLOYMENTS, "operations": ["DELETE", "CONNECT"]}],
            },
            {"CREATE", "UPDATE"},
        ),
        ({"resourceRules": [{**DEPLOYMENTS, "apiGroups": [""], "resources": ["pods"]}]}, set()),
    ],
)
def test_operations_reaching_a_kind(match: Any, operations: set[str]) -> None:
    ops = ["CREATE", "UPDATE", "DELETE", "CONNECT"]
    assert operations_reaching(match, ops, [("apps", "v1", "deployments")], True) == operations


def test_policy_requests_without_rules_is_every_request() -> None:
    found = policy_requests({}, ["CREATE"])
    assert R("CREATE", ANY, ANY, ANY, ANY, "ns") in found
    assert all(r.operation == "CREATE" for r in found)


def test_equivalent_resources() -> None:
    schema = get_schema_set("1.35")
    # events are served as core/v1 Event and events.k8s.io/v1 Event
    assert (("events.k8s.io", "v1", "events"), ("events.k8s.io", "v1", "Event")) in equivalent_resources(
        schema, "", "v1", "events", "Event", ""
    )
    found = equivalent_resources(schema, "events.k8s.io", "v1", "events", "Event", "")
    assert (("", "v1", "events"), ("", "v1", "Event")) in found
    assert all(gvr[:2] != ("events.k8s.io", "v1") for gvr, _ in found)  # not itself
    # Another kind under the same resource name is not equivalent (without a subresource).
    assert equivalent_resources(schema, "", "v1", "events", "NotEvent", "") == []
    # A subresource: the versions that serve it, with the kind the subresource serves.
    scale = equivalent_resources(schema, "apps", "v1", "deployments", "Scale", "scale")
    assert all(sub_kind[2] == "Scale" for _, sub_kind in scale)
    assert equivalent_resources(schema, "apps", "v1", "deployments", "Scale", "nope") == []


def test_quantity_is_untyped_to_the_type_checker() -> None:
    """Built-in Quantity fields have no type (`oneOf: [string, number]` in the compiled Go OpenAPI
    the server types built-in kinds from): left out of the type, recorded as untyped."""
    pod = object_type("1.35", GVK("", "v1", "Pod"))
    assert pod is not None
    containers = _field(_field(pod, "spec"), "containers")
    resources = _field(containers.elem_type, "resources")
    assert "limits" not in resources.fields and "claims" in resources.fields
    assert {"limits", "requests"} <= resources.untyped_fields


def _field(t: Any, name: str) -> Any:
    return t.fields[name].type


def _crd(schema: dict[str, Any] | None) -> CRDVersion:
    return CRDVersion("example.com", "v1", "Widget", "widgets", True, schema)


def test_crd_types_are_cached_per_schema_object() -> None:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
    }
    first = crd_type("1.35", _crd(schema))
    assert first is not None
    assert crd_type("1.35", _crd(schema)) is first
    other = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "string"}}}},
    }
    second = crd_type("1.35", _crd(other))
    assert second is not first
    assert str(_field(_field(second, "spec"), "size")) == "string"
    assert str(_field(_field(first, "spec"), "size")) == "int"
    # The published schema: metadata is the full ObjectMeta.
    assert "labels" in _field(first, "metadata").fields
    assert crd_type("1.35", _crd(None)) is None


def test_crd_schema_roots_are_cached_per_schema_object() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object"}}}
    root = crd_schema_root("1.35", _crd(schema))
    assert root is not None
    assert crd_schema_root("1.35", _crd(schema)) is root
    assert crd_schema_root("1.35", _crd({"type": "object"})) is not root
    assert crd_schema_root("1.35", _crd(None)) is None


def test_resources_that_are_not_a_list_match_nothing() -> None:
    """A `resources` string (a wrong type the structural layer reports) is not a list of one-letter
    resources: `"*"` as a string does not match every resource."""
    rule = {**DEPLOYMENTS, "resources": "*"}
    assert not rule_matches(rule, R("CREATE", "apps", "v1", "deployments"))
    assert not rule_matches(rule, R("CREATE", "apps", "v1", "*"))


def test_operations_reaching_a_kind_of_the_wrong_scope() -> None:
    """A Cluster-scoped rule never reaches a namespaced kind, a Namespaced one never a cluster-scoped kind."""
    ops = ["CREATE", "UPDATE"]
    cluster = {"resourceRules": [{**DEPLOYMENTS, "scope": "Cluster"}]}
    namespaced = {"resourceRules": [{**DEPLOYMENTS, "scope": "Namespaced"}]}
    kind = [("apps", "v1", "deployments")]
    assert operations_reaching(cluster, ops, kind, True) == set()
    assert operations_reaching(cluster, ops, kind, False) == {"CREATE", "UPDATE"}
    assert operations_reaching(namespaced, ops, kind, False) == set()
    assert operations_reaching(namespaced, ops, kind, None) == {"CREATE", "UPDATE"}


def test_a_quantity_resolves_to_a_string_with_its_description_for_sizes_only() -> None:
    from vap_lsp.analysis.model.matching import _resolver

    ref = "io.k8s.apimachinery.pkg.api.resource.Quantity"
    sizes = _resolver(get_schema_set("1.35"), quantity_as_string=True)
    assert sizes({"$ref": ref}) == {"type": "string", "description": ""}
    assert sizes({"$ref": ref, "description": "limit"}) == {"type": "string", "description": "limit"}
    types = _resolver(get_schema_set("1.35"))
    assert "type" not in types({"$ref": ref}) and types({"$ref": ref})["oneOf"] == [
        {"type": "string"},
        {"type": "number"},
    ]
