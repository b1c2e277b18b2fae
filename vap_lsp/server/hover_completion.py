"""LSP hover and completion: CEL expressions answer first, the YAML services otherwise.

Both the CEL and the YAML language services return `features.results` types; this module is
the one place that turns them into LSP objects, so the two never compete. Hover is one provider
of the one hover handler (`server.registration`), which adds the values of "Run against
samples". The YAML services (`features.yaml_hover`, `features.yaml_completion`) are optional imports;
all services are imported on first use (`FEATURE_MODULES`), not at start-up.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp

from vap_lsp.features.results import CompletionEntry, CompletionResult, HoverResult
from vap_lsp.server.convert import to_offset, to_range
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.server.context import Context
    from vap_lsp.server.state import ServerState


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


def _offset(state: ServerState, uri: str, position: lsp.Position) -> tuple[int, LineIndex]:
    lines = state.line_index(uri)
    return to_offset(lines, position, state.position_encoding), lines


def hover(ctx: Context, params: lsp.HoverParams) -> lsp.Hover | None:
    """The CEL hover at the position, else the YAML one (a provider of the one hover handler)."""
    from vap_lsp.features import cel_hover

    state, uri = ctx.state, params.text_document.uri
    offset, lines = _offset(state, uri, params.position)
    result = cel_hover.hover(state.local_snapshot(uri, offset), offset)
    if result is None:
        service = _yaml_service("yaml_hover", "hover")
        result = service(state.snapshot(uri), offset) if service is not None else None
    return to_lsp_hover(result, lines, state.position_encoding) if result is not None else None


def completion_at(
    state: ServerState, uri: str, position: lsp.Position, trigger: str | None
) -> lsp.CompletionList | None:
    from vap_lsp.features import cel_completion

    offset, lines = _offset(state, uri, position)
    result = cel_completion.complete(state.local_snapshot(uri, offset), offset, trigger)
    if result is None:
        service = _yaml_service("yaml_completion", "complete")
        result = service(state.snapshot(uri), offset) if service is not None else None
    return to_lsp_completion(result, lines, state.position_encoding) if result is not None else None


def register(ctx: Context) -> None:
    @ctx.server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS)
    )
    @ctx.worker.request
    def completion(params: lsp.CompletionParams) -> lsp.CompletionList | None:
        trigger = params.context.trigger_character if params.context is not None else None
        return completion_at(ctx.state, params.text_document.uri, params.position, trigger)
