"""Reading the YAML a test file refers to: objects as plain data (as kubectl would send them),
with the line each starts on, and the test file itself with its nodes (for case lines).

Why our own parser and not PyYAML: the same YAML 1.1 resolution as `vap-lsp check`, and spans,
so a failing case can be reported at its line in the CLI and as a diagnostic in the editor.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.files import read_text
from vap_lsp.analysis.model.objects import object_data
from vap_lsp.yaml.model import ExpansionLimit, MappingNode, Node, SequenceNode, YamlFile, deref


@dataclass
class SourceObject:
    data: dict[str, Any]
    path: str
    line: int  # 1-based

    @property
    def kind(self) -> str:
        return str(self.data.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.data.get("apiVersion", ""))

    @property
    def name(self) -> str:
        meta = self.data.get("metadata")
        return str(meta.get("name", "")) if isinstance(meta, dict) else ""

    @property
    def namespace(self) -> str:
        meta = self.data.get("metadata")
        value = meta.get("namespace") if isinstance(meta, dict) else None
        return value if isinstance(value, str) else ""


def objects_in_text(text: str, path: str, problems: list[str]) -> list[SourceObject]:
    yaml_file, objects = parse_text(text)
    for problem in [*yaml_file.problems, *(p for d in yaml_file.documents for p in d.problems)]:
        line = yaml_file.lines.line_of(problem.span.start) + 1
        problems.append(f"{path}:{line}: {problem.message}")
    out: list[SourceObject] = []
    for obj in objects:
        try:
            data = copy.deepcopy(object_data(obj.node))  # admitted: may be changed
        except ExpansionLimit as exc:
            problems.append(f"{path}: {exc}")
            continue
        if isinstance(data, dict):
            out.append(SourceObject(data, path, yaml_file.lines.line_of(obj.node.span.start) + 1))
    return out


def load_objects(path: Path, problems: list[str]) -> list[SourceObject]:
    text = read_text(path, problems)
    return [] if text is None else objects_in_text(text, str(path), problems)


@dataclass
class TestDocument:
    """A parsed test file: plain data plus the root node, to find where each case starts."""

    path: Path
    yaml: YamlFile
    root: Node | None
    data: Any

    def line_of(self, *keys: str | int) -> int | None:
        node = deref(self.root)
        for key in keys:
            if isinstance(key, int) and isinstance(node, SequenceNode) and 0 <= key < len(node.items):
                node = deref(node.items[key])
            elif isinstance(key, str) and isinstance(node, MappingNode):
                node = deref(node.get(key))
            else:
                return None
        return None if node is None else self.yaml.lines.line_of(node.span.start) + 1


def parse_test_document(path: Path, text: str, problems: list[str]) -> TestDocument | None:
    yaml_file, _ = parse_text(text)
    for problem in [*yaml_file.problems, *(p for d in yaml_file.documents for p in d.problems)]:
        problems.append(f"{path}:{yaml_file.lines.line_of(problem.span.start) + 1}: {problem.message}")
    docs = [d for d in yaml_file.documents if d.root is not None]
    if not docs:
        problems.append(f"{path}: empty test file")
        return None
    try:
        data = copy.deepcopy(object_data(docs[0].root))
    except ExpansionLimit as exc:
        problems.append(f"{path}: {exc}")
        return None
    return TestDocument(path, yaml_file, docs[0].root, data)


def resolve(base: Path, relative: str) -> Path:
    """Paths in test files are relative to the test file's folder (as in kaptest and Kyverno)."""
    return (base.parent / relative) if not Path(relative).is_absolute() else Path(relative)
