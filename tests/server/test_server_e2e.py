"""The real server over stdio, driven by pytest-lsp: what an editor sees."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

URI = "file:///workspace/policy.yaml"

BROKEN_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo-policy
  validationActions: [Deny, Warn]
"""

FIXED_BINDING = BROKEN_BINDING.replace("[Deny, Warn]", "[Deny]")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 20}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _diagnostics_for(client: LanguageClient, uri: str, version: int) -> list[lsp.Diagnostic]:
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == uri and params.version == version:
            return list(params.diagnostics)


def _open(client: LanguageClient, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=URI, language_id="yaml", version=version, text=text)
        )
    )


@pytest.mark.asyncio
async def test_open_publishes_the_servers_error_at_the_offending_node(client: LanguageClient) -> None:
    _open(client, BROKEN_BINDING)
    diagnostics = await _diagnostics_for(client, URI, 1)
    messages = [d.message for d in diagnostics]
    assert messages == [
        'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn '
        "(repeating the same validation failure information in the API response and headers serves "
        "no purpose)"
    ]
    (d,) = diagnostics
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert d.source == "vap-lsp"
    # Line 7 (0-based 6) holds `validationActions: [Deny, Warn]`; the range covers the flow sequence value.
    assert d.range.start.line == 6
    assert d.range.start.character == len("  validationActions: ")


@pytest.mark.asyncio
async def test_an_incremental_edit_that_fixes_the_error_clears_it(client: LanguageClient) -> None:
    _open(client, BROKEN_BINDING)
    assert await _diagnostics_for(client, URI, 1)
    # Replace ", Warn" on line 6 with nothing.
    start = BROKEN_BINDING.splitlines()[6].index(", Warn")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(lsp.Position(6, start), lsp.Position(6, start + len(", Warn"))), text=""
                )
            ],
        )
    )
    assert list(await _diagnostics_for(client, URI, 2)) == []


@pytest.mark.asyncio
async def test_close_clears_diagnostics(client: LanguageClient) -> None:
    _open(client, BROKEN_BINDING)
    assert await _diagnostics_for(client, URI, 1)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=URI)))
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == URI:
            assert list(params.diagnostics) == []
            break


@pytest.mark.asyncio
async def test_broken_yaml_gives_one_syntax_error(client: LanguageClient) -> None:
    _open(client, "kind: [unclosed\n")
    diagnostics = await _diagnostics_for(client, URI, 1)
    assert len(diagnostics) == 1
    assert diagnostics[0].code == "yaml-syntax"
    assert diagnostics[0].severity == lsp.DiagnosticSeverity.Error


@pytest.mark.asyncio
async def test_rapid_edits_publish_only_the_latest_version(client: LanguageClient) -> None:
    _open(client, BROKEN_BINDING)
    await _diagnostics_for(client, URI, 1)
    for version in range(2, 12):
        text = BROKEN_BINDING if version % 2 else FIXED_BINDING
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    # Version 11 is odd: the broken text. No publication for versions 2..10 may arrive after it.
    diagnostics = await _diagnostics_for(client, URI, 11)
    assert len(diagnostics) == 1


@pytest.mark.asyncio
async def test_configuration_change_rechecks_open_documents(client: LanguageClient) -> None:
    mutating = """\
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: demo
spec:
  policyName: demo
"""
    _open(client, mutating)
    # 1.34 does not serve admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding.
    first = await _diagnostics_for(client, URI, 1)
    assert [d.code for d in first] == ["not-served"]
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"vapLsp": {"kubernetesVersion": "1.36"}})
    )
    assert list(await _diagnostics_for(client, URI, 1)) == []
