# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""Regression cases from kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation_test.go
(TestValidateValidatingAdmissionPolicy, mid-2024). Upstream asserts that the aggregated error
string contains `expected`; the objects are the internal (undefaulted) Go structs, so they are
validated here without defaults. Texts are those of the 1.31 era (Go `%#v` rendering).
"""

from __future__ import annotations

from typing import Any

import pytest

from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.policy.rules import validate

VALIDATIONS = [{"expression": "object.x < 100"}]
RULE_A = {"apiGroups": ["a"], "apiVersions": ["a"], "resources": ["a"]}


def aggregate(spec: dict[str, Any], name: str = "config", kind: PolicyKind = PolicyKind.VAP) -> str:
    errs = validate(kind, "v1", {"metadata": {"name": name}, "spec": spec}, "1.31")
    messages = [e.message() for e in errs]
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "failure policy validation",
        {"failurePolicy": "other", "validations": VALIDATIONS},
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
    ),
    (
        "failure policy validation (no validations)",
        {"failurePolicy": "other"},
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"',
    ),
    (
        "API version is required in ParamKind",
        {"validations": VALIDATIONS, "paramKind": {"kind": "Example", "apiVersion": "test.example.com"}},
        'spec.paramKind.apiVersion: Invalid value: "test.example.com"',
    ),
    (
        "API kind is required in ParamKind",
        {"validations": VALIDATIONS, "paramKind": {"apiVersion": "test.example.com/v1"}},
        "spec.paramKind.kind: Required value",
    ),
    (
        "API version format in ParamKind",
        {"validations": VALIDATIONS, "paramKind": {"kind": "Example", "apiVersion": "test.example.com/!!!"}},
        'pec.paramKind.apiVersion: Invalid value: "!!!":',
    ),
    (
        "API group format in ParamKind",
        {"validations": VALIDATIONS, "paramKind": {"apiVersion": "!!!/v1", "kind": "ReplicaLimit"}},
        'pec.paramKind.apiVersion: Invalid value: "!!!":',
    ),
    (
        "Validations is required",
        {},
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
    ),
    (
        "Invalid Validations Reason",
        {"validations": [{"expression": "object.x < 100", "reason": "other"}]},
        'spec.validations[0].reason: Unsupported value: "other"',
    ),
    ("MatchConstraints is required", {"validations": VALIDATIONS}, "spec.matchConstraints: Required value"),
    (
        "matchConstraints.resourceRules is required",
        {"validations": VALIDATIONS, "matchConstraints": {}},
        "spec.matchConstraints.resourceRules: Required value",
    ),
    (
        "matchConstraints.resourceRules has at least one explicit rule",
        {"validations": VALIDATIONS, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}},
        "spec.matchConstraints.resourceRules[0].apiVersions: Required value",
    ),
    (
        "expression is required",
        {"validations": [{}]},
        "spec.validations[0].expression: Required value: expression is not specified",
    ),
    (
        "matchResources resourceNames check",
        {"validations": VALIDATIONS, "matchConstraints": {"resourceRules": [{"resourceNames": ["/./."]}]}},
        'spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "/./."',
    ),
    (
        "matchResources resourceNames cannot duplicate",
        {
            "validations": VALIDATIONS,
            "matchConstraints": {"resourceRules": [{"resourceNames": ["test", "test"]}]},
        },
        'spec.matchConstraints.resourceRules[0].resourceNames[1]: Duplicate value: "test"',
    ),
    (
        "matchResources validation: matchPolicy",
        {"validations": VALIDATIONS, "matchConstraints": {"matchPolicy": "other"}},
        'spec.matchConstraints.matchPolicy: Unsupported value: "other": supported values: "Equivalent", "Exact"',
    ),
    (
        "Operations must not be empty or nil",
        {
            "validations": VALIDATIONS,
            "failurePolicy": "Fail",
            "matchConstraints": {
                "namespaceSelector": {"matchLabels": {"a": "b"}},
                "objectSelector": {"matchLabels": {"a": "b"}},
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
        {
            "validations": VALIDATIONS,
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE", ""], **RULE_A}]},
        },
        'Unsupported value: ""',
    ),
    (
        "operation must be either create/update/delete/connect",
        {
            "validations": VALIDATIONS,
            "matchConstraints": {"resourceRules": [{"operations": ["PATCH"], **RULE_A}]},
        },
        'Unsupported value: "PATCH"',
    ),
    (
        "wildcard operation cannot be mixed with other strings",
        {
            "validations": VALIDATIONS,
            "matchConstraints": {"resourceRules": [{"operations": ["CREATE", "*"], **RULE_A}]},
        },
        "if '*' is present, must not specify other operations",
    ),
]


@pytest.mark.parametrize(("name", "spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_upstream_case(name: str, spec: dict[str, Any], expected: str) -> None:
    assert expected in aggregate(spec)


def test_upstream_metadata_name() -> None:
    assert 'metadata.name: Invalid value: "!!!!":' in aggregate({}, name="!!!!")
