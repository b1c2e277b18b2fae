"""Document sync: the notifications that drive the diagnostics scheduler.

pygls' protocol (`server.transport.VapProtocol`) has applied the notification to the open
documents (`server.documents`) before these handlers run; they only schedule, on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp.config import CONFIG_FILES
from vap_lsp.server import crd_watch

if TYPE_CHECKING:
    from vap_lsp.server.context import Context


async def folders_added(ctx: Context, added: list[lsp.WorkspaceFolder]) -> None:
    """Workspace folders added (by the client, or taken from a lone document's repository):
    scanned, the files of removed ones left out of the index, the CRDs and watchers moved (the
    CRD setting is relative to each folder, and their configuration files are watched), every
    open document re-checked."""
    await ctx.worker.run(functools.partial(ctx.state.scan_workspace, added))
    await crd_watch.refresh(ctx)
    ctx.diagnostics.schedule_all()


def register(ctx: Context) -> None:
    server, diagnostics = ctx.server, ctx.diagnostics

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        diagnostics.schedule(params.text_document.uri, immediate=True)
        # A client that gave no workspace folder (one file opened): its repository is the root.
        folder = ctx.state.project_folder(params.text_document.uri)
        if folder is not None:
            scans = ctx.state.folder_scans
            task = asyncio.get_running_loop().create_task(folders_added(ctx, [folder]))
            scans.add(task)
            task.add_done_callback(scans.discard)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        diagnostics.document_changed(params.text_document.uri)
        diagnostics.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        diagnostics.schedule(params.text_document.uri, immediate=True)
        if params.text_document.uri.rsplit("/", 1)[-1] in CONFIG_FILES:
            diagnostics.schedule_all()  # the configuration changed: every document may change
            crd_watch.config_saved(ctx)  # and its `crds` may have (clients without file watchers)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        diagnostics.forget(params.text_document.uri)
