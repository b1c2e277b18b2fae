"""A newer request of the same kind on the same document supersedes the older one still running:
the older stops at its next checkpoint (`vap_lsp.cancel`) and is answered with ContentModified
(-32801). LSP 3.17, "Implementation Considerations": a server that detects a state change
invalidating the result of a request in execution "can error these requests with
ContentModified", which clients do not show (vscode-languageclient returns the default value,
or re-requests semantic tokens: `RequestsToCancelOnContentModified`). Requests whose answer is
acted on (executeCommand, codeAction, rename, references) are never dropped.

Driven with raw JSON-RPC over a pipe (`test_server_protocol.Pipe`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from lsprotocol import types as lsp

from tests.server.test_server_protocol import TIMEOUT, Pipe
from vap_lsp.cancel import checkpoint
from vap_lsp.features import cel_hover
from vap_lsp.server.worker import supersession_key

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  validations:
    - expression: "object.spec.replicas > 1"
"""
A, B = "file:///ws/a.yaml", "file:///ws/b.yaml"


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    client = Pipe()
    client.initialize()
    client.open(A, POLICY)
    client.open(B, POLICY)
    yield client
    client.close()


class SlowFirstHover:
    """`cel_hover.hover` whose first call runs checkpoint after checkpoint until it is stopped
    (or the guard runs out); later calls are the real hover."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = threading.Event()
        self.real = cel_hover.hover
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        if self.calls > 1:
            return self.real(*args)
        self.started.set()
        try:
            for _ in range(TIMEOUT * 100):
                checkpoint()
                threading.Event().wait(0.01)
        finally:
            self.stopped.set()
        return None


def _hover(pipe: Pipe, uri: str) -> int:
    line = POLICY[: POLICY.index("object.spec")].count("\n")
    return pipe.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 20}}
    )


def _responses(pipe: Pipe, *ids: int) -> list[Any]:
    """The answers to `ids`, in that order whatever order they came in."""
    answers: dict[int, Any] = {}
    while len(answers) < len(ids):
        message = pipe.wait(lambda m: "method" not in m and m.get("id") in ids)
        answers[message["id"]] = message
    return [answers[i] for i in ids]


def test_a_newer_hover_on_the_same_document_supersedes_the_older(
    pipe: Pipe, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = SlowFirstHover()
    monkeypatch.setattr(cel_hover, "hover", slow)
    first = _hover(pipe, A)
    assert slow.started.wait(TIMEOUT)
    second = _hover(pipe, A)
    older, newer = _responses(pipe, first, second)
    assert older["error"]["code"] == -32801  # ContentModified
    assert slow.stopped.wait(TIMEOUT)  # its thread stopped at a checkpoint
    assert "object: dyn" in newer["result"]["contents"]["value"]


def test_a_request_on_another_document_supersedes_nothing(
    pipe: Pipe, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = SlowFirstHover()
    monkeypatch.setattr(cel_hover, "hover", slow)
    first = _hover(pipe, A)
    assert slow.started.wait(TIMEOUT)
    other = _hover(pipe, B)
    assert "result" in pipe.response(other)
    assert not slow.stopped.is_set()  # still running: nobody replaced it
    pipe.notify("$/cancelRequest", {"id": first})  # the client's own cancellation
    assert pipe.response(first)["error"]["code"] == -32800  # RequestCancelled
    assert slow.stopped.wait(TIMEOUT)


DOC = lsp.TextDocumentIdentifier(A)
AT = lsp.Position(0, 0)
RANGE = lsp.Range(AT, AT)


@pytest.mark.parametrize(
    ("params", "method"),
    [
        (lsp.HoverParams(DOC, AT), "textDocument/hover"),
        (lsp.CompletionParams(DOC, AT), "textDocument/completion"),
        (lsp.SignatureHelpParams(DOC, AT), "textDocument/signatureHelp"),
        (lsp.DefinitionParams(DOC, AT), "textDocument/definition"),
        (lsp.SemanticTokensParams(DOC), "textDocument/semanticTokens/full"),
        (lsp.InlayHintParams(DOC, RANGE), "textDocument/inlayHint"),
        (lsp.DocumentSymbolParams(DOC), "textDocument/documentSymbol"),
        (lsp.CodeLensParams(DOC), "textDocument/codeLens"),
    ],
)
def test_what_editors_ask_again_by_themselves_is_superseded(params: Any, method: str) -> None:
    assert supersession_key(params) == (method, A)


@pytest.mark.parametrize(
    "params",
    [
        lsp.ExecuteCommandParams("vapLsp.runAgainstSamples", [A, "p"]),
        lsp.CodeActionParams(DOC, RANGE, lsp.CodeActionContext([])),
        lsp.RenameParams(DOC, AT, "q"),
        lsp.PrepareRenameParams(DOC, AT),
        lsp.ReferenceParams(lsp.ReferenceContext(True), DOC, AT),
        lsp.WorkspaceSymbolParams(""),
    ],
    ids=lambda p: type(p).__name__,
)
def test_what_is_acted_on_is_never_superseded(params: Any) -> None:
    """A command runs for its effect; code actions are asked for the cursor and for each
    diagnostic at once (both lists are shown); a rename or a reference search the user started
    is awaited as such."""
    assert supersession_key(params) is None
