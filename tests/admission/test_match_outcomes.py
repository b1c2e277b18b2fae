"""`admission.matching.match_resources` on plain data: the whole outcome (matched, the resource
and kind it matched as, why not, the configuration error) for every branch of the server's
`Matcher.Matches` (issue 39: the verdict alone let mutations of the reasons, of the resource
matched as and of the error order pass).

Kubernetes: `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/matching/matching.go`
(`Matcher.Matches`: namespace selector, object selector, excludeResourceRules, resourceRules,
then the selector errors, namespace first; `matchesResourceRules`: exact GVR first, then with
matchPolicy Equivalent the other GVRs of the resource, each rule with its `resourceNames`),
`pkg/admission/plugin/webhook/predicates/namespace/matcher.go` (`MatchNamespaceSelector`: a
cluster-scoped request that is not for a Namespace skips the selector),
`predicates/object/matcher.go` (`MatchObjectSelector`: the object or the old object), and
apimachinery `metav1.LabelSelectorAsSelector` (its error texts).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from vap_lsp.admission.matching import (
    GVR,
    GVKey,
    MatchOutcome,
    RequestAttrs,
    SelectorError,
    match_resources,
    matching_rule,
    selector_empty,
    selector_matches,
)

DEPLOY = GVR("apps", "v1", "deployments")
DEPLOY_KIND = GVKey("apps", "v1", "Deployment")
OLD_DEPLOY = GVR("extensions", "v1beta1", "deployments")
OLD_DEPLOY_KIND = GVKey("extensions", "v1beta1", "Deployment")
RULE = {
    "apiGroups": ["apps"],
    "apiVersions": ["v1"],
    "operations": ["CREATE", "UPDATE"],
    "resources": ["deployments"],
}
OLD_RULE = {**RULE, "apiGroups": ["extensions"], "apiVersions": ["v1beta1"]}


def _object(
    labels: dict[str, str] | None = None, name: str = "web", generate_name: str = ""
) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": labels or {}}
    if name:
        meta["name"] = name
    if generate_name:
        meta["generateName"] = generate_name
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta}


def attrs(**changes: Any) -> RequestAttrs:
    base = RequestAttrs(
        operation="CREATE",
        kind=DEPLOY_KIND,
        resource=DEPLOY,
        sub_resource="",
        namespace="prod",
        name="web",
        object=_object({"app": "web"}),
        old_object=None,
        namespace_labels={"env": "prod"},
        equivalents=[(OLD_DEPLOY, OLD_DEPLOY_KIND)],
    )
    return replace(base, **changes)


def matched(resource: GVR = DEPLOY, kind: GVKey = DEPLOY_KIND) -> MatchOutcome:
    return MatchOutcome(True, resource, kind)


def not_matched(why: str, resource: GVR = DEPLOY, kind: GVKey = DEPLOY_KIND) -> MatchOutcome:
    return MatchOutcome(False, resource, kind, why)


ENV_DEV = {"matchLabels": {"env": "dev"}}
BAD_OPERATOR = {"matchExpressions": [{"key": "env", "operator": "Equals", "values": ["x"]}]}
EMPTY_IN = {"matchExpressions": [{"key": "env", "operator": "In", "values": []}]}


@pytest.mark.parametrize(
    ("mr", "request_changes", "expected"),
    [
        # No matchResources at all (a binding without one): everything matches, as requested.
        (None, {}, matched()),
        ({"resourceRules": [RULE]}, {}, matched()),
        # A binding's matchResources without resourceRules matches every resource.
        ({}, {}, matched()),
        ({"namespaceSelector": {}}, {}, matched()),
        (
            {"resourceRules": [RULE], "namespaceSelector": ENV_DEV},
            {},
            not_matched("namespaceSelector does not match"),
        ),
        # A cluster-scoped request that is not a Namespace skips the namespace selector.
        (
            {"resourceRules": [{**RULE, "resources": ["*"]}], "namespaceSelector": ENV_DEV},
            {"namespace": ""},
            matched(),
        ),
        # ... but a Namespace itself is matched by its own labels.
        (
            {
                "resourceRules": [{**RULE, "apiGroups": [""], "resources": ["namespaces"]}],
                "namespaceSelector": ENV_DEV,
            },
            {"namespace": "", "resource": GVR("", "v1", "namespaces"), "namespace_labels": {"env": "prod"}},
            not_matched("namespaceSelector does not match", GVR("", "v1", "namespaces")),
        ),
        (
            {"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "db"}}},
            {},
            not_matched("objectSelector does not match"),
        ),
        ({"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "web"}}}, {}, matched()),
        # The old object's labels match too (an UPDATE that removes the label).
        (
            {"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "db"}}},
            {"operation": "UPDATE", "old_object": _object({"app": "db"})},
            matched(),
        ),
        # DELETE: no object, the old one decides.
        (
            {
                "resourceRules": [{**RULE, "operations": ["DELETE"]}],
                "objectSelector": {"matchLabels": {"app": "db"}},
            },
            {"operation": "DELETE", "object": None, "old_object": _object({"app": "web"})},
            not_matched("objectSelector does not match"),
        ),
        # A generateName-only object (no name yet on CREATE) is matched by its labels.
        (
            {"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "web"}}},
            {"name": "", "object": _object({"app": "web"}, name="", generate_name="web-")},
            matched(),
        ),
        (
            {"resourceRules": [RULE], "objectSelector": {"matchLabels": {"app": "db"}}},
            {"name": "", "object": _object({"app": "web"}, name="", generate_name="web-")},
            not_matched("objectSelector does not match"),
        ),
        # ... and never by resourceNames: its name is "" when admission runs.
        (
            {"resourceRules": [{**RULE, "resourceNames": ["web-"]}]},
            {"name": "", "object": _object({}, name="", generate_name="web-")},
            not_matched("no resourceRule matches CREATE apps/v1/deployments"),
        ),
        ({"resourceRules": [{**RULE, "resourceNames": ["web"]}]}, {}, matched()),
        (
            {"resourceRules": [RULE], "excludeResourceRules": [RULE]},
            {},
            not_matched("excluded by excludeResourceRules"),
        ),
        # excludeResourceRules with resourceNames excludes only those names.
        (
            {"resourceRules": [RULE], "excludeResourceRules": [{**RULE, "resourceNames": ["db"]}]},
            {},
            matched(),
        ),
        (
            {"resourceRules": [RULE]},
            {"operation": "DELETE"},
            not_matched("no resourceRule matches DELETE apps/v1/deployments"),
        ),
        (
            {"resourceRules": [RULE]},
            {"sub_resource": "scale", "operation": "UPDATE"},
            not_matched("no resourceRule matches UPDATE apps/v1/deployments/scale"),
        ),
        # The core group is left out of the text, not written as an empty segment.
        (
            {"resourceRules": [RULE]},
            {"resource": GVR("", "v1", "pods"), "kind": GVKey("", "v1", "Pod"), "equivalents": []},
            not_matched(
                "no resourceRule matches CREATE v1/pods", GVR("", "v1", "pods"), GVKey("", "v1", "Pod")
            ),
        ),
        # matchPolicy Equivalent: a rule for the other version matches, as that resource and kind.
        (
            {"resourceRules": [OLD_RULE], "matchPolicy": "Equivalent"},
            {},
            matched(OLD_DEPLOY, OLD_DEPLOY_KIND),
        ),
        (
            {"resourceRules": [OLD_RULE], "matchPolicy": "Exact"},
            {},
            not_matched("no resourceRule matches CREATE apps/v1/deployments"),
        ),
        # A binding's matchResources has no default matchPolicy here: absent is Exact.
        (
            {"resourceRules": [OLD_RULE]},
            {},
            not_matched("no resourceRule matches CREATE apps/v1/deployments"),
        ),
        # Selector errors are reported only when the rules match, the namespace selector's first.
        (
            {"resourceRules": [RULE], "namespaceSelector": BAD_OPERATOR, "objectSelector": EMPTY_IN},
            {},
            MatchOutcome(False, DEPLOY, DEPLOY_KIND, error='"Equals" is not a valid label selector operator'),
        ),
        (
            {"resourceRules": [RULE], "objectSelector": EMPTY_IN},
            {},
            MatchOutcome(
                False, DEPLOY, DEPLOY_KIND, error="for 'in', 'notin' operators, values set can't be empty"
            ),
        ),
        (
            {"resourceRules": [RULE], "namespaceSelector": EMPTY_IN},
            {"operation": "DELETE"},
            not_matched("no resourceRule matches DELETE apps/v1/deployments"),
        ),
        # An error in the object selector after a namespace selector that does not match: not matched.
        (
            {"resourceRules": [RULE], "namespaceSelector": ENV_DEV, "objectSelector": EMPTY_IN},
            {},
            not_matched("namespaceSelector does not match"),
        ),
        # The error is reported with the resource matched as (Equivalent).
        (
            {"resourceRules": [OLD_RULE], "matchPolicy": "Equivalent", "objectSelector": BAD_OPERATOR},
            {},
            MatchOutcome(
                False, OLD_DEPLOY, OLD_DEPLOY_KIND, error='"Equals" is not a valid label selector operator'
            ),
        ),
    ],
)
def test_match_outcome(mr: Any, request_changes: dict[str, Any], expected: MatchOutcome) -> None:
    assert match_resources(mr, attrs(**request_changes)) == expected


def test_equivalent_skips_the_requested_group_version() -> None:
    """`matchesResourceRules` tries the equivalents other than the request's own GVR."""
    same = (GVR("apps", "v1", "deployments"), GVKey("apps", "v1", "Other"))
    request = attrs(equivalents=[same, (OLD_DEPLOY, OLD_DEPLOY_KIND)])
    assert matching_rule([{**RULE, "operations": ["DELETE"]}, OLD_RULE], "Equivalent", request) == (
        1,
        OLD_DEPLOY,
        OLD_DEPLOY_KIND,
    )
    assert matching_rule([RULE], "Equivalent", attrs(equivalents=[same])) == (0, DEPLOY, DEPLOY_KIND)
    # A rule that is not a map is skipped, not an error, in both passes.
    assert matching_rule(["junk", OLD_RULE], "Equivalent", request) == (1, OLD_DEPLOY, OLD_DEPLOY_KIND)
    # resourceNames applies to the equivalent match too.
    named = {**OLD_RULE, "resourceNames": ["db"]}
    assert matching_rule([named], "Equivalent", request) == (None, DEPLOY, DEPLOY_KIND)
    assert matching_rule([named], "Equivalent", attrs(name="db")) == (0, OLD_DEPLOY, OLD_DEPLOY_KIND)


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        (None, {"a": "1"}, True),
        ({}, None, True),
        ({"matchLabels": {"a": "1"}}, {"a": "1"}, True),
        ({"matchLabels": {"a": "1"}}, {"a": "2"}, False),
        ({"matchLabels": {"a": "1"}}, None, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}, {"a": "2"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]}, {"a": "2"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}]}, {}, False),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "1"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {"a": "2"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"b": "1"}, False),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"b": "1"}, True),
        ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "1"}, False),
        # Every requirement must hold (labels and expressions together).
        (
            {"matchLabels": {"a": "1"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]},
            {"a": "1"},
            False,
        ),
    ],
)
def test_selector_requirements(selector: Any, labels: Any, expected: bool) -> None:
    """apimachinery `labels.Requirement.Matches` per operator."""
    assert selector_matches(selector, labels) is expected


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ("env=prod", "invalid label selector"),
        ({"matchLabels": ["a"]}, "invalid matchLabels"),
        ({"matchExpressions": ["a"]}, "invalid matchExpressions"),
        (
            {"matchExpressions": [{"key": "a", "operator": "exists"}]},
            '"exists" is not a valid label selector operator',
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "In"}]},
            "for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": []}]},
            "for 'in', 'notin' operators, values set can't be empty",
        ),
    ],
)
def test_selector_errors(selector: Any, message: str) -> None:
    with pytest.raises(SelectorError) as info:
        selector_matches(selector, {"a": "1"})
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("selector", "empty"),
    [
        (None, True),
        ({}, True),
        ({"matchLabels": {}}, True),
        ({"matchLabels": {}, "matchExpressions": []}, True),
        ({"matchLabels": {"a": "1"}}, False),
        ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, False),
    ],
)
def test_selector_empty(selector: Any, empty: bool) -> None:
    assert selector_empty(selector) is empty
