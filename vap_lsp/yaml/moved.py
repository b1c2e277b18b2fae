"""A parsed tree placed at another offset, copied one collection at a time as it is read.

An edit moves every YAML document after it. Copying each moved tree with shifted spans was
the largest share of an edit's analysis on a 1,000-line file, although the engine reads a few
keys of most moved documents (their objects' results are cached by text). So a moved mapping
or sequence is a `MappingNode`/`SequenceNode` whose `items` are copied on first read; the
node then becomes a plain instance of its class, so later reads cost what they always did.

Invariants (`tests/yaml/test_yaml_incremental.py`):
- a moved tree equals an eager copy: same classes seen through `isinstance`, spans, values;
- a node is copied at most once (a lock: language services read nodes from other threads
  than the analysis that built them), so every reader sees the same child objects;
- a tree with aliases that have targets is copied at once, through one memo, so an alias
  points at the very node its anchor's place in the tree holds; a lazy copy has no such alias;
- a copy of a copy not read yet refers to the parsed original, never to a chain of copies;
- the original tree is never mutated (older snapshots and the piece cache hold it).
"""

from __future__ import annotations

import threading
from typing import Any

from vap_lsp.text import Span
from vap_lsp.yaml.model import AliasNode, MappingNode, Node, ScalarNode, SequenceNode

__all__ = ["moved_node", "same_values"]

_lock = threading.Lock()
# The slots that hold `items` in the plain classes (the lazy subclasses shadow them).
_MAPPING_ITEMS: Any = MappingNode.__dict__["items"]
_SEQUENCE_ITEMS: Any = SequenceNode.__dict__["items"]


class _Pending:
    """What a lazy node's `items` slot holds until it is read: the original and the shift."""

    __slots__ = ("delta", "source")

    def __init__(self, source: MappingNode | SequenceNode, delta: int) -> None:
        self.source = source
        self.delta = delta


class _MovedMapping(MappingNode):
    __slots__ = ()

    @property
    def items(self) -> list[tuple[Node, Node]]:
        value = _MAPPING_ITEMS.__get__(self)
        if isinstance(value, _Pending):
            value = _materialise(self, _MAPPING_ITEMS, MappingNode)
        return value  # type: ignore[no-any-return]

    @items.setter
    def items(self, value: list[tuple[Node, Node]]) -> None:
        _MAPPING_ITEMS.__set__(self, value)


class _MovedSequence(SequenceNode):
    __slots__ = ()

    @property
    def items(self) -> list[Node]:
        value = _SEQUENCE_ITEMS.__get__(self)
        if isinstance(value, _Pending):
            value = _materialise(self, _SEQUENCE_ITEMS, SequenceNode)
        return value  # type: ignore[no-any-return]

    @items.setter
    def items(self, value: list[Node]) -> None:
        _SEQUENCE_ITEMS.__set__(self, value)


def _materialise(node: Node, slot: Any, plain: type[Node]) -> Any:
    with _lock:
        value = slot.__get__(node)
        if isinstance(value, _Pending):  # not copied by another thread meanwhile
            d, source = value.delta, value.source
            # `source` is always a plain node (see `_lazy`): reading its items copies nothing.
            if isinstance(source, MappingNode):
                value = [(_lazy(k, d), _lazy(v, d)) for k, v in source.items]
            else:
                value = [_lazy(v, d) for v in source.items]
            slot.__set__(node, value)
            node.__class__ = plain  # the same slots: from now on a plain node
    return value


def same_values(node: Node) -> Node:
    """A node with the same values as `node` to read values from (not positions): the original
    of a moved copy not read yet, so that reading a key or two does not copy its items."""
    if isinstance(node, MappingNode | SequenceNode):
        pending = (_MAPPING_ITEMS if isinstance(node, MappingNode) else _SEQUENCE_ITEMS).__get__(node)
        if isinstance(pending, _Pending):
            return pending.source
    return node


def moved_node(node: Node, delta: int, *, aliased: bool) -> Node:
    """`node` with every span, offset and child moved by `delta`: copied lazily, unless the
    tree has aliases with targets (`aliased`): they must reach the copy of their anchor's node."""
    return _eager(node, delta, {}) if aliased else _lazy(node, delta)


def _lazy(node: Node, d: int) -> Node:
    span = Span(node.span.start + d, node.span.end + d)
    if isinstance(node, ScalarNode):
        return _scalar(node, span, d)
    if isinstance(node, MappingNode | SequenceNode):
        mapping = isinstance(node, MappingNode)
        slot = _MAPPING_ITEMS if mapping else _SEQUENCE_ITEMS
        pending = slot.__get__(node)
        # A copy of a copy not read yet shifts the original: no chain grows edit after edit.
        source, delta = (pending.source, pending.delta + d) if isinstance(pending, _Pending) else (node, d)
        out: Node = MappingNode.__new__(_MovedMapping) if mapping else SequenceNode.__new__(_MovedSequence)
        out.span, out.tag, out.anchor = span, node.tag, node.anchor
        out.flow = node.flow  # type: ignore[attr-defined]
        slot.__set__(out, _Pending(source, delta))
        return out
    if isinstance(node, AliasNode):  # without anchors in the tree: an undefined one, no target
        target = node.target
        return AliasNode(span, node.tag, node.anchor, node.name, None if target is None else _lazy(target, d))
    raise TypeError(type(node).__name__)  # pragma: no cover - the model has no other node types


def _eager(node: Node, d: int, memo: dict[int, Node]) -> Node:
    span = Span(node.span.start + d, node.span.end + d)
    out: Node
    if isinstance(node, ScalarNode):
        out = _scalar(node, span, d)
    elif isinstance(node, MappingNode):
        m = MappingNode(span, node.tag, node.anchor, [], node.flow)
        memo[id(node)] = m
        m.items = [(_eager(k, d, memo), _eager(v, d, memo)) for k, v in node.items]
        out = m
    elif isinstance(node, SequenceNode):
        q = SequenceNode(span, node.tag, node.anchor, [], node.flow)
        memo[id(node)] = q
        q.items = [_eager(v, d, memo) for v in node.items]
        out = q
    elif isinstance(node, AliasNode):
        target = node.target
        moved = None if target is None else memo.get(id(target)) or _eager(target, d, memo)
        out = AliasNode(span, node.tag, node.anchor, node.name, moved)
    else:  # pragma: no cover - the model has no other node types
        raise TypeError(type(node).__name__)
    memo[id(node)] = out
    return out


def _scalar(node: ScalarNode, span: Span, d: int) -> ScalarNode:
    offsets = node.offsets.shifted(d)
    return ScalarNode(span, node.tag, node.anchor, node.value, node.style, offsets, node.content_start + d)
