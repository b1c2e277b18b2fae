"""Shared helpers of the YAML feature tests: a snapshot from text with a cursor mark."""

from __future__ import annotations

from vap_lsp.analysis.engine import AnalysisSettings, parse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.features.snapshot import DocumentSnapshot, make_snapshot

CURSOR = "‸"
VERSION = "1.34"


def snap(
    text: str, workspace: WorkspaceIndex | None = None, uri: str = "file:///ws/doc.yaml"
) -> DocumentSnapshot:
    return make_snapshot(uri, text, 1, AnalysisSettings(VERSION), workspace)


def at_cursor(text: str, workspace: WorkspaceIndex | None = None) -> tuple[DocumentSnapshot, int]:
    """The snapshot of `text` without its cursor mark, and the cursor's offset."""
    offset = text.index(CURSOR)
    return snap(text.replace(CURSOR, "", 1), workspace), offset


def index_of(files: dict[str, str]) -> WorkspaceIndex:
    index = WorkspaceIndex()
    for uri, text in files.items():
        index.update(uri, parse_text(text)[1], text)
    index.complete = True
    return index
