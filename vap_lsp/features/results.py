"""Plain results shared by the language services (hover, completion) and their LSP adapters.

Both the CEL and the YAML services return these, so one LSP handler can dispatch to either
without knowing which produced the answer. Spans are code-point offsets like everywhere else;
only the server converts them to LSP positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from vap_lsp.text import Span

CompletionKind = Literal[
    "variable",
    "field",
    "function",
    "method",
    "keyword",
    "value",
    "snippet",
    "property",
    "module",
    "enum",
]


@dataclass(frozen=True)
class HoverResult:
    """Markdown to show for the text in `span`."""

    span: Span
    markdown: str


@dataclass(frozen=True)
class CompletionEntry:
    """One completion candidate.

    `insert_text` replaces `replace_span` (already escaped for the scalar style it lands in);
    without a span the client inserts at the cursor. `insert_is_snippet` marks `$1`/`${1:x}`
    placeholders in `insert_text`.
    """

    label: str
    kind: CompletionKind
    detail: str | None = None
    documentation: str | None = None
    insert_text: str | None = None
    insert_is_snippet: bool = False
    replace_span: Span | None = None
    sort_text: str | None = None
    filter_text: str | None = None


@dataclass(frozen=True)
class CompletionResult:
    items: list[CompletionEntry] = field(default_factory=list)
    is_incomplete: bool = False


TOKEN_TYPES: tuple[str, ...] = (
    "variable",
    "parameter",
    "property",
    "method",
    "function",
    "macro",
    "string",
    "number",
    "operator",
    "keyword",
    "type",
    "namespace",
)
"""The semantic-token legend, in LSP's standard token type names; a token's type is an index into
it. Here, not in `semantic_tokens`, so the server can announce it without importing the service."""


@dataclass(frozen=True, slots=True)
class SemanticToken:
    """One token piece on one line: [start, end) code-point offsets into the file."""

    start: int
    end: int
    type: str
