# ruff: noqa: E501  (YAML kept as written, one line each)
"""The editor: a document in a static manifests folder is checked as kube-apiserver loads the
folder (the folder named in the configuration, or by an AdmissionConfiguration of the
workspace), every other document as the API server takes it."""

from __future__ import annotations

from pathlib import Path

from pygls import uris
from pygls.workspace import Workspace

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.server.app import VapLanguageServer

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: "true"
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: b.static.k8s.io
spec:
  policyName: {policy}
  validationActions: [Deny]
"""


def _uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


def _server(root: Path) -> VapLanguageServer:
    server = VapLanguageServer()
    server.protocol._workspace = Workspace(root.as_uri())  # what initialize would set up
    return server


def _said(server: VapLanguageServer, path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    return [
        (d.code, d.message)
        for d in server.state.analyse(_uri(path), text).diagnostics
        if d.severity is Severity.ERROR
    ]


def test_a_configured_folder(tmp_path: Path) -> None:
    folder = tmp_path / "static"
    folder.mkdir()
    (tmp_path / ".vap-lsp.yaml").write_text("static-manifests: [static]\n", encoding="utf-8")
    (folder / "policy.yaml").write_text(POLICY, encoding="utf-8")
    (folder / "binding.yaml").write_text(
        BINDING.replace("{policy}", "missing.static.k8s.io"), encoding="utf-8"
    )
    server = _server(tmp_path)
    assert server.state.might_be_static(_uri(folder / "binding.yaml"), BINDING)
    # The policy: no reserved-name error (that is the API's rule), nothing else either.
    assert _said(server, folder / "policy.yaml") == []
    # The binding: the loader's reference check, over the folder's other files.
    assert _said(server, folder / "binding.yaml") == [
        (
            "static-binding-reference",
            'binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory',
        )
    ]
    # Outside the folder, the same text is checked as the API server takes it.
    (tmp_path / "elsewhere.yaml").write_text(POLICY, encoding="utf-8")
    assert [c for c, _ in _said(server, tmp_path / "elsewhere.yaml")] == ["FieldValueInvalid"]
    assert not server.state.might_be_static(_uri(tmp_path / "elsewhere.yaml"), POLICY)


def test_a_folder_an_admission_configuration_names(tmp_path: Path) -> None:
    folder = tmp_path / "validating"
    folder.mkdir()
    (folder / "binding.yaml").write_text(BINDING.replace("{policy}", "p"), encoding="utf-8")
    admission = tmp_path / "admission.yaml"
    admission.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n"
        "    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: /etc/kubernetes/validating\n",
        encoding="utf-8",
    )
    server = _server(tmp_path)
    # Before the server knows of the AdmissionConfiguration: the API's verdict.
    assert [c for c, _ in _said(server, folder / "binding.yaml")] == ["FieldValueInvalid"]
    # The AdmissionConfiguration, analysed (or scanned), names the folder beside it.
    notes = server.state.analyse(_uri(admission), admission.read_text(encoding="utf-8")).diagnostics
    assert [d.code for d in notes] == ["static-manifests-dir"]
    assert [c for c, _ in _said(server, folder / "binding.yaml")] == ["static-policy-name"]


def test_the_gate_note_of_136_is_on_the_document(tmp_path: Path) -> None:
    folder = tmp_path / "static"
    folder.mkdir()
    (tmp_path / ".vap-lsp.yaml").write_text(
        'kubernetes-version: "1.36"\nstatic-manifests: [static]\n', encoding="utf-8"
    )
    (folder / "policy.yaml").write_text(POLICY, encoding="utf-8")
    server = _server(tmp_path)
    found = server.state.analyse(_uri(folder / "policy.yaml"), POLICY).diagnostics
    assert [(d.severity, d.code) for d in found] == [(Severity.INFORMATION, "static-version")]
    assert found[0].span.start == 0
