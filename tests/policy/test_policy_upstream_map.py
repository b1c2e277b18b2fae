# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation_test.go,
`TestValidateMutatingAdmissionPolicy`, re-typed (read, not copied) and run through the policy rules
for a v1alpha1 MutatingAdmissionPolicy of Kubernetes 1.33, the era of the Go test's texts (bad
slice values printed with Go's `%#v`; from 1.34 they print as JSON, checked below for v1beta1). As
upstream, each case asserts that the aggregated error string contains `expected` ("" = no error at
all); the objects are the test's undefaulted structs.

Reasoned differences (the Go test is written against the internal type of the first alpha design,
which the served v1alpha1/v1beta1 API does not have):
- its `Mutation{Expression, PatchType}` is written here as the served
  `{patchType: ApplyConfiguration, applyConfiguration: {expression}}`;
- "Invalid Validations Reason" (`spec.mutations[0].reason`), "invalid messageExpression" and
  "messageExpression of wrong type" set fields a served Mutation has no schema for (the server drops
  unknown fields before validating). The compile-error path they check is checked instead on the
  served expression field (`applyConfiguration.expression`), with the server's `Invalid value:
  "<expression>": compilation failed: …` form, in tests/analysis/test_cel_upstream_validation.py
  with the other CEL cases ("match condition with parameters …"): the policy rules do not compile;
- "expression is required" expects the old `spec.mutations[0].expression: Required value:
  expression is not specified`; the served field gives `…applyConfiguration.expression: Required
  value` (validatePatchExpression's `field.Required(path, "")`); "patchType required" expects
  `Required value: patchType must be specified` and vap-lsp gives the bare
  `spec.mutations[0].patchType: Required value` of validateMutation for the served type (the
  served release's detail text is not re-checked here: an open question, not a settled one);
- the cases that must pass name no `reinvocationPolicy`: the served API defaults it to `Never`
  before validation (SetDefaults_MutatingAdmissionPolicySpec), written out here.
"""

from __future__ import annotations

from typing import Any

import pytest

from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.policy.rules import validate

MUTATIONS = [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "object.x < 100"}}]
RULE_A = {"apiGroups": ["a"], "apiVersions": ["a"], "resources": ["a"]}
SELECTORS = {"namespaceSelector": {"matchLabels": {"a": "b"}}, "objectSelector": {"matchLabels": {"a": "b"}}}


def aggregate(
    spec: dict[str, Any], name: str = "config", version: tuple[str, str] = ("v1alpha1", "1.33")
) -> str:
    api_version, k8s = version
    errs = validate(PolicyKind.MAP, api_version, {"metadata": {"name": name}, "spec": spec}, k8s)
    messages = [e.message() for e in errs]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]" if messages else ""


def rules(resources: list[str], operations: list[str] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "operations": operations or ["CREATE"],
            "apiGroups": ["a"],
            "apiVersions": ["a"],
            "resources": resources,
        }
    ]


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "failure policy validation",
        {"failurePolicy": "other", "mutations": MUTATIONS},
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
    ),
    (
        "patchType validation",
        {"failurePolicy": "other"},
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
    ),
    (
        "API version is required in ParamKind",
        {"mutations": MUTATIONS, "paramKind": {"kind": "Example", "apiVersion": "test.example.com"}},
        'spec.paramKind.apiVersion: Invalid value: "test.example.com"',
    ),
    (
        "API kind is required in ParamKind",
        {"mutations": MUTATIONS, "paramKind": {"apiVersion": "test.example.com/v1"}},
        "spec.paramKind.kind: Required value",
    ),
    (
        "API version format in ParamKind",
        {"mutations": MUTATIONS, "paramKind": {"kind": "Example", "apiVersion": "test.example.com/!!!"}},
        'pec.paramKind.apiVersion: Invalid value: "!!!":',
    ),
    (
        "API group format in ParamKind",
        {"mutations": MUTATIONS, "paramKind": {"apiVersion": "!!!/v1", "kind": "ReplicaLimit"}},
        'pec.paramKind.apiVersion: Invalid value: "!!!":',
    ),
    (
        "Validations is required",
        {},
        "spec.failurePolicy: Required value, spec.matchConstraints: Required value, spec.mutations: Required value: mutations must contain at least one item",
    ),
    ("MatchConstraints is required", {"mutations": MUTATIONS}, "spec.matchConstraints: Required value"),
    (
        "matchConstraints.resourceRules is required",
        {"mutations": MUTATIONS, "matchConstraints": {}},
        "spec.matchConstraints.resourceRules: Required value",
    ),
    (
        "matchConstraints.resourceRules has at least one explicit rule",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}},
        "spec.matchConstraints.resourceRules[0].apiVersions: Required value",
    ),
    (
        "expression is required (served shape)",
        {"mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {}}]},
        "spec.mutations[0].applyConfiguration.expression: Required value",
    ),
    (
        "matchResources resourceNames check",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}},
        'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./."',
    ),
    (
        "matchResources resourceNames cannot duplicate",
        {
            "mutations": MUTATIONS,
            "matchConstraints": {"resourceRules": [{"resourceNames": ["test", "test"]}]},
        },
        'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"',
    ),
    (
        "matchResources validation: matchPolicy",
        {"mutations": MUTATIONS, "matchConstraints": {"matchPolicy": "other"}},
        'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"',
    ),
    (
        "Operations must not be empty or nil",
        {
            "mutations": MUTATIONS,
            "failurePolicy": "Fail",
            "matchConstraints": {
                **SELECTORS,
                "matchPolicy": "Exact",
                "resourceRules": [{"operations": [], **RULE_A}, {"operations": None, **RULE_A}],
                "excludeResourceRules": [{"operations": [], **RULE_A}, {"operations": None, **RULE_A}],
            },
        },
        "spec.matchConstraints.resourceRules[0].operations: Required value, "
        "spec.matchConstraints.resourceRules[1].operations: Required value, "
        "spec.matchConstraints.excludeResourceRules[0].operations: Required value, "
        "spec.matchConstraints.excludeResourceRules[1].operations: Required value",
    ),
    (
        '"" is NOT a valid operation',
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["a"], ["CREATE", ""])}},
        'Unsupported value: ""',
    ),
    (
        "operation must be either create/update/delete/connect",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["a"], ["PATCH"])}},
        'Unsupported value: "PATCH"',
    ),
    (
        "wildcard operation cannot be mixed with other strings",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["a"], ["CREATE", "*"])}},
        "if '*' is present, must not specify other operations",
    ),
    (
        'resource "*" can co-exist with resources that have subresources',
        {
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "mutations": MUTATIONS,
            "matchConstraints": {
                "matchPolicy": "Exact",
                **SELECTORS,
                "resourceRules": rules(["*", "a/b", "a/*", "*/b"]),
            },
        },
        "",
    ),
    (
        'resource "*" cannot mix with resources that don\'t have subresources',
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["*", "a"])}},
        "if '*' is present, must not specify other resources without subresources",
    ),
    (
        "resource a/* cannot mix with a/x",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["a/*", "a/x"])}},
        "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
    ),
    (
        "resource a/* can mix with a",
        {
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "mutations": MUTATIONS,
            "matchConstraints": {"matchPolicy": "Exact", **SELECTORS, "resourceRules": rules(["a/*", "a"])},
        },
        "",
    ),
    (
        "resource */a cannot mix with x/a",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["*/a", "x/a"])}},
        "spec.matchConstraints.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a",
    ),
    (
        "resource */* cannot mix with other resources",
        {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["*/*", "a"])}},
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: []string{"*/*", "a"}: if \'*/*\' is present, must not specify other resources',
    ),
    (
        "patchType required (served wording)",
        {
            "mutations": [{"applyConfiguration": {"expression": "true"}}],
            "matchConstraints": {"resourceRules": rules(["*/*"])},
        },
        "spec.mutations[0].patchType: Required value",
    ),
    (
        "single match condition must have a name",
        {"matchConditions": [{"expression": "true"}], "mutations": MUTATIONS},
        "spec.matchConditions[0].name: Required value",
    ),
]


@pytest.mark.parametrize(("name", "spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_upstream_case(name: str, spec: dict[str, Any], expected: str) -> None:
    got = aggregate(spec)
    assert expected in got if expected else got == ""


def test_upstream_metadata_name() -> None:
    """TestValidateMutatingAdmissionPolicy "metadata.name validation"."""
    assert 'metadata.name: Invalid value: "!!!!":' in aggregate({}, name="!!!!")


def test_upstream_slice_value_as_json_from_1_34() -> None:
    """ "resource */* cannot mix with other resources" on v1beta1 (1.34): the value prints as JSON."""
    spec = {"mutations": MUTATIONS, "matchConstraints": {"resourceRules": rules(["*/*", "a"])}}
    assert (
        'spec.matchConstraints.resourceRules[0].resources: Invalid value: ["*/*","a"]: if \'*/*\' is present, must not specify other resources'
        in aggregate(spec, version=("v1beta1", "1.34"))
    )


# TestValidateMutatingAdmissionPolicyBinding (same file). The Go test expects the binding's match
# resources under the misspelt path `spec.matchResouces`; vap-lsp prints that spelling up to 1.31
# only (rules.py: "assumed fixed from 1.32, when MAP validation … was added. Best inference, not
# verified against a 1.32 tag"). This Go test, from the commit that added MAP validation, is
# evidence against that inference for MAP bindings; which release fixed the typo is not settled
# here, so those cases stay strict expected failures (they fail loudly once the rule changes).
TYPO_OPEN = pytest.mark.xfail(
    strict=True, reason="Go test prints spec.matchResouces; the release that fixed the typo is unverified"
)
PARAM_REF = {"name": "xyzlimit-scale-setting.example.com", "parameterNotFoundAction": "Deny"}


def binding(
    match: dict[str, Any] | None = None, policy: str = "xyzlimit-scale.example.com"
) -> dict[str, Any]:
    spec: dict[str, Any] = {"policyName": policy, "paramRef": PARAM_REF} if policy else {}
    if match is not None:
        spec["matchResources"] = match
    return spec


def binding_aggregate(spec: dict[str, Any], name: str = "config") -> str:
    errs = validate(PolicyKind.MAPB, "v1alpha1", {"metadata": {"name": name}, "spec": spec}, "1.33")
    messages = [e.message() for e in errs]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]" if messages else ""


EXACT = {"matchPolicy": "Exact", **SELECTORS}
BINDING_CASES: list[Any] = [
    ("PolicyName is required", binding(policy=""), "spec.policyName: Required value"),
    pytest.param(
        "matchResources validation: matchPolicy",
        binding({"matchPolicy": "other"}),
        'spec.matchResouces.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"',
        marks=TYPO_OPEN,
    ),
    pytest.param(
        "Operations must not be empty or nil",
        binding(
            {
                "resourceRules": [{"operations": [], **RULE_A}, {"operations": None, **RULE_A}],
                "excludeResourceRules": [{"operations": [], **RULE_A}, {"operations": None, **RULE_A}],
            }
        ),
        "spec.matchResouces.resourceRules[0].operations: Required value, spec.matchResouces.resourceRules[1].operations: Required value, spec.matchResouces.excludeResourceRules[0].operations: Required value, spec.matchResouces.excludeResourceRules[1].operations: Required value",
        marks=TYPO_OPEN,
    ),
    (
        '"" is NOT a valid operation',
        binding({"resourceRules": rules(["a"], ["CREATE", ""])}),
        'Unsupported value: ""',
    ),
    (
        "operation must be either create/update/delete/connect",
        binding({"resourceRules": rules(["a"], ["PATCH"])}),
        'Unsupported value: "PATCH"',
    ),
    (
        "wildcard operation cannot be mixed with other strings",
        binding({"resourceRules": rules(["a"], ["CREATE", "*"])}),
        "if '*' is present, must not specify other operations",
    ),
    (
        'resource "*" can co-exist with resources that have subresources',
        binding({**EXACT, "resourceRules": rules(["*", "a/b", "a/*", "*/b"])}),
        "",
    ),
    (
        'resource "*" cannot mix with resources that don\'t have subresources',
        binding({"resourceRules": rules(["*", "a"])}),
        "if '*' is present, must not specify other resources without subresources",
    ),
    pytest.param(
        "resource a/* cannot mix with a/x",
        binding({"resourceRules": rules(["a/*", "a/x"])}),
        "spec.matchResouces.resourceRules[0].resources[1]: Invalid value: \"a/x\": if 'a/*' is present, must not specify a/x",
        marks=TYPO_OPEN,
    ),
    ("resource a/* can mix with a", binding({**EXACT, "resourceRules": rules(["a/*", "a"])}), ""),
    pytest.param(
        "resource */a cannot mix with x/a",
        binding({"resourceRules": rules(["*/a", "x/a"])}),
        "spec.matchResouces.resourceRules[0].resources[1]: Invalid value: \"x/a\": if '*/a' is present, must not specify x/a",
        marks=TYPO_OPEN,
    ),
    pytest.param(
        "resource */* cannot mix with other resources",
        binding({"resourceRules": rules(["*/*", "a"])}),
        'spec.matchResouces.resourceRules[0].resources: Invalid value: []string{"*/*", "a"}: if \'*/*\' is present, must not specify other resources',
        marks=TYPO_OPEN,
    ),
]


@pytest.mark.parametrize(
    ("name", "spec", "expected"),
    BINDING_CASES,
    ids=[(c.values if hasattr(c, "values") else c)[0] for c in BINDING_CASES],
)
def test_upstream_binding_case(name: str, spec: dict[str, Any], expected: str) -> None:
    got = binding_aggregate(spec)
    assert expected in got if expected else got == ""


def test_upstream_binding_metadata_name() -> None:
    """TestValidateMutatingAdmissionPolicyBinding "metadata.name validation"."""
    assert 'metadata.name: Invalid value: "!!!!":' in binding_aggregate({}, name="!!!!")
