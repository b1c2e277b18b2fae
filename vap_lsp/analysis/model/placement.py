"""Where a diagnostic about a field path sits in the YAML text.

The server speaks in field paths; users read lines. A present field gets the range of its
value (or key); a missing one sits on the key of its deepest present ancestor, never on a
whole multi-line block.
"""

from __future__ import annotations

from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import MappingNode, Node, Path, ScalarNode, SequenceNode, lookup


def first_line(span: Span, lines: LineIndex) -> Span:
    """Clip a span to its first line so a block never paints a whole screen."""
    line = lines.line_of(span.start)
    end = min(span.end, lines.line_end(line))
    return Span(span.start, max(end, span.start))


def head_span(node: Node, lines: LineIndex) -> Span:
    """A short span that stands for a node: a scalar itself, else the first key or item."""
    if isinstance(node, ScalarNode):
        return node.span
    if isinstance(node, MappingNode) and node.items:
        return first_line(node.items[0][0].span, lines)
    if isinstance(node, SequenceNode) and node.items:
        return first_line(node.items[0].span, lines)
    return first_line(node.span, lines)


def _one_line(node: Node, lines: LineIndex) -> bool:
    """A flow collection written on one line is short enough to underline whole."""
    flow = isinstance(node, (MappingNode, SequenceNode)) and node.flow
    return flow and lines.line_of(node.span.start) == lines.line_of(max(node.span.start, node.span.end - 1))


def span_for_path(root: Node, path: Path, lines: LineIndex, *, on_key: bool = False) -> Span:
    node, key, found = lookup(root, path)
    if node is None:
        return head_span(root, lines) if key is None else key.span
    complete = len(found) == len(path)
    if complete:
        if on_key and key is not None:
            return key.span
        if isinstance(node, ScalarNode) or _one_line(node, lines):
            return node.span
        if key is not None:
            return key.span
        return head_span(node, lines)
    # Missing child: point at the parent's key, or at the parent itself.
    if key is not None:
        return key.span
    return head_span(node, lines)
