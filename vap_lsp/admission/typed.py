"""Kubernetes 1.37's schemaless typed admission values: from 1.37 the API server hands the Go
objects of built-in kinds to CEL as they are, wrapped by reflection (apiserver
pkg/cel/common/valuesschemalesstyped.go `SchemalessTypedToVal`), where 1.36 converted them to
JSON-shaped maps first (pkg/admission/plugin/cel/activation.go `objectToResolveVal`, cel-go's
`NativeToValue`). The values read the same; `==` differs: a struct, map or list compared with a
value of another kind is `no such overload`, not false, and two structs are equal as
`apiequality.Semantic.DeepEqual` says (never across Go types).

Which variables are typed (activation.go `newActivation` with `useSchemalessTypeRef`):
`request`, `namespaceObject` and `params` always (`SchemalessTypedToVal`); `object`/`oldObject`
only in the condition path (condition.go `ForInput`: validations, messageExpressions,
auditAnnotations, matchConditions and the variables they read), not in a MutatingAdmissionPolicy's
mutations (mutation.go calls `newActivation` without the option); never a custom resource
(`*unstructured.Unstructured`: conversion.go `LazyObject.CELValue` keeps `NativeToValue`). A Go
type that marshals itself (Time, Quantity, IntOrString, RawExtension, FieldsV1) converts to its
JSON (valuesschemalesstyped.go: `CanConvertToUnstructured`), so its maps stay plain.

The Go type of each value is read from the OpenAPI definitions: a definition with `properties`
is a struct, `additionalProperties` a Go map, `items` a slice; a definition with neither is one
of the self-marshalling types above.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vap_lsp.cel.runtime.values import TypedList, TypedMap, TypedStruct, Value
from vap_lsp.defaulting.builtin import minor
from vap_lsp.schema.store import SchemaSet

__all__ = [
    "NAMESPACE_DEFINITION",
    "SCHEMALESS_TYPED_MINOR",
    "typed_object",
    "typed_request",
    "uses_typed_values",
]

SCHEMALESS_TYPED_MINOR = 37
"""The first Kubernetes minor whose admission CEL values are schemaless typed (k8s.io/apiserver
v0.37 `useSchemalessTypeRef`)."""


NAMESPACE_DEFINITION = "io.k8s.api.core.v1.Namespace"
"""`namespaceObject`'s Go type (activation.go: `SchemalessTypedToVal(namespace)`, a *v1.Namespace)."""


def uses_typed_values(version: str) -> bool:
    """Whether Kubernetes `version` ("1.37") binds typed values."""
    return minor(version) >= SCHEMALESS_TYPED_MINOR


def typed_object(schema: SchemaSet, obj: object, definition: str | None) -> Value:
    """`obj` (JSON-shaped, of the Go type `definition`) as SchemalessTypedToVal wraps it; the
    value itself when there is no definition (an unknown kind, a custom resource)."""
    if definition is None or not isinstance(obj, dict):
        return obj
    return _wrap(schema, obj, {"$ref": definition})


def _wrap(schema: SchemaSet, v: Any, node: Mapping[str, Any] | None) -> Value:
    if node is None:
        return v
    name = node.get("$ref")
    if isinstance(name, str):
        target = schema.definition(name)
        if target is None:
            return v
        node = target
    else:
        name = ""
    if isinstance(v, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            return TypedStruct({k: _wrap(schema, x, properties.get(k)) for k, x in v.items()}, name)
        values = node.get("additionalProperties")
        if isinstance(values, dict):
            return TypedMap({k: _wrap(schema, x, values) for k, x in v.items()})
        return v  # RawExtension, FieldsV1, …: converted through their JSON
    if isinstance(v, list):
        items = node.get("items")
        if isinstance(items, dict):
            return TypedList(_wrap(schema, x, items) for x in v)
    return v


_ADMISSION_V1 = "k8s.io/api/admission/v1."
_META_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1."
_AUTHN_V1 = "io.k8s.api.authentication.v1."
_REQUEST_STRUCTS = {
    "kind": _META_V1 + "GroupVersionKind",
    "requestKind": _META_V1 + "GroupVersionKind",
    "resource": _META_V1 + "GroupVersionResource",
    "requestResource": _META_V1 + "GroupVersionResource",
}


def typed_request(request: Mapping[str, Any]) -> Value:
    """`request` (admission/v1 AdmissionRequest, not served, so no OpenAPI definition) as
    SchemalessTypedToVal wraps it: the GVK/GVR and userInfo are structs, `userInfo.groups` and
    each `extra` value are slices, `extra` a map; `object`, `oldObject` and `options` are
    RawExtensions (their JSON)."""
    out: dict[str, Any] = {}
    for k, v in request.items():
        if k in _REQUEST_STRUCTS and isinstance(v, dict):
            out[k] = TypedStruct(v, _REQUEST_STRUCTS[k])
        elif k == "userInfo" and isinstance(v, dict):
            out[k] = _user_info(v)
        else:
            out[k] = v
    return TypedStruct(out, _ADMISSION_V1 + "AdmissionRequest")


def _user_info(user: Mapping[str, Any]) -> TypedStruct:
    out: dict[str, Any] = {}
    for k, v in user.items():
        if k == "groups" and isinstance(v, list):
            out[k] = TypedList(v)
        elif k == "extra" and isinstance(v, dict):
            out[k] = TypedMap({e: TypedList(x) if isinstance(x, list) else x for e, x in v.items()})
        else:
            out[k] = v
    return TypedStruct(out, _AUTHN_V1 + "UserInfo")
