"""LSP registration of the CEL editor features: signature help, semantic tokens, inlay hints.

Hover and completion live in `hover_completion` (shared with the YAML services). Inlay hints
are one provider of the one inlay-hint handler (`server.registration`), which adds the values
of "Run against samples". The services are imported on first use (see `FEATURE_MODULES`), not
at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp.features.results import TOKEN_TYPES
from vap_lsp.server.convert import to_offset, to_position, to_span
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.features.results import SemanticToken
    from vap_lsp.server.context import Context
    from vap_lsp.server.state import ServerState

# Imported by the handlers on first use; `registration.warm` loads them once diagnostics are out.
FEATURE_MODULES = (
    "vap_lsp.features.cel_signature",
    "vap_lsp.features.inlay_hints",
    "vap_lsp.features.semantic_tokens",
)

LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=[])
_TYPE_INDEX = {name: i for i, name in enumerate(TOKEN_TYPES)}


def encode_tokens(tokens: list[SemanticToken], lines: LineIndex, encoding: str) -> list[int]:
    """LSP's relative encoding: (Δline, Δstart, length, type, modifiers) per token."""
    data: list[int] = []
    prev_line = prev_char = 0
    for tok in tokens:
        start = lines.position(tok.start, encoding)
        end = lines.position(tok.end, encoding)
        if end.line != start.line or end.character <= start.character:
            continue
        delta_line = start.line - prev_line
        delta_char = start.character - prev_char if delta_line == 0 else start.character
        data.extend((delta_line, delta_char, end.character - start.character, _TYPE_INDEX[tok.type], 0))
        prev_line, prev_char = start.line, start.character
    return data


def _signature_help(state: ServerState, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
    from vap_lsp.features import cel_signature

    uri = params.text_document.uri
    offset = to_offset(state.line_index(uri), params.position, state.position_encoding)
    result = cel_signature.signature_help(state.local_snapshot(uri, offset), offset)
    if result is None:
        return None
    signatures = [
        lsp.SignatureInformation(
            label=s.label,
            documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=s.documentation),
            parameters=[lsp.ParameterInformation(label=(a, b)) for a, b in s.parameters],
        )
        for s in result.signatures
    ]
    return lsp.SignatureHelp(
        signatures=signatures,
        active_signature=result.active_signature,
        active_parameter=result.active_parameter,
    )


def inlay_hints(ctx: Context, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    """The inferred types of CEL variables in the range (a provider of the one inlay-hint handler)."""
    from vap_lsp.features import inlay_hints

    state = ctx.state
    snapshot = state.full_snapshot(params.text_document.uri)
    encoding = state.position_encoding
    lines = snapshot.lines
    within = to_span(lines, params.range, encoding)
    return [
        lsp.InlayHint(
            position=to_position(lines, hint.offset, encoding),
            label=hint.label,
            kind=lsp.InlayHintKind.Type,
            tooltip=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=hint.tooltip)
            if hint.tooltip
            else None,
            padding_left=False,
        )
        for hint in inlay_hints.inlay_hints(snapshot, within)
    ]


def register(ctx: Context) -> None:
    server, state = ctx.server, ctx.state

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=["(", ","]))
    @ctx.worker.request
    def signature_help(params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        return _signature_help(state, params)

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @ctx.worker.request
    def tokens_full(params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        from vap_lsp.features import semantic_tokens

        snapshot = state.full_snapshot(params.text_document.uri)
        data = encode_tokens(
            semantic_tokens.semantic_tokens(snapshot), snapshot.lines, state.position_encoding
        )
        return lsp.SemanticTokens(data=data)
