"""The diagnostic record every layer above the YAML model produces.

Spans are code-point offsets (see `vap_lsp.text`); adapters convert them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from vap_lsp.text import Span


class Severity(enum.IntEnum):
    # Values match LSP DiagnosticSeverity so adapters need no table.
    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True)
class Related:
    """Another place in the same file that explains a diagnostic (LSP relatedInformation)."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    span: Span
    severity: Severity
    code: str
    message: str
    # Kubernetes field path of the offending node, e.g. "spec.validations[0].expression".
    field: str | None = None
    source: str = "vap-lsp"
    # Places in the same file that explain it (e.g. the definition of the variable it reads).
    related: tuple[Related, ...] = ()
    # What it covers never runs (LSP DiagnosticTag.Unnecessary: editors fade it as dead code).
    unnecessary: bool = False
