"""The SOURCE paths of `vap-lsp convert`: files and folders read through `analysis.files`, their
objects sorted into Gatekeeper templates, constraints and Config, and Kyverno policies."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vap_lsp.analysis.files import collect_files, read_text
from vap_lsp.convert import gatekeeper, kyverno
from vap_lsp.testfiles.loader import SourceObject, objects_in_text

# A cheap probe: a file without any of these is not read as YAML.
_PROBE = re.compile(r"gatekeeper\.sh|kyverno\.io")


@dataclass
class Sources:
    templates: list[SourceObject] = field(default_factory=list)
    constraints: list[SourceObject] = field(default_factory=list)
    configs: list[SourceObject] = field(default_factory=list)
    kyverno: list[SourceObject] = field(default_factory=list)
    files: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.templates or self.constraints or self.configs or self.kyverno)


def sort_objects(objects: Sequence[SourceObject], into: Sources) -> None:
    for obj in objects:
        if gatekeeper.is_template(obj.data):
            into.templates.append(obj)
        elif gatekeeper.is_constraint(obj.data):
            into.constraints.append(obj)
        elif gatekeeper.is_config(obj.data):
            into.configs.append(obj)
        elif kyverno.is_kyverno_policy(obj.data):
            into.kyverno.append(obj)


def read_sources(paths: Sequence[str | Path]) -> Sources:
    """Every template, constraint, Config and Kyverno policy under `paths` (folders searched for
    `*.yaml`/`*.yml`, hidden folders skipped); unreadable paths and YAML errors in `problems`."""
    out = Sources()
    for path in collect_files(list(paths), out.problems):
        text = read_text(path, out.problems)
        if text is None or not _PROBE.search(text):
            continue
        out.files += 1
        sort_objects(objects_in_text(text, str(path), out.problems), out)
    return out


def read_text_sources(text: str, path: str) -> Sources:
    """One document's text (the editor's buffer), sorted the same way."""
    out = Sources(files=1)
    sort_objects(objects_in_text(text, path, out.problems), out)
    return out
