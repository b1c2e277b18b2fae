"""The configuration's `crds` in the editor: they type policies when the client sets no
`vapLsp.crds`, and a configuration file edited on disk (outside the editor) is re-read through
the server's file watchers, re-checking the open documents.

    <tmp>/cluster-crds/httproute.yaml     the HTTPRoute CRD, outside the workspace folder
    <tmp>/repo/.vap-lsp.yaml              crds: [../cluster-crds]
    <tmp>/repo/policy.yaml                (opened) reads object.spec.hostnamez
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.test_server_crds_setting import (
    FIXTURE,
    POLICY,
    REGISTRATIONS,
    _codes,
    _next_diagnostics,
    _watched,
)

ROOT = Path(tempfile.mkdtemp(prefix="vap-lsp-config-crds-"))
REPO = ROOT / "repo"
REPO.mkdir()
(ROOT / "cluster-crds").mkdir()
(ROOT / "cluster-crds" / "httproute.yaml").write_text(FIXTURE.read_text())
CONFIG = REPO / ".vap-lsp.yaml"
CONFIG.write_text("crds: [../cluster-crds]\n")


def _uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    REGISTRATIONS.clear()

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params: lsp.RegistrationParams) -> None:
        REGISTRATIONS.extend(params.registrations)

    @lsp_client.feature(lsp.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: lsp.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        REGISTRATIONS[:] = [r for r in REGISTRATIONS if r.id not in gone]

    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True, relative_pattern_support=True
                    )
                )
            ),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(REPO), name="repo")],
            initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


def _config_changed(client: LanguageClient, text: str) -> None:
    CONFIG.write_text(text)
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=_uri(CONFIG), type=lsp.FileChangeType.Changed)]
        )
    )


@pytest.mark.asyncio
async def test_the_configurations_crds_type_the_policy_and_follow_the_file(client: LanguageClient) -> None:
    uri = _uri(REPO / "policy.yaml")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=POLICY)
        )
    )
    diagnostics = await _next_diagnostics(client, uri, lambda ds: _codes(ds) == ["cel-type-check"])
    assert [d.message for d in diagnostics] == [
        "spec.validations[0].expression: type checking against gateway.networking.k8s.io/v1, "
        "Kind=HTTPRoute: ERROR: <input>:1:12: undefined field 'hostnamez'"
    ]

    # One registration watches the configuration's CRD folder, the configuration files and the
    # folder's YAML files.
    assert await _watched() == [
        {"baseUri": _uri(ROOT / "cluster-crds"), "pattern": "**/*.{yaml,yml}"},
        {"baseUri": _uri(REPO), "pattern": "**/{.vap-lsp.yaml,.vap-lsp.yml,pyproject.toml}"},
        {"baseUri": _uri(REPO), "pattern": "**/*.{yaml,yml}"},
    ]

    # The configuration loses its `crds` on disk: typing is lost, and said.
    _config_changed(client, "crds: []\n")
    diagnostics = await _next_diagnostics(client, uri, lambda ds: _codes(ds) == ["typing-unavailable"])
    assert _codes(diagnostics) == ["typing-unavailable"]

    # It names a folder whose HTTPRoute CRD declares `hostnamez`: typed again, no warning; the
    # watchers moved to that folder.
    other = ROOT / "other-crds"
    other.mkdir()
    (other / "httproute.yaml").write_text(FIXTURE.read_text().replace("hostnames:", "hostnamez:"))
    _config_changed(client, "crds: [../other-crds]\n")
    assert await _next_diagnostics(client, uri, lambda ds: ds == []) == []
    assert (await _watched(lambda w: w[0]["baseUri"] == _uri(other)))[0] == {
        "baseUri": _uri(other),
        "pattern": "**/*.{yaml,yml}",
    }

    # The client's `vapLsp.crds` replaces the configuration's: an empty list leaves it untyped.
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"vapLsp": {"crds": []}})
    )
    diagnostics = await _next_diagnostics(client, uri, lambda ds: _codes(ds) == ["typing-unavailable"])
    assert _codes(diagnostics) == ["typing-unavailable"]


# A client without dynamic registration gets no watchers: saving the configuration in the
# editor is what re-reads its `crds`.
PLAIN = ROOT / "plain"
PLAIN.mkdir()
(PLAIN / ".vap-lsp.yaml").write_text("crds: []\n")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def plain_client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(PLAIN), name="plain")],
            initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_saving_the_configuration_in_the_editor_rereads_its_crds(plain_client: LanguageClient) -> None:
    uri = _uri(PLAIN / "policy.yaml")
    plain_client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=POLICY)
        )
    )
    diagnostics = await _next_diagnostics(plain_client, uri, lambda ds: _codes(ds) == ["typing-unavailable"])
    assert _codes(diagnostics) == ["typing-unavailable"]

    (PLAIN / ".vap-lsp.yaml").write_text("crds: [../cluster-crds]\n")
    plain_client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri=_uri(PLAIN / ".vap-lsp.yaml")))
    )
    diagnostics = await _next_diagnostics(plain_client, uri, lambda ds: _codes(ds) == ["cel-type-check"])
    assert _codes(diagnostics) == ["cel-type-check"]
