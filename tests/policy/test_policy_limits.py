# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""Every limit of `policy/rules.py` at N and N+1, sizes in bytes (not characters), and empty
values that the server calls Required rather than Unsupported (issue 39: the boundaries a
mutation of the limit or of the comparison would pass unseen).

The server's source: kubernetes `pkg/apis/admissionregistration/validation/validation.go`
(`maxAuditAnnotations = 20`, `maxAuditAnnotationValueExpressionLength = 5 * 1024` compared with
Go's `len`, bytes; `validateMatchConditions`' 64; `validateParamRef`, `validateMutation`,
`validateValidationActions`) and apimachinery `pkg/api/validation/objectmeta.go`
(`ValidateAnnotationsSize`: `len(k) + len(v)` in bytes against `TotalAnnotationSizeLimitB`,
256 KiB).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.policy.rules import validate

VAP, VAPB, MAP, MAPB = PolicyKind.VAP, PolicyKind.VAPB, PolicyKind.MAP, PolicyKind.MAPB

_RULES = [
    {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "operations": ["CREATE"],
        "resources": ["deployments"],
    }
]
VALID: dict[PolicyKind, dict[str, Any]] = {
    VAP: {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "demo.example.com"},
        "spec": {
            "matchConstraints": {"resourceRules": _RULES},
            "validations": [{"expression": "true"}],
        },
    },
    MAP: {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "demo.example.com"},
        "spec": {
            "matchConstraints": {"resourceRules": _RULES},
            "reinvocationPolicy": "Never",
            "mutations": [{"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}],
        },
    },
    VAPB: {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "demo-binding"},
        "spec": {"policyName": "demo.example.com", "validationActions": ["Deny"]},
    },
    MAPB: {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "demo-binding"},
        "spec": {"policyName": "demo.example.com"},
    },
}
VERSION = {VAP: "v1", VAPB: "v1", MAP: "v1beta1", MAPB: "v1beta1"}


def msgs(kind: PolicyKind, obj: dict[str, Any], k8s: str = "1.35") -> list[str]:
    obj = apply_defaults(kind, VERSION[kind], obj)
    return [e.message() for e in validate(kind, VERSION[kind], obj, k8s)]


def with_spec(kind: PolicyKind, **changes: Any) -> dict[str, Any]:
    obj = copy.deepcopy(VALID[kind])
    obj["spec"].update(changes)
    return obj


def test_the_valid_objects_are_valid() -> None:
    for kind in PolicyKind:
        assert msgs(kind, VALID[kind]) == [], kind


# ------------------------------------------------------------- count limits at N and N+1


@pytest.mark.parametrize("kind", [VAP, MAP])
@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (64, []),
        (65, ["spec.matchConditions: Too many: 65: must have at most 64 items"]),
    ],
)
def test_match_conditions_limit(kind: PolicyKind, count: int, expected: list[str]) -> None:
    """validation.go `validateMatchConditions`: `len(v) > 64` → `field.TooMany(fldPath, len(v), 64)`."""
    conditions = [{"name": f"c{i}", "expression": "true"} for i in range(count)]
    assert msgs(kind, with_spec(kind, matchConditions=conditions)) == expected


@pytest.mark.parametrize(
    ("count", "rejected"),
    [(1, False), (20, False), (21, True)],
)
def test_audit_annotations_limit(count: int, rejected: bool) -> None:
    """validation.go `validateValidatingAdmissionPolicySpec`: `len(spec.AuditAnnotations) >
    maxAuditAnnotations` (20) → Invalid `must not have more than 20 auditAnnotations`."""
    annotations = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(count)]
    out = msgs(VAP, with_spec(VAP, auditAnnotations=annotations))
    if not rejected:
        assert out == []
    else:
        assert len(out) == 1
        assert out[0].startswith(
            'spec.auditAnnotations: Invalid value: [{"Key":"k0","ValueExpression":"\'v\'"},'
        )
        assert out[0].endswith("]: must not have more than 20 auditAnnotations")


# ------------------------------------------------------------- sizes: bytes, not characters


def _value_expression(payload_bytes: int, char: str = "x", pad: str = "") -> str:
    """A string literal whose trimmed text is `payload_bytes` bytes long (quotes included)."""
    width = len(char.encode())
    assert (payload_bytes - 2) % width == 0
    return pad + "'" + char * ((payload_bytes - 2) // width) + "'" + pad


@pytest.mark.parametrize(
    ("expression", "rejected"),
    [
        (_value_expression(5120), False),
        (_value_expression(5121), True),
        # 2-byte characters: 2,560 characters are 5,120 bytes (accepted); one more character is
        # 5,122 bytes though only 2,561 characters (rejected: Go's len counts bytes).
        (_value_expression(5120, "é"), False),
        (_value_expression(5122, "é"), True),
        # 4-byte characters: 1,281 characters, 5,126 bytes.
        ("'" + "😀" * 1281 + "'", True),
        # Surrounding spaces are trimmed before the length is taken (strings.TrimSpace).
        (_value_expression(5120, pad="   "), False),
    ],
    ids=["5120-bytes", "5121-bytes", "5120-bytes-2-byte-chars", "5122-bytes-2561-chars", "emoji", "padded"],
)
def test_audit_annotation_value_expression_length_in_bytes(expression: str, rejected: bool) -> None:
    """validation.go `validateAuditAnnotation`: `len(trimmedValueExpression) >
    maxAuditAnnotationValueExpressionLength` → `field.Required(..., "must not exceed 5120 bytes in
    length")` (Required, as the server writes it)."""
    annotations = [{"key": "k", "valueExpression": expression}]
    out = msgs(VAP, with_spec(VAP, auditAnnotations=annotations))
    expected = (
        ["spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length"]
        if rejected
        else []
    )
    assert out == expected


@pytest.mark.parametrize("kind", list(PolicyKind))
@pytest.mark.parametrize(
    ("value", "k8s", "expected"),
    [
        # "k" (1 byte) + 262,143 bytes = 262,144: at the limit.
        ("v" * 262143, "1.35", []),
        ("v" * 262144, "1.35", ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
        ("v" * 262144, "1.31", ["metadata.annotations: Too long: must have at most 262144 bytes"]),
        # 131,072 two-byte characters = 262,144 bytes, plus the key's byte: over, in bytes only.
        ("é" * 131072, "1.35", ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
        ("é" * 131071 + "v", "1.35", []),
    ],
    ids=["at-limit", "over", "over-1.31", "over-in-bytes", "at-limit-in-bytes"],
)
def test_total_annotation_size_in_bytes(kind: PolicyKind, value: str, k8s: str, expected: list[str]) -> None:
    """apimachinery `ValidateAnnotationsSize`: `totalSize += len(k) + len(v)`; `> 256 KiB` →
    `field.TooLong(fldPath, "", TotalAnnotationSizeLimitB)` (the 1.32 text change: `TooLong`'s
    "may not be more than %d bytes")."""
    obj = copy.deepcopy(VALID[kind])
    obj["metadata"]["annotations"] = {"k": value}
    assert msgs(kind, obj, k8s) == expected


def test_annotation_size_counts_keys_and_values_of_all_annotations() -> None:
    """The sum over every annotation, keys included: two halves at the limit pass, one byte more fails."""
    half = 262144 // 2
    obj = copy.deepcopy(VALID[VAP])
    obj["metadata"]["annotations"] = {"a": "v" * (half - 1), "b": "v" * (half - 1)}
    assert msgs(VAP, obj) == []
    obj["metadata"]["annotations"] = {"a": "v" * (half - 1), "bb": "v" * (half - 1)}
    assert msgs(VAP, obj) == ["metadata.annotations: Too long: may not be more than 262144 bytes"]


# ------------------------------------------------------------- empty values: Required or Unsupported


@pytest.mark.parametrize(
    ("kind", "changes", "expected"),
    [
        # validateParamRef: `ParameterNotFoundAction == nil` or empty → Required (not NotSupported).
        (
            VAPB,
            {"paramRef": {"name": "p", "parameterNotFoundAction": ""}},
            ["spec.paramRef.parameterNotFoundAction: Required value"],
        ),
        (
            VAPB,
            {"paramRef": {"name": "p", "parameterNotFoundAction": "deny"}},
            [
                'spec.paramRef.parameterNotFoundAction: Unsupported value: "deny": supported values: "Deny", "Allow"'
            ],
        ),
        # validateParamRef: neither name nor selector (an empty name counts as none).
        (
            VAPB,
            {"paramRef": {"name": "", "parameterNotFoundAction": "Deny"}},
            ["spec.paramRef: Required value: one of name or selector must be specified"],
        ),
        # validateMutation: `len(m.PatchType) == 0` → Required; anything else unknown → NotSupported.
        (
            MAP,
            {"mutations": [{"patchType": "", "jsonPatch": {"expression": "[]"}}]},
            ["spec.mutations[0].patchType: Required value"],
        ),
        (
            MAP,
            {"mutations": [{"patchType": "jsonpatch", "jsonPatch": {"expression": "[]"}}]},
            [
                'spec.mutations[0].patchType: Unsupported value: "jsonpatch": supported values: "ApplyConfiguration", "JSONPatch"'
            ],
        ),
        # failurePolicy is a pointer: "" is set, so NotSupported (Required is for nil only).
        (
            VAP,
            {"failurePolicy": ""},
            ['spec.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"'],
        ),
        # validateValidationActions: an empty string is an unsupported action, not a missing one.
        (
            VAPB,
            {"validationActions": [""]},
            ['spec.validationActions[0]: Unsupported value: "": supported values: "Audit", "Deny", "Warn"'],
        ),
        (
            VAPB,
            {"validationActions": []},
            ["spec.validationActions: Required value: at least one validation action is required"],
        ),
        # validateValidation: `Reason != nil && !supported.Has(*Reason)`: "" is unsupported.
        (
            VAP,
            {"validations": [{"expression": "true", "reason": ""}]},
            [
                'spec.validations[0].reason: Unsupported value: "": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"'
            ],
        ),
        # Required when the trimmed expression is empty.
        (
            VAP,
            {"validations": [{"expression": " \t"}]},
            ["spec.validations[0].expression: Required value: expression is not specified"],
        ),
        (VAPB, {"policyName": ""}, ["spec.policyName: Required value"]),
    ],
    ids=[
        "paramNotFound-empty",
        "paramNotFound-case",
        "paramRef-empty-name",
        "patchType-empty",
        "patchType-case",
        "failurePolicy-empty",
        "action-empty",
        "actions-none",
        "reason-empty",
        "expression-blank",
        "policyName-empty",
    ],
)
def test_empty_value_required_or_unsupported(
    kind: PolicyKind, changes: dict[str, Any], expected: list[str]
) -> None:
    assert msgs(kind, with_spec(kind, **changes)) == expected


# ------------------------------------------------------------- details the first mutation run found


def _errors(kind: PolicyKind, obj: dict[str, Any], k8s: str = "1.35") -> list[Any]:
    return validate(kind, VERSION[kind], apply_defaults(kind, VERSION[kind], obj), k8s)


def test_too_many_audit_annotations_renders_wrong_types_as_empty_and_sits_on_the_key() -> None:
    """The Invalid value is the Go slice of `AuditAnnotation` structs: a valueExpression that is
    not a string decodes to "" (the structural layer reports the type). The error is on the
    `auditAnnotations` key (`on_key`): the whole list is the bad value."""
    annotations: list[Any] = [{"key": f"k{i}", "valueExpression": "'v'"} for i in range(20)]
    annotations.append({"key": "k20", "valueExpression": 7})
    (error,) = [
        e
        for e in _errors(VAP, with_spec(VAP, auditAnnotations=annotations))
        if e.path[-1] == "auditAnnotations"
    ]
    assert error.message().endswith(
        '{"Key":"k20","ValueExpression":""}]: must not have more than 20 auditAnnotations'
    )
    assert error.on_key


def test_an_audit_annotation_after_one_of_the_wrong_type_is_still_validated() -> None:
    annotations = ["junk", {"key": "bad key", "valueExpression": "'v'"}]
    out = msgs(VAP, with_spec(VAP, auditAnnotations=annotations))
    assert len(out) == 1
    assert out[0].startswith('spec.auditAnnotations[1].key: Invalid value: "demo.example.com/bad key":')


def test_a_mutation_with_both_patches_is_reported_on_the_other_block_key() -> None:
    """validateMutation: `field.Invalid(fldPath.Child("applyConfiguration"), "{applyConfiguration}", ...)`."""
    both = {
        "patchType": "JSONPatch",
        "jsonPatch": {"expression": "[]"},
        "applyConfiguration": {"expression": "x"},
    }
    (error,) = _errors(MAP, with_spec(MAP, mutations=[both]))
    assert error.message() == (
        'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": '
        "must not be specified when patchType is JSONPatch"
    )
    assert error.on_key


@pytest.mark.parametrize(
    ("k8s", "expected"),
    [
        (
            "1.33",
            'spec.matchConstraints.resourceRules[0].apiVersions: Invalid value: []string{"*", "v1"}: '
            "if '*' is present, must not specify other API versions",
        ),
        (
            "1.34",
            'spec.matchConstraints.resourceRules[0].apiVersions: Invalid value: ["*","v1"]: '
            "if '*' is present, must not specify other API versions",
        ),
    ],
)
def test_a_wildcard_version_among_others(k8s: str, expected: str) -> None:
    """validateRule: `field.Invalid(fldPath.Child("apiVersions"), rule.APIVersions, ...)`, a
    `[]string` printed with `%#v` before 1.34 (apimachinery v0.34 prints JSON)."""
    rules = [{**_RULES[0], "apiVersions": ["*", "v1"]}]
    assert msgs(VAP, with_spec(VAP, matchConstraints={"resourceRules": rules}), k8s) == [expected]
