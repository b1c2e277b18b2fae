"""`AnalysisSettings`, apart from the engine so that the configuration and the server's settings
can be read without importing the analysis (the server imports the engine in the background
while it answers `initialize`, see `vap_lsp.server.preload`). `engine` re-exports it."""

from __future__ import annotations

from dataclasses import dataclass, field

from vap_lsp.analysis.model.kustomize import PatchFile
from vap_lsp.analysis.suppress import CodeRules
from vap_lsp.schema.store import default_version, normalize_version


@dataclass(frozen=True)
class AnalysisSettings:
    # None selects the newest bundled version.
    kubernetes_version: str | None = None
    # Ignored codes and severity overrides (configuration, flags); inline comments always count.
    rules: CodeRules = field(default_factory=CodeRules)
    # The file is a kustomize patch (`analysis.kustomize`): checked as partial objects, not indexed.
    patch: PatchFile | None = None
    # The chart the file is a template of (`model.helm.chart_of`): its `{{ }}` values are unknown.
    chart: str | None = None

    def resolved_version(self) -> str:
        if self.kubernetes_version is None:
            return default_version()
        return normalize_version(self.kubernetes_version)
