"""kube-apiserver's Go defaulters of the built-in kinds, as data (one `Rule` per defaulted field).

Each rule hangs on the OpenAPI definition of the Go type whose `SetDefaults_*` sets it (so a
PodSpec rule reaches every PodSpec: Pods, templates of workloads, Jobs of CronJobs), reads the
values of its parent only, and names the defaulter it stands for. Sources (kubernetes/kubernetes,
release-1.30 … master): `pkg/apis/core/v1/defaults.go`, `pkg/apis/apps/v1/defaults.go`,
`pkg/apis/batch/v1/defaults.go`, `pkg/apis/autoscaling/{v1,v2}/defaults.go`,
`pkg/apis/networking/v1/defaults.go`, `pkg/apis/rbac/v1/defaults.go`,
`pkg/apis/storage/v1/defaults.go`, `pkg/apis/scheduling/v1/defaults.go`,
`pkg/apis/discovery/v1/defaults.go`, `pkg/apis/flowcontrol/v1/defaults.go`,
`pkg/apis/admissionregistration/v1/defaults.go`,
`staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/defaults.go`,
`pkg/apis/resource/v1/defaults.go`.
`+default=` markers and zero values of non-pointer fields reach the object through the OpenAPI
`default`s of the bundled schemas (see `apply`), not through rules.

Go checks "unset" per field: a nil pointer (absent or JSON null), or the zero value of a plain
field (`""`, `0`). `zero` lists the values that count as unset besides absent/null.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

JsonDict = dict[str, Any]
Compute = Callable[[JsonDict], Any]

SKIP = object()
"""What a `Compute` returns when Go would leave the field unset."""

CORE = "io.k8s.api.core.v1."
APPS = "io.k8s.api.apps.v1."
BATCH = "io.k8s.api.batch.v1."
MAX_INT32 = 2147483647


@dataclass(frozen=True)
class Rule:
    """One field a Go defaulter sets on an object of type `definition` when it is unset."""

    definition: str
    path: tuple[str, ...]
    """Relative to the object of `definition`; every segment but the last must already be a map."""
    value: Any
    """A JSON value, or a `Compute` over the parent map of the field."""
    description: str
    """What the default is, in words (hover): `"IfNotPresent" ("Always" for :latest or no tag)`."""
    source: str
    """The Go defaulter, e.g. `SetDefaults_Container` (core/v1)."""
    always: bool = True
    """Set whenever its parent exists (False: only under a condition, e.g. the strategy type)."""
    when: Callable[[JsonDict], bool] | None = None
    """A condition on the parent of the field."""
    guard: Callable[[JsonDict], bool] | None = None
    """A condition on the object of `definition` (for a field deeper than one segment)."""
    zero: tuple[Any, ...] = ()
    since: int = 0
    """First Kubernetes minor version (1.x) with this default (a feature gate on by default)."""

    def computed(self, parent: JsonDict) -> Any:
        return self.value(parent) if callable(self.value) else copy_json(self.value)


def copy_json(v: Any) -> Any:
    """A copy of JSON-shaped data (maps and lists copied, leaves shared): several times faster
    than `copy.deepcopy`, which admission pays on every object."""
    if isinstance(v, dict):
        return {k: x if type(x) in JSON_LEAVES else copy_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [x if type(x) in JSON_LEAVES else copy_json(x) for x in v]
    return v


JSON_LEAVES = frozenset({str, int, float, bool, type(None)})
"""Types `copy_json` shares without a call (most values of an object)."""


def as_map(v: Any) -> JsonDict | None:
    """`v` when it is a map (JSON-shaped data of any type is read with these: the wrong type is
    left as written, never an error)."""
    return v if isinstance(v, dict) else None


def as_list(v: Any) -> list[Any]:
    """`v` when it is a list, else no items."""
    return v if isinstance(v, list) else []


def maps_in(v: Any) -> list[JsonDict]:
    """The maps of `v` when it is a list (containers, ports, terms): other items are skipped."""
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def child_map(parent: JsonDict, key: str) -> JsonDict | None:
    """`parent[key]` as a map, created empty when absent or null (Go sets a nil map before
    writing into it); None when it holds another type, which stays as written."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    return value if isinstance(value, dict) else None


def child_list(parent: JsonDict, key: str) -> list[Any] | None:
    """`parent[key]` as a list, created empty when absent or null (Go appends to a nil slice);
    None when it holds another type, which stays as written."""
    value = parent.get(key)
    if value is None:
        value = parent[key] = []
    return value if isinstance(value, list) else None


def _get(d: Mapping[str, Any], *path: str) -> Any:
    cur: Any = d
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


# --- image references (k8s.io/kubernetes/pkg/util/parsers.ParseImageName over distribution/reference)

_ALNUM = r"[a-z0-9]+"
_SEP = r"(?:[._]|__|[-]+)"
_COMPONENT = rf"{_ALNUM}(?:{_SEP}{_ALNUM})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_REFERENCE = re.compile(
    rf"^(?:(?P<domain>{_DOMAIN})/)?(?P<path>{_COMPONENT}(?:/{_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$"
)
_HEX64 = re.compile(r"^[a-f0-9]{64}$")


@lru_cache(maxsize=4096)  # pure, and the same images recur across a stream of objects
def image_tag(image: str) -> str:
    """The tag ParseImageName finds: "latest" when there is neither tag nor digest, "" for a
    digest without tag and for a reference it cannot parse."""
    m = _REFERENCE.match(image)
    if m is None or _HEX64.match(image) or len(m.group("path")) + len(m.group("domain") or "") > 255:
        return ""
    domain = m.group("domain")
    # "user/repo": the first component is a path, not a registry (it must be lower case then).
    is_path = domain is not None and not ("." in domain or ":" in domain or domain == "localhost")
    if is_path and domain != (domain or "").lower():
        return ""
    tag, digest = m.group("tag"), m.group("digest")
    if not tag and not digest:
        return "latest"
    return tag or ""


def pull_policy(container: JsonDict) -> Any:
    """SetDefaults_Container: `Always` for `:latest` or no tag, `IfNotPresent` otherwise."""
    image = container.get("image", "")
    if image is None:
        image = ""
    if not isinstance(image, str):
        return SKIP
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def _rolling(kind: str) -> Callable[[JsonDict], bool]:
    return lambda parent: parent.get("type") == kind


_PULL_DOC = '"IfNotPresent" ("Always" when the image has no tag and no digest, or the tag latest)'


def _container_rules(definition: str) -> list[Rule]:
    src = "SetDefaults_Container (core/v1)"
    return [
        Rule(definition, ("imagePullPolicy",), pull_policy, _PULL_DOC, src, zero=("",)),
        Rule(
            definition,
            ("terminationMessagePath",),
            "/dev/termination-log",
            '"/dev/termination-log"',
            src,
            zero=("",),
        ),
        Rule(definition, ("terminationMessagePolicy",), "File", '"File"', src, zero=("",)),
    ]


def _service_type_in(*types: str) -> Callable[[JsonDict], bool]:
    return lambda spec: spec.get("type") in types


def _target_port(port: JsonDict) -> Any:
    value = port.get("port")
    return value if isinstance(value, int) and not isinstance(value, bool) else SKIP


def _job_parallelism(spec: JsonDict) -> Any:
    return 1


def _job_backoff(spec: JsonDict) -> Any:
    return MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6


def _job_replacement(spec: JsonDict) -> Any:
    return "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"


def _subject_api_group(subject: JsonDict) -> Any:
    kind = subject.get("kind")
    return "rbac.authorization.k8s.io" if kind in ("User", "Group") else SKIP


def _singular(names: JsonDict) -> Any:
    kind = names.get("kind")
    return kind.lower() if isinstance(kind, str) and kind else SKIP


def _list_kind(names: JsonDict) -> Any:
    kind = names.get("kind")
    return kind + "List" if isinstance(kind, str) and kind else SKIP


def _hpa_metrics() -> list[JsonDict]:
    return [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
        }
    ]


def _webhook_rules(definition: str, mutating: bool) -> list[Rule]:
    src = "SetDefaults_ValidatingWebhook" if not mutating else "SetDefaults_MutatingWebhook"
    src += " (admissionregistration/v1)"
    out = [
        Rule(definition, ("failurePolicy",), "Fail", '"Fail"', src),
        Rule(definition, ("matchPolicy",), "Equivalent", '"Equivalent"', src),
        Rule(definition, ("namespaceSelector",), {}, "{} (everything)", src),
        Rule(definition, ("objectSelector",), {}, "{} (everything)", src),
        Rule(definition, ("timeoutSeconds",), 10, "10", src),
    ]
    if mutating:
        out.append(Rule(definition, ("reinvocationPolicy",), "Never", '"Never"', src))
    return out


def _device_request_rules(definition: str, defaulter: str) -> list[Rule]:
    src = f"{defaulter} (resource/v1)"
    return [
        Rule(definition, ("allocationMode",), "ExactCount", '"ExactCount"', src, zero=("",)),
        Rule(
            definition,
            ("count",),
            1,
            "1 with allocationMode ExactCount",
            src,
            always=False,
            when=lambda r: r.get("allocationMode") == "ExactCount",
            zero=(0,),
        ),
    ]


def _build() -> list[Rule]:
    pod_spec = "SetDefaults_PodSpec (core/v1)"
    probe = "SetDefaults_Probe (core/v1)"
    svc = "SetDefaults_Service (core/v1)"
    deploy = "SetDefaults_Deployment (apps/v1)"
    ds = "SetDefaults_DaemonSet (apps/v1)"
    sts = "SetDefaults_StatefulSet (apps/v1)"
    job = "SetDefaults_Job (batch/v1)"
    cron = "SetDefaults_CronJob (batch/v1)"
    hpa = "SetDefaults_HorizontalPodAutoscaler (autoscaling/v2)"
    csi = "SetDefaults_CSIDriver (storage/v1)"
    plc = "SetDefaults_PriorityLevelConfiguration (flowcontrol/v1)"
    r: list[Rule] = []
    r += _container_rules(CORE + "Container")
    r += _container_rules(CORE + "EphemeralContainer")
    r += [
        # core/v1 PodSpec (every PodSpec: Pods and templates)
        Rule(CORE + "PodSpec", ("dnsPolicy",), "ClusterFirst", '"ClusterFirst"', pod_spec, zero=("",)),
        Rule(CORE + "PodSpec", ("restartPolicy",), "Always", '"Always"', pod_spec, zero=("",)),
        Rule(CORE + "PodSpec", ("terminationGracePeriodSeconds",), 30, "30", pod_spec),
        Rule(CORE + "PodSpec", ("securityContext",), {}, "{} (an empty PodSecurityContext)", pod_spec),
        Rule(
            CORE + "PodSpec",
            ("schedulerName",),
            "default-scheduler",
            '"default-scheduler"',
            pod_spec,
            zero=("",),
        ),
        # core/v1 Pod only (not templates)
        Rule(CORE + "Pod", ("spec", "enableServiceLinks"), True, "true", "SetDefaults_Pod (core/v1)"),
        Rule(
            CORE + "ContainerPort",
            ("protocol",),
            "TCP",
            '"TCP"',
            "SetDefaults_ContainerPort (core/v1)",
            zero=("",),
        ),
        Rule(CORE + "Probe", ("timeoutSeconds",), 1, "1", probe, zero=(0,)),
        Rule(CORE + "Probe", ("periodSeconds",), 10, "10", probe, zero=(0,)),
        Rule(CORE + "Probe", ("successThreshold",), 1, "1", probe, zero=(0,)),
        Rule(CORE + "Probe", ("failureThreshold",), 3, "3", probe, zero=(0,)),
        Rule(
            CORE + "HTTPGetAction", ("path",), "/", '"/"', "SetDefaults_HTTPGetAction (core/v1)", zero=("",)
        ),
        Rule(
            CORE + "HTTPGetAction",
            ("scheme",),
            "HTTP",
            '"HTTP"',
            "SetDefaults_HTTPGetAction (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "SecretVolumeSource",
            ("defaultMode",),
            420,
            "420 (0644)",
            "SetDefaults_SecretVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "ConfigMapVolumeSource",
            ("defaultMode",),
            420,
            "420 (0644)",
            "SetDefaults_ConfigMap (core/v1)",
        ),
        Rule(
            CORE + "DownwardAPIVolumeSource",
            ("defaultMode",),
            420,
            "420 (0644)",
            "SetDefaults_DownwardAPIVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "ProjectedVolumeSource",
            ("defaultMode",),
            420,
            "420 (0644)",
            "SetDefaults_ProjectedVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "ServiceAccountTokenProjection",
            ("expirationSeconds",),
            3600,
            "3600 (one hour)",
            "SetDefaults_ServiceAccountTokenProjection (core/v1)",
        ),
        Rule(
            CORE + "ObjectFieldSelector",
            ("apiVersion",),
            "v1",
            '"v1"',
            "SetDefaults_ObjectFieldSelector (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "HostPathVolumeSource",
            ("type",),
            "",
            '"" (no check)',
            "SetDefaults_HostPathVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "ISCSIVolumeSource",
            ("iscsiInterface",),
            "default",
            '"default"',
            "SetDefaults_ISCSIVolumeSource (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "ISCSIPersistentVolumeSource",
            ("iscsiInterface",),
            "default",
            '"default"',
            "SetDefaults_ISCSIPersistentVolumeSource (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "AzureDiskVolumeSource",
            ("cachingMode",),
            "ReadWrite",
            '"ReadWrite"',
            "SetDefaults_AzureDiskVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "AzureDiskVolumeSource",
            ("fsType",),
            "ext4",
            '"ext4"',
            "SetDefaults_AzureDiskVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "AzureDiskVolumeSource",
            ("readOnly",),
            False,
            "false",
            "SetDefaults_AzureDiskVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "AzureDiskVolumeSource",
            ("kind",),
            "Shared",
            '"Shared"',
            "SetDefaults_AzureDiskVolumeSource (core/v1)",
        ),
        Rule(
            CORE + "PersistentVolumeClaimSpec",
            ("volumeMode",),
            "Filesystem",
            '"Filesystem"',
            "SetDefaults_PersistentVolumeClaimSpec (core/v1)",
        ),
        Rule(
            CORE + "PersistentVolumeClaim",
            ("status", "phase"),
            "Pending",
            '"Pending"',
            "SetDefaults_PersistentVolumeClaim (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "PersistentVolume",
            ("status", "phase"),
            "Pending",
            '"Pending"',
            "SetDefaults_PersistentVolume (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "PersistentVolume",
            ("spec", "persistentVolumeReclaimPolicy"),
            "Retain",
            '"Retain"',
            "SetDefaults_PersistentVolume (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "PersistentVolume",
            ("spec", "volumeMode"),
            "Filesystem",
            '"Filesystem"',
            "SetDefaults_PersistentVolume (core/v1)",
        ),
        Rule(
            CORE + "ReplicationControllerSpec",
            ("replicas",),
            1,
            "1",
            "SetDefaults_ReplicationController (core/v1)",
        ),
        Rule(CORE + "Secret", ("type",), "Opaque", '"Opaque"', "SetDefaults_Secret (core/v1)", zero=("",)),
        Rule(
            CORE + "NamespaceStatus",
            ("phase",),
            "Active",
            '"Active"',
            "SetDefaults_NamespaceStatus (core/v1)",
            zero=("",),
        ),
        Rule(
            CORE + "EndpointPort",
            ("protocol",),
            "TCP",
            '"TCP"',
            "SetDefaults_Endpoints (core/v1)",
            zero=("",),
        ),
        # core/v1 Service
        Rule(CORE + "ServiceSpec", ("sessionAffinity",), "None", '"None"', svc, zero=("",)),
        Rule(CORE + "ServiceSpec", ("type",), "ClusterIP", '"ClusterIP"', svc, zero=("",)),
        Rule(
            CORE + "ServiceSpec",
            ("externalTrafficPolicy",),
            "Cluster",
            '"Cluster" for NodePort and LoadBalancer',
            svc,
            always=False,
            when=_service_type_in("NodePort", "LoadBalancer"),
            zero=("",),
        ),
        Rule(
            CORE + "ServiceSpec",
            ("internalTrafficPolicy",),
            "Cluster",
            '"Cluster" (not for ExternalName)',
            svc,
            always=False,
            when=_service_type_in("ClusterIP", "NodePort", "LoadBalancer"),
        ),
        Rule(
            CORE + "ServiceSpec",
            ("allocateLoadBalancerNodePorts",),
            True,
            "true for LoadBalancer",
            svc,
            always=False,
            when=_service_type_in("LoadBalancer"),
        ),
        Rule(CORE + "ServicePort", ("protocol",), "TCP", '"TCP"', svc, zero=("",)),
        Rule(CORE + "ServicePort", ("targetPort",), _target_port, "the port's `port`", svc, zero=(0, "")),
        # apps/v1
        Rule(APPS + "DeploymentSpec", ("replicas",), 1, "1", deploy),
        Rule(APPS + "DeploymentSpec", ("revisionHistoryLimit",), 10, "10", deploy),
        Rule(APPS + "DeploymentSpec", ("progressDeadlineSeconds",), 600, "600", deploy),
        Rule(APPS + "DeploymentStrategy", ("type",), "RollingUpdate", '"RollingUpdate"', deploy, zero=("",)),
        Rule(
            APPS + "DeploymentStrategy",
            ("rollingUpdate",),
            {},
            "{maxUnavailable: 25%, maxSurge: 25%} for RollingUpdate",
            deploy,
            always=False,
            when=_rolling("RollingUpdate"),
        ),
        Rule(APPS + "RollingUpdateDeployment", ("maxUnavailable",), "25%", '"25%"', deploy),
        Rule(APPS + "RollingUpdateDeployment", ("maxSurge",), "25%", '"25%"', deploy),
        Rule(APPS + "ReplicaSetSpec", ("replicas",), 1, "1", "SetDefaults_ReplicaSet (apps/v1)"),
        Rule(APPS + "DaemonSetSpec", ("revisionHistoryLimit",), 10, "10", ds),
        Rule(APPS + "DaemonSetUpdateStrategy", ("type",), "RollingUpdate", '"RollingUpdate"', ds, zero=("",)),
        Rule(
            APPS + "DaemonSetUpdateStrategy",
            ("rollingUpdate",),
            {},
            "{maxUnavailable: 1, maxSurge: 0} for RollingUpdate",
            ds,
            always=False,
            when=_rolling("RollingUpdate"),
        ),
        Rule(APPS + "RollingUpdateDaemonSet", ("maxUnavailable",), 1, "1", ds),
        Rule(APPS + "RollingUpdateDaemonSet", ("maxSurge",), 0, "0", ds),
        Rule(
            APPS + "StatefulSetSpec",
            ("podManagementPolicy",),
            "OrderedReady",
            '"OrderedReady"',
            sts,
            zero=("",),
        ),
        Rule(APPS + "StatefulSetSpec", ("replicas",), 1, "1", sts),
        Rule(APPS + "StatefulSetSpec", ("revisionHistoryLimit",), 10, "10", sts),
        Rule(
            APPS + "StatefulSetSpec",
            ("persistentVolumeClaimRetentionPolicy",),
            {},
            "{whenDeleted: Retain, whenScaled: Retain}",
            sts,
        ),
        Rule(
            APPS + "StatefulSetPersistentVolumeClaimRetentionPolicy",
            ("whenDeleted",),
            "Retain",
            '"Retain"',
            sts,
            zero=("",),
        ),
        Rule(
            APPS + "StatefulSetPersistentVolumeClaimRetentionPolicy",
            ("whenScaled",),
            "Retain",
            '"Retain"',
            sts,
            zero=("",),
        ),
        # A written `type: RollingUpdate` without rollingUpdate keeps it nil: only an empty type
        # creates it (then partition 0).
        Rule(
            APPS + "StatefulSetUpdateStrategy",
            ("rollingUpdate",),
            {},
            "{partition: 0} when the type was empty",
            sts,
            always=False,
            when=lambda s: s.get("type") in (None, ""),
        ),
        Rule(
            APPS + "StatefulSetUpdateStrategy", ("type",), "RollingUpdate", '"RollingUpdate"', sts, zero=("",)
        ),
        # Partition and maxUnavailable only when the type is RollingUpdate (a rollingUpdate under
        # OnDelete stays as written; validation rejects it).
        Rule(
            APPS + "StatefulSetUpdateStrategy",
            ("rollingUpdate", "partition"),
            0,
            "0",
            sts,
            guard=_rolling("RollingUpdate"),
        ),
        # MaxUnavailableStatefulSet: alpha 1.24 (off), beta and on by default since 1.35
        # (pkg/features/kube_features.go).
        Rule(
            APPS + "StatefulSetUpdateStrategy",
            ("rollingUpdate", "maxUnavailable"),
            1,
            "1 (since 1.35)",
            sts,
            guard=_rolling("RollingUpdate"),
            since=35,
        ),
        # batch/v1: SetDefaults_Job takes a *Job: a CronJob's jobTemplate is not defaulted by it
        # (zz_generated.defaults.go: SetObjectDefaults_Job calls it, SetObjectDefaults_CronJob not).
        Rule(
            BATCH + "Job",
            ("spec", "completions"),
            1,
            "1 when parallelism is unset too",
            job,
            always=False,
            when=lambda s: s.get("parallelism") is None,
        ),
        Rule(BATCH + "Job", ("spec", "parallelism"), _job_parallelism, "1", job),
        Rule(
            BATCH + "Job",
            ("spec", "backoffLimit"),
            _job_backoff,
            "6 (2147483647 with backoffLimitPerIndex)",
            job,
        ),
        Rule(BATCH + "Job", ("spec", "completionMode"), "NonIndexed", '"NonIndexed"', job),
        Rule(BATCH + "Job", ("spec", "suspend"), False, "false", job),
        # kubernetes/kubernetes#120206 (1.29): Validate read nil as false; now defaulted.
        Rule(BATCH + "Job", ("spec", "manualSelector"), False, "false", job),
        Rule(
            BATCH + "Job",
            ("spec", "podReplacementPolicy"),
            _job_replacement,
            '"TerminatingOrFailed" ("Failed" with a podFailurePolicy)',
            job,
        ),
        Rule(
            BATCH + "PodFailurePolicyOnPodConditionsPattern", ("status",), "True", '"True"', job, zero=("",)
        ),
        Rule(BATCH + "CronJobSpec", ("concurrencyPolicy",), "Allow", '"Allow"', cron, zero=("",)),
        Rule(BATCH + "CronJobSpec", ("suspend",), False, "false", cron),
        Rule(BATCH + "CronJobSpec", ("successfulJobsHistoryLimit",), 3, "3", cron),
        Rule(BATCH + "CronJobSpec", ("failedJobsHistoryLimit",), 1, "1", cron),
        # autoscaling
        Rule(
            "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec",
            ("minReplicas",),
            1,
            "1",
            "SetDefaults_HorizontalPodAutoscaler (autoscaling/v1)",
        ),
        Rule("io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec", ("minReplicas",), 1, "1", hpa),
        Rule(
            "io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerSpec",
            ("metrics",),
            lambda _s: _hpa_metrics(),
            "[cpu averageUtilization 80%]",
            hpa,
            zero=([],),
        ),
        # networking/v1
        Rule(
            "io.k8s.api.networking.v1.IngressClassParametersReference",
            ("scope",),
            "Cluster",
            '"Cluster"',
            "SetDefaults_IngressClass (networking/v1)",
        ),
        Rule(
            "io.k8s.api.networking.v1.NetworkPolicyPort",
            ("protocol",),
            "TCP",
            '"TCP"',
            "SetDefaults_NetworkPolicyPort (networking/v1)",
        ),
        Rule(
            "io.k8s.api.networking.v1.NetworkPolicySpec",
            ("policyTypes",),
            lambda s: (
                ["Ingress", "Egress"] if isinstance(s.get("egress"), list) and s["egress"] else ["Ingress"]
            ),
            '["Ingress"] (plus "Egress" with egress rules)',
            "SetDefaults_NetworkPolicy (networking/v1)",
            zero=([],),
        ),
        # rbac/v1
        Rule(
            "io.k8s.api.rbac.v1.RoleRef",
            ("apiGroup",),
            "rbac.authorization.k8s.io",
            '"rbac.authorization.k8s.io"',
            "SetDefaults_RoleBinding (rbac/v1)",
            zero=("",),
        ),
        Rule(
            "io.k8s.api.rbac.v1.Subject",
            ("apiGroup",),
            _subject_api_group,
            '"rbac.authorization.k8s.io" for User and Group',
            "SetDefaults_Subject (rbac/v1)",
            always=False,
            zero=("",),
        ),
        # storage/v1
        Rule(
            "io.k8s.api.storage.v1.StorageClass",
            ("reclaimPolicy",),
            "Delete",
            '"Delete"',
            "SetDefaults_StorageClass (storage/v1)",
        ),
        Rule(
            "io.k8s.api.storage.v1.StorageClass",
            ("volumeBindingMode",),
            "Immediate",
            '"Immediate"',
            "SetDefaults_StorageClass (storage/v1)",
        ),
        Rule("io.k8s.api.storage.v1.CSIDriverSpec", ("attachRequired",), True, "true", csi),
        Rule("io.k8s.api.storage.v1.CSIDriverSpec", ("podInfoOnMount",), False, "false", csi),
        Rule("io.k8s.api.storage.v1.CSIDriverSpec", ("storageCapacity",), False, "false", csi),
        Rule(
            "io.k8s.api.storage.v1.CSIDriverSpec",
            ("fsGroupPolicy",),
            "ReadWriteOnceWithFSType",
            '"ReadWriteOnceWithFSType"',
            csi,
        ),
        Rule("io.k8s.api.storage.v1.CSIDriverSpec", ("requiresRepublish",), False, "false", csi),
        Rule(
            "io.k8s.api.storage.v1.CSIDriverSpec",
            ("volumeLifecycleModes",),
            ["Persistent"],
            '["Persistent"]',
            csi,
            zero=([],),
        ),
        Rule("io.k8s.api.storage.v1.CSIDriverSpec", ("seLinuxMount",), False, "false", csi),
        # scheduling/v1, discovery/v1
        Rule(
            "io.k8s.api.scheduling.v1.PriorityClass",
            ("preemptionPolicy",),
            "PreemptLowerPriority",
            '"PreemptLowerPriority"',
            "SetDefaults_PriorityClass (scheduling/v1)",
        ),
        Rule(
            "io.k8s.api.discovery.v1.EndpointPort",
            ("name",),
            "",
            '""',
            "SetDefaults_EndpointPort (discovery/v1)",
        ),
        Rule(
            "io.k8s.api.discovery.v1.EndpointPort",
            ("protocol",),
            "TCP",
            '"TCP"',
            "SetDefaults_EndpointPort (discovery/v1)",
        ),
        # flowcontrol/v1
        Rule(
            "io.k8s.api.flowcontrol.v1.FlowSchemaSpec",
            ("matchingPrecedence",),
            1000,
            "1000",
            "SetDefaults_FlowSchemaSpec (flowcontrol/v1)",
            zero=(0,),
        ),
        Rule(
            "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration",
            ("nominalConcurrencyShares",),
            30,
            "30",
            plc,
        ),
        Rule(
            "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration", ("lendablePercent",), 0, "0", plc
        ),
        Rule(
            "io.k8s.api.flowcontrol.v1.ExemptPriorityLevelConfiguration",
            ("nominalConcurrencyShares",),
            0,
            "0",
            plc,
        ),
        Rule("io.k8s.api.flowcontrol.v1.ExemptPriorityLevelConfiguration", ("lendablePercent",), 0, "0", plc),
        Rule("io.k8s.api.flowcontrol.v1.QueuingConfiguration", ("handSize",), 8, "8", plc, zero=(0,)),
        Rule("io.k8s.api.flowcontrol.v1.QueuingConfiguration", ("queues",), 64, "64", plc, zero=(0,)),
        Rule(
            "io.k8s.api.flowcontrol.v1.QueuingConfiguration", ("queueLengthLimit",), 50, "50", plc, zero=(0,)
        ),
        # resource/v1 (GA and served from 1.34; the definitions exist only from then)
        *_device_request_rules("io.k8s.api.resource.v1.ExactDeviceRequest", "SetDefaults_ExactDeviceRequest"),
        Rule(
            "io.k8s.api.resource.v1.DeviceSubRequest",
            ("allocationMode",),
            "ExactCount",
            '"ExactCount"',
            "SetDefaults_DeviceSubRequest (resource/v1)",
            zero=("",),
        ),
        # admissionregistration/v1 webhooks (the policy kinds: vap_lsp.policy.defaults)
        Rule(
            "io.k8s.api.admissionregistration.v1.RuleWithOperations",
            ("scope",),
            "*",
            '"*"',
            "SetDefaults_Rule (admissionregistration/v1)",
        ),
        Rule(
            "io.k8s.api.admissionregistration.v1.ServiceReference",
            ("port",),
            443,
            "443",
            "SetDefaults_ServiceReference (admissionregistration/v1)",
        ),
        # apiextensions/v1
        Rule(
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec",
            ("conversion",),
            {"strategy": "None"},
            '{strategy: "None"}',
            "SetDefaults_CustomResourceDefinitionSpec (apiextensions/v1)",
        ),
        Rule(
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames",
            ("singular",),
            _singular,
            "the kind in lower case",
            "SetDefaults_CustomResourceDefinitionSpec (apiextensions/v1)",
            zero=("",),
        ),
        Rule(
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames",
            ("listKind",),
            _list_kind,
            "<kind>List",
            "SetDefaults_CustomResourceDefinitionSpec (apiextensions/v1)",
            zero=("",),
        ),
    ]
    r += _webhook_rules("io.k8s.api.admissionregistration.v1.ValidatingWebhook", mutating=False)
    r += _webhook_rules("io.k8s.api.admissionregistration.v1.MutatingWebhook", mutating=True)
    return r


RULES: tuple[Rule, ...] = tuple(_build())

BY_DEFINITION: dict[str, tuple[Rule, ...]] = {}
for _rule in RULES:
    BY_DEFINITION[_rule.definition] = (*BY_DEFINITION.get(_rule.definition, ()), _rule)
