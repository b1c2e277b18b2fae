"""A file opened without a workspace folder (issue 33): the client gives none (`code FILE`,
Neovim's `root_markers` finding nothing, ...), so the server takes the enclosing repository as
the root, as `vap-lsp check` of the repository would see it: a params CRD one folder up types
the policy, where it was missed (`typing-unavailable`). A client that gives folders keeps them."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

CRD = textwrap.dedent(
    """\
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: replicalimits.rules.example.com
    spec:
      group: rules.example.com
      names: {kind: ReplicaLimit, plural: replicalimits}
      scope: Namespaced
      versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                maxReplicas: {type: integer}
    """
)

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: replica-limit
    spec:
      paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
        - expression: "object.spec.replicas <= params.maxReplica"
    """
)

# repo/.git, repo/crds/limits.yaml (the params CRD), repo/policies/replica-limit.yaml (opened);
# and a folder in no project (no .git, configuration or pyproject.toml up to /tmp).
TREES = Path(tempfile.mkdtemp(prefix="vap-lsp-lone-"))
REPO = TREES / "repo"
(REPO / ".git").mkdir(parents=True)
(REPO / "crds").mkdir()
(REPO / "crds" / "limits.yaml").write_text(CRD)
(REPO / "policies").mkdir()
(REPO / "policies" / "replica-limit.yaml").write_text(POLICY)
LONE = TREES / "lone" / "policies"
LONE.mkdir(parents=True)
(LONE.parent / "limits.yaml").write_text(CRD)
(LONE / "replica-limit.yaml").write_text(POLICY)

TYPED = (
    "spec.validations[0].expression: type checking against apps/v1, Kind=Deployment: "
    "ERROR: <input>:1:31: undefined field 'maxReplica'"
)
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"])
OPTIONS = {"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 0}}


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    # No workspaceFolders, no rootUri: a single file opened.
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options=OPTIONS)
    )
    yield
    await lsp_client.shutdown_session()


async def _publications(client: LanguageClient, path: Path, until: str, most: int = 4) -> list[list[str]]:
    """The diagnostics' codes/messages of each publication for `path` after opening it, until
    one has `until` (the first publication may precede the scan of the repository)."""
    uri = uris.from_fs_path(str(path))
    assert uri is not None
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=path.read_text())
        )
    )
    seen: list[list[str]] = []
    while len(seen) < most:
        try:  # a server that never publishes what is awaited fails the test, it does not hang it
            params = await asyncio.wait_for(
                client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), timeout=60
            )
        except TimeoutError:
            break
        if params.uri != uri:
            continue
        seen.append([f"{d.code}: {d.message}" for d in params.diagnostics])
        if any(until in line for line in seen[-1]):
            break
    return seen


@pytest.mark.asyncio
async def test_the_enclosing_repository_is_the_root(client: LanguageClient) -> None:
    seen = await _publications(client, REPO / "policies" / "replica-limit.yaml", until="maxReplica")
    assert seen[-1] == [f"cel-type-check: {TYPED}"]  # typed by the CRD in ../crds: no typing-unavailable


@pytest.mark.asyncio
async def test_a_file_in_no_project_stays_alone(client: LanguageClient) -> None:
    seen = await _publications(client, LONE / "replica-limit.yaml", until="typing-unavailable", most=1)
    assert any(line.startswith("typing-unavailable: ") for line in seen[-1])


@pytest_lsp.fixture(config=SERVER)
async def client_with_a_folder(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    folder = uris.from_fs_path(str(REPO / "policies"))
    assert folder is not None
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(uri=folder, name="policies")],
            initialization_options=OPTIONS,
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_folder_the_client_gives_is_the_workspace(client_with_a_folder: LanguageClient) -> None:
    path = REPO / "policies" / "replica-limit.yaml"
    seen = await _publications(client_with_a_folder, path, until="typing-unavailable", most=2)
    assert any(line.startswith("typing-unavailable: ") for line in seen[-1])
    assert not any("maxReplica" in line for line in seen[-1])
