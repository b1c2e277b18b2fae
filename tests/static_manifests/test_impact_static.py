# ruff: noqa: E501  (YAML kept as written, one line each)
"""`vap-lsp impact --static-manifests DIR`: the policies kube-apiserver loads at start-up count
too (no cluster snapshot holds them: the API does not show them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vap_lsp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: root, namespace: team-a}
  spec:
    containers:
    - {name: c, image: busybox, securityContext: {privileged: true}}
- apiVersion: v1
  kind: Pod
  metadata: {name: fine, namespace: team-a}
  spec:
    containers:
    - {name: c, image: busybox}
- apiVersion: v1
  kind: Namespace
  metadata: {name: team-a}
"""


def test_static_policies_are_evaluated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(SNAPSHOT, encoding="utf-8")
    folder = ROOT / "examples" / "static" / "validating"
    args = ["impact", "--static-manifests", str(folder), "--objects", str(snapshot), "--no-progress"]
    assert main([*args, "--format", "json"]) == 1
    bindings = {b["binding"]: b for b in json.loads(capsys.readouterr().out)["bindings"]}
    denied = bindings["deny-privileged-binding.static.k8s.io"]
    assert (denied["denied"], denied["admitted"]) == (1, 1)
    assert [o["name"] for o in denied["objects"]] == ["root"]


def test_a_typed_list_of_static_policies_counts_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Items of a `ValidatingAdmissionPolicyList` without apiVersion and kind are of its item kind."""
    folder = tmp_path / "static"
    folder.mkdir()
    (folder / "list.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyList\nitems:\n"
        "- metadata: {name: no-root.static.k8s.io}\n  spec:\n    matchConstraints:\n      resourceRules:\n"
        "      - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n"
        "    validations:\n    - expression: object.spec.containers.all(c, !has(c.securityContext))\n"
        "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBindingList\nitems:\n"
        "- metadata: {name: no-root-binding.static.k8s.io}\n"
        "  spec: {policyName: no-root.static.k8s.io, validationActions: [Deny]}\n",
        encoding="utf-8",
    )
    snapshot = tmp_path / "snapshot.yaml"
    snapshot.write_text(SNAPSHOT, encoding="utf-8")
    args = ["impact", "--static-manifests", str(folder), "--objects", str(snapshot), "--no-progress"]
    assert main([*args, "--format", "json"]) == 1
    bindings = json.loads(capsys.readouterr().out)["bindings"]
    assert [(b["binding"], b["denied"]) for b in bindings] == [("no-root-binding.static.k8s.io", 1)]
