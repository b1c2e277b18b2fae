"""What admission guarantees, as the checks trust it (`analysis.guarantees`).

Policies in the style of multi-kind libraries (Kubescape's cel-admission-library): one policy
for Pods and the workload kinds, dispatching on `object.kind`. The request order the model
follows is kube-apiserver's: decode and default, mutating admission, the registry's
`FillObjectMetaSystemFields` / name from `generateName` / `rest.BeforeCreate` (validation),
validating admission (`registry/generic/registry/store.go` `create`, `registry/rest/create.go`).
"""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex

_WORKLOADS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: [{ops}]
        resources: ["pods"]
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: [{ops}]
        resources: ["deployments", "statefulsets", "daemonsets"]
"""


def _vap(body: str, *, ops: str = "CREATE, UPDATE", rules: str = _WORKLOADS) -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: demo\nspec:\n  failurePolicy: Fail\n"
        + rules.format(ops=ops)
        + textwrap.indent(textwrap.dedent(body), "  ")
    )


def _map(body: str, *, ops: str = "CREATE, UPDATE", rules: str = _WORKLOADS) -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\n"
        "metadata:\n  name: demo\nspec:\n  failurePolicy: Fail\n  reinvocationPolicy: Never\n"
        + rules.format(ops=ops)
        + textwrap.indent(textwrap.dedent(body), "  ")
    )


def _found(text: str, *codes: str, version: str = "1.34") -> list[tuple[str, str]]:
    """(the text each diagnostic of `codes` covers, its message after the site's field), the file
    alone in a scanned workspace (its CRDs type its policies, its bindings see its policies)."""
    workspace = WorkspaceIndex()
    workspace.complete = True
    analysis = analyse_text(text, AnalysisSettings(version), workspace=workspace, uri="file:///p.yaml")
    return [
        (text[d.span.start : d.span.end], _after_field(d)) for d in analysis.diagnostics if d.code in codes
    ]


def _after_field(d: Diagnostic) -> str:
    return d.message.split(": ", 1)[1] if d.field and d.message.startswith(d.field) else d.message


# --- optional-field: only where a field can really be absent ---------------------------------


def test_kind_api_version_metadata_name_and_namespace_are_never_hinted() -> None:
    # Kubescape C-0212 / C-0017 style: dispatch on object.kind, name the object in the message.
    text = _vap(
        """\
        validations:
          - expression: >-
              object.kind != 'Pod' || object.apiVersion == 'v1' && object.metadata.namespace != 'default'
            messageExpression: "object.kind + ' ' + object.metadata.name + ' is in the default namespace'"
        """
    )
    assert _found(text, "optional-field") == []


def test_a_field_that_can_be_absent_is_still_hinted() -> None:
    text = _vap(
        """\
        validations:
          - expression: "object.kind != 'Pod' || object.spec.hostNetwork == false"
          - expression: "'team' in object.metadata.labels"
        """
    )
    assert _found(text, "optional-field") == [
        ("hostNetwork", "object.spec.hostNetwork is optional in the schema; without has() or `.?` the "
         "expression fails when it is absent"),
        ("labels", "object.metadata.labels is optional in the schema; without has() or `.?` the "
         "expression fails when it is absent"),
    ]  # fmt: skip


def test_has_guards_a_read_only_where_it_keeps_the_read_from_running() -> None:
    # A has() of the field guards its read when the read cannot run where has() is false;
    # the wrong polarity still fails whenever the field is absent.
    hint = (
        "hostNetwork", "object.spec.hostNetwork is optional in the schema; without has() or `.?` the "
        "expression fails when it is absent",
    )  # fmt: skip
    for expression, hinted in [
        ("has(object.spec.hostNetwork) && object.spec.hostNetwork", False),
        ("!has(object.spec.hostNetwork) || object.spec.hostNetwork", False),
        ("has(object.spec.hostNetwork) ? object.spec.hostNetwork : true", False),
        ("object.spec.hostNetwork && has(object.spec.hostNetwork)", False),  # && is commutative
        ("!variables.set || object.spec.hostNetwork", False),
        ("!has(object.spec.hostNetwork) && object.spec.hostNetwork", True),
        ("has(object.spec.hostNetwork) || object.spec.hostNetwork", True),
        ("has(object.spec.hostNetwork) ? true : object.spec.hostNetwork", True),
        ("(has(object.spec.hostNetwork) && object.spec.hostNetwork) || object.spec.hostNetwork", True),
        ("variables.set || object.spec.hostNetwork", True),
    ]:
        text = _vap(
            f"""\
            variables:
              - name: set
                expression: "has(object.spec.hostNetwork)"
            validations:
              - expression: "object.kind != 'Pod' || {expression}"
            """
        )
        assert _found(text, "optional-field") == ([hint] if hinted else []), expression


def test_a_match_condition_guards_every_read_after_it() -> None:
    # Validations, variables and mutations run only when every matchCondition is true
    # (apiserver pkg/admission/plugin/cel/matchconditions/matcher.go `Match`): a has() there
    # guards the reads; one that leaves a field possible (`||`, a parent only) guards nothing.
    hint = (
        "runAsUser", "object.spec.securityContext.runAsUser is optional in the schema; without has() "
        "or `.?` the expression fails when it is absent",
    )  # fmt: skip
    for condition, hinted in [
        ("has(object.spec.securityContext) && has(object.spec.securityContext.runAsUser)", False),
        ("object.kind == 'Pod' && has(object.spec.securityContext.runAsUser)", False),
        ("has(object.spec.securityContext) || object.kind != 'Pod'", True),
        ("object.kind == 'Pod'", True),
    ]:
        text = _vap(
            f"""            matchConditions:
              - name: guard
                expression: "{condition}"
            validations:
              - expression: "object.kind != 'Pod' || object.spec.securityContext.runAsUser > 0"
            """
        )
        found = [f for f in _found(text, "optional-field") if f[0] == "runAsUser"]
        assert found == ([hint] if hinted else []), condition
    # A condition does not guard itself: its own unguarded read is hinted.
    text = _vap(
        """\
        matchConditions:
          - name: guard
            expression: "object.kind != 'Pod' || object.spec.hostNetwork == false"
        validations:
          - expression: "true"
        """
    )
    assert [f[0] for f in _found(text, "optional-field")] == ["hostNetwork"]


def test_metadata_namespace_of_a_cluster_scoped_kind_is_never_set() -> None:
    rules = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: ["namespaces", "pods"]}}
"""
    text = _vap("validations:\n  - expression: \"object.metadata.namespace != 'kube-system'\"\n", rules=rules)
    assert _found(text, "optional-field") == [
        ("namespace", "object.metadata.namespace is never set: Namespace is cluster-scoped for v1 Namespace; "
         "always set: the API server sets the request's namespace for v1 Pod; without has() or `.?` the "
         "expression fails when it is absent"),
    ]  # fmt: skip


def test_metadata_name_on_create_is_absent_before_a_generate_name_becomes_one_in_a_mutating_policy() -> None:
    # store.go `create`: the name is generated from generateName after mutating admission.
    body = """\
        mutations:
          - patchType: ApplyConfiguration
            applyConfiguration:
              expression: "Object{metadata: Object.metadata{labels: {'app': object.metadata.name}}}"
        """
    assert _found(_map(body), "optional-field") == [
        ("name", "object.metadata.name is absent on CREATE when the object has metadata.generateName: the "
         "name is generated after mutating admission; without has() or `.?` the expression fails when it "
         "is absent"),
    ]  # fmt: skip
    assert _found(_map(body, ops="UPDATE"), "optional-field") == []  # the URL names the object
    # A read only on UPDATE (narrowing decides the operation per branch) is safe too.
    for name, hinted in [
        ("request.operation == 'UPDATE' ? object.metadata.name : ''", False),
        ("request.operation == 'CREATE' ? '' : object.metadata.name", False),
        ("request.operation == 'CREATE' ? object.metadata.name : ''", True),
    ]:
        branch = body.replace("object.metadata.name", name)
        assert len(_found(_map(branch), "optional-field")) == hinted, name
    vap = _vap("validations:\n  - expression: \"object.metadata.name.startsWith('web-')\"\n")
    assert _found(vap, "optional-field") == []  # generated before validating admission


_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          required: [spec]
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: {type: integer}
                tier: {type: string, default: standard}
                owner: {type: string}
---
"""
_WIDGETS = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [example.com], apiVersions: [v1], operations: [{ops}], resources: [widgets]}}
"""


def test_a_crd_field_required_by_its_schema_is_trusted_after_validation_only() -> None:
    # rest.BeforeCreate validates the custom resource's schema before validating admission only.
    vap = _CRD + _vap('validations:\n  - expression: "object.spec.size <= 10"\n', rules=_WIDGETS)
    assert _found(vap, "optional-field") == []
    body = """\
        mutations:
          - patchType: JSONPatch
            jsonPatch:
              expression: "[JSONPatch{op: 'replace', path: '/spec/size', value: object.spec.size + 1}]"
        """
    assert _found(_CRD + _map(body, rules=_WIDGETS), "optional-field") == [
        ("spec", "object.spec is required by the CRD's schema, but validated only after mutating "
         "admission: absent in a request that validation will reject; without has() or `.?` the "
         "expression fails when it is absent"),
        ("size", "object.spec.size is required by the CRD's schema, but validated only after mutating "
         "admission: absent in a request that validation will reject; without has() or `.?` the "
         "expression fails when it is absent"),
    ]  # fmt: skip


def test_a_field_with_a_schema_default_is_trusted_and_one_without_is_not() -> None:
    text = _CRD + _vap(
        "validations:\n  - expression: \"object.spec.tier != 'free' && object.spec.owner != ''\"\n",
        rules=_WIDGETS,
    )
    assert [covered for covered, _ in _found(text, "optional-field")] == ["owner"]


# --- roots that can be null -------------------------------------------------------------------


def test_object_read_on_delete_without_a_guard_is_a_warning() -> None:
    # compile_test.go "object null checks": object is null on DELETE.
    text = _vap(
        """\
        validations:
          - expression: "'team' in object.metadata.labels"
            messageExpression: "object.metadata.name + ' has no team'"
        """,
        ops="CREATE, UPDATE, DELETE",
    )
    assert _found(text, "object-on-delete") == [
        (
            "object",
            "object is null on DELETE, which this policy matches; guard with `object == null || ...` "
            "or `request.operation != 'DELETE'`",
        ),
    ]  # fmt: skip  (a failing messageExpression only falls back to `message`: not reported)


def test_object_on_delete_guards() -> None:
    guarded = [
        "object == null || 'team' in object.metadata.labels",
        "request.operation == 'DELETE' || 'team' in object.metadata.labels",
        "!has(object.metadata) || object.metadata.name != ''",
    ]
    for expression in guarded:
        text = _vap(f'validations:\n  - expression: "{expression}"\n', ops='"*"')
        assert _found(text, "object-on-delete") == [], expression
    in_condition = _vap(
        """\
        matchConditions:
          - name: not-delete
            expression: "request.operation != 'DELETE'"
        validations:
          - expression: "'team' in object.metadata.labels"
        """,
        ops='"*"',
    )
    assert _found(in_condition, "object-on-delete") == []
    assert _found(_vap("validations:\n  - expression: \"object.kind == 'Pod'\"\n"), "object-on-delete") == []


def test_a_root_read_through_a_conditional_a_list_or_a_variable_is_a_read_of_it() -> None:
    # `(c ? oldObject : object).metadata` selects from oldObject where the condition picks it;
    # iterating over `[object, oldObject]` and a variable holding oldObject read it too.
    on_create = (
        "oldObject is null on CREATE, which this policy matches; guard with `oldObject == null || ...` "
        "or `request.operation == 'UPDATE'`"
    )
    cases = [
        ("(request.operation == 'CREATE' ? oldObject : object).metadata.name != ''", "oldObject"),
        ("(request.operation == 'CREATE' ? object : oldObject).metadata.name != ''", None),
        ("(oldObject == null ? object : oldObject).metadata.name != ''", None),
        ("[object, oldObject].all(o, o.metadata.name != '')", "oldObject"),
        ("[object, oldObject].all(o, o == null || o.metadata.name != '')", None),
        ("variables.old.metadata.name != ''", "variables.old"),
        ("oldObject == null || variables.old.metadata.name != ''", None),
        ("variables.old == null || variables.old.metadata.name != ''", None),
    ]
    for expression, where in cases:
        text = _vap(
            f"""\
            variables:
              - name: old
                expression: "oldObject"
            validations:
              - expression: "{expression}"
            """
        )
        found = [(covered, message.replace("oldObject (through variables.old)", "oldObject"))
                 for covered, message in _found(text, "old-object-on-create")]  # fmt: skip
        assert found == ([(where, on_create)] if where else []), expression


def test_a_nested_has_is_no_null_guard() -> None:
    # has(object.spec) is false on a null object, but has(object.spec.hostNetwork) selects `spec`
    # of null first and fails (cel-go's refQualify: only the tested qualifier may be absent).
    nested = _vap(
        'validations:\n  - expression: "has(object.spec.hostNetwork) && object.spec.hostNetwork"\n', ops='"*"'
    )
    assert [covered for covered, _ in _found(nested, "object-on-delete")] == ["object"]
    one_level = _vap(
        'validations:\n  - expression: "has(object.spec) && object.spec.hostNetwork"\n', ops='"*"'
    )
    assert _found(one_level, "object-on-delete") == []


def test_a_variable_is_guarded_where_it_is_read() -> None:
    # Variables are evaluated lazily: only where an expression reads them.
    text = _vap(
        """\
        variables:
          - name: labels
            expression: "object.metadata.?labels.orValue({})"
        validations:
          - expression: "object == null || 'team' in variables.labels"
        """,
        ops="CREATE, UPDATE, DELETE",
    )
    assert _found(text, "object-on-delete") == []
    unguarded = text.replace("object == null || ", "")
    assert [covered for covered, _ in _found(unguarded, "object-on-delete")] == ["object"]


def test_namespace_object_is_null_for_cluster_scoped_kinds() -> None:
    rules = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: [pods, persistentvolumes]}}
"""
    text = _vap("validations:\n  - expression: \"'team' in namespaceObject.metadata.labels\"\n", rules=rules)
    assert _found(text, "namespace-object-null") == [
        ("namespaceObject", "namespaceObject is null for cluster-scoped v1 PersistentVolume, which this "
         "policy matches; guard with `namespaceObject == null || ...` or `has(namespaceObject.metadata)`"),
    ]  # fmt: skip
    guarded = text.replace("'team' in", "namespaceObject == null || 'team' in")
    assert _found(guarded, "namespace-object-null") == []
    namespaced_only = _vap("validations:\n  - expression: \"'team' in namespaceObject.metadata.labels\"\n")
    assert _found(namespaced_only, "namespace-object-null") == []


def test_namespace_object_is_null_in_match_conditions() -> None:
    # matchconditions/matcher.go evaluates them without the namespace.
    text = _vap(
        """\
        matchConditions:
          - name: team-namespaces
            expression: "'team' in namespaceObject.metadata.labels"
        validations:
          - expression: "true"
        """
    )
    assert _found(text, "namespace-object-null") == [
        ("namespaceObject", "namespaceObject is null in matchConditions (the server evaluates them without "
         "the namespace); guard with `namespaceObject == null || ...`"),
    ]  # fmt: skip


_BINDING = """\
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo-binding
spec:
  policyName: demo
  validationActions: [Deny]
"""


def test_params_are_null_without_a_param_ref_only_reads_without_a_guard_fail() -> None:
    # policy_dispatcher.go CollectParams: "Policy ParamKind is set, but binding does not use it.
    # Validate with nil params". (With parameterNotFoundAction: Allow and no param object the
    # policy is not evaluated at all, so params is never null there.)
    head = "paramKind: {apiVersion: v1, kind: ConfigMap}\n"
    unguarded = _vap(head + 'validations:\n  - expression: "object.metadata.name != params.data.reserved"\n')
    assert _found(unguarded + _BINDING, "param-ref-missing") == [
        ("demo", 'ValidatingAdmissionPolicy "demo" declares spec.paramKind but this binding has no '
         "spec.paramRef: params is null for every request it matches, and the policy reads params without "
         "a null guard, so it fails to evaluate (failurePolicy decides the outcome)"),
    ]  # fmt: skip
    guarded = unguarded.replace("object.metadata.name !=", "params == null || object.metadata.name !=")
    assert _found(guarded + _BINDING, "param-ref-missing") == []


def test_hints_and_warnings_are_advice() -> None:
    text = _vap("validations:\n  - expression: \"'team' in object.metadata.labels\"\n", ops='"*"')
    analysis = analyse_text(text, AnalysisSettings("1.34"))
    assert {(d.code, d.severity) for d in analysis.diagnostics} == {
        ("object-on-delete", Severity.WARNING),
        ("optional-field", Severity.HINT),
    }


def test_fields_the_api_server_defaults_are_trusted() -> None:
    # vap_lsp.defaulting: SetDefaults_Deployment (replicas: 1), SetDefaults_PodSpec (securityContext: {}).
    deployments = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [apps], apiVersions: [v1], operations: [{ops}], resources: [deployments]}}
"""
    text = _vap(
        """\
        validations:
          - expression: "object.spec.replicas <= 5"
          - expression: "object.spec.template.spec.securityContext.runAsNonRoot == true"
        """,
        rules=deployments,
    )
    assert [covered for covered, _ in _found(text, "optional-field")] == ["runAsNonRoot"]


def test_null_guards_are_decided_by_narrowing_where_the_case_is_an_operation() -> None:
    # analysis.narrowing with only DELETE: what a guard decides, through variables and matchConditions.
    through_variable = _vap(
        """\
        variables:
          - name: deleting
            expression: "request.operation == 'DELETE'"
        validations:
          - expression: "variables.deleting || 'team' in object.metadata.labels"
        """,
        ops="CREATE, UPDATE, DELETE",
    )
    assert _found(through_variable, "object-on-delete") == []
    other_branch = _vap(
        """\
        validations:
          - expression: "request.operation == 'CREATE' ? true : object.metadata.name != ''"
        """,
        ops="CREATE, UPDATE, DELETE",
    )
    assert [covered for covered, _ in _found(other_branch, "object-on-delete")] == ["object"]
    only_deletes = _vap(
        """\
        matchConditions:
          - name: deletes
            expression: "request.operation == 'DELETE'"
        validations:
          - expression: "'team' in object.metadata.labels"
        """,
        ops="CREATE, UPDATE, DELETE",
    )
    assert [covered for covered, _ in _found(only_deletes, "object-on-delete")] == ["object"]


def test_metadata_generation_is_set_before_validating_admission_for_kinds_that_track_it() -> None:
    # rest.BeforeCreate → PrepareForCreate: generation 1 (vap_lsp.defaulting.server.GENERATION_KINDS);
    # a Pod's too since 1.33 (pkg/registry/core/pod/strategy.go PrepareForCreate, KEP-5067).
    expression = 'validations:\n  - expression: "object.metadata.generation >= 1"\n'
    assert _found(_vap(expression), "optional-field", version="1.32") == [
        (
            "generation",
            "object.metadata.generation is optional in the schema for v1 Pod; always set: the registry "
            "sets it (1 on create) before this point for apps/v1 DaemonSet, apps/v1 Deployment, apps/v1 "
            "StatefulSet; without has() or `.?` the expression fails when it is absent",
        ),
    ]  # fmt: skip  (Pods did not track it before 1.33)
    assert _found(_vap(expression), "optional-field", version="1.33") == []
    deployments = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [apps], apiVersions: [v1], operations: [{ops}], resources: [deployments]}}
"""
    assert _found(_vap(expression, rules=deployments), "optional-field") == []


# --- null guards, decided on the parsed expression (`narrowing.NullFlow`) ------------------------

_PODS_AND_VOLUMES = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: [pods, persistentvolumes]}}
"""

_NS_NULL = (
    "namespaceObject is null for cluster-scoped v1 PersistentVolume, which this policy matches; guard with "
    "`namespaceObject == null || ...` or `has(namespaceObject.metadata)`"
)


def _namespace_finding(expression: str, variables: str = "") -> list[tuple[str, str]]:
    body = variables + f'validations:\n  - expression: "{expression}"\n'
    return _found(_vap(body, rules=_PODS_AND_VOLUMES), "namespace-object-null")


def test_namespace_object_guards_that_make_the_read_safe_are_silent() -> None:
    # policy_dispatcher.go: no namespace is fetched for a cluster-scoped request (nor a Namespace's own).
    guarded = [
        "namespaceObject == null || 'team' in namespaceObject.metadata.labels",
        "null != namespaceObject && 'team' in namespaceObject.metadata.labels",
        "has(namespaceObject.metadata) && 'team' in namespaceObject.metadata.labels",
        "!has(namespaceObject.metadata) || 'team' in namespaceObject.metadata.labels",
        "namespaceObject != null ? 'team' in namespaceObject.metadata.labels : true",
        "request.namespace == '' || 'team' in namespaceObject.metadata.labels",
        "object.kind == 'Pod' && 'team' in namespaceObject.metadata.labels",
        "object.kind != 'Pod' || 'team' in namespaceObject.metadata.labels",
        "'team' in namespaceObject.?metadata.?labels.orValue({})",
    ]
    for expression in guarded:
        assert _namespace_finding(expression) == [], expression
    through_variable = 'variables:\n  - name: hasNs\n    expression: "namespaceObject != null"\n'
    assert (
        _namespace_finding("!variables.hasNs || 'team' in namespaceObject.metadata.labels", through_variable)
        == []
    )


def test_namespace_object_tests_that_do_not_make_the_read_safe_are_reported() -> None:
    # A test of the root that does not decide the branch is no guard, whatever it mentions.
    unguarded = [
        "has(namespaceObject.metadata.labels) && 'team' in namespaceObject.metadata.labels",  # nested has
        "has(namespaceObject.metadata) || 'team' in namespaceObject.metadata.labels",  # wrong polarity
        "namespaceObject == null && 'team' in namespaceObject.metadata.labels",
        "request.namespace != '' || 'team' in namespaceObject.metadata.labels",
        "object.kind == 'Pod' || 'team' in namespaceObject.metadata.labels",  # runs for a PersistentVolume
    ]
    for expression in unguarded:
        assert _namespace_finding(expression) == [("namespaceObject", _NS_NULL)], expression


def test_object_on_delete_guards_through_operation_lists() -> None:
    # compile_test.go "object null checks"; request.operation decided per matched operation.
    def finding(expression: str) -> list[str]:
        text = _vap(f'validations:\n  - expression: "{expression}"\n', ops="CREATE, UPDATE, DELETE")
        return [covered for covered, _ in _found(text, "object-on-delete")]

    assert finding("request.operation in ['CREATE', 'UPDATE'] && 'team' in object.metadata.labels") == []
    assert finding("request.operation in ['DELETE'] || 'team' in object.metadata.labels") == []
    assert finding("request.operation in ['CREATE', 'DELETE'] && 'team' in object.metadata.labels") == [
        "object"
    ]
    assert finding("!(request.operation == 'DELETE') && object.metadata.name != ''") == []
    assert finding("has(object.metadata.labels) && 'team' in object.metadata.labels") == ["object"]


def _params_policy(expression: str, extra: str = "") -> str:
    head = "paramKind: {apiVersion: v1, kind: ConfigMap}\n" + extra
    return _vap(head + f'validations:\n  - expression: "{expression}"\n') + _BINDING


def test_params_guards_are_decided_on_the_expression() -> None:
    # policy_dispatcher.go CollectParams: a binding without paramRef validates with nil params.
    guarded = [
        "params != null && object.metadata.name != params.data.reserved",
        "null == params || object.metadata.name != params.data.reserved",
        "!has(params.data) || object.metadata.name != params.data.reserved",
        "params == null ? true : object.metadata.name != params.data.reserved",
        "object.metadata.name != params.?data.?reserved.orValue('')",
    ]
    for expression in guarded:
        assert _found(_params_policy(expression), "param-ref-missing") == [], expression
    variable = 'variables:\n  - name: hasParams\n    expression: "params != null"\n'
    through = _params_policy("!variables.hasParams || object.metadata.name != params.data.reserved", variable)
    assert _found(through, "param-ref-missing") == []
    condition = 'matchConditions:\n  - name: with-params\n    expression: "params != null"\n'
    assert (
        _found(_params_policy("object.metadata.name != params.data.reserved", condition), "param-ref-missing")
        == []
    )
    unguarded = [
        "has(params.data.reserved) && object.metadata.name != params.data.reserved",  # nested has
        "params == null && object.metadata.name != params.data.reserved",
        "has(params.data) || object.metadata.name != params.data.reserved",
    ]
    for expression in unguarded:
        assert [c for c, _ in _found(_params_policy(expression), "param-ref-missing")] == ["demo"], expression


def test_a_params_read_only_in_a_variable_no_expression_reads_is_not_evaluated() -> None:
    # Variables are evaluated lazily (on first read): never read, never evaluated.
    variable = 'variables:\n  - name: reserved\n    expression: "params.data.reserved"\n'
    assert _found(_params_policy("object.metadata.name != ''", variable), "param-ref-missing") == []
    read = _params_policy("object.metadata.name != variables.reserved", variable)
    assert [c for c, _ in _found(read, "param-ref-missing")] == ["demo"]
    guarded_read = _params_policy("params == null || object.metadata.name != variables.reserved", variable)
    assert _found(guarded_read, "param-ref-missing") == []


# --- excludeResourceRules: what a policy sees is what gets past them ----------------------------
# policy/matching/matching.go `Matches`: excludeResourceRules first (any rule, every name), then
# resourceRules; each rule is webhook/predicates/rules `Matcher` (scope, operation, group, version,
# resource/subresource). The type checker (`typesToCheck`) reads resourceRules only.


def _excluding(exclude: str) -> str:
    return (
        "  matchConstraints:\n    resourceRules:\n"
        '      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: [pods]}}\n'
        f"    excludeResourceRules:\n      - {exclude}\n"
    )


def test_object_on_delete_is_silent_when_deletes_are_excluded() -> None:
    expression = "validations:\n  - expression: \"'team' in object.metadata.labels\"\n"

    def finding(exclude: str) -> list[str]:
        text = _vap(expression, ops='"*"', rules=_excluding(exclude))
        return [covered for covered, _ in _found(text, "object-on-delete")]

    everything = '{{apiGroups: ["*"], apiVersions: ["*"], operations: [DELETE], resources: ["*"]}}'
    assert finding(everything) == []
    assert finding('{{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods]}}') == []
    namespaced = (
        '{{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods], scope: Namespaced}}'
    )
    assert finding(namespaced) == []  # every Pod request has a namespace
    # Exclusions that leave some DELETE of a Pod through:
    some_names = (
        '{{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods], resourceNames: [a]}}'
    )
    assert finding(some_names) == ["object"]
    cluster = (
        '{{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [pods], scope: Cluster}}'
    )
    assert finding(cluster) == ["object"]
    other = '{{apiGroups: [""], apiVersions: [v1], operations: [DELETE], resources: [services]}}'
    assert finding(other) == ["object"]
    creates = '{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}}'
    assert finding(creates) == ["object"]


def test_old_object_on_create_follows_the_operations_left_after_exclusion() -> None:
    expression = 'validations:\n  - expression: "oldObject.metadata.name == object.metadata.name"\n'
    rules = _excluding('{{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}}')
    assert _found(_vap(expression, rules=rules), "old-object-on-create") == []
    kept = _excluding('{{apiGroups: [""], apiVersions: [v1], operations: [UPDATE], resources: [pods]}}')
    assert [c for c, _ in _found(_vap(expression, rules=kept), "old-object-on-create")] == ["oldObject"]


def test_a_kind_every_request_of_which_is_excluded_is_still_type_checked_by_the_server() -> None:
    # The server's warning stays (typesToCheck ignores exclusions), labelled as unreachable.
    rules = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: [pods]}}
      - {{apiGroups: ["apps"], apiVersions: ["v1"], operations: [{ops}], resources: [deployments]}}
    excludeResourceRules:
      - {{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["*"], resources: [deployments]}}
"""
    text = _vap('validations:\n  - expression: "object.spec.containers.size() < 10"\n', rules=rules)
    # One note for the expression (the branch the exclusion rules out), the warning inside it.
    assert _found(text, "cel-type-check", "cel-type-check-guarded") == [
        ("object.spec.containers.size() < 10", "unreachable for apps/v1, Kind=Deployment: guarded by "
         "spec.matchConstraints.excludeResourceRules (every request of this kind is excluded); the API "
         "server's type checker reports 1 problem here for it (status.typeChecking); none can occur at "
         "admission"),
    ]  # fmt: skip
    (note,) = [d for d in analyse_text(text, AnalysisSettings("1.34")).diagnostics if d.related]
    assert [(text[r.span.start : r.span.end], r.message) for r in note.related] == [
        (".containers", "type checking against apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined "
         "field 'containers'"),
    ]  # fmt: skip
    assert not note.unnecessary  # a Pod runs it


def test_operations_reaching_subtracts_only_certain_exclusions() -> None:
    # One rule matcher for offline admission and the static checks (analysis.matching.rule_matches).
    from vap_lsp.analysis.model.matching import operations_reaching

    every = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT"})
    pods = [("", "v1", "pods")]
    match = {
        "resourceRules": [
            {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["*"], "resources": ["pods/*"]}
        ],
        "excludeResourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CONNECT", "DELETE"],
                "resources": ["pods"],
            }
        ],
    }
    # `pods/*` matches subresources too (pods/exec on CONNECT), which `pods` does not exclude.
    assert operations_reaching(match, every, pods, True) == every
    match["excludeResourceRules"][0]["resources"] = ["pods/*"]
    assert operations_reaching(match, every, pods, True) == {"CREATE", "UPDATE"}
    assert operations_reaching(match, every) == {"CREATE", "UPDATE"}  # the policy as a whole
    match["excludeResourceRules"][0]["resourceNames"] = ["a"]
    assert operations_reaching(match, every, pods, True) == every


def test_a_field_guaranteed_for_some_kinds_is_hinted_with_each_kinds_reason() -> None:
    # generation: PrepareForCreate sets it for workloads; a Pod's only since 1.33. The hint says for
    # which kinds it can be absent and why, and is silent where it runs only for kinds that have it.
    def hint(expression: str) -> list[str]:
        text = _vap(f'validations:\n  - expression: "{expression}"\n')
        return [message for _, message in _found(text, "optional-field", version="1.32")]

    assert hint("object.kind == 'Pod' || object.metadata.generation >= 1") == []
    assert hint("object.kind != 'Pod' || object.metadata.generation >= 1") == [
        "object.metadata.generation is optional in the schema; without has() or `.?` the expression fails "
        "when it is absent"
    ]
    assert hint("object.kind in ['Deployment', 'StatefulSet'] && object.metadata.generation >= 1") == []
    # SetDefaults_Deployment: replicas defaulted to 1; a CronJob has no replicas to read.
    rules = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [apps], apiVersions: [v1], operations: [{ops}], resources: [deployments, daemonsets]}}
"""
    text = _vap('validations:\n  - expression: "object.spec.revisionHistoryLimit <= 10"\n', rules=rules)
    assert _found(text, "optional-field") == []  # defaulted to 10 for both
    text = _vap('validations:\n  - expression: "object.spec.minReadySeconds >= 0"\n', rules=rules)
    assert [m for _, m in _found(text, "optional-field")] == [
        "object.spec.minReadySeconds is optional in the schema; without has() or `.?` the expression "
        "fails when it is absent"
    ]


def _bound(match_resources: str) -> str:
    return (
        "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        f"metadata:\n  name: b{abs(hash(match_resources)) % 1000}\nspec:\n  policyName: demo\n"
        f"  validationActions: [Deny]\n{textwrap.indent(match_resources, '  ')}"
    )


def test_the_bindings_match_resources_narrow_the_operations_a_policy_sees() -> None:
    # matching.go: a request is evaluated for a binding whose matchResources also match it.
    policy = _vap("validations:\n  - expression: \"'team' in object.metadata.labels\"\n", ops='"*"')
    no_deletes = (
        "matchResources:\n  excludeResourceRules:\n"
        '    - {apiGroups: ["*"], apiVersions: ["*"], operations: [DELETE], resources: ["*"]}\n'
    )
    creates_only = (
        "matchResources:\n  resourceRules:\n"
        '    - {apiGroups: ["", apps], apiVersions: [v1], operations: [CREATE], resources: ["*"]}\n'
    )
    everything = "matchResources: {}\n"

    def finding(*bindings: str) -> list[str]:
        text = policy + "".join(_bound(b) for b in bindings)
        return [covered for covered, _ in _found(text, "object-on-delete")]

    assert finding() == ["object"]  # no binding known: what the policy matches
    assert finding(no_deletes) == []
    assert finding(creates_only) == []
    assert finding(no_deletes, creates_only) == []
    assert finding(no_deletes, everything) == ["object"]  # the second binding sees deletes


def test_an_exclusion_of_another_version_of_the_resource_counts_under_equivalent_match_policy() -> None:
    # matching.go matchesResourceRules: with matchPolicy Equivalent (the default) an exclude rule
    # matching an equivalent resource (EquivalentResourcesFor: autoscaling/v1 ↔ v2) excludes it.
    rules = """\
  matchConstraints:
    matchPolicy: POLICY
    resourceRules:
      - apiGroups: [autoscaling]
        apiVersions: [v2]
        operations: [{ops}]
        resources: [horizontalpodautoscalers]
    excludeResourceRules:
      - apiGroups: [autoscaling]
        apiVersions: [v1]
        operations: [DELETE]
        resources: [horizontalpodautoscalers]
"""
    expression = "validations:\n  - expression: \"'team' in object.metadata.labels\"\n"

    def finding(policy: str) -> list[str]:
        text = _vap(expression, ops='"*"', rules=rules.replace("POLICY", policy))
        return [covered for covered, _ in _found(text, "object-on-delete")]

    assert finding("Equivalent") == []
    assert finding("Exact") == ["object"]


# --- fields kube-apiserver's own admission plugins set (`defaulting.plugins`) ---------------------

_PODS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: [{ops}]
        resources: ["pods"]
"""


def test_fields_the_default_admission_plugins_set_are_never_hinted() -> None:
    # ServiceAccount (serviceAccountName), Priority (priority, preemptionPolicy) and
    # DefaultTolerationSeconds (tolerations) run before every admission policy; Pod updates may
    # not change the service account, so a validating policy sees it on UPDATE too.
    text = _vap(
        """\
        validations:
          - expression: "object.spec.tolerations.all(t, t.key != 'dedicated')"
          - expression: "object.spec.serviceAccountName != 'default' && object.spec.serviceAccount != ''"
          - expression: "object.spec.priority < 1000000 && object.spec.preemptionPolicy != 'Never'"
        """,
        rules=_PODS,
    )
    assert _found(text, "optional-field") == []


def test_a_mutating_policy_on_update_may_not_see_the_service_account() -> None:
    # The ServiceAccount plugin only mutates on CREATE, and a MAP runs before the validation that
    # keeps a pod's service account: an update that leaves it out reaches the MAP without it.
    text = _map(
        """\
        matchConditions:
          - name: not-default
            expression: "object.spec.serviceAccountName != 'default' && object.spec.tolerations.size() > 0"
        mutations:
          - patchType: JSONPatch
            jsonPatch:
              expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {}}]"
        """,
        rules=_PODS,
    )
    assert _found(text, "optional-field") == [
        (
            "serviceAccountName",
            "object.spec.serviceAccountName is set by the ServiceAccount admission plugin on CREATE "
            "only: absent on UPDATE when the request leaves it out; without has() or `.?` the "
            "expression fails when it is absent",
        )
    ]
    assert _found(text.replace("CREATE, UPDATE", "CREATE"), "optional-field") == []


def test_a_volume_is_still_optional() -> None:
    # The token volume is only added when automounting is on (the pod or its service account
    # may turn it off): `volumes` can be absent.
    text = _vap('validations:\n  - expression: "object.spec.volumes.all(v, !has(v.hostPath))"\n', rules=_PODS)
    assert [found for found, _ in _found(text, "optional-field")] == ["volumes"]
