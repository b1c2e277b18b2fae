"""Semantic tokens for CEL inside YAML scalars.

Tokens come from the CEL lexer (strings, numbers, operators, keywords) and are classified by
the typed AST (a field, a method, a macro, a comprehension variable). Positions are decoded
indices mapped back through the scalar's offset map, so quoting and escapes are honoured;
a token whose source crosses a line (folded scalars, escapes at line ends) is split into one
piece per line, because LSP tokens cannot span lines.
"""

from __future__ import annotations

from vap_lsp.cel import lexer as lx
from vap_lsp.cel.ast import Call, Ident, Select, StructExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.features.cel_context import policy_cels
from vap_lsp.features.results import TOKEN_TYPES, SemanticToken
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.text import LineIndex
from vap_lsp.yaml.model import ScalarNode

__all__ = ["TOKEN_TYPES", "SemanticToken", "semantic_tokens"]

_OPERATORS = frozenset(
    {
        lx.EQUALS,
        lx.NOT_EQUALS,
        lx.LESS,
        lx.LESS_EQUALS,
        lx.GREATER_EQUALS,
        lx.GREATER,
        lx.LOGICAL_AND,
        lx.LOGICAL_OR,
        lx.MINUS,
        lx.EXCLAM,
        lx.QUESTIONMARK,
        lx.COLON,
        lx.PLUS,
        lx.STAR,
        lx.SLASH,
        lx.PERCENT,
    }
)
_KEYWORDS = frozenset({lx.CEL_TRUE, lx.CEL_FALSE, lx.NUL, lx.IN})
_NUMBERS = frozenset({lx.NUM_FLOAT, lx.NUM_INT, lx.NUM_UINT})
_STRINGS = frozenset({lx.STRING, lx.BYTES})


def _identifier_types(result: CompileResult) -> dict[int, str]:
    """Start offset (in the expression text) of every name → its token type."""
    out: dict[int, str] = {}
    shift = result.offset
    parsed = result.parsed
    refs = result.checked.references if result.checked is not None else {}
    for call in parsed.macro_calls.values():
        if call.function_start >= 0:
            out[call.function_start + shift] = "macro"
    for node in parsed.walk():
        ref = refs.get(node.id)
        if isinstance(node, Ident):
            if node.end > node.start:
                kind = ref.kind if ref is not None else ""
                out.setdefault(
                    node.start + shift,
                    {"local": "parameter", "type": "type", "namespace": "namespace"}.get(kind, "variable"),
                )
        elif isinstance(node, Select):
            kind = ref.kind if ref is not None else ""
            if isinstance(node.operand, Ident) and node.operand.name == "variables":
                kind = "variable"
            out[node.field_start + shift] = {"variable": "variable", "namespace": "namespace"}.get(
                kind, "property"
            )
        elif isinstance(node, Call) and node.function_start >= 0:
            out.setdefault(node.function_start + shift, "method" if node.target is not None else "function")
        elif isinstance(node, StructExpr):
            out[node.type_name_start + shift] = "type"
            for f in node.fields:
                out[f.name_start + shift] = "property"
    for call in parsed.macro_calls.values():
        for arg in call.args:
            if isinstance(arg, Ident):
                out[arg.start + shift] = "parameter"
    # Namespaced calls (`sets.contains`): the namespace parts were marked; the name is a function.
    for node in parsed.walk():
        if isinstance(node, Call) and node.target is not None and node.function_start >= 0:
            ref = refs.get(node.target.id)
            if ref is not None and ref.kind == "namespace":
                out[node.function_start + shift] = "function"
    return out


def _pieces(node: ScalarNode, start: int, end: int, lines: LineIndex) -> list[tuple[int, int]]:
    """File spans of decoded [start, end), one per source line, skipping line breaks."""
    offsets = node.offsets
    if not offsets:
        return []
    last = len(offsets) - 1
    out: list[tuple[int, int]] = []
    run_start = -1
    run_end = -1
    run_line = -1
    text = lines.text
    for i in range(start, min(end, last)):
        src = offsets[i]
        if src >= len(text) or text[src] in "\r\n":
            if run_start >= 0:
                out.append((run_start, run_end))
                run_start = -1
            continue
        nxt = offsets[i + 1]
        width = nxt - src if src < nxt and lines.line_of(nxt - 1) == lines.line_of(src) else 1
        line = lines.line_of(src)
        if run_start >= 0 and line == run_line and src >= run_end:
            run_end = src + width
        else:
            if run_start >= 0:
                out.append((run_start, run_end))
            run_start, run_end, run_line = src, src + width, line
    if run_start >= 0:
        out.append((run_start, run_end))
    return out


def semantic_tokens(snapshot: DocumentSnapshot) -> list[SemanticToken]:
    """Every CEL token of every policy expression in the document, in file order."""
    tokens: list[SemanticToken] = []
    lines = snapshot.lines
    for pc in policy_cels(snapshot):
        for site in pc.sites:
            result = pc.compile(site)
            names = _identifier_types(result)
            lexed, _ = lx.tokenize(site.text)
            for tok in lexed:
                kind = tok.kind
                if kind == lx.EOF:
                    break
                if kind in (lx.IDENTIFIER, lx.ESC_IDENTIFIER):
                    typ = names.get(tok.start, "variable")
                elif kind in _KEYWORDS:
                    typ = "keyword"
                elif kind in _STRINGS:
                    typ = "string"
                elif kind in _NUMBERS:
                    typ = "number"
                elif kind in _OPERATORS:
                    typ = "operator"
                else:
                    continue
                for s, e in _pieces(site.node, tok.start, tok.end, lines):
                    tokens.append(SemanticToken(s, e, typ))
    tokens.sort(key=lambda tk: tk.start)
    return tokens
