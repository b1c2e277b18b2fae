# ruff: noqa: E501  (cel-go messages are long and kept on one line each)
"""Cases re-typed from cel-go `checker/checker_test.go` (v0.26): type, or exact error text + column.

cel-go's test env is plain CEL; the cases run in a Kubernetes 1.34 environment whose variables
are replaced by the test's (`_celgo_env`). From cel-go 0.17 on (Kubernetes 1.29+) mixed
aggregate literals are rejected by a validator after the check, so the checker itself types
`[1, "A"]` as `list(dyn)` exactly like cel-go's test env.
"""

from __future__ import annotations

import dataclasses

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.checker import CheckedExpr, check
from vap_lsp.cel.compile import parse_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment

_BASE = build_environment("1.34", ExpressionKind.VARIABLE, has_params=False)


def _celgo_env(**variables: t.Type) -> Environment:
    return dataclasses.replace(_BASE, variables=variables)


def _check(text: str, env: Environment) -> CheckedExpr:
    parsed = parse_expression(text, env)
    assert parsed.ok, parsed.errors
    return check(parsed, env)


def _type(text: str, env: Environment) -> str:
    checked = _check(text, env)
    assert [i.message for i in checked.issues] == []
    return t.format_cel_type(checked.output_type)


def _errors(text: str, env: Environment) -> list[str]:
    """`<line>:<col>: <message>` as cel-go prints them (1-based column)."""
    checked = _check(text, env)
    return [i.render(text).splitlines()[0].removeprefix("ERROR: <input>:") for i in checked.issues]


TYPES = [
    ('"A"', "string"),
    ("12", "int"),
    ("12u", "uint"),
    ("true", "bool"),
    ("12.23", "double"),
    ("null", "null"),
    ('b"ABC"', "bytes"),
    ("[]", "list(dyn)"),
    ("[1]", "list(int)"),
    ('[1, "A"]', "list(dyn)"),
    ("1 + 2", "int"),
    ("[1] + [2]", "list(int)"),
    ("[] + [1,2,3,] + [4]", "list(int)"),
    ("[1, 2u] + []", "list(dyn)"),
    ("{1:2u, 2:3u}", "map(int, uint)"),
    ('{"a":1, "b":2}.a', "int"),
    ("{1:2u, 2u:3}", "map(dyn, dyn)"),
    ('int(1u) + int(uint("1"))', "int"),
    ("false && !true || false ? 2 : 3", "int"),
    ('b"abc" + b"def"', "bytes"),
    ("1.0 + 2.0 * 3.0 - 1.0 / 2.20202 != 66.6", "bool"),
    ("null == null && null != null", "bool"),
    ("1 == 1 && 2 != 1", "bool"),
    ("1 + 2 * 3 - 1 / 2 == 6 % 1", "bool"),
    ('"abc" + "def"', "string"),
    ("1u + 2u * 3u - 1u / 2u == 6u % 1u", "bool"),
    ("size([] + [1])", "int"),
    ("list == type([1]) && map == type({1:2u})", "bool"),
    ("1 in [1, 2, 3]", "bool"),
    ("1 in dyn([1, 2, 3])", "bool"),
    ("type(null) == null_type", "bool"),
    ("type(type) == type", "bool"),
    ("([[[1]], [[2]], [[3]]][0][0] + [2, 3, {'four': {'five': 'six'}}])[3]", "dyn"),
    ("[1] + [dyn('string')]", "list(dyn)"),
    ("[dyn('string')] + [1]", "list(dyn)"),
    ("{}", "map(dyn, dyn)"),
    ("1 <= 1.0 && 1u <= 1.0 && 1.0 <= 1 && 1.0 <= 1u && 1 <= 1u && 1u <= 1", "bool"),
    ("1 < 1.0 && 1u < 1.0 && 1.0 < 1 && 1.0 < 1u && 1 < 1u && 1u < 1", "bool"),
    ("1 > 1.0 && 1u > 1.0 && 1.0 > 1 && 1.0 > 1u && 1 > 1u && 1u > 1", "bool"),
    ("1 >= 1.0 && 1u >= 1.0 && 1.0 >= 1 && 1.0 >= 1u && 1 >= 1u && 1u >= 1", "bool"),
    ("[1].map(x, [x, x]).map(x, [x, x])", "list(list(list(int)))"),
    ("[{}.map(c,c,c)]+[{}.map(c,c,c)]", "list(list(bool))"),
    ("{}.map(c,[c,type(c)])", "list(list(dyn))"),
    ("optional.none()", "optional_type(dyn)"),
    ("optional.of(1).orValue(2)", "int"),
    ("[?optional.of('a'), ?optional.none(), 'world']", "list(string)"),
    ("{?'key': {'a': 'b'}.?value}", "map(string, string)"),
    ("{?'key': {'a': 'b'}.?value}.key", "string"),
]


@pytest.mark.parametrize(("text", "expected"), TYPES)
def test_types(text: str, expected: str) -> None:
    assert _type(text, _celgo_env()) == expected


def test_identifier_types() -> None:
    env = _celgo_env(is_=t.STRING, ii=t.INT, iu=t.UINT, iz=t.BOOL, id=t.DOUBLE, ix=t.NULL, ib=t.BYTES)
    for name, expected in [
        ("ii", "int"),
        ("iu", "uint"),
        ("iz", "bool"),
        ("id", "double"),
        ("ix", "null"),
        ("ib", "bytes"),
    ]:
        assert _type(name, env) == expected
    assert _type("1 + ii", env) == "int"


def test_size_function_and_member_forms() -> None:
    assert _type("size(x) == x.size()", _celgo_env(x=t.list_of(t.INT))) == "bool"


def test_json_like_access() -> None:
    env = _celgo_env(x=t.map_of(t.STRING, t.DYN), y=t.list_of(t.DYN), z=t.DYN)
    text = (
        'x["claims"]["groups"][0].name == "dummy" && x.claims["exp"] == y[1].time'
        " && x.claims.structured == {'key': z} && z == 1.0"
    )
    assert _type(text, env) == "bool"


def test_map_with_dyn_index_is_dyn() -> None:
    env = _celgo_env(x=t.map_of(t.STRING, t.DYN))
    assert _type("x['a'] + x['b']", env) == "dyn"


def test_filter_and_map_over_objects() -> None:
    entry = t.ObjectType("Value", {"content": t.FieldDecl(t.STRING)})
    env = _celgo_env(values=t.list_of(entry))
    assert _type('values.filter(i, i.content != "").map(i, i.content)', env) == "list(string)"


def test_optional_selection_on_maps() -> None:
    env = _celgo_env(a=t.map_of(t.STRING, t.STRING))
    assert _type("a.?b", env) == "optional_type(string)"
    assert _type("type(a.?b) == optional_type", env) == "bool"
    assert _type("{?'nested': a.?b}", env) == "map(string, string)"
    assert _type("has(a.?b.c)", _celgo_env(a=t.optional_of(t.map_of(t.STRING, t.DYN)))) == "bool"
    env = _celgo_env(a=t.optional_of(t.map_of(t.STRING, t.STRING)))
    assert _type("a.b", env) == "optional_type(string)"
    env = _celgo_env(a=t.optional_of(t.DYN))
    assert _type("a.dynamic", env) == "optional_type(dyn)"
    assert _type("has(a.dynamic)", env) == "bool"


def test_optional_list_elements() -> None:
    env = _celgo_env(a=t.optional_of(t.STRING), b=t.optional_of(t.STRING))
    assert _type("[?a, ?b, 'world']", env) == "list(string)"


ERRORS = [
    ("foo", ["1:1: undeclared reference to 'foo' (in container '')"]),
    ("1 + x", ["1:5: undeclared reference to 'x' (in container '')"]),
    (
        "[].map(x, [].map(y, x in y && y in x))",
        ["1:33: found no matching overload for '@in' applied to '(list(dyn), dyn)'"],
    ),
    ("int{}", ["1:4: 'int' is not a message type"]),
    ("Msg{}", ["1:4: undeclared reference to 'Msg' (in container '')"]),
    ("fun()", ["1:4: undeclared reference to 'fun' (in container '')"]),
    ("'string'.fun()", ["1:13: undeclared reference to 'fun' (in container '')"]),
    ("[].length", ["1:3: type 'list(_var0)' does not support field selection"]),
    ("{?'key': 'hi'}", ["1:10: expected type 'optional_type(string)' but found 'string'"]),
    ("[?'value']", ["1:3: expected type 'optional_type(string)' but found 'string'"]),
    ("undef", ["1:1: undeclared reference to 'undef' (in container '')"]),
    ("undef()", ["1:6: undeclared reference to 'undef' (in container '')"]),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_errors(text: str, expected: list[str]) -> None:
    assert _errors(text, _celgo_env()) == expected


def test_comprehension_over_a_bool() -> None:
    env = _celgo_env(x=t.BOOL)
    assert _errors("x.all(y, y == true)", env) == [
        "1:1: expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)"
    ]
    obj = t.ObjectType("google.expr.proto3.test.TestAllTypes", {"single_int32": t.FieldDecl(t.INT)})
    assert _errors("x.all(e, 0)", _celgo_env(x=obj)) == [
        "1:1: expression of type 'google.expr.proto3.test.TestAllTypes' cannot be range of a comprehension (must be list, map, or dynamic)",
        "1:10: expected type 'bool' but found 'int'",
    ]


def test_iteration_variable_is_out_of_scope_after_the_macro() -> None:
    env = _celgo_env(x=t.list_of(t.INT))
    assert _errors("x.exists(y, y > 10) && y < 5", env) == [
        "1:24: undeclared reference to 'y' (in container '')"
    ]


def test_no_matching_overload_texts() -> None:
    obj = t.ObjectType("google.expr.proto3.test.TestAllTypes", {"single_int64": t.FieldDecl(t.INT)})
    env = _celgo_env(x=t.list_of(obj), y=t.list_of(t.INT), m=t.map_of(t.STRING, obj), o=obj)
    assert _errors("x + y", env) == [
        "1:3: found no matching overload for '_+_' applied to '(list(google.expr.proto3.test.TestAllTypes), list(int))'"
    ]
    assert _errors("x[1u]", env) == [
        "1:2: found no matching overload for '_[_]' applied to '(list(google.expr.proto3.test.TestAllTypes), uint)'"
    ]
    assert _errors("m[2].single_int32 == 23", env) == [
        "1:2: found no matching overload for '_[_]' applied to '(map(string, google.expr.proto3.test.TestAllTypes), int)'"
    ]
    assert _errors("o.single_int64 != null", env) == [
        "1:16: found no matching overload for '_!=_' applied to '(int, null)'"
    ]


def test_undefined_fields_are_reported_at_the_dot() -> None:
    nested = t.ObjectType("Nested", {"bb": t.FieldDecl(t.INT)})
    obj = t.ObjectType(
        "TestAllTypes", {"single_nested_message": t.FieldDecl(nested), "single_int32": t.FieldDecl(t.INT)}
    )
    env = _celgo_env(x=obj)
    text = "x.single_nested_message.undefined == x.undefined && has(x.single_int32)"
    assert _errors(text, env) == ["1:24: undefined field 'undefined'", "1:39: undefined field 'undefined'"]


def test_struct_field_errors_point_at_the_colon() -> None:
    env = dataclasses.replace(
        _celgo_env(),
        struct_types={
            "TestAllTypes": t.ObjectType(
                "TestAllTypes", {"single_int32": t.FieldDecl(t.INT), "single_int64": t.FieldDecl(t.INT)}
            )
        },
    )
    assert _type("TestAllTypes{single_int32: 1, single_int64: 2}", env) == "TestAllTypes"
    assert _errors("TestAllTypes{single_int32: 1u}", env) == [
        "1:26: expected type of field 'single_int32' is 'int' but provided type is 'uint'"
    ]
    assert _errors("TestAllTypes{single_int32: 1, undefined: 2}", env) == [
        "1:40: undefined field 'undefined'"
    ]
    assert _errors("TestAllTypes{?single_int32: 1}", env) == [
        "1:29: expected type 'optional_type(int)' but found 'int'"
    ]


def test_cross_type_comparisons_disabled_before_compat_1_28() -> None:
    env = build_environment("1.28", ExpressionKind.VARIABLE, has_params=False)
    assert not env.features.cross_type_numeric_comparisons
    text = "1 <= 1.0 && 1u <= 1.0 && 1.0 <= 1 && 1.0 <= 1u && 1 <= 1u && 1u <= 1"
    assert [e.split(";")[0] for e in _errors(text, env)] == [
        "1:3: found no matching overload for '_<=_' applied to '(int, double)'",
        "1:16: found no matching overload for '_<=_' applied to '(uint, double)'",
        "1:30: found no matching overload for '_<=_' applied to '(double, int)'",
        "1:42: found no matching overload for '_<=_' applied to '(double, uint)'",
        "1:53: found no matching overload for '_<=_' applied to '(int, uint)'",
        "1:65: found no matching overload for '_<=_' applied to '(uint, int)'",
    ]


def test_overload_filter_is_lost_once_a_comprehension_scope_was_entered() -> None:
    """cel-go's Env.enterScope/exitScope do not copy the overload filter."""
    env = build_environment("1.28", ExpressionKind.VARIABLE, has_params=False)
    assert _errors("[1].all(x, 1 < 1.0) && 2 < 2.0", env) == []
    assert len(_errors("2 < 2.0 && [1].all(x, 1 < 1.0)", env)) == 1


def test_homogeneous_aggregate_literals_in_the_checker_of_cel_go_0_16() -> None:
    """Kubernetes 1.28 (cel-go 0.16): the checker rejects mixed literals; later it is a validator."""
    env = build_environment("1.28", ExpressionKind.VARIABLE, has_params=False)
    assert _errors('[1, "A"]', env) == ["1:5: expected type 'int' but found 'string'"]
    assert _errors("{1:2u, 2u:3}", env) == [
        "1:8: expected type 'int' but found 'uint'",
        "1:11: expected type 'uint' but found 'int'",
    ]
    # dyn is assignable, and the more general type wins (the validator, not the checker,
    # rejects this one).
    assert _type("[1, dyn(2)]", env) == "list(dyn)"
