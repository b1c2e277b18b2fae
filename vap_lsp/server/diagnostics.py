"""Diagnostics: when to analyse each open document, and publishing the results.

The scheduler is fed by the state (`server.state`), the worker (`server.worker`) and two
callbacks (send a publication, warm the language services), never by the server object; the
document-sync handlers that drive it are in `server.sync`.

Invariants:
- analysis runs in a worker thread, never on the event loop, so the server keeps answering;
- when to analyse is `server.pacing`'s policy: at once for a document that analyses fast, after
  a pause in the edits (growing with its measured analysis time) for a slow one, or after the
  explicit `debounceMs`;
- a document has at most one analysis running; edits meanwhile are coalesced into one
  follow-up run on the newest text when it ends (never a queue, never two side by side);
- results are published only if the document is still open and has the version that was
  analysed, so stale diagnostics never overwrite fresher ones;
- the first publish is not delayed by the language services: they are imported after it, nor
  any publish by the garbage its analysis left: the cyclic collector is held until it is sent;
- until this process has imported its engine, documents go to the startup analyser
  (`server.startup_analyser`, a second process that started warm); its result is converted and
  published like any other, and the scheduler falls back to its own analysis whenever the
  helper cannot answer; the helper is retired when the engine import ends;
- the same diagnostics are never published twice for one version (the server's own analysis
  after the workspace scan usually repeats the startup analyser's, or a save changes nothing);
- extra diagnostics (from "Run against samples") are appended to a URI's analysis when it is
  published, and dropped as soon as that document changes (listeners clear the rest);
- a change of the workspace index (a document analysed, a file re-read, CRDs reloaded) re-runs
  exactly the open documents whose last analysis read what changed (`workspace.recording`),
  paced like an edit; a document analysed while the change happened is re-run if its new
  analysis read it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp import collector
from vap_lsp.analysis.model.workspace import Read, recording
from vap_lsp.cancel import Cancelled, Token, scope
from vap_lsp.server.convert import to_lsp_diagnostic
from vap_lsp.server.pacing import Pacer, Pacing
from vap_lsp.server.preload import engine_ready
from vap_lsp.server.state import Analysing, ServerState
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.analysis.diagnostics import Diagnostic
    from vap_lsp.analysis.engine import FileAnalysis
    from vap_lsp.server.startup_analyser import StartupAnalyser
    from vap_lsp.server.worker import Worker

log = logging.getLogger(__name__)


class _Document:
    """Scheduling state of one open document; a reopened document gets a new one, so a run
    of the closed one can tell it is stale even if the version numbers repeat."""

    def __init__(self, pacing: Pacing) -> None:
        self.pacer = Pacer(pacing)
        self.timer: asyncio.Task[None] | None = None  # waits to start the next run
        # What its last own analysis read from the workspace index, and what changed in the
        # index while a run was under way (checked against that run's reads when it ends).
        self.reads: frozenset[Read] = frozenset()
        self.changed_meanwhile: set[Read] = set()
        # The running analysis's: set when an edit or closing makes its result unpublishable.
        self.token = Token()


class DiagnosticsScheduler:
    def __init__(
        self,
        state: ServerState,
        worker: Worker,
        publish: Callable[[lsp.PublishDiagnosticsParams], None],
        *,
        warm: Callable[[], None] = lambda: None,
        pacing: Pacing | None = None,
        startup_analyser: StartupAnalyser | None = None,
    ) -> None:
        self.state = state
        self.worker = worker
        self._send = publish  # textDocument/publishDiagnostics, from the event loop
        self._warm = warm  # in the pool after the first publish (the language services' imports)
        self.startup_analyser = startup_analyser
        # What each URI's last publication said, for which version: not sent twice.
        self._published: dict[str, tuple[int | None, list[lsp.Diagnostic]]] = {}
        self.pacing = pacing or Pacing()
        self._documents: dict[str, _Document] = {}
        # Latest analysis per URI with the document version it describes (features read these).
        self.analyses = state.analyses
        # Diagnostics other features add to a URI (appended on publishing), and who to tell
        # when a document changes (so they can drop results that depend on it).
        self.extra: dict[str, list[lsp.Diagnostic]] = {}
        self.change_listeners: list[Callable[[str], None]] = []
        self._warmed = False
        # Seams for tests (a fake clock, timers and analysis durations); `analyse` runs in the pool.
        self.clock: Callable[[], float] = time.perf_counter
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        # (uri, text) -> analysis: the server's, with the document's configuration and the client's settings.
        self.analyse: Callable[[str, str], FileAnalysis] = state.analyse
        # Runs started, for the structural tests and the benchmark's burst figures.
        self.runs = 0
        self._running: set[asyncio.Task[None]] = set()  # also those of documents closed meanwhile
        state.index.listeners.append(self._index_changed_in_thread)

    def _document(self, uri: str) -> _Document:
        document = self._documents.get(uri)
        if document is None:
            document = self._documents[uri] = _Document(self.pacing)
        return document

    def document_changed(self, uri: str) -> None:
        """An edit: its run is paced (`schedule` arms it); bookkeeping only, no event loop needed.
        A run under way is superseded (never published): it stops at its next checkpoint."""
        document = self._document(uri)
        document.token.cancel()
        document.pacer.edit(self.clock())
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
        document = self.state.workspace.text_documents.get(uri)
        if document is None:
            # Not open: nothing else is published for it, the extras are all there is.
            self._publish(uri, None, list(diagnostics))
            return
        latest = self.analyses.get(uri)
        if latest is None or latest[0] != document.version:
            self.schedule(uri, immediate=True)  # that run publishes the extras with fresh results
            return
        encoding = self.state.position_encoding
        analysis = latest[1]
        published = [to_lsp_diagnostic(d, analysis.lines, encoding, uri) for d in analysis.diagnostics]
        self._publish(uri, document.version, published + self.extra.get(uri, []))

    def schedule(self, uri: str, *, immediate: bool = False) -> None:
        """Arm the next run of `uri`: as the pacing says after an edit (`document_changed`), as
        soon as none is running when `immediate` (open, save, settings, extras). Nothing for a
        document that is not open (a didSave of another file)."""
        if not self.state.is_open(uri):
            return
        document = self._document(uri)
        if immediate:
            document.pacer.request(self.clock())
        self._arm(uri, document)

    def _index_changed_in_thread(self, uri: str, reads: frozenset[Read]) -> None:
        """(The index's listener, any thread.) The documents that read what changed are re-run
        from the event loop; the folder scan notifies nothing (all are re-run when it ends)."""
        loop = self.state.event_loop
        if self.state.scanning or loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.index_changed, uri, reads)

    def index_changed(self, uri: str, reads: frozenset[Read]) -> None:
        """The index's answer to `reads` changed (through `uri`, on the event loop): re-run the
        other open documents that read one of them."""
        for other, document in list(self._documents.items()):
            if other == uri or other not in self.state.workspace.text_documents:
                continue
            if document.pacer.running:
                document.changed_meanwhile |= reads
            elif document.reads & reads:
                document.pacer.depend(self.clock())
                self._arm(other, document)

    def schedule_all(self) -> None:
        for uri in list(self.state.workspace.text_documents):
            self.schedule(uri, immediate=True)

    def forget(self, uri: str) -> None:
        document = self._documents.pop(uri, None)
        if document is not None:
            document.token.cancel()  # a running analysis stops at its next checkpoint, unpublished
            if document.timer is not None:
                document.timer.cancel()
        self.analyses.pop(uri, None)
        self.extra.pop(uri, None)
        # Reading and parsing the file on disk can take seconds: not on the event loop.
        self.worker.background(functools.partial(self.state.reindex_from_disk, uri))
        self._published.pop(uri, None)
        self._send(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def _publish(self, uri: str, version: int | None, diagnostics: list[lsp.Diagnostic]) -> None:
        if self._published.get(uri) == (version, diagnostics):
            return
        self._published[uri] = (version, diagnostics)
        self._send(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def _arm(self, uri: str, document: _Document) -> None:
        if document.timer is not None:
            document.timer.cancel()
            document.timer = None
        when = document.pacer.start_time(self.state.settings.debounce_seconds)
        if when is None:
            return
        # A task even without a delay: notifications read together are applied before it runs.
        delay = when - self.clock()
        document.timer = asyncio.get_running_loop().create_task(self._start_after(uri, document, delay))

    async def _start_after(self, uri: str, document: _Document, delay: float) -> None:
        if delay > 0:
            await self.sleep(delay)
        if self._documents.get(uri) is not document or document.timer is not asyncio.current_task():
            return
        document.timer = None
        current = self.state.workspace.text_documents.get(uri)
        if current is None:
            return
        measured = document.pacer.start()
        document.token = Token()  # an edit from now on supersedes this run
        self.runs += 1
        run = asyncio.get_running_loop().create_task(
            self._run(uri, document, current.version, current.source, measured)
        )
        self._running.add(run)
        run.add_done_callback(self._running.discard)

    def _timed_analysis(
        self, uri: str, version: int | None, text: str, token: Token
    ) -> tuple[FileAnalysis, frozenset[Read], float]:
        started = self.clock()
        running = self.state.analysing[uri] = Analysing(version, text)
        try:
            with scope(token), recording() as reads:
                analysis = self.analyse(uri, text)
            running.result = analysis
        finally:
            running.done.set()
            if self.state.analysing.get(uri) is running:
                del self.state.analysing[uri]
        elapsed = self.clock() - started
        if self.startup_analyser is not None:  # (retired at the engine import, unless never started)
            self.retire_startup_analyser()
        return analysis, frozenset(reads), elapsed

    async def _own_analysis(self, uri: str, document: _Document, version: int | None, text: str) -> None:
        """This process's analysis of a version the startup analyser answered for (an edit
        supersedes it: it stops at its next checkpoint)."""
        try:
            own, reads, _ = await self.worker.run(
                functools.partial(self._timed_analysis, uri, version, text, document.token)
            )
        except Cancelled:
            return
        current = self.state.workspace.text_documents.get(uri)
        if self._documents.get(uri) is document and current is not None and current.version == version:
            self.analyses[uri] = (version, own)
            document.reads = reads

    def retire_startup_analyser(self) -> None:
        """End the helper process (from any thread; a request in flight finishes first): this
        process has its engine, so no document goes to the helper any more, opened or not."""
        analyser, self.startup_analyser = self.startup_analyser, None
        if analyser is not None:
            analyser.close()

    def _early_diagnostics(self, uri: str, text: str) -> tuple[list[Diagnostic], LineIndex, float] | None:
        """The startup analyser's diagnostics for `text` (blocking: a thread, not the loop), or
        None when this process must analyse it itself."""
        analyser = self.startup_analyser
        if analyser is None:
            return None
        if self.state.might_be_static(uri, text):
            return None  # static manifests and AdmissionConfigurations: the server's own engine
        started = self.clock()
        settings, excluded = self.state.document_settings(uri)
        records = (
            []
            if excluded
            else analyser.diagnostics(uri, text, settings, crds_elsewhere=self.state.crds_elsewhere(uri))
        )
        if records is None:
            return None
        return records, LineIndex(text), self.clock() - started

    async def _run(
        self, uri: str, document: _Document, version: int | None, text: str, measured: bool
    ) -> None:
        duration: float | None = None
        # The collection of what the analysis leaves runs after the publish (`vap_lsp.collector`).
        collector.hold()
        try:
            early = None
            if self.startup_analyser is not None and self.startup_analyser.open and not engine_ready():
                # The default executor: the server's pool waits for the engine import.
                early = await asyncio.get_running_loop().run_in_executor(
                    None, functools.partial(self._early_diagnostics, uri, text)
                )
            analysis: FileAnalysis | None = None
            if early is not None:
                records, lines, elapsed = early
            else:
                own, reads, elapsed = await self.worker.run(
                    functools.partial(self._timed_analysis, uri, version, text, document.token)
                )
                analysis, records, lines = own, own.diagnostics, own.lines
                document.reads = reads
            duration = elapsed if measured else None
            current = self.state.workspace.text_documents.get(uri)
            stale = self._documents.get(uri) is not document or current is None or current.version != version
            # VAP_LSP_LOG=debug shows every run (the benchmark counts them).
            log.debug(
                "analysed %s version %s in %.1f ms%s%s",
                uri,
                version,
                elapsed * 1000,
                " by the startup analyser" if analysis is None else "",
                " (stale)" if stale else "",
            )
            if stale:
                return  # closed or edited meanwhile: the follow-up run publishes
            if analysis is not None:
                self.analyses[uri] = (version, analysis)
            encoding = self.state.position_encoding
            diagnostics = [to_lsp_diagnostic(d, lines, encoding, uri) for d in records]
            self._publish(uri, version, diagnostics + self.extra.get(uri, []))
            if not self._warmed:
                self._warmed = True
                self.worker.background(self._warm)
            if analysis is None:
                # The helper's answer is published; this process's own analysis of the same text
                # follows in the background, so its caches (the policy's context, compile results)
                # are warm for the next edit and features get an analysis of this version.
                own_run = asyncio.get_running_loop().create_task(
                    self._own_analysis(uri, document, version, text)
                )
                self._running.add(own_run)
                own_run.add_done_callback(self._running.discard)
        except asyncio.CancelledError:
            raise
        except Cancelled:
            log.debug("analysis of %s version %s superseded", uri, version)
        except Exception:
            log.exception("analysis of %s failed", uri)
        finally:
            collector.release()
            document.pacer.finish(duration)
            if document.changed_meanwhile & document.reads:
                document.pacer.depend(self.clock())
            document.changed_meanwhile = set()
            if self._documents.get(uri) is document:
                self._arm(uri, document)  # the coalesced follow-up, if an edit came meanwhile

    async def idle(self) -> None:
        """Wait until no analysis is running or waiting to start (for tests)."""
        while True:
            tasks = [d.timer for d in self._documents.values() if d.timer is not None]
            tasks += self._running
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)
