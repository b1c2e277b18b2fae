"""Offline admission at the edges the mutation runs found untested (issue 39): what the
request binds (subresource, options, the Namespace, the authorizer's name, the decoded oldObject),
bindings that do not match, JSONPatch values with wrong type names.

`namespaceObject` inside matchConditions: `pkg/admission/plugin/webhook/matchconditions/
matcher.go` `Match` evaluates the conditions with `ForInput(..., nil, ...)` — no namespace —
while validations get the request's Namespace (`validating/dispatcher.go`). The earlier test
could not tell the two apart (a condition `namespaceObject == null` that failed skipped the
policy, which also admits); these assert the decision each way.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}
NAMESPACE = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "default", "labels": {"tier": "gold"}},
}


def _admit(conditions: str, validation: str) -> AdmissionResult:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}}
  matchConditions:
{conditions}
  validations:
  - expression: "{validation}"
    message: denied
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec:
  policyName: p
  validationActions: [Deny]
"""
    docs = [d for d in yaml.safe_load_all(text) if d] + [NAMESPACE]
    request = AdmissionRequestInput("CREATE", POD, None)
    return admit(request, PolicyInputs.from_objects(docs), kubernetes_version="1.34")


def test_namespace_object_is_null_in_match_conditions() -> None:
    # The condition holds (null), so the validation runs and denies.
    result = _admit("  - {name: ns, expression: 'namespaceObject == null'}", "false")
    assert not result.allowed
    assert [d.message for d in result.denials] == [
        "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: denied"
    ]
    assert result.evaluations[0].why_not is None


def test_a_condition_that_reads_the_namespace_is_false_not_an_error() -> None:
    # `namespaceObject != null` is false: the policy is skipped with the condition's name.
    result = _admit("  - {name: has-ns, expression: 'namespaceObject != null'}", "false")
    assert result.allowed
    assert result.evaluations[0].why_not == "matchCondition 'has-ns' is false"


def test_validations_see_the_namespace_the_conditions_do_not() -> None:
    result = _admit(
        "  - {name: ns, expression: 'namespaceObject == null'}",
        "namespaceObject.metadata.labels.tier != 'gold'",
    )
    assert not result.allowed  # the validation read the Namespace's label


# --- what the request binds (`plugin/cel/activation.go` CreateAdmissionRequest, `namespace`'s
# CreateNamespaceObject, `authorizer.requestResource`) ---------------------------------------------


def _validate(expression: str, request: AdmissionRequestInput, *extra: dict[str, Any]) -> AdmissionResult:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods", "pods/status"]}}
  validations:
  - expression: "{expression}"
    message: denied
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""
    docs = [d for d in yaml.safe_load_all(text) if d] + list(extra)
    return admit(request, PolicyInputs.from_objects(docs), kubernetes_version="1.34")


def _holds(expression: str, request: AdmissionRequestInput, *extra: dict[str, Any]) -> None:
    result = _validate(expression, request, *extra)
    assert result.allowed, [d.message for d in result.denials]
    assert result.evaluations[0].why_not is None


def test_the_request_names_its_subresource_twice() -> None:
    request = AdmissionRequestInput("UPDATE", POD, POD, sub_resource="status")
    _holds("request.subResource == 'status' && request.requestSubResource == 'status'", request)
    _holds(
        "!has(request.subResource) && !has(request.requestSubResource)", AdmissionRequestInput("CREATE", POD)
    )


def test_the_request_options() -> None:
    """Given options as they are; else the operation's kind (CreateOptions...), never for CONNECT."""
    given = {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl"}
    _holds("request.options.fieldManager == 'kubectl'", AdmissionRequestInput("CREATE", POD, options=given))
    _holds("request.options.kind == 'CreateOptions'", AdmissionRequestInput("CREATE", POD))
    _holds("request.options.kind == 'UpdateOptions'", AdmissionRequestInput("UPDATE", POD, POD))
    _holds("request.options.kind == 'DeleteOptions'", AdmissionRequestInput("DELETE", None, POD))


def test_the_namespace_object_keeps_what_create_namespace_object_copies() -> None:
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "default",
            "uid": "u-1",
            "creationTimestamp": "2024-01-01T00:00:00Z",
            "finalizers": ["example.com/keep"],
            "annotations": {"a": "b"},
            "labels": {"tier": "gold"},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }
    _holds(
        "namespaceObject.metadata.creationTimestamp != null"
        " && namespaceObject.metadata.finalizers == ['example.com/keep']"
        " && namespaceObject.metadata.annotations.a == 'b'"
        " && namespaceObject.metadata.labels['kubernetes.io/metadata.name'] == 'default'"
        " && namespaceObject.spec.finalizers == ['kubernetes'] && namespaceObject.status.phase == 'Active'",
        AdmissionRequestInput("CREATE", POD),
        namespace,
    )


def test_the_authorizer_checks_the_request_s_name() -> None:
    """`authorizer.requestResource` is the request's resource with its name: a rule for that name
    allows it, one for another name does not."""
    expression = "authorizer.requestResource.check('update').allowed()"
    for names, allowed in ((["web"], True), (["other"], False)):
        inputs_rules = [
            {
                "user": "alice",
                "verbs": ["update"],
                "apiGroups": [""],
                "resources": ["pods"],
                "names": names,
            }
        ]
        docs = yaml.safe_load_all(
            f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}}
  validations:
  - expression: "{expression}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""
        )
        inputs = PolicyInputs.from_objects([d for d in docs if d])
        inputs.authorizer_rules = inputs_rules
        from vap_lsp.admission.api import UserInfo

        result = admit(
            AdmissionRequestInput("UPDATE", POD, POD, user=UserInfo("alice")),
            inputs,
            kubernetes_version="1.34",
        )
        assert result.allowed is allowed, names


def test_the_old_object_is_decoded_and_defaulted_like_the_object() -> None:
    """An UPDATE's oldObject as stored: decoded and defaulted (a container's
    terminationMessagePolicy is always set on a stored Pod)."""
    old = {**POD, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    _holds(
        "oldObject.spec.containers[0].terminationMessagePolicy == 'File'",
        AdmissionRequestInput("UPDATE", POD, old),
    )


def test_a_binding_that_does_not_match_is_reported_under_its_policy() -> None:
    text = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}
  validations:
  - expression: "false"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec:
  policyName: p
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {tier: silver}}
"""
    docs = [d for d in yaml.safe_load_all(text) if d] + [NAMESPACE]
    result = admit(
        AdmissionRequestInput("CREATE", POD), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert result.allowed
    (evaluation,) = result.evaluations
    assert (evaluation.policy, evaluation.binding) == ("p", "b")
    assert evaluation.why_not is not None and "namespaceSelector does not match" in evaluation.why_not


def test_a_json_patch_value_with_wrong_nested_type_names() -> None:
    """mutating/patch/json_patch.go: an `Object{...}` value must name its nested types by their
    field path (`CheckTypeNamesMatchFieldPathNames`), as in an ApplyConfiguration."""
    text = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        [JSONPatch{op: 'add', path: '/spec/securityContext',
          value: Object.spec.securityContext{seLinuxOptions: Object.spec.wrong{level: 's0'}}}]
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: m-b}
spec: {policyName: m}
"""
    docs = [d for d in yaml.safe_load_all(text) if d]
    result = admit(
        AdmissionRequestInput("CREATE", POD), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert [d.detail for d in result.denials] == [
        'type mismatch: unexpected type name "Object.spec.wrong", expected '
        '"Object.spec.securityContext.seLinuxOptions", which matches field name path from root Object type'
    ]


GENERATED = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"generateName": "web-", "namespace": "default"},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def test_a_generate_name_only_object_has_its_name_by_validating_admission() -> None:
    """registry/rest/create.go `BeforeCreate` generates the name after mutating admission;
    `AdmissionToValidateObjectFunc` gives validating admission the request with it."""
    request = AdmissionRequestInput("CREATE", GENERATED)
    _holds("request.name.startsWith('web-') && size(request.name) > size('web-')", request)
    _holds("object.metadata.name == request.name", request)


def test_a_generate_name_only_object_has_no_name_in_mutating_admission() -> None:
    text = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  matchConditions:
  - {name: unnamed, expression: "!has(request.name) && !has(object.metadata.name)"}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'named': 'later'}}]"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: m-b}
spec: {policyName: m}
"""
    docs = [d for d in yaml.safe_load_all(text) if d]
    result = admit(
        AdmissionRequestInput("CREATE", GENERATED), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert result.allowed, [d.message for d in result.denials]
    assert result.patched is not None and result.patched["metadata"]["labels"] == {"named": "later"}


def test_a_rejection_by_a_builtin_plugin_is_the_whole_result() -> None:
    """serviceaccount/admission.go rejects a mirror pod naming a service account before any
    policy runs: one Forbidden denial, nothing evaluated, no patch, no warnings."""
    mirror = copy.deepcopy(POD)
    mirror["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    mirror["spec"]["serviceAccountName"] = "builder"
    result = _validate("true", AdmissionRequestInput("CREATE", mirror))
    assert not result.allowed
    assert [(d.message, d.reason) for d in result.denials] == [
        ('pods "web" is forbidden: a mirror pod may not reference service accounts', "Forbidden")
    ]
    assert (result.warnings, result.audit_annotations, result.patched, result.patch_diff) == (
        [],
        {},
        None,
        None,
    )
    assert result.evaluations == [] and result.evaluated is None
    assert result.notes[-1] == "rejected by a built-in admission plugin before mutating admission"


BAD_SELECTOR = "namespaceSelector: {matchExpressions: [{key: a, operator: Bad, values: [x]}]}"


def test_a_policy_that_cannot_be_configured_is_denied_under_its_own_name() -> None:
    """A selector the server cannot parse: with failurePolicy Fail the request is denied with
    "failed to configure policy", a VAP in its kind's words, a MAP as `policy "<name>"`."""
    vap = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    {BAD_SELECTOR}
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}}
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""
    mutating = vap.replace("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy").replace(
        "admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1"
    )
    mutating = mutating.replace(
        '  validations:\n  - expression: "true"\n',
        "  reinvocationPolicy: Never\n  mutations:\n"
        "  - patchType: JSONPatch\n    jsonPatch: {expression: '[]'}\n",
    ).replace("spec: {policyName: p, validationActions: [Deny]}", "spec: {policyName: p}")
    error = 'failed to configure policy: "Bad" is not a valid label selector operator'
    for text, expected in (
        (vap, f"ValidatingAdmissionPolicy 'p' denied request: {error}"),
        (mutating, f'policy "p" denied request: {error}'),
    ):
        docs = [d for d in yaml.safe_load_all(text) if d] + [NAMESPACE]
        result = admit(
            AdmissionRequestInput("CREATE", POD), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
        )
        assert [d.message for d in result.denials] == [expected]


def test_admission_leaves_the_callers_objects_as_they_were() -> None:
    """The request's objects are the caller's: decoding, defaulting and the registry's fill-ins
    happen on admission's own copies."""
    obj, old = copy.deepcopy(POD), copy.deepcopy(POD)
    before = (copy.deepcopy(obj), copy.deepcopy(old))
    for request in (AdmissionRequestInput("CREATE", obj), AdmissionRequestInput("UPDATE", obj, old)):
        result = _validate("true", request)
        assert result.allowed and result.evaluated is not None
        assert result.evaluated["spec"]["containers"][0]["terminationMessagePolicy"] == "File"
    assert (obj, old) == before
