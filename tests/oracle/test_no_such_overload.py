"""tests/cel/no_such_overload_cases.py beside the oracle (Kubernetes 1.37's own plugin/cel and
cel-go v0.29.2): the oracle answers each row's text, and vap-lsp agrees with it in every
respect the differential compares."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from harness import Oracle, as_yaml, cel_case, oracle_eval_error

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cel"))

from no_such_overload_cases import ALL, CONFIG_MAP, Case


@pytest.mark.parametrize("case", ALL, ids=lambda c: c.expression)
def test_the_oracle_words_it_so_and_vap_lsp_agrees(oracle: Oracle, case: Case) -> None:
    answer = oracle.ask(["cel", case.expression, "--object", "cm"], {"cm": as_yaml(CONFIG_MAP)})["stdout"]
    assert answer is not None and answer["type"] is not None
    assert oracle_eval_error(answer["error"]) == case.error
    assert [str(d) for d in cel_case(oracle, case.expression, obj=CONFIG_MAP)] == []
