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

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, Failure, PolicyInputs, admit

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


def test_mutating_admission_sees_a_create_without_the_system_fields_a_client_wrote() -> None:
    """handlers/create.go calls `rest.WipeObjectMetaSystemFields` before admission: uid,
    creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds and selfLink are gone when
    mutating admission runs (an update keeps them: `rest.BeforeUpdate` takes uid and
    creationTimestamp from the stored object)."""
    text = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {'seen': [
          has(object.metadata.uid), has(object.metadata.creationTimestamp),
          has(object.metadata.deletionTimestamp), has(object.metadata.deletionGracePeriodSeconds),
          has(object.metadata.selfLink)].exists(x, x) ? 'some' : 'none'}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: m-b}
spec: {policyName: m}
"""
    docs = [d for d in yaml.safe_load_all(text) if d]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "uid": "11111111-1111-1111-1111-111111111111",
            "creationTimestamp": "2020-01-01T00:00:00Z",
            "deletionTimestamp": "2020-01-02T00:00:00Z",
            "deletionGracePeriodSeconds": 30,
            "selfLink": "/api/v1/namespaces/default/pods/web",
        },
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }
    for operation, seen in (("CREATE", "none"), ("UPDATE", "some")):
        request = AdmissionRequestInput(operation, pod, pod if operation == "UPDATE" else None)
        result = admit(request, PolicyInputs.from_objects(docs), kubernetes_version="1.34")
        assert result.patched is not None, operation
        assert result.patched["metadata"]["labels"] == {"seen": seen}, operation
        if operation == "CREATE":  # the mutated object, before Store.Create fills uid in anew
            assert "uid" not in result.patched["metadata"]


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


# --- found by the sampled mutation run of the engine (60 mutants, 17 survivors) -------------------


def _documents(text: str, *extra: dict[str, Any]) -> PolicyInputs:
    return PolicyInputs.from_objects([d for d in yaml.safe_load_all(text) if d] + list(extra))


MATCH_CONDITION_ERROR = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  failurePolicy: FAILURE_POLICY
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["*"], resources: ["pods"]}
  matchConditions:
  - {name: reads-missing, expression: "object.spec.missing == 'x'"}
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""


def test_a_match_condition_error_is_an_error_failure_whatever_the_failure_policy() -> None:
    """validating/validator.go `Validate`: a matchConditions error is a decision with
    `Evaluation: EvalError` (the failurePolicy only picks its action), so the evaluation records
    it as an error, not a failed validation; Fail denies with the error's text, Ignore admits."""
    error = "expression 'object.spec.missing == 'x'' resulted in error: no such key: missing"
    for failure_policy, allowed in (("Fail", False), ("Ignore", True)):
        inputs = _documents(MATCH_CONDITION_ERROR.replace("FAILURE_POLICY", failure_policy), NAMESPACE)
        result = admit(AdmissionRequestInput("CREATE", POD), inputs, kubernetes_version="1.34")
        assert result.allowed is allowed
        assert result.evaluations[0].failures == [Failure("spec.matchConditions", error, True)]
        expected = (
            [] if allowed else [f"ValidatingAdmissionPolicy 'p' with binding 'b' denied request: {error}"]
        )
        assert [d.message for d in result.denials] == expected


def test_a_binding_without_its_params_reports_no_expressions() -> None:
    """generic/policy_dispatcher.go `Dispatch`: a paramRef that finds nothing under
    parameterNotFoundAction Allow skips the binding; it evaluated nothing, and the JSON report
    (`vap-lsp run --format json`) lists it with an empty expression list."""
    text = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
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
  paramRef: {name: absent, parameterNotFoundAction: Allow}
"""
    result = admit(
        AdmissionRequestInput("CREATE", POD), _documents(text, NAMESPACE), kubernetes_version="1.34"
    )
    assert result.allowed
    assert result.to_json()["evaluations"] == [
        {
            "policy": "p",
            "binding": "b",
            "param": None,
            "matched": False,
            "whyNot": "no params found (parameterNotFoundAction: Allow)",
            "expressions": [],
        }
    ]


ADD_OWNER = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels/owner', value: 'platform'}]"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: m-b}
spec: {policyName: m}
"""


def test_explain_carries_a_json_patch_s_operations() -> None:
    """mutating/patch/json_patch.go `ApplyPatch`: a JSONPatch mutation's patch is its list of
    operations; `--explain` shows them as the step's patch, beside the object after it."""
    from vap_lsp.admission.engine import prepare

    prepared = prepare(_documents(ADD_OWNER), "1.34")
    result = prepared.admit(AdmissionRequestInput("CREATE", POD), explain=True)
    [step] = result.evaluations[0].mutations
    assert step.patch == [{"op": "add", "path": "/metadata/labels/owner", "value": "platform"}]
    assert step.changed and step.object is not None
    assert step.object["metadata"]["labels"] == {"app": "web", "owner": "platform"}


def test_the_patch_diff_does_not_depend_on_the_order_keys_were_written_in() -> None:
    """A JSON object has no key order (Go's encoding/json writes a map's keys sorted): the diff
    prints both objects with sorted keys, so it shows what the mutation changed and nothing
    of how the YAML was laid out."""
    expected = (
        "--- original\n+++ patched\n@@ -3,6 +3,7 @@\n metadata:\n   labels:\n     app: web\n"
        "+    owner: platform\n   name: web\n   namespace: default\n spec:\n"
    )
    reordered = {
        "spec": POD["spec"],
        "metadata": {"labels": {"app": "web"}, "namespace": "default", "name": "web"},
        "kind": "Pod",
        "apiVersion": "v1",
    }
    for obj in (POD, reordered):
        result = admit(AdmissionRequestInput("CREATE", obj), _documents(ADD_OWNER), kubernetes_version="1.34")
        assert result.patch_diff == expected


def test_an_update_keeps_the_stored_pod_s_priority() -> None:
    """plugin/pkg/admission/priority/admission.go `admitPod`: on UPDATE, a pod that leaves out
    `spec.priority` and `spec.preemptionPolicy` gets the old (stored) pod's, which the plugin set
    when the pod was created (0 and PreemptLowerPriority: no PriorityClass is the default)."""
    old = copy.deepcopy(POD)
    _holds(
        "object.spec.priority == 0 && object.spec.preemptionPolicy == 'PreemptLowerPriority'",
        AdmissionRequestInput("UPDATE", copy.deepcopy(POD), old),
    )
    high = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 7,
    }
    old["spec"].update(priorityClassName="high", priority=7)
    new = copy.deepcopy(POD)
    new["spec"]["priorityClassName"] = "high"
    _holds("object.spec.priority == 7", AdmissionRequestInput("UPDATE", new, old), high)


NAMESPACE_SELECTED = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    namespaceSelector: {matchLabels: {env: prod}}
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["*"]
      resources: ["pods", "namespaces", "namespaces/status", "namespaces/finalize"]
  validations:
  - {expression: "false", message: denied}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""


def _namespace(labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": labels}}


def test_the_namespace_selector_reads_the_labels_of_the_request_s_namespace() -> None:
    """predicates/namespace/matcher.go `GetNamespaceLabels`: a Pod's namespace's labels come from
    the stored Namespace (the lister); a Namespace's own create or update is matched by the labels
    it is written with (the lister does not have them yet), its delete and the updates of its
    subresources (status, finalize) by the stored ones."""
    pod = {**POD, "metadata": {"name": "web", "namespace": "team"}}
    stored_dev, prod = _namespace({"env": "dev"}), _namespace({"env": "prod"})
    cases = [
        # (request, the stored Namespace "team", whether the policy matches and denies)
        (AdmissionRequestInput("CREATE", pod), prod, True),
        (AdmissionRequestInput("CREATE", pod), stored_dev, False),
        (AdmissionRequestInput("CREATE", prod), stored_dev, True),
        (AdmissionRequestInput("UPDATE", prod, stored_dev), stored_dev, True),
        (AdmissionRequestInput("UPDATE", stored_dev, prod), prod, False),
        # a subresource's update: the stored labels, whatever the object is written with
        (AdmissionRequestInput("UPDATE", prod, stored_dev, sub_resource="status"), stored_dev, False),
        (AdmissionRequestInput("UPDATE", stored_dev, prod, sub_resource="finalize"), prod, True),
        (AdmissionRequestInput("DELETE", None, prod), prod, True),
        (AdmissionRequestInput("DELETE", None, stored_dev), stored_dev, False),
    ]
    for request, stored, denied in cases:
        result = admit(request, _documents(NAMESPACE_SELECTED, stored), kubernetes_version="1.34")
        assert result.allowed is not denied, (request.operation, request.object, stored)


WIDGETS = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer, default: 1}}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer, default: 2}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: at-v1}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [example.com], apiVersions: [v1], operations: ["*"], resources: [widgets]}
  validations:
  - {expression: "object.apiVersion == 'example.com/v1' && object.spec.size == 1", message: at-v1}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: at-v2}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [example.com], apiVersions: [v2], operations: ["*"], resources: [widgets]}
  validations:
  - {expression: "object.apiVersion == 'example.com/v2' && object.spec.size == 1", message: at-v2}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: at-v1}
spec: {policyName: at-v1, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: at-v2}
spec: {policyName: at-v2, validationActions: [Deny]}
"""


def test_a_custom_resource_is_defaulted_at_its_version_then_converted_for_another() -> None:
    """A Widget written at v1 is decoded with v1's schema (default size 1, not v2's 2:
    apiextensions-apiserver customresource_handler.go, the served version's structural
    defaults). A rule for v2 matches it too (matchPolicy Equivalent), and that policy sees it
    converted (admission/conversion.go `NewVersionedAttributes`): a CRD's `None` conversion
    (conversion/nop_converter.go `Convert`) changes the apiVersion and nothing else."""
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {},
    }
    result = admit(
        AdmissionRequestInput("CREATE", widget), _documents(WIDGETS, NAMESPACE), kubernetes_version="1.34"
    )
    assert [(e.policy, e.matched) for e in result.evaluations] == [("at-v1", True), ("at-v2", True)]
    assert result.allowed, [d.message for d in result.denials]
    assert result.evaluated is not None and result.evaluated["spec"] == {"size": 1}
