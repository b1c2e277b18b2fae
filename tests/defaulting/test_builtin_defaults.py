"""Built-in defaulting, translated from kubernetes/kubernetes' own defaults tests.

Each test names the Go test it follows (`pkg/apis/<group>/<version>/defaults_test.go`) and the
defaulter it relies on; inputs are written as a user writes them, the expected fields beside.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vap_lsp.defaulting import ITEM, default_object, defaulted_fields, defaulted_paths
from vap_lsp.defaulting.rules import image_tag

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"]


def defaulted(text: str, version: str = "1.35") -> dict[str, Any]:
    return default_object(yaml.safe_load(text), version).object


POD = """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: app
    image: {image}
"""


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        # core/v1 defaults_test.go TestSetDefaultsImagePullPolicy-style cases (SetDefaults_Container)
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.25", "IfNotPresent"),
        ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
        ("registry.example.com:5000/team/app", "Always"),
        ("nginx@sha256:" + "a" * 64, "IfNotPresent"),  # a digest counts as a tag
        ("nginx:latest@sha256:" + "a" * 64, "Always"),
        ("''", "IfNotPresent"),  # ParseImageName fails: no tag
        ("UPPER/case", "IfNotPresent"),
    ],
)
@pytest.mark.parametrize("version", VERSIONS)
def test_image_pull_policy_follows_the_tag(image: str, policy: str, version: str) -> None:
    pod = defaulted(POD.replace("{image}", image), version)
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_image_tag_parses_like_parse_image_name() -> None:
    assert image_tag("docker.io/library/busybox") == "latest"
    assert image_tag("localhost/app:dev") == "dev"
    assert image_tag("app@sha256:" + "0" * 64) == ""


def test_written_pull_policy_stays() -> None:
    pod = defaulted(POD.replace("{image}", "nginx") + "    imagePullPolicy: Never\n")
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == "Never"


def test_pod_spec_defaults() -> None:
    """core/v1 TestSetDefaultPodSpec… / SetDefaults_PodSpec, SetDefaults_Pod, SetDefaults_Container."""
    pod = defaulted(POD.replace("{image}", "nginx:1"))
    spec = pod["spec"]
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["restartPolicy"] == "Always"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["securityContext"] == {}
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["enableServiceLinks"] is True  # SetDefaults_Pod (Pods only)
    c = spec["containers"][0]
    assert c["terminationMessagePath"] == "/dev/termination-log"
    assert c["terminationMessagePolicy"] == "File"
    assert c["resources"] == {}  # non-pointer struct: always serialised
    assert pod["status"] == {}


def test_templates_get_pod_spec_defaults_but_not_enable_service_links() -> None:
    """apps/v1 TestSetDefaultDeployment: the template's PodSpec is defaulted (SetDefaults_PodSpec),
    SetDefaults_Pod's enableServiceLinks is for Pods only."""
    d = defaulted(
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: "nginx:1"}]
"""
    )
    spec = d["spec"]
    assert spec["replicas"] == 1
    assert spec["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"},
    }
    assert spec["revisionHistoryLimit"] == 10
    assert spec["progressDeadlineSeconds"] == 600
    pod_spec = spec["template"]["spec"]
    assert pod_spec["restartPolicy"] == "Always"
    assert "enableServiceLinks" not in pod_spec


def test_deployment_recreate_has_no_rolling_update() -> None:
    """apps/v1 TestSetDefaultDeployment, Recreate case."""
    d = defaulted(
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  strategy: {type: Recreate}\n  replicas: 5\n"
    )
    assert d["spec"]["strategy"] == {"type": "Recreate"}
    assert d["spec"]["replicas"] == 5


def test_probe_and_http_get_defaults() -> None:
    """core/v1 TestSetDefaultProbe, TestSetDefaultHTTPGetAction
    (SetDefaults_Probe, SetDefaults_HTTPGetAction)."""
    pod = defaulted(POD.replace("{image}", "nginx:1") + "    readinessProbe: {httpGet: {port: 8080}}\n")
    probe = pod["spec"]["containers"][0]["readinessProbe"]
    assert probe == {
        "httpGet": {"port": 8080, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }


def test_requests_default_to_limits_on_pods_only() -> None:
    """core/v1 TestSetDefaultRequestsPod / TestDefaultRequestIsNotSetForReplicationController."""
    resources = "    resources: {limits: {cpu: 100m, memory: 1Gi}, requests: {cpu: 50m}}\n"
    pod = defaulted(POD.replace("{image}", "nginx:1") + resources)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "50m", "memory": "1Gi"}
    rc = defaulted(
        """
apiVersion: v1
kind: ReplicationController
spec:
  template:
    metadata: {labels: {app: a}}
    spec:
      containers: [{name: c, image: "x:1", resources: {limits: {cpu: 100m}}}]
"""
    )
    assert "requests" not in rc["spec"]["template"]["spec"]["containers"][0]["resources"]
    # TestSetDefaultReplicationControllerSelector / …Labels
    assert rc["spec"]["selector"] == {"app": "a"}
    assert rc["metadata"]["labels"] == {"app": "a"}
    assert rc["spec"]["replicas"] == 1


def test_volume_without_source_is_empty_dir() -> None:
    """core/v1 TestSetDefaultVolume (SetDefaults_Volume); secret defaultMode 0644."""
    pod = defaulted(
        POD.replace("{image}", "nginx:1") + "  volumes: [{name: a}, {name: b, secret: {secretName: s}}]\n"
    )
    assert pod["spec"]["volumes"] == [
        {"name": "a", "emptyDir": {}},
        {"name": "b", "secret": {"secretName": "s", "defaultMode": 420}},
    ]


def test_host_network_defaults_host_ports() -> None:
    """core/v1 TestSetDefaultHostPort-style (SetDefaults_Pod: defaultHostNetworkPorts)."""
    pod = defaulted(
        POD.replace("{image}", "nginx:1") + "    ports: [{containerPort: 8080}]\n  hostNetwork: true\n"
    )
    assert pod["spec"]["containers"][0]["ports"] == [
        {"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}
    ]


def test_service_defaults() -> None:
    """core/v1 TestSetDefaultService, TestSetDefaultServiceTargetPort, TestSetDefaultServicePort,
    TestSetDefaultServiceSessionAffinityConfig… (SetDefaults_Service)."""
    svc = defaulted(
        """
apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  ports: [{port: 80}, {port: 443, targetPort: https}]
"""
    )
    spec = svc["spec"]
    assert spec["type"] == "ClusterIP"
    assert spec["sessionAffinity"] == "None"
    assert spec["internalTrafficPolicy"] == "Cluster"
    assert "externalTrafficPolicy" not in spec
    assert spec["ports"] == [
        {"port": 80, "protocol": "TCP", "targetPort": 80},
        {"port": 443, "targetPort": "https", "protocol": "TCP"},
    ]
    lb = defaulted("apiVersion: v1\nkind: Service\nspec: {type: LoadBalancer, sessionAffinity: ClientIP}\n")
    assert lb["spec"]["externalTrafficPolicy"] == "Cluster"
    assert lb["spec"]["allocateLoadBalancerNodePorts"] is True
    assert lb["spec"]["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}
    external = defaulted(
        "apiVersion: v1\nkind: Service\nspec: {type: ExternalName, externalName: x.example}\n"
    )
    assert "internalTrafficPolicy" not in external["spec"]


def test_pvc_defaults() -> None:
    """core/v1 TestSetDefaultPersistentVolumeClaim (SetDefaults_PersistentVolumeClaim[Spec])."""
    pvc = defaulted(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nspec: {resources: {requests: {storage: 1Gi}}}\n"
    )
    assert pvc["spec"]["volumeMode"] == "Filesystem"
    assert pvc["status"]["phase"] == "Pending"


def test_daemon_set_defaults() -> None:
    """apps/v1 TestSetDefaultDaemonSetSpec (SetDefaults_DaemonSet)."""
    ds = defaulted("apiVersion: apps/v1\nkind: DaemonSet\nspec: {template: {spec: {containers: []}}}\n")
    assert ds["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0},
    }
    assert ds["spec"]["revisionHistoryLimit"] == 10


@pytest.mark.parametrize(("version", "max_unavailable"), [("1.34", None), ("1.35", 1), ("1.37", 1)])
def test_stateful_set_defaults(version: str, max_unavailable: int | None) -> None:
    """apps/v1 TestSetDefaultStatefulSet (SetDefaults_StatefulSet); maxUnavailable only once the
    MaxUnavailableStatefulSet gate is on by default (beta, 1.35)."""
    sts = defaulted("apiVersion: apps/v1\nkind: StatefulSet\nspec: {serviceName: s}\n", version)
    spec = sts["spec"]
    assert spec["podManagementPolicy"] == "OrderedReady"
    assert spec["replicas"] == 1
    assert spec["revisionHistoryLimit"] == 10
    assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}
    assert spec["updateStrategy"]["type"] == "RollingUpdate"
    assert spec["updateStrategy"]["rollingUpdate"].get("partition") == 0
    assert spec["updateStrategy"]["rollingUpdate"].get("maxUnavailable") == max_unavailable


def test_job_defaults() -> None:
    """batch/v1 TestSetDefaultJob (SetDefaults_Job): both counts unset → 1/1; backoffLimit 6;
    with backoffLimitPerIndex → MaxInt32; labels from the template; podReplacementPolicy;
    manualSelector false (kubernetes/kubernetes#120206, 1.29)."""
    job = defaulted(
        """
apiVersion: batch/v1
kind: Job
spec:
  template:
    metadata: {labels: {app: j}}
    spec: {restartPolicy: Never, containers: [{name: c, image: "x:1"}]}
"""
    )
    spec = job["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert spec["completionMode"] == "NonIndexed"
    assert spec["suspend"] is False and spec["manualSelector"] is False
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert job["metadata"]["labels"] == {"app": "j"}
    indexed = defaulted(
        """
apiVersion: batch/v1
kind: Job
spec:
  completions: 4
  backoffLimitPerIndex: 1
  podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}
"""
    )
    assert indexed["spec"]["backoffLimit"] == 2147483647
    assert indexed["spec"]["parallelism"] == 1
    assert indexed["spec"]["podReplacementPolicy"] == "Failed"
    assert indexed["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"


def test_cron_job_defaults() -> None:
    """batch/v1 TestSetDefaultCronJob (SetDefaults_CronJob); the job template's PodSpec too."""
    cj = defaulted(
        """
apiVersion: batch/v1
kind: CronJob
spec:
  schedule: '* * * * *'
  jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: x}]}}}}
"""
    )
    spec = cj["spec"]
    assert (
        spec["concurrencyPolicy"],
        spec["suspend"],
        spec["successfulJobsHistoryLimit"],
        spec["failedJobsHistoryLimit"],
    ) == ("Allow", False, 3, 1)
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] == "Always"
    # SetDefaults_Job takes a *Job: SetObjectDefaults_CronJob does not call it on the template.
    assert set(spec["jobTemplate"]["spec"]) == {"template"}


def test_hpa_defaults() -> None:
    """autoscaling/v2 TestSetDefaultHPA, TestGenerateScaleDownRules (SetDefaults_HorizontalPodAutoscaler)."""
    hpa = defaulted(
        """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
spec: {maxReplicas: 3, behavior: {scaleDown: {stabilizationWindowSeconds: 60}}}
"""
    )
    spec = hpa["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"][0]["resource"]["target"] == {"type": "Utilization", "averageUtilization": 80}
    assert spec["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 60
    assert spec["behavior"]["scaleDown"]["selectPolicy"] == "Max"
    assert spec["behavior"]["scaleUp"]["policies"][0] == {"type": "Pods", "value": 4, "periodSeconds": 15}


def test_network_policy_and_rbac_defaults() -> None:
    """networking/v1 TestSetDefaultNetworkPolicy; rbac/v1 (SetDefaults_Subject, SetDefaults_RoleBinding)."""
    np = defaulted(
        """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
spec: {podSelector: {}, egress: [{}], ingress: [{ports: [{port: 80}]}]}
"""
    )
    assert np["spec"]["policyTypes"] == ["Ingress", "Egress"]
    assert np["spec"]["ingress"][0]["ports"][0]["protocol"] == "TCP"
    rb = defaulted(
        """
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
roleRef: {kind: Role, name: r}
subjects: [{kind: User, name: u}, {kind: ServiceAccount, name: s}]
"""
    )
    assert rb["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert rb["subjects"][0]["apiGroup"] == "rbac.authorization.k8s.io"
    assert "apiGroup" not in rb["subjects"][1]


def test_namespace_label() -> None:
    """core/v1 TestSetDefaultNamespaceLabels (SetDefaults_Namespace)."""
    ns = defaulted("apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n")
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}


def test_policy_kinds_use_the_policy_defaults() -> None:
    vap = defaulted(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nspec: {}\n"
    )
    assert vap["spec"]["failurePolicy"] == "Fail"


def test_defaulting_is_idempotent() -> None:
    once = defaulted(POD.replace("{image}", "nginx"))
    assert default_object(once, "1.35").object == once


def test_unknown_kind_is_kept_with_a_note() -> None:
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"a": 1}}
    result = default_object(obj, "1.35")
    assert result.object == obj
    assert result.note == "no schema for example.com/v1 Widget: evaluated as written, without defaulting"


def test_wrong_types_stay_as_written() -> None:
    pod = defaulted("apiVersion: v1\nkind: Pod\nspec: {containers: 5, volumes: [1, {name: v}]}\n")
    assert pod["spec"]["containers"] == 5
    assert pod["spec"]["volumes"][0] == 1


# --- the query API -------------------------------------------------------------------------------


def test_defaulted_paths_of_a_deployment() -> None:
    paths = defaulted_paths(("apps", "v1", "Deployment"), "1.35")
    assert ("spec",) in paths
    assert ("spec", "replicas") in paths
    assert ("spec", "template", "spec", "securityContext") in paths
    assert ("spec", "template", "spec", "containers", ITEM, "imagePullPolicy") in paths
    assert ("spec", "strategy", "rollingUpdate") not in paths  # only for RollingUpdate
    assert ("spec", "template", "spec", "enableServiceLinks") not in paths
    field = defaulted_fields(("apps", "v1", "Deployment"), "1.35")[("spec", "replicas")]
    assert (field.value, field.source) == (1, "SetDefaults_Deployment (apps/v1)")


def test_defaulted_paths_are_versioned_and_unknown_kinds_empty() -> None:
    path = ("spec", "updateStrategy", "rollingUpdate", "maxUnavailable")
    assert path not in defaulted_paths(("apps", "v1", "StatefulSet"), "1.34")
    assert path in defaulted_paths(("apps", "v1", "StatefulSet"), "1.35")
    assert defaulted_paths(("example.com", "v1", "Widget"), "1.35") == frozenset()
    assert defaulted_paths(("", "v1", "Pod"), "9.99") == frozenset()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "gvk",
    [("", "v1", "Pod"), ("apps", "v1", "Deployment"), ("batch", "v1", "Job"), ("", "v1", "Service")],
)
def test_every_always_path_is_set_on_a_minimal_object(gvk: tuple[str, str, str], version: str) -> None:
    """The query API and defaulting agree: a path whose every prefix is listed too (a chain from
    the root, no list items) is present after defaulting the emptiest object of the kind."""
    group, ver, kind = gvk
    obj = default_object({"apiVersion": f"{group}/{ver}".lstrip("/"), "kind": kind}, version).object
    paths = defaulted_paths(gvk, version)
    chains = [p for p in paths if all(p[:i] in paths for i in range(1, len(p) + 1))]
    assert ("spec",) in chains
    for path in chains:
        cur: Any = obj
        for key in path:
            assert isinstance(cur, dict) and key in cur, path
            cur = cur[key]
