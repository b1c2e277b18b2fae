"""The server indexes its workspace folders: CRDs type `params`, bindings find their policies."""

from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

WORKSPACE = Path(tempfile.mkdtemp(prefix="vap-lsp-ws-"))

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

BINDING = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: orphan
    spec:
      policyName: no-such-policy
      validationActions: [Deny]
    """
)

(WORKSPACE / "crd.yaml").write_text(CRD)
(WORKSPACE / "binding.yaml").write_text(BINDING)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    root = uris.from_fs_path(str(WORKSPACE))
    assert root is not None
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root, name="ws")],
            initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _open_and_wait(client: LanguageClient, name: str, text: str) -> list[lsp.Diagnostic]:
    uri = uris.from_fs_path(str(WORKSPACE / name))
    assert uri is not None
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text))
    )
    latest: list[lsp.Diagnostic] | None = None
    # The first publication may precede the workspace scan; the re-check after it is the answer.
    for _ in range(2):
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        while params.uri != uri:
            params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        latest = list(params.diagnostics)
        if latest:
            break
    assert latest is not None
    return latest


@pytest.mark.asyncio
async def test_params_are_typed_from_a_crd_elsewhere_in_the_workspace(client: LanguageClient) -> None:
    diagnostics = await _open_and_wait(client, "policy.yaml", POLICY)
    assert [d.message for d in diagnostics] == [
        "spec.validations[0].expression: type checking against apps/v1, Kind=Deployment: "
        "ERROR: <input>:1:31: undefined field 'maxReplica'"
    ]
    assert diagnostics[0].severity == lsp.DiagnosticSeverity.Warning


@pytest.mark.asyncio
async def test_binding_to_a_policy_missing_from_the_workspace_is_a_warning(client: LanguageClient) -> None:
    diagnostics = await _open_and_wait(client, "binding.yaml", BINDING)
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("policy-not-found", lsp.DiagnosticSeverity.Warning)
    ]
    assert diagnostics[0].range.start.line == 5
