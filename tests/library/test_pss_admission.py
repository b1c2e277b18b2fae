"""What Pod Security Admission does around its checks, and the generated policies do the same:
workload templates, exemptions, significant updates, subresources, namespace labels.

PSA's behaviour is read from k8s.io/pod-security-admission v0.37.2 `admission/admission.go`
(`ValidatePod`, `ValidatePodController`, `isSignificantPodUpdate`, `exemptNamespace`,
`exemptUser`, `exemptRuntimeClass`, `DefaultPodSpecExtractor`) and `api/helpers.go`
(`PolicyToEvaluate`, whose own test table `TestPolicyToEvaluate` is translated below).
Every request goes through `prepare(...).admit`, what `vap-lsp run` does.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, UserInfo, prepare
from vap_lsp.library.pss import Options, exemptions_configmap, generate

TESTDATA = (
    Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "pod-security-admission" / "testdata"
)

GOOD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "good", "namespace": "apps"},
    "spec": {"containers": [{"name": "app", "image": "registry.example.com/app:1"}]},
}


def _pod(**spec: Any) -> dict[str, Any]:
    pod = copy.deepcopy(GOOD)
    pod["spec"].update(spec)
    return pod


PRIVILEGED = _pod(
    containers=[
        {"name": "app", "image": "registry.example.com/app:1", "securityContext": {"privileged": True}}
    ]
)
HOST_NETWORK = _pod(hostNetwork=True)


def _prepared(options: Options, *extra: dict[str, Any], params: bool = True) -> Any:
    """The generated objects (a given ConfigMap replaces the generated, empty, one; `params`
    False leaves the ConfigMap out) and `extra`."""
    replaced = not params or any(o["kind"] == "ConfigMap" for o in extra)
    generated = [o for o in generate(options).objects() if not (replaced and o["kind"] == "ConfigMap")]
    return prepare(PolicyInputs.from_objects([*generated, *extra]), kubernetes_version="1.37")


def _create(prepared: Any, obj: dict[str, Any], **kw: Any) -> AdmissionResult:
    namespace = obj["metadata"].get("namespace", "apps")
    result: AdmissionResult = prepared.admit(AdmissionRequestInput("CREATE", obj, namespace=namespace, **kw))
    return result


# --- workloads -----------------------------------------------------------------------------------


def _wrapped(kind: str, pod: dict[str, Any]) -> dict[str, Any]:
    """`pod` as the template of a workload (`DefaultPodSpecExtractor.ExtractPodSpec`)."""
    template = {"metadata": {"labels": {"app": "x"}}, "spec": copy.deepcopy(pod["spec"])}
    selector = {"matchLabels": {"app": "x"}}
    meta = {"name": "w", "namespace": pod["metadata"].get("namespace", "apps")}
    if kind == "CronJob":
        job = {"template": {**template, "spec": {**template["spec"], "restartPolicy": "Never"}}}
        return {
            "apiVersion": "batch/v1",
            "kind": kind,
            "metadata": meta,
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": job}},
        }
    if kind == "Job":
        spec = {"template": {**template, "spec": {**template["spec"], "restartPolicy": "Never"}}}
        return {"apiVersion": "batch/v1", "kind": kind, "metadata": meta, "spec": spec}
    if kind == "PodTemplate":
        return {"apiVersion": "v1", "kind": kind, "metadata": meta, "template": template}
    if kind == "ReplicationController":
        return {
            "apiVersion": "v1",
            "kind": kind,
            "metadata": meta,
            "spec": {"selector": {"app": "x"}, "template": template},
        }
    spec: dict[str, Any] = {"selector": selector, "template": template}
    if kind == "StatefulSet":
        spec["serviceName"] = "w"
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec}


WORKLOADS = [
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "ReplicationController",
    "PodTemplate",
]


@pytest.fixture(scope="module")
def warn_library() -> Any:
    return _prepared(Options(level="baseline"))


@pytest.mark.parametrize("kind", WORKLOADS)
def test_workload_templates_are_warned_as_psa_warns(warn_library: Any, kind: str) -> None:
    """ValidatePodController: the template is evaluated, never enforced (warnings only)."""
    bad = _create(warn_library, _wrapped(kind, PRIVILEGED))
    assert bad.allowed
    assert len(bad.warnings) == 1
    assert 'privileged (container "app" must not set securityContext.privileged=true)' in bad.warnings[0]
    good = _create(warn_library, _wrapped(kind, GOOD))
    assert good.allowed and good.warnings == []


def test_workloads_deny_and_off() -> None:
    deny = _prepared(Options(level="baseline", workloads="deny"))
    result = _create(deny, _wrapped("Deployment", HOST_NETWORK))
    assert not result.allowed
    assert result.denials[0].detail == "host namespaces (hostNetwork=true)"
    off = _prepared(Options(level="baseline", workloads="off"))
    assert _create(off, _wrapped("Deployment", HOST_NETWORK)).warnings == []


def test_a_controller_without_template_never_reaches_the_library(warn_library: Any) -> None:
    """PSA skips a controller without a pod template (`podMetadata == nil && podSpec == nil`); on a
    cluster a ReplicationController without one is refused before validating admission
    (`ValidatePodTemplateSpecForRC`: `spec.template: Required value`), so the library is never
    asked, and warns of nothing."""
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "r", "namespace": "apps"}}
    result = _create(warn_library, rc)
    assert not result.allowed and result.warnings == []
    assert "rejected by the built-in validation before validating admission" in result.notes
    assert [e for e in result.evaluations if e.expressions] == []  # no policy expression ran


# --- exemptions ----------------------------------------------------------------------------------


def _exemptions(**values: list[str] | str) -> dict[str, Any]:
    cm = exemptions_configmap()
    for key, value in values.items():
        cm["data"][key] = value if isinstance(value, str) else "\n".join(value)
    return cm


@pytest.fixture(scope="module")
def exempting() -> Any:
    return _prepared(
        Options(level="baseline", exemptions=True),
        _exemptions(
            namespaces="kube-system, monitoring",
            usernames=["system:serviceaccount:ci:deployer"],
            runtimeClassNames="  gvisor  \n",
            images=["registry.example.com/tools/debug", "registry.example.com/app:2"],
        ),
    )


def test_exempt_namespaces_users_and_runtime_classes(exempting: Any) -> None:
    """exemptNamespace, exemptUser, exemptRuntimeClass: listed names skip the evaluation
    (comma- or newline-separated, blanks trimmed); an empty name is never exempt."""
    assert not _create(exempting, PRIVILEGED).allowed
    in_monitoring = copy.deepcopy(PRIVILEGED)
    in_monitoring["metadata"]["namespace"] = "monitoring"
    assert _create(exempting, in_monitoring).allowed
    deployer = UserInfo(username="system:serviceaccount:ci:deployer")
    assert _create(exempting, PRIVILEGED, user=deployer).allowed
    assert not _create(exempting, PRIVILEGED, user=UserInfo(username="alice")).allowed
    gvisor = copy.deepcopy(PRIVILEGED)
    gvisor["spec"]["runtimeClassName"] = "gvisor"
    assert _create(exempting, gvisor).allowed
    gvisor["spec"]["runtimeClassName"] = "kata"
    assert not _create(exempting, gvisor).allowed
    # workloads too (ValidatePodController: the same namespace and user exemptions)
    assert _create(exempting, _wrapped("Deployment", in_monitoring)).warnings == []
    assert _create(exempting, _wrapped("Deployment", PRIVILEGED)).warnings != []


def test_exempt_images_exempt_their_containers_only(exempting: Any) -> None:
    """Per container (PSA cannot): an image listed exactly, or its repository (any tag or
    digest); the pod's own fields are still checked."""
    debug = {
        "name": "debug",
        "image": "registry.example.com/tools/debug:1.4@sha256:" + "a" * 64,
        "securityContext": {"privileged": True},
    }
    assert _create(exempting, _pod(containers=[debug])).allowed
    app2 = {"name": "app", "image": "registry.example.com/app:2", "securityContext": {"privileged": True}}
    assert _create(exempting, _pod(containers=[app2])).allowed
    app3 = {**app2, "image": "registry.example.com/app:3"}
    result = _create(exempting, _pod(containers=[debug, app3]))
    assert not result.allowed
    assert (
        result.denials[0].detail
        == 'privileged (container "app" must not set securityContext.privileged=true)'
    )
    assert not _create(exempting, _pod(containers=[debug], hostNetwork=True)).allowed
    other = {**debug, "image": "registry.example.com/tools/debugger:1"}
    assert not _create(exempting, _pod(containers=[other])).allowed


def test_without_the_exemptions_configmap_pods_are_denied() -> None:
    """parameterNotFoundAction: Deny — a missing ConfigMap fails closed, not open."""
    prepared = _prepared(Options(level="baseline", exemptions=True, workloads="off"), params=False)
    result = _create(prepared, GOOD)
    assert not result.allowed
    assert result.denials[0].detail == (
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
    )


# --- updates and subresources --------------------------------------------------------------------


@pytest.fixture(scope="module")
def restricted() -> Any:
    return _prepared(Options(level="restricted", workloads="off"))


def _update(
    prepared: Any, old: dict[str, Any], new: dict[str, Any], sub_resource: str = ""
) -> AdmissionResult:
    result: AdmissionResult = prepared.admit(
        AdmissionRequestInput("UPDATE", new, old_object=old, namespace="apps", sub_resource=sub_resource)
    )
    return result


def test_only_significant_pod_updates_are_evaluated(restricted: Any) -> None:
    """isSignificantPodUpdate: an update that changes no container's image (nor adds one) is
    admitted whatever the pod (labels, annotations, a finalizer removed...)."""
    old = copy.deepcopy(PRIVILEGED)
    relabelled = copy.deepcopy(PRIVILEGED)
    relabelled["metadata"]["labels"] = {"tier": "web"}
    assert _update(restricted, old, relabelled).allowed
    new_image = copy.deepcopy(PRIVILEGED)
    new_image["spec"]["containers"][0]["image"] = "registry.example.com/app:2"
    assert not _update(restricted, old, new_image).allowed


def test_ephemeral_containers_subresource_is_evaluated(restricted: Any) -> None:
    """`pods/ephemeralcontainers` is not an ignored subresource: adding a debug container is a
    significant update, its securityContext checked."""
    base = yaml.safe_load(
        (TESTDATA / "restricted" / "v1.37" / "pass" / "base.yaml").read_text(encoding="utf-8")
    )
    base["metadata"]["namespace"] = "apps"
    debug = copy.deepcopy(base)
    debug["spec"]["ephemeralContainers"] = [
        {"name": "debug", "image": "busybox", "targetContainerName": "container1"}
    ]
    result = _update(restricted, base, debug, sub_resource="ephemeralcontainers")
    assert not result.allowed
    assert 'allowPrivilegeEscalation != false (container "debug"' in result.denials[0].detail
    assert _update(restricted, debug, debug, sub_resource="ephemeralcontainers").allowed


# --- namespace labels: api/helpers_test.go TestPolicyToEvaluate ----------------------------------

LATEST = 37
PRIVILEGED_LV = (0, LATEST)
# (description, labels, enforce (level, minor), warn (level, minor)); levels 0 privileged,
# 1 baseline, 2 restricted; defaults privileged/latest. "other-label" is in every case's labels.
POLICY_TO_EVALUATE = [
    ("simple enforce", {"enforce": "baseline"}, (1, LATEST), (1, LATEST)),
    ("simple warn", {"warn": "restricted"}, PRIVILEGED_LV, (2, LATEST)),
    ("simple audit", {"audit": "baseline"}, PRIVILEGED_LV, PRIVILEGED_LV),
    ("enforce & warn", {"enforce": "baseline", "warn": "restricted"}, (1, LATEST), (2, LATEST)),
    ("enforce version", {"enforce": "baseline", "enforce-version": "v1.22"}, (1, 22), (1, 22)),
    (
        "enforce version & warn-version",
        {"enforce": "baseline", "enforce-version": "v1.22", "warn-version": "latest"},
        (1, 22),
        (1, LATEST),
    ),
    ("enforce & warn-version", {"enforce": "baseline", "warn-version": "v1.23"}, (1, LATEST), (1, 23)),
    (
        "fully specd",
        {
            "enforce": "baseline",
            "enforce-version": "v1.20",
            "warn": "restricted",
            "warn-version": "v1.21",
            "audit": "restricted",
            "audit-version": "v1.22",
        },
        (1, 20),
        (2, 21),
    ),
    ("enforce no warn", {"enforce": "baseline", "warn": "privileged"}, (1, LATEST), PRIVILEGED_LV),
    ("enforce warn error", {"enforce": "baseline", "warn": "foo"}, (1, LATEST), PRIVILEGED_LV),
    ("enforce error", {"enforce": "foo"}, (2, LATEST), PRIVILEGED_LV),
    # ParseVersion: not `latest` nor `v1.x` → latest; a version past the newest known → the newest
    ("enforce version error", {"enforce": "baseline", "enforce-version": "1.22"}, (1, LATEST), (1, LATEST)),
    (
        "enforce version too new",
        {"enforce": "restricted", "enforce-version": "v1.99"},
        (2, LATEST),
        (2, LATEST),
    ),
    ("no labels", {}, PRIVILEGED_LV, PRIVILEGED_LV),
]


@pytest.fixture(scope="module")
def labelled() -> tuple[Any, list[dict[str, Any]]]:
    namespaces = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": f"case-{i}",
                "labels": {
                    "other-label": "foo-bar",
                    **{f"pod-security.kubernetes.io/{k}": v for k, v in labels.items()},
                },
            },
        }
        for i, (_, labels, _, _) in enumerate(POLICY_TO_EVALUATE)
    ]
    return _prepared(Options(namespace_labels=True), *namespaces), namespaces


def _level_version(result: AdmissionResult, policy: str) -> tuple[int, int]:
    evaluation = next(e for e in result.evaluations if e.policy == policy and e.matched)
    assert evaluation.variables is not None
    level, version = evaluation.variables["level"], evaluation.variables["version"]
    return (int(level), int(version) if level else LATEST)


@pytest.mark.parametrize(
    ("index", "case"), list(enumerate(POLICY_TO_EVALUATE)), ids=[c[0] for c in POLICY_TO_EVALUATE]
)
def test_policy_to_evaluate(
    labelled: tuple[Any, list[dict[str, Any]]], index: int, case: tuple[Any, ...]
) -> None:
    """Pods get the enforce level and version, workloads (Warn) the warn ones."""
    prepared, _ = labelled
    _, _, enforce, warn = case
    pod = copy.deepcopy(GOOD)
    pod["metadata"]["namespace"] = f"case-{index}"
    result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace=f"case-{index}"), explain=True)
    assert _level_version(result, "pss-namespace-labels") == enforce
    deployment = _wrapped("Deployment", pod)
    deployment["metadata"]["namespace"] = f"case-{index}"
    result = prepared.admit(
        AdmissionRequestInput("CREATE", deployment, namespace=f"case-{index}"), explain=True
    )
    assert _level_version(result, "pss-namespace-labels-workloads") == warn


def test_unlabelled_namespaces_get_the_given_default() -> None:
    """`--level`/`--version` with --namespace-labels: the AdmissionConfiguration defaults."""
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "apps"}}
    prepared = _prepared(Options(namespace_labels=True, level="baseline", workloads="off"), ns)
    result = _create(prepared, HOST_NETWORK)
    assert not result.allowed
    assert result.denials[0].detail == "host namespaces (hostNetwork=true)"
    assert _create(prepared, GOOD).allowed
