# ruff: noqa: E501
"""The compile pipeline: phases, result-type check, server text, trimming, cache, timing."""

from __future__ import annotations

from typing import Any

from vap_lsp.cel import types as t
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment, schema_to_type
from vap_lsp.golang.strings import trim_space_offset as go_trim_space

K = ExpressionKind


def _env(version: str = "1.34", kind: ExpressionKind = K.VALIDATION, **kw: Any) -> Environment:
    kw.setdefault("has_params", False)
    return build_environment(version, kind, **kw)


def _typed_env() -> Environment:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}},
    }
    obj = schema_to_type(schema, lambda s: s, "Deployment1")
    assert obj is not None
    return build_environment("1.34", K.VALIDATION, has_params=False, object_type=obj, mode="stored")


def test_success() -> None:
    result = compile_expression("object.spec.replicas > 1", _env())
    assert result.ok
    assert result.issues == []
    assert result.output_type == t.BOOL
    assert result.render() is None


def test_server_text_of_a_check_error() -> None:
    result = compile_expression("object.replicas > 1", _typed_env())
    assert not result.ok
    assert [(i.phase, i.message, i.start, i.end) for i in result.issues] == [
        ("check", "undefined field 'replicas'", 6, 15)
    ]
    assert result.render() == (
        "compilation failed: ERROR: <input>:1:7: undefined field 'replicas'\n"
        " | object.replicas > 1\n"
        " | ......^"
    )


def test_several_errors_sorted_by_position() -> None:
    result = compile_expression("y > 1 && x", _env())
    assert result.render() == (
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'y' (in container '')\n"
        " | y > 1 && x\n"
        " | ^\n"
        "ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n"
        " | y > 1 && x\n"
        " | .........^"
    )


def test_syntax_errors_stop_before_the_check_but_types_remain() -> None:
    result = compile_expression("request.userInfo.", _env())
    assert [i.phase for i in result.issues] == ["syntax"]
    assert result.render() is not None
    assert result.render().startswith("compilation failed: ERROR: <input>:1:18: Syntax error:")  # type: ignore[union-attr]
    assert result.checked is not None
    assert t.format_cel_type(result.checked.types[1]) == "kubernetes.AdmissionRequest"


def test_result_type_errors() -> None:
    result = compile_expression("object.spec.enabled", _env())
    assert result.render() == "must evaluate to bool but got dyn"
    assert [(i.phase, i.message, i.start, i.end) for i in result.issues] == [
        ("result", "must evaluate to bool but got dyn", 0, 19)
    ]
    assert compile_expression("object.spec.enabled == true", _env()).ok
    message = _env(kind=K.MESSAGE_EXPRESSION)
    assert (
        compile_expression("object.metadata.name", message).render() == "must evaluate to string but got dyn"
    )
    assert compile_expression("'name: ' + object.metadata.name", message).ok
    audit = _env(kind=K.AUDIT_ANNOTATION)
    assert (
        compile_expression("object.metadata.name", audit).render()
        == "must evaluate to one of [string null_type] but got dyn"
    )
    assert compile_expression("null", audit).ok
    assert compile_expression("object.spec.enabled", _env("1.31")).render() == "must evaluate to bool"
    assert compile_expression("object.x", _env(kind=K.VARIABLE)).ok


def test_map_result_types() -> None:
    apply = _env(kind=K.MAP_APPLY_CONFIGURATION)
    assert compile_expression("Object{spec: Object.spec{replicas: 1}}", apply).ok
    assert (
        compile_expression("Object.spec.metadata{}", apply).render()
        == "must evaluate to Object but got Object.spec.metadata"
    )
    assert compile_expression("'a'", apply).render() == "must evaluate to Object but got string"
    patch = _env(kind=K.MAP_JSON_PATCH)
    assert compile_expression("[JSONPatch{op: 'remove', path: '/spec/x'}]", patch).ok
    assert compile_expression("[]", patch).render() == "must evaluate to list(JSONPatch) but got list(dyn)"
    assert (
        compile_expression("[{'op': 'add'}]", patch).render()
        == "must evaluate to list(JSONPatch) but got list(map(string, string))"
    )


def test_admission_scenarios_from_the_brief() -> None:
    assert compile_expression("request.uid == 'x'", _env()).issues[0].message == "undefined field 'uid'"
    assert compile_expression("namespaceObject.metadata.UID != ''", _env()).ok
    message = _env(kind=K.MESSAGE_EXPRESSION)
    assert compile_expression("authorizer.path('/').check('get').reason()", message).issues[0].message == (
        "undeclared reference to 'authorizer' (in container '')"
    )
    match = _env(kind=K.MATCH_CONDITION, variables={"a": t.BOOL})
    assert compile_expression("variables.a", match).issues[0].message == (
        "undeclared reference to 'variables' (in container '')"
    )
    assert compile_expression("params.x == 1", _env()).issues[0].message == (
        "undeclared reference to 'params' (in container '')"
    )
    assert compile_expression("params.x == 1", _env(has_params=True)).ok


def test_version_hint_is_not_in_the_server_text() -> None:
    result = compile_expression("ip('1.2.3.4').family() == 4", _env("1.30"))
    assert result.issues[0].message.endswith("; 'ip' is available from Kubernetes 1.31")
    assert result.issues[0].cel_message == "undeclared reference to 'ip' (in container '')"
    assert "available" not in (result.render() or "")
    assert compile_expression("ip('1.2.3.4').family() == 4", _env("1.31")).ok


def test_trimmed_expressions_keep_original_offsets() -> None:
    text = "\n  object.replicas > 1 \n"
    result = compile_expression(text, _typed_env(), trim=True)
    assert result.compiled_text == "object.replicas > 1"
    assert result.offset == 3
    issue = result.issues[0]
    assert text[issue.start : issue.end] == ".replicas"
    # the server's columns count from the trimmed text
    assert result.render() == (
        "compilation failed: ERROR: <input>:1:7: undefined field 'replicas'\n"
        " | object.replicas > 1\n"
        " | ......^"
    )
    untrimmed = compile_expression(text, _typed_env())
    assert untrimmed.render() == (
        "compilation failed: ERROR: <input>:2:9: undefined field 'replicas'\n"
        " |   object.replicas > 1 \n"
        " | ........^"
    )
    assert untrimmed.issues[0].start == issue.start


def test_go_trim_space() -> None:
    assert go_trim_space(" \t\u00a0a b\u3000\n") == ("a b", 3)
    assert go_trim_space("\x1ca\x1f") == ("\x1ca\x1f", 0)  # not spaces for Go
    assert go_trim_space("   ") == ("", 3)


def test_multiline_expression_columns() -> None:
    text = "object.spec.replicas > 1 &&\n  request.uid == 'a'"
    result = compile_expression(text, _env())
    assert result.render() == (
        "compilation failed: ERROR: <input>:2:10: undefined field 'uid'\n |   request.uid == 'a'\n | .........^"
    )


def test_cache_is_keyed_by_text_and_environment() -> None:
    env = _env()
    first = compile_expression("object.a == 1", env)
    assert compile_expression("object.a == 1", env) is first
    assert compile_expression("object.a == 1", env, trim=True) is not first
    assert compile_expression("object.a == 1", _env()) is not first


def test_macros_follow_the_environment() -> None:
    old = _env("1.32")
    result = compile_expression("[1].all(i, v, v > 0)", old)
    assert result.issues[-1].message.endswith("'all' with 3 arguments is available from Kubernetes 1.33")
    assert compile_expression("[1].all(i, v, v > 0)", _env("1.33")).ok


def test_backtick_identifiers_are_not_enabled() -> None:
    result = compile_expression("object.`a-b` == 1", _env())
    assert [i.message for i in result.issues] == ["unsupported syntax: '`'"]
