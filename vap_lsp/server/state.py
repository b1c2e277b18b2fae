"""The server's state, in one place: open documents (pygls' workspace), client settings, the
project configuration, the workspace index, the analyses of open documents and the caches the
language services share.

Why one module: handlers, the diagnostics scheduler and the CRD watcher all read the same
documents, settings and index; each used to keep its own piece (server attributes, module-level
caches in the feature modules), so what "the current state of a document" meant depended on
who asked. `ServerState` knows nothing of pygls' server object: it reaches the open documents
and the client's message window through the two callbacks it is built with.

Thread-safety: the event loop writes settings and documents; pool threads read them and write
the caches, which are thread-safe (`LruCache`) or dicts filled by single assignments.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.analysis.files import read_text, walk_yaml, walked
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.cancel import checkpoint
from vap_lsp.config import Config, ConfigResolver, project_root
from vap_lsp.features.snapshot import DocumentSnapshot, make_snapshot
from vap_lsp.lru import LruCache
from vap_lsp.server.convert import encoding_name
from vap_lsp.server.settings import ServerSettings, parse_settings
from vap_lsp.static_manifests.gate import mentions_admission_config
from vap_lsp.static_manifests.reader import is_read
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from pygls.workspace import Workspace

    from vap_lsp.analysis.engine import FileAnalysis
    from vap_lsp.features.run_samples import RunValue
    from vap_lsp.static_manifests.admission_config import DeclaredFolder
    from vap_lsp.static_manifests.api import StaticFolder

log = logging.getLogger(__name__)

# Configuration problems shown as messages at once; the rest go to the log.
MAX_CONFIG_MESSAGES = 3


class Analysing:
    """An analysis under way in a thread, for whole-document requests on the same text to wait
    for instead of parsing it again."""

    __slots__ = ("done", "result", "text", "version")

    def __init__(self, version: int | None, text: str) -> None:
        self.version = version
        self.text = text
        self.done = threading.Event()
        self.result: FileAnalysis | None = None


class CrdWatchState:
    """What the CRD watcher last registered and reported (`server.crd_watch`), so a repeated
    setting does not re-register."""

    def __init__(self) -> None:
        # (patterns, workspace folder URIs) the watchers were registered for.
        self.registered: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        # What to watch besides the folders' configuration files, as the last reload found it:
        # the setting's patterns, or the configuration's CRD paths and files outside the folders.
        self.patterns: tuple[str, ...] = ()
        self.reported: set[str] = set()
        self.lock = threading.Lock()
        self.tasks: set[asyncio.Task[None]] = set()  # refreshes in flight (kept from the GC)
        # One (un)registration exchange at a time: two overlapping ones (start-up's and a folder
        # change's) would both see the old state and register the watchers twice.
        self.watching = asyncio.Lock()


class RunResults:
    """ "Run against samples": the URIs that carry diagnostics of the last run (a change to any
    of them clears them all), and the sub-expression values of the last run per policy URI
    (inlay hints, hover)."""

    def __init__(self) -> None:
        self.uris: set[str] = set()
        self.values: dict[str, tuple[str, list[RunValue]]] = {}


class ServerState:
    def __init__(
        self,
        workspace: Callable[[], Workspace],
        show_message: Callable[[lsp.ShowMessageParams], None],
    ) -> None:
        # pygls' workspace (replaced at `initialize`): the open documents and the folders.
        self._workspace = workspace
        self._show_message = show_message
        self.settings = ServerSettings()
        # CRDs, policies and bindings of the workspace folders and open documents.
        self.index = WorkspaceIndex()
        self.scanning = False  # the folder scan re-checks every document when it ends
        # The project's .vap-lsp.yaml / [tool.vap-lsp], re-read when the file changes on disk.
        self.config = ConfigResolver()
        self._reported_config: set[tuple[Path | None, tuple[str, ...]]] = set()
        self._reporting = threading.Lock()
        self.crd_watch = CrdWatchState()
        # Folders the server took as roots because the client gave none (`project_folder`),
        # and the loop's tasks scanning them, kept from the garbage collector until they end.
        self.inferred_folders: set[str] = set()
        self.folder_scans: set[asyncio.Task[None]] = set()
        self.runs = RunResults()
        # The loop that sends messages (set at initialize): pool threads send through it.
        self.event_loop: asyncio.AbstractEventLoop | None = None
        # Latest analysis per URI with the document version it describes (features read these;
        # the diagnostics scheduler writes them), and analyses under way (written by pool threads).
        self.analyses: dict[str, tuple[int | None, FileAnalysis]] = {}
        self.analysing: dict[str, Analysing] = {}
        # Snapshots of the YAML document at the cursor: 16, of 4 million characters in all.
        self._local: LruCache[tuple[str, int | None, int], DocumentSnapshot] = LruCache(
            16, weigh=lambda _, snapshot: len(snapshot.text), max_weight=4_000_000
        )
        # Whole-document snapshots: 8 documents of 16 million characters in all (each keeps its model).
        self._full: LruCache[str, tuple[int | None, str, DocumentSnapshot]] = LruCache(
            8, weigh=lambda _, entry: len(entry[1]), max_weight=16_000_000
        )
        # Line indexes of the current texts of 16 documents (one text per document: its latest).
        self._lines: LruCache[str, tuple[str, LineIndex]] = LruCache(16)
        # Files of the workspace that may hold an AdmissionConfiguration (seen by the scan, a
        # re-read or an analysis), and the static manifests folders each names, by its text.
        self.admission_configs: set[str] = set()
        self._declared: LruCache[tuple[str, str], tuple[DeclaredFolder, ...]] = LruCache(64)

    @property
    def workspace(self) -> Workspace:
        return self._workspace()

    @property
    def position_encoding(self) -> str:
        """The negotiated encoding as `LineIndex` names it (`str()` of pygls' enum is its name)."""
        return encoding_name(self.workspace.position_encoding)

    def is_open(self, uri: str) -> bool:
        workspace = self.workspace
        is_open: Callable[[str], bool] | None = getattr(workspace, "is_open", None)
        return is_open(uri) if is_open is not None else uri in workspace.text_documents

    # Settings and configuration.

    def apply_settings(self, raw: Any) -> None:
        """Client settings (initializationOptions, didChangeConfiguration); problems are shown."""
        self.settings, problems = parse_settings(raw, self.settings)
        for problem in problems:
            self._show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=problem))

    def show_problems(self, problems: list[tuple[lsp.MessageType, str]], *, limit: int) -> None:
        """Problems the user must know of (configuration, CRD files): all in the log, the first
        `limit` also as `window/showMessage`. Callable from any thread: messages are sent from
        the event loop."""
        loop = self.event_loop
        for i, (kind, message) in enumerate(problems):
            log.warning("%s", message)
            if i < limit and loop is not None and not loop.is_closed():
                params = lsp.ShowMessageParams(type=kind, message=message)
                loop.call_soon_threadsafe(self._show_message, params)

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

    # Analysis and the index.

    def analyse(self, uri: str, text: str) -> FileAnalysis:
        """Diagnostics of one open document (called in the thread pool): as kube-apiserver loads
        it when it is in a static manifests folder, else as the API server takes it."""
        from vap_lsp.static_manifests.api import analyse_file, analyse_static_document

        settings, excluded = self.document_settings(uri)
        self._note_admission_config(uri, text)
        fs_path = uris.to_fs_path(uri)
        path = Path(fs_path) if fs_path else None
        folder = self.static_folder_of(uri)
        if folder is not None and path is not None:
            analysis = analyse_static_document(
                text, path, folder, self._settings_of_path, texts=self._open_texts(), crds=self.index.crds()
            )
            self.index.update(uri, analysis.objects, text)
            # Its findings depend on the folder's other policies and bindings (names, references):
            # a change of any re-runs it (`workspace.recording`).
            self.index.policies()
            self.index.bindings()
        else:
            analysis, _ = analyse_file(text, settings, workspace=self.index, uri=uri, path=path)
        if excluded:
            analysis = dataclasses.replace(analysis, diagnostics=[])
        return analysis

    def project_folder(self, uri: str) -> lsp.WorkspaceFolder | None:
        """The folder to take as a workspace folder for a document the client opened without
        giving any (`config.project_root`: its repository), added to the workspace; None when
        the client gave folders, the document is in one already, or it is in no project."""
        folders = self.workspace.folders
        if any(folder not in self.inferred_folders for folder in folders):
            return None  # the client's folders say what the workspace is
        path = uris.to_fs_path(uri)
        if not path or self.scans(Path(path)):  # not a file, or in a folder taken already
            return None
        root = project_root(Path(path))
        folder_uri = uris.from_fs_path(str(root)) if root is not None else None
        if root is None or folder_uri is None or folder_uri in folders:
            return None
        folder = lsp.WorkspaceFolder(uri=folder_uri, name=root.name)
        self.inferred_folders.add(folder_uri)
        self.workspace.add_folder(folder)
        return folder

    # Static manifests: the folders kube-apiserver loads at start-up.

    def _settings_of_path(self, path: Path) -> AnalysisSettings:
        return self.analysis_settings_for(uris.from_fs_path(str(path)) or str(path))

    def _open_texts(self) -> dict[Path, str]:
        """The open documents' texts by path."""
        out: dict[Path, str] = {}
        for uri, document in list(self.workspace.text_documents.items()):
            fs_path = uris.to_fs_path(uri)
            if fs_path:
                out[Path(fs_path)] = document.source
        return out

    def _note_admission_config(self, uri: str, text: str) -> None:
        if mentions_admission_config(text):
            self.admission_configs.add(uri)

    def might_be_static(self, uri: str, text: str) -> bool:
        """Cheap, without the engine: whether `uri` may be analysed in static mode or hold an
        AdmissionConfiguration (the startup analyser, which knows neither, must not answer)."""
        fs_path = uris.to_fs_path(uri)
        if not fs_path or mentions_admission_config(text):
            return bool(fs_path)
        path = Path(fs_path)
        if not is_read(path.name):
            return False
        return self.config_for(uri)[0].static_folder(path) is not None or bool(self.admission_configs)

    def static_folder_of(self, uri: str) -> StaticFolder | None:
        """(A pool thread.) The static manifests folder kube-apiserver reads `uri` from: one its
        configuration's `static-manifests` names, or one an AdmissionConfiguration of the
        workspace names (`static_manifests.api`); None for any other file."""
        from vap_lsp.static_manifests.api import StaticFolder, family_of

        fs_path = uris.to_fs_path(uri)
        if not fs_path or not is_read(Path(fs_path).name):
            return None
        path = Path(fs_path)
        config = self.config_for(uri)[0]
        configured = config.static_folder(path)
        if configured is not None:
            return StaticFolder(configured[0], family_of(configured[1]), str(config.path))
        parent = path.absolute().parent.resolve()
        for declared in self._declared_folders():
            if declared.folder.resolve() == parent:
                return StaticFolder(declared.folder, declared.family, str(declared.source))
        return None

    def _declared_folders(self) -> list[DeclaredFolder]:
        from vap_lsp.static_manifests.api import declared_folders

        found: list[DeclaredFolder] = []
        for uri in sorted(self.admission_configs):
            text = self.text_of(uri)
            if text is None:
                continue
            key = (uri, text)
            cached = self._declared.get(key)
            if cached is None:
                fs_path = uris.to_fs_path(uri)
                settings = self.analysis_settings_for(uri)
                cached = tuple(declared_folders(text, Path(fs_path) if fs_path else None, settings))
                self._declared.put(key, cached)
            found.extend(cached)
        return found

    def scan_workspace(self, added: list[lsp.WorkspaceFolder] | None = None) -> int:
        """Index every YAML file of the workspace folders, or of the folders just `added`
        (open documents: their buffer); files of folders removed meanwhile leave the index.

        No document is re-run for what each file adds or removes: every open one is re-checked
        once the scan ends (`initialized`, `workspace/didChangeWorkspaceFolders`)."""
        errors: list[str] = []
        folders = list(self.workspace.folders.values())
        self.scanning = True
        try:
            self._forget_unscanned()
            count = self._scan(folders if added is None else added, errors)
        finally:
            self.scanning = False
        for message in errors[:20]:
            log.warning("workspace scan: %s", message)
        # Without a folder (a lone file opened) the rest of the repository is unknown.
        self.index.complete = bool(folders)
        return count

    def _forget_unscanned(self) -> None:
        """Drop the closed files the scan would not read now (a workspace folder was removed)."""
        open_documents = self.workspace.text_documents
        for uri in self.index.uris():
            path = uris.to_fs_path(uri)
            if uri not in open_documents and not (path and self.scans(Path(path))):
                self.index.remove(uri)

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
                document = self.workspace.text_documents.get(uri)
                if document is not None:
                    # An open document counts as its buffer. Its own analysis indexes it too, but
                    # only after the scan when the startup analyser published its diagnostics.
                    source: str = document.source
                    self.index.update(uri, parse_text(source)[1], source)
                    continue
                config = configs.get(path.parent)
                if config is None:
                    config = configs[path.parent] = self.config.for_path(path)
                if config.is_excluded(path):
                    continue
                text = read_text(path, errors)
                if text is not None:
                    self._note_admission_config(uri, text)
                    self.index.update(uri, parse_text(text)[1], text)
                    count += 1
        return count

    def reindex_from_disk(self, uri: str) -> None:
        """A closed document counts as what is on disk again, if the folder scan reads that file
        (else, or if it is gone, as nothing: a file outside the folders, hidden or excluded that
        was open must not stay in the index, as it would not after a restart).

        Runs in the thread pool after didClose: if the document was opened again meanwhile, its
        buffer (indexed by its own analysis) wins over the disk.
        """
        from vap_lsp.analysis.engine import parse_text

        path = uris.to_fs_path(uri)
        text = read_text(path, []) if path and self.scans(Path(path)) else None
        if text is not None:
            self._note_admission_config(uri, text)
        parsed = parse_text(text) if text is not None else None
        if uri in self.workspace.text_documents:
            return
        if parsed is None:
            self.index.remove(uri)
        else:
            self.index.update(uri, parsed[1], parsed[0].text)

    def scans(self, path: Path) -> bool:
        """Whether the folder scan reads `path`: under a workspace folder as `walk_yaml` walks,
        not excluded by its configuration."""
        roots = [uris.to_fs_path(folder.uri) for folder in list(self.workspace.folders.values())]
        return any(root and walked(Path(root), path) for root in roots) and not self.config.for_path(
            path
        ).is_excluded(path)

    def analysis_of(self, uri: str, version: int | None, text: str) -> FileAnalysis | None:
        """(A pool thread.) The analysis of exactly this version and text: the latest, or the
        one under way, waited for (a cancelled request stops waiting); None if neither."""
        latest = self.analyses.get(uri)
        if latest is not None and latest[0] == version and latest[1].yaml.text == text:
            return latest[1]
        running = self.analysing.get(uri)
        if running is None or running.version != version or running.text != text:
            return None
        while not running.done.wait(0.05):
            checkpoint()
        return running.result

    # Texts and snapshots for the language services.

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
        analysis = self.analysis_of(uri, document.version, document.source)
        parsed = (analysis.yaml, analysis.objects) if analysis is not None else None
        return make_snapshot(
            uri, document.source, document.version, self.analysis_settings_for(uri), self.index, parsed
        )

    def full_snapshot(self, uri: str) -> DocumentSnapshot:
        """The whole document, reused across requests for one version."""
        document = self.workspace.get_text_document(uri)
        hit = self._full.get(uri)
        if hit is not None and hit[0] == document.version and hit[1] is document.source:
            return hit[2]
        snapshot = self.snapshot(uri)
        self._full.put(uri, (document.version, document.source, snapshot))
        return snapshot

    def local_snapshot(self, uri: str, offset: int) -> DocumentSnapshot:
        """A snapshot of the YAML document at `offset` only (cheap while diagnostics lag behind).

        When the latest analysis describes the current version its parse is reused as is.
        """
        from vap_lsp.features.cel_context import document_local_text

        document = self.workspace.get_text_document(uri)
        latest = self.analyses.get(uri)
        if latest is not None and latest[0] == document.version and latest[1].yaml.text == document.source:
            return self.snapshot(uri)
        text = document.source
        local = document_local_text(text, offset)
        first = len(local) - len(local.lstrip())  # where the kept document starts
        key = (uri, document.version, first)
        hit = self._local.get(key)
        if hit is not None and hit.text == local:
            return hit
        snapshot = make_snapshot(uri, local, document.version, self.analysis_settings_for(uri), self.index)
        self._local.put(key, snapshot)
        return snapshot

    def line_index(self, uri: str) -> LineIndex:
        """The current text's line index, kept while the text is unchanged."""
        source = self.workspace.get_text_document(uri).source
        hit = self._lines.get(uri)
        if hit is not None and hit[0] is source:
            return hit[1]
        lines = LineIndex(source)
        self._lines.put(uri, (source, lines))
        return lines
