"""Fields the server's built-in validation requires although the schema marks them optional, for
every kind a Pod Security policy matches (issue 33): present for a ValidatingAdmissionPolicy and
in stored objects, absent-possible for a MutatingAdmissionPolicy (`rest.BeforeCreate` runs
`strategy.Validate` after mutating admission, before validating admission).

The table is `vap_lsp.defaulting.validation.REQUIRED_FIELDS`; each test cites the Go function of
Kubernetes v1.30.14 to v1.37.2 (`pkg/apis/{core,apps,batch}/validation/validation.go`,
`pkg/registry/*/strategy.go`) that requires the field. A container's `image` is read through a
comprehension variable, which the `optional-field` hint does not follow: hover says it.
"""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.diagnostics import Diagnostic
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.features.cel_hover import hover
from vap_lsp.features.snapshot import make_snapshot

VERSION = "1.34"
_TAIL = "; without has() or `.?` the expression fails when it is absent"
_MUTATING = ", which runs after mutating admission: absent in a request that validation will reject"


def _policy(mutating: bool, group: str, resource: str, expression: str, ops: str = "CREATE, UPDATE") -> str:
    """A policy matching one resource whose one expression is `expression` (a MAP's JSONPatch
    expression reads it in its condition)."""
    head = (
        "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingAdmissionPolicy\n"
        if mutating
        else "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    )
    rule = f'{{apiGroups: ["{group}"], apiVersions: ["v1"], operations: [{ops}], resources: ["{resource}"]}}'
    rules = (
        "metadata:\n  name: demo\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n"
        f"      - {rule}\n"
    )
    if mutating:
        body = f"""\
            reinvocationPolicy: Never
            mutations:
              - patchType: JSONPatch
                jsonPatch:
                  expression: >-
                    {expression} ? [] : [JSONPatch{{op: 'add', path: '/metadata/labels', value: {{}}}}]
            """
    else:
        body = f"""\
            validations:
              - expression: >-
                  {expression}
            """
    return head + rules + textwrap.indent(textwrap.dedent(body), "  ")


def _hints(text: str) -> list[tuple[str, str]]:
    """(the field each `optional-field` hint covers, its reason), the file alone in a workspace."""
    workspace = WorkspaceIndex()
    workspace.complete = True
    analysis = analyse_text(text, AnalysisSettings(VERSION), workspace=workspace, uri="file:///p.yaml")
    return [
        (text[d.span.start : d.span.end], _reason(d))
        for d in analysis.diagnostics
        if d.code == "optional-field"
    ]


def _reason(d: Diagnostic) -> str:
    message = d.message.split(": ", 1)[1]
    return message.split(" is ", 1)[1].removesuffix(_TAIL)


def _at_admission(text: str, needle: str) -> str:
    """Hover's **At admission** line on the field `needle` ends with (its last occurrence)."""
    snapshot = make_snapshot("file:///p.yaml", text, 1, AnalysisSettings(VERSION))
    result = hover(snapshot, text.rindex(needle) + len(needle) - 1)
    assert result is not None, needle
    return next(line for line in result.markdown.split("\n\n") if line.startswith("**At admission**"))


def _present(why: str) -> str:
    return f"**At admission**: always present ({why})."


def _absent(why: str) -> str:
    return f"**At admission**: may be absent ({why}); read it with `has()` or `.?`."


_IMAGE = "required by the server's validation (validateContainerCommon)"


def _images_checked(
    group: str, resource: str, pod_spec: str, map_hints: list[tuple[str, str]] | None = None
) -> None:
    """`validateContainerCommon` (via `ValidatePodSpec`): every container and init container has
    an image, once validation has run. A comprehension variable's fields are not hinted (hover
    says it): a mutating policy gets `map_hints` (none by default)."""
    expression = (
        f"{pod_spec}.containers.all(c, c.image.startsWith('registry.example/')) && "
        f"(!has({pod_spec}.initContainers) || {pod_spec}.initContainers.all(i, i.image != ''))"
    )
    vap = _policy(False, group, resource, expression)
    assert _hints(vap) == []
    assert _at_admission(vap, "c.image") == _present(_IMAGE)
    assert _at_admission(vap, "i.image") == _present(_IMAGE)
    map_ = _policy(True, group, resource, expression)
    assert _hints(map_) == (map_hints or [])
    assert _at_admission(map_, "c.image") == _absent(_IMAGE + _MUTATING)


def test_pod() -> None:
    # ValidatePodCreate / ValidatePodUpdate -> validatePodMetadataAndSpec -> ValidatePodSpec ->
    # validateContainers / validateInitContainers -> validateContainerCommon: `image` Required.
    _images_checked("", "pods", "object.spec")
    # validateEphemeralContainers requires it too (containers added through the subresource).
    vap = _policy(False, "", "pods", "object.spec.ephemeralContainers.all(e, e.image != '')", "UPDATE")
    assert _hints(vap) == [("ephemeralContainers", "optional in the schema")]
    assert _at_admission(vap, "e.image") == _present(_IMAGE)


def test_replication_controller() -> None:
    # The false hint. ValidateReplicationControllerSpec: ValidateNonEmptySelector, then
    # ValidatePodTemplateSpecForRC (`if template == nil { field.Required(fldPath, "") }`, and the
    # non-empty selector must match the template's labels), then the template's pod spec.
    expression = (
        "object.spec.template.spec.containers.all(c, c.image != '') && "
        "object.spec.selector.all(k, object.spec.template.metadata.labels[k] == object.spec.selector[k])"
    )
    rc = "replicationcontrollers"
    assert _hints(_policy(False, "", rc, expression)) == []
    assert _hints(_policy(True, "", rc, expression)) == [
        ("template", "required by the server's validation (ValidatePodTemplateSpecForRC)" + _MUTATING),
        ("selector", "required by the server's validation (ValidateNonEmptySelector)" + _MUTATING),
        ("labels", "required by the server's validation (ValidatePodTemplateSpecForRC: the required "
         "non-empty spec.selector must match them)" + _MUTATING),
    ]  # fmt: skip
    vap = _policy(False, "", rc, expression)
    assert _at_admission(vap, "spec.template") == _present(
        "required by the server's validation (ValidatePodTemplateSpecForRC)"
    )
    # The stored object went through validation: oldObject has a template even in a MAP.
    assert _hints(_policy(True, "", rc, "oldObject.spec.template.spec.containers.size() > 0", "UPDATE")) == []
    template = ("template", "required by the server's validation (ValidatePodTemplateSpecForRC)" + _MUTATING)
    _images_checked("", rc, "object.spec.template.spec", [template])


def test_pod_template() -> None:
    # ValidatePodTemplate(Update) -> ValidatePodTemplateSpec -> ValidatePodSpec.
    _images_checked("", "podtemplates", "object.template.spec")


def test_deployment() -> None:
    # ValidateDeploymentSpec -> ValidatePodTemplateSpecForReplicaSet -> ValidatePodTemplateSpec.
    _images_checked("apps", "deployments", "object.spec.template.spec")


def test_replica_set() -> None:
    # ValidateReplicaSetSpec -> ValidatePodTemplateSpecForReplicaSet -> ValidatePodTemplateSpec.
    _images_checked("apps", "replicasets", "object.spec.template.spec")


def test_daemon_set() -> None:
    # ValidateDaemonSet(Update) -> ValidateDaemonSetSpec -> ValidatePodTemplateSpec.
    _images_checked("apps", "daemonsets", "object.spec.template.spec")


def test_stateful_set_on_create_only() -> None:
    # ValidateStatefulSetSpec -> ValidatePodTemplateSpecForStatefulSet; but since v1.34
    # ValidateStatefulSetUpdate sets SkipValidatePodTemplateSpec when the stored StatefulSet fails
    # validation: an update's template may then lack an image.
    expression = "object.spec.template.spec.containers.all(c, c.image != '')"
    vap = _policy(False, "apps", "statefulsets", expression, "CREATE")
    assert _at_admission(vap, "c.image") == _present(_IMAGE)
    on_update = _policy(False, "apps", "statefulsets", expression)
    assert _at_admission(on_update, "c.image") == _absent(
        _IMAGE + " on CREATE only: ValidateStatefulSetUpdate skips the pod template when the stored "
        "StatefulSet fails validation"
    )
    assert _at_admission(_policy(True, "apps", "statefulsets", expression), "c.image") == _absent(
        _IMAGE + _MUTATING
    )


def test_job() -> None:
    # PrepareForCreate -> generateSelectorIfNeeded sets the selector unless manualSelector;
    # ValidateJobSpec requires it (`field.Required(fldPath.Child("selector"), "")`) on create and
    # update; validateJobSpec -> ValidatePodTemplateSpec requires the images.
    expression = "object.spec.selector.?matchLabels.orValue({}).size() > 0"
    assert _hints(_policy(False, "batch", "jobs", expression)) == []
    assert _hints(_policy(True, "batch", "jobs", expression)) == [
        ("selector", "required by the server's validation (ValidateJobSpec)" + _MUTATING),
    ]
    _images_checked("batch", "jobs", "object.spec.template.spec")


def test_cron_job() -> None:
    # validateCronJobSpec -> ValidateJobTemplateSpec -> validateJobSpec -> ValidatePodTemplateSpec.
    _images_checked("batch", "cronjobs", "object.spec.jobTemplate.spec.template.spec")
    # Not required: ValidateJobTemplateSpec rejects a jobTemplate selector ("will be auto-generated").
    vap = _policy(False, "batch", "cronjobs", "object.spec.jobTemplate.spec.selector.matchLabels.size() > 0")
    assert [field for field, _ in _hints(vap)] == ["selector", "matchLabels"]


def test_controller_revision() -> None:
    # ValidateControllerRevisionCreate (v1.31 on; ValidateControllerRevision before): `data is
    # mandatory`; on update the stored data is kept (immutable), so it is there too.
    expression = "has(dyn(object.data).spec)"  # data is a RawExtension: read through dyn
    assert _hints(_policy(False, "apps", "controllerrevisions", expression)) == []
    assert _hints(_policy(True, "apps", "controllerrevisions", expression)) == [
        ("data", "required by the server's validation (ValidateControllerRevision)" + _MUTATING)
    ]
    vap = _policy(False, "apps", "controllerrevisions", expression)
    assert _at_admission(vap, "object.data") == _present(
        "required by the server's validation (ValidateControllerRevision)"
    )


def test_a_pod_security_policy_over_every_kind_reads_templates_without_hints() -> None:
    # A multi-kind policy in the style of the (dispatch on object.kind): the RC branch
    # reads spec.template like the others, with no hint since ValidatePodTemplateSpecForRC.
    text = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pss}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [pods, replicationcontrollers, podtemplates]
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [deployments, replicasets, daemonsets, statefulsets]
      - {apiGroups: [batch], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [jobs, cronjobs]}
  variables:
    - name: spec
      expression: >-
        object.kind == 'Pod' ? object.spec :
        object.kind == 'PodTemplate' ? object.template.spec :
        object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec :
        object.spec.template.spec
  validations:
    - expression: "!has(variables.spec.hostNetwork) || !variables.spec.hostNetwork"
"""
    assert _hints(text) == []
