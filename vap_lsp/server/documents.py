"""The open documents: pygls' workspace and text document with LSP's rules, not Python's.

pygls 2.1.1 applies incremental edits to `str.splitlines`, which also breaks lines at U+2028,
U+2029, U+0085, VT, FF and U+001C–U+001E: after such a character every edit lands on the wrong
line. LSP knows three line breaks (`\\n`, `\\r\\n`, `\\r`) and clamps a position past a line's
end to that end (LSP 3.17, Position). `VapTextDocument` applies edits through
`vap_lsp.text.LineIndex`, which does exactly that (the analysis counts lines the same way).

`VapWorkspace.get_text_document` never reads the disk (pygls reads any path a request names,
a FIFO or /dev/zero included): a document the client has not opened raises `DocumentNotOpen`,
and the worker dispatch answers such a request with null (`server.worker`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from vap_lsp.server.convert import encoding_name, to_span
from vap_lsp.text import LineIndex


class DocumentNotOpen(LookupError):
    """A request named a document the client has not opened (or closed meanwhile)."""


class VapTextDocument(TextDocument):
    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        source = self.source
        lines = LineIndex(source)
        encoding = encoding_name(self.position_codec.encoding)
        span = to_span(lines, change.range, encoding)
        start, end = min(span.start, span.end), max(span.start, span.end)
        self._source = source[:start] + change.text + source[end:]

    @property
    def lines(self) -> Sequence[str]:
        """The lines with their breaks, split where LSP splits them."""
        text = self.source
        index = LineIndex(text)
        starts = [index.line_start(i) for i in range(index.line_count)] + [len(text)]
        return tuple(text[a:b] for a, b in itertools.pairwise(starts) if b > a)


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

    def get_text_document(self, doc_uri: str) -> TextDocument:
        document = self._text_documents.get(unquote(doc_uri))
        if document is None:
            raise DocumentNotOpen(doc_uri)
        return document

    def is_open(self, doc_uri: str) -> bool:
        return unquote(doc_uri) in self._text_documents
