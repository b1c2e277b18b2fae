"""kube-apiserver's own mutating admission plugins: what they change before admission policies.

The admission chain runs kube-apiserver's compiled-in plugins before MutatingAdmissionPolicies
and webhooks (`pkg/kubeapiserver/options/plugins.go`: `AllOrderedPlugins` gives the order,
`DefaultOffAdmissionPlugins` the ones on by default). Those that are on by default and change
the object:

- **ServiceAccount** (`plugin/pkg/admission/serviceaccount`), Pod CREATE: `serviceAccountName`
  `default` when none is named; unless the pod (else its ServiceAccount) turns
  `automountServiceAccountToken` off, the projected volume `kube-api-access-<5 characters>`
  (service account token of 3607 s, `kube-root-ca.crt`, the namespace; mode 0644) mounted
  read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every init container and
  container that mounts nothing there; the ServiceAccount's `imagePullSecrets` when the pod has
  none. Then its validation: a mirror pod (a static pod's copy, never changed) that names a
  service account, uses a secret or projects a token is forbidden, and so is a pod using a secret
  its ServiceAccount does not list when that account is annotated
  `kubernetes.io/enforce-mountable-secrets: "true"`.
- **TaintNodesByCondition** (`plugin/pkg/admission/nodetaint`), Node CREATE: the taint
  `node.kubernetes.io/not-ready:NoSchedule`.
- **Priority** (`plugin/pkg/admission/priority`), Pod CREATE: `priority` (and
  `preemptionPolicy`) from the PriorityClass named, else from the global default class, else 0
  and `PreemptLowerPriority`; a pod that sets a different value is forbidden. Pod UPDATE: the
  stored priority and preemption policy when the request leaves them out.
- **DefaultTolerationSeconds** (`plugin/pkg/admission/defaulttolerationseconds`), Pod CREATE and
  UPDATE: tolerations of `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`
  (`NoExecute`, 300 s) unless the pod already tolerates them.
- **DefaultStorageClass** (`plugin/pkg/admission/storage/storageclass/setdefault`), PVC CREATE
  without a class: the default StorageClass's name, if the cluster has one.
- **StorageObjectInUseProtection** (`plugin/pkg/admission/storage/storageobjectinuseprotection`),
  CREATE: the finalizer `kubernetes.io/pvc-protection` on a PVC, `kubernetes.io/pv-protection`
  on a PV, `kubernetes.io/vac-protection` on a VolumeAttributesClass (VolumeAttributesClass on
  by default from 1.34).
- **DefaultIngressClass** (`plugin/pkg/admission/network/defaultingressclass`), Ingress CREATE
  without a class (field or `kubernetes.io/ingress.class` annotation): the default
  IngressClass's name, if the cluster has one.

An old object (UPDATE, DELETE) is a stored object: it went through the plugins when it was
created (`stored`). A pod cannot change its service account, volumes or mounts on update
(`ValidatePodUpdate`), so an update that leaves out what the ServiceAccount plugin set carries
the stored pod's, as `kubectl apply` sends it (`_carry_over`).

What they read from the cluster comes from the objects given beside the policies
(`ClusterObjects`: PriorityClasses, ServiceAccounts, StorageClasses, IngressClasses); without
them, a new cluster's: the system PriorityClasses and no default one, ServiceAccounts that leave
automounting on and name no pull secrets, no default StorageClass or IngressClass (a note says
so where it matters). Not modelled: LimitRanger (no LimitRange known) and RuntimeClass (a note
says so for a pod that names one); the plugins only ever run on the main resource, never on a
subresource. Everything here leaves values of the wrong type as written and never raises.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.defaulting.rules import JsonDict, as_list, as_map, child_list, child_map, copy_json
from vap_lsp.defaulting.server import generated_name
from vap_lsp.golang.strconv import parse_bool
from vap_lsp.golang.timefmt import parse_rfc3339

__all__ = [
    "ClusterObjects",
    "PluginField",
    "PluginOutcome",
    "admission_plugins",
    "plugin_field",
    "stored",
]

TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_VOLUME_PREFIX = "kube-api-access-"
MIRROR_POD = "kubernetes.io/config.mirror"
ENFORCE_MOUNTABLE_SECRETS = "kubernetes.io/enforce-mountable-secrets"
DEFAULT_SERVICE_ACCOUNT = "default"
TOLERATION_SECONDS = 300
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
PREEMPT_LOWER = "PreemptLowerPriority"
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000}
"""scheduling.SystemPriorityClasses: created by every kube-apiserver (preemption defaulted)."""

_ZERO_TIME = -62135596800 * 10**9
"""time.Time{} in Unix nanoseconds (0001-01-01T00:00:00Z)."""


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


@dataclass(frozen=True)
class ClusterObjects:
    """The objects of the cluster the plugins read, from those given beside the policies."""

    priority_classes: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    service_accounts: Mapping[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)
    """By (namespace, name)."""
    storage_classes: tuple[Mapping[str, Any], ...] = ()
    ingress_classes: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def from_objects(cls, objects: Iterable[Any]) -> ClusterObjects:
        priority: dict[str, Mapping[str, Any]] = {}
        accounts: dict[tuple[str, str], Mapping[str, Any]] = {}
        storage: list[Mapping[str, Any]] = []
        ingress: list[Mapping[str, Any]] = []
        for obj in objects:
            if not isinstance(obj, Mapping):
                continue
            identity = (obj.get("apiVersion"), obj.get("kind"))
            name = _text(_meta(obj).get("name"))
            if identity == ("scheduling.k8s.io/v1", "PriorityClass") and name:
                priority[name] = obj
            elif identity == ("v1", "ServiceAccount") and name:
                accounts[(_text(_meta(obj).get("namespace")) or "default", name)] = obj
            elif identity == ("storage.k8s.io/v1", "StorageClass"):
                storage.append(obj)
            elif identity == ("networking.k8s.io/v1", "IngressClass"):
                ingress.append(obj)
        return cls(priority, accounts, tuple(storage), tuple(ingress))


@dataclass
class PluginOutcome:
    notes: list[str] = field(default_factory=list)
    """What only the cluster knows and was assumed."""
    forbidden: str | None = None
    """The error of a plugin that rejects the request (`<resource> "<name>" is forbidden: …`)."""


def _generated(prefix: str, obj: Mapping[str, Any]) -> str:
    """names.SimpleNameGenerator's five characters, taken from the object's identity (reproducible
    runs: the same object gets the same name)."""
    meta = _meta(obj)
    identity = f"{prefix}{meta.get('namespace')}/{meta.get('name') or meta.get('generateName')}"
    return generated_name(prefix, hashlib.blake2s(identity.encode(), digest_size=5).digest())


def _created(obj: Mapping[str, Any]) -> int:
    """creationTimestamp in Unix nanoseconds; Go's zero time (year 1) when absent."""
    parsed = parse_rfc3339(_text(_meta(obj).get("creationTimestamp")))
    return parsed[0] if parsed is not None else _ZERO_TIME


def _newest_default(classes: Iterable[Mapping[str, Any]], annotations: tuple[str, ...]) -> str | None:
    """The default class as the plugins choose it: annotated "true", newest first, then by name."""
    found = []
    for c in classes:
        marks = _meta(c).get("annotations")
        if isinstance(marks, Mapping) and any(marks.get(a) == "true" for a in annotations):
            found.append(c)
    if not found:
        return None
    found.sort(key=lambda c: _text(_meta(c).get("name")))
    found.sort(key=_created, reverse=True)
    return _text(_meta(found[0]).get("name")) or None


# --- the plugins, in AllOrderedPlugins' order ---------------------------------------------------


def _service_account(pod: JsonDict, namespace: str, cluster: ClusterObjects) -> str | None:
    """Admit, then Validate (which Admit ends with); the rejection's error, if any."""
    spec = as_map(pod.get("spec"))
    annotations = as_map(_meta(pod).get("annotations")) or {}
    if spec is None:
        return None
    if MIRROR_POD in annotations:
        return _mirror_pod_error(spec)
    name = spec.get("serviceAccountName")
    if name in (None, ""):
        name = spec["serviceAccountName"] = DEFAULT_SERVICE_ACCOUNT
        spec["serviceAccount"] = name  # the conversion back to v1 mirrors it
    if not isinstance(name, str):
        return None
    account = cluster.service_accounts.get((namespace, name), {})
    automount = spec.get("automountServiceAccountToken")
    if not isinstance(automount, bool):
        automount = account.get("automountServiceAccountToken") is not False
    if automount:
        _mount_token(pod, spec)
    pulls = account.get("imagePullSecrets")
    if not spec.get("imagePullSecrets") and isinstance(pulls, list) and pulls:
        spec["imagePullSecrets"] = [{"name": _text(p.get("name"))} for p in pulls if isinstance(p, Mapping)]
    marks = _meta(account).get("annotations")
    enforce = marks.get(ENFORCE_MOUNTABLE_SECRETS) if isinstance(marks, Mapping) else None
    if isinstance(enforce, str) and parse_bool(enforce):
        return _unreferenced_secret(spec, account, name)
    return None


def _names(items: Any) -> set[str]:
    return {_text(i.get("name")) for i in as_list(items) if isinstance(i, Mapping)}


def _unreferenced_secret(spec: JsonDict, account: Mapping[str, Any], account_name: str) -> str | None:
    """limitSecretReferences: the first secret the pod uses that its service account does not list."""
    mountable, pulls = _names(account.get("secrets")), _names(account.get("imagePullSecrets"))
    tail = f"is not allowed because service account {account_name} does not reference that secret"
    for volume in as_list(spec.get("volumes")):
        secret = as_map(volume.get("secret")) if isinstance(volume, dict) else None
        if secret is not None and _text(secret.get("secretName")) not in mountable:
            return f'volume with secret.secretName="{_text(secret.get("secretName"))}" {tail}'
    for key, which in (("initContainers", "init container"), ("containers", "container")):
        for container in as_list(spec.get(key)):
            if not isinstance(container, dict):
                continue
            name = _text(container.get("name"))
            for env in as_list(container.get("env")):
                source = as_map(env.get("valueFrom")) if isinstance(env, dict) else None
                ref = as_map(source.get("secretKeyRef")) if source is not None else None
                if isinstance(env, dict) and ref is not None and _text(ref.get("name")) not in mountable:
                    return (
                        f"{which} {name} with envVar {_text(env.get('name'))} referencing "
                        f'secret.secretName="{_text(ref.get("name"))}" {tail}'
                    )
            for source in as_list(container.get("envFrom")):
                ref = as_map(source.get("secretRef")) if isinstance(source, dict) else None
                if ref is not None and _text(ref.get("name")) not in mountable:
                    referenced = _text(ref.get("name"))
                    return f'{which} {name} with envFrom referencing secret.secretName="{referenced}" {tail}'
    for i, pull in enumerate(as_list(spec.get("imagePullSecrets"))):
        if isinstance(pull, dict) and _text(pull.get("name")) not in pulls:
            return (
                f'imagePullSecrets[{i}].name="{_text(pull.get("name"))}" is not allowed because service '
                f"account {account_name} does not reference that imagePullSecret"
            )
    return None


_SECRET_REFS = (
    ("secret", "secretName"),
    ("azureFile", "secretName"),
    ("cephfs", "secretRef"),
    ("cinder", "secretRef"),
    ("flexVolume", "secretRef"),
    ("rbd", "secretRef"),
    ("scaleIO", "secretRef"),
    ("iscsi", "secretRef"),
    ("storageos", "secretRef"),
    ("csi", "nodePublishSecretRef"),
)
"""The volume sources that name a secret (podutil.VisitPodSecretNames)."""


def _references_secret(spec: JsonDict) -> bool:
    """podutil.VisitPodSecretNames over every container: does the pod use any secret?"""
    if as_list(spec.get("imagePullSecrets")):
        return True
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in as_list(spec.get(key)):
            if not isinstance(container, dict):
                continue
            if any(
                isinstance(s, dict) and isinstance(s.get("secretRef"), dict)
                for s in as_list(container.get("envFrom"))
            ):
                return True
            for env in as_list(container.get("env")):
                source = env.get("valueFrom") if isinstance(env, dict) else None
                if isinstance(source, dict) and isinstance(source.get("secretKeyRef"), dict):
                    return True
    for volume in as_list(spec.get("volumes")):
        if not isinstance(volume, dict):
            continue
        if any(
            isinstance(volume.get(source), dict) and volume[source].get(ref) for source, ref in _SECRET_REFS
        ):
            return True
        projected = as_map(volume.get("projected")) or {}
        if any(
            isinstance(p, dict) and isinstance(p.get("secret"), dict)
            for p in as_list(projected.get("sources"))
        ):
            return True
    return False


def _mirror_pod_error(spec: JsonDict) -> str | None:
    """Validate of a mirror pod (a static pod's copy, never changed by the plugin)."""
    if spec.get("serviceAccountName"):
        return "a mirror pod may not reference service accounts"
    if _references_secret(spec):
        return "a mirror pod may not reference secrets"
    for volume in as_list(spec.get("volumes")):
        projected = as_map(volume.get("projected")) if isinstance(volume, dict) else None
        sources = as_list(projected.get("sources")) if projected is not None else []
        if any(isinstance(p, dict) and p.get("serviceAccountToken") is not None for p in sources):
            return "a mirror pod may not use ServiceAccountToken volume projections"
    return None


def _token_volume(name: str) -> JsonDict:
    """serviceaccount.TokenVolumeSource."""
    return {
        "name": name,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {
                                "path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            }
                        ]
                    }
                },
            ],
            "defaultMode": 420,
        },
    }


def _token_volume_of(volumes: Any) -> JsonDict | None:
    """The pod's service-account token volume (the plugin's: named `kube-api-access-…`)."""
    for v in as_list(volumes):
        if isinstance(v, dict) and _text(v.get("name")).startswith(TOKEN_VOLUME_PREFIX):
            return v
    return None


def _mounts_token(container: JsonDict) -> bool | None:
    """Whether something is mounted where the token goes (None: `volumeMounts` is no list)."""
    mounts = container.get("volumeMounts")
    if mounts is not None and not isinstance(mounts, list):
        return None
    return any(isinstance(m, dict) and m.get("mountPath") == TOKEN_MOUNT_PATH for m in as_list(mounts))


def _containers(spec: JsonDict) -> list[JsonDict]:
    """Init containers then containers, as the plugin visits them (not ephemeral containers)."""
    return [
        c for key in ("initContainers", "containers") for c in as_list(spec.get(key)) if isinstance(c, dict)
    ]


def _mount_token(pod: JsonDict, spec: JsonDict) -> None:
    volumes = spec.get("volumes")
    if volumes is not None and not isinstance(volumes, list):
        return
    existing = _token_volume_of(volumes)
    volume_name = existing["name"] if existing is not None else _generated(TOKEN_VOLUME_PREFIX, pod)
    needed = False
    for container in _containers(spec):
        mounts = child_list(container, "volumeMounts") if _mounts_token(container) is False else None
        if mounts is not None:
            mounts.append({"name": volume_name, "readOnly": True, "mountPath": TOKEN_MOUNT_PATH})
            needed = True
    listed = child_list(spec, "volumes") if needed and existing is None else None
    if listed is not None:
        listed.append(_token_volume(volume_name))


def _node_taint(node: JsonDict) -> None:
    spec = child_map(node, "spec")
    taints = child_list(spec, "taints") if spec is not None else None
    if taints is None:
        return
    for t in taints:
        if isinstance(t, dict) and t.get("key") == NOT_READY and t.get("effect") == "NoSchedule":
            return  # Taint.MatchTaint: the same key and effect
    taints.append({"key": NOT_READY, "effect": "NoSchedule"})


def _forbidden(resource: str, name: str, error: str) -> str:
    return f'{resource} "{name}" is forbidden: {error}'


def _priority(
    pod: JsonDict, old: Mapping[str, Any] | None, operation: str, cluster: ClusterObjects, name: str
) -> PluginOutcome:
    out = PluginOutcome()
    spec = as_map(pod.get("spec"))
    if spec is None:
        return out
    if operation == "UPDATE":
        old_spec = as_map(old.get("spec")) if isinstance(old, Mapping) else None
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and old_spec is not None and old_spec.get(key) is not None:
                spec[key] = old_spec[key]
        return out
    class_name = spec.get("priorityClassName")
    class_name = "" if class_name is None else class_name
    if not isinstance(class_name, str):
        return out
    priority: int
    policy: str
    if not class_name:
        default = _global_default(cluster)
        if default is None:
            priority, policy = 0, PREEMPT_LOWER
        else:
            class_name = _text(_meta(default).get("name"))
            spec["priorityClassName"] = class_name
            priority, policy = _class_value(default)
    elif class_name in cluster.priority_classes:
        priority, policy = _class_value(cluster.priority_classes[class_name])
    elif class_name in SYSTEM_PRIORITY_CLASSES:
        priority, policy = SYSTEM_PRIORITY_CLASSES[class_name], PREEMPT_LOWER
    else:
        out.notes.append(
            f"spec.priority: not set: PriorityClass {class_name!r} was not given, so the value the "
            "Priority admission plugin sets from it (or its rejection of the pod if there is no "
            "such class) is not known offline"
        )
        return out
    given = spec.get("priority")
    if isinstance(given, int) and not isinstance(given, bool) and given != priority:
        out.forbidden = _forbidden(
            "pods",
            name,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority "
            f"admission controller computed {priority} from the given PriorityClass name",
        )
        return out
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if isinstance(given_policy, str) and given_policy != policy:
        out.forbidden = _forbidden(
            "pods",
            name,
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod "
            f"spec; priority admission controller computed {policy} from the given PriorityClass name",
        )
        return out
    spec["preemptionPolicy"] = policy  # every class has one (SetDefaults_PriorityClass)
    return out


def _global_default(cluster: ClusterObjects) -> Mapping[str, Any] | None:
    """getDefaultPriorityClass: of the classes marked globalDefault, the lowest value."""
    defaults = [c for c in cluster.priority_classes.values() if c.get("globalDefault") is True]
    return min(defaults, key=lambda c: _class_value(c)[0]) if defaults else None


def _class_value(priority_class: Mapping[str, Any]) -> tuple[int, str]:
    value = priority_class.get("value")
    policy = priority_class.get("preemptionPolicy")
    return (
        value if isinstance(value, int) and not isinstance(value, bool) else 0,
        policy if isinstance(policy, str) else PREEMPT_LOWER,  # SetDefaults_PriorityClass
    )


def _tolerations(pod: JsonDict) -> None:
    spec = as_map(pod.get("spec"))
    if spec is None:
        return
    tolerations = child_list(spec, "tolerations")
    if tolerations is None:
        return
    tolerated = {NOT_READY: False, UNREACHABLE: False}
    for t in tolerations:
        if not isinstance(t, dict) or _text(t.get("effect")) not in ("", "NoExecute"):
            continue
        key = _text(t.get("key"))
        for taint in tolerated:
            if key in ("", taint):
                tolerated[taint] = True
    for taint, done in tolerated.items():
        if not done:
            tolerations.append(
                {
                    "key": taint,
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": TOLERATION_SECONDS,
                }
            )


_STORAGE_DEFAULT = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_INGRESS_DEFAULT = ("ingressclass.kubernetes.io/is-default-class",)


def _storage_class(pvc: JsonDict, cluster: ClusterObjects) -> list[str]:
    spec = as_map(pvc.get("spec"))
    annotations = as_map(_meta(pvc).get("annotations")) or {}
    # helper.PersistentVolumeClaimHasClass: a class is set when the field is (null is not) or
    # the beta annotation is.
    if spec is None or spec.get("storageClassName") is not None:
        return []
    if "volume.beta.kubernetes.io/storage-class" in annotations:
        return []
    default = _newest_default(cluster.storage_classes, _STORAGE_DEFAULT)
    if default is None:
        return [
            "spec.storageClassName: left unset as no default StorageClass was given; on a cluster "
            "with one, the DefaultStorageClass admission plugin sets it before admission policies"
        ]
    spec["storageClassName"] = default
    return []


def _ingress_class(ingress: JsonDict, cluster: ClusterObjects) -> list[str]:
    spec = as_map(ingress.get("spec"))
    annotations = as_map(_meta(ingress).get("annotations")) or {}
    if spec is None or spec.get("ingressClassName") is not None:
        return []
    if "kubernetes.io/ingress.class" in annotations:
        return []
    default = _newest_default(cluster.ingress_classes, _INGRESS_DEFAULT)
    if default is None:
        return [
            "spec.ingressClassName: left unset as no default IngressClass was given; on a cluster "
            "with one, the DefaultIngressClass admission plugin sets it before admission policies"
        ]
    spec["ingressClassName"] = default
    return []


def _finalizer(obj: JsonDict, finalizer: str) -> None:
    meta = child_map(obj, "metadata")
    finalizers = child_list(meta, "finalizers") if meta is not None else None
    if finalizers is not None and finalizer not in finalizers:
        finalizers.append(finalizer)


_PROTECTION = {
    ("", "persistentvolumeclaims"): ("kubernetes.io/pvc-protection", 0),
    ("", "persistentvolumes"): ("kubernetes.io/pv-protection", 0),
    ("storage.k8s.io", "volumeattributesclasses"): ("kubernetes.io/vac-protection", 34),
}
"""StorageObjectInUseProtection's finalizer per resource, with the first minor it is added in
(a VolumeAttributesClass's behind the VolumeAttributesClass gate, on by default from 1.34)."""


def admission_plugins(
    obj: JsonDict,
    old: Mapping[str, Any] | None,
    operation: str,
    resource: tuple[str, str],
    namespace: str,
    cluster: ClusterObjects,
    kubernetes_minor: int,
) -> PluginOutcome:
    """The default-enabled mutating plugins on a request for the main resource `resource` (group,
    plural) with `obj` (decoded, in place), in the server's order; stops at a rejection."""
    group, plural = resource
    out = PluginOutcome()
    # admission.NewForbidden (extractResourceName): the name, else the generateName, else Unknown.
    name = _text(_meta(obj).get("name")) or _text(_meta(obj).get("generateName")) or "Unknown"
    if (group, plural) == ("", "pods"):
        if operation == "CREATE":
            error = _service_account(obj, namespace, cluster)
            if error is not None:
                out.forbidden = _forbidden("pods", name, error)
                return out
            spec = as_map(obj.get("spec"))
            runtime = spec.get("runtimeClassName") if spec is not None else None
            if isinstance(runtime, str) and runtime:
                out.notes.append(
                    f"spec.overhead: the RuntimeClass admission plugin sets it (and may add node "
                    f"selectors and tolerations) from RuntimeClass {runtime!r}; not modelled offline"
                )
        if operation == "UPDATE":
            _carry_over(obj, old)
        if operation in ("CREATE", "UPDATE"):
            priority = _priority(obj, old, operation, cluster, name)
            out.notes += priority.notes
            if priority.forbidden is not None:
                out.forbidden = priority.forbidden
                return out
            _tolerations(obj)
        return out
    if operation != "CREATE":
        return out
    if (group, plural) == ("", "nodes"):
        _node_taint(obj)
    elif (group, plural) == ("", "persistentvolumeclaims"):
        out.notes += _storage_class(obj, cluster)
    elif (group, plural) == ("networking.k8s.io", "ingresses"):
        out.notes += _ingress_class(obj, cluster)
    protection = _PROTECTION.get((group, plural))
    if protection is not None and kubernetes_minor >= protection[1]:
        _finalizer(obj, protection[0])
    return out


def _carry_over(pod: JsonDict, stored: Mapping[str, Any] | None) -> None:
    """What the ServiceAccount plugin set on the stored pod, where an update leaves it out: a pod's
    service account, volumes and mounts cannot change (`ValidatePodUpdate`), so an update that
    reaches validating admission carries them, as `kubectl apply` and `kubectl edit` send them."""
    spec = as_map(pod.get("spec"))
    old = as_map(stored.get("spec")) if isinstance(stored, Mapping) else None
    if spec is None or old is None:
        return
    for key in ("serviceAccountName", "serviceAccount"):
        if spec.get(key) in (None, "") and isinstance(old.get(key), str):
            spec[key] = old[key]
    volumes = spec.get("volumes")
    token = _token_volume_of(old.get("volumes"))
    if token is None or (volumes is not None and not isinstance(volumes, list)) or _token_volume_of(volumes):
        return
    listed = child_list(spec, "volumes")
    assert listed is not None
    listed.append(copy_json(token))
    stored_mounts = {
        _text(c.get("name")): m
        for c in _containers(old)
        for m in as_list(c.get("volumeMounts"))
        if isinstance(m, dict) and m.get("name") == token.get("name")
    }
    for container in _containers(spec):
        mount = stored_mounts.get(_text(container.get("name")))
        mounts = (
            child_list(container, "volumeMounts")
            if mount is not None and _mounts_token(container) is False
            else None
        )
        if mount is not None and mounts is not None:
            mounts.append(copy_json(mount))


def stored(
    obj: JsonDict, resource: tuple[str, str], namespace: str, cluster: ClusterObjects, kubernetes_minor: int
) -> None:
    """A stored Pod (an update's or a delete's old object, a subresource's object) as the plugins
    left it when it was created, in place: what they add to a pod stays (its service account,
    volumes, priority and tolerations cannot change), and adding it again changes nothing. A
    stored Node, PVC or PV is left as written: a controller may have removed the taint or the
    finalizer since."""
    if resource == ("", "pods") and isinstance(obj.get("spec"), dict):
        admission_plugins(obj, None, "CREATE", resource, namespace, cluster, kubernetes_minor)


# --- what is always present afterwards (for the static guarantees) ------------------------------


@dataclass(frozen=True)
class PluginField:
    """A field a default-enabled plugin sets whenever it runs, and the requests it is there for."""

    plugin: str
    mutating: frozenset[str]
    """The operations on which a mutating policy sees it (the plugins run before them)."""
    validating: frozenset[str]
    """The operations on which a validating policy sees it (the built-in validation ran too)."""
    why: str
    kept: bool = True
    """Whether a stored object (`oldObject`) still has it (a node's not-ready taint goes once
    the node is ready, a finalizer when its controller is done)."""


_CREATE = frozenset({"CREATE"})
_WRITES = frozenset({"CREATE", "UPDATE"})
_PLUGIN_FIELDS: dict[tuple[str, str], dict[tuple[str, ...], PluginField]] = {
    ("", "Pod"): {
        # Pod updates may not change the service account (ValidatePodUpdate): a validating
        # policy sees the stored one.
        ("spec", "serviceAccountName"): PluginField(
            "ServiceAccount", _CREATE, _WRITES, "the pod's service account, `default` when none is named"
        ),
        ("spec", "serviceAccount"): PluginField(
            "ServiceAccount", _CREATE, _WRITES, "mirrors serviceAccountName, `default` when none is named"
        ),
        ("spec", "priority"): PluginField(
            "Priority",
            _WRITES,
            _WRITES,
            "from the PriorityClass (0 without one); kept from the stored pod on update",
        ),
        ("spec", "preemptionPolicy"): PluginField(
            "Priority",
            _WRITES,
            _WRITES,
            "from the PriorityClass (PreemptLowerPriority without one); kept from the stored pod on update",
        ),
        ("spec", "tolerations"): PluginField(
            "DefaultTolerationSeconds",
            _WRITES,
            _WRITES,
            "tolerations of node.kubernetes.io/not-ready and unreachable (NoExecute, 300 s) unless given",
        ),
    },
    ("", "Node"): {
        ("spec", "taints"): PluginField(
            "TaintNodesByCondition", _CREATE, _CREATE, "node.kubernetes.io/not-ready:NoSchedule", kept=False
        )
    },
    ("", "PersistentVolumeClaim"): {
        ("metadata", "finalizers"): PluginField(
            "StorageObjectInUseProtection", _CREATE, _CREATE, "kubernetes.io/pvc-protection", kept=False
        )
    },
    ("", "PersistentVolume"): {
        ("metadata", "finalizers"): PluginField(
            "StorageObjectInUseProtection", _CREATE, _CREATE, "kubernetes.io/pv-protection", kept=False
        )
    },
}


def plugin_field(group: str, kind: str, path: tuple[str, ...]) -> PluginField | None:
    """The default-enabled plugin that sets `path` of a built-in `kind` of `group`, if one does."""
    return _PLUGIN_FIELDS.get((group, kind), {}).get(path)
