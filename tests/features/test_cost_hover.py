"""Hover shows what an expression can cost (the static estimate, `analysis.cost_estimates`) and
the limits the API server applies to it (`analysis.cost_budget`): on the expression's key and on
a comprehension's macro."""

from __future__ import annotations

from yaml_feature_helpers import CURSOR, at_cursor

from vap_lsp.features import cel_hover, yaml_hover

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  variables:
    - name: names
      expression: "object.spec.containers.map(c, c.name)"
  validations:
    - expression: "object.spec.containers.all(c, c.env.all(e, e.name != ''))"
    - expression: "variables.names.size() < 10"
"""


def test_the_expression_key_shows_its_estimated_cost_and_budget() -> None:
    snapshot, offset = at_cursor(
        POLICY.replace('- expression: "object', "- expr" + CURSOR + 'ession: "object')
    )
    result = yaml_hover.hover(snapshot, offset)
    assert result is not None
    cost = result.markdown.split("\n\n**Estimated cost**", 1)[1]
    assert cost.startswith(" for Pod: ")
    assert "(per-call limit 1,000,000) — **over the per-call limit**: the server would cancel it" in cost
    assert (
        "\n\nBudget: validations and messageExpressions, 10,000,000 per evaluation; together up to " in cost
    )


def test_a_variable_is_charged_to_each_call_that_reads_it() -> None:
    snapshot, offset = at_cursor(
        POLICY.replace(
            '  expression: "object.spec.containers.map',
            "  expr" + CURSOR + 'ession: "object.spec.containers.map',
        )
    )
    result = yaml_hover.hover(snapshot, offset)
    assert result is not None
    assert result.markdown.endswith(
        "Charged to the budget of each call that reads it, once per call (validations, "
        "messageExpressions, auditAnnotations, each mutation)."
    )


def test_a_macro_shows_its_comprehension_share() -> None:
    snapshot, offset = at_cursor(POLICY.replace("c.env.all(", "c.env.a" + CURSOR + "ll("))
    result = cel_hover.hover(snapshot, offset)
    assert result is not None
    assert "\n\n**This comprehension**: " in result.markdown
    assert "of the expression's " in result.markdown
    assert "**Estimated cost** for Pod: " in result.markdown
