"""ValidatingAdmissionPolicy decisions with the server's texts (`validating/validator.go`,
`dispatcher.go`, `cel/activation.go`, `webhook/matchconditions/matcher.go`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, UserInfo, admit

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web",
        "namespace": "default",
        "labels": {"app": "web"},
        "annotations": {"long": "x" * 6000, "evil": "a" * 5000 + "b"},
    },
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def _docs(spec: str, *, actions: str = "[Deny]", extra: str = "", binding_extra: str = "") -> list[Any]:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}}
{spec}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec:
  policyName: p
  validationActions: {actions}
{binding_extra}
{extra}
"""
    return [d for d in yaml.safe_load_all(text) if d]


def _admit(spec: str, obj: dict[str, Any] | None = None, **kw: Any) -> AdmissionResult:
    op = kw.pop("op", "CREATE")
    user = kw.pop("user", UserInfo())
    rules = kw.pop("rules", [])
    inputs = PolicyInputs.from_objects(_docs(spec, **kw))
    inputs.authorizer_rules = rules
    o = POD if obj is None else obj
    request = AdmissionRequestInput(
        op, None if op == "DELETE" else o, o if op != "CREATE" else None, user=user
    )
    return admit(request, inputs, kubernetes_version="1.34")


def _messages(result: AdmissionResult) -> list[str]:
    return [d.message for d in result.denials]


PREFIX = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: "


def test_passing_validation_admits() -> None:
    result = _admit("  validations:\n  - expression: \"object.metadata.name == 'web'\"")
    assert result.allowed
    assert result.denials == []
    assert result.evaluations[0].expressions[0].result is True


def test_all_failures_are_reported_in_order() -> None:
    result = _admit(
        '  validations:\n  - expression: "false"\n    message: first\n  - expression: "true"\n'
        '  - expression: "false"\n    message: second'
    )
    assert _messages(result) == [PREFIX + "first", PREFIX + "second"]


@pytest.mark.parametrize(
    ("validation", "message"),
    [
        ('{expression: "false", message: "  fixed  "}', "fixed"),
        ('{expression: "false", messageExpression: "\'name \' + object.metadata.name"}', "name web"),
        # a failing messageExpression falls back to message
        ('{expression: "false", message: m, messageExpression: "string(object.missing)"}', "m"),
        # empty / whitespace / newline results fall back
        ('{expression: "false", message: m, messageExpression: "\'   \'"}', "m"),
        ('{expression: "false", message: m, messageExpression: "\'a\\\\nb\'"}', "m"),
        ('{expression: "false", message: m, messageExpression: "\'x\'.repeat(6000)"}', "m"),
        # no message either: the expression
        ('{expression: " 1 == 2 ", messageExpression: "\'\'"}', "failed expression: 1 == 2"),
        ('{expression: "false"}', "failed expression: false"),
    ],
)
def test_message_fallbacks(validation: str, message: str) -> None:
    result = _admit(f"  validations:\n  - {validation}")
    assert _messages(result) == [PREFIX + message]
    assert result.denials[0].detail == message


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("Forbidden", 403),
        ("Invalid", 422),
        ("RequestEntityTooLarge", 413),
        ("Unauthorized", 401),
        (None, 422),
    ],
)
def test_reason_and_code(reason: str | None, code: int) -> None:
    extra = f", reason: {reason}" if reason else ""
    result = _admit(f'  validations:\n  - {{expression: "false"{extra}}}')
    assert result.denials[0].reason == (reason or "Invalid")
    assert result.denials[0].code == code


def test_warn_action() -> None:
    result = _admit('  validations:\n  - {expression: "false", message: careful}', actions="[Warn]")
    assert result.allowed
    assert result.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': careful"
    ]


def test_audit_action_annotation() -> None:
    result = _admit(
        '  validations:\n  - {expression: "true"}\n  - {expression: "false", message: "a<b"}',
        actions="[Audit, Warn]",
    )
    assert result.allowed
    value = result.audit_annotations["validation.policy.admission.k8s.io/validation_failure"]
    assert value == (
        '[{"message":"a\\u003cb","policy":"p","binding":"b","expressionIndex":1,'
        '"validationActions":["Audit","Warn"]}]'
    )
    assert json.loads(value)[0]["message"] == "a<b"
    assert len(result.warnings) == 1


def test_audit_annotations() -> None:
    result = _admit(
        "  validations:\n  - {expression: 'true'}\n  auditAnnotations:\n"
        "  - {key: image, valueExpression: \"'image: ' + object.spec.containers[0].image\"}\n"
        "  - {key: none, valueExpression: 'null'}\n"
        "  - {key: blank, valueExpression: \"'  '\"}\n"
    )
    assert result.audit_annotations == {"p/image": "image: nginx"}


def test_audit_annotation_error_denies_with_fail() -> None:
    result = _admit("  auditAnnotations:\n  - {key: k, valueExpression: 'string(object.nope)'}\n")
    assert _messages(result) == [
        PREFIX + "expression 'string(object.nope)' resulted in error: no such key: nope"
    ]


@pytest.mark.parametrize(("policy", "allowed"), [("Fail", False), ("Ignore", True)])
def test_failure_policy_on_runtime_error(policy: str, allowed: bool) -> None:
    result = _admit(f'  failurePolicy: {policy}\n  validations:\n  - expression: "object.spec.nope == 1"')
    assert result.allowed is allowed
    if not allowed:
        assert _messages(result) == [
            PREFIX + "expression 'object.spec.nope == 1' resulted in error: no such key: nope"
        ]


def test_compile_error_at_runtime() -> None:
    result = _admit('  validations:\n  - expression: "object.metadata.name"')
    assert _messages(result) == [PREFIX + "compilation error: must evaluate to bool but got dyn"]


def test_per_expression_cost_limit() -> None:
    ten = "[1,2,3,4,5,6,7,8,9,10]"
    huge = f"{ten}.all(a, {ten}.all(b, {ten}.all(c, {ten}.all(d, {ten}.all(e, {ten}.all(f, true))))))"
    result = _admit(f'  validations:\n  - expression: "{huge}"')
    assert _messages(result) == [
        PREFIX + f"expression '{huge}' resulted in error: operation cancelled: actual cost limit exceeded"
    ]


def test_budget_exhaustion_stops_the_policy() -> None:
    # each ~344,000 (under the per-expression limit); 30 of them exceed the 10,000,000 budget
    ten = "[1,2,3,4,5,6,7,8,9,10]"
    expensive = f"{ten}.all(a, {ten}.all(b, {ten}.all(c, {ten}.all(d, {ten}.all(e, true)))))"
    validations = "".join(f'  - expression: "{expensive}"\n' for _ in range(30))
    result = _admit("  validations:\n" + validations)
    assert _messages(result) == [
        PREFIX
        + "validation failed due to running out of cost budget, no further validation rules will be run"
    ]


def test_variables_are_lazy_and_memoised() -> None:
    spec = (
        "  variables:\n"
        "  - {name: unused, expression: 'string(object.nope)'}\n"
        "  - {name: name, expression: 'object.metadata.name'}\n"
        "  validations:\n"
        "  - expression: \"variables.name == 'web'\"\n"
        '  - expression: "variables.name.size() == 3"\n'
    )
    result = _admit(spec)
    assert result.allowed
    fields = [e.field for e in result.evaluations[0].expressions]
    # the failing unused variable was never evaluated; `name` once
    assert fields.count("spec.variables[1].expression") == 1
    assert "spec.variables[0].expression" not in fields


def test_variable_error_surfaces_on_use() -> None:
    spec = (
        "  variables:\n  - {name: bad, expression: 'object.nope'}\n"
        "  validations:\n  - expression: 'variables.bad == 1'\n"
    )
    result = _admit(spec)
    assert _messages(result) == [
        PREFIX + "expression 'variables.bad == 1' resulted in error: "
        'composited variable "bad" fails to evaluate: no such key: nope'
    ]


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("Fail", [PREFIX + "expression 'object.nope == 1' resulted in error: no such key: nope"]),
        ("Ignore", []),
    ],
)
def test_match_condition_error_and_failure_policy(policy: str, expected: list[str]) -> None:
    spec = (
        f"  failurePolicy: {policy}\n  matchConditions:\n  - {{name: c, expression: 'object.nope == 1'}}\n"
        "  validations:\n  - expression: 'false'\n"
    )
    assert _messages(_admit(spec)) == expected


def test_match_condition_false_skips() -> None:
    spec = (
        "  matchConditions:\n  - {name: not-web, expression: \"object.metadata.name != 'web'\"}\n"
        "  validations:\n  - expression: 'false'\n"
    )
    result = _admit(spec)
    assert result.allowed
    assert result.evaluations[0].why_not == "matchCondition 'not-web' is false"


def test_match_condition_has_no_namespace_object() -> None:
    spec = (
        "  matchConditions:\n  - {name: ns, expression: 'namespaceObject == null'}\n"
        "  validations:\n  - expression: \"namespaceObject.metadata.name == 'default'\"\n"
    )
    assert _admit(spec).allowed


def test_request_fields() -> None:
    spec = (
        "  validations:\n"
        "  - expression: \"request.operation == 'CREATE' && request.userInfo.username == 'alice'\"\n"
        "  - expression: \"request.userInfo.groups == ['dev'] && request.namespace == 'default'\"\n"
        "  - expression: \"request.resource.resource == 'pods' && request.kind.kind == 'Pod'\"\n"
        "  - expression: \"!has(request.subResource) && request.dryRun == false && request.name == 'web'\"\n"
        "  - expression: 'oldObject == null'\n"
    )
    result = _admit(spec, user=UserInfo("alice", groups=("dev",)))
    assert result.allowed, _messages(result)


def test_delete_has_null_object() -> None:
    spec = "  validations:\n  - expression: \"object == null && oldObject.metadata.name == 'web'\"\n"
    assert _admit(spec, op="DELETE").allowed


AUTHZ_SPEC = (
    "  validations:\n"
    "  - expression: \"authorizer.group('apps').resource('deployments').namespace('default')"
    ".check('create').allowed()\"\n"
    "    message: cannot create deployments\n"
    "  - expression: \"authorizer.requestResource.check('update').allowed()\"\n"
    "    message: cannot update pods\n"
)


def test_authorizer_from_rules() -> None:
    rules = [
        {"user": "alice", "verbs": ["create"], "apiGroups": ["apps"], "resources": ["deployments"]},
        {
            "group": "dev",
            "verbs": ["update"],
            "apiGroups": [""],
            "resources": ["pods"],
            "namespaces": ["default"],
        },
    ]
    assert _admit(AUTHZ_SPEC, user=UserInfo("alice", groups=("dev",)), rules=rules).allowed
    denied = _admit(AUTHZ_SPEC, user=UserInfo("bob"), rules=rules)
    assert [d.detail for d in denied.denials] == ["cannot create deployments", "cannot update pods"]


def test_authorizer_service_account_and_paths() -> None:
    spec = (
        "  validations:\n"
        "  - expression: \"authorizer.serviceAccount('kube-system', 'ctl').group('').resource('pods')"
        ".check('delete').allowed()\"\n"
        "  - expression: \"authorizer.path('/healthz').check('get').allowed()\"\n"
        "  - expression: \"!authorizer.path('/metrics').check('get').allowed()\"\n"
    )
    rules = [
        {"serviceAccount": "kube-system/ctl", "verbs": ["delete"], "resources": ["pods"]},
        {"user": "*", "verbs": ["get"], "paths": ["/healthz"]},
    ]
    assert _admit(spec, rules=rules).allowed


def test_pathological_regex_is_linear() -> None:
    spec = "  validations:\n  - expression: \"!object.metadata.annotations.evil.matches('^(a+)+$')\"\n"
    assert _admit(spec).allowed


def test_optional_types_and_libraries() -> None:
    spec = (
        "  validations:\n"
        "  - expression: \"object.metadata.?annotations.?owner.orValue('none') == 'none'\"\n"
        "  - expression: \"quantity('1Gi').isGreaterThan(quantity('100Mi'))\"\n"
        "  - expression: \"object.spec.containers.map(c, c.image).join(',') == 'nginx'\"\n"
        "  - expression: \"isURL('https://example.com') && ip('10.0.0.1').family() == 4\"\n"
    )
    result = _admit(spec)
    assert result.allowed, _messages(result)


def test_namespace_object_from_manifest() -> None:
    ns = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {tier: gold}}\n"
    spec = "  validations:\n  - expression: \"namespaceObject.metadata.labels.tier == 'gold'\"\n"
    assert _admit(spec, extra=ns).allowed


def test_namespace_object_null_for_cluster_scoped() -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    text = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["nodes"]}
  validations:
  - expression: "namespaceObject == null && !has(request.namespace)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""
    result = admit(
        AdmissionRequestInput("CREATE", node),
        PolicyInputs.from_objects(yaml.safe_load_all(text)),
        kubernetes_version="1.34",
    )
    assert result.allowed, _messages(result)


def test_json_shape() -> None:
    result = _admit('  validations:\n  - {expression: "false", message: nope}')
    data = result.to_json()
    assert list(data) == [
        "object",
        "allowed",
        "denials",
        "warnings",
        "auditAnnotations",
        "patched",
        "evaluations",
    ]
    assert data["object"] == {"apiVersion": "v1", "kind": "Pod", "namespace": "default", "name": "web"}
    assert data["denials"] == [
        {"policy": "p", "binding": "b", "message": PREFIX + "nope", "reason": "Invalid", "code": 422}
    ]
    json.dumps(data)


def test_a_prepared_set_without_values_gives_the_same_verdicts_and_failures() -> None:
    """`prepare(..., report_values=False)` (what `vap-lsp impact` uses) skips converting each
    expression's result for the report, and changes nothing else."""
    import yaml

    from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare

    policy = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  variables:
  - {name: keys, expression: "object.data.map(k, k)"}
  validations:
  - expression: "size(variables.keys) < 2"
    messageExpression: "'too many keys: ' + variables.keys.join(',')"
  - expression: "object.data.x == 'y'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny, Audit]}
"""
    inputs = PolicyInputs.from_objects(yaml.safe_load_all(policy))
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}}
    full = prepare(inputs, kubernetes_version="1.34").admit(AdmissionRequestInput("CREATE", cm))
    lean = prepare(inputs, kubernetes_version="1.34", report_values=False).admit(
        AdmissionRequestInput("CREATE", cm)
    )
    assert [x.result for x in full.evaluations[0].expressions][:1] == [False]
    assert {x.result for x in lean.evaluations[0].expressions} == {None}
    for result in (full, lean):
        for e in result.evaluations:
            e.expressions = [x.__class__(x.field, x.expression, None, x.error) for x in e.expressions]
    assert lean == full
    assert [(f.field, f.message, f.error) for f in lean.evaluations[0].failures] == [
        ("spec.validations[0]", "too many keys: a,b", False),
        ("spec.validations[1]", "expression 'object.data.x == 'y'' resulted in error: no such key: x", True),
    ]
