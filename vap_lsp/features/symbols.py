"""Document and workspace symbols: an outline of policies and bindings.

Each object is a symbol named by its `metadata.name` (kind as detail); a policy's
validations, variables, mutations and matchConditions are its children, so an editor's
outline and breadcrumbs show where in a long policy the cursor is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.placement import first_line
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.policy.kinds import recognise
from vap_lsp.text import LineIndex, Span, shorten
from vap_lsp.yaml.model import MappingNode, Node, ScalarNode, SequenceNode, deref, lookup

SymbolKind = Literal["class", "interface", "function", "variable", "method", "event", "object"]


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: SymbolKind
    span: Span
    selection: Span
    detail: str | None = None
    children: list[Symbol] = field(default_factory=list)


@dataclass(frozen=True)
class WorkspaceSymbol:
    name: str
    kind: SymbolKind
    uri: str
    span: Span
    container: str | None = None


_SECTIONS: tuple[tuple[str, SymbolKind, str, str | None], ...] = (
    # (spec list, symbol kind, field naming the entry, field shown as detail)
    ("matchConditions", "event", "name", "expression"),
    ("variables", "variable", "name", "expression"),
    ("validations", "function", "expression", "message"),
    ("mutations", "method", "patchType", None),
)


def _scalar(node: Node | None, key: str) -> ScalarNode | None:
    node = deref(node)
    value = deref(node.get(key)) if isinstance(node, MappingNode) else None
    return value if isinstance(value, ScalarNode) else None


def _children(obj: K8sObject, lines: LineIndex) -> list[Symbol]:
    out: list[Symbol] = []
    for section, kind, name_field, detail_field in _SECTIONS:
        items, _, found = lookup(obj.node, ("spec", section))
        if not isinstance(items, SequenceNode) or len(found) != 2:
            continue
        for i, raw in enumerate(items.items):
            item = deref(raw)
            if item is None:
                continue
            label = _scalar(item, name_field)
            detail = _scalar(item, detail_field) if detail_field else None
            name = shorten(label.value, 60) if label is not None and label.value else f"{section}[{i}]"
            selection = first_line(label.span if label is not None else raw.span, lines)
            out.append(
                Symbol(
                    name,
                    kind,
                    raw.span,
                    selection,
                    detail=shorten(detail.value, 60) if detail is not None else f"{section}[{i}]",
                )
            )
    return out


def document_symbols(snapshot: DocumentSnapshot) -> list[Symbol]:
    symbols: list[Symbol] = []
    for obj in snapshot.objects:
        name_node = _scalar(obj.node.get("metadata"), "name")
        name = name_node.value if name_node is not None and name_node.value else f"({obj.kind})"
        selection = name_node.span if name_node is not None else first_line(obj.node.span, snapshot.lines)
        policy = recognise(obj.api_version, obj.kind)
        kind: SymbolKind = "class" if policy is not None and not policy[0].is_binding else "interface"
        if policy is None:
            kind = "object"
        children = _children(obj, snapshot.lines) if policy is not None else []
        symbols.append(Symbol(name, kind, obj.node.span, selection, detail=obj.kind, children=children))
    return symbols


def workspace_symbols(index: WorkspaceIndex, query: str, limit: int = 500) -> list[WorkspaceSymbol]:
    """Policies and bindings whose name contains `query` (case-insensitive; all for "")."""
    needle = query.lower()
    out: list[WorkspaceSymbol] = []
    for entry in index.objects():
        policy = recognise(entry.api_version, entry.kind)
        if policy is None or needle not in entry.name.lower():
            continue
        kind: SymbolKind = "interface" if policy[0].is_binding else "class"
        out.append(WorkspaceSymbol(entry.name, kind, entry.uri, entry.span, entry.kind))
        if len(out) >= limit:
            break
    return sorted(out, key=lambda s: (s.name, s.uri))
