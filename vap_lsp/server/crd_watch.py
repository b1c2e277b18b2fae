"""CRDs from outside the workspace files (`vapLsp.crds`, else the configuration's `crds`), and
the configuration files themselves, re-read when they change on disk.

The client's `vapLsp.crds`, when it sets it, replaces the configuration's `crds`: its paths and
globs are relative to each workspace folder (`analysis.crds.load_crds`), one external source per
folder. Otherwise every configuration file the server has met (`ConfigResolver.current`) gives its
own `crds` (absolute paths), one source per file. Either way they rank below the workspace's own
CRDs. Changes on disk arrive as `workspace/didChangeWatchedFiles`, for which the server registers
one set of watchers dynamically when the client can (`didChangeWatchedFiles.dynamicRegistration`):
the CRD paths and the configuration files (`.vap-lsp.yaml`, `.vap-lsp.yml`, `pyproject.toml`); a
changed configuration re-reads the CRDs, moves the watchers and re-checks every open document.
Without dynamic registration, the CRDs are re-read when the settings change and a configuration
saved in the editor still re-checks (`diagnostics`). Handlers only schedule: the reading runs in
the thread pool (`off_loop`), and diagnostics are re-published when something changed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.analysis.files import GLOB_CHARS
from vap_lsp.config import CONFIG_FILES, CRD_SOURCE_PREFIX, Config, configs_for, configured_crds
from vap_lsp.server.worker import off_loop

if TYPE_CHECKING:
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)

REGISTRATION_ID = "vap-lsp-crds"
SOURCE_PREFIX = "vapLsp.crds "
# Under each workspace folder: the configuration files that may appear anywhere in it.
CONFIG_GLOB = "**/{" + ",".join(CONFIG_FILES) + "}"


class CrdSettingState:
    """What was last registered and reported, so a repeated setting does not re-register."""

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


def _folder_roots(ls: VapLanguageServer) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for folder in list(ls.workspace.folders.values()):
        path = uris.to_fs_path(folder.uri)
        if path is not None:
            out.append((folder.uri, Path(path)))
    return out


def _configs(ls: VapLanguageServer, roots: list[tuple[str, Path]]) -> list[Config]:
    """The configuration files of the workspace folders: the one each folder is under (maybe
    above it), and those met inside them (by documents, the scan or a watcher), re-read if changed."""
    folders = [root for _, root in roots]
    above = configs_for(ls.config, folders)
    inside = [c for c in ls.config.current() if c.path and any(c.path.is_relative_to(f) for f in folders)]
    return list({c.path: c for c in (*above, *inside)}.values())


def reload_crds(ls: VapLanguageServer) -> tuple[bool, list[str]]:
    """Read the CRDs of the setting (or of the configuration) into the index (thread pool only).

    Returns whether the index's CRDs changed, and the problems not reported yet (a missing
    path, a file without a CRD, what the API server would reject in a CRD)."""
    from vap_lsp.analysis.crds import LoadedCRDs, load_crds

    patterns = ls.settings.crds
    before = ls.index.crd_generation
    roots = _folder_roots(ls)
    loads: dict[str, tuple[str, LoadedCRDs]] = {}  # source → (message prefix, CRDs)
    watch: list[str] = []
    if patterns is not None:
        watch.extend(patterns)
        for uri, root in roots:
            loads[SOURCE_PREFIX + uri] = ("vapLsp.crds", load_crds(list(patterns), root=root))
    else:
        folders = [root for _, root in roots]
        configs = _configs(ls, roots)
        for config in configs:
            assert config.path is not None  # only files are cached
            if not any(config.path.is_relative_to(f) for f in folders):
                watch.append(str(config.path))
            watch.extend(str(p) for p in config.crds)
        loads.update((source, (label, loaded)) for source, label, loaded in configured_crds(configs))
    for source in ls.index.external_sources():
        if source.startswith((SOURCE_PREFIX, CRD_SOURCE_PREFIX)) and source not in loads:
            ls.index.set_external_crds(source, [])
    messages: list[str] = []
    for source, (prefix, loaded) in loads.items():
        ls.index.set_external_crds(source, loaded.versions)
        messages.extend(f"{prefix}: {m}" for m in (*loaded.problems, *loaded.findings))
    state = ls.crd_state
    with state.lock:
        state.patterns = tuple(dict.fromkeys(watch))
        new = [m for m in messages if m not in state.reported]
        state.reported = set(messages)
    return ls.index.crd_generation != before, new


def _watch_pattern(pattern: str) -> str:
    """A folder (no glob, no YAML suffix) is watched for the YAML files under it."""
    if GLOB_CHARS & set(pattern) or pattern.endswith((".yaml", ".yml", ".json")):
        return pattern
    return pattern.rstrip("/") + "/**/*.{yaml,yml}"


def _split_glob(pattern: Path) -> tuple[Path, str]:
    """An absolute pattern as (the folder before any glob character, the rest): clients match
    a RelativePattern under its base, which `..` in the pattern would leave."""
    parts = pattern.parts
    fixed = 0
    while fixed < len(parts) - 1 and not (GLOB_CHARS & set(parts[fixed])):
        fixed += 1
    return Path(*parts[:fixed]), "/".join(parts[fixed:])


def _watched_files_caps(ls: VapLanguageServer) -> lsp.DidChangeWatchedFilesClientCapabilities | None:
    caps = ls.client_capabilities.workspace
    return caps.did_change_watched_files if caps is not None else None


def _watchers(ls: VapLanguageServer, patterns: tuple[str, ...]) -> list[lsp.FileSystemWatcher]:
    watched = _watched_files_caps(ls)
    relative = bool(watched is not None and watched.relative_pattern_support)
    absolute: list[Path] = []
    for pattern in patterns:
        glob = Path(_watch_pattern(pattern)).expanduser()
        if glob.is_absolute():
            absolute.append(Path(os.path.normpath(glob)))
        else:
            absolute.extend(Path(os.path.normpath(root / glob)) for _, root in _folder_roots(ls))
    absolute.extend(root / CONFIG_GLOB for _, root in _folder_roots(ls))
    out: list[lsp.FileSystemWatcher] = []
    for path in dict.fromkeys(absolute):
        if relative:
            base, rest = _split_glob(path)
            base_uri = uris.from_fs_path(str(base)) or str(base)
            out.append(
                lsp.FileSystemWatcher(glob_pattern=lsp.RelativePattern(base_uri=base_uri, pattern=rest))
            )
        else:
            out.append(lsp.FileSystemWatcher(glob_pattern=str(path)))
    return out


def _can_register(ls: VapLanguageServer) -> bool:
    watched = _watched_files_caps(ls)
    return bool(watched is not None and watched.dynamic_registration)


async def update_watchers(ls: VapLanguageServer) -> None:
    """(Re-)register the file watchers for what the last reload found, when the client allows it:
    one registration for the CRD paths and the configuration files."""
    state = ls.crd_state
    async with state.watching:
        await _update_watchers(ls, state)


async def _update_watchers(ls: VapLanguageServer, state: CrdSettingState) -> None:
    with state.lock:
        patterns = state.patterns
    roots = tuple(uri for uri, _ in _folder_roots(ls))
    key = (patterns, roots)
    if not _can_register(ls) or state.registered == key:
        return
    try:
        if state.registered is not None and (state.registered[0] or state.registered[1]):
            await ls.client_unregister_capability_async(
                lsp.UnregistrationParams(
                    unregisterations=[
                        lsp.Unregistration(id=REGISTRATION_ID, method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
                    ]
                )
            )
        state.registered = ((), ())
        if patterns or roots:
            options = lsp.DidChangeWatchedFilesRegistrationOptions(watchers=_watchers(ls, patterns))
            await ls.client_register_capability_async(
                lsp.RegistrationParams(
                    registrations=[
                        lsp.Registration(
                            id=REGISTRATION_ID,
                            method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )
            state.registered = key
    except Exception:  # a client that refuses: the CRDs are still re-read on settings changes
        log.warning("could not register file watchers for the CRDs and the configuration", exc_info=True)


async def reload_and_publish(ls: VapLanguageServer, *, rewatch: bool = False) -> bool:
    """Re-read the CRDs in the thread pool; on the loop, show new problems (a few as messages,
    the rest in the log) and move the watchers if `rewatch`. The open documents that read a CRD
    that changed are re-run by the index's listener (`diagnostics.index_changed`), no others.
    Returns whether they changed."""
    ls.diagnostics.hold_index_changes()  # the watchers move before the documents are re-run
    try:
        changed, problems = await off_loop(ls, lambda: reload_crds(ls))
        ls.show_problems([(lsp.MessageType.Warning, m) for m in problems], limit=5)
        if rewatch:
            await update_watchers(ls)
        return changed
    except Exception:
        log.exception("could not read the CRDs of vapLsp.crds or the configuration")
        return False
    finally:
        ls.diagnostics.release_index_changes()


async def refresh(ls: VapLanguageServer) -> None:
    """Re-read the CRDs and move the watchers to what the reload found."""
    await reload_and_publish(ls, rewatch=True)


def config_saved(ls: VapLanguageServer) -> None:
    """A configuration file saved in the editor: re-read the CRDs and the watchers (from a
    synchronous handler; without file watchers this is the only way its `crds` are re-read)."""
    task = asyncio.get_running_loop().create_task(refresh(ls))
    ls.crd_state.tasks.add(task)
    task.add_done_callback(ls.crd_state.tasks.discard)


def _is_config_file(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] in CONFIG_FILES


def register(server: VapLanguageServer) -> None:
    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(
        ls: VapLanguageServer, params: lsp.DidChangeWorkspaceFoldersParams
    ) -> None:
        # pygls has updated `ls.workspace.folders`: the setting is relative to each of them, and
        # their configuration files are watched.
        await refresh(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: VapLanguageServer, params: lsp.DidChangeWatchedFilesParams
    ) -> None:
        # The one handler for every watcher this module registers: CRD files and configuration files.
        if not params.changes:
            return
        configs = [c.uri for c in params.changes if _is_config_file(c.uri)]
        if not configs:
            await reload_and_publish(ls)
            return
        # A configuration file was edited, created or deleted outside the editor: the resolver
        # re-reads a changed file by itself; a new one is met here so that its `crds` count.
        for uri in configs:
            path = uris.to_fs_path(uri)
            if path is not None:
                await off_loop(ls, functools.partial(ls.config.for_path, Path(path)))
        await refresh(ls)
        ls.diagnostics.schedule_all()
