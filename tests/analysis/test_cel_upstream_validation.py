# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""The CEL cases of kubernetes/kubernetes pkg/apis/admissionregistration/validation/validation_test.go
(TestValidateValidatingAdmissionPolicy), re-typed as YAML and run through the whole engine.
Upstream asserts that the aggregated error contains `expected`; so does each case here (an
empty `expected` means: no error at all)."""

from __future__ import annotations

import textwrap

import pytest

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text

HEAD = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: config
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: ["a"]
        apiVersions: ["a"]
        operations: ["*"]
        resources: ["a"]
"""

CASES: list[tuple[str, str, str]] = [
    (
        "invalid auditAnnotations valueExpression type",
        """\
        auditAnnotations:
          - key: something
            valueExpression: "true"
        """,
        'spec.auditAnnotations[0].valueExpression: Invalid value: "true": must evaluate to one of [string null_type]',
    ),
    (
        "invalid auditAnnotations valueExpression",
        """\
        auditAnnotations:
          - key: something
            valueExpression: "object.x in [1, 2, "
        """,
        "spec.auditAnnotations[0].valueExpression: Invalid value: \"object.x in [1, 2, \": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>",
    ),
    (
        "match condition with parameters allowed",
        """\
        paramKind: {kind: Foo, apiVersion: foobar/v1alpha1}
        matchConditions:
          - name: hasParams
            expression: 'params.foo == "okay"'
        validations:
          - expression: "object.x < 100"
        """,
        "",
    ),
    (
        "match condition with parameters not allowed if no param kind",
        """\
        matchConditions:
          - name: hasParams
            expression: 'params.foo == "okay"'
        validations:
          - expression: "object.x < 100"
        """,
        "undeclared reference to 'params'",
    ),
    (
        "variable composition cannot compile",
        """\
        variables:
          - name: foo
            expression: "114 + '514'"
        validations:
          - expression: "true"
        """,
        "spec.variables[0].expression: Invalid value: \"114 + '514'\": compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(int, string)",
    ),
    (
        "validation referred to non-existing variable",
        """\
        variables:
          - name: foo
            expression: "1 + 1"
          - name: bar
            expression: "variables.foo + 1"
        validations:
          - expression: "variables.foo > 1"
          - expression: "variables.replicas == 2"
        """,
        "spec.validations[1].expression: Invalid value: \"variables.replicas == 2\": compilation failed: ERROR: <input>:1:10: undefined field 'replicas'",
    ),
    (
        "variables wrong order",
        """\
        variables:
          - name: correct
            expression: "object"
          - name: bar
            expression: "variables.foo + 1"
          - name: foo
            expression: "1 + 1"
        validations:
          - expression: "variables.foo > 1"
        """,
        "spec.variables[1].expression: Invalid value: \"variables.foo + 1\": compilation failed: ERROR: <input>:1:10: undefined field 'foo'",
    ),
]


@pytest.mark.parametrize(("name", "spec", "expected"), CASES, ids=[c[0] for c in CASES])
def test_upstream_case(name: str, spec: str, expected: str) -> None:
    text = HEAD + textwrap.indent(textwrap.dedent(spec), "  ")
    errors = [
        d.message
        for d in analyse_text(text, AnalysisSettings("1.34")).diagnostics
        if d.severity is Severity.ERROR
    ]
    if not expected:
        assert errors == []
    else:
        assert any(expected in e for e in errors), errors


# TestValidateMutatingAdmissionPolicy's CEL cases (same file), on a v1beta1 MutatingAdmissionPolicy.
# The Go test writes the first alpha design's `Mutation{Expression, MessageExpression}`; its
# "invalid messageExpression" compile error is checked on the served expression field
# (`applyConfiguration.expression`), which the server compiles and reports in the same form.
MAP_HEAD = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: config
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: ["a"]
        apiVersions: ["a"]
        operations: ["*"]
        resources: ["a"]
"""
MAP_CASES: list[tuple[str, str, str]] = [
    (
        "invalid messageExpression (on applyConfiguration.expression)",
        """\
        mutations:
          - patchType: ApplyConfiguration
            applyConfiguration:
              expression: "object.x in [1, 2, "
        """,
        "spec.mutations[0].applyConfiguration.expression: Invalid value: \"object.x in [1, 2, \": compilation failed: ERROR: <input>:1:19: Syntax error: missing ']' at '<EOF>",
    ),
    (
        "match condition with parameters allowed",
        """\
        paramKind: {kind: Foo, apiVersion: foobar/v1alpha1}
        matchConditions:
          - name: hasParams
            expression: 'params.foo == "okay"'
        mutations:
          - patchType: ApplyConfiguration
            applyConfiguration:
              expression: "Object{}"
        """,
        "",
    ),
    (
        "match condition with parameters not allowed if no param kind",
        """\
        matchConditions:
          - name: hasParams
            expression: 'params.foo == "okay"'
        mutations:
          - patchType: ApplyConfiguration
            applyConfiguration:
              expression: "Object{}"
        """,
        "undeclared reference to 'params'",
    ),
]


@pytest.mark.parametrize(("name", "spec", "expected"), MAP_CASES, ids=[c[0] for c in MAP_CASES])
def test_upstream_map_case(name: str, spec: str, expected: str) -> None:
    text = MAP_HEAD + textwrap.indent(textwrap.dedent(spec), "  ")
    errors = [
        d.message
        for d in analyse_text(text, AnalysisSettings("1.34")).diagnostics
        if d.severity is Severity.ERROR
    ]
    if not expected:
        assert errors == []
    else:
        assert any(expected in e for e in errors), errors
