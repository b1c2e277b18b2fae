"""Completion and hover inside a guarded branch type `object` as a kind the branch can run for.

The policy matches Pods and Deployments; editor features type `object` as the first kind (the
Pod). In `object.kind != 'Deployment' || object.spec.…` the right side never runs for a Pod, so
there `object` is typed as the Deployment (`analysis.narrowing`, `PolicyContext.kind_at`).
"""

from __future__ import annotations

from cel_feature_helpers import at, snapshot

from vap_lsp.features.cel_completion import complete
from vap_lsp.features.cel_hover import hover

PODS_AND_DEPLOYMENTS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: workloads
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
  variables:
    - name: isPod
      expression: "object.kind == 'Pod'"
  validations:
    - expression: EXPR
"""


def _labels(expression: str, needle: str) -> set[str]:
    text = PODS_AND_DEPLOYMENTS.replace("EXPR", expression)
    result = complete(snapshot(text), at(text, needle))
    assert result is not None
    return {i.label for i in result.items}


def test_completion_in_a_branch_the_first_kind_cannot_run_offers_the_other_kinds_fields() -> None:
    labels = _labels("\"object.kind != 'Deployment' || object.spec.\"", "|| object.spec.")
    assert {"replicas", "template", "strategy"} <= labels and "containers" not in labels
    labels = _labels("\"object.kind == 'Pod' || object.spec.\"", "|| object.spec.")
    assert "template" in labels and "containers" not in labels


def test_completion_where_the_first_kind_runs_offers_its_fields() -> None:
    labels = _labels("\"object.kind != 'Pod' || object.spec.\"", "|| object.spec.")
    assert "containers" in labels and "template" not in labels


def test_completion_through_a_variable_guard_and_the_conditional_operator() -> None:
    labels = _labels('"variables.isPod ? object.spec.containers.size() > 0 : object.spec."', ": object.spec.")
    assert "template" in labels and "containers" not in labels


def test_completion_without_a_guard_keeps_the_first_kind() -> None:
    labels = _labels("\"object.metadata.name != 'Pod' || object.spec.\"", "|| object.spec.")
    assert "containers" in labels


def test_hover_in_a_guarded_branch_types_the_field_from_the_kind_that_runs() -> None:
    expression = "\"object.kind == 'Pod' || object.spec.replicas > 1\""
    text = PODS_AND_DEPLOYMENTS.replace("EXPR", expression)
    result = hover(snapshot(text), at(text, "replicas", 2))
    assert result is not None
    assert text[result.span.start : result.span.end] == "replicas"
    assert "replicas: int" in result.markdown and "Field of `Deployment.spec`" in result.markdown
    root = hover(snapshot(text), at(text, "|| object", 4))
    assert root is not None
    assert "object: Deployment" in root.markdown
    assert "(typed as Deployment: a guard rules the first out here)" in root.markdown


def test_completion_in_a_validation_types_the_kind_its_match_conditions_let_through() -> None:
    # The matchCondition lets only Deployments through: a validation never runs for a Pod.
    condition = (
        "  matchConditions:\n    - name: deployments\n      expression: \"object.kind == 'Deployment'\"\n"
    )
    text = PODS_AND_DEPLOYMENTS.replace("  variables:\n", condition + "  variables:\n").replace(
        "EXPR", '"object.spec."'
    )
    result = complete(snapshot(text), at(text, "object.spec."))
    assert result is not None
    labels = {i.label for i in result.items}
    assert "template" in labels and "containers" not in labels
    # In the matchCondition itself every kind runs.
    text = text.replace("object.kind == 'Deployment'", "object.spec.")
    offset = text.index("object.spec.") + len("object.spec.")
    result = complete(snapshot(text), offset)
    assert result is not None
    assert "containers" in {i.label for i in result.items}


def test_completion_reads_a_guard_after_the_cursor() -> None:
    # CEL's `||` is commutative: the right side guards the left (the Pod never needs it).
    labels = _labels("\"object.spec. || object.kind == 'Pod'\"", '"object.spec.')
    assert "template" in labels and "containers" not in labels
    labels = _labels("\"object.spec.rep > 0 || object.kind == 'Pod'\"", '"object.spec.')
    assert "replicas" in labels and "containers" not in labels


def test_in_a_variable_read_only_where_the_first_kind_is_ruled_out_features_type_the_other() -> None:
    # Variables are evaluated lazily: `variables.c` is read only where `object` is no Pod.
    text = PODS_AND_DEPLOYMENTS.replace(
        "    - name: isPod\n      expression: \"object.kind == 'Pod'\"\n",
        '    - name: c\n      expression: "object.spec.template.spec.containers"\n',
    ).replace("EXPR", "\"object.kind == 'Pod' || variables.c.all(x, x.name != '')\"")
    result = hover(snapshot(text), at(text, "spec.template", 7))
    assert result is not None
    assert "template: Deployment.spec.template" in result.markdown  # for a Pod: no such field
    typing = text.replace("object.spec.template.spec.containers", "object.spec.")
    completed = complete(snapshot(typing), at(typing, '"object.spec.'))
    assert completed is not None
    labels = {i.label for i in completed.items}
    assert "template" in labels and "containers" not in labels
