# ruff: noqa: E501  (one case per line)
"""The Go defaulters that read siblings or lists (`defaulting.custom`), at their edges (issue 39).

Sources (kubernetes `pkg/apis/core/v1/defaults.go` unless named): `SetDefaults_Pod` (requests
from limits in containers and init containers; pod-level requests with PodLevelResources, on by
default since 1.34: `defaultPodRequests`), `SetDefaults_Service` (a LoadBalancer's ingress IPs get
ipMode VIP; ClientIP affinity gets `sessionAffinityConfig.clientIP.timeoutSeconds` 10800),
`SetDefaults_ReplicationController` (selector and labels from the template), `pkg/apis/batch/v1/
defaults.go` `SetDefaults_Job` (labels from the template).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vap_lsp.defaulting.custom import (
    custom_for,
    job,
    limit_range_item,
    pod,
    pod_with_pod_level_resources,
    replication_controller,
    service,
    service_spec,
)

JsonDict = dict[str, Any]


def _container(limits: JsonDict | None = None, requests: JsonDict | None = None, **extra: Any) -> JsonDict:
    resources: JsonDict = {}
    if limits is not None:
        resources["limits"] = limits
    if requests is not None:
        resources["requests"] = requests
    return {"name": "c", "resources": resources, **extra}


def test_requests_default_to_limits_in_containers_and_init_containers() -> None:
    obj = {
        "spec": {
            "containers": [_container({"cpu": "1"}, {"memory": "1Gi"})],
            "initContainers": [_container({"cpu": "2", "memory": "2Gi"})],
        }
    }
    pod(obj)
    assert obj["spec"]["containers"][0]["resources"]["requests"] == {"memory": "1Gi", "cpu": "1"}
    assert obj["spec"]["initContainers"][0]["resources"]["requests"] == {"cpu": "2", "memory": "2Gi"}


def test_a_written_request_is_kept_and_empty_limits_add_nothing() -> None:
    obj = {"spec": {"containers": [_container({"cpu": "2"}, {"cpu": "1"}), _container({})]}}
    pod(obj)
    assert obj["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1"}
    assert "requests" not in obj["spec"]["containers"][1]["resources"]


@pytest.mark.parametrize(
    ("spec", "requests"),
    [
        # no container requests: the pod-level limit
        ({"containers": [{"name": "c"}]}, {"cpu": "2", "memory": "1Gi"}),
        # a container's request (from its limit): the aggregate wins over the pod limit
        ({"containers": [_container({"cpu": "500m"})]}, {"cpu": "500m", "memory": "1Gi"}),
        # two containers: their sum
        ({"containers": [_container(requests={"cpu": "250m"}), _container(requests={"cpu": "250m"})]}, {"cpu": "500m", "memory": "1Gi"}),
        # a written pod-level request is kept
        ({"containers": [{"name": "c"}], "resources": {"requests": {"cpu": "100m"}}}, {"cpu": "100m", "memory": "1Gi"}),
    ],
)  # fmt: skip
def test_pod_level_requests(spec: JsonDict, requests: JsonDict) -> None:
    spec = copy.deepcopy(spec)
    resources = spec.setdefault("resources", {})
    resources["limits"] = {"cpu": "2", "memory": "1Gi"}
    obj = {"spec": spec}
    pod_with_pod_level_resources(obj)
    assert obj["spec"]["resources"]["requests"] == requests


@pytest.mark.parametrize(
    "spec",
    [
        {"containers": [{"name": "c"}]},  # no pod-level resources
        {"containers": [{"name": "c"}], "resources": {"limits": {}}},  # empty limits
        {"containers": [{"name": "c"}], "resources": {"limits": {"cpu": "1"}, "requests": "junk"}},
        {"containers": [{"name": "c"}], "resources": "junk"},
    ],
)
def test_pod_level_requests_need_pod_level_limits(spec: JsonDict) -> None:
    obj = {"spec": copy.deepcopy(spec)}
    before = copy.deepcopy(obj)
    pod_with_pod_level_resources(obj)
    assert obj == before


def test_pod_level_defaulting_still_defaults_the_containers() -> None:
    obj = {"spec": {"containers": [_container({"cpu": "1"})]}}
    pod_with_pod_level_resources(obj)
    assert obj["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "1"}


def test_the_pod_defaulter_follows_the_version() -> None:
    assert custom_for("io.k8s.api.core.v1.Pod", 33) is pod
    assert custom_for("io.k8s.api.core.v1.Pod", 34) is pod_with_pod_level_resources
    assert custom_for("io.k8s.api.core.v1.Service", 34) is service
    assert custom_for("io.k8s.api.core.v1.Nothing", 34) is None


def _lb(ingress: list[JsonDict], type_: str = "LoadBalancer") -> JsonDict:
    return {"spec": {"type": type_}, "status": {"loadBalancer": {"ingress": ingress}}}


def test_load_balancer_ips_get_ip_mode_vip() -> None:
    obj = _lb([{"ip": "1.2.3.4"}, {"hostname": "lb.example.com"}, {"ip": "5.6.7.8", "ipMode": "Proxy"}])
    service(obj)
    assert obj["status"]["loadBalancer"]["ingress"] == [
        {"ip": "1.2.3.4", "ipMode": "VIP"},
        {"hostname": "lb.example.com"},
        {"ip": "5.6.7.8", "ipMode": "Proxy"},
    ]
    other = _lb([{"ip": "1.2.3.4"}], "NodePort")
    service(other)
    assert other["status"]["loadBalancer"]["ingress"] == [{"ip": "1.2.3.4"}]


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (None, {"clientIP": {"timeoutSeconds": 10800}}),
        ({}, {"clientIP": {"timeoutSeconds": 10800}}),
        ({"clientIP": {}}, {"clientIP": {"timeoutSeconds": 10800}}),
        ({"clientIP": {"timeoutSeconds": 60}}, {"clientIP": {"timeoutSeconds": 60}}),
    ],
)
def test_client_ip_affinity_timeout(config: JsonDict | None, expected: JsonDict) -> None:
    spec: JsonDict = {"sessionAffinity": "ClientIP"}
    if config is not None:
        spec["sessionAffinityConfig"] = config
    service_spec(spec)
    assert spec["sessionAffinityConfig"] == expected
    none = {"sessionAffinity": "None"}
    service_spec(none)
    assert "sessionAffinityConfig" not in none


def _with_template(
    labels: JsonDict | None, meta_labels: JsonDict | None = None, selector: Any = None
) -> JsonDict:
    obj: JsonDict = {"metadata": {}, "spec": {"template": {"metadata": {"labels": labels}}}}
    if meta_labels is not None:
        obj["metadata"]["labels"] = meta_labels
    if selector is not None:
        obj["spec"]["selector"] = selector
    return obj


def test_replication_controller_selector_and_labels_from_the_template() -> None:
    obj = _with_template({"app": "web"})
    replication_controller(obj)
    assert obj["spec"]["selector"] == {"app": "web"}
    assert obj["metadata"]["labels"] == {"app": "web"}
    kept = _with_template({"app": "web"}, meta_labels={"team": "a"}, selector={"app": "x"})
    replication_controller(kept)
    assert (kept["spec"]["selector"], kept["metadata"]["labels"]) == ({"app": "x"}, {"team": "a"})
    empty = _with_template({})
    replication_controller(empty)
    assert "selector" not in empty["spec"] and "labels" not in empty["metadata"]


def test_a_job_takes_its_template_labels_when_it_has_none() -> None:
    obj = _with_template({"app": "batch"})
    job(obj)
    assert obj["metadata"]["labels"] == {"app": "batch"}
    assert "selector" not in obj["spec"]  # the Job's selector is the registry's, not the defaulter's
    labelled = _with_template({"app": "batch"}, meta_labels={"team": "a"})
    job(labelled)
    assert labelled["metadata"]["labels"] == {"team": "a"}


def _sidecar(cpu: str) -> JsonDict:
    return {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"cpu": cpu}}}


def _init(cpu: str) -> JsonDict:
    return {"name": "i", "resources": {"requests": {"cpu": cpu}}}


@pytest.mark.parametrize(
    ("init_containers", "cpu"),
    [
        # a regular init container runs alone: the larger of it and the containers
        ([_init("500m")], "500m"),
        ([_init("50m")], "100m"),
        # a sidecar runs beside the containers: added to them
        ([_sidecar("200m")], "300m"),
        # an init container after a sidecar runs beside it: 400m + 200m
        ([_sidecar("200m"), _init("400m")], "600m"),
        # one before the sidecar runs alone: 250m < 100m + 200m
        ([_init("250m"), _sidecar("200m")], "300m"),
        # an init container without a cpu request counts 0 (beside the sidecars before it)
        ([_sidecar("200m"), {"name": "i"}], "300m"),
    ],
)
def test_pod_level_requests_aggregate_init_containers_and_sidecars(
    init_containers: list[JsonDict], cpu: str
) -> None:
    """resourcehelper.AggregateContainerRequests: max(containers + sidecars, each init container
    plus the sidecars started before it)."""
    spec = {
        "containers": [_container(requests={"cpu": "100m"})],
        "initContainers": copy.deepcopy(init_containers),
        "resources": {"limits": {"cpu": "4"}},
    }
    obj = {"spec": spec}
    pod_with_pod_level_resources(obj)
    assert obj["spec"]["resources"]["requests"]["cpu"] == cpu


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        # default ← max; defaultRequest ← default
        (
            {"type": "Container", "max": {"cpu": "2"}},
            {"default": {"cpu": "2"}, "defaultRequest": {"cpu": "2"}},
        ),
        # defaultRequest ← default before min
        (
            {"type": "Container", "min": {"cpu": "1"}, "default": {"cpu": "3"}},
            {"default": {"cpu": "3"}, "defaultRequest": {"cpu": "3"}},
        ),
        # ... and min where default has nothing
        ({"type": "Container", "min": {"memory": "1Gi"}}, {"defaultRequest": {"memory": "1Gi"}}),
        # a written defaultRequest is kept
        (
            {"type": "Container", "max": {"cpu": "2"}, "defaultRequest": {"cpu": "500m"}},
            {"default": {"cpu": "2"}, "defaultRequest": {"cpu": "500m"}},
        ),
        # only type Container is defaulted
        ({"type": "Pod", "max": {"cpu": "2"}}, {}),
    ],
)
def test_limit_range_item(item: JsonDict, expected: JsonDict) -> None:
    """SetDefaults_LimitRangeItem (core/v1)."""
    obj = copy.deepcopy(item)
    limit_range_item(obj)
    assert {k: obj[k] for k in ("default", "defaultRequest") if k in obj} == expected
