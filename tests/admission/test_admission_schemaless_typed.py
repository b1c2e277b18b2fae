"""Kubernetes 1.37 binds built-in objects, `request`, `namespaceObject` and typed params as
schemaless typed values whose `==` against another kind is an error (tests/oracle/
schemaless_cases.py, where each case says why); 1.36 and earlier as JSON-shaped maps. The same
cases run beside the oracle in tests/oracle/test_schemaless_typed.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))

from schemaless_cases import CASES, DEPLOYMENT, Case, documents

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, prepare


def verdict(docs: list[dict[str, object]], version: str, obj: dict[str, object] = DEPLOYMENT) -> str | None:
    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version=version, builtin_admission=False)
    result = prepared.admit(AdmissionRequestInput("CREATE", obj))
    return None if result.allowed else result.denials[0].message


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_136_compares_json_shaped_values(case: Case) -> None:
    assert verdict(documents(case.expression), "1.36") == case.v136


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_137_compares_schemaless_typed_values(case: Case) -> None:
    assert verdict(documents(case.expression), "1.37") == case.v137


def test_earlier_versions_are_unchanged() -> None:
    docs = documents("object.metadata.labels == 1")
    assert verdict(docs, "1.30") == verdict(docs, "1.36")


CRD = yaml.safe_load(
    """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
"""
)


def test_a_custom_resource_stays_json_shaped() -> None:
    """conversion.go `LazyObject.CELValue`: an `*unstructured.Unstructured` keeps cel-go's
    `NativeToValue`, at 1.37 too: its map `==` an int is false."""
    docs = documents("object.spec == 1")
    rule = {"apiGroups": ["example.com"], "apiVersions": ["v1"], "operations": ["CREATE"]}
    docs[0]["spec"]["matchConstraints"]["resourceRules"] = [{**rule, "resources": ["widgets"]}]
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"size": 1}}
    widget["metadata"] = {"name": "w", "namespace": "default"}
    message = "ValidatingAdmissionPolicy 'typed' with binding 'typed-b' denied request: invalid"
    assert verdict([*docs, CRD], "1.37", widget) == message


MUTATING = """
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  matchConditions:
  - name: typed
    expression: "CONDITION"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{annotations: {'eq': string(object.spec == 1)}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: m-b}
spec: {policyName: m}
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
"""


def mutate(condition: str) -> AdmissionResult:
    docs = list(yaml.safe_load_all(MUTATING.replace("CONDITION", condition)))
    prepared = prepare(PolicyInputs.from_objects(docs), kubernetes_version="1.37", builtin_admission=False)
    return prepared.admit(AdmissionRequestInput("CREATE", DEPLOYMENT))


def test_a_mutation_reads_json_shaped_objects_its_match_conditions_typed() -> None:
    """mutation.go calls `newActivation` without `useSchemalessTypeRef`: a mutation's `object`
    `==` an int is false at 1.37; the policy's matchConditions go through condition.go `ForInput`,
    where it is an error (failurePolicy Fail denies)."""
    result = mutate("true")
    assert result.allowed and result.patched is not None
    assert result.patched["metadata"]["annotations"] == {"eq": "false"}

    result = mutate("object.spec == 1")
    assert not result.allowed
    assert "resulted in error: no such overload" in result.denials[0].message
