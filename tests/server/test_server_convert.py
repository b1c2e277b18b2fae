""" "Convert to ValidatingAdmissionPolicy" through the real server: a `source` code action on a
Gatekeeper template or a Kyverno policy runs the command, which creates the converted policy as a
new file beside the document (workspace/applyEdit: CreateFile, then its text) and shows it."""

from __future__ import annotations

import ast
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

WORKSPACE = Path(tempfile.mkdtemp(prefix="vap-lsp-convert-ws-"))

KYVERNO = textwrap.dedent(
    """\
    apiVersion: policies.kyverno.io/v1
    kind: ValidatingPolicy
    metadata:
      name: no-latest
    spec:
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
        - expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"
          message: no latest images
    """
)
LOOKUP = KYVERNO.replace(
    "object.spec.template.spec.containers.all", "resource.List('v1', 'pods', '').items.all"
)
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"

for name, text in (("policy.yaml", KYVERNO), ("lookup.yaml", LOOKUP), ("cm.yaml", CONFIG_MAP)):
    (WORKSPACE / name).write_text(text)


def _uri(name: str) -> str:
    uri = uris.from_fs_path(str(WORKSPACE / name))
    assert uri is not None
    return uri


EDITS: list[lsp.ApplyWorkspaceEditParams] = []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    @lsp_client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: lsp.ApplyWorkspaceEditParams) -> lsp.ApplyWorkspaceEditResult:
        EDITS.append(params)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                window=lsp.WindowClientCapabilities(
                    show_document=lsp.ShowDocumentClientCapabilities(support=True)
                ),
                workspace=lsp.WorkspaceClientCapabilities(
                    apply_edit=True,
                    workspace_edit=lsp.WorkspaceEditClientCapabilities(
                        document_changes=True, resource_operations=[lsp.ResourceOperationKind.Create]
                    ),
                ),
            ),
            workspace_folders=[lsp.WorkspaceFolder(uri=_uri(""), name="ws")],
            initialization_options={"vapLsp": {"debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, name: str, text: str) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(_uri(name), "yaml", 1, text))
    )


def _command(action: Any) -> tuple[str, list[Any]]:
    """lsprotocol's client-side converter reads an action with a `command` as a Command whose
    `command` is the text of the action's command object."""
    inner = ast.literal_eval(action.command)
    return inner["command"], list(inner.get("arguments") or [])


async def _actions(client: LanguageClient, name: str) -> list[Any]:
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(_uri(name)),
            lsp.Range(lsp.Position(2, 2), lsp.Position(2, 2)),
            lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.Source]),
        )
    )
    return list(actions or [])


@pytest.mark.asyncio
async def test_the_converted_policy_is_created_beside_the_document_and_shown(client: LanguageClient) -> None:
    EDITS.clear()
    _open(client, "policy.yaml", KYVERNO)
    (action,) = await _actions(client, "policy.yaml")
    assert action.title == "Convert to ValidatingAdmissionPolicy"
    name, arguments = _command(action)
    assert (name, arguments) == ("vapLsp.convertToValidatingAdmissionPolicy", [_uri("policy.yaml")])
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=name, arguments=arguments)
    )
    beside = _uri("policy.vap.yaml")
    assert result == {"summary": "1 ValidatingAdmissionPolicy written", "uri": beside}
    (edit,) = EDITS
    create, text_edit = edit.edit.document_changes or []
    assert isinstance(create, lsp.CreateFile) and create.uri == beside
    assert isinstance(text_edit, lsp.TextDocumentEdit)
    text = text_edit.edits[0].new_text
    assert text.startswith("# Converted by vap-lsp from ")
    assert "kind: ValidatingAdmissionPolicy\n" in text and "kind: ValidatingAdmissionPolicyBinding\n" in text
    assert client.shown_documents[-1].uri == beside


@pytest.mark.asyncio
async def test_what_cannot_be_converted_is_said(client: LanguageClient) -> None:
    _open(client, "lookup.yaml", LOOKUP)
    (action,) = await _actions(client, "lookup.yaml")
    name, arguments = _command(action)
    result = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=name, arguments=arguments)
    )
    assert result["uri"] is None
    assert result["summary"].startswith("nothing could be converted: resource.Get/List: ")
    assert client.messages[-1].message == result["summary"]


@pytest.mark.asyncio
async def test_no_action_on_other_objects(client: LanguageClient) -> None:
    _open(client, "cm.yaml", CONFIG_MAP)
    assert await _actions(client, "cm.yaml") == []
