"""`vapLsp.crds`: CRDs outside the workspace type policies, and are re-read when they change on disk.

The server registers file watchers for the setting's paths (the client below supports dynamic
registration) and re-checks open policies when the client reports a change.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

ROOT = Path(tempfile.mkdtemp(prefix="vap-lsp-crds-"))
WORKSPACE = ROOT / "policies"
WORKSPACE.mkdir()
CLUSTER_CRDS = ROOT / "cluster-crds"  # outside the workspace folder, as in most repositories
CLUSTER_CRDS.mkdir()
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "crds" / "httproute-crd.yaml"
(CLUSTER_CRDS / "httproute.yaml").write_text(FIXTURE.read_text())

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: hostnames
    spec:
      matchConstraints:
        resourceRules:
          - apiGroups: [gateway.networking.k8s.io]
            apiVersions: [v1]
            operations: [CREATE, UPDATE]
            resources: [httproutes]
      validations:
        - expression: "object.spec.hostnamez.all(h, h.endsWith('.example.com'))"
    """
)

REGISTRATIONS: list[lsp.Registration] = []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    REGISTRATIONS.clear()  # each test has its own server

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register(params: lsp.RegistrationParams) -> None:
        REGISTRATIONS.extend(params.registrations)

    @lsp_client.feature(lsp.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: lsp.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        REGISTRATIONS[:] = [r for r in REGISTRATIONS if r.id not in gone]

    root = uris.from_fs_path(str(WORKSPACE))
    assert root is not None
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    did_change_watched_files=lsp.DidChangeWatchedFilesClientCapabilities(
                        dynamic_registration=True, relative_pattern_support=True
                    )
                )
            ),
            workspace_folders=[lsp.WorkspaceFolder(uri=root, name="policies")],
            initialization_options={
                "vapLsp": {
                    "kubernetesVersion": "1.34",
                    "debounceMs": 0,
                    "crds": ["../cluster-crds", "missing.yaml"],
                }
            },
        )
    )
    yield
    await lsp_client.shutdown_session()


def _uri(path: Path) -> str:
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    return uri


async def _watched(ready: Callable[[list[Any]], bool] = bool) -> list[Any]:
    """The glob patterns of the one watcher registration once `ready` accepts them: the watchers
    are (re-)registered in the background, not before the documents are re-checked."""
    found: list[Any] = []
    for _ in range(400):
        registrations = [r for r in REGISTRATIONS if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        if len(registrations) == 1:
            found = [w["globPattern"] for w in registrations[0].register_options["watchers"]]  # type: ignore[index]
            if ready(found):
                return found
        await asyncio.sleep(0.025)
    return found


async def _next_diagnostics(client: LanguageClient, uri: str, want: Any) -> list[lsp.Diagnostic]:
    """Publications for `uri` until one satisfies `want` (the scan and the CRD read may each
    trigger one); the last one seen if none does within a few."""
    latest: list[lsp.Diagnostic] = []
    for _ in range(4):
        params = await asyncio.wait_for(
            client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 30
        )
        while params.uri != uri:
            params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        # Hints (optional fields read without a guard) are beside the point here.
        latest = [d for d in params.diagnostics if d.severity != lsp.DiagnosticSeverity.Hint]
        if want(latest):
            break
    return latest


def _codes(diagnostics: list[lsp.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


@pytest.mark.asyncio
async def test_crds_from_the_setting_type_object_and_are_reread_on_change(client: LanguageClient) -> None:
    uri = _uri(WORKSPACE / "policy.yaml")
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

    # A path that is not there is said once, as a message (the CRDs are read in the background:
    # the message may come after the diagnostics).
    for _ in range(400):
        said = [m.message for m in client.messages if "vapLsp.crds" in m.message]
        if said:
            break
        await asyncio.sleep(0.025)
    await asyncio.sleep(0.1)  # and not twice
    assert [m.message for m in client.messages if "vapLsp.crds" in m.message] == [
        "vapLsp.crds: missing.yaml: no such file or directory"
    ]

    # The watchers cover the YAML files under the setting's folder (resolved against the
    # workspace folder; a relative pattern's base holds no `..`).
    assert await _watched() == [
        {"baseUri": _uri(CLUSTER_CRDS), "pattern": "**/*.{yaml,yml}"},
        {"baseUri": _uri(WORKSPACE), "pattern": "missing.yaml"},
        # The same registration watches the configuration files and the folder's YAML files
        # (server.crd_watch).
        {"baseUri": _uri(WORKSPACE), "pattern": "**/{.vap-lsp.yaml,.vap-lsp.yml,pyproject.toml}"},
        {"baseUri": _uri(WORKSPACE), "pattern": "**/*.{yaml,yml}"},
    ]

    # The cluster's CRD loses its schema's `hostnames`... and gains `hostnamez`: re-read on change.
    crd = CLUSTER_CRDS / "httproute.yaml"
    crd.write_text(FIXTURE.read_text().replace("hostnames:", "hostnamez:"))
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=_uri(crd), type=lsp.FileChangeType.Changed)]
        )
    )
    assert await _next_diagnostics(client, uri, lambda ds: ds == []) == []

    # Removed: typing is lost, and said.
    crd.unlink()
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(
            changes=[lsp.FileEvent(uri=_uri(crd), type=lsp.FileChangeType.Deleted)]
        )
    )
    diagnostics = await _next_diagnostics(client, uri, lambda ds: _codes(ds) == ["typing-unavailable"])
    assert _codes(diagnostics) == ["typing-unavailable"]
    assert diagnostics[0].severity == lsp.DiagnosticSeverity.Information


def test_the_setting_is_a_list_of_paths_or_globs() -> None:
    from vap_lsp.server.settings import parse_settings

    settings, problems = parse_settings({"vapLsp": {"crds": ["crds/**/*.yaml", "/opt/cluster/crds"]}})
    assert parse_settings({"vapLsp": {}})[0].crds is None  # unset: the configuration's `crds` apply
    assert settings.crds == ("crds/**/*.yaml", "/opt/cluster/crds") and problems == []
    kept, problems = parse_settings({"vapLsp": {"crds": "crds/"}}, settings)
    assert kept.crds == settings.crds
    assert problems == ["vapLsp.crds: expected a list of paths or globs"]


@pytest.mark.asyncio
async def test_the_setting_follows_the_workspace_folders(client: LanguageClient) -> None:
    # Another repository whose own ../cluster-crds has the schema with `hostnamez`.
    other = ROOT / "other"
    (other / "policies").mkdir(parents=True, exist_ok=True)
    (other / "cluster-crds").mkdir(exist_ok=True)
    (other / "cluster-crds" / "httproute.yaml").write_text(
        FIXTURE.read_text().replace("hostnames:", "hostnamez:")
    )
    uri = _uri(other / "policies" / "policy.yaml")
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=POLICY)
        )
    )
    await _next_diagnostics(client, uri, lambda ds: bool(ds))
    client.workspace_did_change_workspace_folders(
        lsp.DidChangeWorkspaceFoldersParams(
            lsp.WorkspaceFoldersChangeEvent(
                added=[lsp.WorkspaceFolder(uri=_uri(other / "policies"), name="other")],
                removed=[lsp.WorkspaceFolder(uri=_uri(WORKSPACE), name="policies")],
            )
        )
    )
    assert await _next_diagnostics(client, uri, lambda ds: ds == []) == []
    # The watchers moved with the folder. An analysis scheduled before the change (the one after
    # the start's workspace scan) may publish with the new CRDs while the watchers are being
    # moved (unregistered, then registered again): wait for the registration.
    expected = [
        _uri(other / "cluster-crds"),
        _uri(other / "policies"),
        _uri(other / "policies"),  # its configuration files
        _uri(other / "policies"),  # its YAML files
    ]

    def watched() -> list[str] | None:
        found = [r for r in REGISTRATIONS if r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES]
        if len(found) != 1:
            return None
        return [w["globPattern"]["baseUri"] for w in found[0].register_options["watchers"]]  # type: ignore[index]

    for _ in range(200):
        if watched() == expected:
            break
        await asyncio.sleep(0.025)
    assert watched() == expected
