"""Document sync and diagnostics publishing.

Invariants:
- analysis runs in a worker thread, never on the event loop, so the server keeps answering;
- each URI has at most one pending analysis; a newer version cancels the older one;
- results are published only if the document still has the version that was analysed,
  so stale diagnostics never overwrite fresher ones;
- the first publish is not delayed by the language services: they are imported after it;
- extra diagnostics (from "Run against samples") are appended to a URI's analysis when it is
  published, and dropped as soon as that document changes (listeners clear the rest).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp.analysis.engine import FileAnalysis
from vap_lsp.config import CONFIG_FILES
from vap_lsp.server import crd_watch
from vap_lsp.server.convert import to_lsp_diagnostic
from vap_lsp.server.worker import in_background, off_loop

if TYPE_CHECKING:
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)


class DiagnosticsScheduler:
    def __init__(self, server: VapLanguageServer) -> None:
        self.server = server
        self._pending: dict[str, asyncio.Task[None]] = {}
        # Latest analysis per URI with the document version it describes (features read these).
        self.analyses: dict[str, tuple[int | None, FileAnalysis]] = {}
        # Diagnostics other features add to a URI (appended on publishing), and who to tell
        # when a document changes (so they can drop results that depend on it).
        self.extra: dict[str, list[lsp.Diagnostic]] = {}
        self.change_listeners: list[Callable[[str], None]] = []
        self._warmed = False

    def document_changed(self, uri: str) -> None:
        # Features use an analysis only for the version it describes: a stale one would just
        # hold a second model of the file while the new one is built.
        self.analyses.pop(uri, None)
        self.extra.pop(uri, None)
        for listener in list(self.change_listeners):
            listener(uri)

    def set_extra(self, uri: str, diagnostics: list[lsp.Diagnostic]) -> None:
        """Replace the extra diagnostics of `uri` and publish them with its latest analysis."""
        if diagnostics:
            self.extra[uri] = diagnostics
        elif self.extra.pop(uri, None) is None:
            return
        document = self.server.workspace.text_documents.get(uri)
        if document is None:
            # Not open: nothing else is published for it, the extras are all there is.
            self.server.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=list(diagnostics))
            )
            return
        latest = self.analyses.get(uri)
        if latest is None or latest[0] != document.version:
            self.schedule(uri, immediate=True)  # that run publishes the extras with fresh results
            return
        encoding = str(self.server.workspace.position_encoding or "utf-16")
        analysis = latest[1]
        published = [to_lsp_diagnostic(d, analysis.lines, encoding) for d in analysis.diagnostics]
        self.server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=published + self.extra.get(uri, []), version=document.version
            )
        )

    def schedule(self, uri: str, *, immediate: bool = False) -> None:
        previous = self._pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        delay = 0.0 if immediate else self.server.settings.debounce_seconds
        self._pending[uri] = asyncio.get_running_loop().create_task(self._run(uri, delay))

    def schedule_all(self) -> None:
        for uri in list(self.server.workspace.text_documents):
            self.schedule(uri, immediate=True)

    def forget(self, uri: str) -> None:
        task = self._pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.analyses.pop(uri, None)
        self.extra.pop(uri, None)
        # Reading and parsing the file on disk can take seconds: not on the event loop.
        in_background(self.server, functools.partial(self.server.reindex_from_disk, uri))
        self.server.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    async def _run(self, uri: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            document = self.server.workspace.get_text_document(uri)
            version, text = document.version, document.source
            analysis = await off_loop(self.server, functools.partial(self.server.analyse, uri, text))
            current = self.server.workspace.text_documents.get(uri)
            if current is None or current.version != version:
                return  # closed or edited meanwhile: a newer run is (or was) scheduled
            self.analyses[uri] = (version, analysis)
            encoding = str(self.server.workspace.position_encoding or "utf-16")
            diagnostics = [to_lsp_diagnostic(d, analysis.lines, encoding) for d in analysis.diagnostics]
            diagnostics += self.extra.get(uri, [])
            self.server.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
            )
            if not self._warmed:
                self._warmed = True
                in_background(self.server, self.server.warm_features)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("analysis of %s failed", uri)
        finally:
            task = self._pending.get(uri)
            if task is asyncio.current_task():
                del self._pending[uri]

    async def idle(self) -> None:
        """Wait until no analysis is pending (used by tests and shutdown)."""
        while self._pending:
            await asyncio.gather(*self._pending.values(), return_exceptions=True)


def register(server: VapLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: VapLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.diagnostics.schedule(params.text_document.uri, immediate=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: VapLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.diagnostics.document_changed(params.text_document.uri)
        ls.diagnostics.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: VapLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.diagnostics.schedule(params.text_document.uri, immediate=True)
        if params.text_document.uri.rsplit("/", 1)[-1] in CONFIG_FILES:
            ls.diagnostics.schedule_all()  # the configuration changed: every document may change
            crd_watch.config_saved(ls)  # and its `crds` may have (clients without file watchers)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: VapLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.diagnostics.forget(params.text_document.uri)
