"""Small helpers to navigate schemas the way the API server's Go types are laid out.

Kept apart from the loader so hover, completion and structural checking share one notion of
"the schema of field X" and "the Go type name of this schema".
"""

from __future__ import annotations

from vap_lsp.schema.store import JsonDict, SchemaSet

PathElem = str | int

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"


def go_struct_name(definition: str) -> str:
    """io.k8s.api.admissionregistration.v1.MatchResources -> MatchResources."""
    return definition.rsplit(".", 1)[-1]


def go_named_type(definition: str) -> str:
    """io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector -> v1.LabelSelector (reflect.Type.String())."""
    parts = definition.rsplit(".", 2)
    return ".".join(parts[-2:]) if len(parts) >= 2 else definition


def go_type(schema: JsonDict) -> str:
    """Go type string of a field schema (unresolved: a `$ref` names a package-qualified type)."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return go_named_type(ref)
    t = schema.get("type")
    fmt = schema.get("format")
    if t == "array":
        items = schema.get("items")
        return "[]" + (go_type(items) if isinstance(items, dict) else "interface {}")
    if t == "object":
        ap = schema.get("additionalProperties")
        if isinstance(ap, dict):
            return "map[string]" + go_type(ap)
        return "map[string]interface {}"
    if t == "string":
        return "[]uint8" if fmt == "byte" else "string"
    if t == "integer":
        return fmt if fmt in ("int32", "int64") else "int"
    if t == "number":
        return "float32" if fmt == "float" else "float64"
    if t == "boolean":
        return "bool"
    return "interface {}"


def property_schema(schema_set: SchemaSet, schema: JsonDict, name: str) -> JsonDict | None:
    """Schema of property `name` of an object schema (after resolving `$ref`s), or None."""
    resolved = schema_set.resolve(schema)
    props = resolved.get("properties")
    if isinstance(props, dict):
        p = props.get(name)
        if isinstance(p, dict):
            return p
    ap = resolved.get("additionalProperties")
    if isinstance(ap, dict):
        return ap
    return None


def items_schema(schema_set: SchemaSet, schema: JsonDict) -> JsonDict | None:
    resolved = schema_set.resolve(schema)
    items = resolved.get("items")
    return items if isinstance(items, dict) else None


def schema_at(schema_set: SchemaSet, definition: str, path: tuple[PathElem, ...]) -> JsonDict | None:
    """Schema at a document path (strings are fields/map keys, ints are list indices)."""
    current: JsonDict | None = schema_set.definition(definition)
    for elem in path:
        if current is None:
            return None
        current = (
            items_schema(schema_set, current)
            if isinstance(elem, int)
            else property_schema(schema_set, current, elem)
        )
    return schema_set.resolve(current) if current is not None else None


def accepts_anything(schema: JsonDict) -> bool:
    """Free-form values: RawExtension, FieldsV1, JSON, preserve-unknown-fields, untyped schemas."""
    if schema.get("x-kubernetes-preserve-unknown-fields") is True:
        return True
    if schema.get("x-kubernetes-embedded-resource") is True and "properties" not in schema:
        return True
    t = schema.get("type")
    if t is None and not any(k in schema for k in ("oneOf", "anyOf", "properties", "items")):
        return True
    return t == "object" and "properties" not in schema and "additionalProperties" not in schema


def is_int_or_string(schema: JsonDict) -> bool:
    return schema.get("x-kubernetes-int-or-string") is True or schema.get("format") == "int-or-string"
