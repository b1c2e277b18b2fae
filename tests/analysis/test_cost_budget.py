"""The budget model (`analysis.cost_budget`) and `cel-cost` accounting over given cost ranges.

Which expressions share which budget follows kube-apiserver: `policy/validating/validator.go`
(validations, then messageExpressions with what is left; auditAnnotations afresh),
`webhook/matchconditions/matcher.go` (RuntimeCELCostBudgetMatchConditions),
`policy/mutating/dispatcher.go` (each mutation its own RuntimeCELCostBudget),
`plugin/cel/composition.go` (variables charged once per ForInput call)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from vap_lsp.analysis.checks.cost import cost_diagnostics
from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.model.cost_advice import BoundFix, SiteCost
from vap_lsp.analysis.model.cost_budget import (
    MATCH_CONDITIONS_BUDGET,
    RUNTIME_BUDGET,
    Budget,
    Meter,
    Phase,
    budgets,
    estimate_budgets,
)
from vap_lsp.analysis.model.sites import ExpressionSite, expression_sites
from vap_lsp.cel.environment import ExpressionKind as K
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import MappingNode, to_python
from vap_lsp.yaml.parse import parse_yaml


@dataclass(frozen=True)
class R:
    min: int
    max: int


def test_validating_policy_budgets() -> None:
    plan = budgets(
        [
            (K.MATCH_CONDITION, "spec.matchConditions[0].expression"),
            (K.VARIABLE, "spec.variables[0].expression"),
            (K.VALIDATION, "spec.validations[0].expression"),
            (K.MESSAGE_EXPRESSION, "spec.validations[0].messageExpression"),
            (K.VALIDATION, "spec.validations[1].expression"),
            (K.AUDIT_ANNOTATION, "spec.auditAnnotations[0].valueExpression"),
        ]
    )
    assert plan == [
        Budget(
            "matchConditions",
            "spec.matchConditions",
            MATCH_CONDITIONS_BUDGET,
            (Phase("matchConditions", ("spec.matchConditions[0].expression",)),),
        ),
        Budget(
            "validations and messageExpressions",
            "spec.validations",
            RUNTIME_BUDGET,
            (
                Phase("validations", ("spec.validations[0].expression", "spec.validations[1].expression")),
                Phase("messageExpressions", ("spec.validations[0].messageExpression",)),
            ),
        ),
        Budget(
            "auditAnnotations",
            "spec.auditAnnotations",
            RUNTIME_BUDGET,
            (Phase("auditAnnotations", ("spec.auditAnnotations[0].valueExpression",)),),
        ),
    ]


def test_mutating_policy_budgets_one_per_mutation() -> None:
    plan = budgets(
        [
            (K.MAP_JSON_PATCH, "spec.mutations[1].jsonPatch.expression"),
            (K.MAP_APPLY_CONFIGURATION, "spec.mutations[0].applyConfiguration.expression"),
            (K.MATCH_CONDITION, "spec.matchConditions[0].expression"),
        ]
    )
    assert [(b.name, b.limit, b.fields) for b in plan] == [
        ("matchConditions", MATCH_CONDITIONS_BUDGET, ("spec.matchConditions[0].expression",)),
        ("spec.mutations[0]", RUNTIME_BUDGET, ("spec.mutations[0].applyConfiguration.expression",)),
        ("spec.mutations[1]", RUNTIME_BUDGET, ("spec.mutations[1].jsonPatch.expression",)),
    ]


def test_meter_refuses_what_does_not_fit_and_takes_nothing() -> None:
    from vap_lsp.analysis.model.cost_budget import BudgetUse

    use = BudgetUse("validations and messageExpressions", 10)
    meter = Meter(use)
    assert meter.charge(7)
    assert not meter.charge(4)  # activation.go: cost > remaining
    assert (use.spent, use.left, use.exhausted) == (7, 3, True)


VALIDATIONS = Budget(
    "validations and messageExpressions",
    "spec.validations",
    RUNTIME_BUDGET,
    (
        Phase("validations", ("v0", "v1")),
        Phase("messageExpressions", ("m0",)),
    ),
)


def test_a_variable_is_charged_once_per_phase_and_through_other_variables() -> None:
    costs = {"v0": R(1, 5), "v1": R(2, 6), "m0": R(3, 7), "x": R(100, 200), "y": R(10, 20)}
    reads = {"v0": ["x"], "v1": ["x"], "m0": ["x"], "x": ["y"]}
    [estimate] = estimate_budgets([VALIDATIONS], costs.get, lambda f: reads.get(f, []), {"x": "x", "y": "y"})
    assert [(c.field, c.variable, c.phase) for c in estimate.charges] == [
        ("v0", None, "validations"),
        ("x", "x", "validations"),
        ("y", "y", "validations"),
        ("v1", None, "validations"),
        ("m0", None, "messageExpressions"),
        ("x", "x", "messageExpressions"),
        ("y", "y", "messageExpressions"),
    ]
    assert estimate.max == 5 + 6 + 7 + 2 * (200 + 20)
    assert estimate.min == 1 + 2 + 3  # a variable may never be read
    assert not estimate.exceeds


def test_unknown_costs_are_listed_not_summed() -> None:
    [estimate] = estimate_budgets([VALIDATIONS], {"v0": R(1, 1)}.get, lambda f: [], {})
    assert estimate.unknown == ("v1", "m0")
    assert estimate.max == 1


# --- cel-cost over given estimates -------------------------------------------------------------

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: demo}
spec:
  variables:
  - {name: pairs, expression: "object.spec.items.map(a, object.spec.items.map(b, a + b))"}
  validations:
  - expression: "object.spec.items.all(a, object.spec.items.all(b, a != b))"
  - expression: "variables.pairs.size() > 0"
  - expression: "variables.pairs.size() < 10"
"""


def _sites() -> list[ExpressionSite]:
    doc = parse_yaml(POLICY).documents[0]
    root = doc.root
    assert isinstance(root, MappingNode)
    data = to_python(root)
    assert isinstance(data, dict)
    return expression_sites(root, PolicyKind.VAP, data["spec"])


FIX = BoundFix("spec.items", "maxItems", "the CRD of example.com/v1 Widget", editable=True, passing=999)


def _costs(v0: int, pairs: int) -> list[SiteCost]:
    variable, v0_site, v1, v2 = _sites()
    return [
        SiteCost(variable, 0, pairs, reads=()),
        SiteCost(v0_site, 2, v0, (0, len(v0_site.text)), v0_site.text, fixes=(FIX,)),
        SiteCost(v1, 3, 4, reads=("pairs",)),
        SiteCost(v2, 3, 4, reads=("pairs",)),
    ]


def test_over_the_per_call_limit_is_information_naming_comprehension_and_bound() -> None:
    sites = _sites()
    found = cost_diagnostics(_costs(4_000_000, 10), sites, {"pairs": "spec.variables[0].expression"})
    assert [(d.code, d.severity, d.field) for d in found] == [
        ("cel-cost", Severity.INFORMATION, "spec.validations[0].expression")
    ]
    assert found[0].message == (
        "spec.validations[0].expression: estimated cost up to 4,000,000 exceeds the per-call limit "
        "of 1,000,000 the API server enforces at admission, 4.0 times over (`operation cancelled: "
        "actual cost limit exceeded`, then failurePolicy decides); dominated by "
        "`object.spec.items.all(a, object.spec.items.all(b, a != b))`; spec.items has no maxItems in "
        "the CRD of example.com/v1 Widget, so it is sized as the most a 3 MiB request can hold: add "
        "maxItems (at most 999 keeps the expression under the per-call limit)"
    )


@pytest.mark.parametrize(
    ("cost", "over"),
    [
        (1_999_999, " (`"),  # under twice the limit: a small bound does it, no factor
        (2_000_000, ", 2.0 times over (`"),
        (9_949_999, ", 9.9 times over (`"),
        (10_000_000, ", 10 times over (`"),
        (17_592_173_461_517, ", 17,592,173 times over (`"),
    ],
)
def test_the_factor_over_the_per_call_limit(cost: int, over: str) -> None:
    (found,) = cost_diagnostics(_costs(cost, 10), _sites(), {"pairs": "spec.variables[0].expression"})
    assert f"at admission{over}operation cancelled" in found.message


def test_under_the_limit_is_silent() -> None:
    assert cost_diagnostics(_costs(999_999, 10), _sites(), {"pairs": "spec.variables[0].expression"}) == []


def test_expressions_each_under_the_limit_that_together_exhaust_the_budget() -> None:
    # two validations read `pairs` (up to 950,000): charged once in the validations' call, so
    # 900,000 + 950,000 + 4 + 4 is far from the budget
    sites = _sites()
    variables = {"pairs": "spec.variables[0].expression"}
    assert cost_diagnostics(_costs(900_000, 950_000), sites, variables) == []
    # eleven validations each up to 999,999 do: 10,999,989 > 10,000,000
    many = [SiteCost(sites[1], 1, 999_999, (0, 10), "object.spec.items.all(…)", fixes=(FIX,))]
    copies = [
        SiteCost(
            ExpressionSite(K.VALIDATION, ("spec", "validations", i, "expression"), sites[1].node),
            1,
            999_999,
        )
        for i in range(1, 11)
    ]
    found = cost_diagnostics(many + copies, [sites[1]] + [c.site for c in copies], {})
    assert [d.field for d in found] == ["spec.validations"]
    assert found[0].message.startswith(
        "spec.validations: the validations and messageExpressions of one evaluation can cost up to "
        "10,999,989 together, over the 10,000,000 budget the API server gives them (`validation "
        "failed due to running out of cost budget, no further validation rules will be run`); the "
        "largest share is spec.validations[0].expression, up to 999,999: dominated by"
    )


def test_nothing_to_suggest_for_ranges_that_are_not_schema_fields() -> None:
    variable, v0, v1, v2 = _sites()
    costs = [SiteCost(v0, 0, 1 << 64, (0, 5), "x", schema_ranges=False)]
    assert cost_diagnostics(costs, [variable, v0, v1, v2], {}) == []


def test_a_variable_seen_earlier_in_the_phase_does_not_stop_the_next_ones() -> None:
    """`v1` reads `x` (charged for `v0` already) and then `z` (new): `z` is charged all the same —
    the lazy `variables` map of one `ForInput` call evaluates each variable once (issue 39: a
    `continue` turned `break` charged `z` to nobody)."""
    costs = {"v0": R(1, 1), "v1": R(1, 1), "m0": R(1, 1), "x": R(10, 10), "z": R(100, 100)}
    reads = {"v0": ["x"], "v1": ["x", "z"]}
    [estimate] = estimate_budgets([VALIDATIONS], costs.get, lambda f: reads.get(f, []), {"x": "x", "z": "z"})
    assert [(c.field, c.phase) for c in estimate.charges] == [
        ("v0", "validations"),
        ("x", "validations"),
        ("v1", "validations"),
        ("z", "validations"),
        ("m0", "messageExpressions"),
    ]
    assert estimate.max == 1 + 10 + 1 + 100 + 1
