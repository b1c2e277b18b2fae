"""Offline admission at the edges the mutation runs found untested (issue 39).

`namespaceObject` inside matchConditions: `pkg/admission/plugin/webhook/matchconditions/
matcher.go` `Match` evaluates the conditions with `ForInput(..., nil, ...)` — no namespace —
while validations get the request's Namespace (`validating/dispatcher.go`). The earlier test
could not tell the two apart (a condition `namespaceObject == null` that failed skipped the
policy, which also admits); these assert the decision each way.
"""

from __future__ import annotations

from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}
NAMESPACE = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "default", "labels": {"tier": "gold"}},
}


def _admit(conditions: str, validation: str) -> AdmissionResult:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}}
  matchConditions:
{conditions}
  validations:
  - expression: "{validation}"
    message: denied
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec:
  policyName: p
  validationActions: [Deny]
"""
    docs = [d for d in yaml.safe_load_all(text) if d] + [NAMESPACE]
    request = AdmissionRequestInput("CREATE", POD, None)
    return admit(request, PolicyInputs.from_objects(docs), kubernetes_version="1.34")


def test_namespace_object_is_null_in_match_conditions() -> None:
    # The condition holds (null), so the validation runs and denies.
    result = _admit("  - {name: ns, expression: 'namespaceObject == null'}", "false")
    assert not result.allowed
    assert [d.message for d in result.denials] == [
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: denied"
    ]
    assert result.evaluations[0].why_not is None


def test_a_condition_that_reads_the_namespace_is_false_not_an_error() -> None:
    # `namespaceObject != null` is false: the policy is skipped with the condition's name.
    result = _admit("  - {name: has-ns, expression: 'namespaceObject != null'}", "false")
    assert result.allowed
    assert result.evaluations[0].why_not == "matchCondition 'has-ns' is false"


def test_validations_see_the_namespace_the_conditions_do_not() -> None:
    result = _admit(
        "  - {name: ns, expression: 'namespaceObject == null'}",
        "namespaceObject.metadata.labels.tier != 'gold'",
    )
    assert not result.allowed  # the validation read the Namespace's label
