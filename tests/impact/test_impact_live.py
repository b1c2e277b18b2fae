"""`vap-lsp impact --cluster` against a real kube-apiserver (tests/kube_apiserver.py): the
objects read from the API equal the same objects exported as a `kubectl get -o yaml` List and
given with `--objects`; lists are paged at one resourceVersion per kind and cover only what the
policies can match; `--installed` compares with the policies installed in the cluster; a
denial by RBAC and an unreachable server are bad input (exit 2), with the server's words. The
ClusterRole the README shows is the one that suffices."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.impact.conftest import impact_cli

kubernetes = pytest.importorskip("kubernetes", reason="the kubernetes client is in vap-lsp[scale]")

ROOT = Path(__file__).resolve().parents[2]

NAMESPACES = {"shop": {"enforce": "true"}, "batch": {}}
"""Labelled with this run too (`run`)."""
POLICIES = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' replicas, not ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: limits, namespace: CONFIG, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {enforce: "true", run: RUN}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["*"], operations: ["*"], resources: ["deployments"]}
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "object.metadata.name + ' has no team label'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label}
spec: {policyName: team-label, validationActions: [Warn]}
"""


RUN = uuid.uuid4().hex[:6]
"""Namespaces of this run: a server without a namespace controller never finishes deleting one."""


def _ns(name: str) -> str:
    return f"impact-{RUN}-{name}"


@pytest.fixture(scope="module")
def api(kubeconfig: str) -> Iterator[Any]:
    """An admin client of the server, seeded: two labelled namespaces with Deployments, the
    ConfigMap the policy takes as params (removed again afterwards)."""
    client = kubernetes.config.new_client_from_config(config_file=kubeconfig)
    core = kubernetes.client.CoreV1Api(client)
    apps = kubernetes.client.AppsV1Api(client)
    created = []
    for name, labels in {**NAMESPACES, "config": {}}.items():
        core.create_namespace({"metadata": {"name": _ns(name), "labels": {**labels, "run": RUN}}})
        created.append(_ns(name))
    core.create_namespaced_config_map(_ns("config"), {"metadata": {"name": "limits"}, "data": {"max": "3"}})
    for i in range(9):
        ns = _ns("shop" if i % 2 else "batch")
        labels = {"app": f"d{i}"} | ({"team": "t"} if i % 3 else {})
        apps.create_namespaced_deployment(
            ns,
            {
                "metadata": {"name": f"d{i}", "labels": labels},
                "spec": {
                    "replicas": i,
                    "selector": {"matchLabels": {"app": f"d{i}"}},
                    "template": {
                        "metadata": {"labels": {"app": f"d{i}"}},
                        "spec": {"containers": [{"name": "c", "image": "registry.example/app:1"}]},
                    },
                },
            },
        )
    yield client
    for i in range(9):
        apps.delete_namespaced_deployment(f"d{i}", _ns("shop" if i % 2 else "batch"))
    core.delete_namespaced_config_map("limits", _ns("config"))
    for name in created:
        core.delete_namespace(name)
    client.close()


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any] | None, str]:
    capsys.readouterr()
    code = impact_cli([*argv, "--format", "json", "--jobs", "1"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out else None), out.err


def _export(kubeconfig: str, api: Any, path: Path) -> None:
    """`kubectl get namespaces,deployments,configmaps -A -o yaml` (the client's own lists, shaped
    the same, where kubectl is not installed)."""
    if shutil.which("kubectl"):
        done = subprocess.run(
            [
                "kubectl",
                "--kubeconfig",
                kubeconfig,
                "get",
                "namespaces,deployments,configmaps",
                "-A",
                "-o",
                "yaml",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        path.write_text(done.stdout)
        return
    core, apps = kubernetes.client.CoreV1Api(api), kubernetes.client.AppsV1Api(api)
    items = []
    for api_version, kind, answer in (
        ("v1", "Namespace", core.list_namespace(_preload_content=False)),
        ("apps/v1", "Deployment", apps.list_deployment_for_all_namespaces(_preload_content=False)),
        ("v1", "ConfigMap", core.list_config_map_for_all_namespaces(_preload_content=False)),
    ):
        for item in json.loads(answer.data)["items"]:
            items.append({"apiVersion": api_version, "kind": kind, **item})
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))


def _policies(tmp_path: Path) -> str:
    (tmp_path / "policies.yaml").write_text(_policy_text())
    return str(tmp_path / "policies.yaml")


def _policy_text() -> str:
    return POLICIES.replace("CONFIG", _ns("config")).replace("run: RUN", f"run: {RUN!r}")


def _mine(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of this run's namespaces (a server used before may hold others)."""
    return [r for r in rows if r.get("namespace", "").startswith(f"impact-{RUN}-")]


def test_the_cluster_read_equals_its_export_given_as_objects(
    kubeconfig: str,
    api: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pages of 2 objects: every kind is read in several pages, each at its first page's
    resourceVersion."""
    from vap_lsp.impact import live

    monkeypatch.setattr(live, "PAGE", 2)
    policies = _policies(tmp_path)
    _export(kubeconfig, api, tmp_path / "snapshot.yaml")
    code_o, from_file, _ = _run([policies, "--objects", str(tmp_path / "snapshot.yaml")], capsys)
    code_c, from_cluster, err = _run([policies, "--cluster", "--kubeconfig", kubeconfig], capsys)
    assert from_cluster is not None, err
    assert from_file is not None
    cluster = from_cluster.pop("cluster")
    assert from_cluster == from_file
    assert code_c == code_o == 1
    # The verdicts themselves: params from the ConfigMap (max 3) in the enforced namespace only.
    replicas = next(b for b in from_file["bindings"] if b["policy"] == "max-replicas")
    assert sorted(o["name"] for o in _mine(replicas["objects"])) == ["d5", "d7"]
    # Namespaces and the params first (kept), then only what the rules match: Deployments.
    lists = {row["resource"]: row for row in cluster["lists"]}
    assert sorted(lists) == ["apps/v1 deployments", "v1 configmaps", "v1 namespaces"]
    assert lists["apps/v1 deployments"]["objects"] >= 9
    assert all(row["resourceVersion"].isdigit() for row in cluster["lists"])
    assert cluster["server"].startswith("https://")


def test_installed_policies_are_the_base_of_the_comparison(
    kubeconfig: str, api: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cluster has max-replicas in Warn (and no team-label); the policies given switch it to
    Deny and add team-label: `--installed` lists what the change newly denies. Without
    POLICY_PATH, the installed policies are the ones evaluated."""
    installed = [d for d in yaml.safe_load_all(_policy_text()) if d["metadata"]["name"] == "max-replicas"]
    installed[1]["spec"]["validationActions"] = ["Warn"]
    admission = kubernetes.client.AdmissionregistrationV1Api(api)
    admission.create_validating_admission_policy(installed[0])
    admission.create_validating_admission_policy_binding(installed[1])
    try:
        policies = _policies(tmp_path)
        code, report, err = _run([policies, "--cluster", "--kubeconfig", kubeconfig, "--installed"], capsys)
        assert report is not None, err
        newly = sorted((o["name"], o["policy"]) for o in _mine(report["changes"]["newlyDenied"]))
        assert newly == [("d5", "max-replicas"), ("d7", "max-replicas")]
        assert any("installed in the cluster" in n for n in report["notes"])
        assert any("staticManifestsDir" in n for n in report["notes"])
        assert code == 1
        code, report, err = _run(["--cluster", "--kubeconfig", kubeconfig, "--installed"], capsys)
        assert report is not None, err
        (binding,) = report["bindings"]
        assert (binding["policy"], binding["actions"]) == ("max-replicas", ["Warn"])
        assert sorted(o["name"] for o in _mine(binding["objects"])) == ["d5", "d7"]
        assert code == 0
    finally:
        admission.delete_validating_admission_policy_binding("max-replicas")
        admission.delete_validating_admission_policy("max-replicas")


def _readme_cluster_role() -> dict[str, Any]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### A live cluster") :]
    block = re.search(r"```yaml\n(kind: ClusterRole.*?)```", section, flags=re.DOTALL)
    assert block is not None, "the README shows the ClusterRole --cluster needs"
    role: dict[str, Any] = yaml.safe_load(block.group(1))
    return role


def _token_kubeconfig(kubeconfig: str, api: Any, tmp_path: Path, account: str) -> str:
    """A kubeconfig of the same server for a ServiceAccount (a token from the TokenRequest API)."""
    core = kubernetes.client.CoreV1Api(api)
    core.create_namespaced_service_account(_ns("config"), {"metadata": {"name": account}})
    token = core.create_namespaced_service_account_token(account, _ns("config"), {"spec": {}}).status.token
    config = yaml.safe_load(Path(kubeconfig).read_text())
    context = next(c for c in config["contexts"] if c["name"] == config["current-context"])
    context["context"]["user"] = account
    config["users"] = [{"name": account, "user": {"token": token}}]
    config["contexts"] = [context]
    path = tmp_path / f"{account}.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return str(path)


def test_a_denied_list_is_bad_input_and_the_readme_role_suffices(
    kubeconfig: str, api: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policies = _policies(tmp_path)
    reader = _token_kubeconfig(kubeconfig, api, tmp_path, "impact-reader")
    code, report, err = _run([policies, "--cluster", "--kubeconfig", reader], capsys)
    if code != 2 and report is not None:
        pytest.skip("this API server does not enforce RBAC (--authorization-mode without RBAC)")
    assert code == 2
    account = f"system:serviceaccount:{_ns('config')}:impact-reader"
    assert f'refused a read: namespaces is forbidden: User "{account}"' in err
    assert 'cannot list resource "namespaces"' in err
    rbac = kubernetes.client.RbacAuthorizationV1Api(api)
    role = _readme_cluster_role()
    rbac.create_cluster_role(role)
    binding = {
        "metadata": {"name": "impact-reader"},
        "roleRef": {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "ClusterRole",
            "name": role["metadata"]["name"],
        },
        "subjects": [{"kind": "ServiceAccount", "name": "impact-reader", "namespace": _ns("config")}],
    }
    rbac.create_cluster_role_binding(binding)
    try:
        code, report, err = _run([policies, "--cluster", "--kubeconfig", reader, "--installed"], capsys)
        assert report is not None, err
        assert code == 1
    finally:
        rbac.delete_cluster_role_binding("impact-reader")
        rbac.delete_cluster_role(role["metadata"]["name"])


def test_an_unreachable_server_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "gone", "cluster": {"server": "https://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}],
        "current-context": "gone",
    }
    (tmp_path / "kubeconfig").write_text(yaml.safe_dump(config))
    (tmp_path / "p.yaml").write_text(_policy_text())
    code, report, err = _run(
        [str(tmp_path / "p.yaml"), "--cluster", "--kubeconfig", str(tmp_path / "kubeconfig")], capsys
    )
    assert (code, report) == (2, None)
    assert "cannot reach the cluster at https://127.0.0.1:9:" in err
    assert "refused" in err.lower()


def test_a_missing_kubeconfig_or_context_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p.yaml").write_text(_policy_text())
    code, _, err = _run(
        [str(tmp_path / "p.yaml"), "--cluster", "--kubeconfig", str(tmp_path / "none")], capsys
    )
    assert code == 2 and str(tmp_path / "none") in err
    assert _run([str(tmp_path / "p.yaml"), "--objects", "x.yaml", "--context", "c"], capsys)[0] == 2
