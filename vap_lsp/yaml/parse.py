"""YAML text -> position-tracking model (`vap_lsp.yaml.model`), never raising.

We read parser *events* and compose nodes ourselves instead of using ruamel's composer, because
the composer replaces an alias by the shared node (losing the `*name` token and inviting
exponential expansion), drops the explicit-tag text, and recurses per nesting level. Our
composer is an explicit stack: time and memory stay O(text) for alias bombs and deep nesting.

Two event sources, one composer:

* ruamel.yaml's pure-Python scanner/parser is the reference. Its error messages are the ones
  we report, and we hook its scanner to learn exact scalar-token starts, tag tokens and the
  indentation a block scalar was scanned at.
* libyaml through PyYAML's `CParser` (PyYAML comes with cel-python) is a fast path, about 20x
  faster; ruamel alone needs over a second for a 10,000-line file. Marks from both count code
  points. libyaml events lack token details, so we recover them from the text (properties
  skipped, block indentation from the enclosing block collection); the offsets computed from
  them are checked against the decoded value like every other scalar map. From the first
  document libyaml rejects, parsing continues with ruamel, so all syntax errors come from ruamel.

Error policy: ruamel stops at the first error. Documents completed before it are kept, the
broken document gets exactly one problem (and no root, so later layers do not pile follow-up
errors on a half-read tree), and parsing resumes at the next `---` line at column 0.
"""

from __future__ import annotations

import importlib
import itertools
import re
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import tokens as tk
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.parser import Parser
from ruamel.yaml.reader import Reader
from ruamel.yaml.scanner import Scanner

from vap_lsp.cancel import checkpoint
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.detect import find_template_action, template_problem, template_values
from vap_lsp.yaml.markers import DOCUMENT_START
from vap_lsp.yaml.model import (
    AliasNode,
    MappingNode,
    Node,
    ProblemKind,
    ScalarNode,
    ScalarStyle,
    SequenceNode,
    YamlDocument,
    YamlFile,
    YamlProblem,
)
from vap_lsp.yaml.moved import moved_node
from vap_lsp.yaml.offsets import OffsetMap
from vap_lsp.yaml.scalars import scalar_offsets

__all__ = ["MAX_DEPTH", "clear_cache", "parse_yaml"]

# Deeper collections are refused: consumers walk the tree recursively, and Python's default
# recursion limit (1000 frames) must survive a few frames per level plus the server's own stack.
# Real policies nest about 15 levels.
MAX_DEPTH = 200

_STYLES = {
    None: ScalarStyle.PLAIN,
    "": ScalarStyle.PLAIN,
    "'": ScalarStyle.SINGLE,
    '"': ScalarStyle.DOUBLE,
    "|": ScalarStyle.LITERAL,
    ">": ScalarStyle.FOLDED,
}

# Characters YAML forbids in a stream (ruamel's Reader.NON_PRINTABLE).
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _load_libyaml() -> Any:
    try:
        return importlib.import_module("yaml._yaml")  # PyYAML's libyaml binding
    except ImportError:  # pragma: no cover - PyYAML without libyaml: ruamel only
        return None


_LIBYAML: Any = _load_libyaml()


# Parser events between two cancellation checkpoints: a few milliseconds of parsing, and a
# checkpoint's cost (a thread-local read) is lost among them.
_EVENTS_PER_CHECKPOINT = 1024


class _TooDeep(Exception):
    pass


class _Scanner(Scanner):
    """ruamel's scanner, remembering what the composer needs but the events do not carry."""

    def __init__(self, loader: Any) -> None:
        super().__init__(loader)
        self.last_scalar: Any = None  # the ScalarToken of the next ScalarEvent, if any
        self.last_tag: Any = None  # the TagToken of the next tagged node event
        self.block_indents: dict[int, int] = {}  # block scalar start -> scanner indent

    def get_token(self) -> Any:
        token = super().get_token()
        if isinstance(token, tk.ScalarToken):
            self.last_scalar = token
        elif isinstance(token, tk.TagToken):
            self.last_tag = token
        return token

    def scan_block_scalar(self, style: Any, rt: Any = False) -> Any:
        indent = self.indent
        token = super().scan_block_scalar(style, rt)
        self.block_indents[token.start_mark.index] = indent
        return token


class _Loader:
    """The minimal object ruamel's Reader/Scanner/Parser expect to find each other through."""

    comment_handling = None
    processing_version = (1, 2)

    def __init__(self, text: str) -> None:
        self.doc_infos = [types.SimpleNamespace()]
        self._resolver = self
        self._reader = Reader(text, self)
        self._scanner = _Scanner(self)
        self._parser = Parser(self)


@dataclass
class _Frame:
    node: MappingNode | SequenceNode
    anchor: str | None
    indent: int  # scanner indentation inside this collection (block) or inherited (flow)
    key: Node | None = None
    end: int = -1


@dataclass
class _Run:
    """Result of composing text[base:] until its end or the first error."""

    documents: list[YamlDocument] = field(default_factory=list)
    error: YamlProblem | None = None
    error_offset: int = -1
    broken_start: int = -1  # start of the broken document
    scalar_spans: list[tuple[int, int, bool]] = field(default_factory=list)  # (start, end, string?)
    tokenised_until: int = 0
    stopped_at: int = -1  # set when composing stopped early (after `max_docs` documents)


def _problem_span(text: str, p: int) -> Span:
    p = max(0, min(p, len(text)))
    if p < len(text) and text[p] not in "\r\n":
        return Span(p, p + 1)
    return Span(p, p)


def _skip_properties(text: str, p: int, limit: int) -> tuple[int, str | None]:
    """From a node's start, skip `&anchor`/`!tag` properties; return (content start, tag text)."""
    tag: str | None = None
    n = min(limit, len(text))
    while p < n:
        ch = text[p]
        if ch in " \t\r\n":
            p += 1
        elif ch == "#" and (p == 0 or text[p - 1] in " \t\r\n"):
            while p < n and text[p] not in "\r\n":
                p += 1
        elif ch == "&" or ch == "!":
            q = p + 1
            if ch == "!" and q < n and text[q] == "<":
                q = text.find(">", q)
                q = n if q < 0 else q + 1
            while q < n and text[q] not in " \t\r\n,[]{}":
                q += 1
            if ch == "!":
                tag = text[p:q]
            p = q
        else:
            break
    return p, tag


class _Composer:
    """Builds documents from one event source over text[base:] (offsets made absolute)."""

    def __init__(self, text: str, base: int, first_index: int, fast: bool, max_docs: int = 0) -> None:
        self.text = text
        self.base = base
        self.max_docs = max_docs
        self.index = first_index
        self.fast = fast
        self.run = _Run()
        sub = text[base:] if base else text
        self.scanner: _Scanner | None = None
        self.events: Callable[[], Any]
        if fast:
            self.events = _LIBYAML.CParser(sub).get_event
            self.position: Callable[[], int] = lambda: len(text)
        else:
            loader = _Loader(sub)
            self.scanner = loader._scanner
            self.events = loader._parser.get_event
            reader = loader._reader
            self.position = lambda: int(reader.index) + base

    def _tag(self, e: Any) -> str | None:
        """Explicit tag as written (None when implicit)."""
        if e.tag is None:
            return None
        if self.scanner is not None:
            tok = self.scanner.last_tag
            self.scanner.last_tag = None
            if tok is not None:
                return self.text[tok.start_mark.index + self.base : tok.end_mark.index + self.base]
        s = e.start_mark.index + self.base
        return _skip_properties(self.text, s, e.end_mark.index + self.base)[1] or str(e.tag)

    def _scalar(self, e: Any, parent_indent: int) -> ScalarNode:
        b = self.base
        start, end = e.start_mark.index + b, e.end_mark.index + b
        style = _STYLES.get(e.style, ScalarStyle.PLAIN)
        value: str = e.value
        tag: str | None = None
        token_start = -1
        if self.scanner is not None:
            tag = self._tag(e)
            tok = self.scanner.last_scalar
            self.scanner.last_scalar = None
            if tok is not None and tok.end_mark.index + b == end:
                token_start = tok.start_mark.index + b
                parent_indent = self.scanner.block_indents.get(tok.start_mark.index, parent_indent)
        elif e.anchor is None and e.tag is None:
            token_start = start if end > start else -1
        else:
            token_start, tag = _skip_properties(self.text, start, end)
            if e.tag is not None and tag is None:
                tag = str(e.tag)
            if token_start >= end:
                token_start = -1  # properties only: an empty scalar
        if token_start >= 0:
            offsets, content_start = scalar_offsets(
                self.text, style, token_start, end, value, parent_indent, strict=self.fast
            )
            self.run.scalar_spans.append((token_start, end, style is not ScalarStyle.PLAIN))
        else:  # empty scalar: no token (`key:` or a lone `&anchor`)
            offsets, content_start = OffsetMap.of([end] * (len(value) + 1)), end
        return ScalarNode(
            span=Span(start, end),
            tag=tag,
            anchor=e.anchor,
            value=value,
            style=style,
            offsets=offsets,
            content_start=content_start,
        )

    def _place_empty_value(self, node: ScalarNode, key: Node) -> None:
        """Put an empty mapping value right after its `:`.

        The parsers disagree (ruamel often uses the next token, on a later line); just after
        the colon is where an editor should point for "value missing".
        """
        if node.tag is not None or node.anchor is not None:
            return
        text = self.text
        p = key.span.end
        while p < len(text) and text[p] in " \t":
            p += 1
        if p < len(text) and text[p] == ":":
            node.span = Span(p + 1, p + 1)
            node.offsets = OffsetMap.linear(p + 1, 1)
            node.content_start = p + 1

    def _column(self, p: int) -> int:
        # Search for a lone CR only after the last LF: rfind over the whole prefix made
        # parsing quadratic in files without any CR.
        text = self.text
        nl = text.rfind("\n", 0, p)
        cr = text.rfind("\r", nl + 1, p)
        return p - (max(nl, cr) + 1)

    def _event_stream(self) -> Iterator[Any]:
        get = self.events
        count = 0
        while True:
            e = get()
            if e is None:
                return
            yield e
            if type(e).__name__ == "StreamEndEvent":
                return
            count += 1
            if not count % _EVENTS_PER_CHECKPOINT:
                checkpoint()  # one huge document is cancellable midway, not only at its end

    def compose(self) -> _Run:
        run = self.run
        b = self.base
        stack: list[_Frame] = []
        anchors: dict[str, Node] = {}
        doc_start = -1
        root: Node | None = None
        too_deep: YamlProblem | None = None
        last_end = b

        def attach(node: Node, end: int) -> None:
            nonlocal root
            if not stack:
                root = node
                return
            top = stack[-1]
            top.end = max(top.end, end)
            if isinstance(top.node, SequenceNode):
                top.node.items.append(node)
            elif top.key is None:
                top.key = node
            else:
                top.node.items.append((top.key, node))
                top.key = None

        try:
            for e in self._event_stream():
                kind = type(e).__name__
                if kind == "ScalarEvent":
                    node = self._scalar(e, stack[-1].indent if stack else -1)
                    if node.span.start == node.span.end and stack and stack[-1].key is not None:
                        self._place_empty_value(node, stack[-1].key)
                    if e.anchor is not None:
                        anchors[e.anchor] = node
                    attach(node, node.span.end)
                elif kind == "MappingStartEvent" or kind == "SequenceStartEvent":
                    s = e.start_mark.index + b
                    if len(stack) >= MAX_DEPTH:
                        # Stop here: the document gets this one problem and no root, and the
                        # rest of it is not worth scanning (ruamel is quadratic in flow depth).
                        too_deep = YamlProblem(
                            ProblemKind.TOO_LARGE,
                            _problem_span(self.text, s),
                            f"YAML nesting too deep (more than {MAX_DEPTH} levels)",
                        )
                        raise _TooDeep(s)
                    flow = bool(e.flow_style)
                    tag = self._tag(e)
                    coll: MappingNode | SequenceNode
                    if kind == "SequenceStartEvent":
                        coll = SequenceNode(span=Span(s, s), tag=tag, anchor=e.anchor, flow=flow)
                    else:
                        coll = MappingNode(span=Span(s, s), tag=tag, anchor=e.anchor, flow=flow)
                    first = e.end_mark.index + b  # block collections: the first entry
                    if first > b and self.text[first - 1] == "-" and self.text[first : first + 1] != "-":
                        first -= 1  # libyaml ends an indentless sequence's start after its `-`
                    indent = stack[-1].indent if stack else -1
                    if not flow:
                        indent = max(indent, self._column(first))
                    stack.append(_Frame(coll, e.anchor, indent, end=first))
                elif kind == "MappingEndEvent" or kind == "SequenceEndEvent":
                    frame = stack.pop()
                    coll = frame.node
                    if frame.key is not None and isinstance(coll, MappingNode):  # not from a parser
                        coll.items.append((frame.key, ScalarNode(span=Span(frame.end, frame.end))))
                    end = e.end_mark.index + b if coll.flow else frame.end
                    coll.span = Span(coll.span.start, max(end, coll.span.start))
                    # Register only now: an alias inside its own anchor cannot form a cycle.
                    if frame.anchor is not None:
                        anchors[frame.anchor] = coll
                    attach(coll, coll.span.end)
                elif kind == "AliasEvent":
                    s, t = e.start_mark.index + b, e.end_mark.index + b
                    attach(AliasNode(span=Span(s, t), name=e.anchor, target=anchors.get(e.anchor)), t)
                elif kind == "DocumentStartEvent":
                    doc_start = e.start_mark.index + b
                    root, anchors = None, {}
                    stack.clear()
                elif kind == "DocumentEndEvent":
                    end = max(e.end_mark.index + b, doc_start)
                    if isinstance(root, ScalarNode) and root.span.start == root.span.end and not root.tag:
                        root = None  # an empty document
                    doc = YamlDocument(self.index, Span(doc_start, end), root)
                    run.documents.append(doc)
                    self.index += 1
                    doc_start, last_end = -1, end
                    if self.max_docs and len(run.documents) >= self.max_docs and end > b:
                        run.stopped_at = end
                        break
        except Exception as exc:  # YAMLError, or a parser bug on odd input: same treatment
            if isinstance(exc, _TooDeep):
                message, p = "", exc.args[0]
            elif isinstance(exc, MarkedYAMLError) or hasattr(exc, "problem_mark"):
                message = str(exc.problem or exc.context or "invalid YAML").strip()  # type: ignore[attr-defined]
                mark = exc.problem_mark or exc.context_mark  # type: ignore[attr-defined]
                p = mark.index + b if mark is not None else self.position()
            else:
                message, p = (str(exc).strip() or type(exc).__name__), self.position()
            run.error_offset = min(p, len(self.text))
            run.broken_start = doc_start if doc_start >= 0 else last_end
            run.error = too_deep or YamlProblem(
                ProblemKind.SYNTAX, _problem_span(self.text, p), "YAML syntax error: " + message
            )
            run.tokenised_until = run.error_offset
            if self.scanner is not None:  # scanned but unconsumed tokens still tell strings apart
                for tok in self.scanner.tokens:
                    if isinstance(tok, tk.ScalarToken):
                        s, t = tok.start_mark.index + b, tok.end_mark.index + b
                        run.scalar_spans.append((s, t, not tok.plain))
        else:
            run.tokenised_until = run.stopped_at if run.stopped_at >= 0 else len(self.text)
        return run


def _recovery_point(text: str, lines: LineIndex, error_offset: int, broken_start: int) -> int:
    """Start of the next `---` line at or after the error's line and after the broken doc start."""
    frm = max(lines.line_start(lines.line_of(error_offset)), broken_start + 1)
    m = DOCUMENT_START.search(text, frm)
    return m.start() if m else -1


def _nearest_document(docs: list[YamlDocument], p: int) -> YamlDocument | None:
    best: YamlDocument | None = None
    for d in docs:
        if d.span.start <= p:
            best = d
    return best or (docs[0] if docs else None)


def _compose_all(
    text: str, work: str, lines: LineIndex, use_libyaml: bool
) -> tuple[list[YamlDocument], list[tuple[int, int, bool]], list[tuple[int, int]]]:
    """Every document of `work` (text with forbidden characters replaced), with recovery."""
    documents: list[YamlDocument] = []
    scalar_spans: list[tuple[int, int, bool]] = []
    tokenised: list[tuple[int, int]] = []
    base = 0
    # libyaml does not count a leading BOM in its marks; leave such (rare) text to ruamel.
    libyaml = use_libyaml and _LIBYAML is not None and not text.startswith("\ufeff")
    fast = libyaml
    max_docs = 0
    while True:
        run = _Composer(work, base, len(documents), fast, max_docs).compose()
        scalar_spans.extend(run.scalar_spans)
        if fast and run.error is not None and run.error.kind is ProblemKind.SYNTAX:
            # libyaml rejected something: ruamel re-reads the last document libyaml accepted
            # (libyaml may have ended it differently, e.g. an unindented top-level block
            # scalar) and the rejected one, and words the error; then libyaml goes on.
            redo = run.documents[-1:]
            documents.extend(run.documents[:-1])
            redo_from = redo[0].span.start if redo else run.broken_start
            tokenised.append((base, redo_from))
            base = redo_from
            fast, max_docs = False, 1 + len(redo)
            continue
        documents.extend(run.documents)
        tokenised.append((base, run.tokenised_until))
        if run.error is None:
            if run.stopped_at < 0:
                break
            base, fast, max_docs = run.stopped_at, libyaml, 0
            continue
        nxt = _recovery_point(text, lines, run.error_offset, run.broken_start)
        start = max(run.broken_start, base)
        end = nxt if nxt >= 0 else len(text)
        documents.append(YamlDocument(len(documents), Span(start, end), None, [run.error]))
        if nxt < 0:
            break
        base, fast, max_docs = nxt, libyaml, 0

    return documents, scalar_spans, tokenised


# --- Incremental parsing -------------------------------------------------------------------
#
# A `---` line at column 0 ends whatever came before it for both parsers (plain, quoted and block
# scalars, flow collections: either the construct ends or the error is reported on that line, and
# recovery resumes there). So a stream splits at those lines into pieces that parse alone, and an
# edit re-parses only the piece it touched. Each piece is parsed with a synthetic `---` line after
# it, so an error that the next document's marker provokes reads exactly as in the whole stream.
# Invariant (tested over the corpus and random edits): the result equals `_compose_all`'s, except
# where one pass lets ruamel re-read the document before one libyaml rejects (there a piece keeps
# libyaml's verdict, as one pass does whenever the next document is well formed).


@dataclass
class _Piece:
    base: int  # where `documents` are placed (absolute offsets)
    first_index: int
    documents: list[YamlDocument]
    # Relative to the piece's start: a moved copy shares them (see `_token_spans`).
    scalar_spans: list[tuple[int, int, bool]]
    tokenised: list[tuple[int, int]]
    aliased: bool  # an alias with a target is in it: moved copies are made at once (`yaml.moved`)


_PIECES: OrderedDict[tuple[str, bool], _Piece] = OrderedDict()
# Bound on the cached text beyond the text being parsed (whose pieces are always kept: its model
# holds the same nodes, so they cost nothing more while it lives). Nodes take ~27 bytes a character.
_PIECES_CHARS = 1_200_000
_pieces_chars = 0
_pieces_lock = threading.Lock()
_LOOKAHEAD = "---\n"
# The characters YAML allows, of ASCII (a text that is all ASCII is checked in C: see `_forbidden`).
_ASCII_ALLOWED = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x7F)])


def _forbidden(text: str) -> list[int]:
    """Offsets of the characters YAML forbids. Every parse scans the whole text: for ASCII text
    (nearly every manifest) bytes.translate finds none 5x faster than the regular expression."""
    if text.isascii() and not text.encode("ascii").translate(None, _ASCII_ALLOWED):
        return []
    return [m.start() for m in _NON_PRINTABLE.finditer(text)]


def _doc_starts(text: str) -> list[int]:
    """Offsets after the first of the column-0 `---` lines (`DOCUMENT_START`), found with
    str.find: the regular expression walked every character of the text at every edit."""
    starts: list[int] = []
    n = len(text)
    i = text.find("\n---")
    while i >= 0:
        end = i + 4
        if end == n or text[end] in " \t\r\n":
            starts.append(i + 1)
        i = text.find("\n---", end)
    return starts


def _segmentable(text: str, bad: list[int], use_libyaml: bool, starts: list[int]) -> bool:
    """Pieces are worth it, and equal to one pass, for the common case only: libyaml present,
    no BOM, no forbidden characters, no directives (they bind to the next `---`)."""
    return (
        use_libyaml
        and _LIBYAML is not None
        and not bad
        and not text.startswith("\ufeff")
        and not text.startswith("%")
        and "\n%" not in text
        and bool(starts)
    )


def _compose_segments(text: str, starts: list[int]) -> tuple[list[YamlDocument], list[_Piece]] | None:
    """Piece by piece, from the cache where the text is unchanged; None when a piece does not
    stand alone (then one pass decides). Also the pieces, for their token spans (`_token_spans`)."""
    bounds = [0, *starts, len(text)]
    documents: list[YamlDocument] = []
    pieces: list[_Piece] = []
    for start, end in itertools.pairwise(bounds):
        if end <= start:
            continue
        piece = text[start:end]
        lookahead = end < len(text)
        with _pieces_lock:
            cached = _PIECES.get((piece, lookahead))
        if cached is None:
            checkpoint()  # a cancelled request or superseded analysis stops here
            cached = _parse_piece(piece, lookahead=lookahead)
            if cached is None:
                return None
        if cached.base != start or cached.first_index != len(documents):
            cached = _moved(cached, start, len(documents))
        _remember((piece, lookahead), cached, _PIECES_CHARS + len(text))
        documents.extend(cached.documents)
        pieces.append(cached)
    return documents, pieces


def _token_spans(pieces: list[_Piece]) -> tuple[list[tuple[int, int, bool]], list[tuple[int, int]]]:
    """The pieces' scalar and tokenised spans at their places (only template detection needs them:
    shifting them at every edit cost as much as the rest of a moved piece)."""
    scalar_spans: list[tuple[int, int, bool]] = []
    tokenised: list[tuple[int, int]] = []
    for piece in pieces:
        d = piece.base
        scalar_spans.extend((a + d, b + d, q) for a, b, q in piece.scalar_spans)
        tokenised.extend((a + d, b + d) for a, b in piece.tokenised)
    return scalar_spans, tokenised


def clear_cache() -> None:
    """Forget every cached piece (benchmarks measure cold parses with it)."""
    global _pieces_chars
    with _pieces_lock:
        _PIECES.clear()
        _pieces_chars = 0


def _remember(key: tuple[str, bool], piece: _Piece, bound: int) -> None:
    global _pieces_chars
    with _pieces_lock:
        if key in _PIECES:
            _PIECES.move_to_end(key)
        else:
            _pieces_chars += len(key[0])
        _PIECES[key] = piece
        while _pieces_chars > bound and len(_PIECES) > 1:
            (old, _lookahead), _ = _PIECES.popitem(last=False)
            _pieces_chars -= len(old)


def _parse_piece(piece: str, *, lookahead: bool) -> _Piece | None:
    text = piece + _LOOKAHEAD if lookahead else piece
    documents, scalar_spans, tokenised = _compose_all(text, text, LineIndex(text), True)
    n = len(piece)
    if lookahead and any(d.span.end > n for d in documents if d.span.start < n):
        # ruamel reads `--- |` then column-0 lines as the block scalar's content, across the
        # next `---`: this piece does not stand alone.
        return None
    kept = [d for d in documents if d.span.start < n or not lookahead]
    return _Piece(
        0,
        0,
        kept,
        [t for t in scalar_spans if t[0] < n],
        [(a, min(b, n)) for a, b in tokenised if a < n],
        "*" in piece and any(_has_alias(d.root) for d in kept),
    )


def _moved(piece: _Piece, base: int, first_index: int) -> _Piece:
    """A copy placed at another offset (`yaml.moved`: lazy unless aliases need one memo);
    never mutates (older snapshots still hold the nodes)."""
    d = base - piece.base
    docs = [
        YamlDocument(
            first_index + i,
            Span(doc.span.start + d, doc.span.end + d),
            moved_node(doc.root, d, aliased=piece.aliased) if doc.root is not None else None,
            [YamlProblem(p.kind, Span(p.span.start + d, p.span.end + d), p.message) for p in doc.problems],
        )
        for i, doc in enumerate(piece.documents)
    ]
    return _Piece(
        base,
        first_index,
        docs,
        piece.scalar_spans,
        piece.tokenised,
        piece.aliased,
    )


def _has_alias(node: Node | None) -> bool:
    """Whether an alias with a target is in the tree (an explicit stack: trees can be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, AliasNode):
            if n.target is not None:
                return True
        elif isinstance(n, MappingNode):
            for k, v in n.items:
                stack.append(k)
                stack.append(v)
        elif isinstance(n, SequenceNode):
            stack.extend(n.items)
    return False


def _parse(text: str, use_libyaml: bool, incremental: bool) -> YamlFile:
    lines = LineIndex(text)
    result = YamlFile(text=text, lines=lines, documents=[])
    nul = text.find("\0")
    if nul >= 0:
        result.problems.append(
            YamlProblem(
                ProblemKind.NOT_TEXT,
                Span(nul, nul + 1),
                f"not a text file: contains NUL characters (first at offset {nul})",
            )
        )
        return result

    # Characters YAML forbids: parse a copy where they are harmless, then fail their documents.
    bad = _forbidden(text)
    work = _NON_PRINTABLE.sub("\ufffd", text) if bad else text

    starts = _doc_starts(text) if incremental else []
    composed = _compose_segments(text, starts) if _segmentable(text, bad, use_libyaml, starts) else None
    if composed is not None:
        documents, pieces = composed
    else:
        documents, scalar_spans, tokenised = _compose_all(text, work, lines, use_libyaml)
        pieces = [_Piece(0, 0, documents, scalar_spans, tokenised, aliased=False)]

    for p in bad:
        problem = YamlProblem(
            ProblemKind.SYNTAX,
            Span(p, p + 1),
            f"YAML syntax error: unacceptable character #x{ord(text[p]):04x}: "
            "special characters are not allowed",
        )
        doc = _nearest_document(documents, p)
        if doc is None:
            if not result.problems:
                result.problems.append(problem)
        elif not doc.problems or doc.problems[0].span.start > p:
            doc.problems[:] = [problem]
            doc.root = None

    if "{{" in text:
        scalar_spans, tokenised = _token_spans(pieces)
        strings = sorted((s, t) for s, t, q in scalar_spans if q)
        scalars = sorted((s, t) for s, t, _ in scalar_spans)
        action, result.template_marker = find_template_action(text, strings, scalars, tokenised)
        if action is not None:
            result.problems.append(template_problem(lines, action))
            return result
        result.template_values = template_values(text, sorted(scalar_spans))
    result.documents = documents
    return result


def parse_yaml(text: str, *, use_libyaml: bool = True, incremental: bool = True) -> YamlFile:
    """Parse a YAML stream into the position-tracking model. Never raises.

    Syntax errors, forbidden characters and over-deep nesting become per-document
    `YamlProblem`s; a template or a text with NUL characters yields one file-level problem and
    no documents. `use_libyaml=False` forces the pure ruamel path and `incremental=False` one pass
    without the per-document cache (tests compare them).
    """
    try:
        return _parse(text, use_libyaml, incremental)
    except RecursionError:
        problem = YamlProblem(ProblemKind.TOO_LARGE, Span(0, 0), "YAML nesting too deep")
    except Exception as exc:  # a bug in a parser or here must not take the server down
        problem = YamlProblem(ProblemKind.SYNTAX, Span(0, 0), f"YAML could not be parsed: {exc!r}")
    return YamlFile(text=text, lines=LineIndex(text), documents=[], problems=[problem])
