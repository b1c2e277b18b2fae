"""Timestamp, duration and bytes fields are strings at admission (`string-at-admission`).

Policies read `object`, `oldObject`, `params` and `namespaceObject` as JSON (`objectToResolveVal`),
so a `format: date-time` field the type checker types `google.protobuf.Timestamp` is a string when
the policy runs: `object.metadata.creationTimestamp < timestamp('…')` passes the server's compiler
and type checker and fails with "no such overload" at admission. Each warning below is also
evaluated by vap-lsp's admission engine on a sample object (`test_each_warning_fails_at_admission`):
the static check and the runtime model agree.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex

VERSION = "1.34"
CODE = "string-at-admission"

_GROUPS = {"pods": "", "secrets": "", "deployments": "apps", "backups": "example.com"}


def _rule(resource: str) -> str:
    return (
        f'      - apiGroups: ["{_GROUPS[resource]}"]\n        apiVersions: ["v1"]\n'
        f"        operations: [CREATE, UPDATE]\n        resources: [{resource}]\n"
    )


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.example.com
spec:
  group: example.com
  names: {kind: Backup, plural: backups}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [notBefore, day, retention, key]
              properties:
                notBefore: {type: string, format: date-time}
                day: {type: string, format: date}
                retention: {type: string, format: duration}
                key: {type: string, format: byte}
"""


def _policy(body: str, *resources: str) -> str:
    rules = "".join(_rule(r) for r in resources or ("pods",))
    return (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: p\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n"
        + rules
        + textwrap.indent(textwrap.dedent(body), "  ")
    )


def _validation(expression: str, *resources: str) -> str:
    return _policy(f"validations:\n  - expression: {_quoted(expression)}\n", *resources)


def _quoted(expression: str) -> str:
    return '"' + expression.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _diagnostics(text: str) -> list[Diagnostic]:
    workspace = WorkspaceIndex()
    workspace.complete = True
    analysis = analyse_text(text, AnalysisSettings(VERSION), workspace=workspace, uri="file:///p.yaml")
    return [d for d in analysis.diagnostics if d.code == CODE]


def _found(text: str) -> list[tuple[str, str, str]]:
    """(severity, the text the finding covers, its message after the site's field)."""
    return [
        (d.severity.label, text[d.span.start : d.span.end], d.message.split(": ", 1)[1])
        for d in _diagnostics(text)
    ]


_TS = "timestamp('2024-01-01T00:00:00Z')"


# --- what is reported ----------------------------------------------------------------------------


def test_creation_timestamp_compared_with_a_timestamp_is_a_warning() -> None:
    text = _validation(f"object.metadata.creationTimestamp < {_TS}")
    assert _found(text) == [
        (
            "warning",
            "object.metadata.creationTimestamp",
            "object.metadata.creationTimestamp is typed google.protobuf.Timestamp but is a string at "
            "admission (policies read object as JSON): '_<_' applied to (string, "
            'google.protobuf.Timestamp) has no overload, so it fails with "no such overload" whenever '
            "it is present; convert it: `timestamp(object.metadata.creationTimestamp)`",
        )
    ]


@pytest.mark.parametrize(
    "expression",
    [
        # Converted: timestamp() of a string parses it (object is dyn where the server compiles).
        f"timestamp(object.metadata.creationTimestamp) < {_TS}",
        f"timestamp(object.metadata.creationTimestamp).getFullYear() > 2020 && {_TS} > {_TS}",
        # Two such fields are two strings: `<` compares strings, nothing fails.
        "object.metadata.creationTimestamp < object.status.startTime",
        # Functions with a string overload, or none of a type: fine at run time.
        "string(object.metadata.creationTimestamp) != '' && type(object.metadata.creationTimestamp) != int",
        "dyn(object.metadata.creationTimestamp) != null && has(object.metadata.creationTimestamp)",
        # Equality between two strings.
        "object.metadata.creationTimestamp == object.status.startTime",
        # A string field.
        "object.metadata.name < 'z'",
    ],
)
def test_what_works_at_admission_is_silent(expression: str) -> None:
    text = _validation(expression)
    assert _found(text) == []
    assert _evaluate(text, _POD) is None


def test_equality_with_a_timestamp_is_a_hint_always_false() -> None:
    text = _validation(f"object.metadata.creationTimestamp == {_TS}")
    ((severity, at, message),) = _found(text)
    assert (severity, at) == ("hint", "object.metadata.creationTimestamp")
    assert message.endswith(
        "'_==_' with a google.protobuf.Timestamp value is always false there (CEL's equality across "
        "types is false, not an error); convert it: `timestamp(object.metadata.creationTimestamp)`"
    )
    assert _evaluate(text, _POD) is None  # false, no error


def test_secret_data_compared_with_bytes_is_a_hint_with_the_base64_text() -> None:
    text = _validation("object.data.user != b'admin'", "secrets")
    assert _found(text) == [
        (
            "hint",
            "object.data.user",
            "object.data.user is typed bytes but is a string at admission (policies read object as "
            "JSON): '_!=_' with a bytes value is always true there (CEL's equality across types is "
            "false, not an error); compare `string(object.data.user)` with the base64 text, 'YWRtaW4='",
        )
    ]


def test_size_of_bytes_counts_base64_characters() -> None:
    text = _validation("object.data.all(k, object.data[k].size() < 1024)", "secrets")
    ((severity, at, message),) = _found(text)
    assert (severity, at) == ("hint", "object.data[k]")
    assert message.endswith(
        "size() counts the characters of its base64 text (4 for every 3 bytes), not its bytes"
    )


def test_size_of_bytes_compared_with_zero_is_silent() -> None:
    # Base64 text is empty exactly when the bytes are (opendatahub-operator's S3 secret check).
    text = _validation(
        "!has(object.data) || size(object.data.bucket) > 0 && 0 != object.data.k.size()", "secrets"
    )
    assert _found(text) == []


def test_comprehension_over_conditions() -> None:
    text = _validation("object.status.conditions.all(c, c.lastTransitionTime.getFullYear() > 2020)")
    ((severity, at, message),) = _found(text)
    assert (severity, at) == ("warning", "c.lastTransitionTime")
    assert "'getFullYear' applied to string.() has no overload" in message
    assert message.endswith("convert it: `timestamp(c.lastTransitionTime)`")


def test_map_and_filter_results_and_optionals() -> None:
    text = _policy(
        f"""\
        validations:
          - expression: >-
              object.status.conditions.map(c, c.lastTransitionTime).all(t, t - duration('1h') > {_TS})
          - expression: >-
              object.status.conditions.filter(c, c.type == 'Ready').all(c, c.lastTransitionTime > {_TS})
          - expression: "object.?metadata.deletionTimestamp.orValue({_TS}) > {_TS}"
        """
    )
    assert [(s, at) for s, at, _ in _found(text)] == [
        ("warning", "t"),
        ("warning", "c.lastTransitionTime"),
        ("warning", f"object.?metadata.deletionTimestamp.orValue({_TS})"),
    ]


def test_a_variable_holding_the_field_with_its_definition_related() -> None:
    text = _policy(
        f"""\
        variables:
          - name: created
            expression: object.metadata.creationTimestamp
        validations:
          - expression: "variables.created < {_TS}"
        """
    )
    (d,) = _diagnostics(text)
    assert (d.severity, text[d.span.start : d.span.end]) == (Severity.WARNING, "variables.created")
    assert d.message.startswith(
        "spec.validations[0].expression: variables.created is typed google.protobuf.Timestamp but is a "
        "string at admission (it comes from object through variables.created, and policies read object "
        "as JSON): '_<_' applied to"
    )
    assert d.message.endswith("convert it: `timestamp(variables.created)`")
    (related,) = d.related
    assert text[related.span.start : related.span.end] == "object.metadata.creationTimestamp"


def test_a_variable_holding_a_timestamp_value() -> None:
    text = _policy(
        f"""\
        variables:
          - name: cutoff
            expression: "{_TS}"
        validations:
          - expression: "object.metadata.creationTimestamp < variables.cutoff"
          - expression: "timestamp(object.metadata.creationTimestamp) < variables.cutoff"
        """
    )
    assert [(s, at) for s, at, _ in _found(text)] == [("warning", "object.metadata.creationTimestamp")]


def test_a_comprehension_over_a_variable_of_conditions() -> None:
    text = _policy(
        f"""\
        variables:
          - name: conditions
            expression: "object.status.?conditions.orValue([])"
          - name: ready
            expression: "variables.conditions.filter(c, c.type == 'Ready')"
        validations:
          - expression: "variables.ready.all(c, c.lastTransitionTime > {_TS})"
        """
    )
    (d,) = _diagnostics(text)
    assert text[d.span.start : d.span.end] == "c.lastTransitionTime"
    assert "(it comes from object through variables.ready, variables.conditions, and" in d.message
    assert [text[r.span.start : r.span.end] for r in d.related] == [
        "\"variables.conditions.filter(c, c.type == 'Ready')\"",
        '"object.status.?conditions.orValue([])"',
    ]


def test_namespace_object_is_declared_with_timestamps_so_the_fix_needs_dyn() -> None:
    text = _policy(
        f"""\
        validations:
          - expression: "namespaceObject.metadata.creationTimestamp < {_TS}"
          - expression: "timestamp(namespaceObject.metadata.creationTimestamp) < {_TS}"
          - expression: "timestamp(dyn(namespaceObject.metadata.creationTimestamp)) < {_TS}"
        """
    )
    found = _found(text)
    assert [(s, at) for s, at, _ in found] == [
        ("warning", "namespaceObject.metadata.creationTimestamp"),
        ("warning", "namespaceObject.metadata.creationTimestamp"),
    ]
    assert found[0][2].endswith("convert it: `timestamp(dyn(namespaceObject.metadata.creationTimestamp))`")
    assert "'timestamp' applied to (string) has no overload" in found[1][2]


def test_crd_formats() -> None:
    text = (
        CRD
        + "---\n"
        + _policy(
            f"""\
            validations:
              - expression: "object.spec.notBefore > {_TS}"
              - expression: "object.spec.day.getDayOfWeek() != 0"
              - expression: "duration('1h') + object.spec.retention < duration('720h')"
              - expression: "object.spec.key + b'x' != b''"
              - expression: "object.spec.key in [b'a', b'b']"
            """,
            "backups",
        )
    )
    found = _found(text)
    assert [(s, at) for s, at, _ in found] == [
        ("warning", "object.spec.notBefore"),
        ("warning", "object.spec.day"),
        ("warning", "object.spec.retention"),
        ("warning", "object.spec.key"),
        ("hint", "object.spec.key"),
    ]
    messages = [m for _, _, m in found]
    # A `format: date` value is no RFC 3339 timestamp: it gets a time first.
    assert messages[1].endswith("convert it: `timestamp(string(object.spec.day) + 'T00:00:00Z')`")
    assert "'_+_' applied to (google.protobuf.Duration, string) has no overload" in messages[2]
    assert messages[3].endswith(
        "it holds the base64 text: read it as `string(object.spec.key)` (base64.decode() is not in "
        "Kubernetes' CEL environment)"
    )
    assert "'in' a list(bytes) is always false there" in messages[4]


def test_params_typed_from_a_configmap() -> None:
    text = _policy(
        """\
        paramKind: {apiVersion: v1, kind: ConfigMap}
        validations:
          - expression: "params.binaryData.all(k, params.binaryData[k] < b'zzz')"
        """
    )
    ((severity, at, message),) = _found(text)
    assert (severity, at) == ("warning", "params.binaryData[k]")
    assert "(policies read params as JSON)" in message


# --- narrowing, kinds, expression kinds ------------------------------------------------------------


def test_a_branch_that_cannot_run_is_silent() -> None:
    # The policy matches CREATE and UPDATE only: the right side never runs.
    text = _validation(f"request.operation != 'DELETE' || object.metadata.creationTimestamp < {_TS}")
    assert _found(text) == []
    text = _validation(f"request.operation == 'UPDATE' && object.metadata.creationTimestamp < {_TS}")
    assert [s for s, _, _ in _found(text)] == ["warning"]


def test_a_field_of_one_kind_behind_its_kind_test_is_a_warning() -> None:
    # Deployments have no status.startTime; the guard keeps the read to Pods, for which it fails.
    text = _validation(f"object.kind != 'Pod' || object.status.startTime < {_TS}", "pods", "deployments")
    assert [(s, at) for s, at, _ in _found(text)] == [("warning", "object.status.startTime")]


def test_a_field_typed_so_for_some_kinds_only_is_a_hint() -> None:
    # Without a guard the read runs for Deployments too (where it is another problem).
    text = _validation(f"object.status.startTime < {_TS}", "pods", "deployments")
    ((severity, _, message),) = _found(text)
    assert severity == "hint"
    assert message.endswith("(typed so for /v1, Kind=Pod only)")


def test_a_variable_read_only_where_it_cannot_run_is_silent() -> None:
    text = _policy(
        f"""\
        variables:
          - name: old
            expression: "object.metadata.creationTimestamp < {_TS}"
        validations:
          - expression: "request.operation == 'DELETE' && variables.old"
        """
    )
    assert _found(text) == []


def test_message_expression_is_a_hint() -> None:
    text = _policy(
        """\
        validations:
          - expression: "true"
            messageExpression: "'created in ' + string(object.metadata.creationTimestamp.getFullYear())"
        """
    )
    ((severity, _, message),) = _found(text)
    assert severity == "hint"
    assert message.endswith("(a failing messageExpression falls back to message)")


def test_match_conditions_and_mutating_policies_too() -> None:
    text = (
        "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\n"
        "metadata:\n  name: m\nspec:\n  failurePolicy: Fail\n  reinvocationPolicy: Never\n"
        "  matchConstraints:\n    resourceRules:\n" + _rule("pods") + "  matchConditions:\n"
        f"    - name: old\n      expression: {_quoted(f'object.status.startTime < {_TS}')}\n"
        "  mutations:\n    - patchType: ApplyConfiguration\n      applyConfiguration:\n"
        "        expression: \"Object{metadata: Object.metadata{labels: {'y': "
        'string(object.status.startTime.getFullYear())}}}"\n'
    )
    assert [(s, at) for s, at, _ in _found(text)] == [
        ("warning", "object.status.startTime"),
        ("warning", "object.status.startTime"),
    ]


# --- the runtime agrees -----------------------------------------------------------------------------

_POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "creationTimestamp": "2023-05-01T00:00:00Z"},
    "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
    "status": {
        "startTime": "2023-05-01T00:00:00Z",
        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2023-05-01T00:00:00Z"}],
    },
}
_DELETED_POD = {**_POD, "metadata": {**_POD["metadata"], "deletionTimestamp": "2024-05-01T00:00:00Z"}}
_SECRET: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "s", "namespace": "default"},
    "data": {"user": "YWRtaW4="},
}
_BACKUP: dict[str, Any] = {
    "apiVersion": "example.com/v1",
    "kind": "Backup",
    "metadata": {"name": "b", "namespace": "default"},
    "spec": {"notBefore": "2024-05-05T10:00:00Z", "day": "2024-05-05", "retention": "1h", "key": "YWRtaW4="},
}
_NAMESPACE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "default", "creationTimestamp": "2023-05-01T00:00:00Z"},
}
_CONFIGMAP: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "limits", "namespace": "default"},
    "binaryData": {"k": "YWRtaW4="},
}
_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: p
  validationActions: [Deny]
"""

# (policy text, the object it runs on): each gets exactly one warning, and its fix none.
_WARNED = [
    (_validation(f"object.metadata.creationTimestamp < {_TS}"), _POD),
    (_validation("object.status.conditions.all(c, c.lastTransitionTime.getFullYear() > 2020)"), _POD),
    (
        _validation(
            f"object.status.conditions.map(c, c.lastTransitionTime).all(t, t - duration('1h') > {_TS})"
        ),
        _POD,
    ),
    (_validation(f"object.?metadata.deletionTimestamp.orValue({_TS}) > {_TS}"), _DELETED_POD),
    (
        _policy(
            f"variables:\n- name: created\n  expression: object.metadata.creationTimestamp\n"
            f"validations:\n- expression: {_quoted(f'variables.created < {_TS}')}\n"
        ),
        _POD,
    ),
    (
        _policy(
            f"variables:\n- name: cutoff\n  expression: {_quoted(_TS)}\n"
            "validations:\n- expression: object.status.startTime < variables.cutoff\n"
        ),
        _POD,
    ),
    (_validation(f"namespaceObject.metadata.creationTimestamp < {_TS}"), _POD),
    (_validation(f"timestamp(namespaceObject.metadata.creationTimestamp) < {_TS}"), _POD),
    (_validation("object.data.user + b'x' != b''", "secrets"), _SECRET),
    (CRD + "---\n" + _validation(f"object.spec.notBefore > {_TS}", "backups"), _BACKUP),
    (CRD + "---\n" + _validation("object.spec.day.getDayOfWeek() != 0", "backups"), _BACKUP),
    (
        CRD + "---\n" + _validation("duration('1h') + object.spec.retention < duration('720h')", "backups"),
        _BACKUP,
    ),
    (
        _policy(
            "paramKind: {apiVersion: v1, kind: ConfigMap}\nvalidations:\n"
            "- expression: \"params.binaryData.all(k, params.binaryData[k] < b'zzz')\"\n"
        ),
        _POD,
    ),
]


def _evaluate(text: str, obj: dict[str, Any]) -> str | None:
    """The error of the policy's one validation, admitted (UPDATE: the stored status is kept)."""
    binding = _BINDING
    if "paramKind" in text:
        binding += "  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}\n"
    docs = [d for d in yaml.safe_load_all(text + "---\n" + binding) if d]
    inputs = PolicyInputs.from_objects([*docs, _NAMESPACE, _CONFIGMAP])
    result = admit(AdmissionRequestInput("UPDATE", obj, obj), inputs, kubernetes_version=VERSION)
    (evaluation,) = [e for e in result.evaluations if e.matched]
    validations = [e for e in evaluation.expressions if ".validations[" in e.field]
    return validations[0].error


@pytest.mark.parametrize(("text", "obj"), _WARNED, ids=range(len(_WARNED)))
def test_each_warning_fails_at_admission(text: str, obj: dict[str, Any]) -> None:
    assert [s for s, _, _ in _found(text)] == ["warning"]
    error = _evaluate(text, obj)
    assert error is not None and "no such overload" in error, error


@pytest.mark.parametrize(("text", "obj"), _WARNED, ids=range(len(_WARNED)))
def test_each_suggested_conversion_passes_both(text: str, obj: dict[str, Any]) -> None:
    (d,) = _diagnostics(text)
    if "convert it: `" not in d.message:
        pytest.skip("bytes: no conversion, the base64 text is compared instead")
    conversion = d.message.split("convert it: `", 1)[1].split("`", 1)[0]
    fixed = text[: d.span.start] + conversion + text[d.span.end :]
    assert _found(fixed) == []
    assert _evaluate(fixed, obj) is None
