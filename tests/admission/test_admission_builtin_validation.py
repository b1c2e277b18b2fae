"""Objects the server's built-in validation rejects before validating admission (issue 33).

`rest.BeforeCreate` runs the strategy's `PrepareForCreate` and `Validate` after mutating admission
and before validating admission: such an object never reaches a ValidatingAdmissionPolicy, and
the request fails with `<Kind>.<group> "<name>" is invalid: <errors>`. The rows are
`vap_lsp.defaulting.validation.REQUIRED_FIELDS`; every expected message below was compared with
`rest.BeforeCreate` of Kubernetes v1.37.2 run on the same object (the registry strategies of
`pkg/registry/{core,apps,batch}/...`), and the rules are the same from v1.30.14 on.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"]

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  validations:
  - expression: "EXPR"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: p, validationActions: [Deny]}
"""


def _admit(
    obj: str, expression: str = "true", operation: str = "CREATE", version: str = "1.35", **kw: Any
) -> Any:
    inputs = PolicyInputs.from_objects(
        [d for d in yaml.safe_load_all(POLICY.replace("EXPR", expression)) if d]
    )
    request = AdmissionRequestInput(operation, yaml.safe_load(obj), **kw)
    return admit(request, inputs, kubernetes_version=version)


_RC = "{apiVersion: v1, kind: ReplicationController, metadata: {name: x, namespace: d}, spec: SPEC}"
_APPS = "{apiVersion: apps/v1, kind: KIND, metadata: {name: p, namespace: d}, spec: SPEC}"
_SELECTED = "{selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: POD}}"


def _apps(kind: str, pod_spec: str) -> str:
    return _APPS.replace("KIND", kind).replace("SPEC", _SELECTED.replace("POD", pod_spec))


REJECTED = [
    # ValidatePodTemplateSpecForRC: `if template == nil { field.Required(fldPath, "") }`.
    (
        _RC.replace("SPEC", "{selector: {app: x}}"),
        'ReplicationController "x" is invalid: spec.template: Required value',
    ),
    # ValidateReplicationControllerSpec: ValidateNonEmptySelector first (no template labels to
    # default it from, SetDefaults_ReplicationController), then the template.
    (
        _RC.replace("SPEC", "{}"),
        'ReplicationController "x" is invalid: [spec.selector: Required value, '
        "spec.template: Required value]",
    ),
    # ValidatePodTemplateSpecForRC -> ValidatePodTemplateSpec -> validateContainerCommon.
    (
        _RC.replace("SPEC", "{template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c}]}}}"),
        'ReplicationController "x" is invalid: spec.template.spec.containers[0].image: Required value',
    ),
    # validateContainerCommon, container by container: a name, then an image.
    (
        "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: d},"
        " spec: {containers: [{name: a}, {image: b}], initContainers: [{name: i}]}}",
        'Pod "p" is invalid: [spec.containers[0].image: Required value, '
        "spec.containers[1].name: Required value, spec.initContainers[0].image: Required value]",
    ),
    # validateContainers on a Pod without spec (Go's zero PodSpec).
    (
        "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: d}}",
        'Pod "p" is invalid: spec.containers: Required value',
    ),
    # ValidatePodTemplate -> ValidatePodTemplateSpec -> validateContainers.
    (
        "{apiVersion: v1, kind: PodTemplate, metadata: {name: p, namespace: d}, template: {}}",
        'PodTemplate "p" is invalid: template.spec.containers: Required value',
    ),
    # ValidateDeploymentSpec -> ValidatePodTemplateSpecForReplicaSet -> validateContainerCommon.
    (
        _apps("Deployment", "{containers: [{name: c}], initContainers: [{name: i, image: x}, {name: k}]}"),
        'Deployment.apps "p" is invalid: [spec.template.spec.containers[0].image: Required value, '
        "spec.template.spec.initContainers[1].image: Required value]",
    ),
    # ValidateReplicaSetSpec, ValidateDaemonSetSpec, ValidateStatefulSetSpec -> validateContainers.
    (
        _apps("ReplicaSet", "{}"),
        'ReplicaSet.apps "p" is invalid: spec.template.spec.containers: Required value',
    ),
    (
        _apps("DaemonSet", "{containers: []}"),
        'DaemonSet.apps "p" is invalid: spec.template.spec.containers: Required value',
    ),
    (
        _apps("StatefulSet", "{containers: [{name: c}]}"),
        'StatefulSet.apps "p" is invalid: spec.template.spec.containers[0].image: Required value',
    ),
    # validateJobSpec: restartPolicy Always (SetDefaults_PodSpec's default) is Required to be
    # OnFailure or Never.
    (
        "{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: d},"
        " spec: {template: {spec: {containers: [{name: c, image: i}]}}}}",
        'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value: '
        'valid values: "OnFailure", "Never"',
    ),
    # validateCronJobSpec -> ValidateJobTemplateSpec -> validateJobSpec: the template, then
    # restartPolicy.
    (
        "{apiVersion: batch/v1, kind: CronJob, metadata: {name: j, namespace: d},"
        " spec: {schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {containers: [{name: c}]}}}}}}",
        'CronJob.batch "j" is invalid: [spec.jobTemplate.spec.template.spec.containers[0].image: '
        "Required value, spec.jobTemplate.spec.template.spec.restartPolicy: Required value: "
        'valid values: "OnFailure", "Never"]',
    ),
    # ValidateControllerRevisionCreate (ValidateControllerRevision before v1.31): data is mandatory.
    (
        "{apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: r, namespace: d}, revision: 1}",
        'ControllerRevision.apps "r" is invalid: data: Required value: data is mandatory',
    ),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(("obj", "message"), REJECTED)
def test_rejected_before_validating_admission_with_the_servers_message(
    obj: str, message: str, version: str
) -> None:
    result = _admit(obj, "false", version=version)
    assert [d.message for d in result.denials] == [message]
    assert result.evaluations == []  # validating admission never ran
    assert "rejected by the built-in validation before validating admission" in result.notes


def test_a_job_reaches_validating_admission_with_its_generated_selector() -> None:
    # PrepareForCreate -> generateSelectorIfNeeded (pkg/registry/batch/job/strategy.go): the
    # template gets the job-name and controller-uid labels, the selector the controller-uid.
    job = (
        "{apiVersion: batch/v1, kind: Job, metadata: {name: j, namespace: d},"
        " spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}}}"
    )
    expression = (
        "object.spec.selector.matchLabels['batch.kubernetes.io/controller-uid'] == object.metadata.uid && "
        "object.spec.template.metadata.labels['job-name'] == 'j' && "
        "object.spec.template.metadata.labels['batch.kubernetes.io/job-name'] == 'j' && "
        "object.spec.template.metadata.labels['controller-uid'] == object.metadata.uid"
    )
    result = _admit(job, expression)
    assert result.allowed, result.denials
    # A manual selector is left as written.
    manual = job.replace(
        "spec: {template", "spec: {manualSelector: true, selector: {matchLabels: {a: b}}, template"
    )
    manual = manual.replace("template: {spec", "template: {metadata: {labels: {a: b}}, spec")
    result = _admit(manual, "object.spec.selector.matchLabels == {'a': 'b'}")
    assert result.allowed, result.denials


def test_only_rejections_certain_on_every_version_are_made() -> None:
    # ValidateStatefulSetUpdate skips the pod template when the stored StatefulSet fails
    # validation (v1.34 on): an update without an image is not rejected here.
    sts = _apps("StatefulSet", "{containers: [{name: c}]}")
    result = _admit(sts, "true", "UPDATE", old_object=yaml.safe_load(sts))
    assert result.allowed and result.evaluations, result.denials
    # A ControllerRevision's update keeps the stored data: rejected as immutable since v1.31,
    # Required before; not said here.
    revision = (
        "{apiVersion: apps/v1, kind: ControllerRevision, metadata: {name: r, namespace: d}, revision: 1}"
    )
    result = _admit(revision, "true", "UPDATE", old_object=yaml.safe_load(revision))
    assert result.allowed and result.evaluations, result.denials
