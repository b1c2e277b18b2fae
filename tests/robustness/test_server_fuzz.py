"""The real server under random edits and requests (hypothesis): it never errors, never dies,
and every diagnostic it publishes lies inside the document it describes.

One server process serves all examples (started once, driven from a background event loop).
CI runs a bounded number of examples; `VAP_LSP_FUZZ_EXAMPLES=2000 pytest tests/robustness`
runs a long campaign.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

from vap_lsp.text import LineIndex

EXAMPLES = int(os.environ.get("VAP_LSP_FUZZ_EXAMPLES", "40"))

SEED_TEXT = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: fuzz
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
  variables:
    - name: containers
      expression: "object.spec.template.spec.containers"
  validations:
    - expression: |
        variables.containers.all(c, c.image.startsWith('registry.example.com/'))
      messageExpression: >-
        'bad image in ' + object.metadata.name
    - expression: 'object.spec.replicas <= int(params.data.max)'
      reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: fuzz-binding
spec:
  policyName: fuzz
  validationActions: [Deny]
  paramRef: {name: limits, parameterNotFoundAction: Deny}
"""

PIECES = [
    "", " ", "\n", "  ", "- ", ": ", "{", "}", "[", "]", "'", '"', "|", ">-", "#", "&a", "*a", "---\n",
    "object.", "spec.", "c.", "variables.", "has(", ")", "(", ",", " && ", " || ", "==", "'x'", "1",
    "all(c, c.", "expression: ", "name: ", "failurePolicy: ", "é", "😀", "\t", "\\", "{{ .Values.x }}",
]  # fmt: skip

T = TypeVar("T")


class ServerHarness:
    """A server subprocess and a client whose event loop runs on a background thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client = LanguageClient("vap-lsp-fuzz", "1")
        self.published: dict[str, lsp.PublishDiagnosticsParams] = {}
        published = self.published

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            published[params.uri] = params

        self.run(self._start())

    async def _start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "vap_lsp", "serve")
        await self.client.initialize_async(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(
                    general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16])
                ),
                initialization_options={"vapLsp": {"debounceMs": 0}},
            )
        )
        self.client.initialized(lsp.InitializedParams())

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        async def stop() -> None:
            await self.client.shutdown_async(None)
            self.client.exit(None)
            await self.client.stop()

        try:
            self.run(stop(), timeout=20)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerHarness]:
    harness = ServerHarness()
    yield harness
    harness.close()


_uris = (f"file:///fuzz/doc{i}.yaml" for i in itertools.count())

edit_strategy = st.tuples(
    st.floats(min_value=0, max_value=1),  # where (fraction of the text)
    st.integers(min_value=0, max_value=12),  # how many characters to delete
    st.lists(st.sampled_from(PIECES), max_size=4).map("".join),  # what to insert
)
request_strategy = st.tuples(
    st.sampled_from(
        ["hover", "completion", "signature", "definition", "actions", "symbols", "tokens", "hints"]
    ),
    st.floats(min_value=0, max_value=1),
)


def _position(lines: LineIndex, offset: int) -> lsp.Position:
    p = lines.position(offset)
    return lsp.Position(p.line, p.character)


async def _request(client: LanguageClient, uri: str, kind: str, pos: lsp.Position, end: lsp.Position) -> Any:
    doc = lsp.TextDocumentIdentifier(uri=uri)
    if kind == "hover":
        return await client.text_document_hover_async(lsp.HoverParams(doc, pos))
    if kind == "completion":
        return await client.text_document_completion_async(lsp.CompletionParams(doc, pos))
    if kind == "signature":
        return await client.text_document_signature_help_async(lsp.SignatureHelpParams(doc, pos))
    if kind == "definition":
        return await client.text_document_definition_async(lsp.DefinitionParams(doc, pos))
    if kind == "actions":
        rng = (
            lsp.Range(pos, end)
            if (end.line, end.character) >= (pos.line, pos.character)
            else lsp.Range(end, pos)
        )
        return await client.text_document_code_action_async(
            lsp.CodeActionParams(doc, rng, lsp.CodeActionContext(diagnostics=[]))
        )
    if kind == "symbols":
        return await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
    if kind == "tokens":
        return await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc))
    full = lsp.Range(lsp.Position(0, 0), lsp.Position(10_000, 0))
    return await client.text_document_inlay_hint_async(lsp.InlayHintParams(doc, full))


def _assert_inside(text: str, diagnostics: list[lsp.Diagnostic]) -> None:
    lines = LineIndex(text)
    for d in diagnostics:
        for p in (d.range.start, d.range.end):
            assert 0 <= p.line < lines.line_count, (p, d.message)
            line_text = text[lines.line_start(p.line) : lines.line_end(p.line)]
            assert 0 <= p.character <= LineIndex(line_text).position(len(line_text)).character, (p, d.message)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.one_of(edit_strategy, request_strategy), min_size=1, max_size=12))
def test_random_edits_and_requests(server: ServerHarness, operations: list[tuple[Any, ...]]) -> None:
    uri = next(_uris)
    text = SEED_TEXT
    version = 1
    client = server.client
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text))
    )
    for op in operations:
        lines = LineIndex(text)
        if isinstance(op[0], float):  # an edit
            where, delete, insert = op
            start = int(where * len(text))
            end = min(len(text), start + delete)
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(_position(lines, start), _position(lines, end)), text=insert
            )
            text = text[:start] + insert + text[end:]
            version += 1
            client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version=version, uri=uri), [change]
                )
            )
        else:
            kind, where = op
            offset = int(where * len(text))
            pos = _position(lines, offset)
            end = _position(lines, min(len(text), offset + 10))
            server.run(_request(client, uri, kind, pos, end))  # raises on a JSON-RPC error

    # The server is alive and its last diagnostics describe the last text.
    server.run(
        client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    )

    async def settled() -> lsp.PublishDiagnosticsParams:
        for _ in range(600):
            params = server.published.get(uri)
            if params is not None and params.version == version:
                return params
            await asyncio.sleep(0.05)
        raise AssertionError(f"no diagnostics for version {version}")

    published = server.run(settled())
    _assert_inside(text, list(published.diagnostics))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
