"""CEL abstract syntax tree, modelled on cel-go's ``ast.Expr``.

Every node carries a unique ``id`` (per parse, from 1) and a half-open
``[start, end)`` span in code points of the expression text, so that editor
features (hover, completion, diagnostics) can map any node back to the source.
Macros are expanded the way cel-go expands them; the call as written is kept in
``ParsedExpr.macro_calls`` keyed by the id of the expansion.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

__all__ = [
    "Call",
    "CelIssue",
    "Comprehension",
    "ErrorExpr",
    "Expr",
    "Ident",
    "ListExpr",
    "Literal",
    "LiteralKind",
    "MapEntry",
    "MapExpr",
    "Node",
    "ParsedExpr",
    "Select",
    "StructExpr",
    "StructField",
    "children",
    "subtree",
]


@dataclass(eq=False)
class Node:
    """Base of everything that has an id and a source span."""

    id: int
    start: int
    end: int


@dataclass(eq=False)
class Expr(Node):
    """Base class of all expression nodes."""


class LiteralKind(enum.Enum):
    INT = "int"
    UINT = "uint"
    DOUBLE = "double"
    STRING = "string"
    BYTES = "bytes"
    BOOL = "bool"
    NULL = "null"


@dataclass(eq=False)
class Literal(Expr):
    kind: LiteralKind
    value: object


@dataclass(eq=False)
class Ident(Expr):
    name: str


@dataclass(eq=False)
class Select(Expr):
    """``operand.field``; ``test_only`` for ``has()``; ``optional`` for ``operand.?field``."""

    operand: Expr
    field: str
    field_start: int
    test_only: bool = False
    optional: bool = False


@dataclass(eq=False)
class Call(Expr):
    """Function, method (``target`` set) or operator call (cel-go internal names, e.g. ``_+_``)."""

    function: str
    args: list[Expr]
    target: Expr | None = None
    function_start: int = -1


@dataclass(eq=False)
class ListExpr(Expr):
    elements: list[Expr]
    optional_indices: list[int] = field(default_factory=list)


@dataclass(eq=False)
class MapEntry(Node):
    key: Expr
    value: Expr
    optional: bool = False


@dataclass(eq=False)
class MapExpr(Expr):
    entries: list[MapEntry]


@dataclass(eq=False)
class StructField(Node):
    name: str
    name_start: int
    value: Expr
    optional: bool = False


@dataclass(eq=False)
class StructExpr(Expr):
    type_name: str
    type_name_start: int
    fields: list[StructField]


@dataclass(eq=False)
class Comprehension(Expr):
    """Macro expansion (all/exists/map/filter/...), same shape as cel-go's."""

    iter_var: str
    iter_var2: str | None
    iter_range: Expr
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr


@dataclass(eq=False)
class ErrorExpr(Expr):
    """Placeholder for a sub-expression that failed to parse (error recovery)."""


def children(node: Node) -> list[Expr]:
    """Direct sub-expressions of ``node`` in source order (entries/fields flattened)."""
    if isinstance(node, Select):
        return [node.operand]
    if isinstance(node, Call):
        return ([node.target] if node.target is not None else []) + list(node.args)
    if isinstance(node, ListExpr):
        return list(node.elements)
    if isinstance(node, MapExpr):
        out: list[Expr] = []
        for e in node.entries:
            out.extend((e.key, e.value))
        return out
    if isinstance(node, MapEntry):
        return [node.key, node.value]
    if isinstance(node, StructExpr):
        return [f.value for f in node.fields]
    if isinstance(node, StructField):
        return [node.value]
    if isinstance(node, Comprehension):
        return [
            node.iter_range,
            node.accu_init,
            node.loop_condition,
            node.loop_step,
            node.result,
        ]
    return []


def subtree(node: Expr) -> Iterator[Expr]:
    """``node`` and every sub-expression below it (pre-order, last child first)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _line_col(source: str, offset: int) -> tuple[int, int, int]:
    """(1-based line, 0-based column, line start offset) the way cel-go counts (``\\n`` only)."""
    offset = max(0, min(offset, len(source)))
    line_start = source.rfind("\n", 0, offset) + 1
    line = source.count("\n", 0, line_start) + 1
    return line, offset - line_start, line_start


@dataclass(eq=False)
class CelIssue:
    message: str
    start: int
    end: int
    severity: str = "error"

    def render(self, source: str, description: str = "<input>") -> str:
        """cel-go ``Error.ToDisplayString`` format, so messages read like the API server's.

        ``start < 0`` is cel-go's ``NoLocation`` (limits errors): ``<input>:-1:0``.
        """
        head = "ERROR" if self.severity == "error" else self.severity.upper()
        if self.start < 0:
            return f"{head}: {description}:-1:0: {self.message}"
        line, col, line_start = _line_col(source, self.start)
        text = f"{head}: {description}:{line}:{col + 1}: {self.message}"
        if not source:
            return text
        line_end = source.find("\n", line_start)
        snippet = source[line_start : line_end if line_end >= 0 else len(source)]
        if len(snippet) > 16384:
            return text
        snippet = snippet.replace("\t", " ")
        ind = "".join("\uff0e" if len(ch.encode("utf-8")) > 1 else "." for ch in snippet[:col])
        nxt = snippet[col : col + 1]
        ind += "\uff3e" if nxt and len(nxt.encode("utf-8")) > 1 else "^"
        return f"{text}\n | {snippet}\n | {ind}"


@dataclass(eq=False)
class ParsedExpr:
    """Result of :func:`vap_lsp.cel.parser.parse`: AST, issues and macro call forms."""

    ast: Expr | None
    errors: list[CelIssue]
    source: str
    macro_calls: dict[int, Call] = field(default_factory=dict)
    #: id → the offset cel-go records for the node (operator token, ``.`` of a
    #: select, ``(`` of a call, ``[``/``{`` of literals, ``:`` of entries; macro
    #: generated nodes: the ``(`` of the macro call).  Checker errors use these.
    positions: dict[int, int] = field(default_factory=dict)
    _at_location: dict[int, list[Expr]] | None = field(default=None, repr=False)
    _parents: dict[int, Expr] | None = field(default=None, repr=False)
    _identifiers: dict[str, int] | None = field(default=None, repr=False)
    _selections: dict[str, dict[str, list[Select]]] = field(default_factory=dict, repr=False)

    def selections(self, root: str) -> dict[str, list[Select]]:
        """The field selections of the identifier `root` (`variables.<name>`) by field name, in
        walk order, found once per root (each variable's readers are asked for it per view)."""
        found = self._selections.get(root)
        if found is None:
            found = {}
            for n in self.walk():
                if isinstance(n, Select) and isinstance(n.operand, Ident) and n.operand.name == root:
                    found.setdefault(n.field, []).append(n)
            self._selections[root] = found
        return found

    def identifiers(self) -> AbstractSet[str]:
        """The names of the identifiers the expression reads (iteration variables included),
        found on first use: narrowing asks it for every class of requests of every view."""
        return self._identifier_counts().keys()

    def _identifier_counts(self) -> dict[str, int]:
        found = self._identifiers
        if found is None:
            found = {}
            for n in self.walk():
                if isinstance(n, Ident):
                    found[n.name] = found.get(n.name, 0) + 1
            self._identifiers = found
        return found

    def reads_whole(self, root: str) -> bool:
        """Whether the identifier `root` is read other than by selecting a field of it
        (`variables` passed whole: every field of its type may matter)."""
        selected = sum(len(nodes) for nodes in self.selections(root).values())
        return selected < self._identifier_counts().get(root, 0)

    def location(self, node: Node) -> int:
        """Offset at which cel-go would report an issue about ``node``."""
        return self.positions.get(node.id, node.start)

    def nodes_at_location(self, location: int) -> list[Expr]:
        """The expressions cel-go reports at ``location`` (``location``), in ``walk`` order.

        Indexed on first use: a checker issue is placed by location, and a policy with
        thousands of issues would otherwise walk the whole AST for each."""
        index = self._at_location
        if index is None:
            index = {}
            for node in self.walk():
                if isinstance(node, Expr):
                    index.setdefault(self.location(node), []).append(node)
            self._at_location = index
        return index.get(location, [])

    @property
    def ok(self) -> bool:
        return not any(e.severity == "error" for e in self.errors)

    def render_errors(self, description: str = "<input>") -> str:
        """All issues in cel-go's ``Issues.String()`` layout (sorted by position)."""
        issues = sorted(self.errors, key=lambda e: e.start)
        return "\n".join(i.render(self.source, description) for i in issues)

    def path_to(self, node: Expr) -> list[Expr]:
        """The expressions from the root down to ``node`` as ``children`` links them (empty when
        ``node`` is not in this AST). The parents are indexed on first use."""
        parents = self._parents
        if parents is None:
            parents = {}
            stack: list[Expr] = [self.ast] if self.ast is not None else []
            while stack:
                current = stack.pop()
                for child in children(current):
                    parents[id(child)] = current
                    stack.append(child)
            self._parents = parents
        path = [node]
        while id(path[-1]) in parents:
            path.append(parents[id(path[-1])])
        if path[-1] is not self.ast:
            return []
        path.reverse()
        return path

    def walk(self) -> Iterator[Node]:
        """Pre-order over the expanded AST, including map entries and struct fields."""
        if self.ast is None:
            return
        stack: list[Node] = [self.ast]
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, MapExpr):
                stack.extend(reversed(node.entries))
            elif isinstance(node, StructExpr):
                stack.extend(reversed(node.fields))
            else:
                stack.extend(reversed(children(node)))

    def node_at(self, offset: int) -> list[Expr]:
        """Path of expressions whose span contains ``offset``, outermost first.

        For a macro expansion the path holds the expansion followed by the call as
        written, and continues into that call's target and arguments, so it
        follows what the user typed.  Spans are treated
        as closed at the end so that the cursor right after ``a.b`` finds ``b``.
        """
        path: list[Expr] = []
        node: Expr | None = self.ast
        while node is not None and node.start <= offset <= node.end:
            path.append(node)
            shown: Expr = node
            call = self.macro_calls.get(node.id)
            if call is not None:
                path.append(call)
                shown = call
            nxt: Expr | None = None
            for child in children(shown):
                if child.start <= offset <= child.end:
                    nxt = child  # the last match wins: the cursor is inside or right after it
            node = nxt
        return path
