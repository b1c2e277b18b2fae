"""The pages of the static manifests codes (`vap_lsp/codes/catalog.py`, group "static") tell the
truth: an example written as YAML gets its code, in a static manifests folder of its own (or, for
an AdmissionConfiguration, as a file); the other examples describe a folder in a comment."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.static_manifests.folders import run
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.codes import rules
from vap_lsp.static_manifests.api import analyse_file

STATIC = {code: rule for code, rule in rules().items() if rule.group == "static"}
RUNNABLE = [code for code, rule in STATIC.items() if not rule.example.lstrip().startswith("#")]


def test_the_group_and_which_examples_run() -> None:
    assert len(STATIC) == 14
    assert sorted(RUNNABLE) == [
        "admission-config",
        "static-binding-reference",
        "static-decode",
        "static-kind",
        "static-manifests-dir",
        "static-name",
        "static-params",
        "static-policy-name",
        "static-split",
    ]


@pytest.mark.parametrize("code", RUNNABLE)
def test_the_example_gets_the_code(code: str, tmp_path: Path) -> None:
    rule = STATIC[code]
    if "AdmissionConfiguration" in rule.example:
        path = tmp_path / "admission.yaml"
        found = analyse_file(rule.example, AnalysisSettings("1.37"), path=path)[0].diagnostics
        severities = {d.severity.label for d in found if d.code == code}
    else:
        result = run(tmp_path / "static", {"example.yaml": rule.example}, "validating")
        severities = {d.severity.label for f in result.files for d in f.diagnostics if d.code == code}
    assert severities, (code, rule.example)
    assert severities <= {s.strip() for s in rule.severity.replace(" or ", ",").split(",")}
