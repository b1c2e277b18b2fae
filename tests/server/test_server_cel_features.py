"""CEL editor features through the real server (pytest-lsp): what an editor receives."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

URI = "file:///workspace/cel-policy.yaml"
INITIALIZED: list[lsp.InitializeResult] = []

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
        operations: ["CREATE"]
        resources: ["deployments", "replicasets"]
  variables:
    - name: names
      expression: object.spec.template.spec.containers.map(c, c.name)
  validations:
    - expression: |
        variables.names.all(n, n.startsWith('x')) && object.spec.replicas <= 5
      messageExpression: "'a'.replace('a', 'b')"
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "vap_lsp", "serve"]))
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    INITIALIZED[:] = [
        await lsp_client.initialize_session(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(),
                initialization_options={"vapLsp": {"kubernetesVersion": "1.34", "debounceMs": 20}},
            )
        )
    ]
    yield
    await lsp_client.shutdown_session()


def _open(client: LanguageClient, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=URI, language_id="yaml", version=version, text=text)
        )
    )


def _pos(text: str, needle: str, delta: int = 0) -> lsp.Position:
    offset = text.index(needle) + delta
    line = text.count("\n", 0, offset)
    return lsp.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


async def _hover(client: LanguageClient, text: str, needle: str, delta: int = 0) -> str:
    result = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(URI), _pos(text, needle, delta))
    )
    assert result is not None
    assert isinstance(result.contents, lsp.MarkupContent)
    return result.contents.value


async def _complete(
    client: LanguageClient, text: str, needle: str, delta: int | None = None
) -> lsp.CompletionList:
    pos = _pos(text, needle, len(needle) if delta is None else delta)
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(URI), pos)
    )
    assert isinstance(result, lsp.CompletionList)
    return result


@pytest.mark.asyncio
async def test_hover_root_field_function_variable_and_comprehension_variable(client: LanguageClient) -> None:
    _open(client, POLICY)
    root = await _hover(client, POLICY, "object.spec.replicas", 2)
    assert "object: Deployment" in root
    assert "apps/v1 Deployment, apps/v1 ReplicaSet" in root
    field = await _hover(client, POLICY, "replicas <=", 3)
    assert "replicas: int" in field and "Number of desired pods" in field
    function = await _hover(client, POLICY, "startsWith", 3)
    assert "<string>.startsWith(string) -> bool" in function
    assert "Kubernetes" in function
    variable = await _hover(client, POLICY, "names.all", 2)
    assert "variables.names: list(string)" in variable
    assert "containers.map(c, c.name)" in variable
    local = await _hover(client, POLICY, "n.startsWith", 0)
    assert "n: string" in local and "Comprehension variable" in local


def _policy_with(expression_yaml: str) -> str:
    return POLICY.replace("  validations:\n", f"  validations:\n    - expression: {expression_yaml}\n", 1)


@pytest.mark.asyncio
async def test_completion_after_object_spec_in_a_literal_block_scalar(client: LanguageClient) -> None:
    text = _policy_with("|\n        object.spec.")
    _open(client, text)
    result = await _complete(client, text, "object.spec.\n", len("object.spec."))
    result_labels = {i.label: i for i in result.items}
    assert "replicas" in result_labels
    item = result_labels["replicas"]
    assert item.detail == "int"
    assert isinstance(item.text_edit, lsp.TextEdit)
    pos = _pos(text, "object.spec.\n", len("object.spec."))
    assert item.text_edit.range == lsp.Range(pos, pos)


@pytest.mark.asyncio
async def test_completion_in_a_folded_scalar_replaces_the_typed_prefix(client: LanguageClient) -> None:
    text = _policy_with(">-\n        object.spec.rep")
    _open(client, text)
    result = await _complete(client, text, "object.spec.rep")
    item = next(i for i in result.items if i.label == "replicas")
    assert isinstance(item.text_edit, lsp.TextEdit)
    assert item.text_edit.new_text == "replicas"
    start = _pos(text, "object.spec.rep", len("object.spec."))
    end = _pos(text, "object.spec.rep", len("object.spec.rep"))
    assert item.text_edit.range == lsp.Range(start, end)


@pytest.mark.asyncio
async def test_completion_in_a_double_quoted_scalar_escapes_and_maps_the_range(
    client: LanguageClient,
) -> None:
    text = _policy_with('"\\"x\\" != \\"\\" && object.spec.rep"')
    _open(client, text)
    needle = "object.spec.rep"
    result = await _complete(client, text, needle)
    item = next(i for i in result.items if i.label == "replicas")
    assert isinstance(item.text_edit, lsp.TextEdit)
    assert item.text_edit.range == lsp.Range(
        _pos(text, needle, len("object.spec.")), _pos(text, needle, len(needle))
    )


@pytest.mark.asyncio
async def test_completion_on_an_unfinished_comprehension(client: LanguageClient) -> None:
    text = _policy_with("|\n        object.spec.template.spec.containers.all(c, c.")
    _open(client, text)
    result = await _complete(client, text, "containers.all(c, c.")
    labels = {i.label for i in result.items}
    assert {"image", "name", "ports"} <= labels


@pytest.mark.asyncio
async def test_completion_after_variables_dot(client: LanguageClient) -> None:
    text = _policy_with("|\n        variables.")
    _open(client, text)
    result = await _complete(client, text, "        variables.")
    (item,) = [i for i in result.items if i.label == "names"]
    assert item.detail == "list(string)"


@pytest.mark.asyncio
async def test_signature_help_in_replace(client: LanguageClient) -> None:
    text = _policy_with("|\n        'a'.replace(")
    _open(client, text)
    result = await client.text_document_signature_help_async(
        lsp.SignatureHelpParams(lsp.TextDocumentIdentifier(URI), _pos(text, "'a'.replace(", 12))
    )
    assert result is not None
    labels = [s.label for s in result.signatures]
    assert labels == [
        "<string>.replace(string, string) -> string",
        "<string>.replace(string, string, int) -> string",
    ]
    assert result.active_parameter == 0


SMALL = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: small
spec:
  validations:
    - expression: "size(object.x) > 1 && true"
"""


@pytest.mark.asyncio
async def test_semantic_tokens_decode_to_the_expected_tokens(client: LanguageClient) -> None:
    _open(client, SMALL)
    result = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(lsp.TextDocumentIdentifier(URI))
    )
    assert result is not None
    legend = INITIALIZED[0].capabilities.semantic_tokens_provider
    assert isinstance(legend, lsp.SemanticTokensOptions)
    types = legend.legend.token_types
    decoded = []
    line = char = 0
    data = result.data
    for i in range(0, len(data), 5):
        dl, dc, length, typ, _ = data[i : i + 5]
        line += dl
        char = char + dc if dl == 0 else dc
        decoded.append((line, char, length, types[typ]))
    col = SMALL.splitlines()[6].index("size")
    assert decoded == [
        (6, col, 4, "function"),
        (6, col + 5, 6, "variable"),
        (6, col + 12, 1, "property"),
        (6, col + 15, 1, "operator"),
        (6, col + 17, 1, "number"),
        (6, col + 19, 2, "operator"),
        (6, col + 22, 4, "keyword"),
    ]


@pytest.mark.asyncio
async def test_inlay_hint_shows_a_variables_type(client: LanguageClient) -> None:
    _open(client, POLICY)
    hints = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(
            lsp.TextDocumentIdentifier(URI), lsp.Range(lsp.Position(0, 0), lsp.Position(40, 0))
        )
    )
    assert hints is not None
    (hint,) = hints
    assert hint.label == ": list(string)"
    assert hint.position == _pos(POLICY, "name: names", len("name: names"))
