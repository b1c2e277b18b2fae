"""Where the cursor is in a YAML document: the field path, and whether on a key or a value.

Two sources, because the user is context: the parsed tree gives exact answers when the
document parses (hover), and an indentation scan of the text gives the path when it does
not (`    failurePolicy: ` with nothing after, a half-typed key, a fresh `- `). The text scan
walks the document's lines top-down with a stack of (column, key or list item), skipping
block and multi-line quoted scalars, and reads flow collections (`{apiGroups: [apps], …}`)
character by character. Sibling keys and values come from a re-parse of the document with
the half-typed text removed, so the rest of the document still counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from vap_lsp.analysis.model.objects import object_data
from vap_lsp.text import Span
from vap_lsp.yaml.markers import DOCUMENT_MARKER
from vap_lsp.yaml.model import (
    ExpansionLimit,
    MappingNode,
    Node,
    Path,
    PathElem,
    ScalarNode,
    SequenceNode,
    YamlDocument,
    YamlFile,
    lookup,
)
from vap_lsp.yaml.parse import parse_yaml

Where = Literal["key", "value"]

_BLOCK_HEADER = re.compile(r"^[|>][-+0-9]*$")
_VALUE_END = re.compile(r"[\s,\]}#\"']")
_KEY_END = re.compile(r"[\s:,\]}#]")


# ---- the parsed tree ---------------------------------------------------------------------------


def document_at(yaml_file: YamlFile, offset: int) -> YamlDocument | None:
    for doc in yaml_file.documents:
        if doc.span.start <= offset <= doc.span.end:
            return doc
    return yaml_file.documents[-1] if yaml_file.documents else None


def node_path_at(root: Node, offset: int) -> tuple[Path, Where, Node] | None:
    """The path of the key or value under `offset` (aliases are not followed)."""
    path: list[PathElem] = []
    node = root
    if not node.span.contains(offset):
        return None
    while True:
        if isinstance(node, MappingNode):
            for key, _ in node.items:
                if key.span.contains(offset) and key.span.end > key.span.start:
                    if isinstance(key, ScalarNode):
                        return (*path, key.value), "key", key
                    return None
            for key, value in node.items:
                if value.span.contains(offset) and isinstance(key, ScalarNode):
                    path.append(key.value)
                    node = value
                    break
            else:
                return tuple(path), "value", node
            continue
        if isinstance(node, SequenceNode):
            for i, item in enumerate(node.items):
                if item.span.contains(offset):
                    path.append(i)
                    node = item
                    break
            else:
                return tuple(path), "value", node
            continue
        return tuple(path), "value", node


# ---- the text --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineTokens:
    """The structure of one line: list dashes, a key, the inline value (columns)."""

    indent: int
    dashes: tuple[int, ...]
    key: str | None
    key_start: int
    key_end: int
    value_start: int  # after `key: ` (or after the dashes when there is no key)
    value: str  # inline value without a trailing comment
    block: bool  # the value is a block scalar header (| or >)
    open_quote: str | None  # a quoted scalar that continues on the next lines

    @property
    def is_blank(self) -> bool:
        return self.key is None and not self.dashes and not self.value


def _closing_quote(line: str, start: int) -> int | None:
    quote = line[start]
    i = start + 1
    while i < len(line):
        ch = line[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and i + 1 < len(line) and line[i + 1] == "'":
                i += 2
                continue
            return i
        i += 1
    return None


def _strip_comment(text: str) -> str:
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is None:
            if ch in "\"'" and (i == 0 or text[i - 1] in " \t[{,:"):
                close = _closing_quote(text, i)
                if close is None:
                    return text.rstrip()
                i = close + 1
                continue
            if ch == "#" and (i == 0 or text[i - 1] in " \t"):
                return text[:i].rstrip()
        i += 1
    return text.rstrip()


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return text


def scan_line(line: str) -> LineTokens:
    n = len(line)
    i = 0
    while i < n and line[i] == " ":
        i += 1
    indent = i
    dashes: list[int] = []
    while i < n and line[i] == "-" and (i + 1 == n or line[i + 1] in " \t"):
        dashes.append(i)
        i += 1
        while i < n and line[i] in " \t":
            i += 1
    key: str | None = None
    key_start = key_end = value_start = i
    if i < n and line[i] != "#":
        if line[i] in "\"'":
            close = _closing_quote(line, i)
            if close is not None:
                k = close + 1
                while k < n and line[k] in " \t":
                    k += 1
                if k < n and line[k] == ":" and (k + 1 == n or line[k + 1] in " \t"):
                    key, key_end, value_start = _unquote(line[i : close + 1]), close + 1, k + 1
        elif line[i] not in "[{|>!&*%@`":
            k = line.find(":", i)
            while k >= 0:
                if k + 1 == n or line[k + 1] in " \t":
                    if " #" not in line[i:k]:
                        key = line[i:k].rstrip()
                        key_end, value_start = i + len(key), k + 1
                    break
                k = line.find(":", k + 1)
    if key is not None:
        while value_start < n and line[value_start] in " \t":
            value_start += 1
    value = _strip_comment(line[value_start:])
    block = bool(_BLOCK_HEADER.match(value))
    open_quote: str | None = None
    if value and value[0] in "\"'" and _closing_quote(value, 0) is None:
        open_quote = value[0]
    return LineTokens(indent, tuple(dashes), key, key_start, key_end, value_start, value, block, open_quote)


@dataclass
class _Entry:
    column: int
    elem: PathElem
    is_item: bool


def _push_item(stack: list[_Entry], column: int) -> None:
    while stack and stack[-1].column > column:
        stack.pop()
    top = stack[-1] if stack else None
    if top is not None and top.is_item and top.column == column:
        assert isinstance(top.elem, int)
        top.elem += 1
    else:
        stack.append(_Entry(column, 0, True))


def _push_key(stack: list[_Entry], column: int, key: str) -> None:
    while stack and stack[-1].column >= column:
        stack.pop()
    stack.append(_Entry(column, key, False))


def _pop_for_key(stack: list[_Entry], column: int) -> None:
    while stack and stack[-1].column >= column:
        stack.pop()


@dataclass
class _Outline:
    """The stack after every structural line above the cursor line of one document."""

    stack: list[_Entry]
    top_level: dict[str, str]  # apiVersion / kind found at column 0


def _doc_line_range(lines: list[str], line: int) -> tuple[int, int]:
    start = line
    while start > 0 and not DOCUMENT_MARKER.match(lines[start]):
        start -= 1
    if lines and DOCUMENT_MARKER.match(lines[start]):
        start += 1
    end = line + 1
    while end < len(lines) and not DOCUMENT_MARKER.match(lines[end]):
        end += 1
    return start, end


def _structural_lines(lines: list[str], start: int, end: int) -> list[tuple[int, LineTokens]]:
    """Lines that carry structure, skipping block scalar content and quoted continuations."""
    out: list[tuple[int, LineTokens]] = []
    block_parent: int | None = None
    open_quote: str | None = None
    for number in range(start, end):
        line = lines[number]
        if open_quote is not None:
            # A continuation line: find the closing quote.
            pos = 0
            closed = False
            while pos < len(line):
                ch = line[pos]
                if open_quote == '"' and ch == "\\":
                    pos += 2
                    continue
                if ch == open_quote:
                    if open_quote == "'" and pos + 1 < len(line) and line[pos + 1] == "'":
                        pos += 2
                        continue
                    closed = True
                    break
                pos += 1
            if closed:
                open_quote = None
            continue
        stripped = line.strip()
        if block_parent is not None:
            if not stripped or len(line) - len(line.lstrip(" ")) > block_parent:
                continue
            block_parent = None
        if not stripped or stripped.startswith("#"):
            continue
        tokens = scan_line(line)
        out.append((number, tokens))
        if tokens.block:
            if tokens.key is not None:
                block_parent = tokens.key_start
            else:
                block_parent = tokens.dashes[-1] if tokens.dashes else tokens.indent
        elif tokens.open_quote is not None:
            open_quote = tokens.open_quote
    return out


def _apply(stack: list[_Entry], tokens: LineTokens) -> None:
    for dash in tokens.dashes:
        _push_item(stack, dash)
    if tokens.key is not None:
        _push_key(stack, tokens.key_start, tokens.key)


def _path(stack: list[_Entry]) -> Path:
    return tuple(e.elem for e in stack)


# ---- flow collections --------------------------------------------------------------------------


@dataclass
class _Frame:
    kind: str  # "[" or "{"
    items: int = 0
    key: str | None = None
    values: dict[str, Any] = field(default_factory=dict)
    scalars: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class FlowState:
    rel_path: Path
    where: Where
    prefix: str
    prefix_start: int  # offset of the prefix within the scanned text (after an opening quote)
    keys: frozenset[str]  # keys of the innermost mapping (KEY)
    siblings: dict[str, Any]  # completed entries of the innermost enclosing mapping
    values: tuple[str, ...]  # items already in the innermost list
    quoted: bool = False  # the prefix is inside an open quote


def scan_flow(text: str) -> FlowState | None:
    """Where the end of `text` (the start of a flow collection up to the cursor) sits."""
    frames: list[_Frame] = []
    token: str | None = None  # the scalar being read; None before one starts or after a collection
    token_start = 0
    i = 0
    quoted = False

    def take() -> str | None:
        return token.strip() if token is not None else None

    while i < len(text):
        ch = text[i]
        if ch in "\"'" and not (token or "").strip():
            close = _closing_quote(text, i)
            if close is None:
                token, token_start, quoted = text[i + 1 :], i + 1, True
                break
            token, token_start = _unquote(text[i : close + 1]), i
            i = close + 1
            continue
        if ch in "[{":
            frames.append(_Frame(ch))
            token, token_start = None, i + 1
        elif ch in "]}":
            if not frames:
                return None
            done = frames.pop()
            last = take()
            value: Any = (
                (done.scalars + ([last] if last is not None else [])) if done.kind == "[" else done.values
            )
            if frames and frames[-1].kind == "{" and frames[-1].key is not None:
                frames[-1].values[frames[-1].key] = value
                frames[-1].key = None
            token, token_start = None, i + 1
        elif ch == ",":
            if not frames:
                return None
            frame = frames[-1]
            last = take()
            if frame.kind == "[":
                if last is not None:
                    frame.scalars.append(last)
                frame.items += 1
            elif frame.key is not None and last is not None:
                frame.values[frame.key] = last
            elif frame.key is None and last:
                frame.values[last] = None
            if frame.kind == "{":
                frame.key = None
            token, token_start = None, i + 1
        elif (
            ch == ":" and frames and frames[-1].kind == "{" and (i + 1 == len(text) or text[i + 1] in " \t,")
        ):
            frames[-1].key = take() or ""
            token, token_start = None, i + 1
        elif ch in " \t" and token is None:
            token_start = i + 1
        else:
            token = (token or "") + ch
        i += 1
    if not frames:
        return None
    rel: list[PathElem] = []
    for frame in frames:
        if frame.kind == "[":
            rel.append(frame.items)
        elif frame.key is not None:
            rel.append(frame.key)
    inner = frames[-1]
    where: Where = "key" if inner.kind == "{" and inner.key is None else "value"
    enclosing = next((f for f in reversed(frames) if f.kind == "{"), None)
    raw = token or ""
    prefix = raw if quoted else raw.strip()
    return FlowState(
        tuple(rel),
        where,
        prefix,
        token_start if quoted else token_start + (len(raw) - len(raw.lstrip())),
        frozenset(inner.values) if inner.kind == "{" else frozenset(),
        dict(enclosing.values) if enclosing is not None else {},
        tuple(inner.scalars) if inner.kind == "[" else (),
        quoted,
    )


# ---- the cursor context --------------------------------------------------------------------------


@dataclass(frozen=True)
class CursorContext:
    """What completion needs to know about the cursor.

    `path` is the mapping's path for a key, the value's path for a value (a list item ends
    with its index). `replace` is the half-typed word (empty at a fresh position).
    """

    api_version: str | None
    kind: str | None
    path: Path
    where: Where
    prefix: str
    replace: Span
    in_flow: bool
    quoted: bool  # the value being typed is inside quotes
    key_column: int
    existing_keys: frozenset[str]
    siblings: dict[str, Any]  # plain data of the mapping that holds the value
    list_values: tuple[str, ...]  # other items of the list being completed
    after: str  # the rest of the line after the replaced word
    dash_item: bool  # a `- ` item with nothing after it yet
    root: Node | None  # the document (repaired when needed) for further lookups


def _repaired_root(text: str, doc_start: int, doc_end: int, cut_start: int, cut_end: int) -> Node | None:
    """The document parsed with the half-typed text removed."""
    doc_text = text[doc_start:cut_start] + text[cut_end:doc_end]
    parsed = parse_yaml(doc_text)
    if parsed.documents and parsed.documents[0].root is not None and not parsed.problems:
        return parsed.documents[0].root
    return None


def _siblings_at(root: Node | None, path: Path) -> dict[str, Any]:
    if root is None:
        return {}
    node, _, found = lookup(root, path)
    if len(found) != len(path) or not isinstance(node, MappingNode):
        return {}
    try:
        data = object_data(node)
    except ExpansionLimit:
        return {}
    return data if isinstance(data, dict) else {}


def _keys_at(root: Node | None, path: Path) -> frozenset[str]:
    if root is None:
        return frozenset()
    node, _, found = lookup(root, path)
    if len(found) != len(path) or not isinstance(node, MappingNode):
        return frozenset()
    return frozenset(node.keys())


def _holder(path: Path) -> Path:
    """The mapping that holds the value at `path` (a list item belongs to its list's owner)."""
    out = path
    while out and isinstance(out[-1], int):
        out = out[:-1]
    return out[:-1]


def cursor_context(yaml_file: YamlFile, offset: int) -> CursorContext:
    text = yaml_file.text
    lines_index = yaml_file.lines
    line_no = lines_index.line_of(offset)
    line_start = lines_index.line_start(line_no)
    line_end = lines_index.line_end(line_no)
    all_lines = [
        text[lines_index.line_start(n) : lines_index.line_end(n)] for n in range(lines_index.line_count)
    ]
    line = all_lines[line_no]
    col = offset - line_start
    prefix_text = line[:col]

    first, last = _doc_line_range(all_lines, line_no)
    doc_start = lines_index.line_start(first)
    doc_end = lines_index.line_end(last - 1) if last > first else doc_start
    structural = _structural_lines(all_lines, first, line_no)
    stack: list[_Entry] = []
    top_level: dict[str, str] = {}
    for _number, tokens in structural:
        _apply(stack, tokens)
        if tokens.indent == 0 and not tokens.dashes and tokens.key in ("apiVersion", "kind"):
            top_level[tokens.key] = _unquote(tokens.value)
    for _number, tokens in _structural_lines(all_lines, line_no + 1, last):
        if tokens.indent == 0 and not tokens.dashes and tokens.key in ("apiVersion", "kind"):
            top_level.setdefault(tokens.key, _unquote(tokens.value))
    # Only a structural line counts; inside a block scalar there is no YAML context to give.
    here = scan_line(prefix_text)
    for dash in here.dashes:
        _push_item(stack, dash)

    where: Where
    in_flow = quoted = False
    list_values: tuple[str, ...] = ()
    flow_siblings: dict[str, Any] = {}
    flow_keys: frozenset[str] = frozenset()
    cut_start = line_start + (here.dashes[-1] + 1 if here.dashes else 0)
    if here.key is not None:
        _push_key(stack, here.key_start, here.key)
        value_text = prefix_text[here.value_start :]
        base = _path(stack)
        cut_start = line_start + here.value_start
        key_column = here.key_start
        start_col = here.value_start
        if value_text[:1] in ("[", "{"):
            flow = scan_flow(value_text)
            path, where, prefix = base, "value", ""
            if flow is not None:
                in_flow = True
                path, where, prefix = (*base, *flow.rel_path), flow.where, flow.prefix
                start_col = here.value_start + flow.prefix_start
                list_values, flow_siblings, flow_keys = flow.values, flow.siblings, flow.keys
                quoted = flow.quoted
        else:
            path, where = base, "value"
            prefix = value_text
            if prefix[:1] and prefix[0] in "\"'":
                quoted, prefix, start_col = True, prefix[1:], start_col + 1
    else:
        start_col = here.value_start
        rest = prefix_text[start_col:]
        key_column = start_col
        if rest[:1] in ("[", "{"):
            base = _path(stack)
            flow = scan_flow(rest)
            path, where, prefix = base, "value", ""
            if flow is not None:
                in_flow = True
                path, where, prefix = (*base, *flow.rel_path), flow.where, flow.prefix
                start_col += flow.prefix_start
                list_values, flow_siblings, flow_keys = flow.values, flow.siblings, flow.keys
                quoted = flow.quoted
        else:
            if not here.dashes:
                _pop_for_key(stack, start_col)
            path = _path(stack)
            where = "key"
            prefix = rest
            if prefix[:1] and prefix[0] in "\"'":
                quoted, prefix, start_col = True, prefix[1:], start_col + 1
    # The word under the cursor extends to its end on the line.
    after_match = _VALUE_END.search(line, col) if where == "value" else _KEY_END.search(line, col)
    end_col = after_match.start() if after_match else len(line)
    replace = Span(line_start + start_col, line_start + max(end_col, col))
    root = _repaired_root(text, doc_start, doc_end, cut_start, line_end)
    if root is None:
        root = _repaired_root(text, doc_start, doc_end, line_start, line_end)
    if in_flow:
        siblings = flow_siblings or _siblings_at(root, _holder(path))
        existing = flow_keys
    else:
        siblings = _siblings_at(root, _holder(path)) if where == "value" else {}
        existing = _keys_at(root, path) if where == "key" else frozenset()
        if path and isinstance(path[-1], int):
            # A block list item: the other items of the same list.
            node, _, found = lookup(root, path[:-1]) if root is not None else (None, None, ())
            if isinstance(node, SequenceNode) and len(found) == len(path) - 1:
                list_values = tuple(i.value for i in node.items if isinstance(i, ScalarNode) and i.value)
    if root is not None and isinstance(root, MappingNode):
        for key in ("apiVersion", "kind"):
            value = root.get(key)
            if isinstance(value, ScalarNode) and value.value and key not in top_level:
                top_level[key] = value.value
    return CursorContext(
        api_version=top_level.get("apiVersion") or None,
        kind=top_level.get("kind") or None,
        path=path,
        where=where,
        prefix=prefix,
        replace=replace,
        in_flow=in_flow,
        quoted=quoted,
        key_column=key_column,
        existing_keys=existing,
        siblings=siblings,
        list_values=list_values,
        after=line[end_col:],
        dash_item=bool(here.dashes) and not prefix_text[here.value_start :].strip() and here.key is None,
        root=root,
    )


def in_block_scalar(yaml_file: YamlFile, offset: int) -> bool:
    """Whether `offset` is in the content of a block or multi-line quoted scalar (no YAML context)."""
    lines_index = yaml_file.lines
    line_no = lines_index.line_of(offset)
    all_lines = [
        yaml_file.text[lines_index.line_start(n) : lines_index.line_end(n)]
        for n in range(lines_index.line_count)
    ]
    first, _ = _doc_line_range(all_lines, line_no)
    structural = {n for n, _ in _structural_lines(all_lines, first, line_no + 1)}
    stripped = all_lines[line_no].strip()
    return line_no not in structural and bool(stripped) and not stripped.startswith("#")


def text_path_at(yaml_file: YamlFile, offset: int) -> tuple[Path, Where, str | None, str | None] | None:
    """Path of the key or value under `offset` from the text alone (the document is broken)."""
    lines_index = yaml_file.lines
    line_no = lines_index.line_of(offset)
    all_lines = [
        yaml_file.text[lines_index.line_start(n) : lines_index.line_end(n)]
        for n in range(lines_index.line_count)
    ]
    first, last = _doc_line_range(all_lines, line_no)
    stack: list[_Entry] = []
    top_level: dict[str, str] = {}
    found: tuple[Path, Where] | None = None
    col = offset - lines_index.line_start(line_no)
    for number, tokens in _structural_lines(all_lines, first, last):
        if tokens.indent == 0 and not tokens.dashes and tokens.key in ("apiVersion", "kind"):
            top_level[tokens.key] = _unquote(tokens.value)
        if number > line_no or found is not None:
            continue
        _apply(stack, tokens)
        if number == line_no and tokens.key is not None:
            if tokens.key_start <= col <= tokens.key_end:
                found = _path(stack), "key"
            elif col >= tokens.value_start:
                found = _path(stack), "value"
    if found is None:
        return None
    return found[0], found[1], top_level.get("apiVersion"), top_level.get("kind")
