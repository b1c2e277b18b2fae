"""Engine records to lsprotocol types."""

from __future__ import annotations

from lsprotocol import types as lsp

from vap_lsp.analysis.diagnostics import Diagnostic
from vap_lsp.codes import help_uri
from vap_lsp.text import LineIndex


def to_lsp_diagnostic(d: Diagnostic, lines: LineIndex, encoding: str = "utf-16") -> lsp.Diagnostic:
    start = lines.position(d.span.start, encoding)
    end = lines.position(d.span.end, encoding)
    data = {"field": d.field} if d.field else None
    href = help_uri(d.code)
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(start.line, start.character), lsp.Position(end.line, end.character)),
        message=d.message,
        severity=lsp.DiagnosticSeverity(int(d.severity)),
        code=d.code,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=d.source,
        data=data,
    )
