"""LSP hover and completion: CEL expressions answer first, the YAML services otherwise.

Both the CEL and the YAML language services return `features.results` types; this module is
the one place that turns them into LSP objects, so the two never register competing handlers.
The YAML services (`features.yaml_hover`, `features.yaml_completion`) are optional imports;
all services are imported on first use (`FEATURE_MODULES`), not at start-up.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from vap_lsp.features.results import CompletionEntry, CompletionResult, HoverResult
from vap_lsp.features.snapshot import DocumentSnapshot, make_snapshot
from vap_lsp.lru import LruCache
from vap_lsp.server.convert import to_offset, to_range
from vap_lsp.server.worker import in_worker
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.server.app import VapLanguageServer


FEATURE_MODULES = (
    "vap_lsp.features.cel_context",
    "vap_lsp.features.cel_hover",
    "vap_lsp.features.cel_completion",
    "vap_lsp.features.yaml_hover",
    "vap_lsp.features.yaml_completion",
)

TRIGGER_CHARACTERS = [".", "(", "[", ",", "?", "'", '"', " "]

_KINDS: dict[str, lsp.CompletionItemKind] = {
    "variable": lsp.CompletionItemKind.Variable,
    "field": lsp.CompletionItemKind.Field,
    "function": lsp.CompletionItemKind.Function,
    "method": lsp.CompletionItemKind.Method,
    "keyword": lsp.CompletionItemKind.Keyword,
    "value": lsp.CompletionItemKind.Value,
    "snippet": lsp.CompletionItemKind.Snippet,
    "property": lsp.CompletionItemKind.Property,
    "module": lsp.CompletionItemKind.Module,
    "enum": lsp.CompletionItemKind.EnumMember,
}

# Snapshots of the YAML document at the cursor: 16, of 4 million characters in all.
_LOCAL: LruCache[tuple[str, int | None, int], DocumentSnapshot] = LruCache(
    16, weigh=lambda _, snapshot: len(snapshot.text), max_weight=4_000_000
)


def local_snapshot(ls: VapLanguageServer, uri: str, offset: int) -> DocumentSnapshot:
    """A snapshot of the YAML document at `offset` only (cheap while diagnostics lag behind).

    When the latest analysis describes the current version its parse is reused as is.
    """
    from vap_lsp.features.cel_context import document_local_text

    document = ls.workspace.get_text_document(uri)
    latest = ls.diagnostics.analyses.get(uri)
    if latest is not None and latest[0] == document.version and latest[1].yaml.text == document.source:
        return ls.snapshot(uri)
    text = document.source
    local = document_local_text(text, offset)
    first = len(local) - len(local.lstrip())  # where the kept document starts
    key = (uri, document.version, first)
    hit = _LOCAL.get(key)
    if hit is not None and hit.text == local:
        return hit
    snapshot = make_snapshot(uri, local, document.version, ls.analysis_settings_for(uri), ls.index)
    _LOCAL.put(key, snapshot)
    return snapshot


def _yaml_service(module: str, function: str) -> Any:
    """The other YAML-side service, if it is installed (it is developed separately)."""
    name = f"vap_lsp.features.{module}"
    try:
        if importlib.util.find_spec(name) is None:
            return None
        return getattr(importlib.import_module(name), function, None)
    except ImportError:
        return None


def to_lsp_hover(result: HoverResult, lines: LineIndex, encoding: str) -> lsp.Hover:
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=result.markdown),
        range=to_range(lines, result.span, encoding),
    )


def to_lsp_item(entry: CompletionEntry, lines: LineIndex, encoding: str) -> lsp.CompletionItem:
    text_edit = None
    insert_text = entry.insert_text
    if entry.replace_span is not None:
        text_edit = lsp.TextEdit(
            to_range(lines, entry.replace_span, encoding), entry.insert_text or entry.label
        )
        insert_text = None
    documentation = (
        lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=entry.documentation)
        if entry.documentation
        else None
    )
    return lsp.CompletionItem(
        label=entry.label,
        kind=_KINDS.get(entry.kind, lsp.CompletionItemKind.Text),
        detail=entry.detail,
        documentation=documentation,
        insert_text=insert_text,
        insert_text_format=lsp.InsertTextFormat.Snippet
        if entry.insert_is_snippet
        else lsp.InsertTextFormat.PlainText,
        text_edit=text_edit,
        sort_text=entry.sort_text,
        filter_text=entry.filter_text,
        # Multi-line insertions carry their own YAML indentation; clients must not re-indent.
        insert_text_mode=lsp.InsertTextMode.AsIs if "\n" in (entry.insert_text or "") else None,
    )


def to_lsp_completion(result: CompletionResult, lines: LineIndex, encoding: str) -> lsp.CompletionList:
    return lsp.CompletionList(
        is_incomplete=result.is_incomplete, items=[to_lsp_item(e, lines, encoding) for e in result.items]
    )


_LINES: dict[str, tuple[str, LineIndex]] = {}


def line_index(ls: VapLanguageServer, uri: str) -> LineIndex:
    """The current text's line index, kept while the text is unchanged."""
    source = ls.workspace.get_text_document(uri).source
    hit = _LINES.get(uri)
    if hit is not None and hit[0] is source:
        return hit[1]
    if len(_LINES) > 16:
        _LINES.clear()
    lines = LineIndex(source)
    _LINES[uri] = (source, lines)
    return lines


def _offset(ls: VapLanguageServer, uri: str, position: lsp.Position) -> tuple[int, LineIndex]:
    lines = line_index(ls, uri)
    return to_offset(lines, position, ls.position_encoding), lines


def hover_at(ls: VapLanguageServer, uri: str, position: lsp.Position) -> lsp.Hover | None:
    from vap_lsp.features import cel_hover

    offset, lines = _offset(ls, uri, position)
    result = cel_hover.hover(local_snapshot(ls, uri, offset), offset)
    if result is None:
        service = _yaml_service("yaml_hover", "hover")
        result = service(ls.snapshot(uri), offset) if service is not None else None
    return to_lsp_hover(result, lines, ls.position_encoding) if result is not None else None


def completion_at(
    ls: VapLanguageServer, uri: str, position: lsp.Position, trigger: str | None
) -> lsp.CompletionList | None:
    from vap_lsp.features import cel_completion

    offset, lines = _offset(ls, uri, position)
    result = cel_completion.complete(local_snapshot(ls, uri, offset), offset, trigger)
    if result is None:
        service = _yaml_service("yaml_completion", "complete")
        result = service(ls.snapshot(uri), offset) if service is not None else None
    return to_lsp_completion(result, lines, ls.position_encoding) if result is not None else None


def register(server: VapLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @in_worker
    def hover(ls: VapLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        return hover_at(ls, params.text_document.uri, params.position)

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS)
    )
    @in_worker
    def completion(ls: VapLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
        trigger = params.context.trigger_character if params.context is not None else None
        return completion_at(ls, params.text_document.uri, params.position, trigger)
