"""The `vapLsp.crds` setting: CRDs from outside the workspace files, re-read when they change.

Paths and globs are relative to each workspace folder (`analysis.crds.load_crds`); the CRDs go
into the workspace index as one external source per folder, ranked below the workspace's own
CRDs. Changes on disk arrive as `workspace/didChangeWatchedFiles`, for which the server registers
watchers dynamically when the client can (`didChangeWatchedFiles.dynamicRegistration`); without
that, the CRDs are re-read when the settings change. Handlers only schedule: the reading runs in
the thread pool (`in_background`), and diagnostics are re-published when the CRDs changed.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.server.worker import off_loop

if TYPE_CHECKING:
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)

REGISTRATION_ID = "vap-lsp-crds"
SOURCE_PREFIX = "vapLsp.crds "
_GLOB_CHARS = frozenset("*?[")


class CrdSettingState:
    """What was last registered and reported, so a repeated setting does not re-register."""

    def __init__(self) -> None:
        # (patterns, workspace folder URIs) the watchers were registered for.
        self.registered: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self.reported: set[str] = set()
        self.lock = threading.Lock()


def _folder_roots(ls: VapLanguageServer) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for folder in list(ls.workspace.folders.values()):
        path = uris.to_fs_path(folder.uri)
        if path is not None:
            out.append((folder.uri, Path(path)))
    return out


def reload_crds(ls: VapLanguageServer) -> tuple[bool, list[str]]:
    """Read the setting's CRDs of every workspace folder into the index (thread pool only).

    Returns whether the index's CRDs changed, and the problems not reported yet (a missing
    path, a file without a CRD, what the API server would reject in a CRD)."""
    from vap_lsp.analysis.crds import load_crds

    patterns = ls.settings.crds
    before = ls.index.crd_generation
    roots = _folder_roots(ls)
    live = {SOURCE_PREFIX + uri for uri, _ in roots}
    for source in {c for c in ls.index.external_sources() if c.startswith(SOURCE_PREFIX)} - live:
        ls.index.set_external_crds(source, [])
    messages: list[str] = []
    for uri, root in roots:
        loaded = load_crds(list(patterns), root=root) if patterns else None
        ls.index.set_external_crds(SOURCE_PREFIX + uri, loaded.versions if loaded is not None else [])
        if loaded is not None:
            messages.extend(f"vapLsp.crds: {m}" for m in (*loaded.problems, *loaded.findings))
    state = ls.crd_state
    with state.lock:
        new = [m for m in messages if m not in state.reported]
        state.reported = set(messages)
    return ls.index.crd_generation != before, new


def _watch_pattern(pattern: str) -> str:
    """A folder (no glob, no YAML suffix) is watched for the YAML files under it."""
    if _GLOB_CHARS & set(pattern) or pattern.endswith((".yaml", ".yml", ".json")):
        return pattern
    return pattern.rstrip("/") + "/**/*.{yaml,yml}"


def _split_glob(pattern: Path) -> tuple[Path, str]:
    """An absolute pattern as (the folder before any glob character, the rest): clients match
    a RelativePattern under its base, which `..` in the pattern would leave."""
    parts = pattern.parts
    fixed = 0
    while fixed < len(parts) - 1 and not (_GLOB_CHARS & set(parts[fixed])):
        fixed += 1
    return Path(*parts[:fixed]), "/".join(parts[fixed:])


def _watchers(ls: VapLanguageServer, patterns: tuple[str, ...]) -> list[lsp.FileSystemWatcher]:
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps is not None else None
    relative = bool(watched is not None and watched.relative_pattern_support)
    absolute: list[Path] = []
    for pattern in patterns:
        glob = Path(_watch_pattern(pattern)).expanduser()
        if glob.is_absolute():
            absolute.append(Path(os.path.normpath(glob)))
        else:
            absolute.extend(Path(os.path.normpath(root / glob)) for _, root in _folder_roots(ls))
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
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps is not None else None
    return bool(watched is not None and watched.dynamic_registration)


async def update_watchers(ls: VapLanguageServer) -> None:
    """(Re-)register the file watchers for the current setting, when the client allows it."""
    patterns = ls.settings.crds
    state = ls.crd_state
    key = (patterns, tuple(uri for uri, _ in _folder_roots(ls)))
    if not _can_register(ls) or state.registered == key:
        return
    try:
        if state.registered is not None and state.registered[0]:
            await ls.client_unregister_capability_async(
                lsp.UnregistrationParams(
                    unregisterations=[
                        lsp.Unregistration(id=REGISTRATION_ID, method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
                    ]
                )
            )
        state.registered = ((), key[1])
        if patterns:
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
        log.warning("could not register file watchers for vapLsp.crds", exc_info=True)


async def reload_and_publish(ls: VapLanguageServer, *, publish: bool = True) -> None:
    """Re-read the CRDs in the thread pool; on the loop, show new problems (a few as messages,
    the rest in the log) and re-publish diagnostics if the CRDs changed."""
    try:
        changed, problems = await off_loop(ls, lambda: reload_crds(ls))
    except Exception:
        log.exception("could not read the CRDs of vapLsp.crds")
        return
    for message in problems[:5]:
        ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))
    for message in problems[5:]:
        log.warning("%s", message)
    if changed and publish:
        ls.diagnostics.schedule_all()


def register(server: VapLanguageServer) -> None:
    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(
        ls: VapLanguageServer, params: lsp.DidChangeWorkspaceFoldersParams
    ) -> None:
        # pygls has updated `ls.workspace.folders`: the setting is relative to each of them.
        if ls.settings.crds:
            await update_watchers(ls)
            await reload_and_publish(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ls: VapLanguageServer, params: lsp.DidChangeWatchedFilesParams
    ) -> None:
        # Only the CRD watchers are registered: any change re-reads the setting's CRDs.
        if params.changes:
            await reload_and_publish(ls)
