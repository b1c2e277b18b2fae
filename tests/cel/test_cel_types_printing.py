"""Type printing: cel-go `FormatCELType` (checker messages) vs `Type.String()` (k8s messages)."""

from __future__ import annotations

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.library.kubernetes import IP, QUANTITY

CASES = [
    # (type, FormatCELType, Type.String())
    (t.INT, "int", "int"),
    (t.UINT, "uint", "uint"),
    (t.DOUBLE, "double", "double"),
    (t.BOOL, "bool", "bool"),
    (t.STRING, "string", "string"),
    (t.BYTES, "bytes", "bytes"),
    (t.NULL, "null", "null_type"),
    (t.DYN, "dyn", "dyn"),
    (t.ANY, "any", "google.protobuf.Any"),
    (t.ERROR, "!error!", "error"),
    (t.TIMESTAMP, "timestamp", "google.protobuf.Timestamp"),
    (t.DURATION, "duration", "google.protobuf.Duration"),
    (t.TYPE, "type", "type"),
    (t.type_of(t.INT), "type(int)", "type(int)"),
    (t.list_of(t.STRING), "list(string)", "list(string)"),
    (t.map_of(t.STRING, t.DYN), "map(string, dyn)", "map(string, dyn)"),
    (t.list_of(t.TIMESTAMP), "list(timestamp)", "list(google.protobuf.Timestamp)"),
    (t.optional_of(t.INT), "optional_type(int)", "optional_type(int)"),
    (t.type_param("A"), "A", "<A>"),
    (t.list_of(t.type_param("T")), "list(T)", "list(<T>)"),
    (IP, "net.IP", "net.IP"),
    (QUANTITY, "kubernetes.Quantity", "kubernetes.Quantity"),
    (t.ObjectType("Deployment1.spec"), "Deployment1.spec", "Deployment1.spec"),
    (t.map_of(t.STRING, t.list_of(t.NULL)), "map(string, list(null))", "map(string, list(null_type))"),
]


@pytest.mark.parametrize(("typ", "formatted", "string"), CASES, ids=[c[1] for c in CASES])
def test_printing(typ: t.Type, formatted: str, string: str) -> None:
    assert t.format_cel_type(typ) == formatted
    assert str(typ) == formatted
    assert t.type_string(typ) == string


def test_go_list_string_matches_k8s_audit_annotation_message() -> None:
    assert t.go_list_string([t.STRING, t.NULL]) == "[string null_type]"


def test_function_signature_formats_like_no_matching_overload() -> None:
    assert t.format_function_signature(None, [t.INT, t.STRING], is_instance=False) == "(int, string)"
    assert t.format_function_signature(None, [t.STRING, t.INT], is_instance=True) == "string.(int)"
    assert t.format_function_signature(t.BOOL, [t.DYN], is_instance=False) == "(dyn) -> bool"
    assert t.format_cel_type(t.function_type(t.BOOL, [t.INT])) == "(int) -> bool"


def test_types_are_immutable_values() -> None:
    assert t.list_of(t.INT) == t.list_of(t.INT)
    assert hash(t.map_of(t.STRING, t.INT)) == hash(t.map_of(t.STRING, t.INT))
    assert t.list_of(t.INT) != t.list_of(t.UINT)
    assert t.ObjectType("a.b") == t.ObjectType("a.b", {"x": t.FieldDecl(t.INT)})
    with pytest.raises(AttributeError):
        setattr(t.INT, "name", "x")  # noqa: B010


def test_equivalent_ignores_type_param_names() -> None:
    assert t.is_equivalent_type(t.list_of(t.type_param("A")), t.list_of(t.type_param("B")))
    assert not t.is_exact_type(t.list_of(t.type_param("A")), t.list_of(t.type_param("B")))
