"""What kube-apiserver does to an object between decoding and each admission phase.

The order (`staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go`, `update.go` and
`pkg/registry/generic/registry/store.go`, `pkg/registry/rest/create.go`):

1. decode and default (`vap_lsp.defaulting.default_object`); the request's namespace is set on
   a namespaced object without one (`rest.EnsureObjectNamespaceMatchesRequestNamespace`), a
   cluster-scoped object loses its namespace, and a create's object loses the system fields a
   client wrote (`rest.WipeObjectMetaSystemFields`: uid, creationTimestamp, deletion fields,
   selfLink): `before_mutating`;
2. mutating admission: kube-apiserver's default-enabled plugins (`vap_lsp.defaulting.plugins`),
   then MutatingAdmissionPolicies and webhooks; a mutated object is defaulted again;
3. `Store.Create`: `FillObjectMetaSystemFields` (uid, creationTimestamp), the name from
   `generateName`, the registry's `BeginCreate` hook (a Service's cluster IPs, IP families and
   node ports: `vap_lsp.defaulting.service`), then `rest.BeforeCreate`: the strategy's
   `PrepareForCreate` (status reset for kinds with a status subresource, generation 1 for
   kinds that track it, a Pod's phase Pending and QoS class, its SchedulingGated condition,
   label keys merged into its affinity and spread selectors and AppArmor annotations copied to
   its containers' fields, a Namespace's finalizer, a
   DaemonSet's template generation 1, seen in its annotation, a Job's generated selector) and the
   built-in validation (`vap_lsp.defaulting.validation`); on update the `BeginUpdate` hook
   (a Service keeps its stored allocations) and `rest.BeforeUpdate`, which keeps uid,
   creationTimestamp and generation of the stored object (generation + 1 when the spec
   changed; a DaemonSet's template generation + 1 when its template changed) and the stored
   status: `before_validating`;
4. validating admission (ValidatingAdmissionPolicies, webhooks) on that object, with request
   attributes of their own (`rest.AdmissionToValidateObjectFunc`): that object, and its name
   when the request had none — "in case the generated name is populated" — so a create with
   only `generateName` reaches validating admission with `request.name` and
   `object.metadata.name` set, where mutating admission saw neither: `validating_name`.

Not reproduced: values only a live cluster knows (managedFields; a Service's allocated
addresses and ports are placeholders, said in a note).
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from datetime import UTC, datetime

from vap_lsp.defaulting.conversion import set_template_generation, template_generation
from vap_lsp.defaulting.rules import JsonDict, child_list, child_map, maps_in
from vap_lsp.defaulting.service import allocate_create, allocate_update

# Kinds whose registry strategy sets metadata.generation = 1 on create and bumps it when the
# spec changes (group, kind); custom resources too.
GENERATION_KINDS = frozenset(
    {
        ("apps", "Deployment"),
        ("apps", "ReplicaSet"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("", "ReplicationController"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("policy", "PodDisruptionBudget"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("networking.k8s.io", "Ingress"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
    }
)

GENERATION_SINCE = {("", "Pod"): 33}
"""Kinds whose registry sets generation from a Kubernetes minor on: a Pod's `PrepareForCreate`
sets `Generation = 1` and `updatePodGeneration` bumps it when the spec changes, ungated, since
1.33 (KEP-5067 Pod generation; `pkg/registry/core/pod/strategy.go`)."""


def tracks_generation(group: str, kind: str, kubernetes_minor: int, *, custom: bool = False) -> bool:
    """Whether the registry of the kind sets metadata.generation (1 on create, +1 on spec change)."""
    if custom or (group, kind) in GENERATION_KINDS:
        return True
    since = GENERATION_SINCE.get((group, kind))
    return since is not None and kubernetes_minor >= since


_WIPED_ON_CREATE = ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink")
"""`rest.WipeObjectMetaSystemFields` on create (uid and creationTimestamp are filled in again)."""
_WIPED_BEFORE_ADMISSION = ("creationTimestamp", "uid", *_WIPED_ON_CREATE)
"""All that `rest.WipeObjectMetaSystemFields` clears: a create's object reaches mutating admission
without them."""

_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apiserver/pkg/storage/names


def before_mutating(obj: JsonDict, namespace: str, namespaced: bool, *, create: bool = False) -> None:
    """The request's namespace on the object (step 1 above), in place: a cluster-scoped object's
    request has no namespace, so whatever namespace the object names is cleared
    (`EnsureObjectNamespaceMatchesRequestNamespace`, apiserver pkg/registry/rest/meta.go). On
    `create` the system fields a client wrote are gone before mutating admission sees the object
    (`rest.WipeObjectMetaSystemFields`, called by handlers/create.go before admission)."""
    meta = child_map(obj, "metadata")
    if meta is None:
        return
    if create:
        for key in _WIPED_BEFORE_ADMISSION:
            meta.pop(key, None)
    if namespaced and namespace and not meta.get("namespace"):
        meta["namespace"] = namespace
    elif not namespaced:
        meta.pop("namespace", None)


def _digest(obj: JsonDict) -> bytes:
    """A seed for the generated uid and name: the kind and metadata (cheap, and reproducible)."""
    return hashlib.sha256(
        repr((obj.get("apiVersion"), obj.get("kind"), obj.get("metadata"))).encode()
    ).digest()


def generated_name(prefix: str, seed: bytes) -> str:
    """names.SimpleNameGenerator: the prefix (cut to 58) and five random characters; here the
    characters come from the object, so a run is reproducible."""
    suffix = "".join(_NAME_ALPHABET[b % len(_NAME_ALPHABET)] for b in seed[:5])
    return prefix[:58] + suffix


def validating_name(request_name: str, obj: object) -> str:
    """The request name validating admission sees (step 4 above): the request's, else the name
    the registry filled into the object (`AdmissionToValidateObjectFunc`,
    staging/src/k8s.io/apiserver/pkg/registry/rest/create.go)."""
    if request_name or not isinstance(obj, dict):
        return request_name
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _dict(v: object) -> JsonDict:
    return v if isinstance(v, dict) else {}


_QOS_RESOURCES = ("cpu", "memory")


def _qos_class(spec: JsonDict, kubernetes_minor: int) -> str:
    """qos.GetPodQOS (`pkg/apis/core/helper/qos/qos.go`) over cpu and memory: of the pod-level
    `resources` when PodLevelResources (beta, on by default since 1.34) makes them decide —
    whenever set up to 1.36, from 1.37 (PodLevelResourcesFixKubeletQOSClass) only when they name
    a pod-level resource (`helper.IsPodLevelResourcesSet`) — else of every container and init
    container."""
    pod_level = spec.get("resources")
    if kubernetes_minor >= 34 and isinstance(pod_level, dict):
        named = [k for part in ("requests", "limits") for k in _dict(pod_level.get(part))]
        if kubernetes_minor < 37 or any(k in _QOS_RESOURCES or k.startswith("hugepages-") for k in named):
            return _requirements_qos([pod_level])
    containers = [c for key in ("containers", "initContainers") for c in maps_in(spec.get(key))]
    return _requirements_qos([_dict(c.get("resources")) for c in containers])


def _requirements_qos(requirements: list[JsonDict]) -> str:
    """BestEffort when no cpu or memory is requested or limited above zero, Guaranteed when each
    of them is limited and requested at that limit, else Burstable."""
    guaranteed, any_set = True, False
    for res in requirements:
        requests, limits = _dict(res.get("requests")), _dict(res.get("limits"))
        for r in _QOS_RESOURCES:
            req, lim = requests.get(r), limits.get(r)
            if req not in (None, "0", 0) or lim not in (None, "0", 0):
                any_set = True
            if lim in (None, "0", 0) or str(req) != str(lim):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


def _prepare_pod(obj: JsonDict, spec: JsonDict, meta: JsonDict, kubernetes_minor: int, stamp: str) -> None:
    """A Pod's `PrepareForCreate` (`pkg/registry/core/pod/strategy.go`): status Pending with
    its QoS class, the `SchedulingGated` condition of a pod with scheduling gates
    (`applySchedulingGatedCondition`), `matchLabelKeys`/`mismatchLabelKeys` merged into the
    label selectors of its affinity terms (`mutatePodAffinity`, MatchLabelKeysInPodAffinity:
    1.31 on) and of its topology spread constraints (`mutateTopologySpreadConstraints`,
    MatchLabelKeysInPodTopologySpreadSelectorMerge: 1.34 on), and the deprecated AppArmor
    annotations copied to the containers' fields (`applyAppArmorVersionSkew`)."""
    status: JsonDict = {"phase": "Pending", "qosClass": _qos_class(spec, kubernetes_minor)}
    if spec.get("schedulingGates"):
        status["conditions"] = [
            {
                "type": "PodScheduled",
                "status": "False",
                "lastProbeTime": None,
                "lastTransitionTime": stamp,
                "reason": "SchedulingGated",
                "message": "Scheduling is blocked due to non-empty scheduling gates",
            }
        ]
    obj["status"] = status
    labels = _dict(meta.get("labels"))
    affinity = _dict(spec.get("affinity"))
    if kubernetes_minor >= 31:
        for side in ("podAffinity", "podAntiAffinity"):
            terms = _dict(affinity.get(side))
            for term in maps_in(terms.get("requiredDuringSchedulingIgnoredDuringExecution")):
                _merge_label_keys(term, labels, mismatch=True)
            for weighted in maps_in(terms.get("preferredDuringSchedulingIgnoredDuringExecution")):
                _merge_label_keys(_dict(weighted.get("podAffinityTerm")), labels, mismatch=True)
    if kubernetes_minor >= 34:
        for constraint in maps_in(spec.get("topologySpreadConstraints")):
            _merge_label_keys(constraint, labels, mismatch=False)
    _apparmor_annotations_to_fields(spec, meta)


def _merge_label_keys(term: JsonDict, labels: JsonDict, *, mismatch: bool) -> None:
    """`applyLabelKeysToLabelSelector`: each key of `matchLabelKeys` (`In`) and, for affinity
    terms, `mismatchLabelKeys` (`NotIn`) that the pod's labels have, as a requirement on the
    pod's value; nothing without a label selector (a nil selector matches nothing)."""
    selector = term.get("labelSelector")
    if not isinstance(selector, dict):
        return
    keys = [("matchLabelKeys", "In")] + ([("mismatchLabelKeys", "NotIn")] if mismatch else [])
    for field, operator in keys:
        for key in term.get(field) or ():
            if isinstance(key, str) and isinstance(labels.get(key), str):
                expressions = selector.setdefault("matchExpressions", [])
                if isinstance(expressions, list):
                    expressions.append({"key": key, "operator": operator, "values": [labels[key]]})


_APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _apparmor_annotations_to_fields(spec: JsonDict, meta: JsonDict) -> None:
    """`applyAppArmorVersionSkew`: a container's deprecated annotation becomes its
    `securityContext.appArmorProfile` when it has none, the annotation converts to a valid
    profile (`podutil.ApparmorFieldForAnnotation`, `ValidateAppArmorProfileField`) and that
    differs from the pod's; never on a Windows pod."""
    if _dict(spec.get("os")).get("name") == "windows":
        return
    annotations = _dict(meta.get("annotations"))
    pod_profile = _dict(spec.get("securityContext")).get("appArmorProfile")
    for group in ("initContainers", "containers", "ephemeralContainers"):
        for container in maps_in(spec.get(group)):
            annotation = annotations.get(f"{_APPARMOR_PREFIX}{container.get('name')}")
            context = container.get("securityContext")
            own = context.get("appArmorProfile") if isinstance(context, dict) else None
            if not isinstance(annotation, str) or own is not None:
                continue
            profile = _apparmor_field(annotation)
            if profile is None or profile == pod_profile:
                continue
            if not isinstance(context, dict):
                context = container["securityContext"] = {}
            context["appArmorProfile"] = profile


def _apparmor_field(annotation: str) -> JsonDict | None:
    if annotation == "unconfined":
        return {"type": "Unconfined"}
    if annotation == "runtime/default":
        return {"type": "RuntimeDefault"}
    name = annotation.removeprefix("localhost/")
    if name == annotation or not name or name.strip() != name or len(name.encode()) > 4095:
        return None  # no profile, or one validation rejects (padded, longer than PATH_MAX - 1)
    return {"type": "Localhost", "localhostProfile": name}


def _generate_job_selector(spec: JsonDict, meta: JsonDict) -> None:
    """A Job's `PrepareForCreate` (`generateSelectorIfNeeded`, `pkg/registry/batch/job/strategy.go`,
    the same v1.30 to v1.37): unless `manualSelector`, the template gets the job-name and
    controller-uid labels it lacks and the selector matches `batch.kubernetes.io/controller-uid`
    (the label names: `pkg/apis/batch/types.go`)."""
    if spec.get("manualSelector") is True:
        return
    template = child_map(spec, "template")
    labels = child_map(template, "metadata") if template is not None else None
    labels = child_map(labels, "labels") if labels is not None else None
    name, uid = str(meta.get("name") or ""), str(meta.get("uid") or "")
    if labels is not None:
        for key in _JOB_NAME_LABELS:
            labels.setdefault(key, name)
        for key in _JOB_UID_LABELS:
            labels.setdefault(key, uid)
    selector = child_map(spec, "selector")
    match = child_map(selector, "matchLabels") if selector is not None else None
    if match is not None:
        match.setdefault(_JOB_UID_LABELS[1], uid)


def before_validating(
    obj: JsonDict,
    old: JsonDict | None,
    operation: str,
    gvk: tuple[str, str, str],
    *,
    builtin: bool,
    status_subresource: bool,
    kubernetes_minor: int,
    now: datetime | None = None,
) -> list[str]:
    """Steps 3 above for `operation` (CREATE or UPDATE of the main resource), in place; the
    notes say which filled-in values are placeholders for what only the cluster knows."""
    meta = child_map(obj, "metadata")
    if meta is None:
        return []
    group, _version, kind = gvk
    service = builtin and (group, kind) == ("", "Service")
    generation = tracks_generation(group, kind, kubernetes_minor, custom=not builtin)
    if operation == "CREATE":
        seed = _digest(obj)
        stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
        meta["creationTimestamp"] = stamp
        meta["uid"] = str(uuid.UUID(bytes=seed[:16], version=4))
        # rest.WipeObjectMetaSystemFields (handlers/create.go): what a client wrote there is gone.
        for key in _WIPED_ON_CREATE:
            meta.pop(key, None)
        prefix = meta.get("generateName")
        if isinstance(prefix, str) and prefix and not meta.get("name"):
            meta["name"] = generated_name(prefix, seed[16:])
        notes = allocate_create(obj) if service else []
        if status_subresource:
            if builtin:
                obj["status"] = {}
            else:
                obj.pop("status", None)
        if generation:
            meta["generation"] = 1
        spec = obj.get("spec")
        if (group, kind) == ("", "Pod") and isinstance(spec, dict):
            _prepare_pod(obj, spec, meta, kubernetes_minor, stamp)
        if builtin and (group, kind) == ("apps", "DaemonSet"):
            current = template_generation(obj)
            if current is not None:
                set_template_generation(obj, max(current, 1))
        if builtin and (group, kind) == ("batch", "Job") and isinstance(spec, dict):
            _generate_job_selector(spec, meta)
        if (group, kind) == ("", "Namespace"):
            obj["status"] = {"phase": "Active"}
            if not isinstance(spec, dict):
                spec = obj["spec"] = {}
            finalizers = child_list(spec, "finalizers")
            if finalizers is not None and "kubernetes" not in finalizers:
                finalizers.append("kubernetes")
        return notes
    if operation != "UPDATE" or not isinstance(old, dict):
        return []
    notes = allocate_update(obj, old) if service else []
    old_meta = old.get("metadata") if isinstance(old.get("metadata"), dict) else {}
    assert isinstance(old_meta, dict)
    if not meta.get("uid") and old_meta.get("uid"):
        meta["uid"] = old_meta["uid"]
    if old_meta.get("creationTimestamp"):
        meta["creationTimestamp"] = old_meta["creationTimestamp"]
    if status_subresource and "status" in old:
        obj["status"] = old["status"]
    if builtin and (group, kind) == ("apps", "DaemonSet"):
        stored_template = template_generation(old)
        if stored_template is not None and template_generation(obj) is not None:
            spec, old_spec = obj.get("spec"), old.get("spec")
            template = spec.get("template") if isinstance(spec, dict) else None
            changed = template != (old_spec.get("template") if isinstance(old_spec, dict) else None)
            set_template_generation(obj, stored_template + 1 if changed else stored_template)
    if generation and "generation" in old_meta:
        stored = old_meta["generation"]
        if isinstance(stored, int) and obj.get("spec") != old.get("spec"):
            stored += 1
        meta["generation"] = stored
    return notes


def status_update(obj: JsonDict, old: JsonDict, gvk: tuple[str, str, str], *, builtin: bool) -> None:
    """An UPDATE of the `status` subresource, in place: what the kind's status strategy's
    `PrepareForUpdate` keeps of the stored object before validating admission runs. A custom
    resource keeps everything stored but its status (apiextensions registry/customresource
    status_strategy.go: the old object with the new status); a built-in kind keeps its stored
    spec (pkg/registry/*/strategy.go `...StatusStrategy.PrepareForUpdate`), a Deployment also its
    labels, a Pod also its owner references. Found by the oracle (issue 34)."""
    if not builtin:
        status = obj.get("status")
        has_status = "status" in obj
        managed = child_map(obj, "metadata")
        managed_fields = managed.get("managedFields") if managed is not None else None
        obj.clear()
        obj.update(copy.deepcopy(old))
        meta = child_map(obj, "metadata")
        if meta is not None:
            if managed_fields is not None:
                meta["managedFields"] = managed_fields
            else:
                meta.pop("managedFields", None)
        if has_status:
            obj["status"] = status
        else:
            obj.pop("status", None)
        return
    group, _version, kind = gvk
    if "spec" in old:
        obj["spec"] = copy.deepcopy(old["spec"])
    else:
        obj.pop("spec", None)
    meta, old_meta = child_map(obj, "metadata"), child_map(old, "metadata")
    if meta is None or old_meta is None:
        return
    kept = {("apps", "Deployment"): ("labels",), ("", "Pod"): ("ownerReferences",)}.get((group, kind), ())
    for key in kept:
        if key in old_meta:
            meta[key] = copy.deepcopy(old_meta[key])
        else:
            meta.pop(key, None)
