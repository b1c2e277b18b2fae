"""The Go defaulters that are code rather than one field each (they read siblings or lists).

Same sources as `rules`; each function takes the object of its definition (a dict), changes it
in place, and leaves values of the wrong type as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from vap_lsp.apimachinery.quantity import QuantityError, format_quantity, is_binary, parse_quantity
from vap_lsp.defaulting.rules import CORE, JsonDict, child_map, copy_json, maps_in


def _requests_from_limits(containers: Any) -> None:
    for c in maps_in(containers):
        res = c.get("resources")
        if not isinstance(res, dict) or not isinstance(res.get("limits"), dict) or not res["limits"]:
            continue
        requests = child_map(res, "requests")
        if requests is None:
            continue
        for name, value in res["limits"].items():
            requests.setdefault(name, value)


def _host_network_ports(containers: Any) -> None:
    for c in maps_in(containers):
        for port in maps_in(c.get("ports")):
            if port.get("hostPort") in (None, 0) and isinstance(port.get("containerPort"), int):
                port["hostPort"] = port["containerPort"]


def pod(obj: JsonDict) -> None:
    """SetDefaults_Pod: requests default to limits (Pods only, not templates); with
    hostNetwork, hostPort defaults to containerPort. A container's `resizePolicy` is never
    defaulted in 1.30-1.35: only under InPlacePodVerticalScaling, off by default until 1.32,
    and the defaulting was removed before the gate turned on in 1.33 (kubernetes#128920)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    _requests_from_limits(spec.get("containers"))
    _requests_from_limits(spec.get("initContainers"))
    if spec.get("hostNetwork") is True:
        _host_network_ports(spec.get("containers"))
        _host_network_ports(spec.get("initContainers"))


POD_LEVEL_RESOURCES = ("cpu", "memory")
"""resourcehelper.IsSupportedPodLevelResource (hugepages, later and behind their own gate, are
left as written)."""


def _requests(container: Any) -> dict[str, Any]:
    res = container.get("resources") if isinstance(container, dict) else None
    requests = res.get("requests") if isinstance(res, dict) else None
    return requests if isinstance(requests, dict) else {}


def _aggregate_requests(spec: JsonDict, name: str) -> str | None:
    """resourcehelper.AggregateContainerRequests for one resource: the sum over containers and
    sidecars (init containers with restartPolicy Always), at least each init container's request
    plus the sidecars before it; None when no container requests it (or a value does not parse)."""
    texts: list[str] = []
    try:
        total = Fraction(0)
        for c in maps_in(spec.get("containers")):
            if name in _requests(c):
                texts.append(str(_requests(c)[name]))
                total += parse_quantity(texts[-1])
        sidecars, init_max = Fraction(0), Fraction(0)
        for c in maps_in(spec.get("initContainers")):
            own = _requests(c).get(name)
            value = Fraction(0)
            if own is not None:
                texts.append(str(own))
                value = parse_quantity(texts[-1])
            if c.get("restartPolicy") == "Always":
                total += value
                sidecars += value
                init_max = max(init_max, sidecars)
            else:
                init_max = max(init_max, value + sidecars)
        total = max(total, init_max)
    except QuantityError:
        return None
    if not texts:
        return None
    if len(texts) == 1 and parse_quantity(texts[0]) == total:
        return texts[0]
    return format_quantity(total, binary=is_binary(texts[0]))


def pod_with_pod_level_resources(obj: JsonDict) -> None:
    """SetDefaults_Pod with PodLevelResources (beta and on by default since 1.34): after the
    containers' requests, pod-level requests left unset default to the aggregated container
    requests of that resource, else to the pod-level limit (`defaultPodRequests`, only when
    pod-level limits are set)."""
    pod(obj)
    spec = obj.get("spec")
    resources = spec.get("resources") if isinstance(spec, dict) else None
    if not isinstance(spec, dict) or not isinstance(resources, dict):
        return
    limits = resources.get("limits")
    requests = resources.get("requests")
    if not isinstance(limits, dict) or not limits or not isinstance(requests, (dict, type(None))):
        return
    filled = dict(requests or {})
    for name in POD_LEVEL_RESOURCES:
        if name in filled:
            continue
        aggregate = _aggregate_requests(spec, name)
        if aggregate is not None:
            filled[name] = aggregate
        elif name in limits:
            filled[name] = limits[name]
    if filled:
        resources["requests"] = filled


def service(obj: JsonDict) -> None:
    """SetDefaults_Service, LoadBalancerIPMode (beta and on since 1.30, GA 1.32): a LoadBalancer's
    ingress points with an IP and no ipMode get "VIP"."""
    spec, status = obj.get("spec"), obj.get("status")
    if not isinstance(spec, dict) or spec.get("type") != "LoadBalancer" or not isinstance(status, dict):
        return
    lb = status.get("loadBalancer")
    for ingress in maps_in(lb.get("ingress") if isinstance(lb, dict) else None):
        if ingress.get("ip") and ingress.get("ipMode") is None:
            ingress["ipMode"] = "VIP"


def volume(obj: JsonDict) -> None:
    """SetDefaults_Volume: a volume without any source is an emptyDir."""
    if all(v is None for k, v in obj.items() if k != "name"):
        obj["emptyDir"] = {}


def service_spec(spec: JsonDict) -> None:
    """SetDefaults_Service: ClientIP affinity without a timeout gets the whole config (3 hours)."""
    if spec.get("sessionAffinity") != "ClientIP":
        return
    config = spec.get("sessionAffinityConfig")
    client_ip = config.get("clientIP") if isinstance(config, dict) else None
    timeout = client_ip.get("timeoutSeconds") if isinstance(client_ip, dict) else None
    if config is None or client_ip is None or timeout is None:
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": 10800}}


def limit_range_item(item: JsonDict) -> None:
    """SetDefaults_LimitRangeItem: for type Container, default ← max, defaultRequest ← default, min."""
    if item.get("type") != "Container":
        return
    default = item.get("default")
    request = item.get("defaultRequest")
    default = {} if default is None else default
    request = {} if request is None else request
    if not isinstance(default, dict) or not isinstance(request, dict):
        return
    for source, target in (("max", default), (None, request), ("min", request)):
        values = item.get(source) if source else default
        if isinstance(values, dict):
            for k, v in values.items():
                target.setdefault(k, v)
    if default:
        item["default"] = default
    if request:
        item["defaultRequest"] = request


_SCALE_UP: JsonDict = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_SCALE_DOWN: JsonDict = {
    "stabilizationWindowSeconds": 300,
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def hpa_spec(spec: JsonDict) -> None:
    """SetDefaults_HorizontalPodAutoscalerBehavior (autoscaling/v2): a given behavior gets the
    default scale-up and scale-down rules where it leaves them unset."""
    behavior = spec.get("behavior")
    if not isinstance(behavior, dict):
        return
    for key, defaults in (("scaleUp", _SCALE_UP), ("scaleDown", _SCALE_DOWN)):
        rules = behavior.get(key)
        if rules is None:
            behavior[key] = copy_json(defaults)
        elif isinstance(rules, dict):
            for k, v in defaults.items():
                if rules.get(k) is None:
                    rules[k] = copy_json(v)


def _template_labels(obj: JsonDict, spec_key: str = "spec") -> Any:
    spec = obj.get(spec_key)
    template = spec.get("template") if isinstance(spec, dict) else None
    meta = template.get("metadata") if isinstance(template, dict) else None
    return meta.get("labels") if isinstance(meta, dict) else None


def _labels_from_template(obj: JsonDict) -> None:
    labels = _template_labels(obj)
    meta = obj.get("metadata")
    if isinstance(labels, dict) and labels and isinstance(meta, dict) and not meta.get("labels"):
        meta["labels"] = dict(labels)


def replication_controller(obj: JsonDict) -> None:
    """SetDefaults_ReplicationController: selector and labels from the template's labels."""
    labels = _template_labels(obj)
    spec = obj.get("spec")
    if isinstance(labels, dict) and labels and isinstance(spec, dict) and not spec.get("selector"):
        spec["selector"] = dict(labels)
    _labels_from_template(obj)


def job(obj: JsonDict) -> None:
    """SetDefaults_Job (batch/v1): a Job without labels takes its template's."""
    _labels_from_template(obj)


def namespace(obj: JsonDict) -> None:
    """SetDefaults_Namespace: the label kubernetes.io/metadata.name is the name (when named)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        return
    labels = child_map(meta, "labels")
    if labels is not None:
        labels["kubernetes.io/metadata.name"] = meta["name"]


CUSTOM: dict[str, Callable[[JsonDict], None]] = {
    CORE + "Pod": pod,
    CORE + "Service": service,
    CORE + "Volume": volume,
    CORE + "ServiceSpec": service_spec,
    CORE + "LimitRangeItem": limit_range_item,
    CORE + "ReplicationController": replication_controller,
    CORE + "Namespace": namespace,
    "io.k8s.api.batch.v1.Job": job,
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec": hpa_spec,
}


SINCE: dict[str, tuple[tuple[int, Callable[[JsonDict], None]], ...]] = {
    CORE + "Pod": ((34, pod_with_pod_level_resources),),
}
"""Defaulters that changed with a feature gate's default: (first minor, defaulter), newest last."""


def custom_for(definition: str, minor: int) -> Callable[[JsonDict], None] | None:
    """The custom defaulter of `definition` in Kubernetes 1.`minor`."""
    chosen = CUSTOM.get(definition)
    for since, defaulter in SINCE.get(definition, ()):
        if minor >= since:
            chosen = defaulter
    return chosen
