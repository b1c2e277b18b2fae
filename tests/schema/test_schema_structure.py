# ruff: noqa: E501  (exact server messages read best unbroken)
"""Structural checks: unknown/duplicate fields and Go decode type errors, worded like the API server."""

from __future__ import annotations

import pytest

from vap_lsp.schema import get_schema_set
from vap_lsp.schema.structure import StructuralIssue, check_structure
from vap_lsp.text import Span
from vap_lsp.yaml.model import MappingNode, ScalarNode, ScalarStyle, SequenceNode
from vap_lsp.yaml.parse import parse_yaml

AR = "admissionregistration.k8s.io"


def check(text: str, kind: str, version: str = "v1", k8s: str = "1.37") -> list[tuple[str, str, str, str]]:
    """(code, field, message, source text at the span) for each issue."""
    ss = get_schema_set(k8s)
    definition = ss.definition_for_kind(AR, version, kind)
    assert definition is not None
    doc = parse_yaml(text).documents[0]
    assert doc.root is not None
    issues = check_structure(doc.root, ss, definition)
    return [(i.code, i.field, i.message, text[i.span.start : i.span.end]) for i in issues]


VAP_OK = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
  labels: {app: demo, "n": "1"}
  annotations:
    note: "x"
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    matchPolicy: Equivalent
    namespaceSelector:
      matchExpressions:
      - {key: env, operator: In, values: [prod]}
    objectSelector: {}
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments", "deployments/scale"]
      resourceNames: []
      scope: "*"
  matchConditions:
  - name: not-kube-system
    expression: "request.namespace != 'kube-system'"
  variables:
  - name: replicas
    expression: object.spec.replicas
  validations:
  - expression: "variables.replicas <= 5"
    message: too many
    messageExpression: "'got ' + string(variables.replicas)"
    reason: Invalid
  auditAnnotations:
  - key: k
    valueExpression: "'v'"
status:
  observedGeneration: 3
  typeChecking:
    expressionWarnings: []
"""


def test_valid_policy_has_no_issues() -> None:
    assert check(VAP_OK, "ValidatingAdmissionPolicy") == []
    assert check(VAP_OK, "ValidatingAdmissionPolicy", k8s="1.30") == []


def test_unknown_fields_with_indices() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
foo: 1
metadata:
  name: demo
  nam: typo
spec:
  foo: bar
  validations:
  - expression: "true"
  - expression: "true"
    foo: 1
  matchConstraints:
    resourceRules:
    - resources: [pods]
      apiGroup: [""]
"""
    assert check(text, "ValidatingAdmissionPolicy") == [
        ("unknown-field", "foo", 'unknown field "foo"', "foo"),
        ("unknown-field", "metadata.nam", 'unknown field "metadata.nam"', "nam"),
        ("unknown-field", "spec.foo", 'unknown field "spec.foo"', "foo"),
        ("unknown-field", "spec.validations[1].foo", 'unknown field "spec.validations[1].foo"', "foo"),
        (
            "unknown-field",
            "spec.matchConstraints.resourceRules[0].apiGroup",
            'unknown field "spec.matchConstraints.resourceRules[0].apiGroup"',
            "apiGroup",
        ),
    ]


def test_duplicate_fields() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: a
  labels:
    x: "1"
    x: "2"
spec:
  failurePolicy: Fail
  failurePolicy: Ignore
"""
    issues = check(text, "ValidatingAdmissionPolicy")
    assert issues == [
        ("duplicate-field", "metadata.labels.x", 'duplicate field "metadata.labels.x"', "x"),
        ("duplicate-field", "spec.failurePolicy", 'duplicate field "spec.failurePolicy"', "failurePolicy"),
    ]
    # The range is the second key.
    assert text.index("failurePolicy: Ignore") == _spans(text, "ValidatingAdmissionPolicy")[1].start


def _spans(text: str, kind: str) -> list[Span]:
    ss = get_schema_set("1.37")
    definition = ss.definition_for_kind(AR, "v1", kind)
    assert definition
    root = parse_yaml(text).documents[0].root
    assert root is not None
    return [i.span for i in check_structure(root, ss, definition)]


def test_type_errors_validating_admission_policy() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: [a]
  labels: [a]
  annotations: {a: [1]}
  generation: 1.5
  creationTimestamp: 5
spec:
  failurePolicy: [Fail]
  matchConstraints:
    objectSelector: [a]
    namespaceSelector:
      matchLabels: {env: yes}
    resourceRules:
    - operations: [CREATE, 1]
      scope: {}
  validations:
  - expression: [x]
    reason: 5
  - "str"
  auditAnnotations: {}
  variables:
  - name: ok
    expression: yes
status:
  observedGeneration: abc
"""
    gs = "Go struct field"
    assert [(c, f, m) for c, f, m, _ in check(text, "ValidatingAdmissionPolicy")] == [
        (
            "type-mismatch",
            "metadata.name",
            f"json: cannot unmarshal array into {gs} ObjectMeta.metadata.name of type string",
        ),
        (
            "type-mismatch",
            "metadata.labels",
            f"json: cannot unmarshal array into {gs} ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            "type-mismatch",
            "metadata.annotations.a",
            f"json: cannot unmarshal array into {gs} ObjectMeta.metadata.annotations of type string",
        ),
        (
            "type-mismatch",
            "metadata.generation",
            f"json: cannot unmarshal number 1.5 into {gs} ObjectMeta.metadata.generation of type int64",
        ),
        (
            "type-mismatch",
            "metadata.creationTimestamp",
            "json: cannot unmarshal number into Go value of type string",
        ),
        (
            "type-mismatch",
            "spec.failurePolicy",
            f"json: cannot unmarshal array into {gs} ValidatingAdmissionPolicySpec.spec.failurePolicy "
            "of type v1.FailurePolicyType",
        ),
        (
            "type-mismatch",
            "spec.matchConstraints.objectSelector",
            f"json: cannot unmarshal array into {gs} MatchResources.spec.matchConstraints.objectSelector "
            "of type v1.LabelSelector",
        ),
        (
            "type-mismatch",
            "spec.matchConstraints.namespaceSelector.matchLabels.env",
            f"json: cannot unmarshal bool into {gs} "
            "LabelSelector.spec.matchConstraints.namespaceSelector.matchLabels of type string",
        ),
        (
            "type-mismatch",
            "spec.matchConstraints.resourceRules[0].operations[1]",
            f"json: cannot unmarshal number into {gs} "
            "NamedRuleWithOperations.spec.matchConstraints.resourceRules.operations of type v1.OperationType",
        ),
        (
            "type-mismatch",
            "spec.matchConstraints.resourceRules[0].scope",
            f"json: cannot unmarshal object into {gs} "
            "NamedRuleWithOperations.spec.matchConstraints.resourceRules.scope of type v1.ScopeType",
        ),
        (
            "type-mismatch",
            "spec.validations[0].expression",
            f"json: cannot unmarshal array into {gs} Validation.spec.validations.expression of type string",
        ),
        (
            "type-mismatch",
            "spec.validations[0].reason",
            f"json: cannot unmarshal number into {gs} Validation.spec.validations.reason of type v1.StatusReason",
        ),
        (
            "type-mismatch",
            "spec.validations[1]",
            f"json: cannot unmarshal string into {gs} ValidatingAdmissionPolicySpec.spec.validations "
            "of type v1.Validation",
        ),
        (
            "type-mismatch",
            "spec.auditAnnotations",
            f"json: cannot unmarshal object into {gs} ValidatingAdmissionPolicySpec.spec.auditAnnotations "
            "of type []v1.AuditAnnotation",
        ),
        (
            "type-mismatch",
            "spec.variables[0].expression",
            f"json: cannot unmarshal bool into {gs} Variable.spec.variables.expression of type string",
        ),
        (
            "type-mismatch",
            "status.observedGeneration",
            f"json: cannot unmarshal string into {gs} ValidatingAdmissionPolicyStatus.status.observedGeneration "
            "of type int64",
        ),
    ]


def test_type_errors_binding() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: 7
  validationActions: Deny
  paramRef:
    name: p
    parameterNotFoundAction: [Deny]
    selector: "app=x"
  matchResources:
    excludeResourceRules:
    - apiGroups: apps
"""
    gs = "Go struct field"
    assert [(f, m) for _, f, m, _ in check(text, "ValidatingAdmissionPolicyBinding")] == [
        (
            "spec.policyName",
            f"json: cannot unmarshal number into {gs} ValidatingAdmissionPolicyBindingSpec.spec.policyName "
            "of type string",
        ),
        (
            "spec.validationActions",
            f"json: cannot unmarshal string into {gs} ValidatingAdmissionPolicyBindingSpec.spec.validationActions "
            "of type []v1.ValidationAction",
        ),
        (
            "spec.paramRef.parameterNotFoundAction",
            f"json: cannot unmarshal array into {gs} ParamRef.spec.paramRef.parameterNotFoundAction "
            "of type v1.ParameterNotFoundActionType",
        ),
        (
            "spec.paramRef.selector",
            f"json: cannot unmarshal string into {gs} ParamRef.spec.paramRef.selector of type v1.LabelSelector",
        ),
        (
            "spec.matchResources.excludeResourceRules[0].apiGroups",
            f"json: cannot unmarshal string into {gs} "
            "NamedRuleWithOperations.spec.matchResources.excludeResourceRules.apiGroups of type []string",
        ),
    ]


@pytest.mark.parametrize(("version", "k8s"), [("v1", "1.37"), ("v1beta1", "1.35"), ("v1alpha1", "1.33")])
def test_mutating_admission_policy(version: str, k8s: str) -> None:
    text = f"""\
apiVersion: admissionregistration.k8s.io/{version}
kind: MutatingAdmissionPolicy
metadata: {{name: m}}
spec:
  reinvocationPolicy: [Never]
  failurePolicy: 1
  matchConstraints:
    resourceRules:
    - operations: ["CREATE"]
      apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["pods"]
  mutations:
  - patchType: 2
    applyConfiguration:
      expression: "Object{{}}"
      extra: 1
  - patchType: JSONPatch
    jsonPatch: {{expression: "[]"}}
"""
    gs = "Go struct field"
    assert check(text, "MutatingAdmissionPolicy", version, k8s) == [
        (
            "type-mismatch",
            "spec.reinvocationPolicy",
            f"json: cannot unmarshal array into {gs} MutatingAdmissionPolicySpec.spec.reinvocationPolicy "
            "of type v1.ReinvocationPolicyType",
            "[Never]",
        ),
        (
            "type-mismatch",
            "spec.failurePolicy",
            f"json: cannot unmarshal number into {gs} MutatingAdmissionPolicySpec.spec.failurePolicy "
            f"of type {version}.FailurePolicyType",
            "1",
        ),
        (
            "type-mismatch",
            "spec.mutations[0].patchType",
            f"json: cannot unmarshal number into {gs} Mutation.spec.mutations.patchType of type {version}.PatchType",
            "2",
        ),
        (
            "unknown-field",
            "spec.mutations[0].applyConfiguration.extra",
            'unknown field "spec.mutations[0].applyConfiguration.extra"',
            "extra",
        ),
    ]


def test_mutating_binding() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec:
  policyName: m
  validationActions: [Deny]
  paramRef: {name: p, parameterNotFoundAction: Allow}
"""
    assert check(text, "MutatingAdmissionPolicyBinding") == [
        (
            "unknown-field",
            "spec.validationActions",
            'unknown field "spec.validationActions"',
            "validationActions",
        )
    ]


def test_nulls_int_or_string_quantity_and_yaml11() -> None:
    ss = get_schema_set("1.35")
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, labels: ~, namespace: null}
spec:
  replicas: 3.0
  paused: yes
  revisionHistoryLimit: 3000000000
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  template:
    spec:
      containers:
      - name: c
        ports: [{containerPort: "80"}]
        resources:
          limits: {cpu: 500m, memory: 1, nvidia.com/gpu: true}
        livenessProbe:
          httpGet: {port: http, path: /}
          tcpSocket: {port: 1.5}
"""
    root = parse_yaml(text).documents[0].root
    assert root is not None
    issues = check_structure(root, ss, "io.k8s.api.apps.v1.Deployment")
    assert [(i.field, i.message) for i in issues] == [
        (
            "spec.revisionHistoryLimit",
            "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.revisionHistoryLimit "
            "of type int32",
        ),
        (
            "spec.template.spec.containers[0].ports[0].containerPort",
            "json: cannot unmarshal string into Go struct field "
            "ContainerPort.spec.template.spec.containers.ports.containerPort of type int32",
        ),
        (
            "spec.template.spec.containers[0].resources.limits.nvidia.com/gpu",
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ),
        (
            "spec.template.spec.containers[0].livenessProbe.tcpSocket.port",
            "json: cannot unmarshal number 1.5 into Go value of type int32",
        ),
    ]


def test_apiversion_and_kind_types() -> None:
    text = "apiVersion: 1\nkind: [ValidatingAdmissionPolicy]\n"
    assert [(f, m) for _, f, m, _ in check(text, "ValidatingAdmissionPolicy")] == [
        (
            "apiVersion",
            "couldn't get version/kind; json parse error: json: cannot unmarshal number "
            "into Go struct field .apiVersion of type string",
        ),
        (
            "kind",
            "couldn't get version/kind; json parse error: json: cannot unmarshal array "
            "into Go struct field .kind of type string",
        ),
    ]


def test_aliases_and_merge_keys() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: a}
spec:
  validations:
  - &v {expression: "true", message: m}
  - *v
  - <<: *v
    message: override
    bogus: 1
  - <<: *v
    message: [x]
"""
    assert check(text, "ValidatingAdmissionPolicy") == [
        ("unknown-field", "spec.validations[2].bogus", 'unknown field "spec.validations[2].bogus"', "bogus"),
        (
            "type-mismatch",
            "spec.validations[3].message",
            "json: cannot unmarshal array into Go struct field Validation.spec.validations.message of type string",
            "[x]",
        ),
    ]


def test_hand_built_nodes_and_root_type() -> None:
    """Works on any Node tree (no parser needed); a non-mapping root is a plain Go value error."""
    ss = get_schema_set("1.37")
    definition = "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding"

    def scalar(v: str, start: int, style: ScalarStyle = ScalarStyle.PLAIN) -> ScalarNode:
        return ScalarNode(span=Span(start, start + len(v)), value=v, style=style)

    spec = MappingNode(span=Span(10, 30), items=[(scalar("policyName", 10), scalar("true", 22))])
    root = MappingNode(
        span=Span(0, 30), items=[(scalar("spec", 0), spec), (scalar("bad", 40), scalar("x", 45))]
    )
    assert check_structure(root, ss, definition) == [
        StructuralIssue(
            Span(22, 26),
            "json: cannot unmarshal bool into Go struct field ValidatingAdmissionPolicyBindingSpec.spec.policyName "
            "of type string",
            "type-mismatch",
            "spec.policyName",
        ),
        StructuralIssue(Span(40, 43), 'unknown field "bad"', "unknown-field", "bad"),
    ]
    seq = SequenceNode(span=Span(0, 3), items=[])
    assert [i.message for i in check_structure(seq, ss, definition)] == [
        "json: cannot unmarshal array into Go value of type v1.ValidatingAdmissionPolicyBinding"
    ]
    # A quoted "true" is a string, fine for a string field.
    spec.items[0] = (scalar("policyName", 10), scalar("true", 22, ScalarStyle.DOUBLE))
    assert [i.code for i in check_structure(root, ss, definition)] == ["unknown-field"]
    assert check_structure(root, ss, "no.such.Definition") == []


def test_alias_bomb_is_cheap() -> None:
    """Each aliased node is checked once per schema, so 4**12 expansions cost nothing."""
    lines = ["          a0: &a0 {type: string, bogus: 1}"]
    for i in range(1, 13):
        ref = f"*a{i - 1}"
        lines.append(
            f"          a{i}: &a{i} {{type: object, properties: {{a: {ref}, b: {ref}, c: {ref}, d: {ref}}}}}"
        )
    text = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\n"
        "spec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n"
        "        type: object\n        properties:\n" + "\n".join(lines) + "\n"
    )
    ss = get_schema_set("1.35")
    root = parse_yaml(text).documents[0].root
    assert root is not None
    issues = check_structure(
        root, ss, "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    )
    assert [i.field for i in issues] == ["spec.versions[0].schema.openAPIV3Schema.properties.a0.bogus"]
