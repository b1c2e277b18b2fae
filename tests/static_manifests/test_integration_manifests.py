# ruff: noqa: E501  (the server's messages and the Go tests' YAML are kept as written, one line each)
"""The static-policy integration test's manifests, as kube-apiserver loads them at start-up.

k8s.io/kubernetes v1.37.2 `test/integration/apiserver/cel/static_policy_test.go`:
`TestStaticPolicyComprehensive` writes its manifests with `writeManifestToFile`
(`sigs.k8s.io/yaml.Marshal` of each object, joined by `\n---\n`; the files below are that
output, made by running the same code) into one folder per plugin, and checks that
kube-apiserver starts with them and enforces them; `TestStaticPolicyBlocksAPICreation` checks
that the API refuses the reserved names. The same files must load here, and the same names must
be refused through the API.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.static_manifests.folders import loader_errors, run
from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import analyse_text
from vap_lsp.analysis.settings import AnalysisSettings

# "validating policy active at startup": pre-populated before the server starts.
DENY_LABELS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: deny-labels.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:
      - ""
      apiVersions:
      - v1
      operations:
      - CREATE
      resources:
      - configmaps
  validations:
  - expression: '!has(object.metadata.labels) || !(''deny-me'' in object.metadata.labels)'
    message: configmaps with label 'deny-me' are not allowed
status: {}

---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: deny-labels-binding.static.k8s.io
spec:
  policyName: deny-labels.static.k8s.io
  validationActions:
  - Deny
"""

# "hot reload mutating policy", in the mutating plugin's folder.
ADD_LABEL = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-label.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:
      - ""
      apiVersions:
      - v1
      operations:
      - CREATE
      resources:
      - configmaps
  mutations:
  - applyConfiguration:
      expression: 'Object{metadata: Object.metadata{labels: {"static-mutated": "true"}}}'
    patchType: ApplyConfiguration
  reinvocationPolicy: Never

---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-label-binding.static.k8s.io
spec:
  policyName: add-label.static.k8s.io
"""

# "v1.List format manifest" (written as a literal in the test).
DENY_ANNOTATIONS = """\
apiVersion: v1
kind: List
items:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  metadata:
    name: deny-annotations.static.k8s.io
  spec:
    failurePolicy: Fail
    matchConstraints:
      resourceRules:
      - operations: ["CREATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
    validations:
    - expression: "!has(object.metadata.annotations) || !('blocked' in object.metadata.annotations) || object.metadata.annotations['blocked'] != 'true'"
      message: "configmaps with annotation 'blocked=true' are not allowed"
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicyBinding
  metadata:
    name: deny-annotations-binding.static.k8s.io
  spec:
    policyName: deny-annotations.static.k8s.io
    validationActions: ["Deny"]
"""

# "static policy protects admission config resources".
PROTECT_VAPS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: protect-vaps.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:
      - admissionregistration.k8s.io
      apiVersions:
      - v1
      operations:
      - CREATE
      resources:
      - validatingadmissionpolicies
  validations:
  - expression: "false"
    message: VAP creation denied by static policy
status: {}

---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: protect-vaps-binding.static.k8s.io
spec:
  policyName: protect-vaps.static.k8s.io
  validationActions:
  - Deny
"""


@pytest.mark.parametrize(
    ("plugin", "files", "policies"),
    [
        ("validating", {"deny-labels.yaml": DENY_LABELS}, 1),
        ("mutating", {"add-label.yaml": ADD_LABEL}, 1),
        (
            "validating",
            {
                "deny-labels.yaml": DENY_LABELS,
                "deny-annotations.yaml": DENY_ANNOTATIONS,
                "protect-vaps.yaml": PROTECT_VAPS,
            },
            3,
        ),
    ],
    ids=["at start-up", "mutating folder", "every validating manifest of the test"],
)
def test_the_integration_tests_manifests_load(
    plugin: str, files: dict[str, str], policies: int, tmp_path: Path
) -> None:
    result = run(tmp_path, files, plugin)
    assert loader_errors(result) == []
    assert (result.policies, result.bindings) == (policies, policies)
    # and nothing else to say about them either (no warning, no advice)
    assert [d.message for f in result.files for d in f.diagnostics if d.severity <= Severity.WARNING] == []


# TestStaticPolicyBlocksAPICreation: the four kinds with reserved names, created through the API.
BLOCKED = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: test-policy.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - operations: ["CREATE"]
      apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["configmaps"]
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: test-binding.static.k8s.io
spec:
  policyName: some-policy
  validationActions: ["Deny"]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: test-policy.static.k8s.io
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - operations: ["CREATE"]
      apiGroups: [""]
      apiVersions: ["v1"]
      resources: ["configmaps"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: test-binding.static.k8s.io
spec:
  policyName: some-policy
"""


def test_the_api_refuses_reserved_names() -> None:
    """`expectStaticSuffixRejection`: Invalid, "reserved for static manifest-based configurations"
    (gate on: 1.37); in 1.36 (gate off by default) the same four are only warned about."""
    found = analyse_text(BLOCKED, AnalysisSettings("1.37")).diagnostics
    reserved = [d for d in found if "reserved for static manifest-based configurations" in d.message]
    assert [(d.severity, d.code) for d in reserved] == [(Severity.ERROR, "FieldValueInvalid")] * 4
    found = analyse_text(BLOCKED, AnalysisSettings("1.36")).diagnostics
    reserved = [d for d in found if "reserved for static manifest-based configurations" in d.message]
    assert [d.severity for d in reserved] == [Severity.WARNING] * 4
