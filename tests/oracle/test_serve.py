"""`vap-oracle serve`: kube-apiserver (cmd/kube-apiserver/app) over an embedded etcd on
127.0.0.1, for what only a server shows. The server comes from the one fixture that starts it
(`tests/kube_apiserver.py`: skipped, saying why, when `serve` is not built)."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from typing import Any

import pytest
import yaml
from pod_create_cases import AFFINITY, GATED, KEY, apparmor_pod, evaluated


@pytest.fixture(scope="module")
def server(kubeconfig: str) -> tuple[str, str]:
    with open(kubeconfig, encoding="utf-8") as file:
        config = yaml.safe_load(file)
    return config["clusters"][0]["cluster"]["server"], config["users"][0]["user"]["token"]


def _post(server: tuple[str, str], path: str, body: object) -> dict[str, object]:
    url, token = server
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(request, context=context) as response:
            answer: dict[str, object] = json.loads(response.read())
    except urllib.error.HTTPError as error:
        answer = json.loads(error.read())
    return answer


def test_a_dry_run_create_answers_as_the_check_mode(server: tuple[str, str]) -> None:
    """A policy with an unknown field: the server's strict decoding error (fieldValidation
    Strict, kubectl's default), in the words `vap-oracle check` and vap-lsp report."""
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["deployments"],
                    }
                ]
            },
            "validations": [{"expression": "true", "foo": "bar"}],
        },
    }
    path = (
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies?dryRun=All&fieldValidation=Strict"
    )
    answer = _post(server, path, policy)
    assert (answer["code"], answer["reason"]) == (400, "BadRequest")
    assert 'strict decoding error: unknown field "spec.validations[0].foo"' in str(answer["message"])


def test_the_served_version(server: tuple[str, str]) -> None:
    url, token = server
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url + "/version", headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, context=context) as response:
        assert json.loads(response.read())["minor"] == "37"


# --- a Pod's PrepareForCreate, as the server stores it ---------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["gated", "affinity", "apparmor", "apparmor-padded", "apparmor-pod-profile"],
)
def test_a_created_pod_is_prepared_as_vap_lsp_prepares_it(server: tuple[str, str], name: str) -> None:
    """tests/defaulting/test_pod_prepare_for_create.py's pods, created (dry run) on the real
    server: the stored pod's status, affinity, spread constraints and containers are what
    vap-lsp's validating admission sees (what runs after it, the server's own timestamps aside)."""
    pods: dict[str, Any] = {
        "gated": yaml.safe_load(GATED),
        "affinity": yaml.safe_load(AFFINITY),
        "apparmor": apparmor_pod({KEY + "c": "localhost/k8s-nginx", KEY + "i": "runtime/default"}),
        "apparmor-padded": apparmor_pod({KEY + "c": "localhost/ x ", KEY + "i": "unconfined"}),
        "apparmor-pod-profile": apparmor_pod({KEY + "c": "runtime/default"}, pod_profile="RuntimeDefault"),
    }
    pod = pods[name]
    pod["metadata"]["name"] = f"prepared-{name}"
    stored = _post(server, "/api/v1/namespaces/default/pods?dryRun=All", pod)
    assert stored.get("kind") == "Pod", stored
    ours = evaluated(yaml.safe_dump(pod), "1.37")
    for side in (stored, ours):
        for condition in side["status"].get("conditions", []):
            condition.pop("lastTransitionTime")
    assert ours["status"] == stored["status"]
    for field in ("affinity", "topologySpreadConstraints"):
        assert ours["spec"].get(field) == stored["spec"].get(field), field
    for group in ("containers", "initContainers"):  # (volume mounts: the admission plugins')
        contexts = [
            [c.get("securityContext") for c in side["spec"].get(group, [])] for side in (ours, stored)
        ]
        assert contexts[0] == contexts[1], group
