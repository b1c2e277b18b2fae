"""Defaulting of built-in kinds: the OpenAPI `default`s of the bundled schema, then the Go
defaulters of `rules` and `custom`, applied top-down as the generated `SetObjectDefaults_*` do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from vap_lsp.defaulting.custom import CUSTOM
from vap_lsp.defaulting.rules import BY_DEFINITION, SKIP, JsonDict, Rule, _copy
from vap_lsp.schema import get_schema_set
from vap_lsp.schema.store import SchemaSet

ITEM = "[*]"
"""Path segment for every item of a list."""
VALUE = "{*}"
"""Path segment for every value of a map."""

_MAX_DEPTH = 64


@dataclass(frozen=True)
class DefaultedField:
    """A field the server always fills in when its parent exists."""

    value: Any
    """The default as JSON, or None when it depends on the object (see `description`)."""
    description: str
    source: str
    """`SetDefaults_PodSpec (core/v1)`, or `OpenAPI default` for a schema `default`."""


def minor(version: str) -> int:
    return int(version.split(".")[1])


def _unset(value: Any, rule: Rule) -> bool:
    if value is None:
        return True
    return any(type(value) is type(z) and value == z for z in rule.zero)


def _apply_rule(obj: JsonDict, rule: Rule) -> None:
    parent: Any = obj
    for key in rule.path[:-1]:
        parent = parent.get(key)
        if not isinstance(parent, dict):
            return
    name = rule.path[-1]
    if not _unset(parent.get(name), rule):
        return
    if rule.when is not None and not rule.when(parent):
        return
    value = rule.computed(parent)
    if value is not SKIP:
        parent[name] = value


def _child(schema: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    """(definition name, schema) of a property schema."""
    ref = schema.get("$ref")
    return (ref, {}) if isinstance(ref, str) else (None, schema)


class _Defaulter:
    def __init__(self, schema_set: SchemaSet, version_minor: int) -> None:
        self.schema_set = schema_set
        self.minor = version_minor

    def node(self, value: Any, definition: str | None, schema: Mapping[str, Any], depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        if definition is not None:
            d = self.schema_set.definition(definition)
            if d is None:
                return
            schema = d
        if isinstance(value, dict):
            props = schema.get("properties")
            if isinstance(props, dict):
                for key, ps in props.items():
                    if "default" in ps and value.get(key) is None:
                        value[key] = _copy(ps["default"])
                if definition is not None:
                    for rule in BY_DEFINITION.get(definition, ()):
                        if rule.since <= self.minor:
                            _apply_rule(value, rule)
                    custom = CUSTOM.get(definition)
                    if custom is not None:
                        custom(value)
                for key, child in value.items():
                    ps = props.get(key)
                    if isinstance(ps, dict) and child is not None:
                        self.node(child, *_child(ps), depth + 1)
                return
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict) and schema.get("type") == "object":
                for child in value.values():
                    self.node(child, *_child(extra), depth + 1)
        elif isinstance(value, list) and schema.get("type") == "array":
            items = schema.get("items")
            if isinstance(items, dict):
                for child in value:
                    self.node(child, *_child(items), depth + 1)


def default_builtin(obj: JsonDict, definition: str, version: str) -> None:
    """Default `obj` (an object of `definition`) in place as kube-apiserver `version` would."""
    _Defaulter(get_schema_set(version), minor(version)).node(obj, definition, {}, 0)


@lru_cache(maxsize=256)
def builtin_fields(definition: str, version: str) -> Mapping[tuple[str, ...], DefaultedField]:
    """Every path under an object of `definition` that is set whenever its parent exists."""
    schema_set = get_schema_set(version)
    out: dict[tuple[str, ...], DefaultedField] = {}
    v = minor(version)

    def walk(defn: str, prefix: tuple[str, ...], stack: frozenset[str]) -> None:
        d = schema_set.definition(defn)
        if d is None or defn in stack or len(prefix) > 40:
            return
        stack = stack | {defn}
        props = d.get("properties")
        if not isinstance(props, dict):
            return
        for key, ps in props.items():
            if not isinstance(ps, dict):
                continue
            if "default" in ps:
                out[(*prefix, key)] = DefaultedField(ps["default"], _json(ps["default"]), "OpenAPI default")
            target, schema = _child(ps)
            path = (*prefix, key)
            while target is None and isinstance(schema, Mapping):
                if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
                    path = (*path, ITEM)
                    target, schema = _child(schema["items"])
                elif schema.get("type") == "object" and isinstance(schema.get("additionalProperties"), dict):
                    path = (*path, VALUE)
                    target, schema = _child(schema["additionalProperties"])
                else:
                    break
            if target is not None:
                walk(target, path, stack)
        for rule in BY_DEFINITION.get(defn, ()):
            if rule.always and rule.since <= v:
                value = None if callable(rule.value) else rule.value
                out[(*prefix, *rule.path)] = DefaultedField(value, rule.description, rule.source)

    walk(definition, (), frozenset())
    return out


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
