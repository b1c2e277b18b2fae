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

from six_classes import CASES, Case, at

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
