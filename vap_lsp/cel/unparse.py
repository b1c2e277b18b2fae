"""Compact S-expression dump of the CEL AST, used as readable test specifications."""

from __future__ import annotations

from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    ErrorExpr,
    Expr,
    Ident,
    ListExpr,
    Literal,
    LiteralKind,
    MapExpr,
    Select,
    StructExpr,
)

__all__ = ["dump", "dump_literal"]


def dump_literal(e: Literal) -> str:
    v = e.value
    if e.kind is LiteralKind.BOOL:
        return "true" if v else "false"
    if e.kind is LiteralKind.NULL:
        return "null"
    if e.kind is LiteralKind.UINT:
        return f"{v}u"
    if e.kind is LiteralKind.DOUBLE:
        return repr(v)
    if e.kind is LiteralKind.STRING:
        assert isinstance(v, str)
        return '"' + v.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if e.kind is LiteralKind.BYTES:
        assert isinstance(v, bytes)
        return "b" + repr(v)[1:]
    return str(v)


def dump(e: Expr | None) -> str:
    """``(_+_ a 1)``, ``(.f target x)`` for member calls, ``(. a b)`` for selects,
    ``(.? a b)`` optional select, ``(has a b)`` presence test, ``[a ?b]`` lists,
    ``{k: v, ?k: v}`` maps, ``Type{f: v}`` messages, ``<error>`` placeholders and
    ``(comprehension v[,v2] range accu init cond step result)``.
    """
    if e is None:
        return "<none>"
    if isinstance(e, Literal):
        return dump_literal(e)
    if isinstance(e, Ident):
        return e.name
    if isinstance(e, Select):
        head = "has" if e.test_only else (".?" if e.optional else ".")
        return f"({head} {dump(e.operand)} {e.field})"
    if isinstance(e, Call):
        parts = [dump(a) for a in e.args]
        if e.target is not None:
            return "(" + " ".join([f".{e.function}", dump(e.target), *parts]) + ")"
        return "(" + " ".join([e.function, *parts]) + ")"
    if isinstance(e, ListExpr):
        return (
            "["
            + " ".join(("?" if i in e.optional_indices else "") + dump(x) for i, x in enumerate(e.elements))
            + "]"
        )
    if isinstance(e, MapExpr):
        return (
            "{"
            + ", ".join(f"{'?' if en.optional else ''}{dump(en.key)}: {dump(en.value)}" for en in e.entries)
            + "}"
        )
    if isinstance(e, StructExpr):
        return (
            e.type_name
            + "{"
            + ", ".join(f"{'?' if f.optional else ''}{f.name}: {dump(f.value)}" for f in e.fields)
            + "}"
        )
    if isinstance(e, Comprehension):
        var = e.iter_var if e.iter_var2 is None else f"{e.iter_var},{e.iter_var2}"
        return (
            f"(comprehension {var} {dump(e.iter_range)} {e.accu_var} {dump(e.accu_init)} "
            f"{dump(e.loop_condition)} {dump(e.loop_step)} {dump(e.result)})"
        )
    if isinstance(e, ErrorExpr):
        return "<error>"
    return f"<{type(e).__name__}>"
