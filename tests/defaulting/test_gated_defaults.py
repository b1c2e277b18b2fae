"""Defaults that depend on a feature gate, per Kubernetes version: the gate's default in each
release (`pkg/features/kube_features.go`, versioned specs) decides whether the defaulter runs.

- InPlacePodVerticalScaling: alpha 1.27 (off), beta 1.33 (on), GA 1.35; the `resizePolicy`
  defaulting of SetDefaults_Pod (core/v1) was removed for 1.33 (kubernetes#128920), so no
  supported version defaults it with the gates at their defaults.
- PodLevelResources: alpha 1.32 (off), beta 1.34 (on): SetDefaults_Pod's `defaultPodRequests`.
- MaxUnavailableStatefulSet: alpha 1.24 (off), beta 1.35 (on): SetDefaults_StatefulSet.
- LoadBalancerIPMode: beta 1.30 (on), GA 1.32: SetDefaults_Service.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from vap_lsp.defaulting import default_object, defaulted_paths

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35"]


def defaulted(text: str, version: str) -> dict[str, Any]:
    return default_object(yaml.safe_load(text), version).object


RESIZABLE = """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: app
    image: app:1
    resources: {requests: {cpu: 100m, memory: 64Mi}}
"""


@pytest.mark.parametrize("version", VERSIONS)
def test_resize_policy_is_never_defaulted(version: str) -> None:
    """core/v1 SetDefaults_Pod: resizePolicy stays absent (the kubelet reads absent as NotRequired)."""
    container = defaulted(RESIZABLE, version)["spec"]["containers"][0]
    assert "resizePolicy" not in container
    path = ("spec", "containers", "[*]", "resizePolicy")
    assert path not in defaulted_paths(("", "v1", "Pod"), version)


POD_LEVEL = """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resources:
    limits: {cpu: "4", memory: 1Gi}
  containers:
  - name: app
    image: app:1
    resources: {requests: {cpu: 500m}}
  - name: log
    image: log:1
    resources: {limits: {cpu: 250m}}
"""


@pytest.mark.parametrize(("version", "on"), [(v, v in ("1.34", "1.35")) for v in VERSIONS])
def test_pod_level_requests_default_from_container_requests_then_limits(version: str, on: bool) -> None:
    """core/v1 defaults_test.go TestPodResourcesDefaults-style case (defaultPodRequests): cpu is
    requested by containers (500m, and 250m defaulted from the log container's limit), so the
    pod-level request is their sum; memory is requested by none, so it is the pod-level limit."""
    spec = defaulted(POD_LEVEL, version)["spec"]
    assert spec["containers"][1]["resources"]["requests"] == {"cpu": "250m"}  # SetDefaults_Pod, every version
    if on:
        assert spec["resources"]["requests"] == {"cpu": "750m", "memory": "1Gi"}
    else:
        assert "requests" not in spec["resources"]


def test_pod_level_requests_keep_written_values_and_count_init_containers() -> None:
    """AggregateContainerRequests: max(sum of containers and sidecars, each init container plus
    the sidecars before it); a written pod-level request is kept."""
    pod = yaml.safe_load(POD_LEVEL)
    pod["spec"]["resources"]["requests"] = {"memory": "512Mi"}
    pod["spec"]["initContainers"] = [
        {"name": "side", "image": "s:1", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
        {"name": "init", "image": "i:1", "resources": {"requests": {"cpu": "3"}}},
    ]
    spec = default_object(pod, "1.35").object["spec"]
    # containers 750m + sidecar 1 = 1750m; init 3 + sidecar 1 = 4 → 4
    assert spec["resources"]["requests"] == {"memory": "512Mi", "cpu": "4"}


def test_pod_templates_get_no_pod_level_requests() -> None:
    """defaultPodRequests is part of SetDefaults_Pod, not SetDefaults_PodSpec: templates keep theirs."""
    deployment = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d}}
spec:
  selector: {{matchLabels: {{a: b}}}}
  template:
    metadata: {{labels: {{a: b}}}}
    spec: {yaml.safe_load(POD_LEVEL)["spec"]}
"""
    spec = defaulted(deployment, "1.35")["spec"]["template"]["spec"]
    assert "requests" not in spec["resources"]


STATEFUL_SET = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec:
  serviceName: s
  updateStrategy: {strategy}
"""


@pytest.mark.parametrize("version", VERSIONS)
def test_partition_is_defaulted_only_under_rolling_update(version: str) -> None:
    """apps/v1 SetDefaults_StatefulSet: partition (and from 1.35 maxUnavailable) only when the
    type is RollingUpdate and rollingUpdate is set; a written RollingUpdate without rollingUpdate
    keeps it unset; OnDelete leaves a written rollingUpdate as it is."""
    max_unavailable = {"maxUnavailable": 1} if version == "1.35" else {}
    written = "{type: RollingUpdate, rollingUpdate: {}}"
    rolling = defaulted(STATEFUL_SET.replace("{strategy}", written), version)
    assert rolling["spec"]["updateStrategy"]["rollingUpdate"] == {"partition": 0, **max_unavailable}
    bare = defaulted(STATEFUL_SET.replace("{strategy}", "{type: RollingUpdate}"), version)
    assert "rollingUpdate" not in bare["spec"]["updateStrategy"]
    on_delete = defaulted(STATEFUL_SET.replace("{strategy}", "{type: OnDelete, rollingUpdate: {}}"), version)
    assert on_delete["spec"]["updateStrategy"] == {"type": "OnDelete", "rollingUpdate": {}}
    empty = defaulted(STATEFUL_SET.replace("{strategy}", "{}"), version)
    assert empty["spec"]["updateStrategy"]["rollingUpdate"] == {"partition": 0, **max_unavailable}


@pytest.mark.parametrize("version", VERSIONS)
def test_load_balancer_ingress_ip_mode_is_vip(version: str) -> None:
    """core/v1 SetDefaults_Service with LoadBalancerIPMode (on in every supported version)."""
    svc = defaulted(
        """
apiVersion: v1
kind: Service
metadata: {name: s}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {hostname: lb.example.com}, {ip: 5.6.7.8, ipMode: Proxy}]}}
""",
        version,
    )
    assert [i.get("ipMode") for i in svc["status"]["loadBalancer"]["ingress"]] == ["VIP", None, "Proxy"]


def test_ingress_class_parameters_scope_is_cluster() -> None:
    """networking/v1 defaults_test.go: SetDefaults_IngressClass sets parameters.scope to Cluster
    ("existing scope is not overridden")."""
    text = """
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: c}
spec: {controller: example.com/c, parameters: {kind: K, name: n}}
"""
    assert defaulted(text, "1.35")["spec"]["parameters"]["scope"] == "Cluster"
    kept = text.replace("name: n}", "name: n, scope: Namespace, namespace: x}")
    assert defaulted(kept, "1.35")["spec"]["parameters"]["scope"] == "Namespace"


CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: ml}
spec:
  devices:
    requests:
    - name: one
      exactly: {deviceClassName: gpu.example.com}
    - name: all
      exactly: {deviceClassName: gpu.example.com, allocationMode: All}
    - name: either
      firstAvailable:
      - {name: big, deviceClassName: big.example.com}
"""


@pytest.mark.parametrize("version", ["1.34", "1.35"])
def test_device_requests_default_to_exact_count_one(version: str) -> None:
    """resource/v1 SetDefaults_ExactDeviceRequest: allocationMode ExactCount, then count 1 for
    ExactCount; SetDefaults_DeviceSubRequest: allocationMode ExactCount (its count is left as
    written: it changed with the position in firstAvailable)."""
    one, every, either = defaulted(CLAIM, version)["spec"]["devices"]["requests"]
    assert one["exactly"]["allocationMode"] == "ExactCount" and one["exactly"]["count"] == 1
    assert every["exactly"]["allocationMode"] == "All" and "count" not in every["exactly"]
    assert either["firstAvailable"][0]["allocationMode"] == "ExactCount"
