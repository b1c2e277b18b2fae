"""YAML document markers in raw text: the one place that finds them (the parser's split into
documents, the editor features' document-local views)."""

from __future__ import annotations

import re

__all__ = ["DOCUMENT_MARKER", "DOCUMENT_START"]

DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)
"""A column-0 `---` followed by a space, a tab or a line break (or the end): a document starts."""

DOCUMENT_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.MULTILINE)
"""`DOCUMENT_START` or the document end marker `...`."""
