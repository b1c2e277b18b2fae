"""Helm charts: which files are a chart's templates, and what a templated value can be.

A file under `<chart>/templates/` beside `<chart>/Chart.yaml` is a template: Helm renders it
before anything reaches a cluster, so a value holding a `{{ ... }}` action (a name, a policyName,
a CEL expression with `{{ .Values.x }}` in it) is unknown until then and nothing is said of it.
The rest of the file is checked as it is; `helm template CHART | vap-lsp check -` checks the
rendered result.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["chart_of", "name_pattern"]

_ACTION = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def chart_of(path: Path) -> str | None:
    """The chart folder `path` is a template of (`<chart>/templates/**`, `<chart>/Chart.yaml`
    beside), as given (relative stays relative); None when it is none."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "templates":
            continue
        chart = Path(*parts[:i]) if i else Path(".")
        if (chart / "Chart.yaml").is_file():
            return str(chart)
    return None


def name_pattern(name: str) -> re.Pattern[str] | None:
    """The names a templated name can render to (`replicas-{{ .Release.Name }}` → `replicas-.*`);
    None when the name holds no action."""
    if "{{" not in name:
        return None
    pieces = _ACTION.split(name)
    return re.compile(".*".join(re.escape(p) for p in pieces), re.DOTALL)
