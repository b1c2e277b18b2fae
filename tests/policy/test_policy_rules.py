# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""Specifications of the server's static validation of the four policy kinds (rules.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ruamel.yaml import YAML

from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.field_errors import ErrorType
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.policy.rules import validate

VAP, VAPB, MAP, MAPB = PolicyKind.VAP, PolicyKind.VAPB, PolicyKind.MAP, PolicyKind.MAPB


def load(text: str) -> dict[str, Any]:
    data = YAML(typ="safe").load(text)
    assert isinstance(data, dict)
    return data


def msgs(
    kind: PolicyKind, obj: dict[str, Any], k8s: str = "1.34", version: str = "v1", defaults: bool = True
) -> list[str]:
    if defaults:
        obj = apply_defaults(kind, version, obj)
    return [e.message() for e in validate(kind, version, obj, k8s)]


VALID_VAP = load(
    """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: demo-policy.example.com}
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments, deployments/scale]
  matchConditions:
  - name: exclude-leases
    expression: "!(request.resource.group == 'coordination.k8s.io')"
  variables:
  - name: replicas
    expression: object.spec.replicas
  validations:
  - expression: variables.replicas <= params.maxReplicas
    message: too many replicas
    reason: Invalid
  auditAnnotations:
  - key: high-replica-count
    valueExpression: "'Deployment spec.replicas set to ' + string(object.spec.replicas)"
"""
)

VALID_VAPB = load(
    """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: demo-binding}
spec:
  policyName: demo-policy.example.com
  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}
  validationActions: [Deny, Audit]
  matchResources:
    namespaceSelector:
      matchExpressions:
      - {key: environment, operator: In, values: [test]}
"""
)

VALID_MAP = load(
    """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: sidecar-policy.example.com}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [pods]
  reinvocationPolicy: IfNeeded
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels/x', value: 'y'}]"
"""
)

VALID_MAPB = load(
    """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: sidecar-binding.example.com}
spec:
  policyName: sidecar-policy.example.com
  paramRef: {selector: {matchLabels: {app: x}}, parameterNotFoundAction: Allow}
  matchResources:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
"""
)

VALID = {VAP: VALID_VAP, VAPB: VALID_VAPB, MAP: VALID_MAP, MAPB: VALID_MAPB}


def with_spec(kind: PolicyKind, **changes: Any) -> dict[str, Any]:
    obj = copy.deepcopy(VALID[kind])
    for key, value in changes.items():
        if value is None:
            obj["spec"].pop(key, None)
        else:
            obj["spec"][key] = value
    return obj


@pytest.mark.parametrize("kind", list(PolicyKind))
@pytest.mark.parametrize("version", ["v1alpha1", "v1beta1", "v1"])
@pytest.mark.parametrize("k8s", ["1.30", "1.33", "1.34", "1.35", "1.36"])
def test_valid_policies_have_no_errors(kind: PolicyKind, version: str, k8s: str) -> None:
    assert msgs(kind, VALID[kind], k8s, version) == []


# ------------------------------------------------------------------ metadata


def test_name_required() -> None:
    obj = copy.deepcopy(VALID_VAP)
    del obj["metadata"]
    assert msgs(VAP, obj) == [
        "metadata.name: Required value: name or generateName is required",
        'spec.auditAnnotations[0].key: Invalid value: "high-replica-count": requires metadata.name be non-empty',
    ]


def test_generate_name_accepted_and_validated() -> None:
    obj = copy.deepcopy(VALID_VAPB)
    obj["metadata"] = {"generateName": "binding-"}
    assert msgs(VAPB, obj) == []
    obj["metadata"] = {"generateName": "Binding-"}
    assert msgs(VAPB, obj) == [
        'metadata.generateName: Invalid value: "Binding-": a lowercase RFC 1123 subdomain must consist of lower '
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]


def test_name_dns_subdomain() -> None:
    obj = copy.deepcopy(VALID_MAPB)
    obj["metadata"]["name"] = "x" * 254
    assert msgs(MAPB, obj) == [
        f'metadata.name: Invalid value: "{"x" * 254}": must be no more than 253 characters'
    ]


def test_metadata_labels_and_annotations() -> None:
    obj = copy.deepcopy(VALID_VAPB)
    obj["metadata"]["labels"] = {"a/b/c": "ok", "k": "bad value"}
    obj["metadata"]["annotations"] = {"Example.COM/Fine": "x", "-bad": "y"}
    assert msgs(VAPB, obj, "1.34") == [
        'metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional "
        "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        'metadata.labels: Invalid value: "bad value": a valid label must be an empty string or consist of '
        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        'metadata.annotations: Invalid value: "-bad": name part must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
        "or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]
    # From 1.35 the content package words it "a valid label key".
    assert msgs(VAPB, obj, "1.35")[0].startswith(
        'metadata.labels: Invalid value: "a/b/c": a valid label key must'
    )


_RESERVED = (
    'names ending with ".static.k8s.io" are reserved for static manifest-based configurations and '
    "cannot be managed via the API"
)


def test_static_suffix_is_a_warning_in_136_and_an_error_from_137() -> None:
    """k8s.io/kubernetes pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go:
    `Validate` appends `ValidateStaticSuffix` when ManifestBasedAdmissionControlConfig is on (beta,
    on by default from 1.37: v1.37.2 kube_features.go), `WarningsOnCreate` warns with
    `WarningsForStaticSuffix` when it is off (alpha, off by default in 1.36: v1.36.3); 1.35 has
    neither (v1.35.4 has no static_suffix.go)."""
    obj = copy.deepcopy(VALID_VAP)
    obj["metadata"]["name"] = "p.static.k8s.io"
    assert msgs(VAP, obj, "1.35") == []
    on_136 = validate(VAP, "v1", apply_defaults(VAP, "v1", obj), "1.36")
    assert [(e.message(), e.server_error) for e in on_136] == [(f"metadata.name: {_RESERVED}", False)]
    for version in ("1.37", "1.38"):
        errs = validate(VAP, "v1", apply_defaults(VAP, "v1", obj), version)
        assert [(e.message(), e.server_error) for e in errs] == [
            (f'metadata.name: Invalid value: "p.static.k8s.io": {_RESERVED}', True)
        ]


# k8s.io/kubernetes pkg/apis/admissionregistration/validation/static_suffix_test.go
# TestValidateStaticSuffix (the error, gate on) and TestWarningsForStaticSuffix (the warning).
STATIC_SUFFIX_CASES = [
    ("valid name without suffix", "my-webhook", False),
    ("valid name with similar suffix", "my-webhook.k8s.io", False),
    ("valid name with partial match", "static.k8s.io.my-webhook", False),
    ("invalid name with static suffix", "my-webhook.static.k8s.io", True),
    # ".static.k8s.io" (TestValidateStaticSuffix "invalid name with only static suffix") and ""
    # ("valid empty name") are no DNS subdomain / no name at all: ObjectMeta validation speaks first.
]


@pytest.mark.parametrize(
    ("case", "name", "reserved"), STATIC_SUFFIX_CASES, ids=[c[0] for c in STATIC_SUFFIX_CASES]
)
@pytest.mark.parametrize("kind", [VAP, VAPB])
def test_static_suffix_table(case: str, name: str, reserved: bool, kind: PolicyKind) -> None:
    obj = copy.deepcopy(VALID_VAP if kind is VAP else VALID_VAPB)
    obj["metadata"]["name"] = name
    for version, server_error in (("1.36", False), ("1.37", True)):
        found = [
            e
            for e in validate(kind, "v1", apply_defaults(kind, "v1", obj), version)
            if _RESERVED in e.message()
        ]
        assert [e.server_error for e in found] == ([server_error] if reserved else []), (case, version)


def test_only_static_suffix_and_empty_name() -> None:
    """The two TestValidateStaticSuffix cases the object's own validation answers first: a name
    that is only the suffix is no DNS subdomain (and also reserved); an empty name is required."""
    obj = copy.deepcopy(VALID_VAP)
    obj["metadata"]["name"] = ".static.k8s.io"
    found = msgs(VAP, obj, "1.37")
    assert found[0].startswith(
        'metadata.name: Invalid value: ".static.k8s.io": a lowercase RFC 1123 subdomain'
    )
    assert found[-1].endswith(_RESERVED)
    obj["metadata"]["name"] = ""
    assert msgs(VAP, obj, "1.37")[0] == "metadata.name: Required value: name or generateName is required"
    assert not any(_RESERVED in m for m in msgs(VAP, obj, "1.37"))


def test_static_suffix_is_rejected_from_137() -> None:
    """ManifestBasedAdmissionControlConfig is beta and on by default in 1.37
    (apiserver/pkg/features/kube_features.go): the strategies add ValidateStaticSuffix's error
    (registry/admissionregistration/validatingadmissionpolicy/strategy.go `Validate`); the
    oracle reports it for kubernetes__website's manifest-admission-control examples."""
    obj = copy.deepcopy(VALID_VAP)
    obj["metadata"]["name"] = "p.static.k8s.io"
    errs = validate(VAP, "v1", apply_defaults(VAP, "v1", obj), "1.37")
    assert [(e.message(), e.server_error) for e in errs] == [
        (
            'metadata.name: Invalid value: "p.static.k8s.io": names ending with ".static.k8s.io" are reserved '
            "for static manifest-based configurations and cannot be managed via the API",
            True,
        )
    ]


def test_owner_references() -> None:
    """apimachinery api/validation/objectmeta.go `validateOwnerReference`, as in its
    objectmeta_test.go TestValidateObjectMetaOwnerReferences: every reference needs apiVersion
    (a valid group/version), kind, name and uid. Found by the oracle on kyverno's chainsaw files."""
    obj = copy.deepcopy(VALID_VAP)
    obj["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "1"},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "c"},
        {"apiVersion": "a/b/c", "kind": "", "uid": "2"},
        {"apiVersion": "apps/", "kind": "K", "name": "n", "uid": "3"},
        {},
    ]
    assert msgs(VAP, obj, "1.37") == [
        "metadata.ownerReferences[1].uid: Required value: must not be empty",
        'metadata.ownerReferences[2].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>',
        "metadata.ownerReferences[2].kind: Required value: must not be empty",
        "metadata.ownerReferences[2].name: Required value: must not be empty",
        'metadata.ownerReferences[3].apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>',
        "metadata.ownerReferences[4].apiVersion: Required value: must not be empty",
        "metadata.ownerReferences[4].kind: Required value: must not be empty",
        "metadata.ownerReferences[4].name: Required value: must not be empty",
        "metadata.ownerReferences[4].uid: Required value: must not be empty",
    ]


def test_finalizers_are_qualified_names() -> None:
    """apimachinery `ValidateFinalizers` / `ValidateFinalizerName` (IsQualifiedName)."""
    obj = copy.deepcopy(VALID_VAP)
    obj["metadata"]["finalizers"] = ["example.com/ok", "bad name"]
    assert msgs(VAP, obj, "1.34") == [
        'metadata.finalizers: Invalid value: "bad name": name part must consist of alphanumeric characters, '
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    ]


# ------------------------------------------------------------------ VAP


def test_undefaulted_vap_requires_defaulted_fields() -> None:
    obj = with_spec(VAP, failurePolicy=None)
    del obj["spec"]["matchConstraints"]["resourceRules"][0]["operations"]
    assert msgs(VAP, obj, defaults=False) == [
        "spec.failurePolicy: Required value",
        "spec.matchConstraints.matchPolicy: Required value",
        "spec.matchConstraints.namespaceSelector: Required value",
        "spec.matchConstraints.objectSelector: Required value",
        "spec.matchConstraints.resourceRules[0].operations: Required value",
    ]


def test_failure_policy_unsupported() -> None:
    assert msgs(VAP, with_spec(VAP, failurePolicy="other")) == [
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'
    ]


def test_empty_spec() -> None:
    obj = {"metadata": {"name": "config"}, "spec": {}}
    assert (
        msgs(VAP, obj)
        == [
            "spec.failurePolicy: Required value",
            "spec.matchConstraints: Required value",
            "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
            "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
        ][1:]
    )  # failurePolicy is defaulted


def test_match_constraints_resource_rules_required() -> None:
    assert msgs(VAP, with_spec(VAP, matchConstraints={})) == [
        "spec.matchConstraints.resourceRules: Required value"
    ]


def test_match_policy_unsupported() -> None:
    mc = copy.deepcopy(VALID_VAP["spec"]["matchConstraints"])
    mc["matchPolicy"] = "other"
    assert msgs(VAP, with_spec(VAP, matchConstraints=mc)) == [
        'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"'
    ]


def rule_errors(rule: dict[str, Any], k8s: str = "1.34") -> list[str]:
    base = {"apiGroups": ["a"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["a"]}
    base.update(rule)
    return msgs(VAP, with_spec(VAP, matchConstraints={"resourceRules": [base]}), k8s)


P = "spec.matchConstraints.resourceRules[0]"


def test_rule_operations() -> None:
    assert rule_errors({"operations": []}) == [f"{P}.operations: Required value"]
    assert rule_errors({"operations": ["CREATE", ""]}) == [
        f'{P}.operations[1]: Unsupported value: "": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'
    ]
    assert rule_errors({"operations": ["PATCH"]}) == [
        f'{P}.operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", '
        '"UPDATE"'
    ]
    assert rule_errors({"operations": ["CREATE", "*"]}) == [
        f'{P}.operations: Invalid value: ["CREATE","*"]: if \'*\' is present, must not specify other operations'
    ]
    assert rule_errors({"operations": ["CREATE", "*"]}, "1.33") == [
        f'{P}.operations: Invalid value: []admissionregistration.OperationType{{"CREATE", "*"}}: '
        "if '*' is present, must not specify other operations"
    ]


def test_rule_groups_versions() -> None:
    assert rule_errors({"apiGroups": [], "apiVersions": []}) == [
        f"{P}.apiGroups: Required value",
        f"{P}.apiVersions: Required value",
    ]
    assert rule_errors({"apiGroups": ["*", "apps"], "apiVersions": ["*", "v1", ""]}) == [
        f'{P}.apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
        f'{P}.apiVersions: Invalid value: ["*","v1",""]: if \'*\' is present, must not specify other API versions',
        f"{P}.apiVersions[2]: Required value",
    ]
    assert rule_errors({"apiGroups": ["*", "apps"]}, "1.30")[0] == (
        f'{P}.apiGroups: Invalid value: []string{{"*", "apps"}}: if \'*\' is present, must not specify other '
        "API groups"
    )


def test_rule_resources() -> None:
    r = f"{P}.resources"
    assert rule_errors({"resources": []}) == [f"{r}: Required value"]
    assert rule_errors({"resources": ["", "pods"]}) == [f"{r}[0]: Required value"]
    assert rule_errors({"resources": ["a/*", "a/x"]}) == [
        f"{r}[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x"
    ]
    assert rule_errors({"resources": ["*/x", "a/x"]}) == [
        f"{r}[1]: Invalid value: \"a/x\": if '*/x' is present, must not specify a/x"
    ]
    assert rule_errors({"resources": ["*/*", "a"]}) == [
        f'{r}: Invalid value: ["*/*","a"]: if \'*/*\' is present, must not specify other resources'
    ]
    assert rule_errors({"resources": ["*", "a"]}) == [
        f'{r}: Invalid value: ["*","a"]: if \'*\' is present, must not specify other resources without subresources'
    ]
    # "*" may coexist with subresources.
    assert rule_errors({"resources": ["*", "a/b", "a/*", "*/b"]}) == []
    # Server quirk: only the last plain entry counts, so ["a", "*"] passes.
    assert rule_errors({"resources": ["a", "*"]}) == []


def test_rule_scope_and_resource_names() -> None:
    assert rule_errors({"scope": "Global"}) == [
        f'{P}.scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"'
    ]
    assert rule_errors({"resourceNames": ["/./.", "test", "test", ".."]}) == [
        f"{P}.resourceNames[0]: Invalid value: \"/./.\": may not contain '/'",
        f'{P}.resourceNames[2]: Duplicate value: "test"',
        f"{P}.resourceNames[3]: Invalid value: \"..\": may not be '..'",
    ]


def test_exclude_rules_are_validated() -> None:
    mc = copy.deepcopy(VALID_VAP["spec"]["matchConstraints"])
    mc["excludeResourceRules"] = [{"apiGroups": ["a"], "apiVersions": ["v1"], "resources": ["x"]}]
    assert msgs(VAP, with_spec(VAP, matchConstraints=mc)) == [
        "spec.matchConstraints.excludeResourceRules[0].operations: Required value"
    ]


def test_wrong_types_are_skipped() -> None:
    assert rule_errors({"operations": "CREATE"}) == []
    assert msgs(VAP, with_spec(VAP, validations="x", auditAnnotations=None)) == []
    obj = copy.deepcopy(VALID_VAP)
    obj["spec"] = ["not", "a", "map"]
    assert msgs(VAP, obj) == []


def test_label_selectors() -> None:
    mc = copy.deepcopy(VALID_VAP["spec"]["matchConstraints"])
    mc["namespaceSelector"] = {
        "matchExpressions": [
            {"key": "a", "operator": "In"},
            {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "c", "operator": "Equals", "values": ["x y"]},
        ]
    }
    mc["objectSelector"] = {"matchLabels": {"ok": "-x"}}
    ns = "spec.matchConstraints.namespaceSelector.matchExpressions"
    assert msgs(VAP, with_spec(VAP, matchConstraints=mc)) == [
        f"{ns}[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        f"{ns}[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        f'{ns}[2].operator: Invalid value: "Equals": not a valid selector operator',
        f'{ns}[2].values[0]: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
        "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        'spec.matchConstraints.objectSelector.matchLabels: Invalid value: "-x": a valid label must be an empty '
        "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]


def test_label_value_too_long_bytes_from_135() -> None:
    mc = copy.deepcopy(VALID_VAP["spec"]["matchConstraints"])
    mc["objectSelector"] = {"matchLabels": {"k": "v" * 64}}
    p = "spec.matchConstraints.objectSelector.matchLabels"
    assert msgs(VAP, with_spec(VAP, matchConstraints=mc), "1.34") == [
        f'{p}: Invalid value: "{"v" * 64}": must be no more than 63 characters'
    ]
    assert msgs(VAP, with_spec(VAP, matchConstraints=mc), "1.35") == [
        f'{p}: Invalid value: "{"v" * 64}": must be no more than 63 bytes'
    ]


def test_param_kind() -> None:
    pk = "spec.paramKind"
    assert msgs(VAP, with_spec(VAP, paramKind={"kind": "Example", "apiVersion": "test.example.com"})) == [
        f'{pk}.apiVersion: Invalid value: "test.example.com": a DNS-1035 label must consist of lower case '
        "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
        "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]
    assert msgs(VAP, with_spec(VAP, paramKind={"apiVersion": "test.example.com/v1"})) == [
        f"{pk}.kind: Required value"
    ]
    assert msgs(VAP, with_spec(VAP, paramKind={"kind": "X"})) == [f"{pk}.apiVersion: Required value"]
    assert msgs(VAP, with_spec(VAP, paramKind={"kind": "X", "apiVersion": "a/b/c"})) == [
        f'{pk}.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'
    ]
    assert msgs(VAP, with_spec(VAP, paramKind={"kind": "X", "apiVersion": "example.com/"})) == [
        f'{pk}.apiVersion: Invalid value: "example.com/": version must be specified'
    ]
    assert msgs(VAP, with_spec(VAP, paramKind={"kind": "Bad_Kind", "apiVersion": "v1"})) == [
        f'{pk}.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label '
        "must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end "
        "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]
    group_err = msgs(VAP, with_spec(VAP, paramKind={"kind": "X", "apiVersion": "!!!/v1"}))
    assert group_err[0].startswith(f'{pk}.apiVersion: Invalid value: "!!!": a lowercase RFC 1123 subdomain')


def test_match_conditions() -> None:
    conds = [
        {"name": "a", "expression": "true"},
        {"name": "a", "expression": " "},
        {"name": "", "expression": "true"},
        {"name": "-x", "expression": "true"},
    ]
    out = msgs(VAP, with_spec(VAP, matchConditions=conds))
    assert out[:3] == [
        "spec.matchConditions[1].expression: Required value",
        'spec.matchConditions[1].name: Duplicate value: "a"',
        "spec.matchConditions[2].name: Required value",
    ]
    assert out[3].startswith('spec.matchConditions[3].name: Invalid value: "-x": name part must consist of')
    many = [{"name": f"c{i}", "expression": "true"} for i in range(65)]
    assert msgs(VAP, with_spec(VAP, matchConditions=many)) == [
        "spec.matchConditions: Too many: 65: must have at most 64 items"
    ]


def test_variables() -> None:
    variables = [
        {"name": "", "expression": "1"},
        {"name": "in", "expression": "1"},
        {"name": "x-y", "expression": "  "},
        {"name": "ok", "expression": "1"},
        {"name": "ok", "expression": "2"},
    ]
    v = "spec.variables"
    expected_new = [
        f"{v}[0].name: Required value: name is not specified",
        f'{v}[1].name: Invalid value: "in": must be a valid CEL identifier',
        f'{v}[2].name: Invalid value: "x-y": must be a valid CEL identifier',
        f"{v}[2].expression: Required value: expression is not specified",
        f'{v}[4].name: Duplicate value: "ok"',
    ]
    assert msgs(VAP, with_spec(VAP, variables=variables)) == expected_new
    assert msgs(VAP, with_spec(VAP, variables=variables), "1.33")[1] == (
        f'{v}[1].name: Invalid value: "in": name is not a valid CEL identifier'
    )
    errs = validate(VAP, "v1", apply_defaults(VAP, "v1", with_spec(VAP, variables=variables)), "1.34")
    assert [e.server_error for e in errs] == [True, True, True, True, False]
    assert errs[-1].type is ErrorType.DUPLICATE


def test_validations() -> None:
    validations = [
        {},
        {"expression": "true", "messageExpression": "  "},
        {"expression": "true", "message": "  "},
        {"expression": "true", "message": "a\nb"},
        {"expression": "true", "message": "trailing\n"},
        {"expression": "true", "reason": "Unauthorized"},
        {"expression": "a ||\n b"},
    ]
    v = "spec.validations"
    assert msgs(VAP, with_spec(VAP, validations=validations)) == [
        f"{v}[0].expression: Required value: expression is not specified",
        f'{v}[1].messageExpression: Invalid value: "  ": must be non-empty if specified',
        f'{v}[2].message: Invalid value: "  ": must be non-empty if specified',
        f'{v}[3].message: Invalid value: "a\\nb": must not contain line breaks',
        f'{v}[5].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", '
        '"RequestEntityTooLarge"',
    ]
    assert msgs(VAP, with_spec(VAP, validations=validations), "1.33")[2:4] == [
        f'{v}[2].message: Invalid value: "  ": message must be non-empty if specified',
        f'{v}[3].message: Invalid value: "a\\nb": message must not contain line breaks',
    ]


def test_validations_and_audit_annotations_both_empty() -> None:
    detail = "validations or auditAnnotations must contain at least one item"
    assert msgs(VAP, with_spec(VAP, validations=[], auditAnnotations=None)) == [
        f"spec.validations: Required value: {detail}",
        f"spec.auditAnnotations: Required value: {detail}",
    ]


def test_audit_annotations() -> None:
    aa = [
        {"key": "good", "valueExpression": "'x'"},
        {"key": "good", "valueExpression": " "},
        {"key": "bad key", "valueExpression": "'" + "x" * 5200 + "'"},
    ]
    a = "spec.auditAnnotations"
    out = msgs(VAP, with_spec(VAP, validations=None, auditAnnotations=aa))
    assert out[0] == f"{a}[1].valueExpression: Required value: valueExpression is not specified"
    assert out[1] == f'{a}[1].key: Duplicate value: "good"'
    assert out[2].startswith(
        f'{a}[2].key: Invalid value: "demo-policy.example.com/bad key": name part must consist'
    )
    assert out[3] == f"{a}[2].valueExpression: Required value: must not exceed 5120 bytes in length"
    assert len(out) == 4

    obj = with_spec(VAP, auditAnnotations=[{"key": "k", "valueExpression": "'v'"}])
    obj["metadata"] = {"generateName": ""}
    assert msgs(VAP, obj) == [
        "metadata.name: Required value: name or generateName is required",
        f'{a}[0].key: Invalid value: "k": requires metadata.name be non-empty',
    ]


def test_too_many_audit_annotations() -> None:
    aa = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(21)]
    out = msgs(VAP, with_spec(VAP, auditAnnotations=aa))
    rows = ",".join(f'{{"Key":"k{i}","ValueExpression":"\'v\'"}}' for i in range(21))
    assert out == [
        f"spec.auditAnnotations: Invalid value: [{rows}]: must not have more than 20 auditAnnotations"
    ]
    old = msgs(VAP, with_spec(VAP, auditAnnotations=aa[:21]), "1.33")
    assert old[0].startswith(
        "spec.auditAnnotations: Invalid value: []admissionregistration.AuditAnnotation{admissionregistration."
        'AuditAnnotation{Key:"k0", ValueExpression:"\'v\'"}, '
    )


# ------------------------------------------------------------------ VAPB


def test_binding_policy_name() -> None:
    assert msgs(VAPB, with_spec(VAPB, policyName=None)) == ["spec.policyName: Required value"]
    assert msgs(VAPB, with_spec(VAPB, policyName="Bad"))[0].startswith(
        'spec.policyName: Invalid value: "Bad": a lowercase RFC 1123 subdomain'
    )


def test_param_ref() -> None:
    p = "spec.paramRef"
    both = {"name": "a", "selector": {}, "parameterNotFoundAction": "Deny"}
    assert msgs(VAPB, with_spec(VAPB, paramRef=both)) == [
        f"{p}.name: Forbidden: name and selector are mutually exclusive",
        f"{p}.selector: Forbidden: name and selector are mutually exclusive",
    ]
    assert msgs(VAPB, with_spec(VAPB, paramRef={"parameterNotFoundAction": "Deny"})) == [
        f"{p}: Required value: one of name or selector must be specified"
    ]
    assert msgs(VAPB, with_spec(VAPB, paramRef={"name": "a/b"})) == [
        f"{p}.name: Invalid value: \"a/b\": may not contain '/'",
        f"{p}.parameterNotFoundAction: Required value",
    ]
    assert msgs(VAPB, with_spec(VAPB, paramRef={"name": "a", "parameterNotFoundAction": "Ignore"})) == [
        f'{p}.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"'
    ]
    sel = {
        "selector": {"matchExpressions": [{"key": "k", "operator": "In"}]},
        "parameterNotFoundAction": "Deny",
    }
    assert msgs(VAPB, with_spec(VAPB, paramRef=sel)) == [
        f"{p}.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
        "'NotIn'"
    ]


def test_param_ref_v1alpha1_defaults_not_found_action() -> None:
    obj = with_spec(VAPB, paramRef={"name": "a"})
    assert msgs(VAPB, obj, version="v1alpha1") == []
    assert msgs(VAPB, obj, version="v1beta1") == ["spec.paramRef.parameterNotFoundAction: Required value"]


def test_validation_actions() -> None:
    va = "spec.validationActions"
    assert msgs(VAPB, with_spec(VAPB, validationActions=None)) == [
        f"{va}: Required value: at least one validation action is required"
    ]
    # 1.37: the handwritten error is MarkCoveredByDeclarative and declarative validation answers
    # (validation.go validateValidationActions; the oracle's rest.ValidateCreate).
    assert msgs(VAPB, with_spec(VAPB, validationActions=None), "1.37") == [f"{va}: Required value"]
    assert msgs(VAPB, with_spec(VAPB, validationActions=["Deny", "Warn", "Deny", "Block"])) == [
        f'{va}[2]: Duplicate value: "Deny"',
        f'{va}[3]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
        f'{va}: Invalid value: ["Deny","Warn","Deny","Block"]: must not contain both Deny and Warn (repeating the '
        "same validation failure information in the API response and headers serves no purpose)",
    ]
    assert msgs(VAPB, with_spec(VAPB, validationActions=["Deny", "Warn"]), "1.33") == [
        f'{va}: Invalid value: []admissionregistration.ValidationAction{{"Deny", "Warn"}}: must not contain both '
        "Deny and Warn (repeating the same validation failure information in the API response and headers serves "
        "no purpose)"
    ]


def test_binding_match_resources_path_typo_before_132() -> None:
    mr = {"matchPolicy": "Fuzzy"}
    expected = 'Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"'
    assert msgs(VAPB, with_spec(VAPB, matchResources=mr), "1.31") == [
        f"spec.matchResouces.matchPolicy: {expected}"
    ]
    assert msgs(VAPB, with_spec(VAPB, matchResources=mr), "1.34") == [
        f"spec.matchResources.matchPolicy: {expected}"
    ]
    errs = validate(VAPB, "v1", apply_defaults(VAPB, "v1", with_spec(VAPB, matchResources=mr)), "1.31")
    assert errs[0].path == ("spec", "matchResources", "matchPolicy")


def test_binding_match_resources_empty_rules_allowed() -> None:
    assert msgs(VAPB, with_spec(VAPB, matchResources={})) == []


# ------------------------------------------------------------------ MAP / MAPB


def test_map_no_delete() -> None:
    mc = {
        "resourceRules": [
            {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["DELETE"], "resources": ["pods"]}
        ]
    }
    assert msgs(MAP, with_spec(MAP, matchConstraints=mc), version="v1beta1") == [
        'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", '
        '"CONNECT", "CREATE", "UPDATE"'
    ]
    assert msgs(MAPB, with_spec(MAPB, matchResources=mc), version="v1beta1") == [
        'spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", '
        '"CONNECT", "CREATE", "UPDATE"'
    ]


def test_map_mutations() -> None:
    m = "spec.mutations"
    assert msgs(MAP, with_spec(MAP, mutations=[])) == [
        f"{m}: Required value: mutations must contain at least one item"
    ]
    mutations = [
        {},
        {"patchType": "JSONPatch"},
        {"patchType": "ApplyConfiguration"},
        {
            "patchType": "JSONPatch",
            "jsonPatch": {"expression": " "},
            "applyConfiguration": {"expression": "x"},
        },
        {"patchType": "ApplyConfiguration", "applyConfiguration": {}, "jsonPatch": {"expression": "x"}},
        {"patchType": "Merge"},
    ]
    assert msgs(MAP, with_spec(MAP, mutations=mutations)) == [
        f"{m}[0].patchType: Required value",
        f"{m}[1].jsonPatch: Required value: must be specified when patchType is JSONPatch",
        f"{m}[2].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration",
        f"{m}[3].jsonPatch.expression: Required value",
        f'{m}[3].applyConfiguration: Invalid value: "{{applyConfiguration}}": must not be specified when patchType '
        "is JSONPatch",
        f"{m}[4].applyConfiguration.expression: Required value",
        f'{m}[4].jsonPatch: Invalid value: "{{jsonPatch}}": must not be specified when patchType is '
        "ApplyConfiguration",
        f'{m}[5].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
    ]


def test_map_reinvocation_policy_not_defaulted() -> None:
    assert msgs(MAP, with_spec(MAP, reinvocationPolicy=None)) == ["spec.reinvocationPolicy: Required value"]
    assert msgs(MAP, with_spec(MAP, reinvocationPolicy="Always")) == [
        'spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'
    ]


def test_map_shared_rules() -> None:
    obj = with_spec(MAP, failurePolicy="Never", paramKind={"apiVersion": "v1"}, variables=[{"name": "1x"}])
    assert msgs(MAP, obj) == [
        'spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"',
        "spec.paramKind.kind: Required value",
        'spec.variables[0].name: Invalid value: "1x": must be a valid CEL identifier',
        "spec.variables[0].expression: Required value: expression is not specified",
    ]


def test_mapb_rules() -> None:
    assert msgs(MAPB, with_spec(MAPB, policyName=None, paramRef={"name": "."})) == [
        "spec.policyName: Required value",
        "spec.paramRef.name: Invalid value: \".\": may not be '.'",
        "spec.paramRef.parameterNotFoundAction: Required value",
    ]


def test_on_key_for_required() -> None:
    errs = validate(VAP, "v1", {"metadata": {"name": "x"}, "spec": {}}, "1.34")
    assert all(e.on_key for e in errs if e.type is ErrorType.REQUIRED)


def test_messages_are_deduplicated() -> None:
    # Two identical label errors on the same path render once (ErrorList.ToAggregate).
    obj = copy.deepcopy(VALID_VAPB)
    obj["metadata"]["labels"] = {"a": "-", "b": "-"}
    assert len(msgs(VAPB, obj)) == 1
