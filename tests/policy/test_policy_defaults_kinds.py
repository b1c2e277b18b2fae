"""Defaulting (defaults.py), kind recognition (kinds.py) and error rendering (field_errors.py)."""

from __future__ import annotations

from vap_lsp.golang.jsonenc import marshal_string as go_json_string
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.field_errors import (
    FieldError,
    GoNamed,
    GoSlice,
    ValueStyle,
    invalid,
    not_supported,
    render_value,
    required,
    too_many,
)
from vap_lsp.policy.kinds import POLICY_GROUP, PolicyKind, recognise


def test_recognise() -> None:
    assert POLICY_GROUP == "admissionregistration.k8s.io"
    assert recognise("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy") == (PolicyKind.VAP, "v1")
    assert recognise("admissionregistration.k8s.io/v1alpha1", "MutatingAdmissionPolicyBinding") == (
        PolicyKind.MAPB,
        "v1alpha1",
    )
    assert recognise("admissionregistration.k8s.io/v1beta1", "MutatingAdmissionPolicy") == (
        PolicyKind.MAP,
        "v1beta1",
    )
    assert recognise("admissionregistration.x-k8s.io/v1alpha1", "ValidatingAdmissionPolicy") is None
    assert recognise("admissionregistration.k8s.io/v2", "ValidatingAdmissionPolicy") is None
    assert recognise("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration") is None
    assert recognise(None, "ValidatingAdmissionPolicy") is None
    assert recognise("v1", ["x"]) is None


def test_policy_defaults() -> None:
    obj = {
        "spec": {
            "matchConstraints": {
                "resourceRules": [{"operations": ["CREATE"]}, "junk"],
                "excludeResourceRules": [{"scope": "Cluster"}],
            }
        }
    }
    for kind in (PolicyKind.VAP, PolicyKind.MAP):
        out = apply_defaults(kind, "v1", obj)
        assert out["spec"] == {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "matchPolicy": "Equivalent",
                "namespaceSelector": {},
                "objectSelector": {},
                "resourceRules": [{"operations": ["CREATE"], "scope": "*"}, "junk"],
                "excludeResourceRules": [{"scope": "Cluster"}],
            },
        }
        assert "reinvocationPolicy" not in out["spec"]
    assert "failurePolicy" not in obj["spec"]  # input untouched


def test_a_policy_without_spec_is_defaulted_like_an_empty_one() -> None:
    """`Spec` is a struct value in the Go types (`ValidatingAdmissionPolicySpec`, not a pointer), so
    zz_generated.defaults.go runs SetDefaults_ValidatingAdmissionPolicySpec on it: the server never
    says `spec.failurePolicy: Required value`, whatever the object lacks."""
    for kind in (PolicyKind.VAP, PolicyKind.MAP):
        for obj in ({"metadata": {"name": "p"}}, {"spec": None}):
            assert apply_defaults(kind, "v1", obj)["spec"] == {"failurePolicy": "Fail"}
    assert apply_defaults(PolicyKind.VAPB, "v1", {"metadata": {}}) == {"metadata": {}}


def test_binding_defaults() -> None:
    obj = {"spec": {"matchResources": {"matchPolicy": "Exact"}, "paramRef": {"name": "x"}}}
    out = apply_defaults(PolicyKind.VAPB, "v1", obj)
    assert out["spec"] == {
        "matchResources": {"matchPolicy": "Exact", "namespaceSelector": {}, "objectSelector": {}},
        "paramRef": {"name": "x"},
    }
    # v1alpha1's SetDefaults_ParamRef
    alpha = apply_defaults(PolicyKind.MAPB, "v1alpha1", obj)
    assert alpha["spec"]["paramRef"] == {"name": "x", "parameterNotFoundAction": "Deny"}
    assert "failurePolicy" not in out["spec"]


def test_defaults_tolerate_wrong_types() -> None:
    assert apply_defaults(PolicyKind.VAP, "v1", {"spec": ["x"]}) == {"spec": ["x"]}
    assert apply_defaults(PolicyKind.VAP, "v1", {"spec": {"matchConstraints": "x"}})["spec"] == {
        "failurePolicy": "Fail",
        "matchConstraints": "x",
    }
    assert apply_defaults(PolicyKind.VAPB, "v1", {}) == {}


def test_rendering() -> None:
    assert go_quote('a"b\\\n\t\x01é\u200b') == '"a\\"b\\\\\\n\\t\\x01é\\u200b"'
    assert go_json_string("<a&b>\n") == '"\\u003ca\\u0026b\\u003e\\n"'
    assert render_value(None, ValueStyle.GO_SYNTAX) == '"null"'
    assert render_value(None) == "null"
    assert render_value(GoNamed("<x>"), ValueStyle.GO_SYNTAX) == '"<x>"'
    assert render_value(GoNamed("<x>")) == '"\\u003cx\\u003e"'
    assert render_value(GoSlice("string", ("a", "b")), ValueStyle.GO_SYNTAX) == '[]string{"a", "b"}'
    assert render_value(GoSlice("string", ("a", "b"))) == '["a","b"]'
    assert render_value(True) == "true"
    assert render_value(65) == "65"


def test_error_bodies() -> None:
    assert required(("spec", "x")).message() == "spec.x: Required value"
    assert required(("spec", "x"), "why").message() == "spec.x: Required value: why"
    assert invalid(("a", 0, "b"), "v", "bad").message() == 'a[0].b: Invalid value: "v": bad'
    assert not_supported(("a",), GoNamed("x"), ["Deny", "Allow"]).message() == (
        'a: Unsupported value: "x": supported values: "Deny", "Allow"'
    )
    assert too_many(("m",), 65, 64).message() == "m: Too many: 65: must have at most 64 items"
    assert FieldError(required(("a",)).type, ("a",), rendered_path=("b",)).message() == "b: Required value"
