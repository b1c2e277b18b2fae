"""Custom resources: what apiextensions-apiserver does to an object of a structural schema.

Read from `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go`
and `.../schema/defaulting/algorithm.go`: unknown fields are pruned (not under
`x-kubernetes-preserve-unknown-fields`; `apiVersion`, `kind`, `metadata` at the root and in
`x-kubernetes-embedded-resource` objects stay), then every property with a `default` that is
absent (or null while not `nullable`) gets a deep copy of it, properties before their own
children, so a defaulted object is defaulted further inside; list items and
`additionalProperties` values are defaulted by their schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vap_lsp.defaulting.builtin import ITEM, VALUE, DefaultedField
from vap_lsp.defaulting.rules import copy_json

_META = ("apiVersion", "kind", "metadata")
_MAX_DEPTH = 64


def prune(value: Any, schema: Mapping[str, Any] | None, *, root: bool = False, depth: int = 0) -> None:
    """Drop fields the schema does not know, in place."""
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        extra = schema.get("additionalProperties")
        preserve = schema.get("x-kubernetes-preserve-unknown-fields") is True
        keep_meta = root or schema.get("x-kubernetes-embedded-resource") is True
        for key in list(value):
            if key in props:
                prune(value[key], props[key], depth=depth + 1)
            elif keep_meta and key in _META:
                continue
            elif isinstance(extra, Mapping):
                prune(value[key], extra, depth=depth + 1)
            elif not preserve and extra is not True and (props or schema.get("type") == "object"):
                del value[key]
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for item in value:
                prune(item, items, depth=depth + 1)


def default(value: Any, schema: Mapping[str, Any] | None, depth: int = 0) -> None:
    """structuraldefaulting.Default, in place."""
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        for key, ps in props.items():
            if not isinstance(ps, Mapping) or "default" not in ps or ps["default"] is None:
                continue
            if key not in value or (value[key] is None and ps.get("nullable") is not True):
                value[key] = copy_json(ps["default"])
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            if key in props:
                default(child, props[key], depth + 1)
            elif isinstance(extra, Mapping):
                default(child, extra, depth + 1)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            for item in value:
                default(item, items, depth + 1)


def default_custom(obj: dict[str, Any], schema: Mapping[str, Any]) -> None:
    prune(obj, schema, root=True)
    default(obj, schema)


def crd_fields(schema: Mapping[str, Any]) -> dict[tuple[str, ...], DefaultedField]:
    """Every path of a CRD schema set by a `default` whenever its parent exists."""
    out: dict[tuple[str, ...], DefaultedField] = {}

    def walk(s: Any, prefix: tuple[str, ...]) -> None:
        if not isinstance(s, Mapping) or len(prefix) > _MAX_DEPTH:
            return
        props = s.get("properties")
        if isinstance(props, Mapping):
            for key, ps in props.items():
                if isinstance(ps, Mapping) and ps.get("default") is not None:
                    out[(*prefix, key)] = DefaultedField(ps["default"], _json(ps["default"]), "CRD default")
                walk(ps, (*prefix, key))
        if isinstance(s.get("items"), Mapping):
            walk(s["items"], (*prefix, ITEM))
        if isinstance(s.get("additionalProperties"), Mapping):
            walk(s["additionalProperties"], (*prefix, VALUE))

    walk(schema, ())
    return out


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
