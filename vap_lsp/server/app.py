"""The pygls server: wires feature modules to one `VapLanguageServer` instance."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls import uris
from pygls.lsp.server import LanguageServer

from vap_lsp import __version__, collector
from vap_lsp.analysis.files import read_text, walk_yaml
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.workspace import Read, WorkspaceIndex
from vap_lsp.config import Config, ConfigResolver
from vap_lsp.features.snapshot import DocumentSnapshot, make_snapshot
from vap_lsp.server import cel_features, crd_watch, diagnostics, hover_completion, run_features, yaml_features
from vap_lsp.server.preload import import_engine_in_background
from vap_lsp.server.settings import ServerSettings, parse_settings
from vap_lsp.server.startup_analyser import StartupAnalyser
from vap_lsp.server.transport import VapProtocol, exit_now, serve_stdio, serve_tcp

if TYPE_CHECKING:
    from vap_lsp.analysis.engine import FileAnalysis

log = logging.getLogger(__name__)

# Configuration problems shown as messages at once; the rest go to the log.
MAX_CONFIG_MESSAGES = 3

# The engine is imported where it is used, in the thread pool: the server answers `initialize`
# without it, and imports it in the background meanwhile (`server.preload`).


class VapLanguageServer(LanguageServer):
    def __init__(self, startup_analyser: StartupAnalyser | None = None) -> None:
        super().__init__(
            "vap-lsp",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=VapProtocol,
        )
        self.settings = ServerSettings()
        self.diagnostics = diagnostics.DiagnosticsScheduler(self, startup_analyser=startup_analyser)
        # CRDs, policies and bindings of the workspace folders and open documents.
        self.index = WorkspaceIndex()
        self.index.listeners.append(self._index_changed)
        self.scanning = False  # the folder scan re-checks every document when it ends
        self.crd_state = crd_watch.CrdSettingState()
        # The project's .vap-lsp.yaml / [tool.vap-lsp], re-read when the file changes on disk.
        self.config = ConfigResolver()
        self._reported_config: set[tuple[Path | None, tuple[str, ...]]] = set()
        self._reporting = threading.Lock()
        # The loop that sends messages (set at initialize): pool threads send through it.
        self.event_loop: asyncio.AbstractEventLoop | None = None

    def _index_changed(self, uri: str, reads: frozenset[Read]) -> None:
        """(Any thread.) The documents that read what changed are re-run from the event loop."""
        loop = self.event_loop
        if self.scanning or loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self.diagnostics.index_changed, uri, reads)

    def config_for(self, uri: str) -> tuple[Config, Path | None]:
        """The configuration that applies to `uri` (none for unsaved, untitled documents)."""
        fs_path = uris.to_fs_path(uri)
        if not fs_path:
            return Config(), None
        path = Path(fs_path)
        config = self.config.for_path(path)
        problems = (*config.errors, *config.warnings)
        if problems:
            with self._reporting:
                new = (config.path, problems) not in self._reported_config
                self._reported_config.add((config.path, problems))
            if new:  # once per file and content; each problem names the file
                errors = [(lsp.MessageType.Error, p) for p in config.errors]
                warnings = [(lsp.MessageType.Warning, p) for p in config.warnings]
                self.show_problems(errors + warnings, limit=MAX_CONFIG_MESSAGES)
        return config, path

    def show_problems(self, problems: list[tuple[lsp.MessageType, str]], *, limit: int) -> None:
        """Problems the user must know of (configuration, CRD files): all in the log, the first
        `limit` also as `window/showMessage`. Callable from any thread: messages are sent from
        the event loop."""
        loop = self.event_loop
        for i, (kind, message) in enumerate(problems):
            log.warning("%s", message)
            if i < limit and loop is not None and not loop.is_closed():
                params = lsp.ShowMessageParams(type=kind, message=message)
                loop.call_soon_threadsafe(self.window_show_message, params)

    def analysis_settings_for(
        self, uri: str, resolved: tuple[Config, Path | None] | None = None
    ) -> AnalysisSettings:
        """The configuration file's settings for this document, with the client's on top."""
        config, path = resolved or self.config_for(uri)
        client = self.settings
        overrides = dataclasses.replace(client.rules, kubernetes_version=client.analysis.kubernetes_version)
        return config.analysis_settings(path, overrides)

    def samples_for(self, uri: str) -> tuple[str, ...]:
        """`vapLsp.samples` from the client, else the configuration's `samples` (absolute globs)."""
        return self.settings.samples or self.config_for(uri)[0].samples

    def document_settings(self, uri: str) -> tuple[AnalysisSettings, bool]:
        """What one open document is analysed with, and whether the configuration excludes it
        (an excluded file keeps its model for the language services but publishes nothing)."""
        config, path = resolved = self.config_for(uri)
        return self.analysis_settings_for(uri, resolved), path is not None and config.is_excluded(path)

    def crds_elsewhere(self, uri: str) -> bool:
        """Whether CRDs beyond the document itself may type it: workspace folders (scanned),
        `vapLsp.crds`, or the `crds` of its configuration."""
        return bool(self.workspace.folders) or bool(self.settings.crds) or bool(self.config_for(uri)[0].crds)

    def analyse(self, uri: str, text: str) -> FileAnalysis:
        """Diagnostics of one open document (called in the thread pool)."""
        from vap_lsp.analysis.engine import analyse_text

        settings, excluded = self.document_settings(uri)
        analysis = analyse_text(text, settings, workspace=self.index, uri=uri)
        if excluded:
            analysis = dataclasses.replace(analysis, diagnostics=[])
        return analysis

    def scan_workspace(self) -> int:
        """Index every YAML file of the workspace folders (open documents keep their buffer).

        No document is re-run for what each file adds: every open one is re-checked once the
        scan ends (`initialized`)."""
        errors: list[str] = []
        folders = list(self.workspace.folders.values())
        self.scanning = True
        try:
            count = self._scan(folders, errors)
        finally:
            self.scanning = False
        for message in errors[:20]:
            log.warning("workspace scan: %s", message)
        # Without a folder (a lone file opened) the rest of the repository is unknown.
        self.index.complete = bool(folders)
        return count

    def _scan(self, folders: list[lsp.WorkspaceFolder], errors: list[str]) -> int:
        if not folders:
            return 0
        from vap_lsp.analysis.engine import parse_text

        count = 0
        # One configuration lookup per folder of the scan (each walks up to the root).
        configs: dict[Path, Config] = {}
        for folder in folders:
            root = uris.to_fs_path(folder.uri)
            if root is None:
                continue
            for path in walk_yaml(Path(root), errors):
                uri = uris.from_fs_path(str(path)) or str(path)
                if uri in self.workspace.text_documents:
                    continue
                config = configs.get(path.parent)
                if config is None:
                    config = configs[path.parent] = self.config.for_path(path)
                if config.is_excluded(path):
                    continue
                text = read_text(path, errors)
                if text is not None:
                    self.index.update(uri, parse_text(text)[1], text)
                    count += 1
        return count

    def text_of(self, uri: str) -> str | None:
        """The open buffer of `uri`, else the file on disk through the one safe reader (a
        location in another file); None if neither can be read."""
        document = self.workspace.text_documents.get(uri)
        if document is not None:
            source: str = document.source
            return source
        path = uris.to_fs_path(uri)
        return read_text(path, []) if path else None

    def snapshot(self, uri: str) -> DocumentSnapshot:
        """The current version of a document, for language services: parsed by its analysis when
        one of this version exists or is under way, else here."""
        document = self.workspace.get_text_document(uri)
        # The analysis of this version, if there is one or one under way (waited for: parsing
        # the same text again beside it doubles the work and the memory on a large file).
        analysis = self.diagnostics.analysis_of(uri, document.version, document.source)
        parsed = (analysis.yaml, analysis.objects) if analysis is not None else None
        return make_snapshot(
            uri, document.source, document.version, self.analysis_settings_for(uri), self.index, parsed
        )

    @property
    def position_encoding(self) -> str:
        return str(self.workspace.position_encoding or "utf-16")

    def reindex_from_disk(self, uri: str) -> None:
        """A closed document counts as what is on disk again (or nothing, if it is gone).

        Runs in the thread pool after didClose: if the document was opened again meanwhile, its
        buffer (indexed by its own analysis) wins over the disk.
        """
        from vap_lsp.analysis.engine import parse_text

        path = uris.to_fs_path(uri)
        text = read_text(path, []) if path else None
        parsed = parse_text(text) if text is not None else None
        if uri in self.workspace.text_documents:
            return
        if parsed is None:
            self.index.remove(uri)
        else:
            self.index.update(uri, parsed[1], parsed[0].text)

    def warm_features(self) -> None:
        """Import the language services the handlers load on first use.

        Start-up imports only what the first diagnostics need; the diagnostics scheduler calls
        this in the thread pool after its first publish, so the first hover does not pay either.
        """
        for module in (
            *hover_completion.FEATURE_MODULES,
            *cel_features.FEATURE_MODULES,
            *yaml_features.FEATURE_MODULES,
            *run_features.FEATURE_MODULES,
        ):
            try:
                importlib.import_module(module)
            except Exception:  # the handler that needs it will report the failure
                log.exception("could not import %s", module)
        # Everything is loaded: free start-up's garbage, freeze the rest out of later collections.
        collector.freeze_survivors()

    def apply_settings(self, raw: Any) -> None:
        self.settings, problems = parse_settings(raw, self.settings)
        for problem in problems:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=problem))


def create_server(startup_analyser: StartupAnalyser | None = None) -> VapLanguageServer:
    server = VapLanguageServer(startup_analyser)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: VapLanguageServer, params: lsp.InitializeParams) -> None:
        ls.event_loop = asyncio.get_running_loop()
        ls.apply_settings(params.initialization_options)
        # Once the answer is written (the next turn of the loop), import the engine while the
        # client reads it: spawn -> first diagnostics overlaps the client's work, not ours.
        # The startup analyser is of no use once the engine is here (documents then go to it).
        retire = ls.diagnostics.retire_startup_analyser
        asyncio.get_running_loop().call_soon(import_engine_in_background, retire)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: VapLanguageServer, params: lsp.DidChangeConfigurationParams
    ) -> None:
        crds = ls.settings.crds
        ls.apply_settings(params.settings)
        if ls.settings.crds != crds:
            # Re-read the CRDs first, so no analysis runs with the old ones.
            await crd_watch.refresh(ls)
        ls.diagnostics.schedule_all()

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: VapLanguageServer, params: lsp.InitializedParams) -> None:
        count = await yaml_features.scan_workspace_with_progress(ls)
        log.info("indexed %d workspace files", count)
        # vapLsp.crds, else the crds of the configuration files the scan met.
        await crd_watch.reload_and_publish(ls, rewatch=True)
        ls.diagnostics.schedule_all()

    diagnostics.register(server)
    cel_features.register(server)
    yaml_features.register(server)
    run_features.register(server)  # after yaml_features: it extends the code-action provider
    crd_watch.register(server)
    return server


def run_server(
    host: str | None = None, port: int | None = None, startup_analyser: StartupAnalyser | None = None
) -> None:
    logging.basicConfig(level=logging.WARNING, format="vap-lsp: %(levelname)s %(message)s")
    # VAP_LSP_LOG=debug|info: vap-lsp's own log (not pygls's message traffic) on stderr.
    level = os.environ.get("VAP_LSP_LOG", "").upper()
    if level in ("DEBUG", "INFO"):
        logging.getLogger("vap_lsp").setLevel(level)
    # Requests and analyses share the GIL in the thread pool: a 1 ms switch interval (default 5)
    # lets a hover that needs 2 ms of CPU answer in tens of milliseconds, not hundreds, while a
    # large file is analysed.
    sys.setswitchinterval(0.001)
    server = create_server(startup_analyser)
    collector.resume()  # every module the event loop needs is loaded (`vap_lsp.collector`)
    assert isinstance(server.protocol, VapProtocol)
    if host is not None and port is not None:
        code = serve_tcp(server.protocol, host, port)
    else:
        code = serve_stdio(server.protocol, sys.stdin.buffer, sys.stdout.buffer)
    server.diagnostics.retire_startup_analyser()
    exit_now(code)
