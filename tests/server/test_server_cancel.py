"""Work nobody waits for stops: a cancelled request and a superseded analysis end at their next
checkpoint (`vap_lsp.cancel`), and a whole-document request waits for the analysis of the same
text under way instead of parsing it a second time."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.workspace import Workspace

from vap_lsp.analysis.engine import FileAnalysis, analyse_text
from vap_lsp.cancel import Cancelled, Token, checkpoint, scope
from vap_lsp.server.app import create_server

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  validations:
    - expression: "object.spec.replicas > 1"
"""


def test_a_cancelled_analysis_raises_cancelled_and_leaves_the_caches_sound() -> None:
    token = Token()
    token.cancel()
    text = POLICY.replace("> 1", "> 12345")  # nothing of it is cached yet
    with scope(token), pytest.raises(Cancelled):
        analyse_text(text)  # not an internal-error diagnostic: the engine's net lets it through
    assert analyse_text(text).diagnostics == analyse_text(text).diagnostics  # and works after


def test_without_a_scope_or_with_a_live_token_checkpoints_pass() -> None:
    checkpoint()
    with scope(Token()):
        checkpoint()


async def test_a_cancelled_request_stops_its_thread() -> None:
    server = create_server()
    started, ended = threading.Event(), threading.Event()

    def spin(params: Any) -> None:
        started.set()
        try:
            while True:  # a long parse: checkpoint after checkpoint
                checkpoint()
                threading.Event().wait(0.001)
        finally:
            ended.set()

    task = asyncio.ensure_future(server.worker.request(spin)(object()))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
    task.cancel()  # what pygls does on $/cancelRequest
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.get_running_loop().run_in_executor(None, ended.wait, 30)


class Gated:
    """A server whose analyses wait at a checkpoint loop until the test opens the gate."""

    def __init__(self, root: Path) -> None:
        self.server = create_server()
        self.server.protocol._workspace = Workspace(root.as_uri())
        self.uri = (root / "p.yaml").as_uri()
        self.gate = threading.Event()
        self.started = threading.Event()
        self.outcomes: list[str] = []
        scheduler = self.server.diagnostics
        scheduler._warmed = True
        scheduler.analyse = self._analyse
        self.published: list[int | None] = []
        self.server.text_document_publish_diagnostics = lambda p: self.published.append(p.version)  # type: ignore[method-assign]

    def _analyse(self, uri: str, text: str) -> FileAnalysis:
        self.started.set()
        try:
            while not self.gate.wait(0.001):
                checkpoint()
        except Cancelled:
            self.outcomes.append("cancelled")
            raise
        self.outcomes.append("finished")
        return analyse_text(text)

    async def open(self, text: str) -> None:
        item = lsp.TextDocumentItem(self.uri, "yaml", 1, text)
        self.server.workspace.put_text_document(item)
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_OPEN](lsp.DidOpenTextDocumentParams(item))
        await asyncio.get_running_loop().run_in_executor(None, self.started.wait, 30)

    async def change(self, version: int, text: str) -> None:
        params = lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=version, uri=self.uri),
            [lsp.TextDocumentContentChangeWholeDocument(text)],
        )
        self.server.workspace.update_text_document(params.text_document, params.content_changes[0])
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CHANGE](params)


async def test_an_edit_stops_the_analysis_it_supersedes(tmp_path: Path) -> None:
    h = Gated(tmp_path)
    await h.open(POLICY)
    await h.change(2, POLICY.replace("> 1", "> 2"))
    for _ in range(3000):  # the superseded run ends by itself, the gate still closed
        if h.outcomes:
            break
        await asyncio.sleep(0.01)
    assert h.outcomes == ["cancelled"]
    h.gate.set()
    await h.server.diagnostics.idle()
    assert h.outcomes == ["cancelled", "finished"]
    assert h.published == [2]


async def test_a_whole_document_request_waits_for_the_analysis_under_way(tmp_path: Path) -> None:
    h = Gated(tmp_path)
    await h.open(POLICY)
    loop = asyncio.get_running_loop()
    waiting = loop.run_in_executor(None, h.server.state.analysis_of, h.uri, 1, POLICY)
    await asyncio.sleep(0.05)
    assert not waiting.done()  # it waits for the run instead of parsing beside it
    h.gate.set()
    found = await asyncio.wait_for(waiting, 30)
    await h.server.diagnostics.idle()
    assert found is h.server.diagnostics.analyses[h.uri][1]
