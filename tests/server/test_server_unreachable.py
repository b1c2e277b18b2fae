"""An unreachable branch over stdio (pytest-lsp): one diagnostic per branch, the server's warnings
inside it as related information, and the Unnecessary tag (editors fade it) only when no matched
kind can run it."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

URI = "file:///workspace/unreachable.yaml"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["", "apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods", "deployments"]
  validations:
    - expression: object.kind != 'Pod' || object.spec.hostPID != true && object.spec.hostIPC != true
    - expression: object.kind != 'Secret' || object.data.size() < 10
"""


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


@pytest.mark.asyncio
async def test_a_branch_is_published_once_faded_only_when_no_kind_runs_it(client: LanguageClient) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=POLICY)
        )
    )
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == URI and params.version == 1:
            break
    notes = [d for d in params.diagnostics if d.code == "cel-type-check-guarded"]
    live, dead = sorted(notes, key=lambda d: d.range.start.line)
    # The Pod branch: a Deployment has no hostPID nor hostIPC, two warnings of the server.
    assert live.range == lsp.Range(lsp.Position(12, 42), lsp.Position(12, 100))  # the whole branch
    assert live.tags is None
    assert live.related_information is not None and len(live.related_information) == 2
    assert all("apps/v1, Kind=Deployment" in r.message for r in live.related_information)
    # No matched kind is a Secret: dead code.
    assert list(dead.tags or ()) == [lsp.DiagnosticTag.Unnecessary]
    assert "unreachable for /v1, Kind=Pod; apps/v1, Kind=Deployment" in dead.message
