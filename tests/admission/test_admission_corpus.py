"""Real-world policies of ../shared/corpus that ship sample objects, with the outcome the API
server gives (as far as reading the policies and the server's code tells)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit
from vap_lsp.admission.load import load_policy_inputs

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS}")

KOLTEQ = CORPUS / "kolteq__validating-admission-policies-pss" / "policies"
MAP = CORPUS / "MariamFahmy98__mutating-admission-policies"

ENFORCED_NS = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "policy-test", "labels": {"pss.security.kolteq.com/enforce": "restricted"}},
}


def _load(*paths: Path) -> list[Any]:
    docs: list[Any] = []
    for p in paths:
        docs.extend(d for d in yaml.safe_load_all(p.read_text()) if d)
    return docs


def _kolteq_dirs(ephemeral: bool) -> list[Path]:
    if not KOLTEQ.is_dir():
        return []
    dirs = sorted(p.parent for p in KOLTEQ.rglob("policy.yaml") if (p.parent / "test.yaml").is_file())
    return [d for d in dirs if (d.name == "ephemeralcontainers") is ephemeral]


def _kolteq(d: Path, request: AdmissionRequestInput, ns: dict[str, Any]) -> AdmissionResult:
    inputs = PolicyInputs.from_objects([*_load(d / "policy.yaml", d / "binding.yaml"), ns])
    return admit(request, inputs, kubernetes_version="1.34")


@pytest.mark.parametrize("d", _kolteq_dirs(False), ids=lambda d: str(d.relative_to(KOLTEQ)))
def test_kolteq_pss_test_pods_are_denied_in_enforced_namespaces(d: Path) -> None:
    pod = _load(d / "test.yaml")[0]
    result = _kolteq(d, AdmissionRequestInput("CREATE", pod), ENFORCED_NS)
    assert not result.allowed
    assert {x.binding.rsplit("-", 1)[1] for x in result.denials} == {"deny"}
    assert all(x.code == 422 and x.reason == "Invalid" for x in result.denials)
    assert result.warnings == []
    # without the namespace labels no binding applies
    plain = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "policy-test"}}
    assert _kolteq(d, AdmissionRequestInput("CREATE", pod), plain).allowed


@pytest.mark.parametrize("d", _kolteq_dirs(True), ids=lambda d: str(d.relative_to(KOLTEQ)))
def test_kolteq_ephemeral_containers_via_kubectl_debug(d: Path) -> None:
    pod = _load(d / "test.yaml")[0]
    # the policy matches pods/ephemeralcontainers only: creating the pod is fine
    assert _kolteq(d, AdmissionRequestInput("CREATE", pod), ENFORCED_NS).allowed
    custom = _load(d / "test-kubectl-debug-custom.yaml")[0]
    debug = {"name": "debugger", "image": "busybox:1.36", **custom}
    updated = {**pod, "spec": {**pod["spec"], "ephemeralContainers": [debug]}}
    request = AdmissionRequestInput("UPDATE", updated, pod, sub_resource="ephemeralcontainers")
    result = _kolteq(d, request, ENFORCED_NS)
    assert not result.allowed
    assert {x.binding.rsplit("-", 1)[1] for x in result.denials} == {"deny"}


def test_kolteq_warn_binding() -> None:
    d = KOLTEQ / "run-as-nonroot"
    pod = _load(d / "test.yaml")[0]
    ns = {
        **ENFORCED_NS,
        "metadata": {"name": "policy-test", "labels": {"pss.security.kolteq.com/warn": "restricted"}},
    }
    result = _kolteq(d, AdmissionRequestInput("CREATE", pod), ns)
    assert result.allowed
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(
        "Validation failed for ValidatingAdmissionPolicy 'check-run-as-nonroot-pod' with binding "
        "'check-run-as-nonroot-pod-namespace-optout-warn': "
    )


MAP_EXPECTED: dict[str, dict[str, Any]] = {
    "add-if-not-present-1": {"metadata": {"labels": {"app": "game", "lfx-mentorship": "kyverno"}}},
    "add-if-not-present-2": {
        "spec": {
            "securityContext": {"fsGroup": 1000, "runAsGroup": 3000, "runAsNonRoot": False, "runAsUser": 1000}
        }
    },
    "global-and-add-anchor": {
        "metadata": {"annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}}
    },
}


def _subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(_subset(v, actual.get(k)) for k, v in expected.items())
    return bool(expected == actual)


def _map_case(name: str) -> AdmissionResult:
    d = MAP / name
    sample = next(p for p in sorted(d.glob("*.yaml")) if p.name != "mutating-admission-policy.yaml")
    inputs = load_policy_inputs([str(d / "mutating-admission-policy.yaml")])
    return admit(AdmissionRequestInput("CREATE", _load(sample)[0]), inputs, kubernetes_version="1.34")


@pytest.mark.parametrize("name", sorted(MAP_EXPECTED))
def test_mariamfahmy98_apply_configuration_samples(name: str) -> None:
    result = _map_case(name)
    assert result.allowed
    assert result.patched is not None
    assert _subset(MAP_EXPECTED[name], result.patched)


def test_mariamfahmy98_json_patch_samples() -> None:
    pod = _map_case("foreach-json-patch").patched
    assert pod is not None
    assert all(c["securityContext"]["runAsNonRoot"] is True for c in pod["spec"]["containers"])
    pod = _map_case("foreach-with-conditional-anchor").patched
    assert pod is not None
    assert pod["spec"]["containers"][0]["securityContext"] == {"allowPrivilegeEscalation": False}
    ingress = _map_case("nested-foreach").patched
    assert ingress is not None
    assert ingress["spec"]["tls"][0]["hosts"] == ["foo.new.com", "bar.new.com"]
    slice_ = _map_case("conditional-anchor").patched
    assert slice_ is not None
    # discovery/v1 SetDefaults_EndpointPort: protocol TCP, also on the added port
    assert slice_["ports"] == [
        {"name": "http", "port": 80, "protocol": "TCP"},
        {"name": "secure-1", "port": 6443, "protocol": "TCP"},
    ]


def test_mariamfahmy98_global_anchor_replace_of_absent_field_adds_it() -> None:
    """`replace` of /spec/imagePullSecrets on a pod without it: Kubernetes' JSON Patch library
    (evanphx/json-patch v4, `partialDoc.get` of a missing key is no error) sets the field, as the
    policy author expects. The oracle (issue 34) answers the same for this file."""
    result = _map_case("global-anchor")
    assert result.allowed
    assert result.patched is not None
    assert result.patched["spec"]["imagePullSecrets"] == [{"name": "new-secret"}]


DOUGLAS = CORPUS / "douglasmakey__k8s-validating-admission-policy"


def _douglas(policy: str, sample: str) -> AdmissionResult:
    docs = _load(DOUGLAS / policy, DOUGLAS / "production-ns.yaml")
    for doc in docs:
        # written for 1.26 (v1alpha1 bindings without validationActions denied)
        if doc["kind"].endswith("Binding"):
            doc["spec"].setdefault("validationActions", ["Deny"])
    obj = _load(DOUGLAS / sample)[0]
    return admit(
        AdmissionRequestInput("CREATE", obj), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )


def test_douglasmakey_samples() -> None:
    ha = _douglas("force-ha-policy.yaml", "payment-deployment.yaml")
    assert [d.detail for d in ha.denials] == [
        "All production deployments should be HA with at least three replicas"
    ]
    assert _douglas("force-ha-policy.yaml", "wrong-env.yaml").allowed
    latest = _douglas("latest-policy.yaml", "wrong-image.yaml")
    assert [d.detail for d in latest.denials] == ["cannot use the latest tag"]
    # the binding names "prod-reay-policy": nothing binds prod-ready-policy
    prod = _douglas("prod-ready-policy.yaml", "wrong-image.yaml")
    assert prod.allowed
    assert prod.evaluations[0].why_not == "no binding references this policy"


GARETH = CORPUS / "garethahealy__validating-admission-policy-playground" / "samples"


@pytest.mark.parametrize(
    ("sample", "allowed"),
    [("deployment-fail.yaml", False), ("deployment.yaml", True), ("deployment-no-label.yaml", True)],
)
def test_garethahealy_samples(sample: str, allowed: bool) -> None:
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"vap": "true"}}}
    docs = [
        *_load(GARETH / "ValidatingAdmissionPolicy.yaml", GARETH / "ValidatingAdmissionPolicyBinding.yaml"),
        ns,
    ]
    result = admit(
        AdmissionRequestInput("CREATE", _load(GARETH / sample)[0]),
        PolicyInputs.from_objects(docs),
        kubernetes_version="1.34",
    )
    assert result.allowed is allowed
    if not allowed:
        assert [d.detail for d in result.denials] == [
            "The 'sidecar.istio.io/inject' label, must be 'false' for Deployments"
        ]


GNUNN1 = CORPUS / "gnunn1__validating-admission-policies" / "configuration"


def test_gnunn1_argocd_default_project_is_forbidden() -> None:
    docs = _load(
        GNUNN1 / "argocd" / "disallow-default-project-policy.yaml",
        GNUNN1 / "argocd" / "tests" / "bindings" / "disallow-default-project-binding.yaml",
    )
    app = _load(GNUNN1 / "argocd" / "tests" / "examples" / "app-with-default-project.yaml")[0]
    result = admit(
        AdmissionRequestInput("CREATE", app), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert [(d.detail, d.reason, d.code) for d in result.denials] == [
        ("Applications are not permitted to use the default Argo CD project", "Forbidden", 403)
    ]
    assert "validation.policy.admission.k8s.io/validation_failure" in result.audit_annotations


def test_gnunn1_probes_policy_has_a_syntax_error() -> None:
    """`object,spec…` does not parse: at runtime each validation is a compilation error, and
    failurePolicy Fail denies."""
    docs = _load(
        GNUNN1 / "deployments" / "probes-must-be-defined.yaml",
        GNUNN1 / "argocd" / "tests" / "bindings" / "disallow-default-project-binding.yaml",
    )
    deploy = _load(GNUNN1 / "deployments" / "tests" / "examples" / "deployment-no-probes.yaml")[0]
    result = admit(
        AdmissionRequestInput("CREATE", deploy), PolicyInputs.from_objects(docs), kubernetes_version="1.34"
    )
    assert len(result.denials) == 2
    assert all(
        d.detail.startswith("compilation error: compilation failed: ERROR: <input>:1:7:")
        for d in result.denials
    )
