"""`cel-cost` on whole files: a CRD and a policy over it, the estimate from the CRD's schema.

The API server does not estimate an admission policy's cost (`plugin/cel/compile.go`); it
cancels an expression at `PerCallLimit` at runtime. The estimate is the one apiextensions makes
for CRD validation rules (`schema/cel/compilation.go`: cel-go's `EstimateCost`, sizes from
`maxItems`, else from the 3 MiB request limit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cli.main import main


def _crd(items: str) -> str:
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                items:
                  type: array
{items}
"""


ITEMS_UNBOUNDED = "                  items: {type: string}"
ITEMS_MAX_20 = "                  maxItems: 20\n                  items: {type: string, maxLength: 63}"

POLICY = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: unique-items
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["example.com"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["widgets"]
  validations:
    - expression: "object.spec.items.all(a, object.spec.items.exists_one(b, a == b))"
"""


def _cost_findings(text: str) -> list[tuple[Severity, str, str]]:
    workspace = WorkspaceIndex()
    workspace.complete = True
    analysis = analyse_text(text, AnalysisSettings("1.34"), workspace=workspace, uri="file:///w.yaml")
    return [
        (d.severity, text[d.span.start : d.span.end], d.message)
        for d in analysis.diagnostics
        if d.code == "cel-cost"
    ]


def test_nested_comprehension_over_an_unbounded_crd_list() -> None:
    # items without maxItems, strings without maxLength: both sized from the 3 MiB request
    assert _cost_findings(_crd(ITEMS_UNBOUNDED) + POLICY) == [
        (
            Severity.INFORMATION,
            "object.spec.items.all(a, object.spec.items.exists_one(b, a == b))",
            "spec.validations[0].expression: estimated cost up to 345,880,409,623,809,229 exceeds the "
            "per-call limit of 1,000,000 the API server enforces at admission, 345,880,409,624 times "
            "over (`operation cancelled: actual cost limit exceeded`, then failurePolicy decides); "
            "dominated by `object.spec.items.all(a, object.spec.items.exists_one(b, a == b))`; "
            "spec.items has no "
            "maxItems in the CRD of example.com/v1 Widget, so it is sized as the most a 3 MiB request "
            "can hold: add maxItems (at most 182 with maxLength 256 on spec.items[*] keeps the "
            "expression under the per-call limit); spec.items[*] has no maxLength in the CRD of "
            "example.com/v1 Widget, so it is sized as the most a 3 MiB request can hold: add maxLength",
        )
    ]


def test_the_same_expression_over_a_list_with_a_small_max_items() -> None:
    assert _cost_findings(_crd(ITEMS_MAX_20) + POLICY) == []


# A nest over a built-in kind's map (Pod labels: no bound can be added) and a CRD's list: a
# maxItems on the CRD's list alone never brings it under the per-call limit, so no number is
# offered (C-0076/C-0077 of the Kubescape library, in the corpus, were told "at most 446").
PARAMS_POLICY = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: labels-from-params
spec:
  paramKind: {apiVersion: example.com/v1, kind: Widget}
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
  validations:
    - expression: "object.metadata.labels.all(l, params.spec.items.all(i, i != l))"
"""
LABELS = (
    "metadata.labels has no maxProperties in the built-in schema of v1 Pod, so it is sized as the "
    "most a 3 MiB request can hold: nest fewer comprehensions over it; "
)


@pytest.mark.parametrize(
    ("items", "advice"),
    [
        (
            ITEMS_UNBOUNDED,
            "spec.items has no maxItems in the CRD of example.com/v1 Widget, so it is sized as the "
            "most a 3 MiB request can hold: add maxItems (no bound there alone keeps the expression "
            "under the per-call limit)",
        ),
        (
            "                  maxItems: 1\n" + ITEMS_UNBOUNDED,
            "spec.items has maxItems 1 in the CRD of example.com/v1 Widget: no bound there alone "
            "keeps the expression under the per-call limit",
        ),
    ],
)
def test_no_bound_is_offered_that_a_built_in_range_defeats(items: str, advice: str) -> None:
    [(_, _, message)] = _cost_findings(_crd(items) + PARAMS_POLICY)
    assert message.endswith(LABELS + advice), message


# --- the README's example ------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _block(text: str, after: str) -> str:
    start = text.index("```", text.index(after))
    start = text.index("\n", start) + 1
    return text[start : text.index("```", start)]


def test_the_readme_example_is_what_check_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Cost before the cluster counts it") :]
    (tmp_path / "widgets.yaml").write_text(_block(section, "With `widgets.yaml`:"))
    monkeypatch.chdir(tmp_path)
    main(["check", "--show-notes", "widgets.yaml"])
    assert capsys.readouterr().out == _block(section, "`vap-lsp check --show-notes widgets.yaml`")
    # and with maxItems: 64, as the README says: estimated 4 – 16,900, nothing reported
    bounded = (
        (tmp_path / "widgets.yaml")
        .read_text()
        .replace("type: array", "type: array\n                  maxItems: 64")
    )
    (tmp_path / "widgets.yaml").write_text(bounded)
    assert main(["check", "--show-notes", "widgets.yaml"]) == 0
    assert capsys.readouterr().out == ""
    expression = "object.spec.ports.all(p, object.spec.ports.exists_one(q, q == p))"
    main(["cel", expression, "--crd", "widgets.yaml", "--kind", "example.com/v1/Widget", "--format", "json"])
    assert json.loads(capsys.readouterr().out)["cost"]["estimate"] == {"min": 4, "max": 16900}


# --- a budget: matchConditions each under the per-call limit, together over their 2,500,000 ----

ITEMS_MAX_250 = "                  maxItems: 250\n                  items: {type: string, maxLength: 10}"
PAIRS = "object.spec.items.all(a, object.spec.items.all(b, a != b || a == b))"  # up to 939,254


def _conditions(count: int) -> str:
    conditions = "".join(f'    - name: c{i}\n      expression: "{PAIRS}"\n' for i in range(count))
    return POLICY.replace("  validations:\n", "  matchConditions:\n" + conditions + "  validations:\n")


def test_match_conditions_that_together_can_exhaust_their_budget() -> None:
    # matcher.go: all matchConditions share RuntimeCELCostBudgetMatchConditions (2,500,000)
    assert _cost_findings(_crd(ITEMS_MAX_250) + _conditions(2)) == []
    [(severity, covered, message)] = _cost_findings(_crd(ITEMS_MAX_250) + _conditions(3))
    assert (severity, covered) == (Severity.INFORMATION, PAIRS)
    assert message == (
        "spec.matchConditions: the matchConditions of one evaluation can cost up to 2,817,762 "
        "together, over the 2,500,000 budget the API server gives them (`validation failed due to "
        "running out of cost budget, no further validation rules will be run`); the largest share is "
        f"spec.matchConditions[0].expression, up to 939,254: dominated by `{PAIRS}`; spec.items has "
        "maxItems 250 in the CRD of example.com/v1 Widget: lower maxItems"
    )


def test_expressions_cancelled_at_the_per_call_limit_can_exhaust_the_budget_together() -> None:
    # cel-go cancels once the cost *passes* the limit (`cost > limit`): a cancelled expression is
    # charged at least 1,000,001 (activation.go), so after nine of them less than 1,000,000 is
    # left and a tenth runs out of budget
    ten = POLICY + f'    - expression: "{POLICY.rsplit(chr(34), 2)[1]}"\n' * 9
    budget = [
        m for _, _, m in _cost_findings(_crd(ITEMS_UNBOUNDED) + ten) if m.startswith("spec.validations:")
    ]
    assert [m.split(", over the")[0] for m in budget] == [
        "spec.validations: the validations and messageExpressions of one evaluation can cost up to "
        "10,000,010 together (10 of them cancelled past the per-call limit, at 1,000,001 at least)"
    ]
