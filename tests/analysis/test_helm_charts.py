"""Helm charts: a value holding a template action is unknown until rendered.

Two public charts whose `templates/` sit beside `Chart.yaml` got 4 false errors each and exit 1:
`{{ include … }}` inside `metadata.name`, `policyName` and inside a CEL string literal (Helm's `"`
breaks the CEL). Nothing is said of such a value; one `template-marker` note per file names the
fix (`helm template CHART | vap-lsp check -`); everything without an action is still checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.helm import chart_of, name_pattern
from vap_lsp.cli.main import main

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas-{{ include "policies.fullname" . }}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= {{ .Values.maxReplicas }}"
  - expression: 'object.metadata.labels["team"] == "{{ include "policies.team" . }}"'
  - expression: "object.spec.replicas >= 1"
"""

BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas-{{ include "policies.fullname" . }}-binding
spec:
  policyName: replicas-{{ include "policies.fullname" . }}
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: by-rendered-name
spec:
  policyName: replicas-prod
  validationActions: [Deny]
"""


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: policies\nversion: 0.1.0\n")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "policy.yaml").write_text(POLICY)
    (templates / "binding.yaml").write_text(BINDING)
    (templates / "_helpers.tpl").write_text('{{- define "policies.fullname" -}}x{{- end }}\n')
    return tmp_path


def test_a_chart_with_actions_in_names_references_and_cel_checks_clean(
    chart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--no-config", "--show-notes", str(chart)]) == 0
    out = capsys.readouterr().out
    assert "error" not in out and "warning" not in out
    # One note per templated file, naming the fix with the chart.
    notes = [line for line in out.splitlines() if line.endswith("[template-marker]")]
    assert len(notes) == 2
    assert all(f"helm template {chart} | vap-lsp check -" in line for line in notes)


def test_what_holds_no_action_is_still_checked(chart: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (chart / "templates" / "policy.yaml").write_text(
        POLICY.replace("object.spec.replicas >= 1", "object.spec.replicas >=")
    )
    assert main(["check", "--no-config", str(chart)]) == 1
    assert "spec.validations[2].expression: Invalid value" in capsys.readouterr().out


def test_a_file_in_templates_is_recognised_by_its_chart(chart: Path, tmp_path: Path) -> None:
    assert chart_of(chart / "templates" / "policy.yaml") == str(chart)
    assert chart_of(chart / "templates" / "sub" / "x.yaml") == str(chart)
    assert chart_of(chart / "other" / "x.yaml") is None
    plain = tmp_path / "elsewhere" / "templates"
    plain.mkdir(parents=True)
    assert chart_of(plain / "x.yaml") is None  # no Chart.yaml beside


def test_a_quoted_action_outside_a_chart_is_text() -> None:
    # A plain file whose only `{{ }}` is in a quoted message: no template, the advice stands.
    text = POLICY.replace('name: replicas-{{ include "policies.fullname" . }}', "name: replicas").replace(
        "validations:\n", 'validations:\n  - expression: "true"\n    message: "replicas must be {{ .max }}"\n'
    )
    codes = {d.code for d in analyse_text(text).diagnostics}
    assert "message-not-cel" in codes and "template-marker" not in codes
    assert "cel-syntax" in codes  # its CEL with `{{` is checked as written
    # The same file as a chart's template: those values are unknown, nothing is said of them.
    charted = {d.code for d in analyse_text(text, AnalysisSettings(chart="policies")).diagnostics}
    assert charted == {"template-marker"}


def test_a_templated_policy_name_matches_what_it_can_render_to() -> None:
    pattern = name_pattern('replicas-{{ include "policies.fullname" . }}')
    assert pattern is not None and pattern.fullmatch("replicas-prod") and not pattern.fullmatch("other")
    assert name_pattern("replicas") is None
