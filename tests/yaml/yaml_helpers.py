"""Shared helpers for the YAML layer tests (imported by the test_yaml_* modules)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from vap_lsp.yaml.model import AliasNode, MappingNode, Node, ScalarNode, SequenceNode, YamlFile, deref


def walk(node: Node | None) -> Iterator[Node]:
    """Every node once, aliases not followed (an alias bomb stays cheap)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            continue
        yield n
        if isinstance(n, MappingNode):
            for k, v in reversed(n.items):
                stack.extend((v, k))
        elif isinstance(n, SequenceNode):
            stack.extend(reversed(n.items))


def scalars(f: YamlFile) -> list[ScalarNode]:
    return [n for d in f.documents for n in walk(d.root) if isinstance(n, ScalarNode)]


def at(f: YamlFile, *path: str | int, doc: int = 0) -> Node:
    node = f.documents[doc].root
    for p in path:
        node = deref(node)
        if isinstance(p, int):
            assert isinstance(node, SequenceNode)
            node = node.items[p]
        else:
            assert isinstance(node, MappingNode)
            node = node.get(p)
    assert node is not None
    return node


def scalar(f: YamlFile, *path: str | int, doc: int = 0) -> ScalarNode:
    node = at(f, *path, doc=doc)
    assert isinstance(node, ScalarNode), node
    return node


def check_map(text: str, node: ScalarNode) -> None:
    """The invariants every offset map must satisfy."""
    offs = node.offsets
    assert len(offs) == len(node.value) + 1
    assert all(a < b for a, b in itertools.pairwise(offs)), offs
    assert node.span.start <= offs[0] <= offs[-1] <= node.span.end


def source_chars(text: str, node: ScalarNode) -> str:
    """The source character behind each decoded character."""
    return "".join(text[o] if o < len(text) else "$" for o in node.offsets[:-1])


__all__ = ["AliasNode", "at", "check_map", "scalar", "scalars", "source_chars", "walk"]


def fingerprint(f: YamlFile) -> list[Any]:
    """Everything a parse result says, comparable with ==."""
    out: list[Any] = [tuple(f.problems)]

    def node(n: Node | None) -> Any:
        if n is None:
            return None
        # The model's class as `isinstance` sees it (a moved copy is a subclass until read).
        kind = next(c for c in (ScalarNode, AliasNode, MappingNode, SequenceNode) if isinstance(n, c))
        base = (kind.__name__, n.span, n.tag, n.anchor)
        if isinstance(n, ScalarNode):
            return (*base, n.value, n.style, tuple(n.offsets), n.content_start)
        if isinstance(n, AliasNode):
            return (*base, n.name, n.target.span if n.target else None)
        if isinstance(n, (MappingNode, SequenceNode)):
            return (*base, n.flow, len(n.items))
        raise TypeError(n)

    for d in f.documents:
        out.append((d.index, d.span, tuple(d.problems)))
        out.extend(node(n) for n in walk(d.root))
    return out
