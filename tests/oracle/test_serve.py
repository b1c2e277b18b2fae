"""`vap-oracle serve`: kube-apiserver (cmd/kube-apiserver/app) over an embedded etcd on
127.0.0.1, for what only a server shows. The server comes from the one fixture that starts it
(`tests/kube_apiserver.py`: skipped, saying why, when `serve` is not built)."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request

import pytest
import yaml


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
