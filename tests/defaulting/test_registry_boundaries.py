"""What the registry does to an object between mutating and validating admission, at the edges the
mutation run of `vap_lsp/defaulting/` found untested (issue 39): a zero limit, a Burstable pod,
pod-level resources, a cluster-scoped object that names a namespace, system fields a client
wrote, a Namespace without spec, the status subresource's kept fields, a Service's new node
port, nested CRD schemas, and the walk's skipped subtrees.

Each case cites the Kubernetes v1.37.2 source (k8s.io/kubernetes, k8s.io/apiserver v0.37.2) that
decides it; where an older minor differs, both are cited.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit
from vap_lsp.defaulting import default_object
from vap_lsp.defaulting.builtin import _DEFAULTERS, ITEM, default_builtin
from vap_lsp.defaulting.server import status_update
from vap_lsp.defaulting.validation import required_field

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


def _admit(obj: str | dict[str, Any], expression: str = "true", version: str = "1.35", **kw: Any) -> Any:
    """A request through every phase; `.evaluated` is the object validating admission saw."""
    inputs = PolicyInputs.from_objects(
        [d for d in yaml.safe_load_all(POLICY.replace("EXPR", expression)) if d]
    )
    body = yaml.safe_load(obj) if isinstance(obj, str) else obj
    operation = kw.pop("operation", "CREATE")
    return admit(AdmissionRequestInput(operation, body, **kw), inputs, kubernetes_version=version)


def _pod(spec: str) -> str:
    return f"{{apiVersion: v1, kind: Pod, metadata: {{name: p, namespace: d}}, spec: {spec}}}"


# --- a Pod's QoS class (podStrategy.PrepareForCreate -> qos.GetPodQOS) ------------------------

_C = "{name: c, image: i, resources: RES}"


@pytest.mark.parametrize(
    ("resources", "qos"),
    [
        # resourceQOS (pkg/apis/core/helper/qos/qos.go): a zero quantity is no request and no
        # limit (`req.IsZero()`); SetDefaults_Container copies the limits into the requests.
        pytest.param("{limits: {cpu: '0', memory: '0'}}", "BestEffort", id="zero limits: BestEffort"),
        pytest.param("{requests: {cpu: '0'}}", "BestEffort", id="a zero request: BestEffort"),
        # req != lim for cpu: "neither guaranteed nor best effort".
        pytest.param("{requests: {cpu: 100m}}", "Burstable", id="a request only: Burstable"),
        pytest.param(
            "{limits: {cpu: '1'}, requests: {cpu: 500m}}", "Burstable", id="request below limit: Burstable"
        ),
        # req == lim != 0 for cpu, zero for memory: a mismatch of classes is Burstable.
        pytest.param("{limits: {cpu: '1'}}", "Burstable", id="cpu limited, memory not: Burstable"),
        pytest.param("{limits: {cpu: '1', memory: 1Gi}}", "Guaranteed", id="both limited: Guaranteed"),
        # cpu Guaranteed, memory limited at zero (BestEffort): a mismatch, Burstable.
        pytest.param("{limits: {cpu: '1', memory: '0'}}", "Burstable", id="a zero memory limit: Burstable"),
    ],
)
def test_the_qos_class_of_one_container(resources: str, qos: str) -> None:
    result = _admit(_pod(f"{{containers: [{_C.replace('RES', resources)}]}}"))
    assert result.evaluated["status"] == {"phase": "Pending", "qosClass": qos}


def test_a_best_effort_and_a_guaranteed_container_make_a_burstable_pod() -> None:
    # ComputePodQOS: "If one container is BestEffort and another is Guaranteed, the pod is Burstable".
    guaranteed = _C.replace("RES", "{limits: {cpu: '1', memory: 1Gi}}")
    result = _admit(_pod(f"{{containers: [{guaranteed}], initContainers: [{{name: i, image: i}}]}}"))
    assert result.evaluated["status"]["qosClass"] == "Burstable"


@pytest.mark.parametrize("version", ["1.33", "1.34", "1.35", "1.36", "1.37"])
def test_pod_level_resources_decide_the_qos_class_from_1_34(version: str) -> None:
    """ComputePodQOS: with PodLevelResources (beta, on by default since 1.34; alpha and off in
    1.32-1.33, pkg/features/kube_features.go) the pod-level `resources` decide, not the
    containers'; SetDefaults_Pod gives pod-level requests the pod-level limits."""
    spec = "{resources: {limits: {cpu: '1', memory: 1Gi}}, containers: [{name: c, image: i}]}"
    result = _admit(_pod(spec), version=version)
    assert result.evaluated["status"]["qosClass"] == ("BestEffort" if version == "1.33" else "Guaranteed")
    burstable = "{resources: {requests: {cpu: 100m}}, containers: [{name: c, image: i}]}"
    result = _admit(_pod(burstable), version=version)
    assert result.evaluated["status"]["qosClass"] == ("BestEffort" if version == "1.33" else "Burstable")


@pytest.mark.parametrize(
    ("version", "qos"), [("1.34", "BestEffort"), ("1.36", "BestEffort"), ("1.37", "Guaranteed")]
)
def test_empty_pod_level_resources_decide_until_1_37(version: str, qos: str) -> None:
    """Up to 1.36 `pod.Spec.Resources != nil` is enough for the pod-level branch (v1.36.0 qos.go),
    so an empty `resources: {}` makes the pod BestEffort; 1.37's PodLevelResourcesFixKubeletQOSClass
    (beta, on) takes it only when `helper.IsPodLevelResourcesSet`: the containers decide."""
    container = _C.replace("RES", "{limits: {cpu: '1', memory: 1Gi}}")
    result = _admit(_pod(f"{{resources: {{}}, containers: [{container}]}}"), version=version)
    assert result.evaluated["status"]["qosClass"] == qos


# --- metadata on create ---------------------------------------------------------------------


def test_a_cluster_scoped_object_loses_the_namespace_it_names() -> None:
    """A cluster-scoped resource's request has no namespace; EnsureObjectNamespaceMatchesRequestNamespace
    (apiserver pkg/registry/rest/meta.go, called by handlers/create.go and rest.BeforeCreate)
    "cluster-scoped, clear namespace"."""
    role = "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: c, namespace: NS}}"
    for ns in ("shop", "''"):
        result = _admit(role.replace("NS", ns), "!has(object.metadata.namespace)")
        assert result.allowed, result.denials
        assert "namespace" not in result.evaluated["metadata"]
    # A Namespace too (ExpectedNamespaceForResource: "" for namespaces).
    result = _admit("{apiVersion: v1, kind: Namespace, metadata: {name: n, namespace: x}}")
    assert "namespace" not in result.evaluated["metadata"]
    # A namespaced object keeps its own, or gets the request's.
    result = _admit("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}", namespace="shop")
    assert result.evaluated["metadata"]["namespace"] == "shop"


def test_system_fields_a_client_wrote_are_wiped_on_create() -> None:
    """rest.WipeObjectMetaSystemFields (handlers/create.go): deletionTimestamp and
    deletionGracePeriodSeconds are nil, creationTimestamp and uid filled in anew by Store.Create."""
    meta = (
        "{name: c, namespace: d, uid: written, creationTimestamp: '2020-01-01T00:00:00Z',"
        " deletionTimestamp: '2020-01-02T00:00:00Z', deletionGracePeriodSeconds: 30}"
    )
    result = _admit(
        f"{{apiVersion: v1, kind: ConfigMap, metadata: {meta}}}",
        "!has(object.metadata.deletionTimestamp) && !has(object.metadata.deletionGracePeriodSeconds)",
    )
    assert result.allowed, result.denials
    got = result.evaluated["metadata"]
    assert "deletionTimestamp" not in got and "deletionGracePeriodSeconds" not in got
    assert got["uid"] != "written" and got["creationTimestamp"] != "2020-01-01T00:00:00Z"


@pytest.mark.parametrize("namespace", ["{name: n}", "{name: n, labels: {a: b}}"])
def test_a_namespace_without_spec_gets_the_kubernetes_finalizer(namespace: str) -> None:
    """namespaceStrategy.PrepareForCreate (pkg/registry/core/namespace/strategy.go): status Active,
    and `spec.finalizers` gets "kubernetes" (the only one when there were none)."""
    result = _admit(f"{{apiVersion: v1, kind: Namespace, metadata: {namespace}}}")
    assert result.evaluated["spec"] == {"finalizers": ["kubernetes"]}
    assert result.evaluated["status"] == {"phase": "Active"}


@pytest.mark.parametrize(
    ("finalizers", "expected"),
    [(["kubernetes"], ["kubernetes"]), (["example.com/x"], ["example.com/x", "kubernetes"])],
)
def test_a_namespace_has_the_kubernetes_finalizer_once(finalizers: list[str], expected: list[str]) -> None:
    """namespaceStrategy.PrepareForCreate: appended only when `hasKubeFinalizer` is false."""
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "n"},
        "spec": {"finalizers": finalizers},
    }
    assert _admit(ns).evaluated["spec"]["finalizers"] == expected


def test_a_status_written_on_create_is_reset() -> None:
    """deploymentStrategy.PrepareForCreate (pkg/registry/apps/deployment/strategy.go):
    `deployment.Status = apps.DeploymentStatus{}`, read back as an empty `status`."""
    deployment = (
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: n},"
        " spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}},"
        " spec: {containers: [{name: c, image: i}]}}}, status: {replicas: 5, readyReplicas: 5}}"
    )
    assert _admit(deployment).evaluated["status"] == {}


def test_the_validation_rows_name_the_go_function_hover_cites() -> None:
    """Hover's and optional-field's reason "required by the server's validation (<function>)"
    (tests/analysis/test_guarantees_validation.py) reads the row of the field:
    `validateContainerCommon` requires a container's image (pkg/apis/core/validation)."""
    row = required_field(("", "v1", "Pod"), ("spec", "containers", ITEM, "image"))
    assert row is not None and row.function == "validateContainerCommon"
    row = required_field(("", "v1", "ReplicationController"), ("spec", "template"))
    assert row is not None and row.function == "ValidatePodTemplateSpecForRC"


def test_empty_omitempty_fields_of_nested_objects_are_gone() -> None:
    """ObjectMeta.Labels is `json:"labels,omitempty"` (apimachinery pkg/apis/meta/v1/types.go):
    `labels: {}` is absent once decoded; so is a container's `env: []` (Container.Env
    `json:"env,omitempty"`, pkg/apis/core/v1 types.go), two objects down."""
    cm = "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: d, labels: {}}, data: {a: b}}"
    result = _admit(cm, "!has(object.metadata.labels)")
    assert result.allowed, result.denials
    pod = default_object(yaml.safe_load(_pod("{containers: [{name: c, image: i, env: []}]}")), "1.35").object
    assert "env" not in pod["spec"]["containers"][0]


# --- UPDATE of the status subresource (the kind's status strategy PrepareForUpdate) ----------

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "namespace": "n", "labels": {"app": "old"}},
    "spec": {"replicas": 1},
    "status": {"replicas": 1},
}


def test_a_deployment_status_update_keeps_the_stored_spec_and_labels() -> None:
    """deploymentStatusStrategy.PrepareForUpdate (pkg/registry/apps/deployment/strategy.go):
    `newDeployment.Spec = oldDeployment.Spec; newDeployment.Labels = oldDeployment.Labels`."""
    new = copy.deepcopy(_DEPLOYMENT)
    new["metadata"]["labels"] = {"app": "new"}
    new["spec"] = {"replicas": 5}
    new["status"] = {"replicas": 3}
    status_update(new, copy.deepcopy(_DEPLOYMENT), ("apps", "v1", "Deployment"), builtin=True)
    assert new["spec"] == {"replicas": 1}
    assert new["metadata"]["labels"] == {"app": "old"}
    assert new["status"] == {"replicas": 3}
    # Labels the stored Deployment has none of are none after it either.
    unlabelled = copy.deepcopy(_DEPLOYMENT)
    del unlabelled["metadata"]["labels"]
    new = copy.deepcopy(_DEPLOYMENT)
    status_update(new, unlabelled, ("apps", "v1", "Deployment"), builtin=True)
    assert "labels" not in new["metadata"]


def test_a_status_update_of_an_object_stored_without_spec_has_none() -> None:
    """The status strategies copy the whole stored spec (`newX.Spec = oldX.Spec`), so a spec the
    request wrote is gone when the stored object has none (here a Namespace stored as written)."""
    old = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}, "status": {"phase": "Active"}}
    new = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "n"},
        "spec": {"finalizers": ["x"]},
        "status": {"phase": "Terminating"},
    }
    status_update(new, old, ("", "v1", "Namespace"), builtin=True)
    assert "spec" not in new and new["status"] == {"phase": "Terminating"}


def test_a_custom_resource_status_update_keeps_everything_stored_but_status_and_managed_fields() -> None:
    """apiextensions-apiserver pkg/registry/customresource/status_strategy.go PrepareForUpdate: the
    old object, with the request's managedFields (`SetManagedFields(managedFields)`: none when the
    request had none) and the request's status (none when it had none)."""
    old = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "n", "managedFields": [{"manager": "old"}]},
        "spec": {"size": 1},
        "status": {"ready": False},
    }
    new = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 9}}
    status_update(new, old, ("example.com", "v1", "Widget"), builtin=False)
    assert new == {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "n"},
        "spec": {"size": 1},
    }
    new = copy.deepcopy(old)
    new["metadata"]["managedFields"] = [{"manager": "new"}]
    new["status"] = {"ready": True}
    status_update(new, old, ("example.com", "v1", "Widget"), builtin=False)
    assert new["metadata"]["managedFields"] == [{"manager": "new"}] and new["status"] == {"ready": True}


# --- a Service's update: a new port's node port -----------------------------------------------


def test_a_new_node_port_is_never_one_the_updated_service_already_uses() -> None:
    """allocateUpdate -> initNodePorts (pkg/registry/core/service/storage/alloc.go): the port
    allocator hands out free ports only; a nodePort the request itself names (new, not stored)
    is taken, so the port added without one gets another (two equal node ports would fail
    validation: `spec.ports[1].nodePort: Duplicate value`)."""
    meta = {"name": "web", "namespace": "shop"}
    old_spec = {"type": "NodePort", "ports": [{"name": "a", "port": 80, "nodePort": 30007}]}

    def update(ports: list[dict[str, Any]]) -> list[int]:
        svc = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": meta,
            "spec": {"type": "NodePort", "ports": ports},
        }
        old = {"apiVersion": "v1", "kind": "Service", "metadata": dict(meta), "spec": copy.deepcopy(old_spec)}
        result = _admit(svc, operation="UPDATE", old_object=old)
        return [p["nodePort"] for p in result.evaluated["spec"]["ports"]]

    # The placeholder the new port gets when nothing else is in the way...
    [_, placeholder] = update([{"name": "a", "port": 80}, {"name": "b", "port": 81}])
    # ...is not handed out again when the request already names it for port a.
    ports = update([{"name": "a", "port": 80, "nodePort": placeholder}, {"name": "b", "port": 81}])
    assert ports[0] == placeholder and ports[1] not in (0, placeholder, 30007)


# --- the defaulting walk ---------------------------------------------------------------------


def test_a_nested_crd_property_is_defaulted_through_the_properties_map() -> None:
    """JSONSchemaProps.properties is a map (`additionalProperties`) of JSONSchemaProps: the walk
    reaches every nested property. ValidationRule.Rule is `json:"rule"` without omitempty
    (apiextensions-apiserver pkg/apis/apiextensions/v1/types_jsonschema.go), so a rule written
    without it reads back as `rule: ""` (the bundled OpenAPI's `default: ""`)."""
    crd = yaml.safe_load("""
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
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
            properties:
              size:
                type: integer
                x-kubernetes-validations: [{messageExpression: "'too big'"}]
""")
    out = default_object(crd, "1.35").object
    root = out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    size = root["properties"]["spec"]["properties"]["size"]
    assert size["x-kubernetes-validations"] == [{"messageExpression": "'too big'", "rule": ""}]


@pytest.mark.parametrize("version", ["1.30", "1.37"])
def test_maps_and_lists_of_never_defaulted_values_are_skipped(version: str) -> None:
    """The walk's skipping (test_walk_plan.py): a container's `capabilities` (lists of strings)
    and a Pod's `dnsConfig` (lists of strings and of name/value options) hold nothing the server
    defaults, so they are not walked: a list or map whose items are never defaulted is skipped
    with them."""
    default_builtin({}, "io.k8s.api.core.v1.Pod", version)
    walker = _DEFAULTERS[version]
    for name in ("io.k8s.api.core.v1.Capabilities", "io.k8s.api.core.v1.PodDNSConfig"):
        plan = walker.plan(name, {})
        assert plan is not None and walker.is_inert(plan), name


def test_a_statefulset_update_is_not_rejected_for_a_pod_template_stored_invalid() -> None:
    """ValidateStatefulSetUpdate (pkg/apis/apps/validation/validation.go, v1.34 on): when the
    stored StatefulSet fails ValidateStatefulSetSpec, SkipValidatePodTemplateSpec is set, so an
    update without containers is accepted and reaches validating admission (`validateContainers`
    is required on CREATE only: vap_lsp.defaulting.validation)."""
    sts = (
        "{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s, namespace: d},"
        " spec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {}}}}"
    )
    result = _admit(sts, operation="UPDATE", old_object=yaml.safe_load(sts), version="1.37")
    assert result.allowed and result.evaluations, result.denials
    created = _admit(sts, version="1.37")
    assert [d.message for d in created.denials] == [
        'StatefulSet.apps "s" is invalid: spec.template.spec.containers: Required value'
    ]
