"""Kubernetes objects found in a YAML file.

Every mapping document with `apiVersion` and `kind` is an object, policy or not: CRDs,
ConfigMaps and sample objects matter to later analyses. `kind: List` (and `*List` kinds) are
unwrapped the way kubectl does, keeping each item's own node so positions stay exact; an item
of a typed list without apiVersion and kind is of the list's item kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vap_lsp.lru import LruCache
from vap_lsp.yaml.model import (
    DEFAULT_EXPANSION_BUDGET,
    ExpansionLimit,
    MappingNode,
    Node,
    Path,
    ScalarNode,
    SequenceNode,
    YamlFile,
    deref,
    to_python_counted,
)
from vap_lsp.yaml.moved import same_values

CRD_API_GROUP = "apiextensions.k8s.io"

OBJECT_NODE_BUDGET = DEFAULT_EXPANSION_BUDGET
"""The one size limit for reading an object (or a part of one) into plain data: YAML nodes
visited, aliases expanded. Past it the reader raises `ExpansionLimit`."""

# An entry keeps its node, and so the parsed document it is part of, alive: 1,024 entries, of
# 4 million characters in all, each weighing the characters its node spans or the nodes its
# expansion visited, whichever is more (aliases expand a short text into many nodes).
DATA_CACHE_WEIGHT = 4_000_000
_DATA: LruCache[int, tuple[Node, Any, int]] = LruCache(
    1024, weigh=lambda _, entry: entry[2], max_weight=DATA_CACHE_WEIGHT
)


def object_data(node: Node | None) -> Any:
    """An object, or part of one, as plain data, as kubectl would send it (`to_python` under
    `OBJECT_NODE_BUDGET`). Cached by node (nodes never change once parsed): the result is shared,
    so treat it as read-only and copy it before changing it. Raises `ExpansionLimit` past the
    budget."""
    if node is None:
        return None
    key = id(node)
    hit = _DATA.get(key)
    if hit is not None and hit[0] is node:
        found = hit[1]
    else:
        try:
            found, visited = to_python_counted(node, budget=OBJECT_NODE_BUDGET)
        except ExpansionLimit as exc:
            found, visited = exc, OBJECT_NODE_BUDGET
        _DATA.put(key, (node, found, max(visited, node.span.end - node.span.start)))
    if isinstance(found, ExpansionLimit):
        raise ExpansionLimit(str(found))
    return found


@dataclass(eq=False)
class K8sObject:
    node: MappingNode
    document: int  # index of the YAML document
    # Where the object sits inside its document: () for a top-level object, ("items", i) in a List.
    location: Path
    api_version: str
    kind: str

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    @property
    def version(self) -> str:
        return self.api_version.rpartition("/")[2]

    @property
    def is_crd(self) -> bool:
        return self.kind == "CustomResourceDefinition" and self.group == CRD_API_GROUP

    @property
    def name(self) -> str | None:
        meta = deref(self.node.get("metadata"))
        if isinstance(meta, MappingNode):
            name = deref(meta.get("name"))
            if isinstance(name, ScalarNode):
                return name.value
        return None


def own_text(obj: K8sObject, text: str) -> str | None:
    """The text that decides everything a top-level object yields (its diagnostics relative to
    its start, its index entries): results cached by it are reused when the object is unchanged,
    wherever it moved. None for an item of a `List`, where an alias may point at an anchor
    outside the item's text."""
    if obj.location:
        return None
    return text[obj.node.span.start : obj.node.span.end]


def _str_field(node: MappingNode, key: str) -> str | None:
    value = deref(node.get(key))
    if isinstance(value, ScalarNode) and value.value:
        return value.value
    return None


def _objects_in(
    node: Node | None, document: int, location: Path, depth: int = 0, implied: tuple[str, str] | None = None
) -> list[K8sObject]:
    node = deref(node)
    if not isinstance(node, MappingNode):
        return []
    values = same_values(node)  # an edit moves most documents: finding their objects copies none
    assert isinstance(values, MappingNode)
    api_version = _str_field(values, "apiVersion")
    kind = _str_field(values, "kind")
    if api_version is None and kind is None and implied is not None:
        api_version, kind = implied
    if api_version is None or kind is None:
        return []
    items = deref(node.get("items")) if kind.endswith("List") else None
    if isinstance(items, SequenceNode) and depth < 4:
        # An item of a typed list (`ValidatingAdmissionPolicyList`) written without apiVersion
        # and kind is of the list's item kind, as apimachinery's `decodeToList` reads it.
        item_kind = kind.removesuffix("List")
        implied_item = (api_version, item_kind) if item_kind else None
        found: list[K8sObject] = []
        for i, item in enumerate(items.items):
            found.extend(_objects_in(item, document, (*location, "items", i), depth + 1, implied_item))
        return found
    return [K8sObject(node, document, location, api_version, kind)]


def find_objects(yaml_file: YamlFile) -> list[K8sObject]:
    objects: list[K8sObject] = []
    for doc in yaml_file.documents:
        objects.extend(_objects_in(doc.root, doc.index, ()))
    return objects
