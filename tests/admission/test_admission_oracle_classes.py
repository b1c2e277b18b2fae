"""Regression tests for issue 34's six disagreement classes (vap-lsp alone; the same cases run
beside Kubernetes' own plugins in tests/oracle/test_six_classes.py):

1. a mutation setting an undeclared field: an apply configuration fails to convert to the typed
   object (structured-merge-diff, mutating/patch/smd.go), Ignore leaves the object unchanged; a
   JSON-patched built-in object fails strict decoding back to its Go type, a 500 the dispatcher
   returns whatever the failurePolicy (mutating/dispatcher.go);
2. JSON Patch `replace` of a missing key of an existing map sets it (evanphx/json-patch v4);
3. keyed lists: a patch repeating a key is rejected, a live object repeating one is not;
4. requests for the admission configuration kinds are exempt (generic/plugin.go);
5. matchPolicy Equivalent matches a rule for another served version of a CRD (converted);
6. a status update keeps the stored spec (the kind's status strategy).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))

from six_classes import CASES, DEPLOYMENT, DEPLOYMENTS, NS, Case, at, json_patch, mutating, validating

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_vap_lsp_gives_the_servers_verdict(case: Case) -> None:
    inputs = PolicyInputs.from_objects(case.documents)
    prepared = prepare(inputs, kubernetes_version="1.37", builtin_admission=False)
    operation = "UPDATE" if case.old is not None else "CREATE"
    result = prepared.admit(
        AdmissionRequestInput(operation, case.obj, case.old, sub_resource=case.sub_resource)
    )
    assert result.allowed is case.allowed, [d.message for d in result.denials]
    if not case.allowed:
        denial = result.denials[0]
        assert ((denial.code, denial.reason), denial.message) == (case.status, case.message)
    if case.patched is None:
        assert case.allowed is False or result.patched is None or case.name.startswith("status")
    for path, value in (case.patched or {}).items():
        assert at(result.patched, path) == value


def test_identical_warnings_are_sent_once() -> None:
    """endpoints/filters/warning.go `recorder.AddWarning` dedupes: two validations failing with
    the same message under Warn give one warning (found by the oracle's generated cases)."""
    documents = validating("false", DEPLOYMENTS)
    documents[0]["spec"]["validations"].append({"expression": "false", "message": "no"})
    documents[1]["spec"]["validationActions"] = ["Warn"]
    prepared = prepare(
        PolicyInputs.from_objects([*documents, NS]), kubernetes_version="1.37", builtin_admission=False
    )
    result = prepared.admit(AdmissionRequestInput("CREATE", DEPLOYMENT))
    assert result.warnings == ["Validation failed for ValidatingAdmissionPolicy 'v' with binding 'v-b': no"]


def test_json_patch_test_of_a_missing_parent_is_an_error() -> None:
    """evanphx/json-patch v4 `test`: a path whose parent is missing does not apply (an error,
    so failurePolicy Fail denies); a missing key of an existing map is a failed test (the object
    is left unchanged, no error)."""
    missing_parent = json_patch("[JSONPatch{op: 'test', path: '/metadata/annotations/x', value: 'a'}]")
    prepared = prepare(
        PolicyInputs.from_objects([*mutating([missing_parent]), NS]), kubernetes_version="1.37"
    )
    result = prepared.admit(AdmissionRequestInput("CREATE", DEPLOYMENT))
    assert [d.detail for d in result.denials] == [
        "JSON Patch: test operation does not apply: is missing path: /metadata/annotations/x: missing value"
    ]
    missing_key = json_patch("[JSONPatch{op: 'test', path: '/metadata/labels/x', value: 'a'}]")
    prepared = prepare(PolicyInputs.from_objects([*mutating([missing_key]), NS]), kubernetes_version="1.37")
    assert prepared.admit(AdmissionRequestInput("CREATE", DEPLOYMENT)).allowed
