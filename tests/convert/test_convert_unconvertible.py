# ruff: noqa: E501  (input YAML and expected CEL read best unbroken)
"""Everything the API server cannot do is listed with its reason and where it is, never dropped
in silence: one case per construct of issue 37, and the rule or policy it belongs to is not
converted (a policy without that part would decide differently)."""

from __future__ import annotations

import pytest
from convert_helpers import constructs, convert

from vap_lsp.convert.model import Unconvertible

REGO_ONLY = """\
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8suniqueingresshost}
spec:
  crd: {spec: {names: {kind: K8sUniqueIngressHost}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package k8suniqueingresshost
        violation[{"msg": msg}] {
          other := data.inventory.namespace[_][_]["Ingress"][_]
          other.spec.rules[_].host == input.review.object.spec.rules[_].host
          msg := "host in use"
        }
        violation[{"msg": msg}] {
          response := external_data({"provider": "registry", "keys": ["x"]})
          msg := "external"
        }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sUniqueIngressHost
metadata: {name: unique-hosts}
"""


def _only(run_items: list[Unconvertible], construct: str) -> Unconvertible:
    found = [u for u in run_items if u.construct == construct]
    assert found, [u.construct for u in run_items]
    return found[0]


def test_a_rego_only_template_with_inventory_and_external_data() -> None:
    run = convert(REGO_ONLY)
    assert constructs(run) == [
        "Rego-only template",
        "data.inventory",
        "external data",
        "constraint of an unconvertible template",
    ]
    assert (
        "Rego runs in Gatekeeper, never in the API server"
        in _only(run.unconvertible, "Rego-only template").reason
    )
    assert not run.texts


def test_gatekeepers_cluster_wide_namespace_exemptions() -> None:
    run = convert(
        """\
        apiVersion: config.gatekeeper.sh/v1alpha1
        kind: Config
        metadata: {name: config, namespace: gatekeeper-system}
        spec:
          match:
            - excludedNamespaces: [kube-system, gatekeeper-system]
              processes: ["*"]
        """
    )
    item = _only(run.unconvertible, "cluster-wide namespace exemption")
    assert item.where == "spec.match[0]"
    assert "kube-system, gatekeeper-system" in item.reason and "NotIn" in item.reason


def test_a_constraint_without_its_template() -> None:
    run = convert("apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sNothing\nmetadata: {name: a}\n")
    assert constructs(run) == ["constraint without its template"]


def _vpol(expression: str, **spec: str) -> str:
    extra = "".join(f"  {k}: {v}\n" for k, v in spec.items())
    return f"""\
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {{name: p}}
spec:
{extra}  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}}
  validations:
    - expression: {expression!r}
"""


@pytest.mark.parametrize(
    ("expression", "construct"),
    [
        ("resource.Get('v1', 'configmaps', 'ns', 'x').data.allowed == 'true'", "resource.Get/List"),
        ("resource.List('apps/v1', 'deployments', '').items.size() < 10", "resource.Get/List"),
        ("http.Get('https://example.com/allowed').allowed", "http"),
        ("globalContext.Get('deployments', '').size() > 0", "globalContext"),
        ("image('nginx:1.27').registry() == 'docker.io'", "image data"),
        ("image.GetMetadata(object.spec.containers[0].image).config.User != 'root'", "image data"),
        ("sha256(object.metadata.name) != ''", "hash"),
        ("exceptions.allowedValues.size() == 0", "PolicyException allowances"),
    ],
)
def test_kyverno_cel_libraries_the_api_server_lacks(expression: str, construct: str) -> None:
    run = convert(_vpol(expression))
    assert construct in constructs(run)
    assert not run.texts  # the policy is not half converted


def test_validating_policies_that_are_not_for_admission() -> None:
    run = convert(_vpol("true", evaluation="{mode: JSON}"))
    assert constructs(run) == ["JSON evaluation mode"]
    run = convert(_vpol("true", evaluation="{admission: {enabled: false}}"))
    assert constructs(run) == ["background-only policy"]


@pytest.mark.parametrize(
    ("kind", "construct"),
    [
        ("ImageValidatingPolicy", "ImageValidatingPolicy"),
        ("MutatingPolicy", "MutatingPolicy"),
        ("GeneratingPolicy", "GeneratingPolicy"),
        ("DeletingPolicy", "DeletingPolicy"),
    ],
)
def test_kyverno_cel_policies_of_other_kinds(kind: str, construct: str) -> None:
    run = convert(f"apiVersion: policies.kyverno.io/v1\nkind: {kind}\nmetadata: {{name: p}}\nspec: {{}}\n")
    assert constructs(run) == [construct]


def _cpol(rule: str) -> str:
    return (
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n"
        "  validationFailureAction: Enforce\n  rules:\n"
        + "".join(f"    {line}\n" for line in rule.strip("\n").split("\n"))
    )


MATCH = "match: {any: [{resources: {kinds: [Pod]}}]}"


@pytest.mark.parametrize(
    ("rule", "construct", "where"),
    [
        (
            f"- name: r\n  {MATCH}\n  validate:\n    pattern: {{spec: {{hostNetwork: false}}}}",
            "JMESPath pattern",
            "spec.rules[0].validate.pattern",
        ),
        (
            f"- name: r\n  {MATCH}\n  validate:\n    anyPattern: [{{spec: {{hostPID: false}}}}]",
            "JMESPath pattern",
            "spec.rules[0].validate.anyPattern",
        ),
        (
            f"- name: r\n  {MATCH}\n  validate:\n    deny: {{conditions: {{any: [{{key: '{{{{request.operation}}}}', operator: Equals, value: DELETE}}]}}}}",
            "JMESPath deny conditions",
            "spec.rules[0].validate.deny",
        ),
        (
            f"- name: r\n  {MATCH}\n  preconditions: {{all: [{{key: a, operator: Equals, value: a}}]}}\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "JMESPath preconditions",
            "spec.rules[0].preconditions",
        ),
        (
            f"- name: r\n  {MATCH}\n  mutate: {{patchStrategicMerge: {{metadata: {{labels: {{a: b}}}}}}}}",
            "mutate rule",
            "spec.rules[0].mutate",
        ),
        (
            f"- name: r\n  {MATCH}\n  generate: {{kind: ConfigMap, apiVersion: v1, name: x, namespace: y}}",
            "generate rule",
            "spec.rules[0].generate",
        ),
        (
            f"- name: r\n  {MATCH}\n  verifyImages: [{{imageReferences: ['*']}}]",
            "image verification",
            "spec.rules[0].verifyImages",
        ),
        (
            f"- name: r\n  {MATCH}\n  context: [{{name: cm, configMap: {{name: c, namespace: d}}}}]\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "ConfigMap lookup (context configMap)",
            "spec.rules[0].context[0]",
        ),
        (
            f"- name: r\n  {MATCH}\n  context: [{{name: g, globalReference: {{name: deployments}}}}]\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "globalContext",
            "spec.rules[0].context[0]",
        ),
        (
            f"- name: r\n  {MATCH}\n  context: [{{name: s, apiCall: {{service: {{url: 'https://x'}}}}}}]\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "http (context apiCall service)",
            "spec.rules[0].context[0]",
        ),
        (
            f"- name: r\n  {MATCH}\n  context: [{{name: n, apiCall: {{urlPath: '/api/v1/namespaces'}}}}]\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "resource lookup (context apiCall)",
            "spec.rules[0].context[0]",
        ),
        (
            "- name: r\n  match: {any: [{resources: {kinds: [Pod]}, clusterRoles: [cluster-admin]}]}\n"
            "  validate: {cel: {expressions: [{expression: 'true'}]}}",
            "roles of the requester",
            "spec.rules[0].match.any[0]",
        ),
    ],
)
def test_cluster_policy_rules_that_are_not_cel(rule: str, construct: str, where: str) -> None:
    run = convert(_cpol(rule))
    item = _only(run.unconvertible, construct)
    assert (item.where, item.origin.rule) == (where, "r")
    assert not run.texts


def test_only_the_unconvertible_rule_is_left_out() -> None:
    rules = f"""\
- name: cel
  {MATCH}
  validate: {{cel: {{expressions: [{{expression: 'object.spec.hostNetwork != true'}}]}}}}
- name: pattern
  {MATCH}
  validate: {{pattern: {{spec: {{hostPID: false}}}}}}
"""
    run = convert(_cpol(rules))
    assert [u.origin.rule for u in run.unconvertible] == ["pattern"]
    # One CEL rule: the policy's name (with several, `<policy>-<rule>`).
    assert [p["metadata"]["name"] for c in run.conversions for p in c.policies] == [
        "p",
        "p-autogen",
        "p-autogen-cronjob",
    ]
