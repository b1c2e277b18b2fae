"""Sizes of values read from objects that have an OpenAPI schema, for the static cost estimate.

The API server bounds each list, map and string of a schema when it converts it to a CEL type
(kubernetes/apiserver `pkg/cel/common/schemas.go` `SchemaDeclType`, `DeclType.MaxElements`):

* `maxItems`, `maxProperties`; for a string `maxLength` × 4 (a code point is up to 4 bytes;
  `estimateMaxElementsFromMaxLength`), for `format: byte` `maxLength` itself, else the longest
  `enum` value;
* where unbounded, the most that fits in one request of `MaxRequestSizeBytes` (3 MiB,
  `pkg/apis/cel/config.go`): a string 3 MiB − 2 (its quotes), a list (3 MiB − 2) / (minimum
  serialized size of an item + 1) (`estimateMaxArrayItemsFromMinSize`), a map
  (3 MiB − 2) / (minimum size of a value + 6) (`estimateMaxAdditionalPropertiesFromMinSize`);
* minimum serialized sizes (`pkg/cel/limits.go`, `types.go`): `""` 2, `true` 4, a number 1, `[]`
  and `{}` 2, an object 2 plus, per required property without a default, its name, its value and
  4; an int-or-string 1; durations 3, dates 12, date-times 21;
* x-kubernetes-int-or-string: from 1.34 its `maxLength` × 4 when it has one, else 3 MiB − 2.

apiextensions' `sizeEstimator` (`pkg/apiserver/schema/cel/compilation.go`) then answers a cost
estimate's size question by walking that type along the node's field path (`@items`/`@values` to
the element, `@keys` to the key, a name to the field) and returns 0..MaxElements — so objects,
numbers and map keys are 0..0. `SchemaSizes` does the same walk for the variables it is given
(`object`, `oldObject`, `params`), lazily: only the fields an expression reaches are converted.

Built-in kinds' OpenAPI (1.30–1.35) declares no `maxItems`, `maxLength` or `maxProperties` at all,
so every list and string of a built-in kind is bounded only by the request size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vap_lsp.cel.cost_estimate import Path, SizeEstimate
from vap_lsp.cel.environment import (
    Resolver,
    Schema,
    deref_schema,
    escape_field_name,
    is_int_or_string,
    schema_type_name,
    with_type_and_object_meta,
)
from vap_lsp.cel.library.decls import minor_of
from vap_lsp.cel.types import Type

__all__ = ["MAX_REQUEST_SIZE_BYTES", "SchemaBound", "SchemaRoot", "SchemaSizes"]

MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024
MIN_STRING_SIZE = 2
MIN_BOOL_SIZE = 4
MIN_NUMBER_SIZE = 1
MIN_DURATION_SIZE_JSON = 3
JSON_DATE_SIZE = 12
MIN_DATETIME_SIZE_JSON = 21
MAX_DURATION_SIZE_JSON = 32
MAX_DATETIME_SIZE_JSON = 32

_STRING_MIN = {"byte": MIN_STRING_SIZE, "duration": MIN_DURATION_SIZE_JSON, "date": JSON_DATE_SIZE,
               "date-time": MIN_DATETIME_SIZE_JSON}  # fmt: skip
_STRING_MAX = {
    "duration": MAX_DURATION_SIZE_JSON,
    "date": JSON_DATE_SIZE,
    "date-time": MAX_DATETIME_SIZE_JSON,
}
_SCALAR_MIN = {"boolean": MIN_BOOL_SIZE, "number": MIN_NUMBER_SIZE, "integer": MIN_NUMBER_SIZE}


@dataclass(frozen=True, slots=True)
class SchemaRoot:
    """The schema of one variable (`object`, `oldObject`, `params`): `schema` may be a `$ref`."""

    schema: Schema
    resolve: Resolver
    resource_root: bool = True


@dataclass(frozen=True, slots=True)
class SchemaBound:
    """Why a value has the size it has: `keyword` is the schema keyword bounding it (`maxItems`,
    `maxProperties`, `maxLength`, `enum`), None when it is the worst case of a 3 MiB request."""

    path: Path
    keyword: str | None
    max: int


def _non_negative(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return max(value, 0)


class _Decl:
    """One node of the converted type: its bounds, and its children on demand."""

    __slots__ = (
        "_children",
        "_fields",
        "keyword",
        "kind",
        "max_elements",
        "min_size",
        "owner",
        "resolve",
        "schema",
        "visited",
    )

    def __init__(
        self,
        owner: SchemaSizes,
        schema: Schema,
        resolve: Resolver,
        visited: frozenset[str],
        kind: str,
        min_size: int,
        max_elements: int,
        keyword: str | None,
    ) -> None:
        self.owner = owner
        self.schema = schema
        self.resolve = resolve
        self.visited = visited
        self.kind = kind
        self.min_size = min_size
        self.max_elements = max_elements
        self.keyword = keyword
        self._fields: dict[str, Schema] | None = None
        self._children: dict[str, _Decl | None] = {}

    def child(self, name: str) -> _Decl | None:
        if name not in self._children:
            self._children[name] = self._child(name)
        return self._children[name]

    def _child(self, name: str) -> _Decl | None:
        if name in ("@items", "@values"):
            if self.kind == "list":
                items = self.schema.get("items")
                return (
                    self.owner.decl(items, self.resolve, self.visited) if isinstance(items, Mapping) else None
                )
            if self.kind == "map":
                values = self.schema.get("additionalProperties")
                if isinstance(values, Mapping):
                    return self.owner.decl(values, self.resolve, self.visited)
            return None
        if name == "@keys":
            # Map keys are `StringType`, whose MaxElements is never set.
            if self.kind != "map":
                return None
            return _Decl(self.owner, {"type": "string"}, self.resolve, self.visited, "string", 2, 0, None)
        if self.kind != "object":
            return None
        if self._fields is None:
            fields: dict[str, Schema] = {}
            for raw, prop in (self.schema.get("properties") or {}).items():
                escaped = escape_field_name(str(raw))
                if escaped is not None and isinstance(prop, Mapping):
                    fields[escaped] = prop
            self._fields = fields
        prop = self._fields.get(name)
        return None if prop is None else self.owner.decl(prop, self.resolve, self.visited)


class SchemaSizes:
    """A cost estimate's `SizeEstimator` over the schemas of some variables."""

    def __init__(self, roots: Mapping[str, SchemaRoot], *, kubernetes_version: str | int = 35) -> None:
        self.roots = dict(roots)
        self.minor = (
            kubernetes_version if isinstance(kubernetes_version, int) else minor_of(kubernetes_version)
        )
        self._min_sizes: dict[int, tuple[Schema, int | None]] = {}
        self._root_decls: dict[str, _Decl | None] = {}
        self._paths: dict[Path, _Decl | None] = {}

    # -- the estimator -----------------------------------------------------------------------------

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None:
        found = self._walk(path)
        return None if found is None else SizeEstimate(0, found.max_elements)

    def bound(self, path: Path | None) -> SchemaBound | None:
        """The schema bound behind `estimate_size(path)` (None where there is no estimate)."""
        found = self._walk(path)
        if found is None or path is None:
            return None
        return SchemaBound(path, found.keyword, found.max_elements)

    def _walk(self, path: Path | None) -> _Decl | None:
        if not path:
            return None
        if path in self._paths:
            return self._paths[path]
        found = self._walk_uncached(path)
        self._paths[path] = found
        return found

    def _walk_uncached(self, path: Path) -> _Decl | None:
        name = path[0]
        if name not in self._root_decls:
            root = self.roots.get(name)
            self._root_decls[name] = (
                None
                if root is None
                else self.decl(root.schema, root.resolve, frozenset(), root.resource_root)
            )
        node = self._root_decls[name]
        for part in path[1:]:
            if node is None:
                return None
            node = node.child(part)
        return node

    # -- SchemaDeclType ----------------------------------------------------------------------------

    def decl(
        self, schema: Schema, resolve: Resolver, visited: frozenset[str], root: bool | None = None
    ) -> _Decl | None:
        """The bounds of `schema` (None if it is not exposed to CEL)."""
        resolved, visited = deref_schema(schema, resolve, visited)
        if root is None:
            root = resolved.get("x-kubernetes-embedded-resource") is True
        if is_int_or_string(resolved):
            max_length = _non_negative(resolved.get("maxLength"))
            if max_length is not None and self.minor >= 34:
                return _Decl(self, resolved, resolve, visited, "dyn", 1, max_length * 4, "maxLength")
            return _Decl(self, resolved, resolve, visited, "dyn", 1, MAX_REQUEST_SIZE_BYTES - 2, None)
        if root:
            resolved = with_type_and_object_meta(resolved, resolve, visited)
        kind = schema_type_name(resolved)
        min_size = self.min_size(resolved, resolve, visited, root)
        if min_size is None:
            return None
        if kind == "array":
            items = resolved["items"]
            max_items = _non_negative(resolved.get("maxItems"))
            if max_items is not None:
                return _Decl(self, resolved, resolve, visited, "list", min_size, max_items, "maxItems")
            item_min = self.min_size_of(items, resolve, visited)
            assert item_min is not None  # an exposed list has an exposed item type
            most = (MAX_REQUEST_SIZE_BYTES - 2) // (item_min + 1)
            return _Decl(self, resolved, resolve, visited, "list", min_size, most, None)
        if kind == "object":
            values = resolved.get("additionalProperties")
            if isinstance(values, Mapping):
                max_props = _non_negative(resolved.get("maxProperties"))
                if max_props is not None:
                    return _Decl(
                        self, resolved, resolve, visited, "map", min_size, max_props, "maxProperties"
                    )
                value_min = self.min_size_of(values, resolve, visited)
                assert value_min is not None
                most = (MAX_REQUEST_SIZE_BYTES - 2) // (value_min + 6)
                return _Decl(self, resolved, resolve, visited, "map", min_size, most, None)
            return _Decl(self, resolved, resolve, visited, "object", min_size, 0, None)
        if kind == "string":
            fmt = str(resolved.get("format") or "")
            max_length = _non_negative(resolved.get("maxLength"))
            if fmt == "byte":
                if max_length is not None:
                    return _Decl(self, resolved, resolve, visited, "bytes", min_size, max_length, "maxLength")
                return _Decl(
                    self, resolved, resolve, visited, "bytes", min_size, MAX_REQUEST_SIZE_BYTES - 2, None
                )
            if fmt in _STRING_MAX:
                return _Decl(self, resolved, resolve, visited, "scalar", min_size, _STRING_MAX[fmt], None)
            if max_length is not None:
                return _Decl(
                    self, resolved, resolve, visited, "string", min_size, max_length * 4, "maxLength"
                )
            enum = resolved.get("enum")
            if isinstance(enum, list) and enum:
                longest = max((len(v.encode()) for v in enum if isinstance(v, str)), default=0)
                return _Decl(self, resolved, resolve, visited, "string", min_size, longest, "enum")
            return _Decl(
                self, resolved, resolve, visited, "string", min_size, MAX_REQUEST_SIZE_BYTES - 2, None
            )
        return _Decl(self, resolved, resolve, visited, "scalar", min_size, 0, None)

    def min_size_of(self, schema: Schema, resolve: Resolver, visited: frozenset[str]) -> int | None:
        resolved, visited = deref_schema(schema, resolve, visited)
        return self.min_size(
            resolved, resolve, visited, resolved.get("x-kubernetes-embedded-resource") is True
        )

    def min_size(
        self, resolved: Schema, resolve: Resolver, visited: frozenset[str], root: bool
    ) -> int | None:
        """`MinSerializedSize` of a dereferenced schema; None if the schema is not exposed."""
        key = id(resolved) * 2 + int(root)
        hit = self._min_sizes.get(key)
        if hit is not None and hit[0] is resolved:
            return hit[1]
        self._min_sizes[key] = (resolved, 2)  # a cycle in progress counts as `{}`
        size = self._compute_min_size(resolved, resolve, visited, root)
        self._min_sizes[key] = (resolved, size)
        return size

    def _compute_min_size(
        self, resolved: Schema, resolve: Resolver, visited: frozenset[str], root: bool
    ) -> int | None:
        if is_int_or_string(resolved):
            return 1
        if root:
            resolved = with_type_and_object_meta(resolved, resolve, visited)
        kind = schema_type_name(resolved)
        if kind == "array":
            items = resolved.get("items")
            if not isinstance(items, Mapping) or self.min_size_of(items, resolve, visited) is None:
                return None
            return 2
        if kind == "object":
            values = resolved.get("additionalProperties")
            if isinstance(values, Mapping):
                return None if self.min_size_of(values, resolve, visited) is None else 2
            required = set(resolved.get("required") or ())
            size = 2
            for raw, prop in (resolved.get("properties") or {}).items():
                if raw not in required or not isinstance(prop, Mapping):
                    continue
                if "default" in prop or "default" in deref_schema(prop, resolve, visited)[0]:
                    continue  # defaulted server-side: may be absent from the request
                field_min = self.min_size_of(prop, resolve, visited)
                if field_min is not None:
                    size += len(str(raw)) + field_min + 4
            return size
        if kind == "string":
            return _STRING_MIN.get(str(resolved.get("format") or ""), MIN_STRING_SIZE)
        return _SCALAR_MIN.get(kind)
