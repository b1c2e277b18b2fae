"""YAML-side editor features end to end: hover, navigation, symbols, quick fixes, progress."""

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
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import ClientServerConfig, LanguageClient

from vap_lsp.text import LineIndex, Position

WORKSPACE = Path(tempfile.mkdtemp(prefix="vap-lsp-yaml-ws-"))

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: replica-limit
    spec:
      failurPolicy: Fail
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      variables:
        - name: replicas
          expression: "object.spec.replicas"
      validations:
        - expression: |
            variables.replicas <= 5
        - expression: "variables.replicas > 0 && object.spec.replica > 0"
          message: "too many {{ .spec.replicas }}"
        - expression: object.spec.minReadySeconds > 0
        - expression: variables.replicas
    """
)

BINDING = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: replica-limit-binding
    spec:
      policyName: replica-limit
      validationActions: [Deny, Warn]
      paramRef:
        name: limits
    """
)

(WORKSPACE / "policy.yaml").write_text(POLICY)
(WORKSPACE / "binding.yaml").write_text(BINDING)


def _uri(name: str) -> str:
    uri = uris.from_fs_path(str(WORKSPACE / name))
    assert uri is not None
    return uri


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(window=lsp.WindowClientCapabilities(work_done_progress=True)),
            workspace_folders=[lsp.WorkspaceFolder(uri=uris.from_fs_path(str(WORKSPACE)) or "", name="ws")],
            initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 0}},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def _open(client: LanguageClient, name: str, text: str) -> list[lsp.Diagnostic]:
    """Open a document; its diagnostics once the workspace scan is done."""
    uri = _uri(name)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text))
    )
    latest: list[lsp.Diagnostic] = []
    for _ in range(2):
        params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        while params.uri != uri:
            params = await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        latest = list(params.diagnostics)
        if any(d.code == "policy-not-found" for d in latest):
            continue
        if latest:
            break
    return latest


def _position(text: str, needle: str, delta: int = 1) -> lsp.Position:
    pos = LineIndex(text).position(text.index(needle) + delta)
    return lsp.Position(pos.line, pos.character)


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = LineIndex(text)
    spans = [
        (
            lines.offset(Position(e.range.start.line, e.range.start.character)),
            lines.offset(Position(e.range.end.line, e.range.end.character)),
            e.new_text,
        )
        for e in edits
    ]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.asyncio
async def test_hover_on_a_yaml_key(client: LanguageClient) -> None:
    await _open(client, "policy.yaml", POLICY)
    result = await client.text_document_hover_async(
        lsp.HoverParams(
            lsp.TextDocumentIdentifier(_uri("policy.yaml")), _position(POLICY, "matchConstraints")
        )
    )
    assert result is not None and isinstance(result.contents, lsp.MarkupContent)
    assert result.contents.value.startswith("**spec.matchConstraints** · `MatchResources` · required")


@pytest.mark.asyncio
async def test_definition_of_policy_name_in_another_file(client: LanguageClient) -> None:
    await _open(client, "binding.yaml", BINDING)
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(_uri("binding.yaml")), _position(BINDING, "policyName: r", 14)
        )
    )
    assert result == [lsp.Location(_uri("policy.yaml"), lsp.Range(lsp.Position(3, 8), lsp.Position(3, 21)))]


@pytest.mark.asyncio
async def test_references_and_rename_of_a_variable(client: LanguageClient) -> None:
    await _open(client, "policy.yaml", POLICY)
    doc = lsp.TextDocumentIdentifier(_uri("policy.yaml"))
    where = _position(POLICY, "variables.replicas <=", 12)
    refs = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=doc, position=where, context=lsp.ReferenceContext(include_declaration=True)
        )
    )
    assert refs is not None and [r.range.start.line for r in refs] == [10, 14, 15, 18]
    edit = await client.text_document_rename_async(
        lsp.RenameParams(text_document=doc, position=where, new_name="count")
    )
    assert edit is not None and edit.changes is not None
    assert _apply(POLICY, list(edit.changes[doc.uri])) == (
        POLICY.replace("name: replicas", "name: count").replace("variables.replicas", "variables.count")
    )


@pytest.mark.asyncio
async def test_a_rename_to_a_name_cel_cannot_read_is_answered_with_an_error(client: LanguageClient) -> None:
    """The client shows why (`navigation.RenameError`), instead of a rename that does nothing."""
    await _open(client, "policy.yaml", POLICY)
    doc = lsp.TextDocumentIdentifier(_uri("policy.yaml"))
    where = _position(POLICY, "variables.replicas <=", 12)
    with pytest.raises(JsonRpcInvalidParams, match="is not a valid CEL identifier"):
        await client.text_document_rename_async(
            lsp.RenameParams(text_document=doc, position=where, new_name="1st")
        )


@pytest.mark.asyncio
async def test_document_and_workspace_symbols(client: LanguageClient) -> None:
    await _open(client, "policy.yaml", POLICY)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(_uri("policy.yaml")))
    )
    assert symbols is not None
    top = symbols[0]
    assert isinstance(top, lsp.DocumentSymbol)
    assert (top.name, top.detail, top.kind) == (
        "replica-limit",
        "ValidatingAdmissionPolicy",
        lsp.SymbolKind.Class,
    )
    assert [c.name for c in top.children or []] == [
        "replicas",
        "variables.replicas <= 5",
        "variables.replicas > 0 && object.spec.replica > 0",
        "object.spec.minReadySeconds > 0",
        "variables.replicas",
    ]
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="replica"))
    assert found is not None
    assert sorted((s.name, s.location.uri) for s in found) == [
        ("replica-limit", _uri("policy.yaml")),
        ("replica-limit-binding", _uri("binding.yaml")),
    ]


async def _fixes(
    client: LanguageClient, name: str, text: str, diagnostics: list[lsp.Diagnostic]
) -> dict[str, str]:
    doc = lsp.TextDocumentIdentifier(_uri(name))
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            doc,
            lsp.Range(lsp.Position(0, 0), lsp.Position(len(text.splitlines()), 0)),
            lsp.CodeActionContext(diagnostics=diagnostics),
        )
    )
    out: dict[str, str] = {}
    for action in actions or []:
        assert (
            isinstance(action, lsp.CodeAction) and action.edit is not None and action.edit.changes is not None
        )
        out[action.title] = _apply(text, list(action.edit.changes[doc.uri]))
    return out


@pytest.mark.asyncio
async def test_quick_fixes_of_the_policy(client: LanguageClient) -> None:
    diagnostics = await _open(client, "policy.yaml", POLICY)
    fixes = await _fixes(client, "policy.yaml", POLICY, diagnostics)
    assert fixes == {
        "Change to 'failurePolicy'": POLICY.replace("failurPolicy", "failurePolicy"),
        # No fix for object.spec.replicas: a Deployment's replicas is defaulted to 1 before
        # admission (SetDefaults_Deployment), so it is never absent and never hinted.
        "Change to 'replicas'": POLICY.replace("object.spec.replica >", "object.spec.replicas >"),
        "Move to messageExpression (as a CEL string)": POLICY.replace(
            'message: "too many {{ .spec.replicas }}"',
            "messageExpression: '\"too many {{ .spec.replicas }}\"'",
        ),
        "Guard with has(object.spec.minReadySeconds)": POLICY.replace(
            "expression: object.spec.minReadySeconds > 0",
            "expression: has(object.spec.minReadySeconds) && object.spec.minReadySeconds > 0",
        ),
        "Read with .?minReadySeconds.orValue(0)": POLICY.replace(
            "object.spec.minReadySeconds > 0", "object.spec.?minReadySeconds.orValue(0) > 0"
        ),
        "Compare explicitly: == true": POLICY.replace(
            "expression: variables.replicas\n", "expression: variables.replicas == true\n"
        ),
    }


@pytest.mark.asyncio
async def test_quick_fixes_of_the_binding(client: LanguageClient) -> None:
    diagnostics = await _open(client, "binding.yaml", BINDING)
    fixes = await _fixes(client, "binding.yaml", BINDING, diagnostics)
    assert fixes == {
        "Remove 'Warn' from validationActions": BINDING.replace("[Deny, Warn]", "[Deny]"),
        "Remove 'Deny' from validationActions": BINDING.replace("[Deny, Warn]", "[Warn]"),
        "Add parameterNotFoundAction: Deny": BINDING + "    parameterNotFoundAction: Deny\n",
    }


@pytest.mark.asyncio
async def test_workspace_scan_reports_progress(client: LanguageClient) -> None:
    for _ in range(100):
        reports = [r for values in client.progress_reports.values() for r in values]
        if any(isinstance(r, lsp.WorkDoneProgressEnd) for r in reports):
            break
        await asyncio.sleep(0.05)
    assert isinstance(reports[0], lsp.WorkDoneProgressBegin)
    assert isinstance(reports[-1], lsp.WorkDoneProgressEnd) and reports[-1].message == "indexed 2 files"
