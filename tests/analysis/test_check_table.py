"""The table of checks (`analysis.checks.table`): every check module is a row, each row's codes
are documented rules, and the engine runs exactly the rows whose role is the object's."""

from __future__ import annotations

from pathlib import Path

from vap_lsp.analysis.checks.table import CHECKS, FILE_CHECKS
from vap_lsp.analysis.engine import analyse_text
from vap_lsp.analysis.model.object_context import Role
from vap_lsp.codes import rules

CHECKS_DIR = Path(__file__).resolve().parents[2] / "vap_lsp" / "analysis" / "checks"
SUPPORT = {"__init__", "check", "table", "cel_text"}


def test_every_check_module_is_a_row_of_the_table() -> None:
    modules = {p.stem for p in CHECKS_DIR.glob("*.py")} - SUPPORT
    rows = {c.run.__module__.rsplit(".", 1)[-1] for c in FILE_CHECKS}
    for check in CHECKS:
        module = getattr(check.run, "__module__", "")
        # policy_check wraps the check's function; its closure holds it
        closure = getattr(check.run, "__closure__", None) or ()
        wrapped = [c.cell_contents for c in closure if callable(c.cell_contents)]
        rows |= {module.rsplit(".", 1)[-1]} | {w.__module__.rsplit(".", 1)[-1] for w in wrapped}
    assert sorted(modules - rows) == []


def test_rows_have_unique_names_and_documented_codes() -> None:
    names = [c.name for c in (*CHECKS, *FILE_CHECKS)]
    assert len(names) == len(set(names))
    documented = set(rules())
    undocumented = {c.name: sorted(set(c.codes) - documented) for c in (*CHECKS, *FILE_CHECKS)}
    assert {k: v for k, v in undocumented.items() if v} == {}


def test_a_binding_gets_only_the_server_validation_row() -> None:
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b
spec:
  policyName: p
  validationActions: [Deny, Warn]
"""
    codes = {d.code for d in analyse_text(text).diagnostics}
    assert codes == {"FieldValueInvalid"}  # Deny and Warn together: the server's rule
    policy_rows = [c for c in CHECKS if c.role is Role.POLICY]
    assert policy_rows[0].name == "server-validation"
