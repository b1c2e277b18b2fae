"""The CEL types of the kinds a policy's `object` can be (built-in kinds, CRD versions).

Which kinds those are (the type-check controller's `typesToCheck`) is resolved by the typing
model, `typing._walk_rules`, in one walk with what stays untyped.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.analysis.crds import published_schema
from vap_lsp.analysis.workspace import CRDVersion
from vap_lsp.cel.environment import schema_to_type
from vap_lsp.cel.types import Type
from vap_lsp.lru import LruCache
from vap_lsp.schema.store import SchemaSet, get_schema_set

MAX_TYPES_PER_RULE = 10

# OpenAPI v3 publishes Quantity as `oneOf: [string, number]` with no `type`, which would hide
# every resources.limits field. The server's type checker resolves built-ins from compiled Go
# OpenAPI definitions, where Quantity is a plain string (reference §3), so we follow that.
_STRING_DEFINITIONS = frozenset({"io.k8s.apimachinery.pkg.api.resource.Quantity"})


@dataclass(frozen=True, order=True)
class GVK:
    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        """As Go's schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`."""
        return f"{self.group}/{self.version}, Kind={self.kind}"

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _resolver(schema_set: SchemaSet) -> Any:
    def resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref in _STRING_DEFINITIONS:
            return {"type": "string", "description": schema.get("description", "")}
        return schema_set.resolve(dict(schema))

    return resolve


@functools.lru_cache(maxsize=512)
def object_type(kubernetes_version: str, gvk: GVK) -> Type | None:
    """CEL type of `object` for one kind; None when the schema is unknown or untyped (then dyn)."""
    schema_set = get_schema_set(kubernetes_version)
    definition = schema_set.definition_for_kind(gvk.group, gvk.version, gvk.kind)
    if definition is None:
        return None
    return schema_to_type({"$ref": definition}, _resolver(schema_set), gvk.kind)


# CRD schemas are plain dicts (unhashable); cache their types by identity, keeping the schema
# alive in the value so an id is never reused while cached.
_CRD_TYPES: LruCache[tuple[str, int], tuple[Mapping[str, Any], Type | None]] = LruCache(256)


def crd_type(kubernetes_version: str, crd: CRDVersion) -> Type | None:
    """The CEL type of a CRD version as the type checker sees it: from the schema the server
    publishes in OpenAPI v3 discovery (`published_schema`: full ObjectMeta at the root and in
    embedded resources), `$ref`s resolved in the selected version's definitions."""
    if crd.schema is None:
        return None
    key = (kubernetes_version, id(crd.schema))
    hit = _CRD_TYPES.get(key)
    if hit is not None and hit[0] is crd.schema:
        return hit[1]
    schema_set = get_schema_set(kubernetes_version)
    converted = schema_to_type(published_schema(crd.schema), _resolver(schema_set), crd.kind)
    _CRD_TYPES.put(key, (crd.schema, converted))
    return converted
