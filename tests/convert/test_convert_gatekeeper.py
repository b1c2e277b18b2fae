# ruff: noqa: E501  (input YAML and expected CEL read best unbroken)
"""Gatekeeper templates and constraints as ValidatingAdmissionPolicies and bindings, as
Gatekeeper's own generation makes them (open-policy-agent/gatekeeper
`pkg/drivers/k8scel/transform/make_vap_objects.go`: `TemplateToPolicyDefinition`,
`ConstraintToBinding`, `GetVAPBindingName`; `cel_snippets.go`: the `anyObject` and `params`
variables), with the constraint's `spec.match` written as the API server matches
(`pkg/mutation/match/match.go` decides what each field means)."""

from __future__ import annotations

from convert_helpers import bindings, constructs, convert, objects, policy

from vap_lsp.convert import gatekeeper

TEMPLATE = """\
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8sdisallowedtags
spec:
  crd:
    spec:
      names:
        kind: K8sDisallowedTags
      validation:
        openAPIV3Schema:
          type: object
          properties:
            tags: {type: array, items: {type: string}}
            strict: {type: boolean}
            limit: {type: integer}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            variables:
              - name: images
                expression: "variables.anyObject.spec.containers.map(c, c.image)"
            validations:
              - expression: >-
                  !variables.images.exists(i, variables.params.tags.exists(t, i.endsWith(':' + t)))
                messageExpression: "'disallowed tag in ' + variables.images.join(', ')"
        - engine: Rego
          source:
            rego: |
              package k8sdisallowedtags
              violation[{"msg": "no"}] { false }
"""


def _constraint(body: str, name: str = "no-latest") -> str:
    return f"""\
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sDisallowedTags
metadata:
  name: {name}
spec:
{body}
"""


def test_one_policy_per_template_with_the_constraint_kind_as_param_and_the_two_variables_first() -> None:
    run = convert(
        TEMPLATE
        + _constraint(
            "  match:\n    kinds: [{apiGroups: [''], kinds: [Pod]}]\n  parameters:\n    tags: [latest]"
        )
    )
    vap = policy(run)
    assert vap["metadata"]["name"] == "gatekeeper-k8sdisallowedtags"
    assert vap["spec"]["paramKind"] == {
        "apiVersion": "constraints.gatekeeper.sh/v1beta1",
        "kind": "K8sDisallowedTags",
    }
    assert [v["name"] for v in vap["spec"]["variables"]] == ["anyObject", "params", "images"]
    assert vap["spec"]["variables"][0]["expression"] == 'request.operation == "DELETE" ? oldObject : object'
    assert vap["spec"]["variables"][1]["expression"] == (
        "has(params.spec) && has(params.spec.parameters) ? params.spec.parameters : null"
    )
    assert vap["spec"]["validations"] == [
        {
            "expression": "!variables.images.exists(i, variables.params.tags.exists(t, i.endsWith(':' + t)))",
            "messageExpression": "'disallowed tag in ' + variables.images.join(', ')",
        }
    ]
    # Pod → pods and the subresources of kind Pod that Gatekeeper's webhook receives.
    assert vap["spec"]["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods", "pods/ephemeralcontainers", "pods/resize"],
            "operations": ["CREATE", "UPDATE"],
        }
    ]
    [binding] = bindings(run)
    assert binding["metadata"]["name"] == "gatekeeper-k8sdisallowedtags-no-latest"
    assert binding["spec"] == {
        "policyName": "gatekeeper-k8sdisallowedtags",
        "paramRef": {"name": "no-latest", "parameterNotFoundAction": "Allow"},
        "validationActions": ["Deny"],
    }
    assert not run.unconvertible
    # Gatekeeper's cluster-wide exemptions are in no template: said, not carried over.
    assert any("admission.gatekeeper.sh/ignore" in note for note in run.notes)


def test_binding_names_are_cut_to_253_characters_with_a_hash_as_gatekeeper_does() -> None:
    name = gatekeeper.binding_name("K8sDisallowedTags", "x" * 300)
    assert len(name) == 253 and name.startswith("gatekeeper-k8sdisallowedtags-xxx")
    assert name[-9] == "-" and all(c in "0123456789abcdef" for c in name[-8:])


def test_enforcement_actions() -> None:
    cases = {
        "deny": ["Deny"],
        "warn": ["Warn"],
        "dryrun": ["Audit"],
    }
    for action, expected in cases.items():
        run = convert(TEMPLATE + _constraint(f"  enforcementAction: {action}"))
        assert bindings(run)[0]["spec"]["validationActions"] == expected, action
    scoped = """\
  enforcementAction: scoped
  scopedEnforcementActions:
    - action: warn
      enforcementPoints: [{name: vap.k8s.io}]
    - action: deny
      enforcementPoints: [{name: validation.gatekeeper.sh}]
"""
    assert bindings(convert(TEMPLATE + _constraint(scoped)))[0]["spec"]["validationActions"] == ["Warn"]
    # No action for vap.k8s.io: the webhook's, the point the policy replaces, and a note.
    webhook_only = """\
  enforcementAction: scoped
  scopedEnforcementActions:
    - action: deny
      enforcementPoints: [{name: validation.gatekeeper.sh}]
"""
    run = convert(TEMPLATE + _constraint(webhook_only))
    assert bindings(run)[0]["spec"]["validationActions"] == ["Deny"]
    assert any("no action for vap.k8s.io" in n for c in run.conversions for n in c.notes)
    run = convert(TEMPLATE + _constraint("  enforcementAction: block"))
    assert constructs(run) == ["enforcementAction"]
    assert not bindings(run)


def test_match_fields_become_the_bindings_match_resources() -> None:
    body = """\
  match:
    scope: Namespaced
    kinds:
      - apiGroups: [apps]
        kinds: [Deployment, StatefulSet]
    namespaces: [prod, staging]
    excludedNamespaces: [kube-system]
    labelSelector: {matchLabels: {tier: web}}
    namespaceSelector:
      matchExpressions: [{key: team, operator: Exists}]
"""
    run = convert(TEMPLATE + _constraint(body))
    [binding] = bindings(run)
    assert binding["spec"]["matchResources"] == {
        "namespaceSelector": {
            "matchExpressions": [
                {"key": "team", "operator": "Exists"},
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["prod", "staging"]},
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]},
            ]
        },
        "objectSelector": {"matchLabels": {"tier": "web"}},
        "resourceRules": [
            {
                "apiGroups": ["apps"],
                "apiVersions": ["v1"],
                "resources": ["deployments", "statefulsets"],  # their scale subresources are Scales
                "scope": "Namespaced",
                "operations": ["CREATE", "UPDATE"],
            }
        ],
    }
    # No glob: no match condition.
    assert "matchConditions" not in policy(run)["spec"]


def test_globs_and_unmapped_kinds_become_match_conditions_reading_the_constraint() -> None:
    body = """\
  match:
    kinds: [{apiGroups: [example.com], kinds: [Widget]}]
    namespaces: ["team-*"]
    excludedNamespaces: ["*-system"]
    name: "web-*"
"""
    run = convert(TEMPLATE + _constraint(body))
    conditions = {c["name"]: c["expression"] for c in policy(run)["spec"]["matchConditions"]}
    assert sorted(conditions) == [
        "constraint-excluded-namespaces",
        "constraint-kinds",
        "constraint-name",
        "constraint-namespaces",
    ]
    assert conditions["constraint-namespaces"] == (
        'params.?spec.?match.?namespaces.orValue([]).size() == 0 || request.?namespace.orValue("") == "" ||\n'
        'params.spec.match.namespaces.exists(n, request.?namespace.orValue("").matches("^" + n.replace("*", ".*") + "$"))'
    )
    # Widget has no REST mapping: every resource of its group, and its kind decided by the condition.
    assert policy(run)["spec"]["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": ["example.com"],
            "apiVersions": ["*"],
            "resources": ["*"],
            "operations": ["CREATE", "UPDATE"],
        }
    ]
    assert any("no REST mapping" in n for c in run.conversions for n in c.notes)


def test_configmap_params_hold_what_cel_can_read_back() -> None:
    body = "  parameters:\n    tags: [latest, dev]\n    strict: true\n    limit: 3"
    run = convert(TEMPLATE + _constraint(body), params="configmap", params_namespace="policies")
    vap = policy(run)
    assert vap["spec"]["paramKind"] == {"apiVersion": "v1", "kind": "ConfigMap"}
    assert vap["spec"]["variables"][1]["expression"] == (
        "!has(params.data) ? null : dyn({\n"
        '  ?"limit": params.data[?"limit"].optMap(v, dyn(int(dyn(v)))),\n'
        '  ?"strict": params.data[?"strict"].optMap(v, dyn(dyn(v) == "true")),\n'
        '  ?"tags": params.data[?"tags"].optMap(v, dyn(dyn(v) == "" ? [] : dyn(v).split("\\n")))\n'
        "})"
    )
    [config_map] = objects(run.conversions[0], "ConfigMap")
    assert config_map == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "gatekeeper-k8sdisallowedtags-no-latest", "namespace": "policies"},
        "data": {"tags": "latest\ndev", "strict": "true", "limit": "3"},
    }
    assert bindings(run)[0]["spec"]["paramRef"] == {
        "name": "gatekeeper-k8sdisallowedtags-no-latest",
        "namespace": "policies",
        "parameterNotFoundAction": "Allow",
    }
    # A list of objects has no ConfigMap form CEL could read back: that constraint is listed.
    run = convert(TEMPLATE + _constraint("  parameters:\n    rules: [{a: 1}]"), params="configmap")
    assert constructs(run) == ["parameters a ConfigMap cannot hold"]


def test_constraints_with_one_name_are_one_object_in_a_cluster() -> None:
    run = convert(
        TEMPLATE + _constraint("  parameters: {tags: [a]}") + _constraint("  parameters: {tags: [b]}")
    )
    assert len(bindings(run)) == 1
    assert any("defined 2 times" in n for c in run.conversions for n in c.notes)


def test_a_template_alone_matches_every_resource_as_gatekeepers_generation_does() -> None:
    run = convert(TEMPLATE)
    assert policy(run)["spec"]["matchConstraints"]["resourceRules"] == [
        {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"], "resources": ["*"]}
    ]
    assert not bindings(run)
