"""CRDs from outside the workspace files (`vapLsp.crds`, else the configuration's `crds`), and
the configuration files themselves, re-read when they change on disk.

The client's `vapLsp.crds`, when it sets it, replaces the configuration's `crds`: its paths and
globs are relative to each workspace folder (`analysis.crds.load_crds`), one external source per
folder. Otherwise every configuration file the server has met (`ConfigResolver.current`) gives its
own `crds` (absolute paths), one source per file. Either way they rank below the workspace's own
CRDs. Changes on disk arrive as `workspace/didChangeWatchedFiles`, for which the server registers
one set of watchers dynamically when the client can (`didChangeWatchedFiles.dynamicRegistration`):
the CRD paths, the configuration files (`.vap-lsp.yaml`, `.vap-lsp.yml`, `pyproject.toml`) and
the folders' YAML files; a changed configuration re-reads the CRDs, moves the watchers and
re-checks every open document; a changed workspace file that is not open is read again into the
index (`ServerState.reindex_from_disk`), which re-runs the documents that read what it changed.
Without dynamic registration, the CRDs are re-read when the settings change and a configuration
saved in the editor still re-checks (`diagnostics`). Handlers only schedule: the reading runs in
the thread pool (`Worker.run`), and diagnostics are re-published when something changed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.analysis.files import GLOB_CHARS
from vap_lsp.config import CONFIG_FILES, CRD_SOURCE_PREFIX, Config, configs_for, configured_crds

if TYPE_CHECKING:
    from vap_lsp.server.context import Context
    from vap_lsp.server.state import CrdWatchState, ServerState

log = logging.getLogger(__name__)

REGISTRATION_ID = "vap-lsp-crds"
SOURCE_PREFIX = "vapLsp.crds "
# Under each workspace folder: the configuration files that may appear anywhere in it, and the
# YAML files the scan reads (re-read when changed outside the editor).
CONFIG_GLOB = "**/{" + ",".join(CONFIG_FILES) + "}"
YAML_GLOB = "**/*.{yaml,yml}"


def _folder_roots(state: ServerState) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for folder in list(state.workspace.folders.values()):
        path = uris.to_fs_path(folder.uri)
        if path is not None:
            out.append((folder.uri, Path(path)))
    return out


def _configs(state: ServerState, roots: list[tuple[str, Path]]) -> list[Config]:
    """The configuration files of the workspace folders: the one each folder is under (maybe
    above it), and those met inside them (by documents, the scan or a watcher), re-read if changed."""
    folders = [root for _, root in roots]
    above = configs_for(state.config, folders)
    inside = [c for c in state.config.current() if c.path and any(c.path.is_relative_to(f) for f in folders)]
    return list({c.path: c for c in (*above, *inside)}.values())


def reload_crds(state: ServerState) -> tuple[bool, list[str]]:
    """Read the CRDs of the setting (or of the configuration) into the index (thread pool only).

    Returns whether the index's CRDs changed, and the problems not reported yet (a missing
    path, a file without a CRD, what the API server would reject in a CRD)."""
    from vap_lsp.analysis.model.crds import LoadedCRDs, load_crds

    patterns = state.settings.crds
    before = state.index.crd_generation
    roots = _folder_roots(state)
    loads: dict[str, tuple[str, LoadedCRDs]] = {}  # source → (message prefix, CRDs)
    watch: list[str] = []
    if patterns is not None:
        watch.extend(patterns)
        for uri, root in roots:
            loads[SOURCE_PREFIX + uri] = ("vapLsp.crds", load_crds(list(patterns), root=root))
    else:
        folders = [root for _, root in roots]
        configs = _configs(state, roots)
        for config in configs:
            assert config.path is not None  # only files are cached
            if not any(config.path.is_relative_to(f) for f in folders):
                watch.append(str(config.path))
            watch.extend(str(p) for p in config.crds)
        loads.update((source, (label, loaded)) for source, label, loaded in configured_crds(configs))
    for source in state.index.external_sources():
        if source.startswith((SOURCE_PREFIX, CRD_SOURCE_PREFIX)) and source not in loads:
            state.index.set_external_crds(source, [])
    messages: list[str] = []
    for source, (prefix, loaded) in loads.items():
        state.index.set_external_crds(source, loaded.versions)
        messages.extend(f"{prefix}: {m}" for m in (*loaded.problems, *loaded.findings))
    watching = state.crd_watch
    with watching.lock:
        watching.patterns = tuple(dict.fromkeys(watch))
        new = [m for m in messages if m not in watching.reported]
        watching.reported = set(messages)
    return state.index.crd_generation != before, new


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


def _watched_files_caps(ctx: Context) -> lsp.DidChangeWatchedFilesClientCapabilities | None:
    caps = ctx.server.client_capabilities.workspace
    return caps.did_change_watched_files if caps is not None else None


def _watchers(ctx: Context, patterns: tuple[str, ...]) -> list[lsp.FileSystemWatcher]:
    watched = _watched_files_caps(ctx)
    relative = bool(watched is not None and watched.relative_pattern_support)
    absolute: list[Path] = []
    for pattern in patterns:
        glob = Path(_watch_pattern(pattern)).expanduser()
        if glob.is_absolute():
            absolute.append(Path(os.path.normpath(glob)))
        else:
            absolute.extend(Path(os.path.normpath(root / glob)) for _, root in _folder_roots(ctx.state))
    absolute.extend(root / glob for _, root in _folder_roots(ctx.state) for glob in (CONFIG_GLOB, YAML_GLOB))
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


def _can_register(ctx: Context) -> bool:
    watched = _watched_files_caps(ctx)
    return bool(watched is not None and watched.dynamic_registration)


async def update_watchers(ctx: Context) -> None:
    """(Re-)register the file watchers for what the last reload found, when the client allows it:
    one registration for the CRD paths and the configuration files."""
    state = ctx.state.crd_watch
    async with state.watching:
        await _update_watchers(ctx, state)


async def _update_watchers(ctx: Context, state: CrdWatchState) -> None:
    with state.lock:
        patterns = state.patterns
    roots = tuple(uri for uri, _ in _folder_roots(ctx.state))
    key = (patterns, roots)
    if not _can_register(ctx) or state.registered == key:
        return
    try:
        if state.registered is not None and (state.registered[0] or state.registered[1]):
            await ctx.server.client_unregister_capability_async(
                lsp.UnregistrationParams(
                    unregisterations=[
                        lsp.Unregistration(id=REGISTRATION_ID, method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
                    ]
                )
            )
        state.registered = ((), ())
        if patterns or roots:
            options = lsp.DidChangeWatchedFilesRegistrationOptions(watchers=_watchers(ctx, patterns))
            await ctx.server.client_register_capability_async(
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


async def reload_and_publish(ctx: Context, *, rewatch: bool = False) -> bool:
    """Re-read the CRDs in the thread pool; on the loop, show new problems (a few as messages,
    the rest in the log) and, if `rewatch`, move the watchers in the background (a client's
    answer is never waited for: one that never answers must not hold up the documents). The
    open documents that read a CRD that changed are re-run by the index's listener
    (`diagnostics.index_changed`), no others. Returns whether they changed."""
    unchanged: tuple[bool, list[str]] = (False, [])
    # A failure is logged by the worker's guard.
    changed, problems = await ctx.worker.run(
        lambda: ctx.worker.guarded(unchanged, lambda: reload_crds(ctx.state), reload_crds)
    )
    ctx.state.show_problems([(lsp.MessageType.Warning, m) for m in problems], limit=5)
    if rewatch:
        _in_background(ctx, update_watchers(ctx))
    return changed


async def refresh(ctx: Context) -> None:
    """Re-read the CRDs and move the watchers to what the reload found."""
    await reload_and_publish(ctx, rewatch=True)


def _in_background(ctx: Context, work: Coroutine[Any, Any, None]) -> None:
    tasks = ctx.state.crd_watch.tasks
    task = asyncio.get_running_loop().create_task(work)
    tasks.add(task)  # kept from the garbage collector until it ends
    task.add_done_callback(tasks.discard)


def config_saved(ctx: Context) -> None:
    """A configuration file saved in the editor: re-read the CRDs and the watchers (from a
    synchronous handler; without file watchers this is the only way its `crds` are re-read)."""
    _in_background(ctx, refresh(ctx))


def _reindex(state: ServerState, changed: list[str]) -> None:
    for uri in changed:
        state.reindex_from_disk(uri)


def _is_config_file(uri: str) -> bool:
    return uri.rsplit("/", 1)[-1] in CONFIG_FILES


def register(ctx: Context) -> None:
    server = ctx.server

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(params: lsp.DidChangeWatchedFilesParams) -> None:
        # The one handler for every watcher this module registers: CRD files and configuration files.
        if not params.changes:
            return
        configs = [c.uri for c in params.changes if _is_config_file(c.uri)]
        # A workspace file changed outside the editor counts as its new text (or leaves the
        # index); the documents that read what it changed are re-run by the index's listener.
        others = [c.uri for c in params.changes if not _is_config_file(c.uri)]
        if others:
            await ctx.worker.run(functools.partial(_reindex, ctx.state, others))
        if not configs:
            await reload_and_publish(ctx)
            return
        # A configuration file was edited, created or deleted outside the editor: the resolver
        # re-reads a changed file by itself; a new one is met here so that its `crds` count.
        for uri in configs:
            path = uris.to_fs_path(uri)
            if path is not None:
                await ctx.worker.run(functools.partial(ctx.state.config.for_path, Path(path)))
        await refresh(ctx)
        ctx.diagnostics.schedule_all()
