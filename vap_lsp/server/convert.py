"""Engine records to lsprotocol types, and LSP positions and ranges to offsets and spans: the
one place either direction is spelled (`LineIndex` does the counting)."""

from __future__ import annotations

from lsprotocol import types as lsp

from vap_lsp.analysis.diagnostics import Diagnostic
from vap_lsp.codes import help_uri
from vap_lsp.text import LineIndex, Position, Span

_ENCODINGS: dict[object, str] = {
    lsp.PositionEncodingKind.Utf8: "utf-8",
    lsp.PositionEncodingKind.Utf32: "utf-32",
}


def encoding_name(kind: object) -> str:
    """The negotiated position encoding (pygls' `PositionEncodingKind`, or its value) as
    `LineIndex` names it; LSP's default is UTF-16."""
    return _ENCODINGS.get(kind, "utf-16")


def to_offset(lines: LineIndex, position: lsp.Position, encoding: str) -> int:
    """An LSP position as a code-point offset, clamped as LSP says (`LineIndex.offset`)."""
    return lines.offset(Position(position.line, position.character), encoding)


def to_span(lines: LineIndex, rng: lsp.Range, encoding: str) -> Span:
    """An LSP range as a span (ends as given: a client may send them reversed)."""
    return Span(to_offset(lines, rng.start, encoding), to_offset(lines, rng.end, encoding))


def to_position(lines: LineIndex, offset: int, encoding: str) -> lsp.Position:
    """A code-point offset as an LSP position in the client's encoding."""
    pos = lines.position(offset, encoding)
    return lsp.Position(pos.line, pos.character)


def to_range(lines: LineIndex, span: Span, encoding: str) -> lsp.Range:
    """A span as an LSP range in the client's position encoding (`LineIndex.range`)."""
    start, end = lines.range(span, encoding)
    return lsp.Range(lsp.Position(start.line, start.character), lsp.Position(end.line, end.character))


def to_lsp_diagnostic(
    d: Diagnostic, lines: LineIndex, encoding: str = "utf-16", uri: str | None = None
) -> lsp.Diagnostic:
    """`uri` (the document's) is needed for related information, which LSP gives as locations."""
    data = {"field": d.field} if d.field else None
    href = help_uri(d.code)
    related = (
        [
            lsp.DiagnosticRelatedInformation(lsp.Location(uri, to_range(lines, r.span, encoding)), r.message)
            for r in d.related
        ]
        if uri is not None and d.related
        else None
    )
    return lsp.Diagnostic(
        range=to_range(lines, d.span, encoding),
        message=d.message,
        severity=lsp.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=d.source,
        data=data,
        related_information=related,
        tags=[lsp.DiagnosticTag.Unnecessary] if d.unnecessary else None,
    )
