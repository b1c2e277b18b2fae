"""What the user chose not to see: inline `# vap-lsp: ignore[...]` comments, ignored codes and
severity overrides, applied to a file's diagnostics in one place (`apply_code_rules`, called by
the engine), so the CLI and the server filter identically.

Inline comments:

- at the end of a line, `# vap-lsp: ignore[code, ...]` hides those codes on that line;
- on a line of its own, it hides them in the YAML entry that starts on the next line (a key
  with its whole value, or a list item), and above an object's first line in the whole object;
- `# vap-lsp: ignore` without codes hides every code there.

YAML syntax errors and non-text files (`UNSUPPRESSIBLE`) are never hidden, by comments or by
configuration: a broken file must not pass silently.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import MappingNode, Node, ScalarNode, SequenceNode, YamlFile

UNSUPPRESSIBLE = frozenset({"yaml-syntax", "not-text"})

_COMMENT = re.compile(r"#[ \t]*vap-lsp:[ \t]*ignore(?:\[([^\]\n]*)\])?")


@dataclass(frozen=True)
class CodeRules:
    """Codes to hide and severities to change for one file (from the configuration and flags)."""

    ignore: frozenset[str] = frozenset()
    # (code, severity) pairs; a tuple so the settings stay hashable.
    severity: tuple[tuple[str, Severity], ...] = ()

    def is_empty(self) -> bool:
        return not self.ignore and not self.severity


@dataclass(frozen=True)
class _Suppression:
    start: int  # offsets: diagnostics starting in [start, end] are hidden
    end: int
    codes: frozenset[str] | None  # None: every code

    def hides(self, d: Diagnostic) -> bool:
        return self.start <= d.span.start <= self.end and (self.codes is None or d.code in self.codes)


def apply_code_rules(
    diagnostics: list[Diagnostic], yaml_file: YamlFile, objects: Sequence[K8sObject], rules: CodeRules
) -> list[Diagnostic]:
    """The diagnostics left after inline suppressions and `rules`, with overridden severities,
    and a note at each code an inline comment names that no diagnostic has."""
    suppressions, unknown = _suppressions(yaml_file, objects)
    if not suppressions and rules.is_empty():
        return diagnostics + unknown if unknown else diagnostics
    overrides = dict(rules.severity)
    out: list[Diagnostic] = []
    for d in [*diagnostics, *unknown]:
        if d.code not in UNSUPPRESSIBLE:
            if d.code in rules.ignore or any(s.hides(d) for s in suppressions):
                continue
            severity = overrides.get(d.code)
            if severity is not None and severity is not d.severity:
                d = dataclasses.replace(d, severity=severity)
        out.append(d)
    return out


def _unknown_codes(m: re.Match[str]) -> list[Diagnostic]:
    """A note at each code of an inline comment that no diagnostic has (ruff warns on unknown
    noqa codes too): a misspelt code hides nothing, silently."""
    from vap_lsp.codes import rules  # only for comments that name codes
    from vap_lsp.suggest import did_you_mean

    known = rules()
    out: list[Diagnostic] = []
    for code in re.finditer(r"[^,\s]+", m.group(1) or ""):
        if code.group() in known:
            continue
        start = m.start(1) + code.start()
        out.append(
            Diagnostic(
                Span(start, start + len(code.group())),
                Severity.INFORMATION,
                "unknown-code",
                f"vap-lsp: ignore[{code.group()}]: no diagnostic has this code, so it hides nothing"
                + did_you_mean(code.group(), known),
            )
        )
    return out


def _suppressions(
    yaml_file: YamlFile, objects: Sequence[K8sObject]
) -> tuple[list[_Suppression], list[Diagnostic]]:
    text = yaml_file.text
    if "vap-lsp:" not in text:  # the common case costs one substring search
        return [], []
    found = [m for m in _COMMENT.finditer(text) if _is_comment(text, m.start())]
    if not found:
        return [], []
    unknown: list[Diagnostic] = []
    lines = yaml_file.lines
    # Only the documents that hold a comment (or its target) are walked: an edit of a large file
    # with one suppression does not re-walk every object.
    doc_starts = [d.span.start for d in yaml_file.documents]
    indexes: dict[int, _DocumentIndex] = {}

    def index_at(offset: int) -> _DocumentIndex | None:
        i = bisect.bisect_right(doc_starts, offset) - 1
        if i < 0 or yaml_file.documents[i].root is None:
            return None
        if i not in indexes:
            root = yaml_file.documents[i].root
            assert root is not None
            indexes[i] = _DocumentIndex(root, lines)
        return indexes[i]

    object_starts: list[int] | None = None
    out: list[_Suppression] = []
    for m in found:
        index = index_at(m.start())
        if index is not None and index.inside_scalar(m.start()):
            continue  # `#` inside a quoted or block scalar is text, not a comment
        listed = m.group(1)
        codes = None if listed is None else frozenset(c.strip() for c in listed.split(",") if c.strip())
        if codes:
            unknown.extend(_unknown_codes(m))
        line = lines.line_of(m.start())
        if text[lines.line_start(line) : m.start()].strip():
            out.append(_Suppression(lines.line_start(line), lines.line_end(line), codes))
            continue
        target = _next_content_line(yaml_file, line)
        if target is None:
            continue
        target_start = lines.line_start(target)
        # The only object the comment can head is the first one starting after it.
        if object_starts is None:
            object_starts = [o.node.span.start for o in objects]
        i = bisect.bisect_left(object_starts, m.start())
        obj = objects[i] if i < len(objects) and _heads(yaml_file, line, target, objects[i]) else None
        if obj is not None:
            out.append(_Suppression(min(obj.node.span.start, target_start), obj.node.span.end, codes))
            continue
        target_index = index_at(target_start)
        ends = target_index.entries.get(target, []) if target_index is not None else []
        out.append(_Suppression(target_start, max([lines.line_end(target), *ends]), codes))
    return out, unknown


class _DocumentIndex:
    """The scalar spans of one document, and where each entry starting on a line ends (a mapping
    key with its value, or a list item)."""

    def __init__(self, root: Node, lines: LineIndex) -> None:
        scalars: list[tuple[int, int]] = []
        self.entries: dict[int, list[int]] = {}
        stack = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, ScalarNode):
                scalars.append((node.span.start, node.span.end))
            elif isinstance(node, MappingNode):
                for key, value in node.items:
                    end = max(key.span.end, value.span.end)
                    self.entries.setdefault(lines.line_of(key.span.start), []).append(end)
                    stack.append(key)
                    stack.append(value)
            elif isinstance(node, SequenceNode):
                for item in node.items:
                    self.entries.setdefault(lines.line_of(item.span.start), []).append(item.span.end)
                    stack.append(item)
            # An AliasNode's target is walked where it is written.
        scalars.sort()
        self._scalars = scalars
        self._starts = [start for start, _ in scalars]

    def inside_scalar(self, offset: int) -> bool:
        # Scalars do not nest: only the last one starting at or before the offset can contain it.
        i = bisect.bisect_right(self._starts, offset) - 1
        return i >= 0 and self._scalars[i][0] <= offset < self._scalars[i][1]


def _is_comment(text: str, offset: int) -> bool:
    # YAML: `#` starts a comment at the start of a line or after whitespace.
    return offset == 0 or text[offset - 1] in " \t\n\r"


def _next_content_line(yaml_file: YamlFile, line: int) -> int | None:
    lines = yaml_file.lines
    for n in range(line + 1, lines.line_count):
        content = yaml_file.text[lines.line_start(n) : lines.line_end(n)].strip()
        if content and not content.startswith("#"):
            return n
    return None


def _heads(yaml_file: YamlFile, comment_line: int, target: int, obj: K8sObject) -> bool:
    """The comment is right above the object's first line, or between the start of the object's
    document and that line."""
    if yaml_file.lines.line_of(obj.node.span.start) == target:
        return True
    document = yaml_file.documents[obj.document] if obj.document < len(yaml_file.documents) else None
    lines = yaml_file.lines
    if document is None or obj.location:
        return False
    return lines.line_of(document.span.start) <= comment_line < lines.line_of(obj.node.span.start)


__all__ = ["UNSUPPRESSIBLE", "CodeRules", "apply_code_rules"]
