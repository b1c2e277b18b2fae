"""A broken `.vap-lsp.yaml` is shown to the user, once, not only written to the server's log."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(tempfile.mkdtemp(prefix="vap-lsp-config-messages-"))
(ROOT / ".vap-lsp.yaml").write_text('kubernetes-version: "9.99"\nbogus: 1\n')
POLICY = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\n"


def _uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(ROOT), name="repo")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _open(client: LanguageClient, name: str) -> None:
    uri = _uri(ROOT / name)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=POLICY)
        )
    )
    while (await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)).uri != uri:
        pass


@pytest.mark.asyncio
async def test_configuration_problems_are_shown_once(client: LanguageClient) -> None:
    await _open(client, "a.yaml")
    # The same configuration: nothing new to say. (A message is queued on the loop when the
    # document's configuration is read, before its analysis: it arrives before the diagnostics.)
    await _open(client, "b.yaml")
    shown = [(m.type, m.message) for m in client.messages]
    config = ROOT / ".vap-lsp.yaml"
    assert shown == [
        (lsp.MessageType.Error, f"{config}: unknown key 'bogus'"),
        (
            lsp.MessageType.Error,
            f"{config}: kubernetes-version: unsupported Kubernetes version '9.99'; available versions: "
            "1.30, 1.31, 1.32, 1.33, 1.34, 1.35, 1.36, 1.37, 1.38",
        ),
    ]
