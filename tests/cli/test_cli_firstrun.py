"""A first run in a real repository (issue 25): rendered bundles, kustomize patches,
configuration mistakes, standard input — each as the user met it, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vap_lsp.cli.main import main


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------- rendered bundles

RENDERED_BUNDLE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: inferenceservice-config
data:
  explainers: "{{ quoted: not a template }}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
spec:
  template:
    spec:
      containers:
        - name: manager
          args:
            - --storage-uri={{.Name}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  failurePolicy: Sometimes
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [deployments]
  validations:
    - expression: "object.spec.replicas <= 5"
"""


def test_rendered_bundle_with_a_marker_in_a_plain_scalar_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "bundle.yaml", RENDERED_BUNDLE)
    assert main(["check", "--format", "json", str(path)]) == 1  # the policy is checked
    (report,) = json.loads(capsys.readouterr().out)["files"]
    found = {(d["code"], d["range"]["start"]["line"] + 1) for d in report["diagnostics"]}
    assert ("FieldValueNotSupported", 25) in found  # failurePolicy: Sometimes
    # One note, at the marker in the plain scalar (line 18), not at the quoted one (line 6).
    assert ("template-marker", 18) in found
    assert [c for c, _ in found].count("template-marker") == 1
    assert all(c != "template" for c, _ in found)


def test_a_template_that_breaks_the_yaml_is_skipped_at_the_construct(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chart = _write(
        tmp_path,
        "templates/policy.yaml",
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "{{ quoted }}"\n'
        "{{- if .Values.enabled }}\n  b: c\n{{- end }}\n",
    )
    assert main(["check", str(chart)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{chart}:7:1: information: file is a Helm/Go template ({{{{ ... }}}} at line 7)")


# -------------------------------------------------------------------------- kustomize patches

KUBEBUILDER = Path(__file__).resolve().parents[1] / "fixtures" / "kubebuilder"


def _kubebuilder_tree(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "project"
    shutil.copytree(KUBEBUILDER, root)
    return root


def test_kubebuilder_tree_without_policies_has_no_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The user's situation: `check .` in a kubebuilder project gave 89 errors, all on CRD patches
    # (webhook_in_*, cainjection_in_*: no group, names or versions) and a `$patch: delete` overlay.
    root = _kubebuilder_tree(tmp_path)
    (root / "config" / "overlays" / "prod" / "kustomization.yaml").unlink()  # `$patch` alone says it
    assert main(["check", "--format", "json", str(root)]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert [d for f in files for d in f["diagnostics"]] == []
    checked = {Path(f["path"]).relative_to(root).as_posix() for f in files}
    assert "config/crd/patches/cainjection_in_cronjobs.yaml" in checked  # checked, not skipped


def _codes(capsys: pytest.CaptureFixture[str], root: Path) -> set[tuple[str, int, str, str]]:
    out: set[tuple[str, int, str, str]] = set()
    for f in json.loads(capsys.readouterr().out)["files"]:
        for d in f["diagnostics"]:
            where = Path(f["path"]).relative_to(root).as_posix()
            out.add((where, d["range"]["start"]["line"] + 1, d["code"], d["message"]))
    return out


def test_a_patch_is_checked_as_a_partial_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _kubebuilder_tree(tmp_path)
    patch = root / "config" / "crd" / "patches" / "webhook_in_cronjobs.yaml"
    text = patch.read_text(encoding="utf-8")
    patch.write_text(
        text.replace("    strategy: Webhook\n", "    strategy: Webhook\n    stratgy: None\n").replace(
            "      - v1\n", "      - v1\n  preserveUnknownFields: [no]\n"
        ),
        encoding="utf-8",
    )
    assert main(["check", "--format", "json", str(root)]) == 1
    assert _codes(capsys, root) == {
        (
            "config/crd/patches/webhook_in_cronjobs.yaml",
            9,
            "unknown-field",
            'unknown field "spec.conversion.stratgy"',
        ),
        (
            "config/crd/patches/webhook_in_cronjobs.yaml",
            18,
            "type-mismatch",
            "json: cannot unmarshal array into Go struct field CustomResourceDefinitionSpec"
            ".spec.preserveUnknownFields of type bool",
        ),
    }


def test_a_json6902_patch_path_that_cannot_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _kubebuilder_tree(tmp_path)
    patch = root / "config" / "crd" / "patches" / "preserve_unknown_fields.yaml"
    patch.write_text(
        "- op: add\n  path: /spec/preserveUnknownField\n  value: false\n"
        "- op: replace\n  path: /spec/versions/0/served\n  value: yes please\n"
        "- op: upsert\n  path: /spec/group\n",
        encoding="utf-8",
    )
    assert main(["check", "--format", "json", str(root)]) == 1
    where = "config/crd/patches/preserve_unknown_fields.yaml"
    assert _codes(capsys, root) == {
        (
            where,
            2,
            "json-patch",
            'path "/spec/preserveUnknownField" cannot exist in a CustomResourceDefinition: '
            'unknown field "spec.preserveUnknownField"',
        ),
        (where, 6, "type-mismatch", "json: cannot unmarshal string into Go value of type bool"),
        (
            where,
            7,
            "json-patch",
            "unexpected JSON patch operation 'upsert' "
            "(expected one of add, remove, replace, move, copy, test)",
        ),
    }
