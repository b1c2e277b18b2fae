"""kube-apiserver's default-enabled mutating admission plugins, checked against Kubernetes' own tests.

Each table translates a kubernetes/kubernetes unit-test table: the comment above it names the Go
file, each case's id the Go test and case. The Go tests feed internal objects; here they are the
v1 manifests that decode to them, run through `vap_lsp.defaulting.plugins.admission_plugins` (and
the conversion tests through `vap_lsp.defaulting.conversion.round_trip`). The cluster objects a
plugin reads from its informers are manifests given to `ClusterObjects.from_objects`. Rejections
are compared with the text of `admission.NewForbidden(a, err)`:
`<resource> "<name>" is forbidden: <err>` (k8s.io/apiserver/pkg/admission/errors.go).

Cases a check offline cannot decide (an object the plugin looks up and does not find: the module
takes the objects given as what it knows, not as all the cluster has) are left out with a comment.

"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vap_lsp.defaulting import default_object
from vap_lsp.defaulting.conversion import round_trip
from vap_lsp.defaulting.plugins import ClusterObjects, PluginOutcome, admission_plugins

JsonDict = dict[str, Any]

NS = "myns"
PODS = ("", "pods")
MIRROR = "kubernetes.io/config.mirror"
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_PREFIX = "kube-api-access-"
NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"


def admit(
    obj: JsonDict,
    *,
    operation: str = "CREATE",
    resource: tuple[str, str] = PODS,
    namespace: str = NS,
    cluster: list[JsonDict] | None = None,
    old: JsonDict | None = None,
    minor: int = 34,
) -> PluginOutcome:
    """The default-enabled plugins on `obj` (changed in place)."""
    objects = ClusterObjects.from_objects(cluster or [])
    return admission_plugins(obj, old, operation, resource, namespace, objects, minor)


def forbidden(resource: str, name: str, error: str) -> str:
    """admission.NewForbidden's message."""
    return f'{resource} "{name}" is forbidden: {error}'


def pod(
    spec: JsonDict | None = None,
    *,
    name: str = "myname",
    namespace: str = NS,
    annotations: dict[str, str] | None = None,
) -> JsonDict:
    meta: JsonDict = {"name": name, "namespace": namespace}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {} if spec is None else spec}


# --- DefaultTolerationSeconds -------------------------------------------------------------------
# plugin/pkg/admission/defaulttolerationseconds/admission_test.go

NOT_READY_300 = {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UNREACHABLE_300 = {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
NOT_READY_700 = {"key": NOT_READY, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}
UNREACHABLE_700 = {"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 700}
FOO_NO_SCHEDULE = {
    "key": "foo",
    "operator": "Equal",
    "value": "bar",
    "effect": "NoSchedule",
    "tolerationSeconds": 700,
}
UNREACHABLE_ANY_EFFECT = {"key": UNREACHABLE, "operator": "Exists", "tolerationSeconds": 700}
WILDCARD = {"operator": "Exists", "tolerationSeconds": 700}


@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        pytest.param(
            None,
            [NOT_READY_300, UNREACHABLE_300],
            id="TestForgivenessAdmission: pod has no tolerations, expect add both",
        ),
        pytest.param(
            [FOO_NO_SCHEDULE],
            [FOO_NO_SCHEDULE, NOT_READY_300, UNREACHABLE_300],
            id="TestForgivenessAdmission: none is for not-ready or unreachable, expect add both",
        ),
        pytest.param(
            [NOT_READY_700],
            [NOT_READY_700, UNREACHABLE_300],
            id="TestForgivenessAdmission: not-ready:NoExecute given, expect add unreachable",
        ),
        pytest.param(
            [UNREACHABLE_700],
            [UNREACHABLE_700, NOT_READY_300],
            id="TestForgivenessAdmission: unreachable:NoExecute given, expect add not-ready",
        ),
        pytest.param(
            [NOT_READY_700, UNREACHABLE_700],
            [NOT_READY_700, UNREACHABLE_700],
            id="TestForgivenessAdmission: both given, expect no change",
        ),
        pytest.param(
            [UNREACHABLE_ANY_EFFECT],
            [UNREACHABLE_ANY_EFFECT, NOT_READY_300],
            id="TestForgivenessAdmission: toleration for taint unreachable, expect add not-ready",
        ),
        pytest.param(
            [WILDCARD],
            [WILDCARD],
            id="TestForgivenessAdmission: wildcard toleration for all taints, expect no change",
        ),
    ],
)
def test_default_toleration_seconds(tolerations: list[JsonDict] | None, expected: list[JsonDict]) -> None:
    spec: JsonDict = {} if tolerations is None else {"tolerations": copy.deepcopy(tolerations)}
    obj = pod(spec)
    assert admit(obj).forbidden is None
    assert obj["spec"]["tolerations"] == expected


@pytest.mark.parametrize(
    ("operation", "handled"),
    [
        pytest.param("UPDATE", True, id="TestHandles: Update"),
        pytest.param("CREATE", True, id="TestHandles: Create"),
        pytest.param("DELETE", False, id="TestHandles: Delete"),
        pytest.param("CONNECT", False, id="TestHandles: Connect"),
    ],
)
def test_default_toleration_seconds_handles(operation: str, handled: bool) -> None:
    obj = pod({"containers": [{"name": "c"}]})
    admit(obj, operation=operation, old=pod({"containers": [{"name": "c"}]}))
    assert obj["spec"].get("tolerations") == ([NOT_READY_300, UNREACHABLE_300] if handled else None)


# --- ServiceAccount -----------------------------------------------------------------------------
# plugin/pkg/admission/serviceaccount/admission_test.go (the bound-token version, kube-api-access-*).
# The volume's suffix is random upstream (names.SimpleNameGenerator); the module derives it from the
# pod, so the cases check the prefix and that the volume and every mount name the same volume.
#
# Left out: TestIgnoresNilObject and TestIgnoresNonPodObject (Go types; a manifest is always a map);
# TestDeniesInvalidServiceAccount (a missing ServiceAccount is rejected; offline the module assumes
# the one named exists); the ephemeral-container cases of TestAllowsReferencedSecret and
# TestRejectsUnreferencedSecretVolumes (Validate on the ephemeralcontainers subresource, which the
# module never runs the plugins on).

TOKEN_SOURCE: JsonDict = {
    "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {
            "downwardAPI": {
                "items": [
                    {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                ]
            }
        },
    ],
    "defaultMode": 420,
}
"""TokenVolumeSource(): WarnOnlyBoundTokenExpirationSeconds (3607), mode 0644."""

CUSTOM_MOUNT = {"name": "my-custom-mount", "readOnly": False, "mountPath": TOKEN_PATH}


def service_account(
    name: str = "default",
    *,
    namespace: str = NS,
    annotations: dict[str, str] | None = None,
    **fields: Any,
) -> JsonDict:
    meta: JsonDict = {"name": name, "namespace": namespace}
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta, **fields}


def token_volumes(spec: JsonDict) -> list[JsonDict]:
    return [v for v in spec.get("volumes", []) if v["name"].startswith(TOKEN_PREFIX)]


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("containers", id="TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens"),
        pytest.param("containers", id="TestAutomountsAPIToken: containers"),
        pytest.param("initContainers", id="TestAutomountsAPIToken: testing InitContainers"),
    ],
)
def test_service_account_mounts_bound_token(key: str) -> None:
    obj = pod({key: [{}]})
    assert admit(obj, cluster=[service_account()]).forbidden is None
    spec = obj["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["serviceAccount"] == "default"  # Convert_core_PodSpec_To_v1_PodSpec writes the alias back
    [volume] = spec["volumes"]
    assert volume["name"].startswith(TOKEN_PREFIX)
    assert len(volume["name"]) == len(TOKEN_PREFIX) + 5
    assert volume == {"name": volume["name"], "projected": TOKEN_SOURCE}
    assert spec[key][0]["volumeMounts"] == [
        {"name": volume["name"], "readOnly": True, "mountPath": TOKEN_PATH}
    ]


def test_service_account_bound_token_pod_is_already_defaulted() -> None:
    """TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens, its last check: the admitted
    pod converted to v1 is left as it is by v1 defaulting (SetObjectDefaults_Pod)."""
    obj = default_object(pod({"containers": [{"name": "c", "image": "i"}]}), "1.34").object
    admit(obj, cluster=[service_account()])
    assert token_volumes(obj["spec"])
    assert default_object(copy.deepcopy(obj), "1.34").object == obj


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("containers", id="TestRespectsExistingMount: containers"),
        pytest.param("initContainers", id="TestRespectsExistingMount: check init containers"),
    ],
)
def test_service_account_respects_existing_mount(key: str) -> None:
    obj = pod({key: [{"volumeMounts": [dict(CUSTOM_MOUNT)]}]})
    admit(obj, cluster=[service_account()])
    spec = obj["spec"]
    assert spec["serviceAccountName"] == "default"
    assert "volumes" not in spec  # no volume for a token no container mounts
    assert spec[key][0]["volumeMounts"] == [CUSTOM_MOUNT]


# Not a table upstream (no Go test covers it): admission.go shouldAutomount — the pod's
# automountServiceAccountToken wins, then the ServiceAccount's, else true.
@pytest.mark.parametrize(
    ("pod_setting", "account_setting", "mounted"),
    [
        pytest.param(None, None, True, id="shouldAutomount: neither set -> true"),
        pytest.param(False, None, False, id="shouldAutomount: pod false"),
        pytest.param(None, False, False, id="shouldAutomount: ServiceAccount false"),
        pytest.param(True, False, True, id="shouldAutomount: pod true wins over ServiceAccount false"),
        pytest.param(False, True, False, id="shouldAutomount: pod false wins over ServiceAccount true"),
    ],
)
def test_service_account_automount_preference(
    pod_setting: bool | None, account_setting: bool | None, mounted: bool
) -> None:
    spec: JsonDict = {"containers": [{"name": "c"}]}
    if pod_setting is not None:
        spec["automountServiceAccountToken"] = pod_setting
    account = service_account()
    if account_setting is not None:
        account["automountServiceAccountToken"] = account_setting
    obj = pod(spec)
    admit(obj, cluster=[account])
    assert bool(token_volumes(obj["spec"])) is mounted
    assert ("volumeMounts" in obj["spec"]["containers"][0]) is mounted


def test_service_account_assigns_default() -> None:
    """TestFetchesUncachedServiceAccount: a pod naming none gets `default` (offline, that
    ServiceAccount is assumed to exist); no container, so no token volume."""
    obj = pod()
    assert admit(obj).forbidden is None
    assert obj["spec"]["serviceAccountName"] == "default"
    assert "volumes" not in obj["spec"]


@pytest.mark.parametrize(
    ("operation", "resource"),
    [
        pytest.param("DELETE", PODS, id="TestIgnoresNonCreate: Delete"),
        pytest.param("CONNECT", PODS, id="TestIgnoresNonCreate: Connect"),
        pytest.param("CREATE", ("", "CustomResource"), id="TestIgnoresNonPodResource"),
    ],
)
def test_service_account_ignores(operation: str, resource: tuple[str, str]) -> None:
    obj = pod({"containers": [{"name": "c"}]})
    assert admit(obj, operation=operation, resource=resource).forbidden is None
    assert "serviceAccountName" not in obj["spec"]
    assert "volumes" not in obj["spec"]


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        pytest.param({"volumes": [{"name": "v"}]}, None, id="TestIgnoresMirrorPod"),
        pytest.param(
            {"serviceAccountName": "default"},
            "a mirror pod may not reference service accounts",
            id="TestRejectsMirrorPodWithServiceAccount",
        ),
        pytest.param(
            {"volumes": [{"name": "v", "secret": {"secretName": "mysecret"}}]},
            "a mirror pod may not reference secrets",
            id="TestRejectsMirrorPodWithSecretVolumes",
        ),
        pytest.param(
            {"volumes": [{"name": "v", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]},
            "a mirror pod may not use ServiceAccountToken volume projections",
            id="TestRejectsMirrorPodWithServiceAccountTokenVolumeProjections",
        ),
    ],
)
def test_service_account_mirror_pods(spec: JsonDict, error: str | None) -> None:
    obj = pod(copy.deepcopy(spec), annotations={MIRROR: "true"})
    outcome = admit(obj)
    assert outcome.forbidden == (forbidden("pods", "myname", error) if error else None)
    if error is None:
        assert obj["spec"].get("serviceAccountName") is None  # the spec of a mirror pod is not changed
        assert obj["spec"]["volumes"] == [{"name": "v"}]


# TestAllowsReferencedSecret, TestRejectsUnreferencedSecretVolumes, TestAllowsReferencedImagePullSecrets
# and TestRejectsUnreferencedImagePullSecrets set LimitSecretReferences, which kube-apiserver leaves
# off; the ServiceAccount's annotation kubernetes.io/enforce-mountable-secrets: "true" turns on the
# same check (enforceMountableSecrets), so the cases are given that annotation.
# TestAllowUnreferencedSecretVolumesForPermissiveSAs uses the annotation itself.

ENFORCE = {"kubernetes.io/enforce-mountable-secrets": "true"}
NOT_REFERENCED = "is not allowed because service account default does not reference that secret"
SECRET_VOLUME = {"volumes": [{"name": "v", "secret": {"secretName": "foo"}}]}
SECRET_ENV = [
    {"name": "container-1", "env": [{"name": "env-1", "valueFrom": {"secretKeyRef": {"name": "foo"}}}]}
]
SECRET_ENV_FROM = [{"name": "container-1", "envFrom": [{"secretRef": {"name": "foo"}}]}]


@pytest.mark.parametrize(
    ("secrets", "spec", "operation", "error"),
    [
        pytest.param(
            [{"name": "foo"}], SECRET_VOLUME, "CREATE", None, id="TestAllowsReferencedSecret: volume"
        ),
        pytest.param(
            [{"name": "foo"}],
            {"containers": SECRET_ENV},
            "CREATE",
            None,
            id="TestAllowsReferencedSecret: env",
        ),
        pytest.param(
            [{"name": "foo"}],
            {"containers": SECRET_ENV_FROM},
            "CREATE",
            None,
            id="TestAllowsReferencedSecret: envFrom",
        ),
        pytest.param(
            [{"name": "foo"}],
            {"initContainers": SECRET_ENV},
            "CREATE",
            None,
            id="TestAllowsReferencedSecret: init container env",
        ),
        pytest.param(
            [{"name": "foo"}],
            {"initContainers": SECRET_ENV_FROM},
            "CREATE",
            None,
            id="TestAllowsReferencedSecret: init container envFrom",
        ),
        pytest.param(
            None,
            SECRET_VOLUME,
            "CREATE",
            f'volume with secret.secretName="foo" {NOT_REFERENCED}',
            id="TestRejectsUnreferencedSecretVolumes: volume",
        ),
        pytest.param(
            None,
            {"containers": SECRET_ENV},
            "CREATE",
            f'container container-1 with envVar env-1 referencing secret.secretName="foo" {NOT_REFERENCED}',
            id="TestRejectsUnreferencedSecretVolumes: container envVar",
        ),
        pytest.param(
            None,
            {"containers": SECRET_ENV_FROM},
            "CREATE",
            f'container container-1 with envFrom referencing secret.secretName="foo" {NOT_REFERENCED}',
            id="TestRejectsUnreferencedSecretVolumes: container envFrom",
        ),
        pytest.param(
            None,
            {"serviceAccountName": "default", "initContainers": SECRET_ENV},
            "UPDATE",
            None,
            id="TestRejectsUnreferencedSecretVolumes: admit only enforces on create (init envVar)",
        ),
        pytest.param(
            None,
            {"serviceAccountName": "default", "initContainers": SECRET_ENV},
            "CREATE",
            "init container container-1 with envVar env-1 referencing "
            f'secret.secretName="foo" {NOT_REFERENCED}',
            id="TestRejectsUnreferencedSecretVolumes: init container envVar",
        ),
        pytest.param(
            None,
            {"serviceAccountName": "default", "initContainers": SECRET_ENV_FROM},
            "UPDATE",
            None,
            id="TestRejectsUnreferencedSecretVolumes: admit only enforces on create (init envFrom)",
        ),
        pytest.param(
            None,
            {"serviceAccountName": "default", "initContainers": SECRET_ENV_FROM},
            "CREATE",
            f'init container container-1 with envFrom referencing secret.secretName="foo" {NOT_REFERENCED}',
            id="TestRejectsUnreferencedSecretVolumes: init container envFrom",
        ),
        pytest.param(
            None,
            SECRET_VOLUME,
            "CREATE",
            f'volume with secret.secretName="foo" {NOT_REFERENCED}',
            id="TestAllowUnreferencedSecretVolumesForPermissiveSAs",
        ),
    ],
)
def test_service_account_mountable_secrets(
    secrets: list[JsonDict] | None, spec: JsonDict, operation: str, error: str | None
) -> None:
    account = service_account(annotations=ENFORCE)
    if secrets is not None:
        account["secrets"] = secrets
    obj = pod(copy.deepcopy(spec))
    old = pod(copy.deepcopy(spec)) if operation == "UPDATE" else None
    outcome = admit(obj, operation=operation, cluster=[account], old=old)
    assert outcome.forbidden == (forbidden("pods", "myname", error) if error else None)


@pytest.mark.parametrize(
    ("account_pulls", "pod_pulls", "expected", "error"),
    [
        pytest.param(
            [{"name": "foo"}],
            [{"name": "foo"}],
            [{"name": "foo"}],
            None,
            id="TestAllowsReferencedImagePullSecrets",
        ),
        pytest.param(
            None,
            [{"name": "foo"}],
            [{"name": "foo"}],
            'imagePullSecrets[0].name="foo" is not allowed because service account default does not '
            "reference that imagePullSecret",
            id="TestRejectsUnreferencedImagePullSecrets",
        ),
        pytest.param(
            [{"name": "foo"}, {"name": "bar"}],
            [{"name": "foo"}],
            [{"name": "foo"}],
            None,
            id="TestDoNotAddImagePullSecrets",
        ),
        pytest.param(
            [{"name": "foo"}, {"name": "bar"}],
            None,
            [{"name": "foo"}, {"name": "bar"}],
            None,
            id="TestAddImagePullSecrets",
        ),
    ],
)
def test_service_account_image_pull_secrets(
    account_pulls: list[JsonDict] | None,
    pod_pulls: list[JsonDict] | None,
    expected: list[JsonDict],
    error: str | None,
) -> None:
    account = service_account(annotations=ENFORCE)
    if account_pulls is not None:
        account["imagePullSecrets"] = copy.deepcopy(account_pulls)
    original = copy.deepcopy(account)
    obj = pod({} if pod_pulls is None else {"imagePullSecrets": copy.deepcopy(pod_pulls)})
    outcome = admit(obj, cluster=[account])
    assert outcome.forbidden == (forbidden("pods", "myname", error) if error else None)
    assert obj["spec"]["imagePullSecrets"] == expected
    obj["spec"]["imagePullSecrets"][-1]["name"] = "baz"
    assert account == original  # TestAddImagePullSecrets: the ServiceAccount is not mutated


# --- Priority -----------------------------------------------------------------------------------
# plugin/pkg/admission/priority/admission_test.go (TestPriorityClassAdmission validates
# PriorityClasses: not a mutation, left out). The Go fixtures are internal PriorityClasses without a
# preemptionPolicy; a stored PriorityClass has one (SetDefaults_PriorityClass: PreemptLowerPriority),
# and so has the pod afterwards, which the Go test only checks when it expects one.


def priority_class(name: str, value: int, *, default: bool = False, policy: str | None = None) -> JsonDict:
    obj: JsonDict = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }
    if default:
        obj["globalDefault"] = True
    if policy is not None:
        obj["preemptionPolicy"] = policy
    return obj


DEFAULT1 = priority_class("default1", 1000, default=True)
DEFAULT2 = priority_class("default2", 2000, default=True)
NONDEFAULT1 = priority_class("nondefault1", 2000)
SYSTEM_CLUSTER_CRITICAL = priority_class("system-cluster-critical", 2000000000, default=True)
PREEMPTION_POLICY_CLASS = priority_class(
    "nopreemptionpolicy", 2000, default=True, policy="PreemptLowerPriority"
)
LOWER = "PreemptLowerPriority"
ABSENT = object()
"""An expected field the pod does not have."""

# Left out: "Pod with non-existing priority class", "pod with integer priority" and "mirror pod with
# integer priority": each names a PriorityClass the test does not create, which the plugin rejects;
# offline the module cannot tell a missing class from one not given (it leaves a note instead).


@pytest.mark.parametrize(
    ("classes", "namespace", "fields", "expected"),
    [
        pytest.param(
            [DEFAULT1, NONDEFAULT1],
            "namespace",
            {"priorityClassName": "default1"},
            {"priorityClassName": "default1", "priority": 1000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: Pod with priority class",
        ),
        pytest.param(
            [DEFAULT1],
            "namespace",
            {},
            {"priorityClassName": "default1", "priority": 1000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: Pod without priority class",
        ),
        pytest.param(
            [],
            "namespace",
            {},
            {"priorityClassName": ABSENT, "priority": 0, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod without priority class and no existing priority class",
        ),
        pytest.param(
            [NONDEFAULT1],
            "namespace",
            {},
            {"priorityClassName": ABSENT, "priority": 0, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod without priority class and no default class",
        ),
        pytest.param(
            [SYSTEM_CLUSTER_CRITICAL],
            "kube-system",
            {"priorityClassName": "system-cluster-critical"},
            {"priority": 2000000000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod with a system priority class",
        ),
        pytest.param(
            [SYSTEM_CLUSTER_CRITICAL],
            "non-system-namespace",
            {"priorityClassName": "system-cluster-critical"},
            {"priority": 2000000000},
            id="TestPodAdmission: pod with system critical priority in non-system namespace",
        ),
        pytest.param(
            [NONDEFAULT1],
            "non-system-namespace",
            {"priority": 0},
            {"priority": 0, "priorityClassName": ABSENT},
            id="TestPodAdmission: pod with priority that matches computed priority",
        ),
        pytest.param(
            [DEFAULT2],
            "non-system-namespace",
            {"priority": 2000},
            {"priority": 2000, "priorityClassName": "default2"},
            id="TestPodAdmission: pod with priority that matches default priority",
        ),
        pytest.param(
            [SYSTEM_CLUSTER_CRITICAL],
            "kube-system",
            {"priorityClassName": "system-cluster-critical", "priority": 2000000000},
            {"priority": 2000000000},
            id="TestPodAdmission: pod with priority that matches resolved priority",
        ),
        pytest.param(
            [PREEMPTION_POLICY_CLASS],
            "kube-system",
            {"priorityClassName": "nopreemptionpolicy", "priority": 2000},
            {"priority": 2000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod with nil preemption policy",
        ),
        pytest.param(
            [PREEMPTION_POLICY_CLASS],
            "kube-system",
            {"priorityClassName": "nopreemptionpolicy", "priority": 2000, "preemptionPolicy": LOWER},
            {"priority": 2000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod with preemption policy that matches resolved preemption policy",
        ),
        # Without the classes given, the module knows the two a kube-apiserver always creates.
        pytest.param(
            [],
            "kube-system",
            {"priorityClassName": "system-cluster-critical"},
            {"priority": 2000000000, "preemptionPolicy": LOWER},
            id="TestPodAdmission: pod with a system priority class (built-in class, not given)",
        ),
    ],
)
def test_priority_pod_admission(
    classes: list[JsonDict], namespace: str, fields: JsonDict, expected: dict[str, object]
) -> None:
    obj = pod({"containers": [{"name": "container"}], **fields}, namespace=namespace)
    outcome = admit(obj, namespace=namespace, cluster=classes)
    assert outcome.forbidden is None
    for key, value in expected.items():
        assert obj["spec"].get(key, ABSENT) == value, key


def test_priority_mirror_pod() -> None:
    """TestPodAdmission: mirror pod with system priority class (Priority, unlike ServiceAccount,
    handles mirror pods too)."""
    obj = pod(
        {"containers": [{"name": "container"}], "priorityClassName": "system-cluster-critical"},
        name="mirror-pod-w-system-priority",
        namespace="kube-system",
        annotations={MIRROR: ""},
    )
    assert admit(obj, namespace="kube-system", cluster=[SYSTEM_CLUSTER_CRITICAL]).forbidden is None
    assert obj["spec"]["priority"] == 2000000000
    assert "serviceAccountName" not in obj["spec"]


@pytest.mark.parametrize(
    ("classes", "name", "fields", "error"),
    [
        pytest.param(
            [PREEMPTION_POLICY_CLASS],
            "pod-preemption-policy-not-matching-resolved-preemption-policy",
            {"priorityClassName": "nopreemptionpolicy", "priority": 2000, "preemptionPolicy": "Never"},
            "the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority "
            "admission controller computed PreemptLowerPriority from the given PriorityClass name",
            id="TestPodAdmission: pod with preemption policy that doesn't match resolved preemption policy",
        ),
        # Adapted from "pod with integer priority" (its class is not created upstream, see above):
        # the class is given, so only the mismatch of the integer value remains.
        pytest.param(
            [DEFAULT2],
            "pod-w-integer-priority",
            {"priority": 1000},
            "the integer value of priority (1000) must not be provided in pod spec; priority admission "
            "controller computed 2000 from the given PriorityClass name",
            id="TestPodAdmission: pod with integer priority (adapted: default class 2000 given)",
        ),
    ],
)
def test_priority_pod_rejected(classes: list[JsonDict], name: str, fields: JsonDict, error: str) -> None:
    obj = pod({"containers": [{"name": "container"}], **fields}, name=name, namespace="kube-system")
    assert admit(obj, namespace="kube-system", cluster=classes).forbidden == forbidden("pods", name, error)


# TestDefaultPriority: getDefaultPriority over the classes before and after each change, read
# through a pod that names no class.
@pytest.mark.parametrize(
    ("classes", "name", "value"),
    [
        pytest.param(
            [DEFAULT1], "default1", 1000, id="TestDefaultPriority: simple resolution with a default class"
        ),
        pytest.param([NONDEFAULT1], None, 0, id="TestDefaultPriority: add a default class (before)"),
        pytest.param(
            [NONDEFAULT1, DEFAULT1], "default1", 1000, id="TestDefaultPriority: add a default class (after)"
        ),
        pytest.param(
            [DEFAULT1, DEFAULT2],
            "default1",
            1000,
            id="TestDefaultPriority: multiple default classes resolves to the minimum value among them",
        ),
        pytest.param(
            [DEFAULT2], "default2", 2000, id="TestDefaultPriority: multiple default classes (after delete)"
        ),
        pytest.param([], None, 0, id="TestDefaultPriority: delete default priority class (after)"),
        pytest.param(
            [priority_class("default1", 1000)],
            None,
            0,
            id="TestDefaultPriority: update default class and remove its global default (after)",
        ),
    ],
)
def test_priority_default_class(classes: list[JsonDict], name: str | None, value: int) -> None:
    obj = pod({"containers": [{"name": "container"}]})
    admit(obj, cluster=classes)
    assert obj["spec"].get("priorityClassName") == name
    assert obj["spec"]["priority"] == value


# --- TaintNodesByCondition ----------------------------------------------------------------------
# plugin/pkg/admission/nodetaint/admission_test.go (Test_nodeTaints)

NOT_READY_TAINT = {"key": NOT_READY, "effect": "NoSchedule"}
NODES = ("", "nodes")


def node(spec: JsonDict | None = None, status: JsonDict | None = None) -> JsonDict:
    obj: JsonDict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "mynode"}}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


@pytest.mark.parametrize(
    ("obj", "operation", "expected"),
    [
        pytest.param(
            node(), "CREATE", [NOT_READY_TAINT], id="Test_nodeTaints: notReady taint is added on creation"
        ),
        pytest.param(
            node({"taints": [dict(NOT_READY_TAINT)]}),
            "CREATE",
            [NOT_READY_TAINT],
            id="Test_nodeTaints: already tainted node is not tainted again",
        ),
        pytest.param(
            node(status={"conditions": [{"type": "Ready", "status": "False"}]}),
            "CREATE",
            [NOT_READY_TAINT],
            id="Test_nodeTaints: NotReady taint is added to an unready node as well",
        ),
        # admission.go: NewHandler(admission.Create).
        pytest.param(node({}), "UPDATE", None, id="nodetaint NewPlugin: handles Create only"),
    ],
)
def test_node_taints(obj: JsonDict, operation: str, expected: list[JsonDict] | None) -> None:
    obj = copy.deepcopy(obj)
    admit(obj, operation=operation, resource=NODES, namespace="", old=node({}))
    assert obj.get("spec", {}).get("taints") == expected


# --- StorageObjectInUseProtection ---------------------------------------------------------------
# plugin/pkg/admission/storage/storageobjectinuseprotection/admission_test.go (TestAdmit; the
# VolumeAttributesClass cases turn the gate on, as 1.34 has it by default).

PVC_FINALIZER = "kubernetes.io/pvc-protection"
PV_FINALIZER = "kubernetes.io/pv-protection"
VAC_FINALIZER = "kubernetes.io/vac-protection"


def meta_object(
    api_version: str, kind: str, name: str, namespace: str | None, finalizers: list[str] | None
) -> JsonDict:
    meta: JsonDict = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    if finalizers is not None:
        meta["finalizers"] = finalizers
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


@pytest.mark.parametrize(
    ("resource", "obj", "expected"),
    [
        pytest.param(
            ("", "persistentvolumeclaims"),
            meta_object("v1", "PersistentVolumeClaim", "claim", "ns", None),
            [PVC_FINALIZER],
            id="TestAdmit: persistentvolumeclaims: create -> add finalizer",
        ),
        pytest.param(
            ("", "persistentvolumeclaims"),
            meta_object("v1", "PersistentVolumeClaim", "claim", "ns", [PVC_FINALIZER]),
            [PVC_FINALIZER],
            id="TestAdmit: persistentvolumeclaims: finalizer already exists -> no new finalizer",
        ),
        pytest.param(
            ("", "persistentvolumes"),
            meta_object("v1", "PersistentVolume", "pv", None, None),
            [PV_FINALIZER],
            id="TestAdmit: persistentvolumes: create -> add finalizer",
        ),
        pytest.param(
            ("", "persistentvolumes"),
            meta_object("v1", "PersistentVolume", "pv", None, [PV_FINALIZER]),
            [PV_FINALIZER],
            id="TestAdmit: persistentvolumes: finalizer already exists -> no new finalizer",
        ),
        pytest.param(
            ("storage.k8s.io", "volumeattributesclasses"),
            meta_object("storage.k8s.io/v1", "VolumeAttributesClass", "vac", None, None),
            [VAC_FINALIZER],
            id="TestAdmit: volumeattributesclasses: create -> add finalizer",
        ),
        pytest.param(
            ("storage.k8s.io", "volumeattributesclasses"),
            meta_object("storage.k8s.io/v1", "VolumeAttributesClass", "vac", None, [VAC_FINALIZER]),
            [VAC_FINALIZER],
            id="TestAdmit: volumeattributesclasses: finalizer already exists -> no new finalizer",
        ),
    ],
)
def test_storage_object_in_use_protection(
    resource: tuple[str, str], obj: JsonDict, expected: list[str]
) -> None:
    obj = copy.deepcopy(obj)
    namespace = obj["metadata"].get("namespace", "")
    admit(obj, resource=resource, namespace=namespace, minor=34)
    assert obj["metadata"]["finalizers"] == expected


# --- DefaultStorageClass ------------------------------------------------------------------------
# plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go (TestAdmission) and
# pkg/volume/util/storageclass_test.go (TestGetDefaultClass). A manifest's creationTimestamp has
# whole seconds; the Go fixtures that differ by a nanosecond differ here by a second.

IS_DEFAULT_SC = "storageclass.kubernetes.io/is-default-class"
PVCS = ("", "persistentvolumeclaims")


def storage_class(
    name: str, default: str | None = None, created: str | None = None, *, beta: bool = False
) -> JsonDict:
    meta: JsonDict = {"name": name}
    if default is not None:
        key = "storageclass.beta.kubernetes.io/is-default-class" if beta else IS_DEFAULT_SC
        meta["annotations"] = {key: default}
    if created is not None:
        meta["creationTimestamp"] = created
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta, "provisioner": name}


SC_DEFAULT1 = storage_class("default1", "true")
SC_DEFAULT2 = storage_class("default2", "true")
SC_FALSE_DEFAULT = storage_class("nondefault1", "false")
SC_NO_DEFAULT = storage_class("nondefault2")
SC_EMPTY_DEFAULT = storage_class("nondefault2", "")
SC_CREATED1 = storage_class("default1", "true", "2022-01-01T00:00:01Z")
SC_CREATED2 = storage_class("default2", "true", "2022-01-01T00:00:00Z")
NON_DEFAULTS = [SC_FALSE_DEFAULT, SC_NO_DEFAULT, SC_EMPTY_DEFAULT]
UNSET = object()
"""A claim without storageClassName."""


@pytest.mark.parametrize(
    ("classes", "claim_class", "expected"),
    [
        pytest.param(NON_DEFAULTS, UNSET, UNSET, id="TestAdmission: no default, no modification of PVCs"),
        pytest.param(
            [SC_DEFAULT1, *NON_DEFAULTS],
            UNSET,
            "default1",
            id="TestAdmission: one default, modify PVC with class=nil",
        ),
        pytest.param(
            [SC_DEFAULT1, *NON_DEFAULTS],
            "",
            "",
            id="TestAdmission: one default, no modification of PVC with class=''",
        ),
        pytest.param(
            [SC_DEFAULT1, *NON_DEFAULTS],
            "foo",
            "foo",
            id="TestAdmission: one default, no modification of PVC with class='foo'",
        ),
        pytest.param(
            [SC_DEFAULT1, SC_DEFAULT2, *NON_DEFAULTS],
            "",
            "",
            id="TestAdmission: two defaults, no modification of PVC with class=''",
        ),
        pytest.param(
            [SC_DEFAULT1, SC_DEFAULT2, *NON_DEFAULTS],
            "foo",
            "foo",
            id="TestAdmission: two defaults, no modification of PVC with class='foo'",
        ),
        pytest.param(
            [SC_DEFAULT1, SC_DEFAULT2, *NON_DEFAULTS],
            UNSET,
            "default1",
            id="TestAdmission: two defaults with same creation time, choose the one with smaller name",
        ),
        pytest.param(
            [SC_CREATED1, SC_CREATED2, *NON_DEFAULTS],
            UNSET,
            "default1",
            id="TestAdmission: two defaults, choose the one with newer creation time",
        ),
        # pkg/volume/util/storageclass.go IsDefaultAnnotation: the beta annotation counts too.
        pytest.param(
            [storage_class("beta", "true", beta=True), SC_NO_DEFAULT],
            UNSET,
            "beta",
            id="IsDefaultAnnotation: beta is-default-class annotation",
        ),
    ],
)
def test_default_storage_class(classes: list[JsonDict], claim_class: object, expected: object) -> None:
    spec: JsonDict = {} if claim_class is UNSET else {"storageClassName": claim_class}
    claim: JsonDict = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "claim"},
        "spec": spec,
    }
    outcome = admit(claim, resource=PVCS, namespace="ns", cluster=classes)
    assert outcome.forbidden is None
    assert claim["spec"].get("storageClassName", UNSET) == expected


T1 = "2024-05-01T10:00:00Z"
T2 = "2024-05-01T11:00:00Z"  # t1 + 1h


@pytest.mark.parametrize(
    ("classes", "expected"),
    [
        pytest.param([], UNSET, id="TestGetDefaultClass: no storage class"),
        pytest.param(
            [storage_class("my-storage-class1"), storage_class("my-storage-class2")],
            UNSET,
            id="TestGetDefaultClass: no default storage class",
        ),
        pytest.param(
            [
                storage_class("my-storage-class1"),
                storage_class("my-storage-class2"),
                storage_class("my-storage-class3", "true", T1),
            ],
            "my-storage-class3",
            id="TestGetDefaultClass: one default storage class",
        ),
        pytest.param(
            [storage_class("my-storage-class3", "true", T1), storage_class("my-storage-class4", "true", T2)],
            "my-storage-class4",
            id="TestGetDefaultClass: two default storage class with different creation timestamp",
        ),
        pytest.param(
            [storage_class("my-storage-class4", "true", T2), storage_class("my-storage-class5", "true", T2)],
            "my-storage-class4",
            id="TestGetDefaultClass: two default storage class with same creation timestamp",
        ),
    ],
)
def test_get_default_storage_class(classes: list[JsonDict], expected: object) -> None:
    claim: JsonDict = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "c"},
        "spec": {},
    }
    admit(claim, resource=PVCS, namespace="ns", cluster=classes)
    assert claim["spec"].get("storageClassName", UNSET) == expected


# --- DefaultIngressClass ------------------------------------------------------------------------
# plugin/pkg/admission/network/defaultingressclass/admission_test.go (TestAdmission)

IS_DEFAULT_IC = "ingressclass.kubernetes.io/is-default-class"
INGRESSES = ("networking.k8s.io", "ingresses")


def ingress_class(name: str, default: str | None = None, created: str | None = None) -> JsonDict:
    meta: JsonDict = {"name": name}
    if default is not None:
        meta["annotations"] = {IS_DEFAULT_IC: default}
    if created is not None:
        meta["creationTimestamp"] = created
    return {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", "metadata": meta}


IC_DEFAULT1 = ingress_class("default1", "true")
IC_DEFAULT2 = ingress_class("default2", "true")
IC_NON_DEFAULTS = [
    ingress_class("nondefault1", "false"),
    ingress_class("nondefault2"),
    ingress_class("nondefault2", ""),
]
IC_CREATED1 = ingress_class("default1", "true", "2022-01-01T00:00:01Z")
IC_CREATED2 = ingress_class("default2", "true", "2022-01-01T00:00:00Z")


@pytest.mark.parametrize(
    ("classes", "class_field", "class_annotation", "expected"),
    [
        pytest.param(
            IC_NON_DEFAULTS, UNSET, None, UNSET, id="TestAdmission: no default, no modification of Ingress"
        ),
        pytest.param(
            [IC_DEFAULT1, *IC_NON_DEFAULTS],
            UNSET,
            None,
            "default1",
            id="TestAdmission: one default, modify Ingress with class=nil",
        ),
        pytest.param(
            [IC_DEFAULT1, *IC_NON_DEFAULTS],
            "",
            None,
            "",
            id="TestAdmission: one default, no modification of Ingress with class field=''",
        ),
        pytest.param(
            [IC_DEFAULT1, *IC_NON_DEFAULTS],
            "foo",
            None,
            "foo",
            id="TestAdmission: one default, no modification of Ingress with class field='foo'",
        ),
        pytest.param(
            [IC_DEFAULT1, *IC_NON_DEFAULTS],
            UNSET,
            "foo",
            UNSET,
            id="TestAdmission: one default, no modification of Ingress with class annotation='foo'",
        ),
        pytest.param(
            [IC_DEFAULT1, IC_DEFAULT2, *IC_NON_DEFAULTS],
            UNSET,
            None,
            "default1",
            id="TestAdmission: two defaults with the same creation time, choose the one with the lower name",
        ),
        pytest.param(
            [IC_DEFAULT1, IC_DEFAULT2, *IC_NON_DEFAULTS],
            "",
            None,
            "",
            id="TestAdmission: two defaults, no modification with Ingress with class field=''",
        ),
        pytest.param(
            [IC_CREATED1, IC_CREATED2, *IC_NON_DEFAULTS],
            UNSET,
            None,
            "default1",
            id="TestAdmission: two defaults, choose the one with the newer creation time",
        ),
    ],
)
def test_default_ingress_class(
    classes: list[JsonDict], class_field: object, class_annotation: str | None, expected: object
) -> None:
    meta: JsonDict = {"name": "testing", "namespace": "testing"}
    if class_annotation is not None:
        meta["annotations"] = {"kubernetes.io/ingress.class": class_annotation}
    spec: JsonDict = {} if class_field is UNSET else {"ingressClassName": class_field}
    ingress: JsonDict = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": meta,
        "spec": spec,
    }
    outcome = admit(ingress, resource=INGRESSES, namespace="testing", cluster=classes)
    assert outcome.forbidden is None
    assert ingress["spec"].get("ingressClassName", UNSET) == expected


# --- v1 <-> internal conversion -----------------------------------------------------------------
# pkg/apis/core/v1/conversion_test.go. A v1 object's round trip through the internal version
# (conversion.round_trip) is checked; a test that starts from an internal object starts here from
# the v1 object that converts to it. Left out: TestPodLogOptions (query parameters),
# TestResourceListConversion (rounding done by SetDefaults_ResourceList, not conversion) and
# TestReplicationControllerConversion (RC <-> ReplicaSet, fuzzed).


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"serviceAccountName": "foo"},
            {"serviceAccountName": "foo", "serviceAccount": "foo"},
            id="TestPodSpecConversion: New (internal -> v1 writes both)",
        ),
        pytest.param(
            {"serviceAccount": "foo"},
            {"serviceAccountName": "foo", "serviceAccount": "foo"},
            id="TestPodSpecConversion: Alias",
        ),
        pytest.param(
            {"serviceAccountName": "foo", "serviceAccount": "foo"},
            {"serviceAccountName": "foo", "serviceAccount": "foo"},
            id="TestPodSpecConversion: Both: same",
        ),
        pytest.param(
            {"serviceAccountName": "foo", "serviceAccount": "bar"},
            {"serviceAccountName": "foo", "serviceAccount": "foo"},
            id="TestPodSpecConversion: Both: different (ServiceAccountName wins)",
        ),
    ],
)
def test_pod_spec_service_account_alias(spec: JsonDict, expected: JsonDict) -> None:
    obj: JsonDict = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": dict(spec)}
    round_trip(obj, "", "Pod")
    assert obj["spec"] == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # Test_v1_NodeSpec_to_core_NodeSpec, asymmetricInputs
        pytest.param(
            {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.1.0/24", "ace:cab:deca::/8"]},
            {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: mismatched podCIDR",
        ),
        pytest.param(
            {"podCIDRs": ["10.0.1.0/24", "ace:cab:deca::/8"]},
            {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24", "ace:cab:deca::/8"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: unset podCIDR",
        ),
        pytest.param(
            {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24", "ace:cab:deca::/8"]},
            {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24", "ace:cab:deca::/8"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: matching podCIDR",
        ),
        # Test_v1_NodeSpec_to_core_NodeSpec, testInputs
        pytest.param(
            {"podCIDR": "10.0.1.0/24"},
            {"podCIDR": "10.0.1.0/24", "podCIDRs": ["10.0.1.0/24"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: cidr only - 4",
        ),
        pytest.param(
            {"podCIDR": "ace:cab:deca::/8"},
            {"podCIDR": "ace:cab:deca::/8", "podCIDRs": ["ace:cab:deca::/8"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: cidr only - 6",
        ),
        pytest.param(
            {"podCIDR": "ace:cab:deca::/8", "podCIDRs": ["ace:cab:deca::/8", "10.0.1.0/24"]},
            {"podCIDR": "ace:cab:deca::/8", "podCIDRs": ["ace:cab:deca::/8", "10.0.1.0/24"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: Both are provided 6,4",
        ),
        pytest.param(
            {"podCIDRs": ["ace:cab:deca::/8", "10.0.1.0/24"]},
            {"podCIDR": "ace:cab:deca::/8", "podCIDRs": ["ace:cab:deca::/8", "10.0.1.0/24"]},
            id="Test_v1_NodeSpec_to_core_NodeSpec: list only 6,4",
        ),
        pytest.param({}, {}, id="Test_v1_NodeSpec_to_core_NodeSpec: no cidr and no cidrs"),
        # Test_core_NodeSpec_to_v1_NodeSpec: PodCIDR is PodCIDRs[0]
        pytest.param(
            {"podCIDRs": ["10.0.0.0/24", "10.0.1.0/24"]},
            {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24", "10.0.1.0/24"]},
            id="Test_core_NodeSpec_to_v1_NodeSpec: two v4 cidrs",
        ),
        pytest.param(
            {"podCIDRs": ["10.0.0.0/24", "ace:cab:deca::/8"]},
            {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24", "ace:cab:deca::/8"]},
            id="Test_core_NodeSpec_to_v1_NodeSpec: 4,6",
        ),
    ],
)
def test_node_spec_pod_cidrs(spec: JsonDict, expected: JsonDict) -> None:
    obj: JsonDict = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "spec": copy.deepcopy(spec),
    }
    round_trip(obj, "", "Node")
    assert obj["spec"] == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        # Test_v1_PodStatus_to_core_PodStatus, asymmetricInputs
        pytest.param(
            {"podIP": "1.1.2.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            {"podIP": "1.1.2.1", "podIPs": [{"ip": "1.1.2.1"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: mismatched podIP",
        ),
        pytest.param(
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: matching podIP",
        ),
        pytest.param(
            {"podIP": "", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: empty podIP",
        ),
        # Test_v1_PodStatus_to_core_PodStatus, v1TestInputs
        pytest.param(
            {"podIP": "1.1.1.1"},
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: only Primary IP Provided",
        ),
        pytest.param({}, {}, id="Test_v1_PodStatus_to_core_PodStatus: both are not provided"),
        pytest.param(
            {"podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2.2.2.2"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: only list of IPs",
        ),
        pytest.param(
            {"podIP": "::1", "podIPs": [{"ip": "::1"}, {"ip": "1.1.1.1"}]},
            {"podIP": "::1", "podIPs": [{"ip": "::1"}, {"ip": "1.1.1.1"}]},
            id="Test_v1_PodStatus_to_core_PodStatus: v6 and v4",
        ),
        # Test_core_PodStatus_to_v1_PodStatus: PodIP is PodIPs[0]
        pytest.param(
            {"podIPs": [{"ip": "1.1.1.1"}, {"ip": "2000::"}]},
            {"podIP": "1.1.1.1", "podIPs": [{"ip": "1.1.1.1"}, {"ip": "2000::"}]},
            id="Test_core_PodStatus_to_v1_PodStatus: list of ips",
        ),
    ],
)
def test_pod_status_pod_ips(status: JsonDict, expected: JsonDict) -> None:
    obj: JsonDict = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "status": copy.deepcopy(status),
    }
    round_trip(obj, "", "Pod")
    assert obj["status"] == expected


# TestConvert_v1_Pod_To_core_Pod and TestConvert_core_Pod_To_v1_Pod: a negative grace period -> 1.
def test_pod_negative_termination_grace_period() -> None:
    obj = pod({"terminationGracePeriodSeconds": -1})
    round_trip(obj, "", "Pod")
    assert obj["spec"]["terminationGracePeriodSeconds"] == 1


def test_pod_template_keeps_negative_termination_grace_period() -> None:
    """conversion.go: the grace period is forced "just for Pod, not for PodSpec, because we don't want
    to change the behavior of the PodTemplate"."""
    template: JsonDict = {"spec": {"terminationGracePeriodSeconds": -1, "containers": []}}
    obj: JsonDict = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"template": template},
    }
    round_trip(obj, "apps", "Deployment")
    assert obj["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == -1


# Convert_v1_Secret_To_core_Secret (conversion.go; no Go test table): stringData is merged into
# data, each key overwriting, and does not exist internally.
@pytest.mark.parametrize(
    ("secret", "expected"),
    [
        pytest.param(
            {"stringData": {"a": "x"}},
            {"data": {"a": "eA=="}},
            id="Convert_v1_Secret_To_core_Secret: stringData only",
        ),
        pytest.param(
            {"data": {"a": "eQ==", "b": "eQ=="}, "stringData": {"a": "x"}},
            {"data": {"a": "eA==", "b": "eQ=="}},
            id="Convert_v1_Secret_To_core_Secret: StringData overwrites Data",
        ),
        pytest.param({"stringData": {}}, {}, id="Convert_v1_Secret_To_core_Secret: empty stringData"),
    ],
)
def test_secret_string_data(secret: JsonDict, expected: JsonDict) -> None:
    obj: JsonDict = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, **copy.deepcopy(secret)}
    round_trip(obj, "", "Secret")
    assert {k: v for k, v in obj.items() if k in ("data", "stringData")} == expected


# --- Beyond the tables: the plugins' source ----------------------------------------------------


def test_forbidden_names_unnamed_object_unknown() -> None:
    obj = pod({"containers": [{"name": "c"}], "priority": 1000})
    obj["metadata"] = {"namespace": NS}
    assert admit(obj).forbidden == forbidden(
        "pods",
        "Unknown",
        "the integer value of priority (1000) must not be provided in pod spec; priority admission "
        "controller computed 0 from the given PriorityClass name",
    )


def test_forbidden_names_object_by_generate_name() -> None:
    """errors.go extractResourceName: before the name is generated, the generateName."""
    obj = pod({"containers": [{"name": "c"}], "priority": 1000})
    obj["metadata"] = {"generateName": "web-", "namespace": NS}
    assert admit(obj).forbidden == forbidden(
        "pods",
        "web-",
        "the integer value of priority (1000) must not be provided in pod spec; priority admission "
        "controller computed 0 from the given PriorityClass name",
    )


def test_default_storage_class_for_null_class_name() -> None:
    claim: JsonDict = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "claim"},
        "spec": {"storageClassName": None},
    }
    admit(claim, resource=PVCS, namespace="ns", cluster=[SC_DEFAULT1])
    assert claim["spec"]["storageClassName"] == "default1"
