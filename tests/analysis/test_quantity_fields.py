"""Quantity fields are untyped for the server's type checker, present at admission.

`resource.Quantity` is `oneOf: [string, number]` without a `type` in the OpenAPI the server
types built-in kinds from (kube-openapi's generated
`schema_k8s_io_apimachinery_pkg_api_resource_Quantity`, whose v3 schema
`DefinitionsSchemaResolver` reads), and `SchemaDeclType` (apiserver pkg/cel/common/schemas.go)
returns nil for a schema without a type: a Quantity field (`emptyDir.sizeLimit`) and a map of
them (`resources.limits`, `resources.requests`) are left out of the object's type. The type
checker (`typechecking.go`) then warns `undefined field 'limits'` on every selection, which the
oracle (issue 34, Kubernetes' own Go code) confirms on the corpus. At admission the object is
untyped JSON and holds the field: `has()` is no dead guard, the policy works, and `dyn()` around
the object it is selected from ends the warning.
"""

from __future__ import annotations

import textwrap

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.features.code_actions import DiagnosticRef, code_actions
from vap_lsp.features.edits import apply_edits
from vap_lsp.features.snapshot import make_snapshot

VERSION = "1.34"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: limits
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods]
  validations:
    - expression: {expression}
"""

EXPLANATION = (
    "'{field}' is in the schema without a type, as every Quantity is: the type checker cannot see "
    "it, objects at admission have it; dyn() around the object it is selected from ends the warning"
)


def _policy(expression: str) -> str:
    return POLICY.format(expression=expression)


def _diagnostics(text: str) -> list[tuple[str, str, str, list[str]]]:
    found = analyse_text(text, AnalysisSettings(VERSION)).diagnostics
    return [(d.severity.name, d.code, d.message, [r.message for r in d.related]) for d in found]


def test_a_map_of_quantities_is_an_undefined_field_for_the_type_checker() -> None:
    text = _policy(
        "\"object.spec.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)\""
    )
    warning = (
        "spec.validations[0].expression: type checking against /v1, Kind=Pod: ERROR: <input>:1:{col}: "
        "undefined field 'limits'"
    )
    # Both selections warn, the one inside has() too; neither is a branch a guard rules out
    # (has() of a field the schema declares is not false at admission).
    assert _diagnostics(text) == [
        ("WARNING", "cel-type-check", warning.format(col=34), [EXPLANATION.format(field="limits")]),
        ("WARNING", "cel-type-check", warning.format(col=81), [EXPLANATION.format(field="limits")]),
    ]


def test_a_quantity_field_is_an_undefined_field_too() -> None:
    text = _policy("\"object.spec.volumes.all(v, !has(v.emptyDir) || v.emptyDir.sizeLimit != '')\"")
    assert [d for d in _diagnostics(text) if d[1] != "optional-field"] == [
        (
            "WARNING",
            "cel-type-check",
            "spec.validations[0].expression: type checking against /v1, Kind=Pod: ERROR: <input>:1:58: "
            "undefined field 'sizeLimit'",
            [EXPLANATION.format(field="sizeLimit")],
        )
    ]


def test_dyn_around_the_owner_ends_the_warning() -> None:
    text = _policy(
        '"object.spec.containers.all(c, has(dyn(c.resources).limits)'
        " && 'memory' in dyn(c.resources).limits)\""
    )
    assert _diagnostics(text) == []


def test_the_policy_works_at_admission() -> None:
    text = _policy(
        "\"object.spec.containers.all(c, has(c.resources.limits) && 'memory' in c.resources.limits)\""
    )
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "limits"},
        "spec": {"policyName": "limits", "validationActions": ["Deny"]},
    }
    inputs = PolicyInputs.from_objects([yaml.safe_load(text), binding])

    def pod(resources: dict[str, object]) -> dict[str, object]:
        container = {"name": "app", "image": "nginx", "resources": resources}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                "spec": {"containers": [container]}}  # fmt: skip

    with_memory = admit(
        AdmissionRequestInput("CREATE", pod({"limits": {"memory": "1Gi"}})),
        inputs,
        kubernetes_version=VERSION,
    )
    without = admit(
        AdmissionRequestInput("CREATE", pod({"limits": {"cpu": "1"}})), inputs, kubernetes_version=VERSION
    )
    assert with_memory.allowed
    assert not without.allowed


def test_a_mutation_reading_limits_gets_no_finding_of_vap_lsps_own() -> None:
    # The server does not type-check MAP expressions; vap-lsp's own check reports only fields a
    # schema lacks, and `limits` is declared.
    text = textwrap.dedent("""\
        apiVersion: admissionregistration.k8s.io/v1beta1
        kind: MutatingAdmissionPolicy
        metadata:
          name: limits
        spec:
          matchConstraints:
            resourceRules:
              - apiGroups: [""]
                apiVersions: [v1]
                operations: [CREATE]
                resources: [pods]
          reinvocationPolicy: Never
          mutations:
            - patchType: JSONPatch
              jsonPatch:
                expression: >-
                  has(object.spec.containers[0].resources.limits) ? [] :
                  [JSONPatch{op: 'add', path: '/spec/containers/0/resources/limits',
                  value: {'memory': '1Gi'}}]
        """)
    assert [d for d in _diagnostics(text) if d[1].startswith("cel-type-check")] == []


def test_quick_fix_wraps_the_owner_in_dyn() -> None:
    text = _policy("\"object.spec.containers.all(c, 'memory' in c.resources.limits)\"")
    found = [
        d for d in analyse_text(text, AnalysisSettings(VERSION)).diagnostics if d.code == "cel-type-check"
    ]
    refs = [DiagnosticRef(d.span, d.code, d.message, d.field) for d in found]
    snapshot = make_snapshot("file:///p.yaml", text, 1, AnalysisSettings(VERSION), None)
    actions = {a.title: apply_edits(text, a.edits) for a in code_actions(snapshot, refs)}
    assert actions == {
        "Wrap in dyn(): dyn(c.resources).limits": _policy(
            "\"object.spec.containers.all(c, 'memory' in dyn(c.resources).limits)\""
        )
    }


def test_other_reads_of_the_expression_still_get_their_hints() -> None:
    # The untyped field is the server's warning, no failure at admission: the optional-field
    # check still looks at the rest of the expression.
    text = _policy(
        "\"object.spec.containers.all(c, 'cpu' in c.resources.limits) && object.spec.hostNetwork\""
    )
    found = [(s, c, m) for s, c, m, _ in _diagnostics(text)]
    assert found[0][:2] == ("WARNING", "cel-type-check")
    assert found[1:] == [
        (
            "HINT",
            "optional-field",
            "spec.validations[0].expression: object.spec.hostNetwork is optional in the schema; without "
            "has() or `.?` the expression fails when it is absent",
        )
    ]
