"""Quick fixes: each applied to the text, asserting the exact resulting YAML."""

from __future__ import annotations

from yaml_feature_helpers import VERSION, snap

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.features.code_actions import DiagnosticRef, code_actions
from vap_lsp.features.edits import apply_edits

HEAD = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [deployments]
"""

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b
spec:
  policyName: p
"""


def fixes(text: str, code: str) -> dict[str, str]:
    """Title → fixed text, for the quick fixes of the diagnostics with `code`."""
    diagnostics = [d for d in analyse_text(text, AnalysisSettings(VERSION)).diagnostics if d.code == code]
    assert diagnostics, f"no {code} diagnostic"
    refs = [DiagnosticRef(d.span, d.code, d.message, d.field) for d in diagnostics]
    return {a.title: apply_edits(text, a.edits) for a in code_actions(snap(text), refs)}


def test_unknown_key_did_you_mean() -> None:
    text = HEAD + "  failurPolicy: Fail  # keep me\n  validations:\n    - expression: 'true'\n"
    assert fixes(text, "unknown-field") == {
        "Change to 'failurePolicy'": text.replace("failurPolicy", "failurePolicy")
    }


def test_undefined_cel_field_did_you_mean_inside_double_quotes() -> None:
    text = HEAD + '  validations:\n    - expression: "object.spec.replica > 1"\n'
    assert fixes(text, "cel-type-check") == {"Change to 'replicas'": text.replace(".replica ", ".replicas ")}


def test_undefined_cel_field_through_a_variable_did_you_mean() -> None:
    text = HEAD + "  variables:\n    - name: spec\n      expression: object.spec\n"
    text += "  validations:\n    - expression: variables.spec.replica > 1\n"
    assert fixes(text, "vap-lsp-type-check") == {
        "Change to 'replicas'": text.replace(".replica ", ".replicas ")
    }


def test_deny_and_warn_flow_and_block() -> None:
    flow = BINDING + "  validationActions: [Deny, Warn]\n"
    assert fixes(flow, "FieldValueInvalid") == {
        "Remove 'Warn' from validationActions": BINDING + "  validationActions: [Deny]\n",
        "Remove 'Deny' from validationActions": BINDING + "  validationActions: [Warn]\n",
    }
    block = BINDING + "  validationActions:\n    - Deny\n    - Warn # both\n  matchResources: {}\n"
    assert fixes(block, "FieldValueInvalid") == {
        "Remove 'Warn' from validationActions": BINDING
        + "  validationActions:\n    - Deny\n  matchResources: {}\n",
        "Remove 'Deny' from validationActions": BINDING
        + "  validationActions:\n    - Warn # both\n  matchResources: {}\n",
    }


def test_missing_parameter_not_found_action() -> None:
    block = BINDING + "  validationActions: [Deny]\n  paramRef:\n    name: limits  # the params\n"
    assert fixes(block, "FieldValueRequired") == {
        "Add parameterNotFoundAction: Deny": block + "    parameterNotFoundAction: Deny\n"
    }
    flow = BINDING + "  validationActions: [Deny]\n  paramRef: {name: limits}\n"
    assert fixes(flow, "FieldValueRequired") == {
        "Add parameterNotFoundAction: Deny": flow.replace(
            "{name: limits}", "{name: limits, parameterNotFoundAction: Deny}"
        )
    }


def test_dyn_result_compared_explicitly() -> None:
    text = (
        HEAD
        + "  variables:\n    - name: ok\n      expression: object.spec.paused\n"
        + '  validations:\n    - expression: "variables.ok"\n'
    )
    assert fixes(text, "cel-result") == {
        "Compare explicitly: == true": text.replace('"variables.ok"', '"variables.ok == true"')
    }
    ternary = text.replace('"variables.ok"', "|\n        true ? variables.ok : false\n")
    assert fixes(ternary, "cel-result") == {
        "Compare explicitly: == true": ternary.replace(
            "true ? variables.ok : false", "(true ? variables.ok : false) == true"
        )
    }


def test_optional_field_guards_in_a_block_scalar() -> None:
    text = HEAD + "  validations:\n    - expression: |\n        object.spec.minReadySeconds > 0 || true\n"
    assert fixes(text, "optional-field") == {
        "Guard with has(object.spec.minReadySeconds)": text.replace(
            "object.spec.minReadySeconds > 0 || true",
            "has(object.spec.minReadySeconds) && (object.spec.minReadySeconds > 0 || true)",
        ),
        "Read with .?minReadySeconds.orValue(0)": text.replace(
            "spec.minReadySeconds", "spec.?minReadySeconds.orValue(0)"
        ),
    }


def test_optional_field_in_a_plain_scalar_is_requoted_when_needed() -> None:
    text = HEAD + "  validations:\n    - expression: object.spec.minReadySeconds > 0\n"
    result = fixes(text, "optional-field")
    assert result["Guard with has(object.spec.minReadySeconds)"] == text.replace(
        "object.spec.minReadySeconds > 0",
        "has(object.spec.minReadySeconds) && object.spec.minReadySeconds > 0",
    )


def test_message_moves_to_message_expression() -> None:
    text = (
        HEAD
        + "  validations:\n    - expression: 'true'\n"
        + '      message: "replicas must be {{ .spec.replicas }}"\n'
    )
    assert fixes(text, "message-not-cel") == {
        "Move to messageExpression (as a CEL string)": text.replace(
            'message: "replicas must be {{ .spec.replicas }}"',
            "messageExpression: '\"replicas must be {{ .spec.replicas }}\"'",
        )
    }
    cel = (
        HEAD + "  validations:\n    - expression: 'true'\n      message: object.spec.replicas + ' replicas'\n"
    )
    assert fixes(cel, "message-not-cel") == {
        "Move to messageExpression": cel.replace("message:", "messageExpression:")
    }


def test_string_at_admission_converts_the_field() -> None:
    text = (
        HEAD
        + "  validations:\n"
        + "    - expression: \"object.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z')\"\n"
    )
    assert fixes(text, "string-at-admission") == {
        "Convert: timestamp(object.metadata.creationTimestamp)": text.replace(
            "object.metadata.creationTimestamp <", "timestamp(object.metadata.creationTimestamp) <"
        )
    }
    # namespaceObject is declared with timestamps: timestamp() alone would pick the timestamp
    # overload, dyn() first. A block scalar is edited in place.
    text = (
        HEAD
        + "  validations:\n    - expression: |\n"
        + "        namespaceObject.metadata.creationTimestamp < timestamp('2024-01-01T00:00:00Z')\n"
    )
    assert fixes(text, "string-at-admission") == {
        "Convert: timestamp(dyn(namespaceObject.metadata.creationTimestamp))": text.replace(
            "namespaceObject.metadata.creationTimestamp <",
            "timestamp(dyn(namespaceObject.metadata.creationTimestamp)) <",
        )
    }
