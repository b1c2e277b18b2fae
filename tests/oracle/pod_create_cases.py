"""Pods whose creation the registry prepares beyond their status (a Pod's `PrepareForCreate`,
pkg/registry/core/pod/strategy.go): run by tests/defaulting/test_pod_prepare_for_create.py
(vap-lsp at each version) and tests/oracle/test_serve.py (created on a real kube-apiserver)."""

from __future__ import annotations

from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["*"], operations: ["*"], resources: [pods]}
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""


def evaluated(pod: str, version: str = "1.37") -> dict[str, Any]:
    """The pod as validating admission saw it on CREATE."""
    inputs = PolicyInputs.from_objects([d for d in yaml.safe_load_all(POLICY) if d])
    result = admit(AdmissionRequestInput("CREATE", yaml.safe_load(pod)), inputs, kubernetes_version=version)
    assert result.allowed
    found: dict[str, Any] = result.evaluated
    return found


GATED = """
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: c, image: nginx}]
"""

AFFINITY = """
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web, tier: front}}
spec:
  containers: [{name: c, image: nginx}]
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {a: b}}
        topologyKey: zone
        matchLabelKeys: [app, missing]
        mismatchLabelKeys: [tier]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        podAffinityTerm:
          labelSelector: {matchExpressions: [{key: x, operator: Exists}]}
          topologyKey: zone
          matchLabelKeys: [app]
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {a: b}}
    matchLabelKeys: [app]
"""

KEY = "container.apparmor.security.beta.kubernetes.io/"


def apparmor_pod(
    annotations: dict[str, str], pod_profile: str | None = None, os: str | None = None
) -> dict[str, Any]:
    """A pod with a container `c` and an init container `i`, and deprecated AppArmor annotations."""
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "a", "namespace": "default", "annotations": annotations},
        "spec": {
            "containers": [{"name": "c", "image": "nginx"}],
            "initContainers": [{"name": "i", "image": "nginx"}],
        },
    }
    if pod_profile:
        pod["spec"]["securityContext"] = {"appArmorProfile": {"type": pod_profile}}
    if os:
        pod["spec"]["os"] = {"name": os}
    return pod
