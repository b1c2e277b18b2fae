"""Recursive-descent CEL parser that mirrors cel-go's ANTLR parser.

Why hand-written: the editor needs an AST with offsets on every node and a
parser that keeps going after errors (hover/completion on half-typed text),
while diagnostics must read like the API server's.  The function structure
follows CEL.g4 rule by rule so that cel-go's limits (per-rule recursion depth,
visitor depth), ANTLR's error-recovery choices (single-token deletion /
insertion, resynchronisation, error-recovery mode that suppresses cascades) and
the node id order can be reproduced.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable

from vap_lsp.apimachinery.names import CEL_RESERVED
from vap_lsp.cel import lexer as L
from vap_lsp.cel.ast import (
    Call,
    CelIssue,
    ErrorExpr,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapEntry,
    MapExpr,
    ParsedExpr,
    Select,
    StructExpr,
    StructField,
)
from vap_lsp.cel.macros import DEFAULT_MACROS, ExprFactory, MacroError, MacroTable, resolve_macros

__all__ = ["RESERVED_IDENTIFIERS", "parse"]

RESERVED_IDENTIFIERS = CEL_RESERVED - {"true", "false", "null", "in"}
"""cel-go's reserved words that cannot name an identifier (the literals and `in` are tokens)."""

EXPR_START = frozenset(
    {
        L.LBRACKET,
        L.LBRACE,
        L.LPAREN,
        L.DOT,
        L.MINUS,
        L.EXCLAM,
        L.CEL_TRUE,
        L.CEL_FALSE,
        L.NUL,
        L.NUM_FLOAT,
        L.NUM_INT,
        L.NUM_UINT,
        L.STRING,
        L.BYTES,
        L.IDENTIFIER,
    }
)
_REL_OPS = {
    L.LESS: "_<_",
    L.LESS_EQUALS: "_<=_",
    L.GREATER_EQUALS: "_>=_",
    L.GREATER: "_>_",
    L.EQUALS: "_==_",
    L.NOT_EQUALS: "_!=_",
    L.IN: "@in",
}
_CALC_OPS = {
    L.STAR: ("_*_", 2),
    L.SLASH: ("_/_", 2),
    L.PERCENT: ("_%_", 2),
    L.PLUS: ("_+_", 1),
    L.MINUS: ("_-_", 1),
}
_BINARY = frozenset(_REL_OPS) | frozenset(_CALC_OPS) | {L.LOGICAL_AND, L.LOGICAL_OR}
#: Tokens that may follow any complete expression (operators and member suffixes).
_AFTER_EXPR = _BINARY | {L.DOT, L.LBRACKET, L.QUESTIONMARK}
_FIELD_START = frozenset({L.QUESTIONMARK, L.IDENTIFIER, L.ESC_IDENTIFIER})

# ANTLR rule indices whose nesting depth cel-go's recursion listener limits.
_R_EXPR, _R_OR, _R_AND, _R_REL, _R_CALC, _R_UNARY, _R_MEMBER, _R_PRIMARY = range(8)


class _Abort(Exception):
    """Parsing stops (cel-go panics): recursion limit, too many recovery attempts."""


def _fmt_set(kinds: Iterable[int]) -> str:
    ks = sorted(set(kinds))
    names = [L.display_token_kind(k) for k in ks]
    return names[0] if len(names) == 1 else "{" + ", ".join(names) + "}"


_CLOSE_OR_EOF = frozenset({L.RBRACE, L.EOF})


def _quote(text: str) -> str:
    return "'" + text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + "'"


def _disp(tok: L.Token) -> str:
    return "'<EOF>'" if tok.kind == L.EOF else _quote(tok.text)


class _Parser:
    def __init__(
        self,
        src: str,
        macros: MacroTable,
        optional: bool,
        escape_idents: bool,
        max_depth: int,
    ) -> None:
        self.src = src
        self.toks, lex_errors = L.tokenize(src)
        self.pos = 0
        self.tok = self.toks[0]
        self.macros = macros
        self.optional = optional
        self.escape_idents = escape_idents
        self.max_depth = max_depth
        self.lex_errors = lex_errors
        self.syntax: list[CelIssue] = [
            CelIssue(
                f"Syntax error: token recognition error at: {_quote(e.text)}",
                e.start,
                e.start + max(1, len(e.text)),
            )
            for e in lex_errors
        ]
        self.semantic: list[CelIssue] = []
        self.error_mode = False
        self.recoveries = 0
        self.recovery_limit = 30
        self.next_id = 1
        self.positions: dict[int, int] = {}
        self.vd: dict[int, int] = {}
        self.depth = [0] * 8
        self.closers: list[frozenset[int]] = []
        self.macro_calls: dict[int, Call] = {}
        self.pending_expected: frozenset[int] | None = None
        self.last_error_pos = -1
        self.rule_aborted = False

    # -- token handling -------------------------------------------------------

    def la(self, k: int) -> L.Token:
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else self.toks[-1]

    def _advance(self) -> None:
        if self.tok.kind != L.EOF:
            self.pos += 1
            self.tok = self.toks[self.pos]

    def _match(self) -> L.Token:
        """Consume the current token as a successful match (ends error-recovery mode)."""
        t = self.tok
        self._advance()
        self.error_mode = False
        return t

    def _syntax_error(self, msg: str, tok: L.Token) -> None:
        self.recoveries += 1
        if self.recoveries > self.recovery_limit:
            self.syntax.append(
                CelIssue(
                    f"Syntax error: error recovery attempt limit exceeded: {self.recovery_limit}",
                    tok.start,
                    tok.end,
                )
            )
            raise _Abort
        if self.error_mode:
            return
        self.error_mode = True
        self.syntax.append(CelIssue("Syntax error: " + msg, tok.start, max(tok.end, tok.start)))

    def _error(self, msg: str, start: int, end: int) -> None:
        """cel-go visitor error (not subject to ANTLR's error-recovery suppression)."""
        self.semantic.append(CelIssue(msg, start, end))

    def _resync(self) -> None:
        """ANTLR ``consumeUntil(errorRecoverySet)``: skip tokens nothing on the stack can use."""
        if self.pos == self.last_error_pos:
            self._advance()  # ANTLR: a second failure at the same token consumes it
        self.last_error_pos = self.pos
        stop = set(_AFTER_EXPR)
        stop.add(L.EOF)
        for c in self.closers:
            stop |= c
        while self.tok.kind not in stop:
            self._advance()

    def _follow(self) -> frozenset[int]:
        """Tokens that may follow the construct being closed (for single-token insertion)."""
        if self.closers:
            return _AFTER_EXPR | self.closers[-1]
        return _AFTER_EXPR | {L.EOF}

    def _expect(self, kind: int, insert_follow: frozenset[int]) -> bool:
        """ANTLR ``match`` + ``recoverInline``: deletion, insertion, else mismatch.

        Returns False only on a mismatch, after which ANTLR abandons the rest of
        the current rule (callers skip what would have followed the token).
        """
        t = self.tok
        if t.kind == kind:
            self._match()
            return True
        name = L.display_token_kind(kind)
        if t.kind != L.EOF and self.la(1).kind == kind:
            self._syntax_error(f"extraneous input {_disp(t)} expecting {name}", t)
            self._advance()
            self._match()
            return True
        if t.kind in insert_follow:
            self._syntax_error(f"missing {name} at {_disp(t)}", t)
            return True
        self._syntax_error(f"mismatched input {_disp(t)} expecting {name}", t)
        self._resync()
        return False

    def _sync(self, expected: frozenset[int]) -> bool:
        """ANTLR ``sync`` before a sub-rule: True when the current token is acceptable.

        On an unexpected token either delete it (when the next one is expected) or
        report a mismatch and resynchronise.
        """
        t = self.tok
        if t.kind in expected:
            return True
        if t.kind != L.EOF and self.la(1).kind in expected:
            self._syntax_error(f"extraneous input {_disp(t)} expecting {_fmt_set(expected)}", t)
            self._advance()
            self.error_mode = False
            return True
        self._syntax_error(f"mismatched input {_disp(t)} expecting {_fmt_set(expected)}", t)
        self._resync()
        return False

    # -- node helpers --------------------------------------------------------

    def _id(self, pos: int) -> int:
        i = self.next_id
        self.next_id += 1
        self.positions[i] = pos
        return i

    def _raw_id(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def _v(self, e: Expr | None) -> int:
        return 0 if e is None else self.vd.get(e.id, 0)

    def _err_expr(self, start: int, end: int | None = None) -> ErrorExpr:
        return ErrorExpr(self._id(start), start, start if end is None else end)

    def _enter(self, rule: int) -> None:
        d = self.depth[rule] + 1
        self.depth[rule] = d
        if d > self.max_depth:
            raise _Abort("recursion")

    def _binary(self, op_id: int, fn: str, lhs: Expr, rhs: Expr, op_start: int, counted: bool) -> Call:
        c = Call(op_id, lhs.start, max(rhs.end, op_start + 1), fn, [lhs, rhs], None, op_start)
        self.vd[op_id] = int(counted) + max(self._v(lhs), self._v(rhs))
        return c

    # -- grammar ---------------------------------------------------------------

    def parse_start(self) -> Expr:
        e = self.parse_expr()
        t = self.tok
        if t.kind != L.EOF:
            if self.la(1).kind == L.EOF:
                self._syntax_error(f"extraneous input {_disp(t)} expecting <EOF>", t)
            else:
                self._syntax_error(f"mismatched input {_disp(t)} expecting <EOF>", t)
        return e

    def _expr_or_error(self, expected: frozenset[int] = EXPR_START) -> Expr:
        """An expression where one is required; ``expected`` is what ANTLR would list
        if it is missing (the sync happens at the first ``unary``)."""
        if self.tok.kind not in EXPR_START:
            self.pending_expected = expected
        return self.parse_expr()

    def parse_expr(self) -> Expr:
        self._enter(_R_EXPR)
        e = self.parse_or()
        if self.tok.kind == L.QUESTIONMARK:
            q = self._match()
            op_id = self._id(q.start)
            self.closers.append(frozenset({L.COLON}))
            t = self.parse_or()
            self.closers.pop()
            f = self.parse_expr() if self._expect(L.COLON, EXPR_START) else self._err_expr(self.tok.start)
            c = Call(op_id, e.start, max(f.end, q.end), "_?_:_", [e, t, f], None, q.start)
            self.vd[op_id] = 1 + max(self._v(e), self._v(t), self._v(f))
            e = c
        self.depth[_R_EXPR] -= 1
        return e

    def _logical(self, fn: str, terms: list[Expr], ops: list[tuple[int, int]], lo: int, hi: int) -> Expr:
        """cel-go's balancing logic manager: ``a || b || c || d`` becomes a balanced tree."""
        mid = (lo + hi + 1) // 2
        left = terms[mid] if mid == lo else self._logical(fn, terms, ops, lo, mid - 1)
        right = terms[mid + 1] if mid == hi else self._logical(fn, terms, ops, mid + 1, hi)
        op_id, op_start = ops[mid]
        c = Call(op_id, left.start, max(right.end, op_start + 2), fn, [left, right], None, op_start)
        self.vd[op_id] = max(self._v(left), self._v(right))
        return c

    def parse_or(self) -> Expr:
        return self._logical_chain(_R_OR, L.LOGICAL_OR, "_||_", self.parse_and)

    def parse_and(self) -> Expr:
        return self._logical_chain(_R_AND, L.LOGICAL_AND, "_&&_", self.parse_relation)

    def _logical_chain(self, rule: int, token: int, fn: str, operand: Callable[[], Expr]) -> Expr:
        """`a op b op c`: operands collected flat, then balanced as cel-go does."""
        self._enter(rule)
        e = operand()
        if self.tok.kind == token:
            terms = [e]
            ops: list[tuple[int, int]] = []
            while self.tok.kind == token:
                op = self._match()
                terms.append(operand())
                ops.append((self._id(op.start), op.start))
            e = self._logical(fn, terms, ops, 0, len(ops) - 1)
        self.depth[rule] -= 1
        return e

    def parse_relation(self) -> Expr:
        self._enter(_R_REL)
        e = self.parse_calc(0)
        while self.tok.kind in _REL_OPS:
            op = self._match()
            op_id = self._id(op.start)
            self._enter(_R_REL)  # right operand: relation(precedence) invocation
            rhs = self.parse_calc(0)
            self.depth[_R_REL] -= 1
            e = self._binary(op_id, _REL_OPS[op.kind], e, rhs, op.start, True)
        self.depth[_R_REL] -= 1
        return e

    def parse_calc(self, min_prec: int) -> Expr:
        self._enter(_R_CALC)
        e = self.parse_unary()
        while True:
            spec = _CALC_OPS.get(self.tok.kind)
            if spec is None or spec[1] < min_prec:
                break
            op = self._match()
            op_id = self._id(op.start)
            rhs = self.parse_calc(spec[1] + 1)
            e = self._binary(op_id, spec[0], e, rhs, op.start, True)
        self.depth[_R_CALC] -= 1
        return e

    def parse_unary(self) -> Expr:
        self._enter(_R_UNARY)
        expected = self.pending_expected or EXPR_START
        self.pending_expected = None
        if self.tok.kind not in EXPR_START and (not self._sync(expected) or self.tok.kind not in EXPR_START):
            e: Expr = self._err_expr(self.tok.start)
        elif self.tok.kind == L.EXCLAM:
            first = self.tok
            n = 0
            while self.tok.kind == L.EXCLAM:
                self._match()
                n += 1
            e = self._negation("!_", first, n, None)
        elif self.tok.kind == L.MINUS and self.la(1).kind not in (L.NUM_INT, L.NUM_FLOAT):
            first = self.tok
            last = first
            n = 0
            while self.tok.kind == L.MINUS:
                last = self._match()
                n += 1
            e = self._negation("-_", first, n, last)
        else:
            e = self.parse_member()
        self.depth[_R_UNARY] -= 1
        return e

    def _negation(self, fn: str, first: L.Token, n: int, last_minus: L.Token | None) -> Expr:
        op_id = self._id(first.start) if n % 2 else 0
        t = self.tok
        if (
            t.kind in EXPR_START
            and t.kind != L.EXCLAM
            and not (t.kind == L.MINUS and self.la(1).kind not in (L.NUM_INT, L.NUM_FLOAT))
        ):
            operand = self.parse_member()
        elif last_minus is not None and t.kind not in (L.MINUS, L.EXCLAM):
            text = "-" + (t.text if t.kind != L.EOF else "")
            self._syntax_error(f"no viable alternative at input {_quote(text)}", t)
            if t.kind == L.EOF:
                self.error_mode = False
                self._syntax_error(f"mismatched input '<EOF>' expecting {_fmt_set(EXPR_START)}", t)
            else:
                self._resync()
            operand = self._err_expr(t.start)
        elif t.kind in (L.MINUS, L.EXCLAM):
            # '!-a' / '-!a': a member is required after a run of unary operators.
            op_text = "-" if last_minus is not None else "!"
            self._syntax_error(f"no viable alternative at input {_quote(op_text + t.text)}", t)
            self._resync()
            operand = self._err_expr(t.start)
        elif self._sync(EXPR_START) and self.tok.kind in EXPR_START:
            operand = self.parse_member()
        else:
            operand = self._err_expr(self.tok.start)
        if n % 2 == 0:
            return operand
        c = Call(op_id, first.start, max(operand.end, first.end), fn, [operand], None, first.start)
        self.vd[op_id] = self._v(operand)
        return c

    def parse_member(self) -> Expr:
        self._enter(_R_MEMBER)
        e = self.parse_primary()
        while True:
            k = self.tok.kind
            if k == L.DOT:
                e = self._member_dot(e)
            elif k == L.LBRACKET:
                e = self._member_index(e)
            else:
                break
        self.depth[_R_MEMBER] -= 1
        return e

    def _member_dot(self, operand: Expr) -> Expr:
        dot = self._match()
        opt_tok: L.Token | None = None
        if self.tok.kind == L.QUESTIONMARK:
            opt_tok = self._match()
        t = self.tok
        if t.kind == L.IDENTIFIER and opt_tok is None and self.la(1).kind == L.LPAREN:
            self._match()
            lp = self._match()
            call_id = self._id(lp.start)
            args, end = self._call_args()
            return self._call_or_macro(call_id, t.text, operand, args, operand.start, end, t.start, lp.start)
        if t.kind in (L.IDENTIFIER, L.ESC_IDENTIFIER):
            self._match()
            name = t.text
            if t.kind == L.ESC_IDENTIFIER:
                name = t.text[1:-1]
                if not self.escape_idents:
                    self._error("unsupported syntax: '`'", t.start, t.end)
            if opt_tok is not None and not self.optional:
                self._error("unsupported syntax '.?'", dot.start, dot.end)
            sel_id = self._id(dot.start)
            sel = Select(sel_id, operand.start, t.end, operand, name, t.start, optional=opt_tok is not None)
            self.vd[sel_id] = 1 + self._v(operand)
            return sel
        # Missing field name: keep a Select with an empty field so completion works.
        text = "." + ("?" if opt_tok is not None else "") + (t.text if t.kind != L.EOF else "")
        if text in (".true", ".false", ".null"):
            self._syntax_error(f"mismatched input {_quote(t.text)} expecting IDENTIFIER", t)
        else:
            self._syntax_error(f"no viable alternative at input {_quote(text)}", t)
        after = (opt_tok or dot).end
        sel_id = self._id(dot.start)
        sel = Select(sel_id, operand.start, after, operand, "", after, optional=opt_tok is not None)
        self.vd[sel_id] = 1 + self._v(operand)
        self._resync()
        return sel

    def _member_index(self, operand: Expr) -> Expr:
        lb = self._match()
        opt = False
        if self.tok.kind == L.QUESTIONMARK:
            opt_tok = self._match()
            opt = True
            if not self.optional:
                self._error("unsupported syntax '[?'", lb.start, opt_tok.end)
        op_id = self._id(lb.start)
        self.closers.append(frozenset({L.RBRACKET}))
        idx = self._expr_or_error()
        self.closers.pop()
        end = self._close(L.RBRACKET)
        fn = "_[?_]" if opt else "_[_]"
        c = Call(op_id, operand.start, end, fn, [operand, idx], None, lb.start)
        self.vd[op_id] = 1 + max(self._v(operand), self._v(idx))
        return c

    def _close(self, kind: int) -> int:
        """Match a closing ``)``/``]``; returns the end offset of the construct."""
        start = self.tok.start
        self._expect(kind, self._follow())
        return self.toks[self.pos - 1].end if self.pos > 0 else start

    def _call_args(self) -> tuple[list[Expr], int]:
        args: list[Expr] = []
        self.closers.append(frozenset({L.COMMA, L.RPAREN}))
        if self.tok.kind != L.RPAREN:
            first = self._expr_or_error(EXPR_START | {L.RPAREN})
            if not (isinstance(first, ErrorExpr) and self.tok.kind != L.COMMA and first.start == first.end):
                args.append(first)
            while self.tok.kind == L.COMMA:
                self._match()
                args.append(self._expr_or_error())
        self.closers.pop()
        return args, self._close(L.RPAREN)

    def _call_or_macro(
        self,
        call_id: int,
        fn: str,
        target: Expr | None,
        args: list[Expr],
        start: int,
        end: int,
        fn_start: int,
        lparen: int,
    ) -> Expr:
        call = Call(call_id, start, end, fn, args, target, fn_start)
        depth = max([self._v(target)] + [self._v(a) for a in args])
        if target is not None:
            depth += 1  # cel-go counts MemberCall visits, not global calls
        spec = self.macros.get((fn, len(args), target is not None))
        if spec is not None:
            factory = ExprFactory(self._raw_id, self.positions, lparen)
            out = spec.expander(factory, target, args)
            if isinstance(out, MacroError):
                pos = self.positions.get(out.node.id, out.node.start)
                self._error(out.message, pos, max(pos, out.node.end))
                err = self._err_expr(start, end)
                self.positions[err.id] = pos
                self.macro_calls[err.id] = call
                self.vd[err.id] = depth
                return err
            if out is not None:
                out.start, out.end = start, end
                self.macro_calls[out.id] = call
                self.vd[out.id] = depth
                return out
        self.vd[call_id] = depth
        return call

    def parse_primary(self) -> Expr:
        self._enter(_R_PRIMARY)
        t = self.tok
        k = t.kind
        e: Expr
        if k == L.IDENTIFIER or (k == L.DOT and self.la(1).kind == L.IDENTIFIER):
            e = self._ident_like()
        elif k == L.LPAREN:
            self._match()
            self.closers.append(frozenset({L.RPAREN}))
            e = self._expr_or_error()
            self.closers.pop()
            self._close(L.RPAREN)
        elif k == L.LBRACKET:
            e = self._list()
        elif k == L.LBRACE:
            e = self._map()
        elif k == L.DOT:
            self._match()
            nt = self.tok
            text = "." + (nt.text if nt.kind != L.EOF else "")
            self._syntax_error(f"no viable alternative at input {_quote(text)}", nt)
            self._resync()
            e = self._err_expr(t.start, t.end)
        else:
            e = self._literal()
        self.depth[_R_PRIMARY] -= 1
        return e

    def _ident_like(self) -> Expr:
        lead = self._match() if self.tok.kind == L.DOT else None
        start = lead.start if lead is not None else self.tok.start
        name_tok = self._match()
        prefix = "." if lead is not None else ""
        # CreateMessage: IDENT ('.' IDENT)* '{'
        j = self.pos - 1
        toks = self.toks
        while toks[j + 1].kind == L.DOT and toks[j + 2].kind == L.IDENTIFIER:
            j += 2
        if toks[j + 1].kind == L.LBRACE:
            parts = [name_tok.text]
            while self.pos <= j:
                self._match()
                parts.append(self._match().text)
            return self._struct(prefix + ".".join(parts), start)
        name = name_tok.text
        if self.tok.kind == L.LPAREN:
            lp = self._match()
            call_id = self._id(lp.start)
            args, end = self._call_args()
            if name in RESERVED_IDENTIFIERS:
                self._error(f"reserved identifier: {name}", start, name_tok.end)
                return self._err_expr(start, end)
            return self._call_or_macro(call_id, prefix + name, None, args, start, end, start, lp.start)
        if name in RESERVED_IDENTIFIERS:
            self._error(f"reserved identifier: {name}", start, name_tok.end)
            return self._err_expr(start, name_tok.end)
        return Ident(self._id(name_tok.start), start, name_tok.end, prefix + name)

    def _list(self) -> Expr:
        lb = self._match()
        list_id = self._id(lb.start)
        elems: list[Expr] = []
        optionals: list[int] = []
        self.closers.append(frozenset({L.COMMA, L.RBRACKET}))
        first = EXPR_START | {L.RBRACKET, L.COMMA, L.QUESTIONMARK}
        if self.tok.kind not in (L.RBRACKET, L.COMMA):
            self._list_elem(elems, optionals, first)
            # ANTLR's prediction leaves the loop when the token after `,` cannot start an element
            # (the `,` is then the optional trailing comma): at the end of the input too.
            while self.tok.kind == L.COMMA and self.la(1).kind not in (L.RBRACKET, L.EOF):
                self._match()
                self._list_elem(elems, optionals, EXPR_START | {L.QUESTIONMARK})
        self.closers.pop()
        end = self._close_init(L.RBRACKET)
        lst = ListExpr(list_id, lb.start, end, elems, optionals)
        self.vd[list_id] = max([0] + [self._v(x) for x in elems])
        return lst

    def _list_elem(self, elems: list[Expr], optionals: list[int], expected: frozenset[int]) -> None:
        opt = False
        q_seen = self.tok.kind == L.QUESTIONMARK
        if q_seen:
            q = self._match()
            if self.optional:
                opt = True
            else:
                self._error("unsupported syntax '?'", q.start, q.end)
        if opt:
            optionals.append(len(elems))
        elems.append(self._expr_or_error(EXPR_START if q_seen else expected))

    def _close_init(self, closer: int) -> int:
        """``','? closer`` at the end of a list/map/message literal."""
        if self.tok.kind == L.COMMA:
            self._match()
            return self._close(closer)
        t = self.tok
        if self._sync(frozenset({closer, L.COMMA})):
            if self.tok.kind == L.COMMA:
                self._match()
            t = self.tok
            if self._expect(closer, self._follow()) and t.kind == closer:
                return t.end
        return self.toks[self.pos - 1].end if self.pos > 0 else t.start

    def _map(self) -> Expr:
        lb = self._match()
        map_id = self._id(lb.start)
        entries: list[MapEntry] = []
        self.closers.append(frozenset({L.COMMA, L.RBRACE}))
        first = EXPR_START | {L.RBRACE, L.COMMA, L.QUESTIONMARK}
        if self.tok.kind not in (L.RBRACE, L.COMMA):
            self._map_entry(entries, first)
            while not self.rule_aborted and self.tok.kind == L.COMMA and self.la(1).kind not in _CLOSE_OR_EOF:
                self._match()
                self._map_entry(entries, EXPR_START | {L.QUESTIONMARK})
            self.rule_aborted = False
        self.closers.pop()
        end = self._close_init(L.RBRACE)
        m = MapExpr(map_id, lb.start, end, entries)
        self.vd[map_id] = max([0] + [max(self._v(x.key), self._v(x.value)) for x in entries])
        return m

    def _map_entry(self, entries: list[MapEntry], expected: frozenset[int]) -> None:
        entry_id = self._raw_id()
        opt = False
        start = self.tok.start
        q_seen = self.tok.kind == L.QUESTIONMARK
        if q_seen:
            q = self._match()
            if self.optional:
                opt = True
            else:
                self._error("unsupported syntax '?'", q.start, q.end)
        self.closers.append(frozenset({L.COLON}))
        key = self._expr_or_error(EXPR_START if q_seen else expected)
        self.closers.pop()
        self.positions[entry_id] = self.tok.start
        if self._expect(L.COLON, EXPR_START):
            value = self._expr_or_error()
        else:
            value = self._err_expr(self.tok.start)
            self.rule_aborted = True
        entries.append(MapEntry(entry_id, start, max(value.end, key.end), key, value, opt))

    def _struct(self, type_name: str, start: int) -> Expr:
        lb = self._match()
        obj_id = self._id(lb.start)
        fields: list[StructField] = []
        self.closers.append(frozenset({L.COMMA, L.RBRACE}))
        first = frozenset({L.RBRACE, L.COMMA}) | _FIELD_START
        if (
            self.tok.kind not in (L.RBRACE, L.COMMA)
            and self._sync(first)
            and self.tok.kind not in (L.RBRACE, L.COMMA)
        ):
            self._struct_field(fields)
            while not self.rule_aborted and self.tok.kind == L.COMMA and self.la(1).kind not in _CLOSE_OR_EOF:
                self._match()
                if self._sync(_FIELD_START):
                    self._struct_field(fields)
            self.rule_aborted = False
        self.closers.pop()
        end = self._close_init(L.RBRACE)
        s = StructExpr(obj_id, start, end, type_name, start, fields)
        self.vd[obj_id] = max([0] + [self._v(f.value) for f in fields])
        return s

    def _struct_field(self, fields: list[StructField]) -> None:
        opt = False
        start = self.tok.start
        if self.tok.kind == L.QUESTIONMARK:
            q = self._match()
            if self.optional:
                opt = True
            else:
                self._error("unsupported syntax '?'", q.start, q.end)
        t = self.tok
        if t.kind not in (L.IDENTIFIER, L.ESC_IDENTIFIER):
            expected = frozenset({L.IDENTIFIER, L.ESC_IDENTIFIER})
            self._syntax_error(f"mismatched input {_disp(t)} expecting {_fmt_set(expected)}", t)
            self._resync()
            self.rule_aborted = True
            return
        self._match()
        name = t.text
        if t.kind == L.ESC_IDENTIFIER:
            name = t.text[1:-1]
            if not self.escape_idents:
                self._error("unsupported syntax: '`'", t.start, t.end)
        colon_pos = self.tok.start
        if self._expect(L.COLON, EXPR_START):
            field_id = self._id(colon_pos)
            value = self._expr_or_error()
        else:
            field_id = self._id(colon_pos)
            value = self._err_expr(self.tok.start)
            self.rule_aborted = True
        fields.append(StructField(field_id, start, max(value.end, t.end), name, t.start, value, opt))

    def _literal(self) -> Expr:
        t = self._match()
        k = t.kind
        start = t.start
        if k == L.MINUS:  # signed numeric literal
            num = self._match()
            text = "-" + num.text
            k = num.kind
            end = num.end
        else:
            text = t.text
            end = t.end
        lit_id = self._id(start)
        if k == L.NUM_INT:
            neg = text.startswith("-")
            body = text[1:] if neg else text
            value = int(body[2:], 16) if body.startswith("0x") else int(body)
            value = -value if neg else value
            if not -(2**63) <= value < 2**63:
                return self._lit_error(lit_id, "invalid int literal", start, end)
            return Literal(lit_id, start, end, LiteralKind.INT, value)
        if k == L.NUM_UINT:
            body = text[:-1]
            uvalue = int(body[2:], 16) if body.startswith("0x") else int(body)
            if uvalue >= 2**64:
                return self._lit_error(lit_id, "invalid uint literal", start, end)
            return Literal(lit_id, start, end, LiteralKind.UINT, uvalue)
        if k == L.NUM_FLOAT:
            fvalue = float(text)
            if math.isinf(fvalue):
                return self._lit_error(lit_id, "invalid double literal", start, end)
            return Literal(lit_id, start, end, LiteralKind.DOUBLE, fvalue)
        if k == L.STRING:
            s, err = unescape(text, False)
            if err is not None:
                self._error(err, start, end)
            return Literal(lit_id, start, end, LiteralKind.STRING, s)
        if k == L.BYTES:
            s, err = unescape(text[1:], True)
            if err is not None:
                self._error(err, start, end)
            data = s.encode("latin-1") if err is None else s.encode("utf-8", "surrogatepass")
            return Literal(lit_id, start, end, LiteralKind.BYTES, data)
        if k == L.CEL_TRUE:
            return Literal(lit_id, start, end, LiteralKind.BOOL, True)
        if k == L.CEL_FALSE:
            return Literal(lit_id, start, end, LiteralKind.BOOL, False)
        if k == L.NUL:
            return Literal(lit_id, start, end, LiteralKind.NULL, None)
        # Unreachable in practice: callers only get here with an expression-start token.
        return ErrorExpr(lit_id, start, end)

    def _lit_error(self, lit_id: int, msg: str, start: int, end: int) -> Expr:
        self._error(msg, start, end)
        return ErrorExpr(lit_id, start, end)


_SIMPLE_ESC = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}


def _valid_rune(v: int) -> bool:
    return 0 <= v <= 0x10FFFF and not 0xD800 <= v <= 0xDFFF


def unescape(text: str, is_bytes: bool) -> tuple[str, str | None]:
    """cel-go ``unescape``: literal text (quotes included) → value, error message.

    For bytes the result is a latin-1 "byte string" (each char one byte).
    """
    value = text.replace("\r\n", "\n").replace("\r", "\n")
    if len(value) < 2:
        return value, "unable to unescape string"
    raw = False
    if value[0] in "rR":
        value = value[1:]
        raw = True
    n = len(value)
    if value[0] != value[-1] or value[0] not in "\"'":
        return value, "unable to unescape string"
    value = value[3:-3] if n >= 6 and (value.startswith("'''") or value.startswith('"""')) else value[1:-1]
    if raw or "\\" not in value:
        return (value.encode("utf-8", "surrogatepass").decode("latin-1") if is_bytes else value), None
    out: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        c = value[i]
        if c != "\\":
            out.append(c.encode("utf-8", "surrogatepass").decode("latin-1") if is_bytes else c)
            i += 1
            continue
        if i + 1 >= n:
            return "", "unable to unescape string, found '\\' as last character"
        c = value[i + 1]
        i += 2
        if c in _SIMPLE_ESC:
            out.append(_SIMPLE_ESC[c])
        elif c in "xXuU":
            count = 2 if c in "xX" else 4 if c == "u" else 8
            if is_bytes and c in "uU":
                return "", "unable to unescape string"
            digits = value[i : i + count]
            if len(digits) < count or any(d not in "0123456789abcdefABCDEF" for d in digits):
                return "", "unable to unescape string"
            v = int(digits, 16)
            i += count
            if not is_bytes and not _valid_rune(v):
                return "", "invalid unicode code point"
            out.append(chr(v))
        elif c in "0123":
            digits = value[i : i + 2]
            if len(digits) < 2 or any(d not in "01234567" for d in digits):
                return "", "unable to unescape octal sequence in string"
            v = int(c + digits, 8)
            i += 2
            out.append(chr(v))
        else:
            return "", "unable to unescape string"
    return "".join(out), None


def parse(
    text: str,
    *,
    macros: frozenset[str] | None = None,
    enable_optional_syntax: bool = True,
    enable_ident_escape_syntax: bool = True,
    max_recursion_depth: int = 250,
    expression_size_limit: int = 100_000,
    error_recovery_limit: int = 30,
) -> ParsedExpr:
    """Parse a CEL expression like cel-go; never raises.

    ``macros`` lists enabled macros (see :mod:`vap_lsp.cel.macros`; default
    :data:`~vap_lsp.cel.macros.DEFAULT_MACROS`).  Limits of ``-1`` mean unlimited.
    ``ast`` is ``None`` when cel-go would produce no AST (size/recursion limits,
    too many errors); otherwise it is a best-effort tree with ``ErrorExpr``
    placeholders wherever the input was broken.
    """
    size_limit = sys.maxsize if expression_size_limit < 0 else expression_size_limit
    if len(text) > size_limit:
        msg = f"expression code point size exceeds limit: size: {len(text)}, limit {size_limit}"
        return ParsedExpr(None, [CelIssue(msg, -1, -1)], text)
    max_depth = sys.maxsize if max_recursion_depth < 0 else max_recursion_depth
    table = resolve_macros(DEFAULT_MACROS if macros is None else macros)
    p = _Parser(text, table, enable_optional_syntax, enable_ident_escape_syntax, max_depth)
    p.recovery_limit = sys.maxsize if error_recovery_limit < 0 else error_recovery_limit
    needed = min(max_depth, 20_000) * 14 + 2_000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)
    ast: Expr | None
    try:
        ast = p.parse_start()
    except _Abort as exc:
        ast = None
        if exc.args == ("recursion",):
            cur = p.tok.start
            p.syntax = [e for e in p.syntax if e.start <= cur]
            p.semantic = []
            p.syntax.append(CelIssue(f"expression recursion limit exceeded: {max_recursion_depth}", -1, -1))
    except RecursionError:
        ast = None
        p.semantic = []
        p.syntax.append(CelIssue(f"expression recursion limit exceeded: {max_recursion_depth}", -1, -1))
    if ast is not None and p._v(ast) > max_depth:
        ast = None
        p.semantic.append(CelIssue("max recursion depth exceeded", -1, -1))
    syntax = sorted(p.syntax, key=lambda e: e.start)
    limit = 100
    if len(syntax) > limit:
        extra = syntax[limit]
        too_many = CelIssue(f"Syntax error: More than {limit} syntax errors", extra.start, extra.end)
        syntax = [*syntax[:limit], too_many]
        ast = None
    errors = sorted(syntax + p.semantic, key=lambda e: e.start)
    return ParsedExpr(ast, errors, text, p.macro_calls if ast is not None else {}, p.positions)
