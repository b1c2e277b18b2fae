"""Assignability as cel-go `checker/types.go` decides it, incl. type-parameter unification."""

from __future__ import annotations

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.library.kubernetes import IP, URL

A, B = t.type_param("A"), t.type_param("B")
OBJ = t.ObjectType("Deployment1.spec")

# (value type, expected type, assignable)
MATRIX = [
    (t.INT, t.INT, True),
    (t.INT, t.UINT, False),
    (t.INT, t.DOUBLE, False),
    (t.STRING, t.BYTES, False),
    (t.INT, t.DYN, True),
    (t.DYN, t.INT, True),
    (t.ANY, t.STRING, True),
    (t.ERROR, t.STRING, True),
    (t.list_of(t.INT), t.list_of(t.DYN), True),
    (t.list_of(t.DYN), t.list_of(t.INT), True),
    (t.list_of(t.INT), t.list_of(t.STRING), False),
    (t.map_of(t.STRING, t.INT), t.map_of(t.STRING, t.DYN), True),
    (t.map_of(t.STRING, t.INT), t.list_of(t.INT), False),
    (t.optional_of(t.INT), t.optional_of(t.DYN), True),
    (t.optional_of(t.INT), t.optional_of(t.STRING), False),
    (t.type_of(t.INT), t.type_of(t.STRING), True),  # TypeKind: any type(…) matches
    (t.type_of(t.INT), t.INT, False),
    (OBJ, OBJ, True),
    (OBJ, t.ObjectType("Deployment1.status"), False),
    (URL, URL, True),
    (IP, t.opaque("net.CIDR"), False),
    # null: legacy-nullable kinds only
    (t.NULL, t.NULL, True),
    (t.NULL, t.DYN, True),
    (t.NULL, OBJ, True),
    (t.NULL, IP, True),
    (t.NULL, t.optional_of(t.INT), True),
    (t.NULL, t.TIMESTAMP, True),
    (t.NULL, t.DURATION, True),
    (t.NULL, t.ANY, True),
    (t.NULL, t.STRING, False),
    (t.NULL, t.INT, False),
    (t.NULL, t.BOOL, False),
    (t.NULL, t.list_of(t.INT), False),
    (t.NULL, t.map_of(t.STRING, t.STRING), False),
    (t.STRING, t.NULL, False),
    (OBJ, t.NULL, True),
]


@pytest.mark.parametrize(("value", "expected", "ok"), MATRIX, ids=[f"{v}->{e}" for v, e, _ in MATRIX])
def test_assignability_matrix(value: t.Type, expected: t.Type, ok: bool) -> None:
    assert (t.is_assignable(t.TypeMapping(), value, expected) is not None) is ok


def test_type_param_binds_and_then_constrains() -> None:
    m = t.is_assignable_list(t.TypeMapping(), [t.INT, t.list_of(t.INT)], [A, t.list_of(A)])
    assert m is not None
    assert m.find(A) == t.INT
    assert t.is_assignable_list(t.TypeMapping(), [t.INT, t.list_of(t.STRING)], [A, t.list_of(A)]) is None


def test_dyn_widens_a_bound_type_param() -> None:
    m = t.is_assignable_list(t.TypeMapping(), [t.INT, t.DYN], [A, A])
    assert m is not None
    assert t.substitute(m, A, type_param_to_dyn=False) == t.DYN


def test_map_index_result_substitution() -> None:
    m = t.is_assignable_list(t.TypeMapping(), [t.map_of(t.STRING, t.BOOL), t.STRING], [t.map_of(A, B), A])
    assert m is not None
    assert t.substitute(m, B, type_param_to_dyn=False) == t.BOOL


def test_unbound_type_params_become_dyn_on_request() -> None:
    m = t.TypeMapping()
    assert t.substitute(m, t.list_of(A), type_param_to_dyn=True) == t.list_of(t.DYN)
    assert t.substitute(m, t.list_of(A), type_param_to_dyn=False) == t.list_of(A)


def test_occurs_check_rejects_recursive_binding() -> None:
    assert t.is_assignable(t.TypeMapping(), t.list_of(A), A) is None


def test_is_assignable_does_not_mutate_on_failure() -> None:
    m = t.TypeMapping()
    assert t.is_assignable_list(m, [t.INT, t.STRING], [A, A]) is None
    assert m.find(A) is None


def test_most_general() -> None:
    assert t.most_general(t.DYN, t.INT) == t.DYN
    assert t.most_general(t.list_of(t.INT), t.list_of(t.DYN)) == t.list_of(t.DYN)
    assert t.most_general(t.INT, t.INT) == t.INT


@pytest.mark.parametrize(
    ("first", "second", "compatible"),
    [
        (t.INT, t.INT, True),
        (t.INT, t.STRING, False),  # [1, 'a'] is an error (HomogeneousAggregateLiterals)
        (t.INT, t.DOUBLE, False),
        (t.INT, t.DYN, True),
        (t.NULL, t.STRING, False),
        (t.NULL, OBJ, True),
        (t.list_of(t.INT), t.list_of(t.DYN), True),
    ],
)
def test_homogeneous_literal_elements(first: t.Type, second: t.Type, compatible: bool) -> None:
    assert t.element_types_compatible(first, second) is compatible


def test_join_keeps_the_more_general_type() -> None:
    joined = t.join_element_types(t.TypeMapping(), t.INT, t.DYN)
    assert joined is not None
    assert joined[0] == t.DYN
    first = t.join_element_types(t.TypeMapping(), None, t.INT)
    assert first is not None
    assert first[0] == t.INT
    assert t.join_element_types(t.TypeMapping(), t.INT, t.STRING) is None


def test_nullability_helpers() -> None:
    assert t.is_assignable_null(t.TIMESTAMP)
    assert not t.is_assignable_null(t.STRING)
    assert t.is_optional(t.optional_of(t.INT))
    assert t.maybe_unwrap_optional(t.optional_of(t.INT)) == (t.INT, True)
    assert t.maybe_unwrap_optional(t.INT) == (t.INT, False)


def test_object_type_fields_and_keywords() -> None:
    obj = t.ObjectType(
        "x", {"__namespace__": t.FieldDecl(t.STRING), "name": t.FieldDecl(t.STRING, required=True)}
    )
    assert obj.find_field("name") == t.FieldDecl(t.STRING, required=True)
    assert obj.find_field("namespace") is None
    assert obj.find_field("namespace", recognize_keywords=True) == t.FieldDecl(t.STRING)
    open_obj = t.ObjectType("Object", open_field_type=t.DYN)
    assert open_obj.find_field("anything") == t.FieldDecl(t.DYN)


def test_lazy_object_fields_are_computed_once() -> None:
    calls: list[int] = []

    def thunk() -> t.FieldTable:
        calls.append(1)
        return {"a": t.FieldDecl(t.INT)}, {}

    obj = t.ObjectType("lazy", thunk)
    assert not obj.is_resolved
    assert obj.find_field("a") is not None
    assert obj.fields["a"].type == t.INT
    assert calls == [1]
