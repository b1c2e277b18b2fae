"""Kubernetes 1.37's schemaless typed admission values (apiserver
pkg/cel/common/valuesschemalesstyped.go `SchemalessTypedToVal`, bound by
pkg/admission/plugin/cel/activation.go `newActivation` with `useSchemalessTypeRef` from
condition.go `ForInput`): the same policy and Deployment at 1.36 (JSON-shaped maps, cel-go's
`NativeToValue`) and 1.37. Each case: a validation expression and the verdict message at each
version (None: allowed). Run by tests/admission/test_admission_schemaless_typed.py (vap-lsp at
both versions) and tests/oracle/test_schemaless_typed.py (beside the oracle, which links 1.37)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typed}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "EXPRESSION"
    message: "invalid"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: typed-b}
spec:
  policyName: typed
  validationActions: [Deny]
---
apiVersion: v1
kind: Namespace
metadata: {name: default}
"""

DEPLOYMENT: dict[str, Any] = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      securityContext: {}
      containers:
      - {name: c, image: nginx, resources: {}}
"""
)

DENIED = "ValidatingAdmissionPolicy 'typed' with binding 'typed-b' denied request: "


def documents(expression: str) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(POLICY.replace("EXPRESSION", expression)))


def error(expression: str, text: str = "no such overload") -> str:
    return f"{DENIED}expression '{expression}' resulted in error: {text}"


@dataclass(frozen=True)
class Case:
    name: str
    expression: str
    v136: str | None
    """The denial message at 1.36 (None: allowed)."""
    v137: str | None


_EXISTS_ONE = "object.spec.template.spec.containers.exists_one(x, x == 2)"
_LABELS = "object.metadata.labels == 1"
_ELEMENTS = "[object.spec] == [1]"
_USER = "dyn(request.userInfo) == 'alice'"
_NAMESPACE = "dyn(namespaceObject.metadata.labels) == 1"
_SELECTOR = "object.spec.selector == {'matchLabels': dyn(1)}"

CASES = [
    # The divergence CI found: a struct (a container) `==` an int. reflectSchemalessTypedStruct.Equal
    # answers MaybeNoSuchOverloadErr where cel-go's baseMap.Equal answered false.
    Case("struct == int", _EXISTS_ONE, f"{DENIED}invalid", error(_EXISTS_ONE)),
    # reflectSchemalessTypedMap.Equal: a Go map (labels) against an int.
    Case("map == int", _LABELS, f"{DENIED}invalid", error(_LABELS)),
    # cel-go evalNe: `types.Equal(l, r) != types.True`: the error is `true`, not an error.
    Case("struct != int", "object.spec != 1", None, None),
    # `==` with null: types.Equal decides before the struct's Equal is asked.
    Case("struct == null", "!(object.spec == null)", None, None),
    # The literal list is cel-go's (baseList.Equal): only a False between elements decides, so the
    # error between the struct and 1 counts as equal.
    Case("[struct] == [int]", _ELEMENTS, f"{DENIED}invalid", None),
    # So is a comprehension's result: its mutable list is made immutable (a baseList) as it ends.
    Case(
        "filter([struct]) == [string]",
        "object.spec.template.spec.containers.filter(c, true) == ['a']",
        f"{DENIED}invalid",
        None,
    ),
    Case(
        "map([struct]) == map([string])",
        "object.spec.template.spec.containers.map(c, c) == object.metadata.labels.map(k, k)",
        f"{DENIED}invalid",
        None,
    ),
    # request is an AdmissionRequest; its userInfo a struct.
    Case("request struct == string", _USER, f"{DENIED}invalid", error(_USER)),
    # namespaceObject is a *v1.Namespace; its labels a Go map.
    Case("namespace map == int", _NAMESPACE, f"{DENIED}invalid", error(_NAMESPACE)),
    # A struct against a map literal: the first field that is not equal decides, an error included.
    Case("struct == map, nested error", _SELECTOR, f"{DENIED}invalid", error(_SELECTOR)),
    # Two structs are apiequality.Semantic.DeepEqual: never equal across Go types, though both
    # are {} (PodSecurityContext, ResourceRequirements).
    Case(
        "structs of two Go types",
        "object.spec.template.spec.securityContext != object.spec.template.spec.containers[0].resources",
        f"{DENIED}invalid",
        None,
    ),
    # Unchanged: the same kinds compare as before.
    Case("map == map", "object.metadata.labels == {'app': 'web'}", None, None),
    Case("struct == struct", "object.spec.template.metadata == object.spec.template.metadata", None, None),
    Case("int in list", "!(1 in object.spec.template.spec.containers)", None, None),
]
