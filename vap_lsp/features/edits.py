"""Minimal text edits, computed from spans, that stay correct inside every YAML scalar style.

Quick fixes and rename never re-dump the YAML: they change exactly the characters that
must change, so comments and formatting survive. Text inserted into a scalar is encoded for
its style (escapes in double quotes, doubled quotes in single quotes); when a plain scalar
would change meaning (`: `, ` #`, a leading indicator), the scalar is rewritten double-quoted.
"""

from __future__ import annotations

from dataclasses import dataclass

from vap_lsp.golang.strings import trim_space_offset
from vap_lsp.text import Span
from vap_lsp.yaml.model import ScalarNode, ScalarStyle


@dataclass(frozen=True)
class TextEditResult:
    span: Span
    new_text: str


def apply_edits(text: str, edits: list[TextEditResult]) -> str:
    """The text after non-overlapping edits (applied back to front, as LSP clients do)."""
    out = text
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True):
        out = out[: edit.span.start] + edit.new_text + out[edit.span.end :]
    return out


def double_quoted(value: str) -> str:
    out = []
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def single_quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


_PLAIN_START = set("-?:,[]{}#&*!|>'\"%@`")


def plain_safe(value: str) -> bool:
    """Whether `value` reads back as the same string when written as a plain scalar."""
    if not value or value != value.strip() or value[0] in _PLAIN_START:
        return False
    if any(c in value for c in "\n\r\t,[]{}") or ": " in value or " #" in value or value.endswith(":"):
        return False
    from vap_lsp.yaml.resolve import resolve_scalar

    probe = ScalarNode(Span(0, len(value)), value=value)
    return bool(resolve_scalar(probe) == value)


def encode_fragment(style: ScalarStyle, text: str) -> str | None:
    """`text` as it must be written inside a scalar of `style`; None when it cannot be."""
    if "\n" in text or "\r" in text:
        return double_quoted(text)[1:-1] if style is ScalarStyle.DOUBLE else None
    if style is ScalarStyle.DOUBLE:
        return double_quoted(text)[1:-1]
    if style is ScalarStyle.SINGLE:
        return text.replace("'", "''")
    return text


def content_bounds(node: ScalarNode) -> tuple[int, int]:
    """Decoded [start, end) of the value without surrounding whitespace (Go's TrimSpace)."""
    trimmed, start = trim_space_offset(node.value)
    return start, start + len(trimmed)


def insert_at(node: ScalarNode, index: int, text: str) -> TextEditResult | None:
    """Insert decoded `text` before decoded character `index`; None if the style forbids it."""
    fragment = encode_fragment(node.style, text)
    if fragment is None:
        return None
    offset = node.source_offset(index)
    return TextEditResult(Span(offset, offset), fragment)


def rewrite_value(node: ScalarNode, new_value: str) -> TextEditResult:
    """Replace the whole scalar with `new_value` in the same style when it can hold it."""
    if node.style is ScalarStyle.PLAIN and plain_safe(new_value):
        return TextEditResult(node.span, new_value)
    if node.style is ScalarStyle.SINGLE and "\n" not in new_value:
        return TextEditResult(node.span, single_quoted(new_value))
    if node.style in (ScalarStyle.LITERAL, ScalarStyle.FOLDED) and "\n" not in new_value.rstrip("\n"):
        start, end = node.source_offset(0), node.source_offset(len(node.value.rstrip("\n")))
        return TextEditResult(Span(start, end), new_value.rstrip("\n"))
    return TextEditResult(node.span, double_quoted(new_value))


def edits_in_scalar(node: ScalarNode, inserts: list[tuple[int, str]]) -> list[TextEditResult]:
    """Several insertions at decoded indices, as minimal edits when the style allows.

    A plain scalar whose new value would not read back the same, or a style that cannot hold
    the inserted text, is rewritten as a whole (double-quoted if needed).
    """
    new_value = node.value
    for index, text in sorted(inserts, key=lambda x: x[0], reverse=True):
        new_value = new_value[:index] + text + new_value[index:]
    if node.style is ScalarStyle.PLAIN and not plain_safe(new_value):
        return [rewrite_value(node, new_value)]
    edits: list[TextEditResult] = []
    for index, text in inserts:
        edit = insert_at(node, index, text)
        if edit is None:
            return [rewrite_value(node, new_value)]
        edits.append(edit)
    return edits
