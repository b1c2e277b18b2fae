"""Defaulting of built-in kinds: the OpenAPI `default`s of the bundled schema, then the Go
defaulters of `rules` and `custom`, applied top-down as the generated `SetObjectDefaults_*` do."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from vap_lsp.defaulting.custom import CUSTOM
from vap_lsp.defaulting.rules import BY_DEFINITION, SKIP, JsonDict, Rule, copy_json
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
    path = rule.path
    if len(path) > 1:
        for key in path[:-1]:
            parent = parent.get(key)
            if not isinstance(parent, dict):
                return
    name = path[-1]
    current = parent.get(name)
    if current is not None and (not rule.zero or not _unset(current, rule)):
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


class _Plan:
    """What defaulting does at one schema node, worked out once per version and node: the
    OpenAPI defaults, the Go rules and custom defaulter of its definition, its children's plans."""

    __slots__ = ("custom", "defaults", "extra", "is_array", "is_map", "props", "rules")

    def __init__(self, schema: Mapping[str, Any], definition: str | None, version_minor: int) -> None:
        props = schema.get("properties")
        self.props: dict[str, tuple[str | None, Mapping[str, Any]]] | None = None
        self.defaults: tuple[tuple[str, Any], ...] = ()
        self.rules: tuple[Rule, ...] = ()
        self.custom = CUSTOM.get(definition) if definition is not None else None
        if isinstance(props, dict):
            self.props = {k: _child(ps) for k, ps in props.items() if isinstance(ps, dict)}
            self.defaults = tuple(
                (k, ps["default"]) for k, ps in props.items() if isinstance(ps, dict) and "default" in ps
            )
            if definition is not None:
                self.rules = tuple(r for r in BY_DEFINITION.get(definition, ()) if r.since <= version_minor)
        extra = schema.get("additionalProperties")
        self.is_map = self.props is None and isinstance(extra, dict) and schema.get("type") == "object"
        items = schema.get("items")
        self.is_array = isinstance(items, dict) and schema.get("type") == "array"
        child = extra if self.is_map else items if self.is_array else None
        self.extra: tuple[str | None, Mapping[str, Any]] | None = (
            _child(child) if isinstance(child, dict) else None
        )


class _Defaulter:
    def __init__(self, schema_set: SchemaSet, version_minor: int) -> None:
        self.schema_set = schema_set
        self.minor = version_minor
        self.plans: dict[int | str, _Plan | None] = {}

    def plan(self, definition: str | None, schema: Mapping[str, Any]) -> _Plan | None:
        key: int | str = definition if definition is not None else id(schema)
        if key in self.plans:
            return self.plans[key]
        if definition is not None:
            d = self.schema_set.definition(definition)
            made = _Plan(d, definition, self.minor) if d is not None else None
        else:
            made = _Plan(schema, None, self.minor)
        self.plans[key] = made
        return made

    def node(self, value: Any, definition: str | None, schema: Mapping[str, Any], depth: int) -> None:
        if depth > _MAX_DEPTH:
            return
        plan = self.plan(definition, schema)
        if plan is None:
            return
        if isinstance(value, dict):
            props = plan.props
            if props is not None:
                for key, default in plan.defaults:
                    if value.get(key) is None:
                        value[key] = copy_json(default)
                for rule in plan.rules:
                    _apply_rule(value, rule)
                if plan.custom is not None:
                    plan.custom(value)
                for key, child in value.items():
                    if isinstance(child, (dict, list)):
                        target = props.get(key)
                        if target is not None:
                            self.node(child, target[0], target[1], depth + 1)
            elif plan.is_map and plan.extra is not None:
                for child in value.values():
                    if isinstance(child, (dict, list)):
                        self.node(child, plan.extra[0], plan.extra[1], depth + 1)
        elif isinstance(value, list) and plan.is_array and plan.extra is not None:
            for child in value:
                if isinstance(child, (dict, list)):
                    self.node(child, plan.extra[0], plan.extra[1], depth + 1)


_DEFAULTERS: dict[str, _Defaulter] = {}


def default_builtin(obj: JsonDict, definition: str, version: str) -> None:
    """Default `obj` (an object of `definition`) in place as kube-apiserver `version` would."""
    defaulter = _DEFAULTERS.get(version)
    if defaulter is None:
        defaulter = _DEFAULTERS[version] = _Defaulter(get_schema_set(version), minor(version))
    defaulter.node(obj, definition, {}, 0)


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
