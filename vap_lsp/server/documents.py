"""The open documents: pygls' workspace and text document with LSP's rules, not Python's.

pygls 2.1.1 applies incremental edits to `str.splitlines`, which also breaks lines at U+2028,
U+2029, U+0085, VT, FF and U+001C–U+001E: after such a character every edit lands on the wrong
line. LSP knows three line breaks (`\\n`, `\\r\\n`, `\\r`) and clamps a position past a line's
end to that end (LSP 3.17, Position). `VapTextDocument` applies edits through
`vap_lsp.text.LineIndex`, which does exactly that (the analysis counts lines the same way).

`VapWorkspace.get_text_document` never reads the disk (pygls reads any path a request names,
a FIFO or /dev/zero included): a document the client has not opened raises `DocumentNotOpen`,
and the worker dispatch answers such a request with null (`server.worker`). Documents are known
by the URI exactly as the client gave it (pygls decoded its %-escapes).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from vap_lsp.server.convert import encoding_name, to_span
from vap_lsp.text import LineIndex, Position


class DocumentNotOpen(LookupError):
    """A request named a document the client has not opened (or closed meanwhile)."""


class VapTextDocument(TextDocument):
    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        source = self.source
        start, end = _span(LineIndex(source), change.range, encoding_name(self.position_codec.encoding))
        self._source = source[:start] + change.text + source[end:]

    def apply_changes(self, changes: Sequence[lsp.TextDocumentContentChangeEvent]) -> None:
        """The changes of one didChange, in order. A run of changes each ending before the one
        before it starts (a replace-all, sent last to first) touches only text the earlier ones
        left alone: it is placed in the text as it was with one line index and applied in one
        pass; any other change is applied by itself (a line index of the whole text each)."""
        i = 0
        while i < len(changes):
            run = self._run_last_to_first(changes, i)
            if len(run) < 2:
                self.apply_change(changes[i])
                i += 1
                continue
            source = self.source
            pieces: list[str] = []
            kept = len(source)
            for (start, end), text in run:  # from the end of the text backwards
                pieces += (source[end:kept], text)
                kept = start
            pieces.append(source[:kept])
            self._source = "".join(reversed(pieces))
            i += len(run)

    def _run_last_to_first(
        self, changes: Sequence[lsp.TextDocumentContentChangeEvent], first: int
    ) -> list[tuple[tuple[int, int], str]]:
        """The spans (in the current text) and texts of the changes from `first` on, each ending
        before the previous one starts, at a position that exists as given (not clamped, not
        inside a surrogate pair: there the text before it decides, which an earlier change may
        have changed)."""
        run: list[tuple[tuple[int, int], str]] = []
        lines: LineIndex | None = None
        encoding = encoding_name(self.position_codec.encoding)
        for change in changes[first:]:
            if not isinstance(change, lsp.TextDocumentContentChangePartial):
                break
            lines = lines or LineIndex(self.source)
            span = _span(lines, change.range, encoding)
            if run:
                end = max(change.range.start, change.range.end, key=lambda p: (p.line, p.character))
                if span[1] > run[-1][0][0] or lines.position(span[1], encoding) != Position(
                    end.line, end.character
                ):
                    break
            run.append((span, change.text))
        return run

    @property
    def lines(self) -> Sequence[str]:
        """The lines with their breaks, split where LSP splits them."""
        text = self.source
        index = LineIndex(text)
        starts = [index.line_start(i) for i in range(index.line_count)] + [len(text)]
        return tuple(text[a:b] for a, b in itertools.pairwise(starts) if b > a)


def _span(lines: LineIndex, rng: lsp.Range, encoding: str) -> tuple[int, int]:
    """An edit's range as (start, end) offsets, in order (a client may send it reversed)."""
    span = to_span(lines, rng, encoding)
    return min(span.start, span.end), max(span.start, span.end)


class VapWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return VapTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )

    # Documents are known by the URI exactly as the client gave it (pygls decoded %-escapes in
    # its keys while the server looked them up, and published, by the client's URI).

    def put_text_document(self, text_document: lsp.TextDocumentItem, notebook_uri: str | None = None) -> None:
        self._text_documents[text_document.uri] = self._create_text_document(
            text_document.uri,
            source=text_document.text,
            version=text_document.version,
            language_id=text_document.language_id,
        )

    def remove_text_document(self, doc_uri: str) -> None:
        self._text_documents.pop(doc_uri, None)

    def update_text_document(
        self, text_doc: lsp.VersionedTextDocumentIdentifier, change: lsp.TextDocumentContentChangeEvent
    ) -> None:
        document = self.get_text_document(text_doc.uri)
        document.apply_change(change)
        document.version = text_doc.version

    def get_text_document(self, doc_uri: str) -> TextDocument:
        document = self._text_documents.get(doc_uri)
        if document is None:
            raise DocumentNotOpen(doc_uri)
        return document

    def is_open(self, doc_uri: str) -> bool:
        return doc_uri in self._text_documents
