"""What the Go types of a built-in object do to its JSON when the server decodes it.

Quantities come back in canonical form (`Quantity.UnmarshalJSON` then `MarshalJSON`: `2.5` is
`2500m`, `1.5Gi` is `1536Mi`), and empty omitempty fields vanish.

kube-apiserver holds a built-in object as its Go struct: a field tagged `json:",omitempty"` whose
Go type is a map, list, string, bool or number (no pointer) is not there when empty or zero, so
`labels: {}`, `env: []`, `annotations: null`, `hostNetwork: false` or an EnvVar's `value: ""`
are gone when admission reads the object back as JSON (`has(object.metadata.labels)` is false);
a field without the tag (a Role's `rules`) or a pointer (`privileged: false`) stays. Which fields
have the tag is read from the Go types by the oracle (`vap-oracle omitempty` over Kubernetes
1.37.2, committed as omitempty.json; the tags of a field do not change between versions). Found
by the oracle (issue 34): `object.metadata.labels` of a ConfigMap written with `labels: {}` is
"no such key" on the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from importlib.resources import files
from typing import Any

from vap_lsp.apimachinery.quantity import QuantityError, format_quantity, parse_quantity, quantity_format
from vap_lsp.schema.store import get_schema_set

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

JsonDict = dict[str, Any]


@cache
def _omitempty() -> Mapping[str, frozenset[str]]:
    """Definition -> its omitempty map and list fields (omitempty.json)."""
    data = json.loads(files("vap_lsp.defaulting").joinpath("omitempty.json").read_text(encoding="utf-8"))
    return {name: frozenset(fields) for name, fields in data["definitions"].items()}


def drop_empty_optional(obj: JsonDict, definition: str, version: str) -> None:
    """In place: remove the empty (or null) optional maps and lists of `obj`, an object of the
    built-in `definition`, at every depth, and write its quantities canonically."""
    _walk(obj, definition, version, 0)


@lru_cache(maxsize=4096)
def _shape(definition: str, version: str) -> tuple[frozenset[str], Mapping[str, tuple[str, str | None]]]:
    """(required fields, field -> (kind, definition of its objects)) of one definition; kind is
    `object` (a nested definition), `map`, `list` or `other`."""
    d = get_schema_set(version).definition(definition)
    if not isinstance(d, Mapping):
        return frozenset(), {}
    required = frozenset(r for r in d.get("required") or () if isinstance(r, str))
    fields: dict[str, tuple[str, str | None]] = {}
    props = d.get("properties")
    for name, prop in props.items() if isinstance(props, Mapping) else ():
        if not isinstance(prop, Mapping):
            continue
        ref = prop.get("$ref")
        if isinstance(ref, str):
            fields[name] = ("object", ref)
        elif prop.get("type") == "array":
            items = prop.get("items")
            item_ref = items.get("$ref") if isinstance(items, Mapping) else None
            fields[name] = ("list", item_ref if isinstance(item_ref, str) else None)
        elif prop.get("type") == "object" and isinstance(prop.get("additionalProperties"), Mapping):
            ap = prop["additionalProperties"]
            value_ref = ap.get("$ref")
            fields[name] = ("map", value_ref if isinstance(value_ref, str) else None)
        else:
            fields[name] = ("other", None)
    return required, fields


def _walk(obj: JsonDict, definition: str, version: str, depth: int) -> None:
    if depth > 40:
        return
    _required, fields = _shape(definition, version)
    omitted = _omitempty().get(definition, frozenset())
    for name in list(obj):
        spec = fields.get(name)
        if spec is None:
            continue
        kind, child = spec
        value = obj[name]
        if name in omitted and _empty(value):
            del obj[name]
            continue
        if child is None:
            continue
        if child == QUANTITY:
            if kind == "object":
                obj[name] = canonical_quantity(value)
            elif kind == "map" and isinstance(value, dict):
                for key, item in value.items():
                    value[key] = canonical_quantity(item)
            continue
        if kind == "object" and isinstance(value, dict):
            _walk(value, child, version, depth + 1)
        elif kind == "list" and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    _walk(item, child, version, depth + 1)
        elif kind == "map" and isinstance(value, dict):
            for item in value.values():
                if isinstance(item, dict):
                    _walk(item, child, version, depth + 1)


def canonical_quantity(value: Any) -> Any:
    """A quantity as the server writes it back (`Quantity.String`); anything unparsable as is
    (the server would have refused to decode it)."""
    text = str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value
    if not isinstance(text, str):
        return value
    try:
        return format_quantity(parse_quantity(text), format=quantity_format(text))
    except (QuantityError, ValueError):
        return value


def _empty(value: Any) -> bool:
    """encoding/json's `isEmptyValue`: null, an empty map, list or string, false, zero."""
    if value is None or value is False or value == "" or value == {} or value == []:
        return True
    return type(value) in (int, float) and value == 0
