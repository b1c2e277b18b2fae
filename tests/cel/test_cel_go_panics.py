"""Go panics cel-go recovers as the expression's error (tests/oracle/panic_cases.py says which
and why; the same cases run beside the oracle in tests/oracle/test_go_panics.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))

from panic_cases import CASES, POD, Case

from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression


def error(expression: str, version: str) -> str | None:
    result = evaluate_expression(expression, PlaygroundInputs(version, object=POD, builtin_admission=False))
    found = result.to_json()["error"]
    return found if found is None else str(found)


@pytest.mark.parametrize("version", ["1.34", "1.36"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_json_shaped_objects(case: Case, version: str) -> None:
    assert error(case.expression, version) == case.v136


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_schemaless_typed_objects(case: Case) -> None:
    assert error(case.expression, "1.37") == case.v137


def test_a_composited_variable_that_panics_fails_to_evaluate_as_any_error() -> None:
    # Each variable is its own program: the panic is its error, which the reader may absorb.
    from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare

    docs = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": [""],
                            "apiVersions": ["v1"],
                            "operations": ["CREATE"],
                            "resources": ["pods"],
                        }
                    ]
                },
                "variables": [{"name": "v", "expression": "dyn(1).distinct()"}],
                "validations": [
                    {"expression": "size(variables.v) == 1"},
                    {"expression": "true || variables.v == []"},
                ],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "validationActions": ["Deny"]},
        },
    ]
    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version="1.36", builtin_admission=False)
    result = prepared.admit(AdmissionRequestInput("CREATE", POD))
    assert [d.message for d in result.denials] == [
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: expression 'size(variables.v) == 1' "
        'resulted in error: composited variable "v" fails to evaluate: '
        "internal error: interface conversion: types.Int is not traits.Lister: missing method Contains"
    ]
