"""Protobuf well-known types as cel-go resolves them through its default type registry.

Kubernetes passes type names it does not declare on to cel-go's registry, so
`google.protobuf.Int64Value` is `type(wrapper(int))` and can be constructed
(cel-go `common/types/types.go` checkedWellKnowns, `checker/checker.go` checkCreateStruct).
"""

from __future__ import annotations

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment


@pytest.fixture(scope="module")
def env() -> Environment:
    return build_environment("1.34", ExpressionKind.VARIABLE, has_params=False)


def _type(env: Environment, text: str) -> str:
    result = compile_expression(text, env)
    assert result.ok, [i.message for i in result.issues]
    assert result.output_type is not None
    return t.format_cel_type(result.output_type)


def _errors(env: Environment, text: str) -> list[str]:
    return [i.message for i in compile_expression(text, env).issues if i.severity == "error"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("google.protobuf.Any", "type(any)"),
        ("google.protobuf.Int64Value", "type(wrapper(int))"),
        ("google.protobuf.Int32Value", "type(wrapper(int))"),
        ("google.protobuf.UInt64Value", "type(wrapper(uint))"),
        ("google.protobuf.UInt32Value", "type(wrapper(uint))"),
        ("google.protobuf.DoubleValue", "type(wrapper(double))"),
        ("google.protobuf.FloatValue", "type(wrapper(double))"),
        ("google.protobuf.BoolValue", "type(wrapper(bool))"),
        ("google.protobuf.StringValue", "type(wrapper(string))"),
        ("google.protobuf.BytesValue", "type(wrapper(bytes))"),
        ("google.protobuf.Struct", "type(map(string, dyn))"),
        ("google.protobuf.Value", "type(dyn)"),
        ("google.protobuf.ListValue", "type(list(dyn))"),
        ("google.protobuf.Timestamp", "type(timestamp)"),
        ("google.protobuf.Duration", "type(duration)"),
        ("google.protobuf.Empty", "type(google.protobuf.Empty)"),
        ("google.protobuf.NullValue.NULL_VALUE", "int"),
        ("type(1) == google.protobuf.Int64Value", "bool"),
    ],
)
def test_type_names(env: Environment, text: str, expected: str) -> None:
    assert _type(env, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("google.protobuf.Int64Value{value: 1}", "wrapper(int)"),
        ("google.protobuf.Int32Value{value: 1}", "wrapper(int)"),
        ("google.protobuf.FloatValue{value: 1.5}", "wrapper(double)"),
        ("google.protobuf.StringValue{}", "wrapper(string)"),
        ("google.protobuf.Timestamp{seconds: 1}", "timestamp"),
        ("google.protobuf.Duration{seconds: 1, nanos: 2}", "duration"),
        ("google.protobuf.Struct{fields: {'a': 1}}", "map(string, dyn)"),
        ("google.protobuf.ListValue{values: [1]}", "list(dyn)"),
        ("google.protobuf.Value{string_value: 'a'}", "dyn"),
        ("google.protobuf.Any{type_url: 'x', value: b'y'}", "any"),
        ("google.protobuf.Empty{}", "google.protobuf.Empty"),
        # wrapper(T) is usable where T is expected, and null where wrapper(T) is.
        ("google.protobuf.Int64Value{value: 1} + 2", "int"),
        ("int(google.protobuf.Int64Value{value: 1})", "int"),
        ("google.protobuf.Int64Value{value: 1} == null", "bool"),
        ("google.protobuf.BoolValue{value: true} && true", "bool"),
        ("[google.protobuf.Int64Value{value: 1}, 2]", "list(wrapper(int))"),
    ],
)
def test_construction_and_assignability(env: Environment, text: str, expected: str) -> None:
    assert _type(env, text) == expected


def test_field_errors_name_the_message_fields(env: Environment) -> None:
    assert _errors(env, "google.protobuf.Int64Value{foo: 1}") == ["undefined field 'foo'"]
    assert _errors(env, "google.protobuf.Int32Value{value: 'a'}") == [
        "expected type of field 'value' is 'int' but provided type is 'string'"
    ]


def test_wrapper_type_rules() -> None:
    wrapped = t.wrapper_of(t.INT)
    assert t.format_cel_type(wrapped) == "wrapper(int)"
    assert t.type_string(t.list_of(wrapped)) == "list(wrapper(int))"
    # cel-go's IsExactType compares kind, name and parameters: a wrapper is exactly its primitive.
    assert t.is_exact_type(wrapped, t.INT)
    assert wrapped != t.INT and hash(wrapped) != hash(t.INT)  # distinct cache keys
    assert t.is_assignable_type(wrapped, t.INT)
    assert t.is_assignable_type(wrapped, t.NULL)
    assert not t.is_assignable_type(t.INT, t.NULL)
    assert t.is_assignable_null(wrapped)
    m = t.TypeMapping()
    assert t.is_assignable(m, wrapped, t.INT) is not None
    assert t.is_assignable(m, t.NULL, wrapped) is not None
    assert t.is_assignable(m, t.NULL, t.INT) is None


def test_wrapper_result_is_exactly_its_primitive() -> None:
    # `IsExactType(wrapper(bool), bool)` holds in cel-go, so a validation may return a wrapper.
    env = build_environment("1.34", ExpressionKind.VALIDATION, has_params=False)
    assert compile_expression("google.protobuf.BoolValue{value: true}", env).ok
