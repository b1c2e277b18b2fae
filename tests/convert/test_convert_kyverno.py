# ruff: noqa: E501  (input YAML and expected CEL read best unbroken)
"""Kyverno policies as ValidatingAdmissionPolicies: ValidatingPolicy (its spec is a VAP's,
kyverno/kyverno `pkg/admissionpolicy/builder.go` `BuildValidatingAdmissionPolicy`), ClusterPolicy
and Policy rules with `validate.cel` (`translateResource`, `constructValidatingAdmissionPolicyRules`),
and Kyverno's autogen (`pkg/cel/autogen`, `pkg/cel/policies/vpol/autogen`, `pkg/autogen/v1`),
whose own test tables are translated below."""

from __future__ import annotations

from typing import Any

import pytest
from convert_helpers import bindings, convert, policy

from vap_lsp.convert import autogen

VPOL = """\
apiVersion: policies.kyverno.io/v1alpha1
kind: ValidatingPolicy
metadata: {name: disallow-host-path}
spec:
  validationActions: [Audit, Warn]
  failurePolicy: Ignore
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  matchConditions:
    - name: not-system
      expression: "object.metadata.namespace != 'kube-system'"
  variables:
    - name: volumes
      expression: "object.spec.?volumes.orValue([])"
  validations:
    - expression: "variables.volumes.all(v, !has(v.hostPath))"
      message: hostPath volumes are forbidden
  auditAnnotations:
    - key: volumes
      valueExpression: "string(size(variables.volumes))"
"""


def test_a_validating_policy_is_a_vap_and_its_actions_go_to_the_binding() -> None:
    run = convert(VPOL)
    vap = policy(run)
    assert vap["metadata"]["name"] == "disallow-host-path"
    assert list(vap["spec"]) == [
        "failurePolicy",
        "matchConstraints",
        "matchConditions",
        "variables",
        "validations",
        "auditAnnotations",
    ]
    assert vap["spec"]["matchConditions"] == [
        {"name": "not-system", "expression": "object.metadata.namespace != 'kube-system'"}
    ]
    assert bindings(run)[0]["spec"] == {
        "policyName": "disallow-host-path",
        "validationActions": ["Audit", "Warn"],
    }


def test_a_validating_policy_without_actions_denies() -> None:
    # `ValidationActions()`: Deny when the list is empty.
    run = convert(VPOL.replace("  validationActions: [Audit, Warn]\n", ""))
    assert bindings(run)[0]["spec"]["validationActions"] == ["Deny"]


def test_autogen_variants_of_a_pod_policy() -> None:
    run = convert(VPOL)
    names = [p["metadata"]["name"] for c in run.conversions for p in c.policies]
    assert names == ["disallow-host-path", "disallow-host-path-autogen", "disallow-host-path-autogen-cronjob"]
    defaults, cronjobs = policy(run, 1), policy(run, 2)
    assert defaults["spec"]["matchConstraints"] == {
        "resourceRules": [
            {
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["daemonsets", "deployments", "replicasets", "statefulsets"],
            },
            {
                "apiGroups": ["batch"],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["jobs"],
            },
        ]
    }
    assert defaults["spec"]["variables"][0]["expression"] == "object.spec.template.spec.?volumes.orValue([])"
    # object.metadata.namespace stays the controller's own (replacement.go `protectedSuffixes`).
    assert (
        defaults["spec"]["matchConditions"][0]["expression"] == "object.metadata.namespace != 'kube-system'"
    )
    assert cronjobs["spec"]["variables"][0]["expression"] == (
        "object.spec.jobTemplate.spec.template.spec.?volumes.orValue([])"
    )


def test_autogen_is_off_when_the_policy_turns_it_off_or_the_run_does() -> None:
    off = VPOL.replace("spec:\n", "spec:\n  autogen: {podControllers: {controllers: []}}\n", 1)
    assert len([p for c in convert(off).conversions for p in c.policies]) == 1
    only = VPOL.replace("spec:\n", "spec:\n  autogen: {podControllers: {controllers: [cronjobs]}}\n", 1)
    assert [p["metadata"]["name"] for c in convert(only).conversions for p in c.policies] == [
        "disallow-host-path",
        "disallow-host-path-autogen-cronjob",
    ]
    assert len([p for c in convert(VPOL, autogen=False).conversions for p in c.policies]) == 1


# pkg/cel/autogen/replacement_test.go TestApplyRewritesExpressions: (name, expr, config, want);
# config "deployments" is the `defaults` replacements, "cronjobs" the `cronjobs` ones.
REPLACEMENTS = [
    ("deployments spec", "object.spec", "spec.template", "object.spec.template.spec"),
    ("deployments oldObject spec", "oldObject.spec", "spec.template", "oldObject.spec.template.spec"),
    (
        "cronjobs spec",
        "object.spec",
        "spec.jobTemplate.spec.template",
        "object.spec.jobTemplate.spec.template.spec",
    ),
    (
        "cronjobs oldObject spec",
        "oldObject.spec",
        "spec.jobTemplate.spec.template",
        "oldObject.spec.jobTemplate.spec.template.spec",
    ),
    (
        "deployments metadata is rewritten",
        "object.metadata",
        "spec.template",
        "object.spec.template.metadata",
    ),
    (
        "deployments metadata.labels is rewritten",
        "object.metadata.labels['app']",
        "spec.template",
        "object.spec.template.metadata.labels['app']",
    ),
    (
        "object metadata.namespace is preserved",
        "object.metadata.namespace",
        "spec.template",
        "object.metadata.namespace",
    ),
    (
        "oldObject metadata.namespace is preserved",
        "oldObject.metadata.namespace",
        "spec.jobTemplate.spec.template",
        "oldObject.metadata.namespace",
    ),
    (
        "namespace membership expression is preserved",
        "!(object.metadata.namespace in ['opencost', 'kube-system'])",
        "spec.jobTemplate.spec.template",
        "!(object.metadata.namespace in ['opencost', 'kube-system'])",
    ),
    (
        "namespace preserved while sibling metadata fields are rewritten",
        "object.metadata.namespace == 'foo' && object.metadata.labels['team'] == 'platform'",
        "spec.template",
        "object.metadata.namespace == 'foo' && object.spec.template.metadata.labels['team'] == 'platform'",
    ),
    (
        "only the namespace segment is protected, not longer identifiers",
        "object.metadata.namespaceFoo",
        "spec.template",
        "object.spec.template.metadata.namespaceFoo",
    ),
    (
        "user content containing protected sentinel-like text is not corrupted",
        "object.metadata.labels['__KYVERNO_PROTECTED_OBJECT_METADATA_NAMESPACE__'] == 'x'",
        "spec.template",
        "object.spec.template.metadata.labels['__KYVERNO_PROTECTED_OBJECT_METADATA_NAMESPACE__'] == 'x'",
    ),
]


@pytest.mark.parametrize(("name", "expr", "template", "want"), REPLACEMENTS, ids=[r[0] for r in REPLACEMENTS])
def test_kyvernos_replacement_table(name: str, expr: str, template: str, want: str) -> None:
    assert autogen._rewrite(expr, autogen._pairs(template), True) == want


def _match(**rule: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"]}
    return {"resourceRules": [{**base, "resources": ["pods"], **rule}]}


# pkg/cel/autogen/support_test.go TestCanAutoGen: (name, match, want).
CAN_AUTOGEN = [
    ("with nil", None, False),
    ("with name", _match(resourceNames=["test-pod"]), False),
    ("with object selector", {**_match(), "objectSelector": {"matchLabels": {"app": "nginx"}}}, False),
    ("with namespace selector", {**_match(), "namespaceSelector": {"matchLabels": {"app": "nginx"}}}, True),
    (
        "with multiple rules",
        {
            "resourceRules": [
                *_match()["resourceRules"],
                {**_match()["resourceRules"][0], "resources": ["deployments"]},
            ]
        },
        False,
    ),
    (
        "with excluded resources",
        {**_match(), "excludeResourceRules": _match(apiGroups=["apps"])["resourceRules"]},
        False,
    ),
    ("with invalid group", _match(apiGroups=["foo"]), False),
    ("with invalid version", _match(apiVersions=["foo"]), False),
    ("with invalid resource", _match(resources=["foo"]), False),
    ("with only pod kind", _match(), True),
]


@pytest.mark.parametrize(("name", "match", "want"), CAN_AUTOGEN, ids=[c[0] for c in CAN_AUTOGEN])
def test_kyvernos_can_autogen_table(name: str, match: Any, want: bool) -> None:
    assert autogen.vpol_can_autogen(match) is want


CPOL = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-run-as-nonroot}
spec:
  validationFailureAction: Enforce
  rules:
    - name: run-as-non-root
      match:
        any:
          - resources:
              kinds: [Pod]
              operations: [CREATE, UPDATE]
              namespaces: [prod]
      exclude:
        any:
          - resources:
              kinds: [Pod]
              names: [debug]
      celPreconditions:
        - name: labelled
          expression: "has(object.metadata.labels)"
      validate:
        cel:
          variables:
            - {name: containers, expression: "object.spec.containers"}
          expressions:
            - expression: "variables.containers.all(c, c.?securityContext.?runAsNonRoot.orValue(false))"
              message: containers must run as non-root
"""


def test_a_cel_rule_of_a_cluster_policy() -> None:
    run = convert(CPOL)
    vap = policy(run)
    assert vap["metadata"]["name"] == "require-run-as-nonroot"
    assert vap["spec"]["matchConstraints"] == {
        "resourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["pods", "pods/ephemeralcontainers"],
            }
        ],
        "namespaceSelector": {
            "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["prod"]}]
        },
        "excludeResourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE", "CONNECT", "DELETE"],
                "resources": ["pods", "pods/ephemeralcontainers"],
                "resourceNames": ["debug"],
            }
        ],
    }
    assert vap["spec"]["matchConditions"] == [
        {"name": "labelled", "expression": "has(object.metadata.labels)"}
    ]
    assert vap["spec"]["validations"][0]["message"] == "containers must run as non-root"
    assert bindings(run)[0]["spec"]["validationActions"] == ["Deny"]
    # Names in exclude: no autogen (pkg/autogen/v1 `checkAutogenSupport`).
    assert len([p for c in run.conversions for p in c.policies]) == 1


def test_failure_actions_of_a_cluster_policy() -> None:
    audit = CPOL.replace("Enforce", "Audit")
    assert bindings(convert(audit))[0]["spec"]["validationActions"] == ["Audit"]
    warn = audit.replace("spec:\n", "spec:\n  emitWarning: true\n", 1)
    assert bindings(convert(warn))[0]["spec"]["validationActions"] == ["Audit", "Warn"]
    per_rule = CPOL.replace("      validate:\n", "      validate:\n        failureAction: Audit\n")
    assert bindings(convert(per_rule))[0]["spec"]["validationActions"] == ["Audit"]


def test_cluster_policy_autogen_rules_and_the_annotation() -> None:
    pods_only = CPOL.replace(
        "      exclude:\n        any:\n          - resources:\n              kinds: [Pod]\n              names: [debug]\n",
        "",
    )
    run = convert(pods_only)
    names = [p["metadata"]["name"] for c in run.conversions for p in c.policies]
    assert names == [
        "require-run-as-nonroot",
        "require-run-as-nonroot-autogen",
        "require-run-as-nonroot-autogen-cronjob",
    ]
    assert policy(run, 1)["spec"]["variables"][0]["expression"] == "object.spec.template.spec.containers"
    assert sorted(policy(run, 1)["spec"]["matchConstraints"]["resourceRules"][0]["resources"]) == [
        "daemonsets",
        "deployments",
        "replicasets",
        "statefulsets",
    ]
    # `object.metadata` is rewritten without the namespace exception in ClusterPolicies (updateFields).
    assert policy(run, 2)["spec"]["matchConditions"][0]["expression"] == (
        "has(object.spec.jobTemplate.spec.template.metadata.labels)"
    )
    none = pods_only.replace(
        "metadata: {name: require-run-as-nonroot}",
        "metadata:\n  name: require-run-as-nonroot\n  annotations: {pod-policies.kyverno.io/autogen-controllers: none}",
    )
    assert len([p for c in convert(none).conversions for p in c.policies]) == 1
    deployments = none.replace(": none}", ": Deployment}")
    assert [p["metadata"]["name"] for c in convert(deployments).conversions for p in c.policies] == [
        "require-run-as-nonroot",
        "require-run-as-nonroot-autogen",
    ]


def test_a_namespaced_policy_binds_in_its_namespace() -> None:
    namespaced = CPOL.replace(
        "kind: ClusterPolicy\nmetadata: {name: require-run-as-nonroot}",
        "kind: Policy\nmetadata: {name: p, namespace: shop}",
    )
    assert bindings(convert(namespaced))[0]["spec"]["matchResources"] == {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "shop"}}
    }


def test_wildcards_subjects_and_annotations_become_match_conditions() -> None:
    rule = CPOL.replace(
        "              namespaces: [prod]\n",
        "              namespaces: ['team-*']\n              annotations: {owner: '?*'}\n",
    ).replace(
        "          - resources:\n              kinds: [Pod]\n              names: [debug]\n",
        "          - subjects: [{kind: Group, name: 'system:masters'}]\n",
    )
    vap = policy(convert(rule))
    conditions = {c["name"]: c["expression"] for c in vap["spec"]["matchConditions"]}
    assert conditions["match"] == (
        'request.?namespace.orValue("").matches("^team-.*$") &&\n'
        '(object != null ? object : oldObject).metadata.?annotations[?"owner"].orValue("").matches("^..*$")'
    )
    assert conditions["exclude"] == '!(("system:masters" in request.userInfo.groups))'


def test_kinds_without_rest_mapping_are_matched_by_kind() -> None:
    crd_kind = CPOL.replace(
        "kinds: [Pod]\n              operations",
        "kinds: [argoproj.io/v1alpha1/Application]\n              operations",
    ).replace("              namespaces: [prod]\n", "")
    vap = policy(convert(crd_kind))
    assert vap["spec"]["matchConstraints"]["resourceRules"][0] == {
        "apiGroups": ["argoproj.io"],
        "apiVersions": ["v1alpha1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": ["*"],
    }
    assert vap["spec"]["matchConditions"][-1]["expression"] == (
        '((request.kind.group == "argoproj.io" && request.kind.kind == "Application"))'
    )


def test_a_message_with_line_breaks_is_joined() -> None:
    # A VAP rejects a message whose trimmed text has a line break (validateValidation).
    text = VPOL.replace(
        "message: hostPath volumes are forbidden", "message: |\n        first line\n        second line"
    )
    run = convert(text)
    assert policy(run)["spec"]["validations"][0]["message"] == "first line second line"
    assert any("had line breaks" in n for c in run.conversions for n in c.notes)
