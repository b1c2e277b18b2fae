"""CEL parser: input → AST (S-expression dump), literal values, offsets, ids, macros.

Shapes follow cel-go's parser (parser/parser_test.go, macro.go): operators use
cel-go's internal names, ``&&``/``||`` chains are balanced, macros are expanded
into comprehensions with the ``@result`` accumulator.
"""

from __future__ import annotations

import pytest

from vap_lsp.cel.ast import (
    Call,
    Comprehension,
    ErrorExpr,
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
from vap_lsp.cel.macros import ALL_MACROS, STANDARD_MACROS
from vap_lsp.cel.parser import parse
from vap_lsp.cel.unparse import dump


def ok(text: str, **kw: object) -> ParsedExpr:
    r = parse(text, **kw)  # type: ignore[arg-type]
    assert r.errors == [], r.render_errors()
    assert r.ast is not None
    return r


def lit(text: str) -> Literal:
    r = ok(text)
    assert isinstance(r.ast, Literal)
    return r.ast


# --------------------------------------------------------------------------- literals


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("0", LiteralKind.INT, 0),
        ("42", LiteralKind.INT, 42),
        ("0xF", LiteralKind.INT, 15),
        ("0x7fffffffffffffff", LiteralKind.INT, 2**63 - 1),
        ("-1", LiteralKind.INT, -1),
        ("- 1", LiteralKind.INT, -1),  # the sign is part of the literal rule (tokens, not chars)
        ("-9223372036854775808", LiteralKind.INT, -(2**63)),
        ("9223372036854775807", LiteralKind.INT, 2**63 - 1),
        ("-0x10", LiteralKind.INT, -16),
        ("0u", LiteralKind.UINT, 0),
        ("23U", LiteralKind.UINT, 23),
        ("0xFu", LiteralKind.UINT, 15),
        ("18446744073709551615u", LiteralKind.UINT, 2**64 - 1),
        ("1.0", LiteralKind.DOUBLE, 1.0),
        (".5", LiteralKind.DOUBLE, 0.5),
        ("1e10", LiteralKind.DOUBLE, 1e10),
        ("1E3", LiteralKind.DOUBLE, 1000.0),
        ("1.5e-3", LiteralKind.DOUBLE, 0.0015),
        (".5e+2", LiteralKind.DOUBLE, 50.0),
        ("-4.1", LiteralKind.DOUBLE, -4.1),
        ("true", LiteralKind.BOOL, True),
        ("false", LiteralKind.BOOL, False),
        ("null", LiteralKind.NULL, None),
        ('"A"', LiteralKind.STRING, "A"),
        ("'A'", LiteralKind.STRING, "A"),
        ('""', LiteralKind.STRING, ""),
        ("''", LiteralKind.STRING, ""),
        ("'''a\nb'''", LiteralKind.STRING, "a\nb"),
        ('"""x"y"""', LiteralKind.STRING, 'x"y'),
        ("'''a\r\nb'''", LiteralKind.STRING, "a\nb"),  # newlines normalised like cel-go
        ("r'\\n'", LiteralKind.STRING, "\\n"),
        ('R"\\d+"', LiteralKind.STRING, "\\d+"),
        ("r'''a\\b'''", LiteralKind.STRING, "a\\b"),
        ("'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\`\\?'", LiteralKind.STRING, "\a\b\f\n\r\t\v\\'\"`?"),
        ('"\\x41\\101\\u00e9\\U0001F600"', LiteralKind.STRING, "AAé😀"),
        ('"\\xff"', LiteralKind.STRING, "\u00ff"),  # \x in a string is a code point
        ('"\\377"', LiteralKind.STRING, "\u00ff"),
        ('"😁 é"', LiteralKind.STRING, "😁 é"),
        ('b"abc"', LiteralKind.BYTES, b"abc"),
        ("B'abc'", LiteralKind.BYTES, b"abc"),
        ('b"\\xff\\377\\x41"', LiteralKind.BYTES, b"\xff\xffA"),  # \x / octal are raw bytes
        ('b"ÿ"', LiteralKind.BYTES, "ÿ".encode()),
        ("br'\\x'", LiteralKind.BYTES, b"\\x"),
        ("bR'''a\\'''", LiteralKind.BYTES, b"a\\"),
        ("b'''\\n'''", LiteralKind.BYTES, b"\n"),
    ],
)
def test_literal_values(text: str, kind: LiteralKind, value: object) -> None:
    node = lit(text)
    assert node.kind is kind
    assert node.value == value
    assert type(node.value) is type(value)
    assert (node.start, node.end) == (0, len(text))


def test_literal_with_comment_and_whitespace() -> None:
    node = lit(' \t\f\r\n "a" // trailing comment')
    assert node.value == "a"
    assert (node.start, node.end) == (6, 9)


# ------------------------------------------------------------------------- structure

STRUCTURE = [
    ("a", "a"),
    ("a.b.c", "(. (. a b) c)"),
    (".a", ".a"),
    (".a.b", "(. .a b)"),
    ("a.if", "(. a if)"),  # reserved words are fine as field names
    ("a.`b-c`", "(. a b-c)"),  # escaped field names (cel-go ≥ 0.23)
    ("a.`b.c/d e`", "(. a b.c/d e)"),
    ("f()", "(f)"),
    ("f(1, 2)", "(f 1 2)"),
    (".f(1)", "(.f 1)"),
    ("a.f(1)", "(.f a 1)"),
    ("a.f().g()", "(.g (.f a))"),
    ("a.b.f(c)", "(.f (. a b) c)"),
    ("a[0]", "(_[_] a 0)"),
    ("a[0][1]", "(_[_] (_[_] a 0) 1)"),
    ("a['k'].b", '(. (_[_] a "k") b)'),
    ("-a", "(-_ a)"),
    ("--a", "a"),  # an even number of unary operators cancels out, as in cel-go
    ("---a", "(-_ a)"),
    ("!a", "(!_ a)"),
    ("!!a", "a"),
    ("!!!a", "(!_ a)"),
    ("!-1", "(!_ -1)"),
    ("-1u", "(-_ 1u)"),  # no signed uint literal
    ("-(1)", "(-_ 1)"),
    ("4--4", "(_-_ 4 -4)"),
    ("4--4.1", "(_-_ 4 -4.1)"),
    ("1 - -1", "(_-_ 1 -1)"),
    ("a - b", "(_-_ a b)"),
    ("1 + 2 * 3 - 1 / 2 == 6 % 1", "(_==_ (_-_ (_+_ 1 (_*_ 2 3)) (_/_ 1 2)) (_%_ 6 1))"),
    ("a < b < c", "(_<_ (_<_ a b) c)"),
    ("a <= b && c >= d", "(_&&_ (_<=_ a b) (_>=_ c d))"),
    ("a > b || c != d", "(_||_ (_>_ a b) (_!=_ c d))"),
    ("a in b", "(@in a b)"),
    ("'a' in ['a'] == true", '(_==_ (@in "a" ["a"]) true)'),
    ("a + b in c", "(@in (_+_ a b) c)"),
    ("a && b || c && d", "(_||_ (_&&_ a b) (_&&_ c d))"),
    ("a || b || c", "(_||_ (_||_ a b) c)"),
    ("a || b || c || d", "(_||_ (_||_ a b) (_||_ c d))"),  # balanced, like cel-go
    ("a && b && c && d && e", "(_&&_ (_&&_ (_&&_ a b) c) (_&&_ d e))"),
    ("a ? b : c", "(_?_:_ a b c)"),
    ("a ? b : c ? d : e", "(_?_:_ a b (_?_:_ c d e))"),
    ("a == b ? c : d || e", "(_?_:_ (_==_ a b) c (_||_ d e))"),
    ("a ? (b ? c : d) : e", "(_?_:_ a (_?_:_ b c d) e)"),  # the middle is a conditionalOr
    ("(a)", "a"),
    ("(a + b) * c", "(_*_ (_+_ a b) c)"),
    ("[]", "[]"),
    ("[1, 2, 3]", "[1 2 3]"),
    ("[1, 2,]", "[1 2]"),
    ("[,]", "[]"),  # allowed by CEL.g4: listInit? ','?
    ("{}", "{}"),
    ("{,}", "{}"),
    ("{'a': 1, 2: [3]}", '{"a": 1, 2: [3]}'),
    ("{'a': 1,}", '{"a": 1}'),
    ("Msg{}", "Msg{}"),
    ("Msg{a: 1, b: 2,}", "Msg{a: 1, b: 2}"),
    (".Msg{a: 1}", ".Msg{a: 1}"),
    ("a.b.c{}", "a.b.c{}"),
    ("google.protobuf.Int64Value{value: 1}", "google.protobuf.Int64Value{value: 1}"),
    ("Object.spec{replicas: 1}", "Object.spec{replicas: 1}"),
    ('JSONPatch{op: "add", path: "/x"}', 'JSONPatch{op: "add", path: "/x"}'),
    ("Msg{`in`: true}", "Msg{in: true}"),
    ("Msg{a: 1}.a", "(. Msg{a: 1} a)"),
    ("size(x) > 0", "(_>_ (size x) 0)"),
    ('"a" // comment\n + "b"', '(_+_ "a" "b")'),
]


@pytest.mark.parametrize(("text", "expected"), STRUCTURE)
def test_structure(text: str, expected: str) -> None:
    assert dump(ok(text).ast) == expected


OPTIONAL = [
    ("a.?b", "(.? a b)"),
    ("a.?b.c", "(. (.? a b) c)"),
    ("a[?0]", "(_[?_] a 0)"),
    ("a.?b[?0] && a[?c]", "(_&&_ (_[?_] (.? a b) 0) (_[?_] a c))"),
    ("[?a, b, ?c]", "[?a b ?c]"),
    ("{?'k': v, 'j': w}", '{?"k": v, "j": w}'),
    ("Msg{?a: x, b: y}", "Msg{?a: x, b: y}"),
    ("a.?b.orValue('x')", '(.orValue (.? a b) "x")'),
]


@pytest.mark.parametrize(("text", "expected"), OPTIONAL)
def test_optional_syntax(text: str, expected: str) -> None:
    r = ok(text)
    assert dump(r.ast) == expected


def test_optional_select_node() -> None:
    r = ok("a.?b")
    assert isinstance(r.ast, Select)
    assert r.ast.optional and not r.ast.test_only and r.ast.field == "b"
    lst = ok("[?a, b]").ast
    assert isinstance(lst, ListExpr) and lst.optional_indices == [0]


# ----------------------------------------------------------------------------- macros

MACROS = [
    ("has(a.b)", "(has a b)"),
    ("has(a.b.c)", "(has (. a b) c)"),
    (
        "x.all(e, e > 0)",
        "(comprehension e x @result true (@not_strictly_false @result) (_&&_ @result (_>_ e 0)) @result)",
    ),
    (
        "x.exists(e, e)",
        "(comprehension e x @result false (@not_strictly_false (!_ @result)) (_||_ @result e) @result)",
    ),
    (
        "x.exists_one(e, e)",
        "(comprehension e x @result 0 true (_?_:_ e (_+_ @result 1) @result) (_==_ @result 1))",
    ),
    (
        "x.existsOne(e, e)",
        "(comprehension e x @result 0 true (_?_:_ e (_+_ @result 1) @result) (_==_ @result 1))",
    ),
    ("x.map(e, e * 2)", "(comprehension e x @result [] true (_+_ @result [(_*_ e 2)]) @result)"),
    (
        "x.map(e, e > 1, e * 2)",
        "(comprehension e x @result [] true (_?_:_ (_>_ e 1) (_+_ @result [(_*_ e 2)]) @result) @result)",
    ),
    ("x.filter(e, e)", "(comprehension e x @result [] true (_?_:_ e (_+_ @result [e]) @result) @result)"),
    (
        "m.all(k, v, k == v)",
        "(comprehension k,v m @result true (@not_strictly_false @result) (_&&_ @result (_==_ k v)) @result)",
    ),
    (
        "m.exists(k, v, v)",
        "(comprehension k,v m @result false (@not_strictly_false (!_ @result)) (_||_ @result v) @result)",
    ),
    (
        "m.existsOne(k, v, v)",
        "(comprehension k,v m @result 0 true (_?_:_ v (_+_ @result 1) @result) (_==_ @result 1))",
    ),
    (
        "l.transformList(i, v, v + i)",
        "(comprehension i,v l @result [] true (_+_ @result [(_+_ v i)]) @result)",
    ),
    (
        "l.transformList(i, v, i > 0, v)",
        "(comprehension i,v l @result [] true (_?_:_ (_>_ i 0) (_+_ @result [v]) @result) @result)",
    ),
    (
        "m.transformMap(k, v, v + 1)",
        "(comprehension k,v m @result {} true (cel.@mapInsert @result k (_+_ v 1)) @result)",
    ),
    (
        "m.transformMapEntry(k, v, {v: k})",
        "(comprehension k,v m @result {} true (cel.@mapInsert @result {v: k}) @result)",
    ),
    (
        "o.optMap(v, v + 1)",
        "(_?_:_ (.hasValue o) (optional.of (comprehension #unused [] v (.value o) false v (_+_ v 1)))"
        " (optional.none))",
    ),
    (
        "o.optFlatMap(v, f(v))",
        "(_?_:_ (.hasValue o) (comprehension #unused [] v (.value o) false v (f v)) (optional.none))",
    ),
    # not macros: wrong arity or not a receiver call
    ("x.all(e)", "(.all x e)"),
    ("all(x, e, f)", "(all x e f)"),
    ("x.has(a.b)", "(.has x (. a b))"),
    ("cel.bind(x, 1, x + x)", "(.bind cel x 1 (_+_ x x))"),  # cel.bind is not a Kubernetes macro
]


@pytest.mark.parametrize(("text", "expected"), MACROS)
def test_macro_expansion(text: str, expected: str) -> None:
    assert dump(ok(text).ast) == expected


def test_cel_bind_when_enabled() -> None:
    r = ok("cel.bind(x, 1, x + x)", macros=ALL_MACROS)
    assert dump(r.ast) == "(comprehension #unused [] x 1 false x (_+_ x x))"
    # only with the `cel` namespace as target
    assert dump(ok("foo.bind(x, 1, x)", macros=ALL_MACROS).ast) == "(.bind foo x 1 x)"


def test_macro_set_is_configurable() -> None:
    assert dump(ok("m.all(k, v, v)", macros=STANDARD_MACROS).ast) == "(.all m k v v)"
    assert dump(ok("x.all(e, e)", macros=frozenset()).ast) == "(.all x e e)"
    assert dump(ok("has(a.b)", macros=frozenset({"has"})).ast) == "(has a b)"
    assert dump(ok("x.map(e, e)", macros=frozenset({"map(3)"})).ast) == "(.map x e e)"
    bound = ok("cel.bind(x, 1, x)", macros=frozenset({"bind(3)"})).ast
    assert isinstance(bound, Comprehension)


def test_macro_call_is_recorded() -> None:
    r = ok("containers.all(c, c.name != '')")
    comp = r.ast
    assert isinstance(comp, Comprehension)
    assert (comp.start, comp.end) == (0, len("containers.all(c, c.name != '')"))
    call = r.macro_calls[comp.id]
    assert call.function == "all"
    assert isinstance(call.target, Ident) and call.target.name == "containers"
    assert [dump(a) for a in call.args] == ["c", '(_!=_ (. c name) "")']
    # generated nodes sit at the '(' of the call, like cel-go
    assert r.location(comp) == len("containers.all")
    assert r.location(comp.accu_init) == len("containers.all")


def test_has_macro_keeps_original_select() -> None:
    r = ok("has(a.b)")
    sel = r.ast
    assert isinstance(sel, Select) and sel.test_only and sel.field == "b"
    assert (sel.start, sel.end, sel.field_start) == (0, 8, 6)
    call = r.macro_calls[sel.id]
    assert call.function == "has" and dump(call.args[0]) == "(. a b)"


def test_nested_macros_each_recorded() -> None:
    r = ok("a.all(x, x.exists(y, y))")
    assert len(r.macro_calls) == 2


# ------------------------------------------------------------------ ids and offsets


def test_ids_follow_cel_go_order() -> None:
    # cel-go: _-_(4^#1, -4^#3)^#2 ; a^#2 / -_^#1
    r = ok("4--4")
    assert isinstance(r.ast, Call)
    assert [r.ast.args[0].id, r.ast.id, r.ast.args[1].id] == [1, 2, 3]
    r = ok("-a")
    assert isinstance(r.ast, Call) and r.ast.id == 1 and r.ast.args[0].id == 2
    # map: {k^#3: v^#4 (entry #2)}^#1
    m = ok("{k: v}").ast
    assert isinstance(m, MapExpr)
    assert (m.id, m.entries[0].id, m.entries[0].key.id, m.entries[0].value.id) == (1, 2, 3, 4)
    # has(m.f): m^#2.f~test-only~^#4
    h = ok("has(m.f)").ast
    assert isinstance(h, Select) and h.id == 4 and h.operand.id == 2


def test_ids_unique() -> None:
    r = ok("a.all(x, x > 0) && {1: Msg{f: [1, 2]}}.exists(k, v, true)")
    ids = [n.id for n in r.walk()]
    assert len(ids) == len(set(ids))
    assert min(ids) == 1


def test_offsets_and_positions() -> None:
    text = "object.spec.replicas + f(x, 1)"
    r = ok(text)
    add = r.ast
    assert isinstance(add, Call) and add.function == "_+_"
    assert (add.start, add.end, add.function_start) == (0, len(text), 21)
    sel = add.args[0]
    assert isinstance(sel, Select)
    assert (sel.start, sel.end, sel.field_start) == (0, 20, 12)
    assert r.location(sel) == 11  # cel-go reports selects at the '.'
    call = add.args[1]
    assert isinstance(call, Call)
    assert (call.start, call.end, call.function_start) == (23, 30, 23)
    assert r.location(call) == 24  # ... and calls at the '('
    assert r.location(add) == 21


def test_offsets_are_code_points() -> None:
    text = "'😁' + x"
    r = ok(text)
    assert isinstance(r.ast, Call)
    x = r.ast.args[1]
    assert (x.start, x.end) == (6, 7)
    assert text[x.start : x.end] == "x"


def test_struct_and_map_nodes() -> None:
    r = ok("a.B{f: 1, ?g: 2}")
    s = r.ast
    assert isinstance(s, StructExpr)
    assert s.type_name == "a.B" and s.type_name_start == 0
    f, g = s.fields
    assert isinstance(f, StructField)
    assert (f.name, f.name_start, f.optional, f.start, f.end) == ("f", 4, False, 4, 8)
    assert g.optional
    m = ok("{?1: 2}").ast
    assert isinstance(m, MapExpr) and isinstance(m.entries[0], MapEntry) and m.entries[0].optional


# ---------------------------------------------------------- node_at / walk / recovery


def test_node_at_follows_what_was_typed() -> None:
    text = "object.spec.containers.all(c, c.image.startsWith('x'))"
    r = ok(text)
    path = r.node_at(text.index("image") + 2)
    assert isinstance(path[0], Comprehension)
    assert isinstance(path[1], Call) and path[1].function == "all"  # the call as written
    inner = path[-1]
    assert isinstance(inner, Select) and inner.field == "image"


def test_walk_visits_entries_and_fields() -> None:
    r = ok("{1: Msg{f: x}}")
    kinds = [type(n).__name__ for n in r.walk()]
    assert kinds == ["MapExpr", "MapEntry", "Literal", "StructExpr", "StructField", "Ident"]


def test_recovery_trailing_dot_keeps_select() -> None:
    r = parse("object.spec.")
    assert r.ast is not None and len(r.errors) == 1
    assert dump(r.ast) == "(. (. object spec) )"
    assert isinstance(r.ast, Select) and r.ast.field_start == len("object.spec.")
    path = r.node_at(len("object.spec."))
    assert path[-1] is r.ast or path[-2] is r.ast


def test_recovery_inside_macro_keeps_macro_call() -> None:
    text = "containers.all(c, c."
    r = parse(text)
    assert r.ast is not None
    assert isinstance(r.ast, Comprehension)
    call = r.macro_calls[r.ast.id]
    assert call.function == "all" and dump(call.args[1]) == "(. c )"
    path = r.node_at(len(text))
    assert any(isinstance(n, Call) and n.function == "all" for n in path)
    assert isinstance(path[-1], (Select, Ident))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a +", "(_+_ a <error>)"),
        ("f(", "(f)"),
        ("f(a", "(f a)"),
        ("f(a,", "(f a <error>)"),
        ("a.b(", "(.b a)"),
        ("[1, 2", "[1 2]"),
        ("{'a': 1", '{"a": 1}'),
        ("a[1", "(_[_] a 1)"),
        ("a ? b", "(_?_:_ a b <error>)"),
        ("-", "(-_ <error>)"),
        ("!", "(!_ <error>)"),
        (
            "x.all(e, ",
            "(comprehension e x @result true (@not_strictly_false @result) (_&&_ @result <error>) @result)",
        ),
        ("Msg{a: ", "Msg{a: <error>}"),
        ("a.?", "(.? a )"),
    ],
)
def test_recovery_shapes(text: str, expected: str) -> None:
    r = parse(text)
    assert r.errors, text
    assert dump(r.ast) == expected


def test_error_expr_offsets_point_at_the_gap() -> None:
    r = parse("a + ")
    assert isinstance(r.ast, Call)
    err = r.ast.args[1]
    assert isinstance(err, ErrorExpr)
    assert (err.start, err.end) == (4, 4)
