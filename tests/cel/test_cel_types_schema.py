"""OpenAPI v3 schema → CEL type (reference §3) and property-name escaping (§3.1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.environment import escape_field_name, schema_to_type

Schema = Mapping[str, Any]


def no_refs(schema: Schema) -> Schema:
    raise AssertionError(f"unexpected $ref {schema}")


def resolver(definitions: Mapping[str, Any], calls: list[str] | None = None) -> Callable[[Schema], Schema]:
    def resolve(schema: Schema) -> Schema:
        if calls is not None:
            calls.append(schema["$ref"])
        found: Schema = definitions[schema["$ref"]]
        return found

    return resolve


def convert(schema: Schema, **kw: Any) -> t.Type | None:
    return schema_to_type(schema, no_refs, "R", resource_root=False, **kw)


def field_type(obj: t.Type | None, *path: str) -> t.Type | None:
    current = obj
    for name in path:
        assert isinstance(current, t.ObjectType), current
        found = current.fields.get(name)
        if found is None:
            return None
        current = found.type
    return current


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string"}, t.STRING),
        ({"type": "string", "format": "byte"}, t.BYTES),
        ({"type": "string", "format": "duration"}, t.DURATION),
        ({"type": "string", "format": "date"}, t.TIMESTAMP),
        ({"type": "string", "format": "date-time"}, t.TIMESTAMP),
        ({"type": "string", "format": "email"}, t.STRING),
        ({"type": "boolean"}, t.BOOL),
        ({"type": "number"}, t.DOUBLE),
        ({"type": "number", "format": "double"}, t.DOUBLE),
        ({"type": "integer"}, t.INT),
        ({"type": "integer", "format": "int32"}, t.INT),
        ({"type": ["string"]}, t.STRING),
        ({"type": "string", "nullable": True}, t.STRING),
        ({"x-kubernetes-int-or-string": True}, t.DYN),
        ({"type": "string", "format": "int-or-string"}, t.DYN),
        ({"type": "integer", "x-kubernetes-int-or-string": True}, t.DYN),
        ({"type": "array", "items": {"type": "string"}}, t.list_of(t.STRING)),
        (
            {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
            t.list_of(t.list_of(t.INT)),
        ),
        ({"type": "array"}, None),
        ({"type": "array", "items": {}}, None),
        ({"type": "object", "additionalProperties": {"type": "string"}}, t.map_of(t.STRING, t.STRING)),
        ({"type": "object", "additionalProperties": {}}, None),
        ({}, None),
        ({"description": "no type"}, None),
    ],
)
def test_schema_rows(schema: Schema, expected: t.Type | None) -> None:
    assert convert(schema) == expected


def test_object_with_properties() -> None:
    obj = convert(
        {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "description": "the name"},
                "replicas": {"type": "integer", "default": 1},
                "untyped": {},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "junk": {"type": "object", "additionalProperties": {}},
            },
        }
    )
    assert isinstance(obj, t.ObjectType)
    assert obj.name == "R"
    assert set(obj.fields) == {"name", "replicas", "labels"}
    assert obj.fields["name"] == t.FieldDecl(t.STRING, "the name", required=True)
    assert obj.fields["replicas"] == t.FieldDecl(t.INT, has_default=True, default="1")
    assert obj.fields["labels"].type == t.map_of(t.STRING, t.STRING)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"type": "object", "additionalProperties": True},
        {"type": "object", "additionalProperties": False},
        {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    ],
)
def test_objects_without_properties_have_no_fields(schema: Schema) -> None:
    obj = convert(schema)
    assert isinstance(obj, t.ObjectType)
    assert obj.fields == {}
    assert obj.find_field("anything") is None


def test_preserve_unknown_fields_exposes_only_declared_properties() -> None:
    obj = convert(
        {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "properties": {"a": {"type": "string"}},
        }
    )
    assert isinstance(obj, t.ObjectType)
    assert set(obj.fields) == {"a"}


def test_type_names_follow_the_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "containers": {
                        "type": "array",
                        "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                    },
                    "byName": {
                        "type": "object",
                        "additionalProperties": {"type": "object", "properties": {"x": {"type": "integer"}}},
                    },
                    "x-y": {"type": "object", "properties": {}},
                },
            }
        },
    }
    root = schema_to_type(schema, no_refs, "Pod123", resource_root=False)
    assert isinstance(root, t.ObjectType)
    spec = field_type(root, "spec")
    assert t.format_cel_type(spec) == "Pod123.spec"  # type: ignore[arg-type]
    assert field_type(root, "spec", "containers") == t.list_of(t.ObjectType("Pod123.spec.containers.@idx"))
    assert field_type(root, "spec", "byName") == t.map_of(t.STRING, t.ObjectType("Pod123.spec.byName.@elem"))
    assert field_type(root, "spec", "x__dash__y") == t.ObjectType("Pod123.spec.x__dash__y")


def test_root_gets_type_and_object_meta_when_incomplete() -> None:
    root = schema_to_type(
        {
            "type": "object",
            "properties": {
                "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}},
                "spec": {"type": "object"},
            },
        },
        no_refs,
        "Widget1",
    )
    assert field_type(root, "apiVersion") == t.STRING
    assert field_type(root, "kind") == t.STRING
    metadata = field_type(root, "metadata")
    assert isinstance(metadata, t.ObjectType)
    assert set(metadata.fields) == {"name", "generateName"}  # metadata replaced, labels lost
    assert field_type(root, "spec") == t.ObjectType("Widget1.spec")


def test_root_with_complete_meta_is_kept() -> None:
    object_meta = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "generateName": {"type": "string"},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "creationTimestamp": {"type": "string", "format": "date-time"},
        },
    }
    definitions = {
        "io.k8s.api.apps.v1.Deployment": {
            "type": "object",
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"allOf": [{"$ref": "ObjectMeta"}], "default": {}, "description": "meta"},
            },
        },
        "ObjectMeta": object_meta,
    }
    root = schema_to_type({"$ref": "io.k8s.api.apps.v1.Deployment"}, resolver(definitions), "Deployment1")
    assert field_type(root, "metadata", "labels") == t.map_of(t.STRING, t.STRING)
    assert field_type(root, "metadata", "creationTimestamp") == t.TIMESTAMP
    assert isinstance(root, t.ObjectType)
    assert root.fields["metadata"].description == "meta"
    assert root.fields["metadata"].has_default


def test_root_without_type_is_not_exposed() -> None:
    assert schema_to_type({}, no_refs, "Thing1") is None


def test_embedded_resource_gets_type_and_object_meta() -> None:
    root = convert(
        {
            "type": "object",
            "properties": {
                "template": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {}},
                "plain": {"type": "object", "properties": {}},
            },
        }
    )
    assert field_type(root, "template", "metadata", "name") == t.STRING
    assert field_type(root, "template", "kind") == t.STRING
    assert field_type(root, "plain", "kind") is None


def test_cyclic_refs_become_empty_objects() -> None:
    definitions = {
        "Props": {
            "type": "object",
            "properties": {
                "not": {"$ref": "Props"},
                "items": {"type": "array", "items": {"$ref": "Props"}},
                "title": {"type": "string"},
            },
        }
    }
    root = schema_to_type({"$ref": "Props"}, resolver(definitions), "Schema1", resource_root=False)
    inner = field_type(root, "not")
    assert isinstance(inner, t.ObjectType)
    assert inner.fields == {}
    assert field_type(root, "items") == t.list_of(t.ObjectType("Schema1.items.@idx"))


def test_same_ref_in_sibling_branches_is_not_a_cycle() -> None:
    definitions = {"Port": {"type": "object", "properties": {"port": {"type": "integer"}}}}
    root = schema_to_type(
        {"type": "object", "properties": {"a": {"$ref": "Port"}, "b": {"$ref": "Port"}}},
        resolver(definitions),
        "R",
        resource_root=False,
    )
    assert field_type(root, "a", "port") == t.INT
    assert field_type(root, "b", "port") == t.INT


def test_conversion_is_lazy() -> None:
    calls: list[str] = []
    definitions = {
        f"D{i}": {"type": "object", "properties": {"next": {"$ref": f"D{i + 1}"}, "v": {"type": "integer"}}}
        for i in range(1000)
    }
    definitions["D1000"] = {"type": "string"}
    root = schema_to_type({"$ref": "D0"}, resolver(definitions, calls), "Big", resource_root=False)
    assert isinstance(root, t.ObjectType)
    assert calls == ["D0"]
    assert not root.is_resolved
    assert field_type(root, "next", "next", "v") == t.INT
    assert len(calls) < 10


def test_raw_names_kept_for_escaped_fields() -> None:
    obj = convert(
        {
            "type": "object",
            "properties": {
                "x-prop": {"type": "string"},
                "namespace": {"type": "string"},
                "plain": {"type": "string"},
                "9lives": {"type": "string"},
            },
        }
    )
    assert isinstance(obj, t.ObjectType)
    assert set(obj.fields) == {"x__dash__prop", "__namespace__", "plain"}
    assert obj.raw_names == {"x__dash__prop": "x-prop", "__namespace__": "namespace"}


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("name", "name"),
        ("_private", "_private"),
        ("foo-bar", "foo__dash__bar"),
        ("a.b", "a__dot__b"),
        ("a/b", "a__slash__b"),
        ("a__b", "a__underscores__b"),
        ("x___y", "x__underscores___y"),
        ("-lead", "__dash__lead"),
        ("kubernetes.io/role", "kubernetes__dot__io__slash__role"),
        ("namespace", "__namespace__"),
        ("in", "__in__"),
        ("true", "__true__"),
        ("while", "__while__"),
        ("int", "int"),
        ("1abc", None),
        ("", None),
        ("a b", None),
        ("a:b", None),
        ("über", None),
        ("a$", None),
    ],
)
def test_escape_field_name(raw: str, escaped: str | None) -> None:
    assert escape_field_name(raw) == escaped


# --- shapes: object types alike but for their names ---------------------------------------------

SHAPES = {
    "X": {
        "type": "object",
        "properties": {
            "a": {"$ref": "A", "description": "an A"},
            "b": {"$ref": "B", "description": "a B"},
            "c": {"$ref": "A", "description": "another A"},
            "d": {"allOf": [{"$ref": "A"}], "default": {}},
            "inline": {"type": "object", "properties": {"v": {"type": "integer"}}},
        },
    },
    "A": {"type": "object", "properties": {"b": {"$ref": "B"}, "v": {"type": "integer"}}},
    "B": {"type": "object", "properties": {"a": {"$ref": "A"}, "w": {"type": "string"}}},
}


def _object(obj: t.Type | None, *path: str) -> t.ObjectType:
    found = field_type(obj, *path) if path else obj
    assert isinstance(found, t.ObjectType)
    return found


def test_one_definition_reached_by_two_paths_has_one_shape_whatever_the_description() -> None:
    x = schema_to_type({"$ref": "X"}, resolver(SHAPES), "X", resource_root=False)
    a, c = _object(x, "a"), _object(x, "c")
    assert (a.name, c.name) == ("X.a", "X.c")
    assert a.shape is not None and a.shape == c.shape
    assert t.shape_of(t.list_of(a)) == t.shape_of(t.list_of(c))
    assert t.shape_of(t.list_of(a)) != t.shape_of(t.list_of(_object(x, "b")))
    # beside the reference, anything but a description may change the conversion
    assert _object(x, "d").shape != a.shape
    # an inline object stands for itself: another conversion's, of the same name, is not alike
    again = schema_to_type({"$ref": "X"}, resolver(SHAPES), "X", resource_root=False)
    inline = _object(x, "inline")
    assert inline.shape is None and inline == _object(again, "inline")
    assert t.shape_of(inline) == t.shape_of(inline) != t.shape_of(_object(again, "inline"))
    assert t.shape_of(t.list_of(t.STRING)) == t.list_of(t.STRING)


def test_a_definition_cut_as_a_cycle_on_one_path_has_another_shape() -> None:
    # X.a.b is a B whose `a` is cut (A is on the path: an empty object); X.b's `a` is a whole A.
    x = schema_to_type({"$ref": "X"}, resolver(SHAPES), "X", resource_root=False)
    ab, b = _object(x, "a", "b"), _object(x, "b")
    assert set(ab.fields) == set(b.fields) == {"a", "w"}
    assert field_type(ab, "a").fields == {}  # type: ignore[union-attr]
    assert set(field_type(b, "a").fields) == {"b", "v"}  # type: ignore[union-attr]
    assert ab.shape != b.shape
    # ...while the same definition reached without a relevant cycle is alike
    assert _object(x, "a", "b").shape == _object(x, "c", "b").shape


def test_built_in_kinds_share_shapes_by_definition() -> None:
    from vap_lsp.analysis.model.matching import GVK, object_type

    pod = object_type("1.34", GVK("", "v1", "Pod"))
    deployment = object_type("1.34", GVK("apps", "v1", "Deployment"))
    revision = object_type("1.34", GVK("apps", "v1", "ControllerRevision"))
    pod_spec = _object(pod, "spec")
    template_spec = _object(deployment, "spec", "template", "spec")
    assert pod_spec.name != template_spec.name
    assert pod_spec.shape == template_spec.shape
    containers = [field_type(spec, "containers") for spec in (pod_spec, template_spec)]
    assert containers[0] is not None and containers[1] is not None
    assert t.shape_of(containers[0]) == t.shape_of(containers[1])
    assert _object(revision, "metadata").shape == _object(pod, "metadata").shape
    assert _object(deployment, "spec").shape != pod_spec.shape
