"""Types through variables over stdio (pytest-lsp): the warning with its related definition, and
completion after `variables.spec.`, as an editor receives them."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

URI = "file:///workspace/typed-variables.yaml"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
  variables:
    - name: spec
      expression: object.spec
  validations:
    - expression: variables.spec.replicaz > 1
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


def _open(client: LanguageClient, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=URI, language_id="yaml", version=version, text=text)
        )
    )


async def _diagnostics(client: LanguageClient, version: int) -> list[lsp.Diagnostic]:
    while True:
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if params.uri == URI and params.version == version:
            return list(params.diagnostics)


@pytest.mark.asyncio
async def test_undefined_field_through_a_variable_is_published_with_the_definition(
    client: LanguageClient,
) -> None:
    _open(client, POLICY)
    (d,) = await _diagnostics(client, 1)
    assert d.severity == lsp.DiagnosticSeverity.Warning
    assert d.code == "vap-lsp-type-check"
    assert d.message.startswith(
        "spec.validations[0].expression: undefined field 'replicaz' (vap-lsp's own type check"
    )
    assert d.range == lsp.Range(lsp.Position(15, 32), lsp.Position(15, 41))  # `.replicaz`
    assert d.related_information is not None
    (related,) = d.related_information
    assert related.location == lsp.Location(URI, lsp.Range(lsp.Position(13, 18), lsp.Position(13, 29)))
    assert "`variables.spec` is defined here" in related.message


@pytest.mark.asyncio
async def test_completion_after_variables_spec_offers_the_deployment_spec(client: LanguageClient) -> None:
    text = POLICY.replace("variables.spec.replicaz > 1", "variables.spec.")
    _open(client, text)
    line = text.splitlines().index("    - expression: variables.spec.")
    result = await client.text_document_completion_async(
        lsp.CompletionParams(
            lsp.TextDocumentIdentifier(URI), lsp.Position(line, len("    - expression: variables.spec."))
        )
    )
    assert isinstance(result, lsp.CompletionList)
    labels = {i.label: i for i in result.items}
    assert {"replicas", "template", "selector"} <= set(labels)
    assert labels["replicas"].detail == "int"
    assert "getFullYear" not in labels and "size" not in labels
