"""CEL cost budgets at admission as kube-apiserver accounts them (`vap_lsp.analysis.model.cost_budget`):
`plugin/cel/activation.go` `Evaluate` (each expression's actual cost and the variables it read
first, taken from what is left), `composition.go` (one lazily evaluated `variables` map per
ForInput call; a variable's program has its own per-call limit and its error is a value),
`webhook/matchconditions/matcher.go` (every condition evaluated against
RuntimeCELCostBudgetMatchConditions before the results are read), `policy/validating/validator.go`
(validations, then messageExpressions with what is left, auditAnnotations with a fresh budget),
`policy/mutating/dispatcher.go` (each mutation its own budget and variables)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs
from vap_lsp.admission.explain import explain_result, render_text
from vap_lsp.analysis.model.cost_budget import (
    COST_LIMIT_EXCEEDED,
    MATCH_CONDITIONS_BUDGET,
    OUT_OF_BUDGET,
    RUNTIME_BUDGET,
)

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "labels": {"app": "web"},
        "annotations": {"s": "a" * 9000},
    },
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}

TEN = "[1,2,3,4,5,6,7,8,9,10]"
# 344,000-odd: under the per-call limit, a third of it
HEAVY = f"{TEN}.all(a, {TEN}.all(b, {TEN}.all(c, {TEN}.all(d, {TEN}.all(e, true)))))"
# 810,000-odd, and quick to evaluate: contains() costs the product of the lengths / 100
LONG = "object.metadata.annotations.s.contains(object.metadata.annotations.s)"
# over the per-call limit of 1,000,000
OVER = f"{TEN}.all(a, {TEN}.all(b, {TEN}.all(c, {TEN}.all(d, {TEN}.all(e, {TEN}.all(f, true))))))"
PREFIX = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "


def _vap(spec: str) -> list[Any]:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}}
{spec}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""
    return [d for d in yaml.safe_load_all(text) if d]


def _admit(docs: list[Any], *, explain: bool = False) -> AdmissionResult:
    from vap_lsp.admission.api import prepare

    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version="1.34")
    return prepared.admit(AdmissionRequestInput("CREATE", POD), explain=explain)


def _cost(expression: str) -> int:
    """The actual cost of one validation evaluated alone."""
    result = _admit(_vap(f'  validations:\n  - expression: "{expression}"\n'))
    return result.evaluations[0].expressions[0].cost


def test_a_false_match_condition_does_not_save_the_budget() -> None:
    # matcher.go: ForInput evaluates every condition against 2,500,000 before reading them;
    # eight heavy ones after a false one run out of it, and failurePolicy Fail denies
    conditions = "  - {name: no, expression: 'false'}\n" + "".join(
        f'  - {{name: h{i}, expression: "{HEAVY}"}}\n' for i in range(8)
    )
    result = _admit(_vap("  matchConditions:\n" + conditions + "  validations:\n  - expression: 'true'\n"))
    assert [d.message for d in result.denials] == [PREFIX + OUT_OF_BUDGET]
    use = result.evaluations[0].budgets[0]
    assert (use.name, use.limit, use.exhausted) == ("matchConditions", MATCH_CONDITIONS_BUDGET, True)
    assert use.spent == 7 * _cost(HEAVY)  # a constant costs nothing; the refused eighth is not taken


def test_a_variable_is_charged_once_per_call_that_reads_it() -> None:
    spec = (
        f'  variables:\n  - {{name: heavy, expression: "{HEAVY}"}}\n'
        "  validations:\n"
        "  - expression: 'variables.heavy'\n"
        "  - expression: 'variables.heavy'\n"
        "    messageExpression: \"variables.heavy ? 'x' : 'y'\"\n"
        "  auditAnnotations:\n  - {key: k, valueExpression: \"variables.heavy ? 'yes' : 'no'\"}\n"
    )
    result = _admit(_vap(spec))
    ev = result.evaluations[0]
    heavy = _cost(HEAVY)
    # read by the validations (once), by the messageExpressions (again), by the auditAnnotations
    assert [e.field for e in ev.expressions].count("spec.variables[0].expression") == 3
    validations, audits = ev.budgets
    assert validations.name == "validations and messageExpressions"
    assert heavy * 2 < validations.spent < heavy * 2 + 20
    assert (audits.name, audits.limit) == ("auditAnnotations", RUNTIME_BUDGET)
    assert heavy < audits.spent < heavy + 20
    assert result.audit_annotations == {"p/k": "yes"}


def test_thirty_validations_reading_one_heavy_variable_stay_in_budget() -> None:
    # 30 × 344,000 would exceed 10,000,000; the memoised variable is charged once
    reads = "".join("  - expression: 'variables.heavy'\n" for _ in range(30))
    spec = f'  variables:\n  - {{name: heavy, expression: "{HEAVY}"}}\n  validations:\n' + reads
    result = _admit(_vap(spec))
    assert result.allowed
    assert result.evaluations[0].budgets[0].spent < _cost(HEAVY) + 30 * 10


def test_message_expressions_spend_what_the_validations_left() -> None:
    # 11 long validations leave about 1,090,000; two long messageExpressions do not fit: every
    # validation gets `failed messageExpression: …` (validator.go), passing ones too
    validations = "".join(f'  - expression: "{LONG}"\n' for _ in range(11))
    validations += f"  - expression: 'false'\n    messageExpression: \"{LONG} ? 'a' : 'b'\"\n" * 2
    result = _admit(_vap("  validations:\n" + validations))
    messages = {d.message for d in result.denials}
    assert messages == {PREFIX + "failed messageExpression: " + OUT_OF_BUDGET}
    assert len(result.denials) == 13


def test_a_variable_over_the_per_call_limit_is_an_error_value() -> None:
    # composition.go: the variable's own program is cancelled; the expression reading it gets
    # `composited variable … fails to evaluate: …` as a value, which `||` can absorb
    spec = f'  variables:\n  - {{name: big, expression: "{OVER}"}}\n'
    failing = _admit(_vap(spec + "  validations:\n  - expression: 'variables.big'\n"))
    assert [d.message for d in failing.denials] == [
        PREFIX + "expression 'variables.big' resulted in error: "
        f'composited variable "big" fails to evaluate: {COST_LIMIT_EXCEEDED}'
    ]
    absorbed = _admit(_vap(spec + "  validations:\n  - expression: 'variables.big || true'\n"))
    assert absorbed.allowed
    # its cost still counts against the budget: the whole cancelled program
    assert absorbed.evaluations[0].budgets[0].spent > 1_000_000


def test_explain_shows_what_each_budget_spent_and_has_left() -> None:
    spec = (
        "  matchConditions:\n  - {name: c, expression: 'true'}\n"
        "  validations:\n  - expression: \"object.metadata.name == 'web'\"\n"
    )
    docs = _vap(spec)
    from vap_lsp.admission.api import prepare

    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version="1.34")
    request = AdmissionRequestInput("CREATE", POD)
    explanations = explain_result(prepared.admit(request, explain=True), prepared, request)
    text = render_text(explanations)
    assert text[-3:] == [
        "    cost: 4",
        "      matchConditions: 0 of 2,500,000 (2,500,000 left)",
        "      validations and messageExpressions: 4 of 10,000,000 (9,999,996 left)",
    ]
    budgets = json.loads(json.dumps(explanations[0].to_json()))["budgets"]
    assert budgets[1] == {
        "name": "validations and messageExpressions",
        "limit": 10_000_000,
        "spent": 4,
        "left": 9_999_996,
        "exhausted": False,
    }


def test_explain_says_where_the_budget_ran_out() -> None:
    validations = "".join(f'  - expression: "{LONG}"\n' for _ in range(13))
    docs = _vap("  validations:\n" + validations)
    from vap_lsp.admission.api import prepare

    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version="1.34")
    request = AdmissionRequestInput("CREATE", POD)
    explanations = explain_result(prepared.admit(request, explain=True), prepared, request)
    last = render_text(explanations)[-1]
    long = _cost(LONG)
    spent = (RUNTIME_BUDGET // long) * long
    assert last == (
        f"      validations and messageExpressions: {spent:,} of 10,000,000 ({RUNTIME_BUDGET - spent:,} left)"
        "; the next expression cost more than what was left: out of budget"
    )


# --- MutatingAdmissionPolicy ----------------------------------------------------------------------


def _map(mutations: str, variables: str = "") -> list[Any]:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {{name: m}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}}
  reinvocationPolicy: Never
{variables}
  mutations:
{mutations}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: m-b}}
spec: {{policyName: m}}
"""
    return [d for d in yaml.safe_load_all(text) if d]


def _label(key: str, value: str) -> str:
    return (
        "  - patchType: JSONPatch\n    jsonPatch:\n      expression: >\n"
        f"        [JSONPatch{{op: 'add', path: '/metadata/labels/{key}', value: {value}}}]\n"
    )


def test_each_mutation_reads_variables_over_the_object_as_mutated_so_far() -> None:
    # dispatcher.go: every mutation is a ForInput call of its own, with a fresh variables map
    variables = "  variables:\n  - {name: marked, expression: \"'first' in object.metadata.labels\"}"
    docs = _map(_label("first", "'yes'") + _label("second", "string(variables.marked)"), variables)
    result = _admit(docs)
    assert result.patched is not None
    assert result.patched["metadata"]["labels"] == {"app": "web", "first": "yes", "second": "true"}
    assert [b.name for b in result.evaluations[0].budgets] == ["spec.mutations[0]", "spec.mutations[1]"]
