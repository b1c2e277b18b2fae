"""Issue 34's six disagreement classes, each answered by the oracle (Kubernetes' own plugins) and
by vap-lsp: no divergence, and the oracle gives the verdict six_classes.CASES states."""

from __future__ import annotations

import json

import pytest
from harness import Oracle, run_case
from six_classes import CASES, Case, at


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_oracle_and_vap_lsp_agree(oracle: Oracle, case: Case) -> None:
    divergences = run_case(
        oracle, case.documents, case.obj, old=case.old, sub_resource=case.sub_resource, case=case.name
    )
    assert [str(d) for d in divergences] == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_oracle_gives_the_stated_verdict(oracle: Oracle, case: Case) -> None:
    files = {"docs": "\n---\n".join(json.dumps(d) for d in case.documents), "obj": json.dumps(case.obj)}
    argv = ["run", "docs", "--object", "obj"]
    if case.old is not None:
        files["old"] = json.dumps(case.old)
        argv += ["--old-object", "old"]
    if case.sub_resource:
        argv += ["--subresource", case.sub_resource]
    result = oracle.ask(argv, files)["stdout"]["results"][0]
    assert result["allowed"] is case.allowed
    if not case.allowed:
        denial = result["denials"][0]
        assert (denial["code"], denial["reason"]) == case.status
        assert case.message in (denial["causes"] or [denial["message"]]) or case.message == denial["message"]
    for path, value in (case.patched or {}).items():
        assert at(result["patched"], path) == value
