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
