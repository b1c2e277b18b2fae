"""What the round trip through the internal version does to a built-in object.

kube-apiserver decodes a request body into the versioned type, defaults it, converts it to its
internal type, and hands admission the internal object; admission policies read it converted
back to the request's version (`ConvertToGVK`), and so does everyone who reads it later. The
hand-written conversions (kubernetes/kubernetes `pkg/apis/core/v1/conversion.go`,
`pkg/apis/apps/v1/conversion.go`) make that round trip visible:

- `Convert_v1_PodSpec_To_core_PodSpec` / `Convert_core_PodSpec_To_v1_PodSpec`: `serviceAccount`
  is an alias of `serviceAccountName` (the newer field wins when both are set) and is written
  back from it, in every PodSpec (Pods, templates of workloads, Jobs of CronJobs);
- `Convert_v1_Secret_To_core_Secret`: `stringData` is merged into `data` (it wins per key) and
  does not exist internally, so a Secret is read with `data` only;
- `Convert_v1_NodeSpec_To_core_NodeSpec` and back: `podCIDR` and `podCIDRs[0]` agree;
- `Convert_v1_PodStatus_To_core_PodStatus` and back: `podIP`/`podIPs` and `hostIP`/`hostIPs`
  agree;
- Pods and pod templates drop the init-container annotations of Kubernetes 1.5–1.7, and a Pod's
  negative `terminationGracePeriodSeconds` becomes 1;
- `Convert_apps_DaemonSet_To_v1_DaemonSet` writes the internal `spec.templateGeneration` into the
  annotation `deprecated.daemonset.template.generation` (0 until the registry sets it to 1 on
  create: `vap_lsp.defaulting.server`).

Everything here leaves values of the wrong type as written, and never raises.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from vap_lsp.defaulting.rules import JsonDict, as_map, child_map

__all__ = ["TEMPLATE_GENERATION", "round_trip", "template_generation"]

TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"
"""appsv1.DeprecatedTemplateGeneration."""

_INIT_CONTAINER_ANNOTATIONS = frozenset(
    {
        "pod.beta.kubernetes.io/init-containers",
        "pod.alpha.kubernetes.io/init-containers",
        "pod.beta.kubernetes.io/init-container-statuses",
        "pod.alpha.kubernetes.io/init-container-statuses",
    }
)


def pod_spec(spec: JsonDict) -> None:
    """The `serviceAccount` alias: set from the name that wins, dropped when neither is set."""
    name = spec.get("serviceAccountName")
    if not name:
        alias = spec.get("serviceAccount")
        name = alias if isinstance(alias, str) else ""
        if name:
            spec["serviceAccountName"] = name
    if not isinstance(name, str):
        return
    if name:
        spec["serviceAccount"] = name
    else:
        spec.pop("serviceAccount", None)


def _drop_init_container_annotations(obj: JsonDict) -> None:
    meta = as_map(obj.get("metadata"))
    annotations = as_map(meta.get("annotations")) if meta is not None else None
    if annotations:
        for key in _INIT_CONTAINER_ANNOTATIONS & annotations.keys():
            del annotations[key]


def _template(holder: JsonDict | None) -> None:
    """A PodTemplateSpec under `holder["template"]`."""
    template = as_map(holder.get("template")) if holder is not None else None
    if template is None:
        return
    _drop_init_container_annotations(template)
    spec = as_map(template.get("spec"))
    if spec is not None:
        pod_spec(spec)


def _agree(holder: JsonDict, single: str, plural: str, *, keyed: bool) -> None:
    """A singular field and the first item of its plural twin (items `{"ip": …}` when `keyed`),
    as the conversions keep them: the singular one wins when both are set and differ."""
    one, many = holder.get(single), holder.get(plural)
    many = many if isinstance(many, list) else None
    first = many[0] if many else None
    first = first.get("ip") if keyed and isinstance(first, dict) else first
    if isinstance(one, str) and one:
        if first != one:
            holder[plural] = [{"ip": one} if keyed else one]
    elif isinstance(first, str) and first:
        holder[single] = first


def _pod(obj: JsonDict) -> None:
    _drop_init_container_annotations(obj)
    spec = as_map(obj.get("spec"))
    if spec is not None:
        pod_spec(spec)
        # Convert_v1_Pod_To_core_Pod (and back): a negative grace period means 1 (pods only).
        grace = spec.get("terminationGracePeriodSeconds")
        if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
            spec["terminationGracePeriodSeconds"] = 1
    status = as_map(obj.get("status"))
    if status is not None:
        _agree(status, "podIP", "podIPs", keyed=True)
        _agree(status, "hostIP", "hostIPs", keyed=True)


def _secret(obj: JsonDict) -> None:
    string_data = obj.get("stringData")
    if not isinstance(string_data, dict):
        return
    data = obj.get("data")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return
    for key, value in string_data.items():
        if isinstance(value, str):
            data[key] = base64.b64encode(value.encode()).decode()
    del obj["stringData"]
    if data:
        obj["data"] = data


def _node(obj: JsonDict) -> None:
    spec = as_map(obj.get("spec"))
    if spec is not None:
        _agree(spec, "podCIDR", "podCIDRs", keyed=False)


def _spec_template(obj: JsonDict) -> None:
    _template(as_map(obj.get("spec")))


def _cron_job(obj: JsonDict) -> None:
    spec = as_map(obj.get("spec"))
    job = as_map(spec.get("jobTemplate")) if spec is not None else None
    _template(as_map(job.get("spec")) if job is not None else None)


def _pod_template(obj: JsonDict) -> None:
    _template(obj)


def template_generation(obj: JsonDict) -> int | None:
    """The internal `spec.templateGeneration` of a DaemonSet: its annotation, 0 without one; None
    when the annotation does not parse (the server rejects such a body)."""
    meta = as_map(obj.get("metadata"))
    annotations = as_map(meta.get("annotations")) if meta is not None else None
    value = annotations.get(TEMPLATE_GENERATION) if annotations is not None else None
    if value is None:
        return 0
    try:
        return int(value) if isinstance(value, str) and value.strip() == value else None
    except ValueError:
        return None


def set_template_generation(obj: JsonDict, generation: int) -> None:
    """The annotation as `Convert_apps_DaemonSet_To_v1_DaemonSet` writes it."""
    meta = child_map(obj, "metadata")
    annotations = child_map(meta, "annotations") if meta is not None else None
    if annotations is not None:
        annotations[TEMPLATE_GENERATION] = str(generation)


def _daemon_set(obj: JsonDict) -> None:
    _spec_template(obj)
    generation = template_generation(obj)
    if generation is not None:
        set_template_generation(obj, generation)


_BY_KIND: dict[tuple[str, str], Callable[[JsonDict], None]] = {
    ("", "Pod"): _pod,
    ("", "PodTemplate"): _pod_template,
    ("", "ReplicationController"): _spec_template,
    ("", "Secret"): _secret,
    ("", "Node"): _node,
    ("apps", "Deployment"): _spec_template,
    ("apps", "ReplicaSet"): _spec_template,
    ("apps", "StatefulSet"): _spec_template,
    ("apps", "DaemonSet"): _daemon_set,
    ("batch", "Job"): _spec_template,
    ("batch", "CronJob"): _cron_job,
}


def round_trip(obj: JsonDict, group: str, kind: str) -> None:
    """`obj` (a defaulted built-in object of `group`) as the conversion to the internal version
    and back leaves it, in place."""
    convert = _BY_KIND.get((group, kind))
    if convert is not None:
        convert(obj)
