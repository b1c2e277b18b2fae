"""LSP adapters for the YAML-side services: navigation, symbols, quick fixes, scan progress.

Thin by design: convert positions with the negotiated encoding, call `vap_lsp.features`, and
convert the plain results back. Spans in other files are converted with those files' text
(open buffers first, else what is on disk). Hover and completion live in `hover_completion`.
Quick fixes are one provider of the one code-action handler (`server.registration`).
The services are imported on first use (`FEATURE_MODULES`), not at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.server.convert import to_offset, to_range
from vap_lsp.text import LineIndex, Span

if TYPE_CHECKING:
    from vap_lsp.features import code_actions, navigation, symbols
    from vap_lsp.features.edits import TextEditResult
    from vap_lsp.server.context import Context
    from vap_lsp.server.state import ServerState

log = logging.getLogger(__name__)

FEATURE_MODULES = (
    "vap_lsp.features.navigation",
    "vap_lsp.features.symbols",
    "vap_lsp.features.code_actions",
)

_SYMBOL_KINDS: dict[str, lsp.SymbolKind] = {
    "class": lsp.SymbolKind.Class,
    "interface": lsp.SymbolKind.Interface,
    "function": lsp.SymbolKind.Function,
    "variable": lsp.SymbolKind.Variable,
    "method": lsp.SymbolKind.Method,
    "event": lsp.SymbolKind.Event,
    "object": lsp.SymbolKind.Object,
}


class _Texts:
    """Line indexes of the files a response mentions, read once per request."""

    def __init__(self, state: ServerState, snapshot: DocumentSnapshot | None = None) -> None:
        self.state = state
        self.cache: dict[str, LineIndex | None] = {}
        if snapshot is not None:
            self.cache[snapshot.uri] = snapshot.lines

    def lines(self, uri: str) -> LineIndex | None:
        if uri not in self.cache:
            text = self.state.text_of(uri)
            self.cache[uri] = LineIndex(text) if text is not None else None
        return self.cache[uri]

    def range(self, uri: str, span: Span) -> lsp.Range | None:
        lines = self.lines(uri)
        if lines is None:
            return None
        return to_range(lines, span, self.state.position_encoding)


def _offset(state: ServerState, snapshot: DocumentSnapshot, position: lsp.Position) -> int:
    return to_offset(snapshot.lines, position, state.position_encoding)


def _text_edits(
    state: ServerState, snapshot: DocumentSnapshot, edits: list[TextEditResult]
) -> list[lsp.TextEdit]:
    return [
        lsp.TextEdit(to_range(snapshot.lines, e.span, state.position_encoding), e.new_text) for e in edits
    ]


def _locations(
    state: ServerState, snapshot: DocumentSnapshot, found: list[navigation.Location]
) -> list[lsp.Location]:
    texts = _Texts(state, snapshot)
    out: list[lsp.Location] = []
    for location in found:
        rng = texts.range(location.uri, location.span)
        if rng is not None:
            out.append(lsp.Location(location.uri, rng))
    return out


def _document_symbol(s: symbols.Symbol, lines: LineIndex, encoding: str) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=s.name,
        kind=_SYMBOL_KINDS.get(s.kind, lsp.SymbolKind.Object),
        range=to_range(lines, s.span, encoding),
        selection_range=to_range(lines, s.selection, encoding),
        detail=s.detail,
        children=[_document_symbol(c, lines, encoding) for c in s.children],
    )


def _diagnostic_ref(
    state: ServerState, snapshot: DocumentSnapshot, d: lsp.Diagnostic
) -> code_actions.DiagnosticRef:
    from vap_lsp.features.code_actions import DiagnosticRef

    start = _offset(state, snapshot, d.range.start)
    end = _offset(state, snapshot, d.range.end)
    data: Any = d.data
    field = data.get("field") if isinstance(data, dict) else None
    return DiagnosticRef(
        Span(start, end),
        str(d.code) if d.code is not None else None,
        d.message,
        field if isinstance(field, str) else None,
    )


async def scan_workspace_with_progress(ctx: Context) -> int:
    """`scan_workspace` in the thread pool, reported as work-done progress when supported. The
    scan starts at once: it never waits for the client's answer to the progress token (a client
    that never answers must still get its workspace indexed); progress is reported once the
    token is accepted, if the scan is still running then."""
    ls, state = ctx.server, ctx.state
    scan = asyncio.ensure_future(ctx.worker.run(state.scan_workspace))
    window = ls.client_capabilities.window
    if window is None or not window.work_done_progress:
        return await scan
    token = f"vap-lsp-scan-{uuid.uuid4()}"
    created = asyncio.ensure_future(ls.work_done_progress.create_async(token))
    await asyncio.wait({scan, created}, return_when=asyncio.FIRST_COMPLETED)
    if scan.done() or created.exception() is not None:
        if not created.done():
            created.cancel()
        elif created.exception() is not None:
            log.warning("client refused a progress token", exc_info=created.exception())
        return await scan
    ls.work_done_progress.begin(
        token, lsp.WorkDoneProgressBegin(title="vap-lsp: indexing workspace", cancellable=False)
    )
    start = state.index.generation
    count = 0
    try:
        while True:
            done, _ = await asyncio.wait({scan}, timeout=0.25)
            if done:
                count = scan.result()
                break
            seen = state.index.generation - start
            ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=f"{seen} files read"))
        ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=f"{count} files read"))
    finally:
        ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=f"indexed {count} files"))
    return count


def quick_fixes(ctx: Context, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """The quick fixes of the diagnostics in the request (a provider of the one code-action handler)."""
    from vap_lsp.features import code_actions

    only = params.context.only
    if only is not None and not any(str(k).startswith("quickfix") for k in only):
        return []
    state = ctx.state
    snapshot = state.snapshot(params.text_document.uri)
    originals = list(params.context.diagnostics)
    refs = [_diagnostic_ref(state, snapshot, d) for d in originals]
    out: list[lsp.CodeAction] = []
    for result in code_actions.code_actions(snapshot, refs):
        original = originals[refs.index(result.diagnostic)]
        out.append(
            lsp.CodeAction(
                title=result.title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[original],
                is_preferred=result.preferred or None,
                edit=lsp.WorkspaceEdit(changes={snapshot.uri: _text_edits(state, snapshot, result.edits)}),
            )
        )
    return out


def register(ctx: Context) -> None:
    server, state, request = ctx.server, ctx.state, ctx.worker.request

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @request
    def definition(params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        from vap_lsp.features import navigation

        snapshot = state.snapshot(params.text_document.uri)
        found = navigation.definition(snapshot, _offset(state, snapshot, params.position))
        return _locations(state, snapshot, found) or None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @request
    def references(params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        from vap_lsp.features import navigation

        snapshot = state.snapshot(params.text_document.uri)
        offset = _offset(state, snapshot, params.position)
        found = navigation.references(snapshot, offset, params.context.include_declaration)
        return _locations(state, snapshot, found) or None

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    @request
    def prepare_rename(params: lsp.PrepareRenameParams) -> lsp.PrepareRenameResult | None:
        from vap_lsp.features import navigation

        snapshot = state.snapshot(params.text_document.uri)
        found = navigation.prepare_rename(snapshot, _offset(state, snapshot, params.position))
        if found is None:
            return None
        span, name = found
        return lsp.PrepareRenamePlaceholder(
            range=to_range(snapshot.lines, span, state.position_encoding), placeholder=name
        )

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    @request
    def rename(params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        from vap_lsp.features import navigation

        snapshot = state.snapshot(params.text_document.uri)
        try:
            edits = navigation.rename(snapshot, _offset(state, snapshot, params.position), params.new_name)
        except navigation.RenameError as exc:  # the client shows why the name is refused
            raise JsonRpcInvalidParams(str(exc)) from exc
        if edits is None:
            return None
        return lsp.WorkspaceEdit(changes={snapshot.uri: _text_edits(state, snapshot, edits)})

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @request
    def document_symbol(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        from vap_lsp.features import symbols

        snapshot = state.snapshot(params.text_document.uri)
        return [
            _document_symbol(s, snapshot.lines, state.position_encoding)
            for s in symbols.document_symbols(snapshot)
        ]

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @request
    def workspace_symbol(params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol]:
        from vap_lsp.features import symbols

        texts = _Texts(state)
        out: list[lsp.WorkspaceSymbol] = []
        for s in symbols.workspace_symbols(state.index, params.query):
            rng = texts.range(s.uri, s.span)
            if rng is None:
                continue
            out.append(
                lsp.WorkspaceSymbol(
                    name=s.name,
                    kind=_SYMBOL_KINDS.get(s.kind, lsp.SymbolKind.Object),
                    location=lsp.Location(s.uri, rng),
                    container_name=s.container,
                )
            )
        return out
