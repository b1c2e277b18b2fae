"""Matching as `pkg/admission/plugin/policy/matching` decides it: rules, selectors, scope,
resourceNames, exclusions and matchPolicy Equivalent."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit


def _policy(match: str, binding_match: str = "") -> list[dict[str, Any]]:
    docs = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
{match}
  validations:
  - expression: "false"
    message: matched
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec:
  policyName: p
  validationActions: [Deny]
{binding_match}
"""
    return list(yaml.safe_load_all(docs))


NAMESPACES = """
apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {env: prod, team: a}}
---
apiVersion: v1
kind: Namespace
metadata: {name: dev, labels: {env: dev}}
"""


def _matches(
    match: str, obj: str, *, op: str = "CREATE", sub: str = "", binding: str = "", old: str = ""
) -> bool:
    docs = _policy(match, binding) + list(yaml.safe_load_all(NAMESPACES))
    o = yaml.safe_load(obj)
    request = AdmissionRequestInput(
        op,
        None if op == "DELETE" else o,
        yaml.safe_load(old) if old else (o if op == "DELETE" else None),
        sub_resource=sub,
    )
    result = admit(request, PolicyInputs.from_objects(docs), kubernetes_version="1.34")
    return not result.allowed


CONTAINERS = "spec: {containers: [{name: c, image: 'nginx:1'}]}"
POD = (
    "{apiVersion: v1, kind: Pod, metadata: {name: web, namespace: prod, labels: {app: web}}, "
    + CONTAINERS
    + "}"
)
DEV_POD = (
    "{apiVersion: v1, kind: Pod, metadata: {name: api, namespace: dev, labels: {app: api}}, "
    + CONTAINERS
    + "}"
)
DEPLOY = (
    "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: prod}, "
    "spec: {selector: {matchLabels: {app: d}}, template: {metadata: {labels: {app: d}}, " + CONTAINERS + "}}}"
)
NODE = "{apiVersion: v1, kind: Node, metadata: {name: n1}}"
NS_OBJ = "{apiVersion: v1, kind: Namespace, metadata: {name: prod, labels: {env: prod}}}"


def _rules(
    resources: str, *, ops: str = '["*"]', groups: str = '[""]', versions: str = '["v1"]', extra: str = ""
) -> str:
    return (
        f"    resourceRules:\n    - {{apiGroups: {groups}, apiVersions: {versions}, operations: {ops}, "
        f"resources: {resources}{extra}}}\n"
    )


@pytest.mark.parametrize(
    ("resources", "sub", "expected"),
    [
        ('["pods"]', "", True),
        ('["pods"]', "status", False),
        ('["pods/status"]', "status", True),
        ('["pods/status"]', "", False),
        ('["pods/*"]', "ephemeralcontainers", True),
        ('["*"]', "", True),
        ('["*"]', "status", False),
        ('["*/status"]', "status", True),
        ('["*/*"]', "status", True),
        ('["*/*"]', "", True),
        ('["deployments"]', "", False),
    ],
)
def test_resources_and_subresources(resources: str, sub: str, expected: bool) -> None:
    op = "UPDATE" if sub else "CREATE"
    assert _matches(_rules(resources), POD, op=op, sub=sub, old=POD if sub else "") is expected


def test_scale_subresource_of_any_resource() -> None:
    match = _rules('["*/scale"]', groups='["apps"]')
    assert _matches(match, DEPLOY, op="UPDATE", sub="scale", old=DEPLOY)
    assert not _matches(match, DEPLOY, op="UPDATE", sub="status", old=DEPLOY)


@pytest.mark.parametrize(
    ("ops", "op", "expected"),
    [
        ('["CREATE"]', "CREATE", True),
        ('["UPDATE"]', "CREATE", False),
        ('["*"]', "DELETE", True),
        ('["CREATE", "DELETE"]', "DELETE", True),
    ],
)
def test_operations(ops: str, op: str, expected: bool) -> None:
    assert _matches(_rules('["pods"]', ops=ops), POD, op=op, old=POD if op != "CREATE" else "") is expected


def test_groups_and_versions() -> None:
    assert not _matches(_rules('["pods"]', groups='["apps"]'), POD)
    assert _matches(_rules('["pods"]', groups='["*"]', versions='["*"]'), POD)
    assert not _matches(_rules('["pods"]', versions='["v2"]'), POD)


@pytest.mark.parametrize(
    ("scope", "obj", "expected"),
    [
        ("Namespaced", POD, True),
        ("Namespaced", NODE, False),
        ("Cluster", NODE, True),
        ("Cluster", POD, False),
        ("*", NODE, True),
        # Namespace objects are cluster-scoped even though their request carries a namespace.
        ("Cluster", NS_OBJ, True),
        ("Namespaced", NS_OBJ, False),
    ],
)
def test_scope(scope: str, obj: str, expected: bool) -> None:
    match = _rules('["pods", "nodes", "namespaces"]', extra=f", scope: '{scope}'")
    assert _matches(match, obj) is expected


def test_resource_names() -> None:
    match = _rules('["pods"]', extra=", resourceNames: [web, other]")
    assert _matches(match, POD)
    assert not _matches(match, DEV_POD)


def test_exclude_resource_rules() -> None:
    match = (
        _rules('["pods"]')
        + '    excludeResourceRules:\n    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"],\n'
        + "       resources: [pods], resourceNames: [web]}\n"
    )
    assert not _matches(match, POD)
    assert _matches(match, DEV_POD)


def test_namespace_selector_match_labels_and_expressions() -> None:
    labels = _rules('["pods"]') + "    namespaceSelector: {matchLabels: {env: prod}}\n"
    assert _matches(labels, POD)
    assert not _matches(labels, DEV_POD)
    expr = (
        _rules('["pods"]')
        + "    namespaceSelector:\n      matchExpressions:\n"
        + "      - {key: env, operator: NotIn, values: [prod]}\n"
    )
    assert not _matches(expr, POD)
    assert _matches(expr, DEV_POD)
    exists = (
        _rules('["pods"]')
        + "    namespaceSelector:\n      matchExpressions:\n      - {key: team, operator: Exists}\n"
    )
    assert _matches(exists, POD)
    assert not _matches(exists, DEV_POD)
    absent = (
        _rules('["pods"]')
        + "    namespaceSelector:\n      matchExpressions:\n      - {key: team, operator: DoesNotExist}\n"
    )
    assert _matches(absent, DEV_POD)


def test_namespace_selector_uses_metadata_name_label_of_unlisted_namespaces() -> None:
    match = (
        _rules('["pods"]') + "    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}\n"
    )
    other = "{apiVersion: v1, kind: Pod, metadata: {name: x, namespace: other}, " + CONTAINERS + "}"
    assert _matches(match, other)


def test_namespace_selector_never_excludes_cluster_scoped_resources() -> None:
    match = _rules('["nodes"]') + "    namespaceSelector: {matchLabels: {env: prod}}\n"
    assert _matches(match, NODE)


def test_object_selector_checks_object_and_old_object() -> None:
    match = _rules('["pods"]') + "    objectSelector: {matchLabels: {app: web}}\n"
    assert _matches(match, POD)
    assert not _matches(match, DEV_POD)
    # UPDATE: the old object's labels count too
    assert _matches(match, DEV_POD, op="UPDATE", old=POD)


def test_binding_match_resources_narrow_the_policy() -> None:
    binding = "  matchResources:\n    namespaceSelector: {matchLabels: {env: dev}}\n"
    assert _matches(_rules('["pods"]'), DEV_POD, binding=binding)
    assert not _matches(_rules('["pods"]'), POD, binding=binding)


def test_match_policy_equivalent_matches_other_group_versions() -> None:
    """A rule for apps/v1 deployments matches an extensions/v1beta1 request (same kind
    served by several group/versions), unless matchPolicy is Exact."""
    old_deploy = "{apiVersion: extensions/v1beta1, kind: Deployment, metadata: {name: d, namespace: prod}}"
    rule = _rules('["deployments"]', groups='["apps"]')
    # not in the REST mapping of 1.34, so the equivalence comes from apps/v1 serving the same
    # resource and kind
    assert _matches(rule, old_deploy)
    assert not _matches(rule + "    matchPolicy: Exact\n", old_deploy)


def test_match_policy_equivalent_reports_the_matched_kind() -> None:
    docs = list(
        yaml.safe_load_all("""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["events.k8s.io"], apiVersions: ["v1"], operations: ["*"], resources: ["events"]}
  validations:
  - expression: "request.kind.group == 'events.k8s.io' && request.requestKind.group == ''"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
""")
    )
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"}}
    result = admit(
        AdmissionRequestInput("CREATE", event), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert result.allowed
    assert result.evaluations[0].matched


def test_why_not_is_reported() -> None:
    docs = _policy(_rules('["deployments"]', groups='["apps"]'))
    result = admit(
        AdmissionRequestInput("CREATE", yaml.safe_load(POD)),
        PolicyInputs.from_objects(docs),
        kubernetes_version="1.34",
    )
    assert result.allowed
    [ev] = result.evaluations
    assert not ev.matched
    assert ev.why_not == "matchConstraints: no resourceRule matches CREATE v1/pods"


def test_policy_without_binding_is_reported() -> None:
    docs = _policy(_rules('["pods"]'))[:1]
    result = admit(
        AdmissionRequestInput("CREATE", yaml.safe_load(POD)),
        PolicyInputs.from_objects(docs),
        kubernetes_version="1.34",
    )
    assert result.allowed
    assert result.evaluations[0].why_not == "no binding references this policy"
