"""The Kubernetes documentation's static manifests (tests/fixtures/kubernetes-website-static,
CC BY 4.0, see its PROVENANCE.md), checked as kube-apiserver loads them: the folder its
AdmissionConfiguration names loads, and the configuration leads to it."""

from __future__ import annotations

from pathlib import Path

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.files import read_text
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.static_manifests.api import analyse_file
from vap_lsp.static_manifests.decode import Family
from vap_lsp.static_manifests.loader import check_folder

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes-website-static"
FOLDER = FIXTURE / "validating-policies"


def test_the_documentations_folder_loads() -> None:
    """It loads; and the normal checks find one real mistake: `protect-admission-resources`
    matches DELETE, where `object` is null, so its expression fails on every DELETE of an
    admission resource and `failurePolicy: Fail` denies them all, protected or not."""
    result = check_folder(FOLDER, version="1.37", family=Family.VALIDATING)
    said = [(f.path.name, d.severity.label, d.message) for f in result.files for d in f.diagnostics]
    assert [s for s in said if s[1] in ("error", "warning")] == [
        (
            "protect-admission-resources.yaml",
            "warning",
            "spec.validations[0].expression: object is null on DELETE, which this policy matches; guard "
            "with `object == null || ...` or `request.operation != 'DELETE'`",
        )
    ]
    assert (result.policies, result.bindings) == (3, 3)
    assert (
        result.summary()
        == f"kube-apiserver 1.37 loads {FOLDER}: 3 policies, 3 bindings (ValidatingAdmissionPolicy plugin)"
    )


def test_its_admission_configuration_names_the_folder() -> None:
    """`staticManifestsDir: /etc/kubernetes/admission/validating-policies/` is not on this machine;
    the folder of that name beside the file is what it stands for (the mutating one is not there)."""
    path = FIXTURE / "admission-configuration.yaml"
    text = read_text(path, [])
    assert text is not None
    analysis, folders = analyse_file(text, AnalysisSettings("1.37"), path=path)
    assert [(f.family, f.folder) for f in folders] == [(Family.VALIDATING, FOLDER)]
    notes = [d for d in analysis.diagnostics if d.code == "static-manifests-dir"]
    assert [d.severity for d in notes] == [Severity.INFORMATION, Severity.INFORMATION]
    assert "checked as the ValidatingAdmissionPolicy plugin loads it" in notes[0].message
    assert "/etc/kubernetes/admission/mutating-policies/ is not on this machine" in notes[1].message
    assert [d for d in analysis.diagnostics if d.severity <= Severity.WARNING] == []


def test_the_gate_per_version() -> None:
    """1.36: the gate is alpha and off by default (said, checked as if on); 1.35: no such thing."""
    on_136 = check_folder(FOLDER, version="1.36", family=Family.VALIDATING)
    assert [(d.severity, d.code) for d in on_136.notes] == [(Severity.INFORMATION, "static-version")]
    assert on_136.errors == 0
    on_135 = check_folder(FOLDER, version="1.35", family=Family.VALIDATING)
    assert [(d.severity, d.code) for d in on_135.notes] == [(Severity.ERROR, "static-version")]
    assert on_135.summary() == f"kube-apiserver 1.35 would not load {FOLDER}: static manifests arrive in 1.36"
