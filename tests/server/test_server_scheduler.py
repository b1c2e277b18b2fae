"""Document bookkeeping: one model per open document, and the index follows open buffers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, cast

from lsprotocol import types as lsp
from pygls.workspace import Workspace

from vap_lsp.analysis.engine import FileAnalysis, analyse_text, parse_text
from vap_lsp.server.app import create_server
from vap_lsp.server.diagnostics import DiagnosticsScheduler
from vap_lsp.server.state import ServerState


def test_a_changed_document_drops_its_stale_analysis_and_extras() -> None:
    # document_changed touches neither the documents nor the worker nor the client.
    scheduler = DiagnosticsScheduler(ServerState(cast(Any, None), print), cast(Any, None), print)
    seen: list[str] = []
    scheduler.change_listeners.append(seen.append)
    scheduler.analyses["file:///a.yaml"] = (1, analyse_text("a: 1\n"))
    scheduler.analyses["file:///b.yaml"] = (4, analyse_text("b: 2\n"))
    scheduler.extra["file:///a.yaml"] = []

    scheduler.document_changed("file:///a.yaml")

    assert list(scheduler.analyses) == ["file:///b.yaml"]  # other documents keep theirs
    assert scheduler.extra == {}
    assert seen == ["file:///a.yaml"]


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: NAME
spec:
  validations:
    - expression: "true"
"""


def test_a_late_reindex_from_disk_does_not_override_a_reopened_buffer(tmp_path: Path) -> None:
    """didClose re-reads the file in the thread pool; if the document is open again by then,
    the buffer's own analysis has indexed it, and the disk must not replace that."""
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY.replace("NAME", "on-disk"), encoding="utf-8")
    uri = path.as_uri()
    server = create_server()
    folders = [lsp.WorkspaceFolder(tmp_path.as_uri(), "ws")]
    server.protocol._workspace = Workspace(tmp_path.as_uri(), workspace_folders=folders)  # as initialize does
    buffer = POLICY.replace("NAME", "in-buffer")
    server.workspace.put_text_document(lsp.TextDocumentItem(uri, "yaml", 2, buffer))
    server.state.index.update(uri, parse_text(buffer)[1], buffer)

    server.state.reindex_from_disk(uri)
    assert [p.name for p in server.state.index.policies()] == ["in-buffer"]

    server.workspace.remove_text_document(uri)  # closed for good: the disk counts again
    server.state.reindex_from_disk(uri)
    assert [p.name for p in server.state.index.policies()] == ["on-disk"]


# The scheduler driving real handlers, with a fake clock and timers, and an analysis whose
# duration and end the test decides: structure, not timing.


class FakeTime:
    """A clock that moves only when the test says so; `sleep` waits for it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for wake, future in list(self.sleepers):
            if wake <= self.now:
                self.sleepers.remove((wake, future))
                if not future.done():
                    future.set_result(None)
        await settle()


async def settle() -> None:
    """Let every task that can run now run (timers due now, the start of runs)."""
    for _ in range(10):
        await asyncio.sleep(0)


class Harness:
    """A server without a client: handlers called directly, publishes collected."""

    def __init__(self, tmp_path: Path) -> None:
        self.server = create_server()
        self.server.protocol._workspace = Workspace(tmp_path.as_uri())
        self.uri = (tmp_path / "policy.yaml").as_uri()
        self.time = FakeTime()
        self.analysed: list[str] = []  # the texts analysed, in order
        self.cost = 0.0  # what the fake clock advances during an analysis
        self.gate = threading.Event()  # analyses wait for it
        self.gate.set()
        self.published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()
        scheduler = self.server.diagnostics
        scheduler.clock = self.time.clock
        scheduler.sleep = self.time.sleep
        scheduler.analyse = self._analyse
        scheduler._warmed = True  # no importing of the language services in the background
        self.server.text_document_publish_diagnostics = self.published.put_nowait  # type: ignore[method-assign]
        self.text = POLICY.replace("NAME", "v1")
        self.version = 1

    def _analyse(self, uri: str, text: str) -> FileAnalysis:
        self.gate.wait()
        self.analysed.append(text)
        self.time.now += self.cost
        return analyse_text(text)

    @property
    def runs(self) -> int:
        return self.server.diagnostics.runs

    async def open(self) -> None:
        item = lsp.TextDocumentItem(self.uri, "yaml", self.version, self.text)
        self.server.workspace.put_text_document(item)
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_OPEN](lsp.DidOpenTextDocumentParams(item))
        await settle()

    async def edit(self) -> None:
        """Rename the policy to `v<next version>` (a full-text change, as an editor may send)."""
        self.version += 1
        self.text = POLICY.replace("NAME", f"v{self.version}")
        params = lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=self.version, uri=self.uri),
            [lsp.TextDocumentContentChangeWholeDocument(self.text)],
        )
        for change in params.content_changes:
            self.server.workspace.update_text_document(params.text_document, change)
        self.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CHANGE](params)
        await settle()

    async def next_publish(self) -> int | None:
        # A guard against hanging, not a timing assertion: runs end as soon as their thread does.
        return (await asyncio.wait_for(self.published.get(), 30)).version


async def test_edits_during_a_running_analysis_make_exactly_one_follow_up_on_the_newest_text(
    tmp_path: Path,
) -> None:
    h = Harness(tmp_path)
    h.gate.clear()  # the analysis of version 1 runs until the test lets it finish
    await h.open()
    assert h.runs == 1
    for _ in range(5):
        await h.edit()  # versions 2..6 arrive while version 1 is analysed
    assert h.runs == 1  # not queued, not run beside it
    h.gate.set()
    assert await h.next_publish() == 6  # version 1's result is stale: never published
    assert h.runs == 2
    assert h.analysed == [POLICY.replace("NAME", "v1"), POLICY.replace("NAME", "v6")]
    await h.server.diagnostics.idle()
    assert h.published.empty()


async def test_a_fast_document_is_analysed_at_once_after_each_edit(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.cost = 0.005
    await h.open()
    assert await h.next_publish() == 1
    for version in range(2, 6):
        await h.edit()  # the fake clock never moves on its own: any delay would never end
        assert await h.next_publish() == version
    assert h.runs == 5


async def test_a_burst_on_a_slow_document_is_analysed_once_after_the_burst(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.open()
    assert await h.next_publish() == 1
    h.cost = 0.4  # a large document: each analysis after an edit takes 400 ms
    await h.edit()
    assert await h.next_publish() == 2  # nothing measured yet: at once
    for _ in range(20):  # 20 edits 30 ms apart: versions 3..22
        await h.time.advance(0.03)
        await h.edit()
    assert h.runs == 2  # no analysis during the burst
    await h.time.advance(0.39)
    assert h.runs == 2  # the pause is not yet as long as an analysis
    await h.time.advance(0.01)
    assert await h.next_publish() == 22
    assert h.runs == 3
    assert h.analysed[-1] == POLICY.replace("NAME", "v22")


async def test_an_explicit_debounce_delays_even_a_fast_document(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.server.state.apply_settings({"vapLsp": {"debounceMs": 150}})
    await h.open()
    assert await h.next_publish() == 1  # opening does not wait
    await h.edit()
    await h.time.advance(0.149)
    assert h.runs == 1
    await h.time.advance(0.001)
    assert await h.next_publish() == 2


async def test_a_document_closed_during_its_analysis_gets_no_stale_diagnostics(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.gate.clear()
    await h.open()
    h.server.workspace.remove_text_document(h.uri)
    h.server.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CLOSE](
        lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(h.uri))
    )
    assert (await h.published.get()).diagnostics == []  # closing clears them
    h.gate.set()
    await h.server.diagnostics.idle()  # the analysis of the closed document has ended
    assert h.analysed == [h.text]
    assert h.published.empty()


# Start-up: until this process has its engine, documents go to the startup analyser.


class FakeStartupAnalyser:
    """Answers with the engine's diagnostics of the text (as the helper process does), or None."""

    def __init__(self, answers: bool = True) -> None:
        self.answers = answers
        self.asked: list[str] = []
        self.open = True

    def diagnostics(self, uri: str, text: str, settings: Any, *, crds_elsewhere: bool) -> list[Any] | None:
        self.asked.append(text)
        return analyse_text(text, settings).diagnostics if self.answers else None

    def close(self) -> None:
        self.open = False


BROKEN = POLICY.replace('"true"', '"object.spec.replicas >"')


async def test_until_the_engine_is_imported_the_startup_analyser_answers_and_is_not_repeated(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr("vap_lsp.server.diagnostics.engine_ready", lambda: False)
    h = Harness(tmp_path)
    helper = FakeStartupAnalyser()
    h.server.diagnostics.startup_analyser = cast(Any, helper)
    h.text = BROKEN
    await h.open()
    published = await asyncio.wait_for(h.published.get(), 30)
    # The helper answered (the server's own analysis, in the background, publishes nothing).
    assert helper.asked == [BROKEN] and h.analysed in ([], [BROKEN])
    codes = [d.code for d in published.diagnostics]
    assert "cel-syntax" in codes and codes == [d.code for d in analyse_text(BROKEN).diagnostics]
    assert published.version == 1

    # The engine is in: its own analysis of the same version follows in the background (warm
    # caches for the next edit, an analysis for the features), unsent: it says the same.
    monkeypatch.setattr("vap_lsp.server.diagnostics.engine_ready", lambda: True)
    await settle()
    await h.server.diagnostics.idle()
    assert h.analysed == [BROKEN]
    assert h.server.diagnostics.analyses[h.uri][0] == 1
    assert h.published.empty()
    assert not helper.open  # closed after it
    h.server.diagnostics.schedule_all()  # e.g. the end of the workspace scan
    await settle()
    await h.server.diagnostics.idle()
    assert h.analysed == [BROKEN, BROKEN]
    assert h.published.empty()

    await h.edit()  # from now on the server's own engine, and the helper is not asked again
    assert await h.next_publish() == 2
    assert helper.asked == [BROKEN]


async def test_a_startup_analyser_that_cannot_answer_leaves_the_analysis_to_the_server(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr("vap_lsp.server.diagnostics.engine_ready", lambda: False)
    h = Harness(tmp_path)
    helper = FakeStartupAnalyser(answers=False)  # dead, or the result depends on other files
    h.server.diagnostics.startup_analyser = cast(Any, helper)
    await h.open()
    assert await h.next_publish() == 1
    assert len(helper.asked) == 1 and len(h.analysed) == 1


async def test_the_same_diagnostics_are_not_published_twice_for_one_version(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    await h.open()
    assert await h.next_publish() == 1
    h.server.diagnostics.schedule(h.uri, immediate=True)  # e.g. a save that changes nothing
    await settle()
    await h.server.diagnostics.idle()
    assert h.runs == 2 and h.published.empty()
    await h.edit()
    assert await h.next_publish() == 2  # a new version is always published
