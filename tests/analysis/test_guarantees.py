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
from vap_lsp.analysis.workspace import WorkspaceIndex

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


def test_metadata_namespace_of_a_cluster_scoped_kind_is_never_set() -> None:
    rules = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: ["namespaces", "pods"]}}
"""
    text = _vap("validations:\n  - expression: \"object.metadata.namespace != 'kube-system'\"\n", rules=rules)
    assert _found(text, "optional-field") == [
        ("namespace", "object.metadata.namespace is never set: Namespace is cluster-scoped; without has() "
         "or `.?` the expression fails when it is absent"),
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
            "object.metadata.generation is optional in the schema; without has() or `.?` the "
            "expression fails when it is absent",
        ),
    ]  # fmt: skip  (Pods did not track it before 1.33)
    assert _found(_vap(expression), "optional-field", version="1.33") == []
    deployments = """\
  matchConstraints:
    resourceRules:
      - {{apiGroups: [apps], apiVersions: [v1], operations: [{ops}], resources: [deployments]}}
"""
    assert _found(_vap(expression, rules=deployments), "optional-field") == []
