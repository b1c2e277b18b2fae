# ruff: noqa: E501  (server messages and generated literals are kept on one line each)
"""Each mode of `vap-oracle` returns what Kubernetes' own unit tests expect (translated cases,
cited per test): the oracle is trusted only after it agrees with them."""

from __future__ import annotations

import json

from harness import Oracle

ENDPOINTS = {
    "apiVersion": "v1",
    "kind": "Endpoints",
    "metadata": {"name": "endpoints1", "namespace": "default"},
    "subsets": [{"addresses": [{"ip": "127.0.0.0"}]}],
}


def test_cel_evaluates_as_plugin_cel_condition_test(oracle: Oracle) -> None:
    """k8s.io/apiserver/pkg/admission/plugin/cel/condition_test.go TestFilter, cases "valid
    syntax for object" and "valid syntax for metadata" (an Endpoints with one subset)."""
    files = {"ep": json.dumps(ENDPOINTS)}
    for expression in (
        "has(object.subsets) && object.subsets.size() < 2",
        "object.metadata.name == 'endpoints1'",
    ):
        answer = oracle.ask(["cel", expression, "--object", "ep"], files)["stdout"]
        assert (answer["value"], answer["error"], answer["type"]) == (True, None, "bool")


def test_cel_cost_as_cel_go_counts_it(oracle: Oracle) -> None:
    """cel-go interpreter/runtimecost_test.go: `[1, 2, 3].map(x, x * 2)`-style comprehensions
    cost per step; a constant list literal costs nothing after OptOptimize."""
    answer = oracle.ask(["cel", "[1, 2].map(x, x * 2)"])["stdout"]
    assert answer["value"] == [2, 4]
    assert answer["cost"]["actual"] == 29


def test_cel_compile_error_in_the_servers_words(oracle: Oracle) -> None:
    """plugin/cel/compile.go CompileCELExpression: `compilation failed: ` + cel-go's issues."""
    answer = oracle.ask(["cel", "1 + 'a'"])
    assert answer["exit"] == 2
    assert answer["stdout"]["error"].startswith(
        "compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'"
    )


VAP = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "replicas"},
    "spec": {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["deployments"],
                }
            ]
        },
        "validations": [
            {"expression": "object.spec.replicas > '1'"},
            {"expression": "object.nonExistingFirst > 1"},
        ],
    },
}


def test_check_type_checker_warnings_as_the_status_controller_test(oracle: Oracle) -> None:
    """k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus/controller_test.go: the
    type checker's warnings `found no matching overload for '_>_' applied to '(int, string)'` and
    `undefined field 'nonExistingFirst'`, at spec.validations[i].expression."""
    report = oracle.ask(["check", "vap"], {"vap": json.dumps(VAP)})["stdout"]
    warnings = {
        d["field"]: d["message"] for d in report["files"][0]["diagnostics"] if d["code"] == "cel-type-check"
    }
    assert (
        "found no matching overload for '_>_' applied to '(int, string)'"
        in warnings["spec.validations[0].expression"]
    )
    assert "undefined field 'nonExistingFirst'" in warnings["spec.validations[1].expression"]


def test_check_validation_errors_as_validation_test(oracle: Oracle) -> None:
    """k8s.io/kubernetes/pkg/apis/admissionregistration/validation/validation_test.go
    TestValidateValidatingAdmissionPolicy, case "invalid failure policy" (`spec.failurePolicy:
    Unsupported value`) and a binding without validationActions (1.37: declarative validation's
    `Required value`)."""
    bad = {**VAP, "spec": {**VAP["spec"], "failurePolicy": "other"}}
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "replicas"},
    }
    report = oracle.ask(["check", "vap", "b"], {"vap": json.dumps(bad), "b": json.dumps(binding)})["stdout"]
    errors = [[d["message"] for d in f["diagnostics"] if d["severity"] == "error"] for f in report["files"]]
    assert errors == [
        ['spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'],
        ["spec.validationActions: Required value"],
    ]


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "replicas": 7,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "i"}]},
        },
    },
}


def _policy(validations: list[dict[str, str]], actions: list[str]) -> str:
    policy = {
        **VAP,
        "metadata": {"name": "denypolicy.example.com"},
        "spec": {**VAP["spec"], "validations": validations},
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "denybinding.example.com"},
        "spec": {"policyName": "denypolicy.example.com", "validationActions": actions},
    }
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    return "\n---\n".join(json.dumps(d) for d in (policy, binding, namespace))


def test_run_denies_as_validating_admission_test(oracle: Oracle) -> None:
    """k8s.io/apiserver/pkg/admission/plugin/policy/validating/admission_test.go TestBasicPolicyDefinitionFailure
    and dispatcher.go: the denial `ValidatingAdmissionPolicy '<policy>' with binding '<binding>'
    denied request: <message>`, reason Invalid, code 422; Warn adds the warning
    `Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>`."""
    files = {
        "p": _policy([{"expression": "object.spec.replicas < 5", "message": "too many"}], ["Deny", "Warn"]),
        "o": json.dumps(DEPLOYMENT),
    }
    result = oracle.ask(["run", "p", "--object", "o"], files)["stdout"]["results"][0]
    assert result["allowed"] is False
    denial = result["denials"][0]
    assert (denial["code"], denial["reason"]) == (422, "Invalid")
    cause = "ValidatingAdmissionPolicy 'denypolicy.example.com' with binding 'denybinding.example.com' denied request: too many"
    assert denial["causes"] == [cause]
    assert denial["message"] == f'deployments.apps "web" is forbidden: {cause}'
    assert result["warnings"] == [
        "Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding "
        "'denybinding.example.com': too many"
    ]


def test_run_audit_annotation_as_validating_admission_test(oracle: Oracle) -> None:
    """admission_test.go TestAuditValidationAction: an Audit action publishes
    `validation.policy.admission.k8s.io/validation_failure` with the failure as JSON."""
    files = {
        "p": _policy([{"expression": "object.spec.replicas < 5", "message": "too many"}], ["Audit"]),
        "o": json.dumps(DEPLOYMENT),
    }
    result = oracle.ask(["run", "p", "--object", "o"], files)["stdout"]["results"][0]
    assert result["allowed"] is True
    assert json.loads(
        result["auditAnnotations"]["validation.policy.admission.k8s.io/validation_failure"]
    ) == [
        {
            "message": "too many",
            "policy": "denypolicy.example.com",
            "binding": "denybinding.example.com",
            "expressionIndex": 0,
            "validationActions": ["Audit"],
        }
    ]
