"""LSP adapter for "Convert to ValidatingAdmissionPolicy": a `source` code action on a
Gatekeeper template or constraint or a Kyverno policy, running the command
`vapLsp.convertToValidatingAdmissionPolicy`.

The command converts the open document's text in a worker thread
(`features.convert_document`), creates the result as a new file beside the document
(`<stem>.vap.yaml`, through `workspace/applyEdit`: the client creates it, unsaved changes and
undo are the editor's) and opens it (`window/showDocument`). A client that cannot create files
gets the result in a temporary file, opened the same way, or a message.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls import uris

from vap_lsp.server.convert import to_offset
from vap_lsp.server.documents import DocumentNotOpen

if TYPE_CHECKING:
    from vap_lsp.features.convert_document import ConvertedDocument
    from vap_lsp.server.context import Context

log = logging.getLogger(__name__)

FEATURE_MODULES = ("vap_lsp.features.convert_document",)
COMMAND = "vapLsp.convertToValidatingAdmissionPolicy"


def source_actions(ctx: Context, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """ "Convert to ValidatingAdmissionPolicy" on a convertible object (a provider of the one
    code-action handler); offered at a cursor or when `source` actions are asked for."""
    from vap_lsp.features.convert_document import TITLE, offers

    only = params.context.only
    asked = only is not None and any(str(k).startswith("source") for k in only)
    if not asked and (only is not None or params.range.start.line != params.range.end.line):
        return []
    state = ctx.state
    snapshot = state.snapshot(params.text_document.uri)
    offset = to_offset(snapshot.lines, params.range.start, state.position_encoding)
    if not offers(snapshot, offset):
        return []
    return [
        lsp.CodeAction(
            title=TITLE,
            kind=lsp.CodeActionKind.Source,
            command=lsp.Command(title=TITLE, command=COMMAND, arguments=[snapshot.uri]),
        )
    ]


def _beside(uri: str, name: str) -> str:
    path = uris.to_fs_path(uri)
    if path is None:
        return uri.rsplit("/", 1)[0] + "/" + name
    return uris.from_fs_path(str(Path(path).with_name(name))) or uri


def _can_create_files(ctx: Context) -> bool:
    workspace = ctx.server.client_capabilities.workspace
    edit = workspace.workspace_edit if workspace is not None else None
    operations = edit.resource_operations if edit is not None else None
    return bool(
        workspace is not None
        and workspace.apply_edit
        and edit is not None
        and edit.document_changes
        and operations
        and lsp.ResourceOperationKind.Create in operations
    )


async def _show(ctx: Context, uri: str) -> bool:
    window = ctx.server.client_capabilities.window
    if window is None or window.show_document is None or not window.show_document.support:
        return False
    try:
        result = await ctx.server.window_show_document_async(lsp.ShowDocumentParams(uri=uri, take_focus=True))
    except Exception:  # a client may refuse; the file exists all the same
        log.warning("window/showDocument failed for %s", uri, exc_info=True)
        return False
    return bool(result.success)


async def convert_command(ctx: Context, uri: str) -> dict[str, Any]:
    state = ctx.state

    def convert() -> ConvertedDocument:
        from vap_lsp.features.convert_document import convert_document

        snapshot = state.snapshot(uri)
        path = uris.to_fs_path(uri) or uri
        return convert_document(path, snapshot.text, snapshot.kubernetes_version)

    result = await ctx.worker.run(convert)
    if not result.text:
        ctx.server.window_show_message(
            lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=result.summary)
        )
        return {"summary": result.summary, "uri": None}
    target = _beside(uri, result.file_name)
    if _can_create_files(ctx):
        edit = lsp.WorkspaceEdit(
            document_changes=[
                lsp.CreateFile(uri=target, options=lsp.CreateFileOptions(overwrite=True)),
                lsp.TextDocumentEdit(
                    text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=target, version=None),
                    edits=[
                        lsp.TextEdit(
                            range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), new_text=result.text
                        )
                    ],
                ),
            ]
        )
        applied = await ctx.server.workspace_apply_edit_async(
            lsp.ApplyWorkspaceEditParams(edit=edit, label="Convert to ValidatingAdmissionPolicy")
        )
        if not applied.applied:
            target = ""
    else:
        target = ""
    if not target:  # no file beside it: a temporary one
        folder = Path(tempfile.gettempdir()) / "vap-lsp-converted"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / result.file_name
        path.write_text(result.text, encoding="utf-8")
        target = uris.from_fs_path(str(path)) or str(path)
    if not await _show(ctx, target):
        ctx.server.window_show_message(
            lsp.ShowMessageParams(type=lsp.MessageType.Info, message=f"{result.summary}: {target}")
        )
    return {"summary": result.summary, "uri": target}


def register(ctx: Context) -> None:
    server, state = ctx.server, ctx.state

    @server.command(COMMAND)
    async def convert_to_vap(ls: Any, *args: Any) -> dict[str, Any] | None:
        # pygls resolves this handler's annotations at run time: no TYPE_CHECKING-only names.
        uri = args[0] if args and isinstance(args[0], str) else None
        if uri is None and args and isinstance(args[0], dict):
            uri = args[0].get("uri")
        if not isinstance(uri, str) or not state.is_open(uri):
            server.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error, message=f"{COMMAND} needs [uri] of an open document"
                )
            )
            return None
        try:
            return await convert_command(ctx, uri)
        except DocumentNotOpen:
            return None
        except Exception as exc:  # the user asked for this: say why it failed
            log.exception("convert failed")
            server.window_show_message(
                lsp.ShowMessageParams(
                    type=lsp.MessageType.Error, message=f"Convert to ValidatingAdmissionPolicy failed: {exc}"
                )
            )
            return None
