"""tests/oracle/schemaless_cases.py beside the oracle (Kubernetes 1.37's own plugins): no
divergence, and the oracle gives the 1.37 verdict the table states."""

from __future__ import annotations

import json

import pytest
from harness import Oracle, run_case
from schemaless_cases import CASES, DEPLOYMENT, Case, documents


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_oracle_gives_the_137_verdict_and_vap_lsp_agrees(oracle: Oracle, case: Case) -> None:
    docs = documents(case.expression)
    files = {"docs": "\n---\n".join(json.dumps(d) for d in docs), "obj": json.dumps(DEPLOYMENT)}
    result = oracle.ask(["run", "docs", "--object", "obj"], files)["stdout"]["results"][0]
    assert result["allowed"] is (case.v137 is None)
    if case.v137 is not None:
        assert result["denials"][0]["message"] == f'deployments.apps "web" is forbidden: {case.v137}'
    assert [str(d) for d in run_case(oracle, docs, DEPLOYMENT, case=case.name)] == []
