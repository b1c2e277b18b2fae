"""Where typing is lost, the editor says so on hover and offers the version the workspace's CRD
serves as a quick fix."""

from __future__ import annotations

from pathlib import Path

from yaml_feature_helpers import VERSION, snap

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.crds import load_crds
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.features.cel_hover import hover
from vap_lsp.features.code_actions import DiagnosticRef, code_actions
from vap_lsp.features.edits import apply_edits

CRD = Path(__file__).resolve().parents[1] / "fixtures" / "crds" / "httproute-crd.yaml"


def _workspace() -> WorkspaceIndex:
    """The fixture's HTTPRoute CRD, serving v1 only, indexed as a workspace file."""
    workspace = WorkspaceIndex()
    analyse_text(CRD.read_text(), AnalysisSettings(VERSION), workspace=workspace, uri="file:///ws/crd.yaml")
    return workspace


def _policy(api_versions: str, resources: str = "[httproutes]") -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: routes
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [gateway.networking.k8s.io]
        apiVersions: {api_versions}
        operations: [CREATE]
        resources: {resources}
  validations:
    - expression: "object.spec.hostnames.size() < 10"
"""


def _fixes(text: str, workspace: WorkspaceIndex) -> dict[str, str]:
    found = analyse_text(text, AnalysisSettings(VERSION), workspace=workspace, uri="file:///ws/doc.yaml")
    refs = [DiagnosticRef(d.span, d.code, d.message, d.field) for d in found.diagnostics]
    assert [r.code for r in refs if r.code == "typing-unavailable"] == ["typing-unavailable"]
    return {a.title: apply_edits(text, a.edits) for a in code_actions(snap(text, workspace), refs)}


def test_the_rule_is_moved_to_the_version_the_crd_serves() -> None:
    text = _policy("[v1beta1]")
    assert _fixes(text, _workspace()) == {
        "Match gateway.networking.k8s.io/v1 httproutes (HTTPRoute), the version the workspace's CRD serves": (
            _policy("[v1]")
        )
    }


def test_a_version_other_resources_still_need_is_kept_and_the_served_one_added() -> None:
    # A second CRD serves referencegrants under v1beta1 only: that version must stay.
    workspace = _workspace()
    grant = CRD.read_text().replace("httproutes", "referencegrants").replace("HTTPRoute", "ReferenceGrant")
    grant = grant.replace("served: false", "served: true").replace("- name: v1\n", "- name: v0\n")
    analyse_text(grant, AnalysisSettings(VERSION), workspace=workspace, uri="file:///ws/grant.yaml")
    text = _policy("[v1beta1]", "[httproutes, referencegrants]")
    title = (
        "Also match gateway.networking.k8s.io/v1 httproutes (HTTPRoute), "
        "the version the workspace's CRD serves"
    )
    assert _fixes(text, workspace) == {title: _policy("[v1beta1, v1]", "[httproutes, referencegrants]")}


def test_hover_on_object_says_typing_is_lost_and_how_to_give_the_schema() -> None:
    text = _policy("[v1]")
    offset = text.index("object.spec") + 2
    result = hover(snap(text, WorkspaceIndex()), offset)
    assert result is not None
    assert result.markdown.endswith(
        "**Typing unavailable**: object is untyped (dyn) for gateway.networking.k8s.io/v1 httproutes: no "
        "schema (not a built-in resource, and no CRD for it among the checked files); give its CRD with "
        "`--crd FILE` (CLI), the `vapLsp.crds` setting (editor) or `crds` in the configuration file (both)."
    )


def test_hover_on_a_typed_object_has_no_such_note() -> None:
    text = _policy("[v1]")
    workspace = WorkspaceIndex()
    workspace.set_external_crds("--crd", load_crds([CRD]).versions)
    result = hover(snap(text, workspace), text.index("object.spec") + 2)
    assert result is not None and "Typing unavailable" not in result.markdown
    assert "HTTPRoute" in result.markdown
