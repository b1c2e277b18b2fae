"""The position-tracking YAML model: every node knows its exact source span.

This is the contract between the YAML layer and everything above it. Nodes are immutable
after parsing. Aliases stay `AliasNode`s pointing at their anchor's node, so an alias bomb costs
memory proportional to the text, never to its expansion; `to_python` expands under a budget.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.offsets import OffsetMap


class ScalarStyle(enum.Enum):
    PLAIN = "plain"
    SINGLE = "single"  # '...'
    DOUBLE = "double"  # "..."
    LITERAL = "literal"  # |
    FOLDED = "folded"  # >


@dataclass(eq=False, slots=True)
class Node:
    span: Span
    tag: str | None = None  # explicit tag as written (e.g. "!!str"), None when implicit
    anchor: str | None = None


@dataclass(eq=False, slots=True)
class ScalarNode(Node):
    value: str = ""  # the decoded text
    style: ScalarStyle = ScalarStyle.PLAIN
    # offsets[i] is the source offset of decoded character i; offsets[len(value)] is the source
    # offset just past the content (before a closing quote / trailing break). len == len(value)+1.
    offsets: OffsetMap = field(default_factory=OffsetMap.empty)
    # Offset of the first content character (after quote or block header line).
    content_start: int = 0

    def source_offset(self, i: int) -> int:
        """Source offset of decoded index i (clamped); where the CEL layer maps its positions."""
        if not self.offsets:
            return self.span.start
        i = max(0, min(i, len(self.offsets) - 1))
        return self.offsets[i]

    def source_span(self, start: int, end: int) -> Span:
        """Source span covering decoded [start, end)."""
        s = self.source_offset(start)
        if end <= start:
            return Span(s, s)
        e = self.source_offset(end - 1) + 1
        return Span(s, max(s, e))

    def decoded_index(self, source_offset: int) -> int | None:
        """Inverse map: decoded index at a source offset, or None when outside the content."""
        offs = self.offsets
        if not offs or source_offset < offs[0] or source_offset > offs[-1]:
            return None
        return offs.index_of(source_offset)

    @property
    def is_null(self) -> bool:
        return (
            self.style is ScalarStyle.PLAIN
            and self.tag is None
            and self.value in ("", "~", "null", "Null", "NULL")
        )


@dataclass(eq=False, slots=True)
class MappingNode(Node):
    items: list[tuple[Node, Node]] = field(default_factory=list)
    flow: bool = False

    def get(self, key: str) -> Node | None:
        """Value of the first entry with this string key (duplicates are reported elsewhere)."""
        for k, v in self.items:
            if isinstance(k, ScalarNode) and k.value == key:
                return v
        return None

    def get_item(self, key: str) -> tuple[ScalarNode, Node] | None:
        for k, v in self.items:
            if isinstance(k, ScalarNode) and k.value == key:
                return k, v
        return None

    def keys(self) -> Iterator[str]:
        for k, _ in self.items:
            if isinstance(k, ScalarNode):
                yield k.value


@dataclass(eq=False, slots=True)
class SequenceNode(Node):
    items: list[Node] = field(default_factory=list)
    flow: bool = False


@dataclass(eq=False, slots=True)
class AliasNode(Node):
    """`*name`; span is the alias token. `target` is None when the anchor is undefined."""

    name: str = ""
    target: Node | None = None


def deref(node: Node | None) -> Node | None:
    """Follow aliases (bounded: a cycle cannot be written in YAML, but be safe)."""
    hops = 0
    while isinstance(node, AliasNode) and hops < 64:
        node = node.target
        hops += 1
    return None if isinstance(node, AliasNode) else node


class ProblemKind(enum.Enum):
    SYNTAX = "yaml-syntax"  # the YAML is broken
    TEMPLATE = "template"  # Helm / Go template text; not analysed
    NOT_TEXT = "not-text"  # binary, NUL bytes, undecodable
    TOO_LARGE = "too-large"  # alias expansion or size over budget
    DUPLICATE_KEY = "duplicate-key"


@dataclass(frozen=True)
class YamlProblem:
    kind: ProblemKind
    span: Span
    message: str


@dataclass(eq=False)
class YamlDocument:
    """One `---`-separated document; `root` is None for an empty document."""

    index: int
    span: Span
    root: Node | None
    # Problems local to this document (syntax errors stop at the document they occur in).
    problems: list[YamlProblem] = field(default_factory=list)


@dataclass(eq=False)
class YamlFile:
    text: str
    lines: LineIndex
    documents: list[YamlDocument]
    # File-level problems: a template or non-text file yields exactly one and no documents.
    problems: list[YamlProblem] = field(default_factory=list)
    # A `{{ ... }}` left in a plain scalar of a file that is YAML all the same (a rendered
    # bundle): the file is analysed, the engine adds one note here (`yaml.detect`).
    template_marker: Span | None = None
    # Every scalar holding a `{{ ... }}` action, and whether it is quoted or a block scalar (in a
    # file that is no template those are text: a CEL message may say `{{ }}`).
    template_values: tuple[tuple[Span, bool], ...] = ()


class ExpansionLimit(Exception):
    """Raised by `to_python` when alias expansion exceeds its budget (an alias bomb)."""


# Budget for `to_python`: nodes visited, counting each alias expansion again.
DEFAULT_EXPANSION_BUDGET = 1_000_000


def to_python(node: Node | None, budget: int = DEFAULT_EXPANSION_BUDGET) -> Any:
    """Plain data as kubectl would send it (sigs.k8s.io/yaml resolves scalars as YAML 1.1, go-yaml v2).

    Raises ExpansionLimit past `budget` visited nodes.
    """
    return to_python_counted(node, budget)[0]


def to_python_counted(node: Node | None, budget: int = DEFAULT_EXPANSION_BUDGET) -> tuple[Any, int]:
    """`to_python`, and the nodes it visited (aliases expanded): the size of the data."""
    from vap_lsp.yaml.resolve import resolve_scalar

    remaining = [budget]

    def conv(n: Node | None, depth: int) -> Any:
        remaining[0] -= 1
        if remaining[0] < 0 or depth > 10_000:
            raise ExpansionLimit(f"YAML alias expansion exceeds the budget of {budget} nodes")
        if n is None:
            return None
        if isinstance(n, AliasNode):
            return conv(n.target, depth + 1)
        if isinstance(n, ScalarNode):
            return resolve_scalar(n)
        if isinstance(n, SequenceNode):
            return [conv(i, depth + 1) for i in n.items]
        if isinstance(n, MappingNode):
            out: dict[Any, Any] = {}
            for k, v in n.items:
                key = conv(k, depth + 1)
                if isinstance(key, (list, dict)):
                    key = repr(key)
                out[key] = conv(v, depth + 1)
            return out
        raise TypeError(type(n))

    data = conv(node, 0)
    return data, budget - remaining[0]


PathElem = str | int
Path = tuple[PathElem, ...]


def lookup(root: Node | None, path: Path) -> tuple[Node | None, ScalarNode | None, Path]:
    """Find the node at `path`.

    Returns (value node, key node of the last mapping step, the part of `path` that was found).
    When the path does not exist fully, returns the deepest node reached, so a diagnostic for a
    missing field can sit on its parent.
    """
    node = deref(root)
    key_node: ScalarNode | None = None
    found: list[PathElem] = []
    for elem in path:
        if isinstance(elem, int) and isinstance(node, SequenceNode):
            if 0 <= elem < len(node.items):
                node = deref(node.items[elem])
                key_node = None
                found.append(elem)
                continue
            break
        if isinstance(elem, str) and isinstance(node, MappingNode):
            item = node.get_item(elem)
            if item is not None:
                key_node, node = item[0], deref(item[1])
                found.append(elem)
                continue
        break
    return node, key_node, tuple(found)
