"""Declared variables, result-type rules and named types per expression kind."""

from __future__ import annotations

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.environment import (
    JSONPATCH,
    NAMESPACE_TYPE,
    PATCH_OBJECT,
    REQUEST_TYPE,
    ExpressionKind,
    build_environment,
    result_type_error,
    variable_field_type,
)
from vap_lsp.cel.library.kubernetes import AUTHORIZER, IP, RESOURCE_CHECK

K = ExpressionKind


def test_base_variables_of_a_validation() -> None:
    env = build_environment("1.31", K.VALIDATION, has_params=False)
    assert env.variables == {
        "object": t.DYN,
        "oldObject": t.DYN,
        "namespaceObject": NAMESPACE_TYPE,
        "request": REQUEST_TYPE,
        "authorizer": AUTHORIZER,
        "authorizer.requestResource": RESOURCE_CHECK,
    }


def test_params_only_with_param_kind() -> None:
    assert build_environment("1.31", K.VALIDATION, has_params=False).find_variable("params") is None
    env = build_environment("1.31", K.VALIDATION, has_params=True, params_type=t.ObjectType("ConfigMap1"))
    assert env.find_variable("params") == t.ObjectType("ConfigMap1")


def test_authorizer_absent_in_message_expression() -> None:
    env = build_environment("1.31", K.MESSAGE_EXPRESSION, has_params=False, variables={})
    assert env.find_variable("authorizer") is None
    assert env.find_variable("authorizer.requestResource") is None
    for kind in (K.AUDIT_ANNOTATION, K.MATCH_CONDITION, K.VARIABLE, K.MAP_JSON_PATCH):
        assert build_environment("1.33", kind, has_params=False).find_variable("authorizer") == AUTHORIZER


def test_type_check_controller_omits_request_resource_authorizer() -> None:
    env = build_environment(
        "1.31", K.VALIDATION, has_params=False, mode="stored", declare_request_resource_authorizer=False
    )
    assert env.find_variable("authorizer") == AUTHORIZER
    assert env.find_variable("authorizer.requestResource") is None


def test_variables_absent_in_match_condition() -> None:
    env = build_environment("1.31", K.MATCH_CONDITION, has_params=False, variables={"a": t.INT})
    assert env.find_variable("variables") is None


def test_variables_declared_only_when_composited() -> None:
    assert build_environment("1.31", K.VALIDATION, has_params=False).find_variable("variables") is None
    env = build_environment(
        "1.31", K.VALIDATION, has_params=False, variables={"a": t.INT, "o": t.ObjectType("X")}
    )
    variables = env.find_variable("variables")
    assert isinstance(variables, t.ObjectType)
    assert variables.name == "kubernetes.variables"
    assert variables.fields["a"].type == t.INT
    assert variables.fields["o"].type == t.DYN
    assert variables.find_field("later") is None
    for kind in (K.VARIABLE, K.MAP_APPLY_CONFIGURATION, K.MAP_JSON_PATCH):
        declared = build_environment("1.33", kind, has_params=False).find_variable("variables")
        assert isinstance(declared, t.ObjectType)
        assert declared.fields == {}


@pytest.mark.parametrize(
    ("inferred", "field"),
    [
        (t.INT, t.INT),
        (t.TIMESTAMP, t.TIMESTAMP),
        (t.NULL, t.NULL),
        (t.list_of(t.STRING), t.list_of(t.STRING)),
        (t.map_of(t.STRING, t.list_of(IP)), t.map_of(t.STRING, t.list_of(t.DYN))),
        (t.optional_of(t.INT), t.DYN),
        (t.type_of(t.INT), t.DYN),
        (IP, t.DYN),
        (t.ObjectType("Deployment1.spec"), t.DYN),
        (t.ERROR, t.DYN),
    ],
)
def test_variable_field_type_conversion(inferred: t.Type, field: t.Type) -> None:
    assert variable_field_type(inferred) == field


def test_object_types_and_typed_object() -> None:
    obj = t.ObjectType("Deployment1", {"spec": t.FieldDecl(t.ObjectType("Deployment1.spec"))})
    env = build_environment("1.31", K.VALIDATION, has_params=False, object_type=obj, mode="stored")
    assert env.find_variable("oldObject") == obj
    assert env.find_struct_type("Deployment1.spec") == t.ObjectType("Deployment1.spec")
    assert env.find_struct_type("Deployment1.status") is None
    assert env.find_struct_type("kubernetes.UserInfo") is not None
    assert env.find_struct_type("Object") is None


def test_patch_types_only_for_mutations() -> None:
    env = build_environment("1.34", K.MAP_APPLY_CONFIGURATION, has_params=False)
    assert env.find_struct_type("Object") == PATCH_OBJECT
    nested = env.find_struct_type("Object.spec.template")
    assert nested is not None
    assert nested.find_field("anything") == t.FieldDecl(t.DYN)
    assert env.find_struct_type("JSONPatch") == JSONPATCH
    assert env.find_type_identifier("JSONPatch") == t.type_of(JSONPATCH)
    assert env.find_function("jsonpatch.escapeKey") is not None
    variable_env = build_environment("1.34", K.VARIABLE, has_params=False)
    assert variable_env.find_struct_type("Object") is None
    assert variable_env.find_function("jsonpatch.escapeKey") is None


def test_request_and_namespace_types() -> None:
    assert set(REQUEST_TYPE.fields) == {
        "kind",
        "resource",
        "subResource",
        "requestKind",
        "requestResource",
        "requestSubResource",
        "name",
        "namespace",
        "operation",
        "userInfo",
        "dryRun",
        "options",
    }
    assert REQUEST_TYPE.find_field("uid") is None
    user_info = REQUEST_TYPE.fields["userInfo"].type
    assert isinstance(user_info, t.ObjectType)
    assert user_info.fields["extra"].type == t.map_of(t.STRING, t.list_of(t.STRING))
    assert not REQUEST_TYPE.fields["namespace"].required
    assert REQUEST_TYPE.fields["kind"].required
    metadata = NAMESPACE_TYPE.fields["metadata"].type
    assert isinstance(metadata, t.ObjectType)
    assert metadata.fields["UID"].type == t.STRING
    assert metadata.fields["creationTimestamp"].type == t.TIMESTAMP
    status = NAMESPACE_TYPE.fields["status"].type
    assert isinstance(status, t.ObjectType)
    assert t.format_cel_type(status.fields["conditions"].type) == "list(kubernetes.NamespaceCondition)"


@pytest.mark.parametrize(
    ("kind", "output", "version", "message"),
    [
        (K.VALIDATION, t.DYN, "1.32", "must evaluate to bool but got dyn"),
        (K.VALIDATION, t.DYN, "1.31", "must evaluate to bool"),
        (K.VALIDATION, t.BOOL, "1.31", None),
        (K.MESSAGE_EXPRESSION, t.DYN, "1.33", "must evaluate to string but got dyn"),
        (K.AUDIT_ANNOTATION, t.DYN, "1.33", "must evaluate to one of [string null_type] but got dyn"),
        (K.AUDIT_ANNOTATION, t.DYN, "1.30", "must evaluate to one of [string null_type]"),
        (K.AUDIT_ANNOTATION, t.NULL, "1.30", None),
        (K.MATCH_CONDITION, t.TIMESTAMP, "1.34", "must evaluate to bool but got google.protobuf.Timestamp"),
        (K.VARIABLE, t.DYN, "1.30", None),
        (K.MAP_APPLY_CONFIGURATION, t.ObjectType("Object"), "1.34", None),
        (
            K.MAP_APPLY_CONFIGURATION,
            t.ObjectType("Object.spec.metadata"),
            "1.34",
            "must evaluate to Object but got Object.spec.metadata",
        ),
        (K.MAP_APPLY_CONFIGURATION, t.STRING, "1.34", "must evaluate to Object but got string"),
        (K.MAP_JSON_PATCH, t.list_of(JSONPATCH), "1.34", None),
        (K.MAP_JSON_PATCH, t.list_of(t.DYN), "1.34", "must evaluate to list(JSONPatch) but got list(dyn)"),
    ],
)
def test_result_type_errors(kind: ExpressionKind, output: t.Type, version: str, message: str | None) -> None:
    assert result_type_error(kind, output, version) == message


def test_features_by_version_and_mode() -> None:
    new_128 = build_environment("1.28", K.VALIDATION, has_params=False).features
    assert not new_128.optional_syntax
    assert not new_128.cross_type_numeric_comparisons
    assert not new_128.literal_validators
    stored_128 = build_environment("1.28", K.VALIDATION, has_params=False, mode="stored").features
    assert stored_128.optional_syntax
    assert stored_128.cross_type_numeric_comparisons
    assert not build_environment(
        "1.31", K.VALIDATION, has_params=False
    ).features.recognize_keyword_field_names
    assert build_environment("1.32", K.VALIDATION, has_params=False).features.recognize_keyword_field_names
    assert build_environment(
        "1.31", K.VALIDATION, has_params=False, mode="stored"
    ).features.recognize_keyword_field_names
    assert not build_environment(
        "1.30", K.VALIDATION, has_params=False, mode="stored"
    ).features.recognize_keyword_field_names


def test_keyword_field_lookup_follows_environment() -> None:
    obj = t.ObjectType("o", {"__namespace__": t.FieldDecl(t.STRING)})
    assert build_environment("1.31", K.VALIDATION, has_params=False).find_field(obj, "namespace") is None
    assert build_environment("1.32", K.VALIDATION, has_params=False).find_field(obj, "namespace") is not None


def test_type_identifiers() -> None:
    env = build_environment("1.31", K.VALIDATION, has_params=False)
    assert env.find_type_identifier("int") == t.type_of(t.INT)
    assert env.find_type_identifier("list") == t.type_of(t.list_of(t.type_param("A")))
    assert env.find_type_identifier("type") == t.type_of(t.TYPE)
    assert env.find_type_identifier("google.protobuf.Timestamp") == t.type_of(t.TIMESTAMP)
    assert env.find_type_identifier("optional_type") is not None
    assert env.find_type_identifier("kubernetes.Namespace") == t.type_of(NAMESPACE_TYPE)
    assert (
        build_environment("1.28", K.VALIDATION, has_params=False).find_type_identifier("optional_type")
        is None
    )


def test_environment_lookups_and_hints() -> None:
    env = build_environment("1.30", K.VALIDATION, has_params=False)
    assert env.find_function("ip") is None
    assert env.function_introduced_in("ip") == "1.31"
    assert env.find_macro("all", 3, True) is None
    assert env.macro_introduced_in("all", 3, True) == "1.33"
    assert env.find_macro("all", 2, True) is not None
    stored = build_environment("1.28", K.VALIDATION, has_params=False, mode="stored")
    assert stored.function_introduced_in("ip") == "1.30"
    hints = build_environment("1.28", K.VALIDATION, has_params=False).unavailable_overloads("_<_")
    assert "less_int64_double" in {o.id for o in hints}
    nested = build_environment("1.28", K.VALIDATION, has_params=False).find_function("_<_", nested_scope=True)
    assert nested is not None
    assert len(nested.overloads) == 14


def test_version_is_normalised() -> None:
    assert build_environment("v1.33.2", K.VALIDATION, has_params=False).kubernetes_version == "1.33"
