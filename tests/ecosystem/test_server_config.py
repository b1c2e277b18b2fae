"""The server reads the project's configuration for each document; client settings win over it."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.codes import help_uri
from vap_lsp.server.app import VapLanguageServer

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: demo
    spec:
      failurePolicy: Never
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
        - expression: "object.spec.replica <= 5"
    """
)
# Without configuration: FieldValueNotSupported (error, line 6) and cel-type-check (warning, line 11).

CONFIG = """\
kubernetes-version: "1.32"
ignore: [FieldValueNotSupported]
severity: {cel-type-check: error}
exclude: [generated]
"""


def _uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


def test_settings_for_a_document_come_from_its_configuration(tmp_path: Path) -> None:
    (tmp_path / ".vap-lsp.yaml").write_text(CONFIG, encoding="utf-8")
    server = VapLanguageServer()
    uri = _uri(tmp_path / "policy.yaml")
    settings = server.state.analysis_settings_for(uri)
    assert settings.kubernetes_version == "1.32"
    assert [(d.code, d.severity) for d in server.state.analyse(uri, POLICY).diagnostics] == [
        ("cel-type-check", Severity.ERROR)
    ]


def test_client_settings_override_the_configuration(tmp_path: Path) -> None:
    (tmp_path / ".vap-lsp.yaml").write_text(CONFIG, encoding="utf-8")
    server = VapLanguageServer()
    server.state.apply_settings(
        {"vapLsp": {"kubernetesVersion": "1.34", "severity": {"cel-type-check": "hint"}, "ignore": []}}
    )
    uri = _uri(tmp_path / "policy.yaml")
    assert server.state.analysis_settings_for(uri).kubernetes_version == "1.34"
    # The file's ignore still applies (the client's list adds to it); the client's severity wins.
    assert [(d.code, d.severity) for d in server.state.analyse(uri, POLICY).diagnostics] == [
        ("cel-type-check", Severity.HINT)
    ]


def test_excluded_documents_publish_nothing_but_keep_their_model(tmp_path: Path) -> None:
    (tmp_path / ".vap-lsp.yaml").write_text(CONFIG, encoding="utf-8")
    server = VapLanguageServer()
    analysis = server.state.analyse(_uri(tmp_path / "generated" / "policy.yaml"), POLICY)
    assert analysis.diagnostics == [] and len(analysis.objects) == 1


def test_configuration_samples_are_used_when_the_client_gives_none(tmp_path: Path) -> None:
    (tmp_path / ".vap-lsp.yaml").write_text("samples: ['samples/*.yaml']\n", encoding="utf-8")
    server = VapLanguageServer()
    uri = _uri(tmp_path / "policy.yaml")
    assert server.state.samples_for(uri) == (str(tmp_path / "samples/*.yaml"),)
    server.state.apply_settings({"vapLsp": {"samples": ["mine/*.yaml"]}})
    assert server.state.samples_for(uri) == ("mine/*.yaml",)


WORKSPACE = Path(tempfile.mkdtemp(prefix="vap-lsp-config-ws-"))
(WORKSPACE / ".vap-lsp.yaml").write_text(CONFIG, encoding="utf-8")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(WORKSPACE), name="ws")],
            initialization_options={"vapLsp": {"debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _diagnostics(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri:
            return list(params.diagnostics)


async def _diagnostics_until(
    client: LanguageClient, uri: str, done: Callable[[list[lsp.Diagnostic]], bool], publishes: int = 5
) -> list[lsp.Diagnostic]:
    """The first of the next few publishes for `uri` that satisfies `done` (else the last one)."""
    diagnostics: list[lsp.Diagnostic] = []
    for _ in range(publishes):
        diagnostics = await asyncio.wait_for(_diagnostics(client, uri), timeout=30)
        if done(diagnostics):
            break
    return diagnostics


@pytest.mark.asyncio
async def test_the_server_applies_the_workspace_configuration(client: LanguageClient) -> None:
    uri = _uri(WORKSPACE / "policy.yaml")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=POLICY)
        )
    )
    diagnostics = await _diagnostics(client, uri)
    assert [(d.code, d.severity, d.range.start.line) for d in diagnostics] == [
        ("cel-type-check", lsp.DiagnosticSeverity.Error, 10)
    ]
    assert diagnostics[0].code_description is not None
    assert diagnostics[0].code_description.href == help_uri("cel-type-check")

    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(
            settings={"vapLsp": {"severity": {"FieldValueNotSupported": "warning"}}}
        )
    )
    expected = [
        ("FieldValueNotSupported", lsp.DiagnosticSeverity.Warning),
        ("cel-type-check", lsp.DiagnosticSeverity.Error),
    ]
    # A publish already scheduled before the change (e.g. after the workspace scan) may come first.
    seen = await _diagnostics_until(client, uri, lambda ds: [(d.code, d.severity) for d in ds] == expected)
    assert [(d.code, d.severity) for d in seen] == expected
