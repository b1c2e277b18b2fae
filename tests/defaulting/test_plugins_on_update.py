"""What the default-enabled plugins leave on a Pod UPDATE, and edges of CREATE (issue 39:
untested branches that the mutation runs found).

A Pod's service account, its volumes and their mounts cannot change (`ValidatePodUpdate` in
kubernetes `pkg/apis/core/validation/validation.go`: "pod updates may not change fields other
than ..."), and the ServiceAccount plugin (`plugin/pkg/admission/serviceaccount/admission.go`)
set them when the Pod was created. An update that reaches validating admission therefore
carries them as stored; an update written without them (a partial manifest given to `vap-lsp
run`) gets them from the stored Pod (`plugins._carry_over`), the service account under either
of its two names, the projected token volume and each container's mount of it, never twice.
Priority (`plugin/pkg/admission/priority/admission.go`) keeps the stored priority and
preemption policy on update.
"""

from __future__ import annotations

import copy
from typing import Any

from vap_lsp.defaulting.plugins import ClusterObjects, admission_plugins

JsonDict = dict[str, Any]
TOKEN = {
    "name": "kube-api-access-abcde",
    "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]},
}
MOUNT = {
    "name": "kube-api-access-abcde",
    "readOnly": True,
    "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
}


def _pod(spec: JsonDict) -> JsonDict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": spec}


def _stored(**extra: Any) -> JsonDict:
    spec: JsonDict = {
        "serviceAccountName": "builder",
        "serviceAccount": "builder",
        "volumes": [{"name": "data", "emptyDir": {}}, TOKEN],
        "containers": [
            {"name": "app", "image": "x", "volumeMounts": [{"name": "data", "mountPath": "/d"}, MOUNT]},
            {"name": "side", "image": "y", "volumeMounts": [MOUNT]},
        ],
        "priority": 0,
        "enableServiceLinks": True,
    }
    spec.update(extra)
    return _pod(spec)


def update(spec: JsonDict, stored: JsonDict | None = None, cluster: list[JsonDict] | None = None) -> JsonDict:
    obj = _pod(copy.deepcopy(spec))
    old = stored if stored is not None else _stored()
    outcome = admission_plugins(
        obj, old, "UPDATE", ("", "pods"), "ns", ClusterObjects.from_objects(cluster or []), 35
    )
    assert outcome.forbidden is None
    return obj["spec"]


def test_an_update_without_the_service_account_gets_both_names() -> None:
    spec = update({"containers": [{"name": "app", "image": "x"}]})
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("builder", "builder")


def test_an_empty_service_account_name_is_unset() -> None:
    spec = update({"serviceAccountName": "", "containers": [{"name": "app", "image": "x"}]})
    assert spec["serviceAccountName"] == "builder"


def test_a_written_service_account_is_kept() -> None:
    spec = update({"serviceAccountName": "other", "containers": [{"name": "app", "image": "x"}]})
    assert spec["serviceAccountName"] == "other"
    assert spec["serviceAccount"] == "builder"


def test_the_token_volume_and_its_mounts_are_carried_over() -> None:
    spec = update(
        {
            "volumes": [{"name": "data", "emptyDir": {}}],
            "containers": [
                {"name": "app", "image": "x", "volumeMounts": [{"name": "data", "mountPath": "/d"}]},
                {"name": "side", "image": "y"},
                {"name": "new", "image": "z"},  # not in the stored pod: no mount to carry
            ],
        }
    )
    assert spec["volumes"] == [{"name": "data", "emptyDir": {}}, TOKEN]
    assert spec["containers"][0]["volumeMounts"] == [{"name": "data", "mountPath": "/d"}, MOUNT]
    assert spec["containers"][1]["volumeMounts"] == [MOUNT]
    assert "volumeMounts" not in spec["containers"][2]


def test_a_token_volume_already_there_is_not_added_twice() -> None:
    written = {
        "volumes": [TOKEN],
        "containers": [{"name": "app", "image": "x", "volumeMounts": [MOUNT]}],
    }
    spec = update(written)
    assert spec["volumes"] == [TOKEN]
    assert spec["containers"][0]["volumeMounts"] == [MOUNT]


def test_a_container_that_mounts_the_path_itself_gets_no_second_mount() -> None:
    own = {"name": "mine", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    spec = update({"volumes": [], "containers": [{"name": "app", "image": "x", "volumeMounts": [own]}]})
    assert spec["containers"][0]["volumeMounts"] == [own]
    assert spec["volumes"] == [TOKEN]


def test_nothing_is_carried_without_a_stored_pod_or_token() -> None:
    assert "serviceAccountName" not in update({"containers": []}, stored={"kind": "Pod"})
    no_token = _stored(volumes=[{"name": "data", "emptyDir": {}}])
    spec = update({"containers": [{"name": "app", "image": "x"}]}, stored=no_token)
    assert "volumes" not in spec
    # volumes of the wrong type are left alone (the structural layer reports them)
    spec = update({"volumes": "junk", "containers": [{"name": "app", "image": "x"}]})
    assert spec["volumes"] == "junk"


def test_priority_is_kept_from_the_stored_pod_on_update() -> None:
    """priority/admission.go `admitPod`: on update, the priority and preemption policy of the
    stored pod; a changed priorityClassName is rejected by validation, not here."""
    stored = _stored(priorityClassName="high", priority=1000, preemptionPolicy="Never")
    spec = update({"priorityClassName": "high", "containers": [{"name": "app", "image": "x"}]}, stored=stored)
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")


# --- CREATE: edges of the ServiceAccount plugin's mirror-pod checks and DefaultStorageClass ------
# serviceaccount/admission.go `Validate` of a mirror pod (`kubernetes.io/config.mirror`):
# `podutil.VisitPodSecretNames` over init, regular and ephemeral containers and every volume
# source, projected ones included.

MIRROR = {"kubernetes.io/config.mirror": "x"}
SECRET_ENV = [{"name": "e", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]


def _create(spec: JsonDict, annotations: JsonDict | None = None) -> str | None:
    obj = _pod(copy.deepcopy(spec))
    if annotations:
        obj["metadata"]["annotations"] = annotations
    return admission_plugins(obj, None, "CREATE", ("", "pods"), "ns", ClusterObjects(), 35).forbidden


def test_a_mirror_pod_may_not_reference_secrets_anywhere() -> None:
    secrets = 'pods "p" is forbidden: a mirror pod may not reference secrets'
    for key in ("initContainers", "containers", "ephemeralContainers"):
        assert _create({key: [{"name": "c", "image": "x", "env": SECRET_ENV}]}, MIRROR) == secrets, key
    projected = {"name": "v", "projected": {"sources": [{"secret": {"name": "s"}}]}}
    assert _create({"containers": [], "volumes": [projected]}, MIRROR) == secrets
    config = {"name": "v", "projected": {"sources": [{"configMap": {"name": "c"}}]}}
    assert _create({"containers": [], "volumes": [config]}, MIRROR) is None


def test_a_mirror_pod_may_not_name_a_service_account() -> None:
    assert _create({"serviceAccountName": "builder", "containers": []}, MIRROR) == (
        'pods "p" is forbidden: a mirror pod may not reference service accounts'
    )


def test_a_pod_without_a_service_account_gets_default_and_a_named_one_is_kept() -> None:
    obj = _pod({"containers": [{"name": "c", "image": "x"}]})
    admission_plugins(obj, None, "CREATE", ("", "pods"), "ns", ClusterObjects(), 35)
    assert (obj["spec"]["serviceAccountName"], obj["spec"]["serviceAccount"]) == ("default", "default")
    named = _pod({"serviceAccountName": "builder", "containers": [{"name": "c", "image": "x"}]})
    admission_plugins(named, None, "CREATE", ("", "pods"), "ns", ClusterObjects(), 35)
    assert named["spec"]["serviceAccountName"] == "builder"
    assert "serviceAccount" not in named["spec"]


def test_a_claim_without_a_class_and_no_default_class_is_noted() -> None:
    """DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault): sets the
    newest default class; without one offline, the note says what a cluster would do."""
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c"}, "spec": {}}
    outcome = admission_plugins(
        pvc, None, "CREATE", ("", "persistentvolumeclaims"), "ns", ClusterObjects(), 35
    )
    assert outcome.notes == [
        "spec.storageClassName: left unset as no default StorageClass was given; on a cluster with one, "
        "the DefaultStorageClass admission plugin sets it before admission policies"
    ]
    assert "storageClassName" not in pvc["spec"]
