"""CEL tokenizer reproducing cel-go's ANTLR lexer (CEL.g4), including its errors.

Token kinds use the ANTLR token numbers so that "expecting {...}" sets print in
the same order as cel-go.  On a character sequence that starts no token the
ANTLR lexer reports ``token recognition error at: '<text>'`` where the text runs
from the token start up to and including the first offending character, and
then resumes *after* that character; if a shorter prefix was a complete token
(e.g. ``r`` before an unterminated ``r'...``) that token is emitted instead.
"""

from __future__ import annotations

__all__ = ["EOF", "LexError", "Token", "display_token_kind", "tokenize"]

EOF = -1
EQUALS = 1
NOT_EQUALS = 2
IN = 3
LESS = 4
LESS_EQUALS = 5
GREATER_EQUALS = 6
GREATER = 7
LOGICAL_AND = 8
LOGICAL_OR = 9
LBRACKET = 10
RBRACKET = 11
LBRACE = 12
RBRACE = 13
LPAREN = 14
RPAREN = 15
DOT = 16
COMMA = 17
MINUS = 18
EXCLAM = 19
QUESTIONMARK = 20
COLON = 21
PLUS = 22
STAR = 23
SLASH = 24
PERCENT = 25
CEL_TRUE = 26
CEL_FALSE = 27
NUL = 28
NUM_FLOAT = 31
NUM_INT = 32
NUM_UINT = 33
STRING = 34
BYTES = 35
IDENTIFIER = 36
ESC_IDENTIFIER = 37

_LITERAL_NAMES = {
    EQUALS: "'=='",
    NOT_EQUALS: "'!='",
    IN: "'in'",
    LESS: "'<'",
    LESS_EQUALS: "'<='",
    GREATER_EQUALS: "'>='",
    GREATER: "'>'",
    LOGICAL_AND: "'&&'",
    LOGICAL_OR: "'||'",
    LBRACKET: "'['",
    RBRACKET: "']'",
    LBRACE: "'{'",
    RBRACE: "'}'",
    LPAREN: "'('",
    RPAREN: "')'",
    DOT: "'.'",
    COMMA: "','",
    MINUS: "'-'",
    EXCLAM: "'!'",
    QUESTIONMARK: "'?'",
    COLON: "':'",
    PLUS: "'+'",
    STAR: "'*'",
    SLASH: "'/'",
    PERCENT: "'%'",
    CEL_TRUE: "'true'",
    CEL_FALSE: "'false'",
    NUL: "'null'",
    NUM_FLOAT: "NUM_FLOAT",
    NUM_INT: "NUM_INT",
    NUM_UINT: "NUM_UINT",
    STRING: "STRING",
    BYTES: "BYTES",
    IDENTIFIER: "IDENTIFIER",
    ESC_IDENTIFIER: "ESC_IDENTIFIER",
    EOF: "<EOF>",
}


def display_token_kind(kind: int) -> str:
    """Name of a token kind as ANTLR prints it in an expected-token set."""
    return _LITERAL_NAMES[kind]


class Token:
    __slots__ = ("end", "kind", "start", "text")

    def __init__(self, kind: int, start: int, end: int, text: str) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.text = text

    def __repr__(self) -> str:
        return f"Token({display_token_kind(self.kind)}, {self.start}, {self.end}, {self.text!r})"


class LexError:
    __slots__ = ("start", "text")

    def __init__(self, start: int, text: str) -> None:
        self.start = start
        self.text = text


_SINGLE = {
    "[": LBRACKET,
    "]": RBRACKET,
    "{": LBRACE,
    "}": RBRACE,
    "(": LPAREN,
    ")": RPAREN,
    ",": COMMA,
    "-": MINUS,
    "?": QUESTIONMARK,
    ":": COLON,
    "+": PLUS,
    "*": STAR,
    "%": PERCENT,
}
_KEYWORDS = {"in": IN, "true": CEL_TRUE, "false": CEL_FALSE, "null": NUL}
_WS = frozenset(" \t\r\n\f")
_DIGITS = frozenset("0123456789")
_HEX = frozenset("0123456789abcdefABCDEF")
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_PART = _IDENT_START | _DIGITS
_ESC_IDENT_PART = _IDENT_PART | frozenset(".-/ ")
_SIMPLE_ESCAPES = frozenset("abfnrtv\"'\\?`")
_OCT = frozenset("01234567")


def _scan_escape(src: str, i: int, n: int) -> int:
    """Validate the escape starting at the backslash ``src[i]``.

    Returns the index after it, or ``-(k + 1)`` where ``k`` is the offending index.
    """
    j = i + 1
    if j >= n:
        return -(n + 1)
    c = src[j]
    if c in _SIMPLE_ESCAPES:
        return j + 1
    if c in "xX":
        count = 2
    elif c == "u":
        count = 4
    elif c == "U":
        count = 8
    elif c in "0123":
        for k in (j + 1, j + 2):
            if k >= n or src[k] not in _OCT:
                return -(min(k, n) + 1)
        return j + 3
    else:
        return -(j + 1)
    for k in range(j + 1, j + 1 + count):
        if k >= n or src[k] not in _HEX:
            return -(min(k, n) + 1)
    return j + 1 + count


def _scan_string(src: str, q: int, n: int, raw: bool) -> tuple[int, int]:
    """Scan a quoted literal whose opening quote is at ``q``.

    Returns ``(end, fail)``: ``end`` > 0 on success, otherwise ``fail`` is the
    index of the offending character (``n`` for end of input).
    """
    quote = src[q]
    if src.startswith(quote * 3, q):
        i = q + 3
        close = quote * 3
        while i < n:
            if src.startswith(close, i):
                return i + 3, -1
            if src[i] == "\\" and not raw:
                nxt = _scan_escape(src, i, n)
                if nxt < 0:
                    return -1, -nxt - 1
                i = nxt
            else:
                i += 1
        return -1, n
    i = q + 1
    while i < n:
        c = src[i]
        if c == quote:
            return i + 1, -1
        if c in "\r\n":
            return -1, i
        if c == "\\" and not raw:
            nxt = _scan_escape(src, i, n)
            if nxt < 0:
                return -1, -nxt - 1
            i = nxt
        else:
            i += 1
    return -1, n


def tokenize(src: str) -> tuple[list[Token], list[LexError]]:
    """Split ``src`` into tokens (ending with an EOF token) and lexer errors."""
    toks: list[Token] = []
    errs: list[LexError] = []
    n = len(src)
    i = 0
    append = toks.append
    while i < n:
        c = src[i]
        if c in _WS:
            i += 1
            continue
        start = i
        if c in _IDENT_START:
            j = i + 1
            while j < n and src[j] in _IDENT_PART:
                j += 1
            word = src[i:j]
            # String / bytes prefixes: r, R, b, B, br, bR, Br, BR followed by a quote.
            if j < n and src[j] in "'\"" and len(word) <= 2:
                lw = word.lower()
                if lw in ("r", "b", "br"):
                    end, fail = _scan_string(src, j, n, raw="r" in lw)
                    if end > 0:
                        kind = BYTES if lw[0] == "b" else STRING
                        append(Token(kind, start, end, src[start:end]))
                        i = end
                        continue
                    # Fall back to the longest complete token: the identifier itself
                    # (an empty '' / "" after the prefix would be longer, if present).
                    if src.startswith(src[j] * 2, j):
                        kind = BYTES if lw[0] == "b" else STRING
                        append(Token(kind, start, j + 2, src[start : j + 2]))
                        i = j + 2
                        continue
            append(Token(_KEYWORDS.get(word, IDENTIFIER), start, j, word))
            i = j
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and src[i + 1] in _DIGITS):
            i = _scan_number(src, i, n, toks)
            continue
        if c in "'\"":
            end, fail = _scan_string(src, i, n, raw=False)
            if end > 0:
                append(Token(STRING, start, end, src[start:end]))
                i = end
                continue
            if src.startswith(c * 2, i):  # '' is a complete (empty) string
                append(Token(STRING, start, i + 2, src[start : i + 2]))
                i += 2
                continue
            errs.append(LexError(start, src[start : fail + 1]))
            i = fail + 1
            continue
        single = _SINGLE.get(c)
        if single is not None:
            append(Token(single, i, i + 1, c))
            i += 1
            continue
        nxt = src[i + 1] if i + 1 < n else ""
        if c == "/":
            if nxt == "/":
                j = src.find("\n", i)
                i = n if j < 0 else j
                continue
            append(Token(SLASH, i, i + 1, c))
            i += 1
            continue
        if c == ".":
            append(Token(DOT, i, i + 1, c))
            i += 1
            continue
        if c in "<>!":
            if nxt == "=":
                two = {"<": LESS_EQUALS, ">": GREATER_EQUALS, "!": NOT_EQUALS}[c]
                append(Token(two, i, i + 2, c + "="))
                i += 2
            else:
                append(Token({"<": LESS, ">": GREATER, "!": EXCLAM}[c], i, i + 1, c))
                i += 1
            continue
        if c in "=&|":
            if nxt == c:
                append(Token({"=": EQUALS, "&": LOGICAL_AND, "|": LOGICAL_OR}[c], i, i + 2, c + c))
                i += 2
            else:
                # ANTLR consumed the offending second character as part of the error.
                errs.append(LexError(start, src[i : i + 2]))
                i = min(i + 2, n)
            continue
        if c == "`":
            j = i + 1
            while j < n and src[j] in _ESC_IDENT_PART:
                j += 1
            if j < n and src[j] == "`" and j > i + 1:
                append(Token(ESC_IDENTIFIER, start, j + 1, src[start : j + 1]))
                i = j + 1
            else:
                errs.append(LexError(start, src[start : j + 1]))
                i = min(j + 1, n)
            continue
        errs.append(LexError(start, c))
        i += 1
    toks.append(Token(EOF, n, n, "<EOF>"))
    return toks, errs


def _scan_number(src: str, i: int, n: int, toks: list[Token]) -> int:
    """NUM_INT / NUM_UINT / NUM_FLOAT with ANTLR's longest-match behaviour."""
    start = i
    if src.startswith("0x", i) and i + 2 < n and src[i + 2] in _HEX:
        j = i + 2
        while j < n and src[j] in _HEX:
            j += 1
        if j < n and src[j] in "uU":
            toks.append(Token(NUM_UINT, start, j + 1, src[start : j + 1]))
            return j + 1
        toks.append(Token(NUM_INT, start, j, src[start:j]))
        return j
    j = i
    while j < n and src[j] in _DIGITS:
        j += 1
    is_float = False
    if j < n and src[j] == "." and j + 1 < n and src[j + 1] in _DIGITS:
        j += 1
        while j < n and src[j] in _DIGITS:
            j += 1
        is_float = True
    if j < n and src[j] in "eE":
        k = j + 1
        if k < n and src[k] in "+-":
            k += 1
        if k < n and src[k] in _DIGITS:
            while k < n and src[k] in _DIGITS:
                k += 1
            j = k
            is_float = True
    if is_float:
        toks.append(Token(NUM_FLOAT, start, j, src[start:j]))
        return j
    if j < n and src[j] in "uU":
        toks.append(Token(NUM_UINT, start, j + 1, src[start : j + 1]))
        return j + 1
    toks.append(Token(NUM_INT, start, j, src[start:j]))
    return j
