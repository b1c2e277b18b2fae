"""Recognise input we must not analyse as YAML: non-text bytes and Helm/Go templates.

Both get exactly one file-level problem instead of a cascade of misleading YAML or policy
errors: a binary file is not a broken policy, and a Helm chart is only a policy after
`helm template` has rendered it.
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Sequence

from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import ProblemKind, YamlProblem

__all__ = ["decode_bytes", "find_template_action", "lossy_text", "template_marker_note", "template_problem"]

# Longest BOM first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)


def _not_text(message: str, offset: int = 0) -> YamlProblem:
    return YamlProblem(ProblemKind.NOT_TEXT, Span(offset, offset), "not a text file: " + message)


def _encoding(data: bytes) -> tuple[str, str, int]:
    """(codec, label, BOM length) of a YAML stream: UTF-8 unless a byte order mark says otherwise."""
    for bom, enc, lab in _BOMS:
        if data.startswith(bom):
            return enc, lab, len(bom)
    return "utf-8", "UTF-8", 0


def lossy_text(data: bytes) -> str:
    """The text of `data` with undecodable bytes replaced: where a NOT_TEXT problem's offset sits
    (its line and column), for bytes `decode_bytes` refused."""
    encoding, _, skip = _encoding(data)
    return data[skip:].decode(encoding, errors="replace")


def decode_bytes(data: bytes) -> tuple[str | None, YamlProblem | None]:
    """Bytes of a file -> (text, None), or (None, NOT_TEXT problem naming the bad byte).

    YAML streams are UTF-8, or UTF-16/32 when they start with a byte order mark; the BOM is
    stripped so offsets count from the first real character. NUL bytes are never valid YAML and
    are the usual sign of a binary file. The problem's span is the character offset of the bad
    byte in `lossy_text(data)`, so a Latin-1 file is reported at the line and column of its first
    non-UTF-8 byte.
    """
    encoding, label, skip = _encoding(data)
    body = data[skip:]
    if encoding == "utf-8":
        nul = body.find(b"\0")
        if nul >= 0:
            chars = len(body[:nul].decode("utf-8", errors="replace"))
            return None, _not_text(f"contains NUL bytes (first at byte {skip + nul})", chars)
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        chars = len(body[: exc.start].decode(encoding, errors="replace"))
        bad = " ".join(f"0x{b:02x}" for b in body[exc.start : exc.end])
        return None, YamlProblem(
            ProblemKind.NOT_TEXT,
            Span(chars, chars + 1),
            f"not {label}: invalid byte {bad} (at byte {skip + exc.start}); YAML files are UTF-8, "
            "or UTF-16/32 with a byte order mark",
        )
    nul = text.find("\0")
    if nul >= 0:
        byte = skip + len(text[:nul].encode(encoding))
        return None, _not_text(f"contains NUL bytes (first at byte {byte})", nul)
    return text, None


# ---------------------------------------------------------------------------------------------
# Templates

_ACTION = re.compile(r"\{\{")
_ACTION_END = "}}"


def _line_start(text: str, p: int) -> int:
    return max(text.rfind("\n", 0, p), text.rfind("\r", 0, p)) + 1


def _covered(spans: Sequence[tuple[int, int]], starts: Sequence[int], p: int) -> bool:
    """Is p inside one of the sorted, non-overlapping spans?"""
    i = bisect.bisect_right(starts, p) - 1
    return i >= 0 and spans[i][0] <= p < spans[i][1]


def _in_comment_heuristic(text: str, p: int) -> bool:
    """Is p after a `#` comment start on its line? Tracks quotes on that line only.

    Used where the YAML did not parse, so token boundaries are unknown.
    """
    i = _line_start(text, p)
    quote = ""
    while i < p:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and (i == 0 or text[i - 1] in " \t:[{,-" or i == _line_start(text, i)):
            quote = ch
        elif ch == "#" and (i == _line_start(text, i) or text[i - 1] in " \t"):
            return True
        i += 1
    return False


def _in_quotes_heuristic(text: str, p: int) -> bool:
    """Is p inside a quoted string that opens and closes on its line (unparsed input)?"""
    i = _line_start(text, p)
    quote = ""
    while i < p:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and (i == 0 or text[i - 1] in " \t:[{,-" or i == _line_start(text, i)):
            quote = ch
        i += 1
    if not quote:
        return False
    j = p
    n = len(text)
    while j < n and text[j] not in "\r\n":
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return True
        j += 1
    return False


_BLOCK_HEADER = re.compile(r"[|>][-+0-9]*[ \t]*(#.*)?$")


def _indent(text: str, line_start: int) -> int:
    i = line_start
    while i < len(text) and text[i] == " ":
        i += 1
    return i - line_start


def _in_block_scalar_heuristic(text: str, p: int, max_lines: int = 2000) -> bool:
    """Is p (unparsed input) in the body of a `|`/`>` block scalar, judged by indentation?"""
    ls = _line_start(text, p)
    ind = _indent(text, ls)
    if ls + ind < p and text[ls + ind : p].strip():
        return False  # the action is not the first thing on its line: not a body line of interest
    for _ in range(max_lines):
        if ls == 0:
            return False
        prev_end = ls - 1
        if text[prev_end] == "\n" and prev_end > 0 and text[prev_end - 1] == "\r":
            prev_end -= 1
        ls = _line_start(text, prev_end)
        line = text[ls:prev_end]
        if not line.strip():
            continue
        if _indent(text, ls) >= ind:
            continue
        return _BLOCK_HEADER.search(line.rstrip()) is not None
    return False


def _covered_any(regions: Sequence[tuple[int, int]], p: int) -> bool:
    return any(s <= p < e for s, e in regions)


def find_template_action(
    text: str,
    string_spans: Sequence[tuple[int, int]],
    scalar_spans: Sequence[tuple[int, int]],
    tokenised: Sequence[tuple[int, int]],
) -> tuple[Span | None, Span | None]:
    """(template, marker): where `{{ ... }}` makes this file a Go/Helm template, else where one
    remains in a file that is YAML all the same.

    `string_spans` are the sorted source spans of the quoted and block scalars the scanner
    produced, `scalar_spans` those of all scalars including plain ones, `tokenised` the regions
    of the text the scanner got through (everything, when the file parsed).

    A file is a template only where template syntax is YAML structure or breaks the YAML: an
    action outside every scalar (`{{ .x }}` scans as two flow mappings, which no Kubernetes
    client decodes), or one where the scanner did not get (after a syntax error; there quotes,
    comments and block scalars are judged line by line). The span is that action, the construct
    that broke the file, never one inside a string. An action inside a plain scalar
    (`name: app-{{.Name}}`, as rendered bundles ship) leaves valid YAML: the file is checked,
    and `marker` is the first such action, for a note. Actions inside quoted or block scalars (a
    CEL message) and in comments are not templating at all.

    Deliberate choice: a file whose only actions sit inside strings is not called a template
    even when it fails to parse, so a policy with a `"{{ }}"` message that is being edited shows
    its real syntax error.
    """
    if "{{" not in text:
        return None, None
    s_starts = [s for s, _ in string_spans]
    a_starts = [s for s, _ in scalar_spans]
    marker: Span | None = None  # the first action in a plain scalar
    for m in _ACTION.finditer(text):
        p = m.start()
        close = text.find(_ACTION_END, p + 2)
        if close < 0:
            break
        span = Span(p, close + 2)
        if _covered_any(tokenised, p):
            if _covered(string_spans, s_starts, p):
                continue
            if _covered(scalar_spans, a_starts, p):
                marker = marker or span
                continue
            if _hash_comment_before(text, p, scalar_spans, a_starts):
                continue
            return span, None
        if _in_comment_heuristic(text, p):
            continue
        if _in_quotes_heuristic(text, p) or _in_block_scalar_heuristic(text, p):
            continue
        return span, None
    return None, marker


def template_values(
    text: str, scalar_spans: Sequence[tuple[int, int, bool]]
) -> tuple[tuple[Span, bool], ...]:
    """The scalars (span, quoted or block) holding a complete `{{ ... }}` action: values a
    template renders, unknown until then."""
    out: list[tuple[Span, bool]] = []
    for start, end, quoted in scalar_spans:
        p = text.find("{{", start, end)
        if p >= 0 and text.find(_ACTION_END, p + 2, end) >= 0:
            out.append((Span(start, end), quoted))
    return tuple(out)


def _hash_comment_before(
    text: str, p: int, scalar_spans: Sequence[tuple[int, int]], a_starts: Sequence[int]
) -> bool:
    """In tokenised text: is there a comment-starting `#` (outside every scalar) before p?"""
    i = _line_start(text, p)
    while True:
        q = text.find("#", i, p)
        if q < 0:
            return False
        if (q == _line_start(text, q) or text[q - 1] in " \t") and not _covered(scalar_spans, a_starts, q):
            return True
        i = q + 1


def render_command(chart: str | None) -> str:
    """How to check a chart's templates: render them, then check what comes out."""
    return f"helm template {chart or 'CHART'} | vap-lsp check -"


def template_problem(lines: LineIndex, span: Span, chart: str | None = None) -> YamlProblem:
    """The single TEMPLATE problem for a file whose first action is at `span`."""
    line = lines.line_of(span.start) + 1
    return YamlProblem(
        ProblemKind.TEMPLATE,
        span,
        f"file is a Helm/Go template ({{{{ ... }}}} at line {line}); render it first to check it: "
        f"{render_command(chart)}",
    )


def template_marker_note(lines: LineIndex, span: Span, chart: str | None = None) -> str:
    """The note for a file that is YAML although `{{ ... }}` remains in values: what a value
    holding one renders to is unknown, so nothing is said of those values."""
    line = lines.line_of(span.start) + 1
    where = f"a template of the chart {chart}" if chart is not None else "valid YAML"
    return (
        f"{{{{ ... }}}} in values (first at line {line}): the file is {where} and is checked, but a value "
        f"holding an action is unknown until rendered and nothing is said of it; to check those "
        f"too, render first: {render_command(chart)}"
    )
