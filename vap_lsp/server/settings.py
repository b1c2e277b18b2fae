"""Server settings, read from initializationOptions and workspace/didChangeConfiguration.

Both carry the same shape: `{"vapLsp": {"kubernetesVersion": "1.33", "debounceMs": 150}}`
(the top-level `vapLsp` wrapper is optional in initializationOptions). `samples` is a list of
globs or paths (relative to each workspace folder) that "Run against samples" also uses.
`ignore` (codes) and `severity` (code → level) override the project's `.vap-lsp.yaml` /
`[tool.vap-lsp]`, as `kubernetesVersion` and `samples` do (`ServerState.analysis_settings_for`).
`debounceMs` absent or `null` means adaptive scheduling (`server.pacing`), also when a later
configuration drops it; a number is a fixed delay in milliseconds after each edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.config import Overrides, overrides_from_client
from vap_lsp.schema.store import normalize_version


@dataclass(frozen=True)
class ServerSettings:
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    # None: adaptive (analyse at once unless the document is slow); a number: fixed debounce.
    debounce_seconds: float | None = None
    samples: tuple[str, ...] = ()
    # `vapLsp.crds`: CRD files, folders or globs (relative to each workspace folder) that type
    # policies on custom resources whose CRDs are not in the workspace (server.crd_watch).
    # None when the client does not set it: the configuration's `crds` apply then.
    crds: tuple[str, ...] | None = None
    # `vapLsp.ignore` / `vapLsp.severity`: override the project's configuration file.
    rules: Overrides = field(default_factory=Overrides)


def parse_settings(raw: Any, current: ServerSettings | None = None) -> tuple[ServerSettings, list[str]]:
    """Returns the new settings and human-readable problems (bad values keep the old setting)."""
    current = current or ServerSettings()
    problems: list[str] = []
    if not isinstance(raw, dict):
        return current, problems
    section = raw.get("vapLsp", raw)
    if not isinstance(section, dict):
        return current, problems
    analysis = current.analysis
    debounce = current.debounce_seconds
    version = section.get("kubernetesVersion")
    if version is not None:
        try:
            analysis = AnalysisSettings(normalize_version(str(version)))
        except ValueError as exc:
            problems.append(f"vapLsp.kubernetesVersion: {exc}")
    delay = section.get("debounceMs")
    if delay is None:
        debounce = None  # absent or null: adaptive
    elif isinstance(delay, (int, float)) and not isinstance(delay, bool) and 0 <= delay <= 10_000:
        debounce = float(delay) / 1000.0
    else:
        problems.append("vapLsp.debounceMs: expected null (adaptive) or milliseconds from 0 to 10000")
    samples = current.samples
    # `samplePaths` is what the VS Code extension sends; `samples` the documented name.
    raw_samples = section.get("samples", section.get("samplePaths"))
    if raw_samples is not None:
        if isinstance(raw_samples, list) and all(isinstance(s, str) for s in raw_samples):
            samples = tuple(raw_samples)
        else:
            problems.append("vapLsp.samples: expected a list of globs or paths")
    crds = current.crds
    raw_crds = section.get("crds")
    if raw_crds is not None:
        if isinstance(raw_crds, list) and all(isinstance(s, str) for s in raw_crds):
            crds = tuple(raw_crds)
        else:
            problems.append("vapLsp.crds: expected a list of paths or globs")
    rules = current.rules
    if "ignore" in section or "severity" in section:
        rules, rule_problems = overrides_from_client(section)
        problems.extend(rule_problems)
    return ServerSettings(analysis, debounce, samples, crds, rules), problems
