"""tests/oracle/panic_cases.py beside the oracle (Kubernetes 1.37's cel-go and libraries): the
oracle gives the 1.37 error the table states, and vap-lsp agrees."""

from __future__ import annotations

import json

import pytest
from harness import Oracle, cel_case
from panic_cases import CASES, POD, Case


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_oracle_gives_the_137_error_and_vap_lsp_agrees(oracle: Oracle, case: Case) -> None:
    answer = oracle.ask(["cel", case.expression, "--object", "obj"], {"obj": json.dumps(POD)})["stdout"]
    expected = None if case.v137 is None else f"expression '{case.expression}' resulted in error: {case.v137}"
    assert answer["error"] == expected
    assert [str(d) for d in cel_case(oracle, case.expression, obj=POD)] == []
