"""LSP registration of the CEL editor features: signature help, semantic tokens, inlay hints.

Hover and completion live in `hover_completion` (shared with the YAML services); `register`
wires those too, so `create_server` needs a single line for everything CEL. The services are
imported on first use (see `FEATURE_MODULES`), not at start-up.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from vap_lsp.features.results import TOKEN_TYPES
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.lru import LruCache
from vap_lsp.server import hover_completion
from vap_lsp.server.convert import to_offset, to_position, to_span
from vap_lsp.server.worker import in_worker
from vap_lsp.text import LineIndex

if TYPE_CHECKING:
    from vap_lsp.features.results import SemanticToken
    from vap_lsp.server.app import VapLanguageServer

log = logging.getLogger(__name__)

# Imported by the handlers on first use; `app.warm_features` loads them once diagnostics are out.
FEATURE_MODULES = (
    "vap_lsp.features.cel_signature",
    "vap_lsp.features.inlay_hints",
    "vap_lsp.features.semantic_tokens",
)

LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=[])
_TYPE_INDEX = {name: i for i, name in enumerate(TOKEN_TYPES)}

# Whole-document snapshots: 8 documents of 16 million characters in all (each keeps its model).
_FULL: LruCache[str, tuple[int | None, str, DocumentSnapshot]] = LruCache(
    8, weigh=lambda _, entry: len(entry[1]), max_weight=16_000_000
)


def full_snapshot(ls: VapLanguageServer, uri: str) -> DocumentSnapshot:
    """The whole document, reused across requests for one version."""
    document = ls.workspace.get_text_document(uri)
    hit = _FULL.get(uri)
    if hit is not None and hit[0] == document.version and hit[1] is document.source:
        return hit[2]
    snapshot = ls.snapshot(uri)
    _FULL.put(uri, (document.version, document.source, snapshot))
    return snapshot


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


def _signature_help(ls: VapLanguageServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
    from vap_lsp.features import cel_signature

    uri = params.text_document.uri
    offset = to_offset(hover_completion.line_index(ls, uri), params.position, ls.position_encoding)
    result = cel_signature.signature_help(hover_completion.local_snapshot(ls, uri, offset), offset)
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


def register(server: VapLanguageServer) -> None:
    hover_completion.register(server)

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=["(", ","]))
    @in_worker
    def signature_help(ls: VapLanguageServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        return _signature_help(ls, params)

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @in_worker
    def tokens_full(ls: VapLanguageServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        from vap_lsp.features import semantic_tokens

        snapshot = full_snapshot(ls, params.text_document.uri)
        data = encode_tokens(semantic_tokens.semantic_tokens(snapshot), snapshot.lines, ls.position_encoding)
        return lsp.SemanticTokens(data=data)

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    @in_worker
    def inlay_hint(ls: VapLanguageServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        from vap_lsp.features import inlay_hints

        try:
            snapshot = full_snapshot(ls, params.text_document.uri)
            encoding = ls.position_encoding
            lines = snapshot.lines
            within = to_span(lines, params.range, encoding)
            out: list[lsp.InlayHint] = []
            for hint in inlay_hints.inlay_hints(snapshot, within):
                out.append(
                    lsp.InlayHint(
                        position=to_position(lines, hint.offset, encoding),
                        label=hint.label,
                        kind=lsp.InlayHintKind.Type,
                        tooltip=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=hint.tooltip)
                        if hint.tooltip
                        else None,
                        padding_left=False,
                    )
                )
            return out
        except Exception:
            log.exception("inlay hints failed")
            return []
