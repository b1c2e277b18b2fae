"""The Go defaulters that are code rather than one field each (they read siblings or lists).

Same sources as `rules`; each function takes the object of its definition (a dict), changes it
in place, and leaves values of the wrong type as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vap_lsp.defaulting.rules import CORE, JsonDict, copy_json


def _dicts(v: Any) -> list[JsonDict]:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _requests_from_limits(containers: Any) -> None:
    for c in _dicts(containers):
        res = c.get("resources")
        if not isinstance(res, dict) or not isinstance(res.get("limits"), dict) or not res["limits"]:
            continue
        requests = res.get("requests")
        if requests is None:
            requests = res["requests"] = {}
        if not isinstance(requests, dict):
            continue
        for name, value in res["limits"].items():
            requests.setdefault(name, value)


def _host_network_ports(containers: Any) -> None:
    for c in _dicts(containers):
        for port in _dicts(c.get("ports")):
            if port.get("hostPort") in (None, 0) and isinstance(port.get("containerPort"), int):
                port["hostPort"] = port["containerPort"]


def pod(obj: JsonDict) -> None:
    """SetDefaults_Pod: requests default to limits (Pods only, not templates); with
    hostNetwork, hostPort defaults to containerPort."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    _requests_from_limits(spec.get("containers"))
    _requests_from_limits(spec.get("initContainers"))
    if spec.get("hostNetwork") is True:
        _host_network_ports(spec.get("containers"))
        _host_network_ports(spec.get("initContainers"))


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
    labels = meta.get("labels")
    if labels is None:
        labels = meta["labels"] = {}
    if isinstance(labels, dict):
        labels["kubernetes.io/metadata.name"] = meta["name"]


CUSTOM: dict[str, Callable[[JsonDict], None]] = {
    CORE + "Pod": pod,
    CORE + "Volume": volume,
    CORE + "ServiceSpec": service_spec,
    CORE + "LimitRangeItem": limit_range_item,
    CORE + "ReplicationController": replication_controller,
    CORE + "Namespace": namespace,
    "io.k8s.api.batch.v1.Job": job,
    "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec": hpa_spec,
}
