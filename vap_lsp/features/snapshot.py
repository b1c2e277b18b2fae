"""The state a language service works on: one version of one document, parsed.

Features never wait for diagnostics: the server hands them the latest analysis when it
describes the current version, and otherwise a fresh parse of the current text (YAML and
objects only; CEL compile results come from the compile cache). Positions inside are
code-point offsets like everywhere else; the server converts LSP positions once, here.
"""

from __future__ import annotations

from dataclasses import dataclass

from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.text import LineIndex, Position
from vap_lsp.yaml.model import YamlFile


@dataclass(frozen=True)
class DocumentSnapshot:
    uri: str
    version: int | None
    text: str
    yaml: YamlFile
    objects: tuple[K8sObject, ...]
    settings: AnalysisSettings
    workspace: WorkspaceIndex | None = None

    @property
    def lines(self) -> LineIndex:
        return self.yaml.lines

    @property
    def kubernetes_version(self) -> str:
        return self.settings.resolved_version()

    def offset(self, position: Position, encoding: str = "utf-16") -> int:
        return self.lines.offset(position, encoding)

    def object_at(self, offset: int) -> K8sObject | None:
        """The innermost object whose node contains `offset` (List items before the List)."""
        best: K8sObject | None = None
        for obj in self.objects:
            span = obj.node.span
            if span.start <= offset <= span.end and (best is None or span.start >= best.node.span.start):
                best = obj
        return best


def make_snapshot(
    uri: str,
    text: str,
    version: int | None,
    settings: AnalysisSettings,
    workspace: WorkspaceIndex | None = None,
    parsed: tuple[YamlFile, list[K8sObject]] | None = None,
) -> DocumentSnapshot:
    if parsed is None:
        # Imported here: the server answers `initialize` before the engine is loaded.
        from vap_lsp.analysis.engine import parse_text

        parsed = parse_text(text)
    yaml_file, objects = parsed
    return DocumentSnapshot(uri, version, text, yaml_file, tuple(objects), settings, workspace)
