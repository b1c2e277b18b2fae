"""LSP adapters for the YAML-side services: navigation, symbols, quick fixes, scan progress.

Thin by design: convert positions with the negotiated encoding, call `vap_lsp.features`, and
convert the plain results back. Spans in other files are converted with those files' text
(open buffers first, else what is on disk). Hover and completion live in `hover_completion`.
The services are imported on first use (`FEATURE_MODULES`), not at start-up.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp

from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.server.convert import to_offset, to_range
from vap_lsp.server.worker import in_worker, off_loop
from vap_lsp.text import LineIndex, Span

if TYPE_CHECKING:
    from vap_lsp.features import code_actions, navigation, symbols
    from vap_lsp.features.edits import TextEditResult
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)

FEATURE_MODULES = (
    "vap_lsp.features.navigation",
    "vap_lsp.features.symbols",
    "vap_lsp.features.code_actions",
)

T = TypeVar("T")

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

    def __init__(self, ls: VapLanguageServer, snapshot: DocumentSnapshot | None = None) -> None:
        self.ls = ls
        self.cache: dict[str, LineIndex | None] = {}
        if snapshot is not None:
            self.cache[snapshot.uri] = snapshot.lines

    def lines(self, uri: str) -> LineIndex | None:
        if uri not in self.cache:
            text = self.ls.text_of(uri)
            self.cache[uri] = LineIndex(text) if text is not None else None
        return self.cache[uri]

    def range(self, uri: str, span: Span) -> lsp.Range | None:
        lines = self.lines(uri)
        if lines is None:
            return None
        return to_range(lines, span, self.ls.position_encoding)


def _offset(ls: VapLanguageServer, snapshot: DocumentSnapshot, position: lsp.Position) -> int:
    return to_offset(snapshot.lines, position, ls.position_encoding)


def _text_edits(
    ls: VapLanguageServer, snapshot: DocumentSnapshot, edits: list[TextEditResult]
) -> list[lsp.TextEdit]:
    return [lsp.TextEdit(to_range(snapshot.lines, e.span, ls.position_encoding), e.new_text) for e in edits]


def _guard(default: T, fn: Callable[[], T]) -> T:
    from vap_lsp.features.navigation import RenameError

    try:
        return fn()
    except RenameError:
        raise
    except Exception:  # a feature bug must not take the session down
        log.exception("YAML feature failed")
        return default


def _locations(
    ls: VapLanguageServer, snapshot: DocumentSnapshot, found: list[navigation.Location]
) -> list[lsp.Location]:
    texts = _Texts(ls, snapshot)
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
    ls: VapLanguageServer, snapshot: DocumentSnapshot, d: lsp.Diagnostic
) -> code_actions.DiagnosticRef:
    from vap_lsp.features.code_actions import DiagnosticRef

    start = _offset(ls, snapshot, d.range.start)
    end = _offset(ls, snapshot, d.range.end)
    data: Any = d.data
    field = data.get("field") if isinstance(data, dict) else None
    return DiagnosticRef(
        Span(start, end),
        str(d.code) if d.code is not None else None,
        d.message,
        field if isinstance(field, str) else None,
    )


async def scan_workspace_with_progress(ls: VapLanguageServer) -> int:
    """`scan_workspace` in the thread pool, reported as work-done progress when supported."""
    window = ls.client_capabilities.window
    token: str | None = None
    if window is not None and window.work_done_progress:
        token = f"vap-lsp-scan-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:
            log.warning("client refused a progress token", exc_info=True)
            token = None
    if token is None:
        return await off_loop(ls, ls.scan_workspace)
    ls.work_done_progress.begin(
        token, lsp.WorkDoneProgressBegin(title="vap-lsp: indexing workspace", cancellable=False)
    )
    start = ls.index.generation
    scan = asyncio.ensure_future(off_loop(ls, ls.scan_workspace))
    count = 0
    try:
        while True:
            done, _ = await asyncio.wait({scan}, timeout=0.25)
            if done:
                count = scan.result()
                break
            seen = ls.index.generation - start
            ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=f"{seen} files read"))
        ls.work_done_progress.report(token, lsp.WorkDoneProgressReport(message=f"{count} files read"))
    finally:
        ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=f"indexed {count} files"))
    return count


def register(server: VapLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @in_worker
    def definition(ls: VapLanguageServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        from vap_lsp.features import navigation

        def run() -> list[lsp.Location] | None:
            snapshot = ls.snapshot(params.text_document.uri)
            found = navigation.definition(snapshot, _offset(ls, snapshot, params.position))
            return _locations(ls, snapshot, found) or None

        return _guard(None, run)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @in_worker
    def references(ls: VapLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        from vap_lsp.features import navigation

        def run() -> list[lsp.Location] | None:
            snapshot = ls.snapshot(params.text_document.uri)
            offset = _offset(ls, snapshot, params.position)
            found = navigation.references(snapshot, offset, params.context.include_declaration)
            return _locations(ls, snapshot, found) or None

        return _guard(None, run)

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    @in_worker
    def prepare_rename(
        ls: VapLanguageServer, params: lsp.PrepareRenameParams
    ) -> lsp.PrepareRenameResult | None:
        from vap_lsp.features import navigation

        def run() -> lsp.PrepareRenameResult | None:
            snapshot = ls.snapshot(params.text_document.uri)
            found = navigation.prepare_rename(snapshot, _offset(ls, snapshot, params.position))
            if found is None:
                return None
            span, name = found
            return lsp.PrepareRenamePlaceholder(
                range=to_range(snapshot.lines, span, ls.position_encoding), placeholder=name
            )

        return _guard(None, run)

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    @in_worker
    def rename(ls: VapLanguageServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        from vap_lsp.features import navigation

        def run() -> lsp.WorkspaceEdit | None:
            snapshot = ls.snapshot(params.text_document.uri)
            edits = navigation.rename(snapshot, _offset(ls, snapshot, params.position), params.new_name)
            if edits is None:
                return None
            return lsp.WorkspaceEdit(changes={snapshot.uri: _text_edits(ls, snapshot, edits)})

        return _guard(None, run)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @in_worker
    def document_symbol(ls: VapLanguageServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        from vap_lsp.features import symbols

        def run() -> list[lsp.DocumentSymbol]:
            snapshot = ls.snapshot(params.text_document.uri)
            return [
                _document_symbol(s, snapshot.lines, ls.position_encoding)
                for s in symbols.document_symbols(snapshot)
            ]

        return _guard([], run)

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @in_worker
    def workspace_symbol(
        ls: VapLanguageServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.WorkspaceSymbol]:
        from vap_lsp.features import symbols

        def run() -> list[lsp.WorkspaceSymbol]:
            texts = _Texts(ls)
            out: list[lsp.WorkspaceSymbol] = []
            for s in symbols.workspace_symbols(ls.index, params.query):
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

        return _guard([], run)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    @in_worker
    def code_action(ls: VapLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        from vap_lsp.features import code_actions

        def run() -> list[lsp.CodeAction] | None:
            only = params.context.only
            if only is not None and not any(str(k).startswith("quickfix") for k in only):
                return None
            snapshot = ls.snapshot(params.text_document.uri)
            originals = list(params.context.diagnostics)
            refs = [_diagnostic_ref(ls, snapshot, d) for d in originals]
            out: list[lsp.CodeAction] = []
            for result in code_actions.code_actions(snapshot, refs):
                original = originals[refs.index(result.diagnostic)]
                out.append(
                    lsp.CodeAction(
                        title=result.title,
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=[original],
                        is_preferred=result.preferred or None,
                        edit=lsp.WorkspaceEdit(
                            changes={snapshot.uri: _text_edits(ls, snapshot, result.edits)}
                        ),
                    )
                )
            return out or None

        return _guard(None, run)
