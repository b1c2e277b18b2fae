"""Defaulting of built-in kinds: the OpenAPI `default`s of the bundled schema, then the Go
defaulters of `rules` and `custom`, applied top-down as the generated `SetObjectDefaults_*` do."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from vap_lsp.defaulting.custom import custom_for
from vap_lsp.defaulting.rules import BY_DEFINITION, JSON_LEAVES, SKIP, JsonDict, Rule, copy_json
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


def _is_zero(value: Any, zero: tuple[Any, ...]) -> bool:
    return any(type(value) is type(z) and value == z for z in zero)


def _unset(value: Any, rule: Rule) -> bool:
    return value is None or _is_zero(value, rule.zero)


def _apply_rule(obj: JsonDict, rule: Rule) -> None:
    if rule.guard is not None and not rule.guard(obj):
        return
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


_Step = tuple[str, Any, bool, tuple[Any, ...], Rule | None]
"""One Go rule as applied: (field, constant, whether to copy it, zero values, None) for a constant
of one segment without condition (most rules: no call), else ("", None, False, (), rule)."""

_Default = tuple[str, Any, bool]
"""An OpenAPI default: (field, value, whether the value must be copied)."""


def _step(rule: Rule) -> _Step:
    if len(rule.path) == 1 and not callable(rule.value) and rule.when is None and rule.guard is None:
        return (rule.path[0], rule.value, type(rule.value) not in JSON_LEAVES, rule.zero, None)
    return ("", None, False, (), rule)


class _Plan:
    """What defaulting does at one schema node, worked out once per version and node: the
    OpenAPI defaults, the Go rules and custom defaulter of its definition, and (filled in as
    objects reach them) its children's plans."""

    __slots__ = (
        "children",
        "custom",
        "defaults",
        "extra",
        "inert",
        "is_array",
        "is_map",
        "item",
        "live",
        "props",
        "rules",
        "work",
    )

    def __init__(self, schema: Mapping[str, Any], definition: str | None, version_minor: int) -> None:
        props = schema.get("properties")
        self.props: dict[str, tuple[str | None, Mapping[str, Any]]] | None = None
        self.children: dict[str, _Plan | None] = {}
        self.defaults: tuple[_Default, ...] = ()
        self.rules: tuple[_Step, ...] = ()
        self.custom = custom_for(definition, version_minor) if definition is not None else None
        if isinstance(props, dict):
            self.props = {k: _child(ps) for k, ps in props.items() if isinstance(ps, dict)}
            self.defaults = tuple(
                (k, ps["default"], type(ps["default"]) not in JSON_LEAVES)
                for k, ps in props.items()
                if isinstance(ps, dict) and "default" in ps
            )
            if definition is not None:
                self.rules = tuple(
                    _step(r) for r in BY_DEFINITION.get(definition, ()) if r.since <= version_minor
                )
        extra = schema.get("additionalProperties")
        self.is_map = self.props is None and isinstance(extra, dict) and schema.get("type") == "object"
        items = schema.get("items")
        self.is_array = isinstance(items, dict) and schema.get("type") == "array"
        child = extra if self.is_map else items if self.is_array else None
        self.extra: tuple[str | None, Mapping[str, Any]] | None = (
            _child(child) if isinstance(child, dict) else None
        )
        self.item: _Plan | None = None
        """The plan of every value (a map) or item (an array), once resolved."""
        self.inert: bool | None = None
        """Nothing below this node is ever defaulted (labels, selectors, quantities): not walked."""
        self.work = bool(self.defaults or self.rules or self.custom is not None)
        """Something is defaulted at this node itself (else it only leads to nodes that are)."""
        self.live: tuple[tuple[str, _Plan], ...] | None = None
        """The properties whose plan is not inert, with it, once resolved: an object with more
        fields than that is walked by these keys rather than by its own."""


class _Defaulter:
    def __init__(self, schema_set: SchemaSet, version_minor: int) -> None:
        self.schema_set = schema_set
        self.minor = version_minor
        self.plans: dict[int | str, _Plan | None] = {}
        self.names: dict[int, str] = {}
        """The compiled walk of each plan (by id), a function of `namespace`."""
        self.namespace: dict[str, Any] = {"copy_json": copy_json, "apply_rule": _apply_rule}
        self.pending: list[dict[str, Any]] = []
        self.roots: dict[str, Callable[[Any, int], None] | None] = {}

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

    def walker(self, plan: _Plan) -> Callable[[Any, int], None]:
        """The compiled walk of `plan` (`_compile`), with every plan it reaches."""
        name = self._compile(plan)
        while self.pending:  # maps of keys to functions, once every function exists
            table = self.pending.pop()
            for key, fn in table.items():
                table[key] = self.namespace[fn]
        walk: Callable[[Any, int], None] = self.namespace[name]
        return walk

    def _compile(self, plan: _Plan) -> str:
        """A Python function for `plan`, generated once: its OpenAPI defaults and constant rules as
        straight-line code, the rest called, then the walk into the children that can be
        defaulted (the object's own keys, or the plan's when the object has more)."""
        name = self.names.get(id(plan))
        if name is not None:
            return name
        name = self.names[id(plan)] = f"walk{len(self.names)}"
        ns = self.namespace

        def const(value: Any) -> str:
            key = f"c{len(ns)}"
            ns[key] = value
            return key

        lines = [f"def {name}(v, d):", f"    if d > {_MAX_DEPTH}:", "        return"]
        if plan.props is not None:
            lines += ["    if not isinstance(v, dict):", "        return"]
            for key, default, copy in plan.defaults:
                value = f"copy_json({const(default)})" if copy else const(default)
                lines += [f"    if v.get({key!r}) is None:", f"        v[{key!r}] = {value}"]
            for field, constant, copy, zero, rule in plan.rules:
                if rule is not None and (len(rule.path) > 1 or rule.guard is not None):
                    lines.append(f"    apply_rule(v, {const(rule)})")
                    continue
                if rule is not None:  # one segment, computed or conditional: as `_apply_rule`
                    field, zero = rule.path[0], rule.zero
                unset = " or ".join(
                    ["x is None", *(f"(type(x) is {const(type(z))} and x == {const(z)})" for z in zero)]
                )
                lines += [f"    x = v.get({field!r})", f"    if {unset}:"]
                if rule is None:
                    value = f"copy_json({const(constant)})" if copy else const(constant)
                    lines.append(f"        v[{field!r}] = {value}")
                    continue
                if rule.when is not None:
                    lines += [f"      if {const(rule.when)}(v):"]
                value = (
                    f"{const(rule.value)}(v)" if callable(rule.value) else f"copy_json({const(rule.value)})"
                )
                lines += [
                    f"        y = {value}",
                    f"        if y is not {const(SKIP)}:",
                    f"          v[{field!r}] = y",
                ]
            if plan.custom is not None:
                lines.append(f"    {const(plan.custom)}(v)")
            live = plan.live if plan.live is not None else self.resolve_live(plan)
            if live:
                table = {key: self._compile(sub) for key, sub in live}
                self.pending.append(table)
                lines += [f"    if len(v) > {len(live)}:"]
                for key, _sub in live:
                    lines += [
                        f"        x = v.get({key!r})",
                        "        if x is not None:",
                        f"            {table[key]}(x, d + 1)",
                    ]
                lines += [
                    "    else:",
                    f"        live = {const(table)}",
                    "        for k, x in v.items():",
                    "            f = live.get(k)",
                    "            if f is not None and x is not None:",
                    "                f(x, d + 1)",
                ]
        elif plan.is_map or plan.is_array:
            sub = self.item_plan(plan)
            if sub is not None:
                kind, items = ("dict", "v.values()") if plan.is_map else ("list", "v")
                lines += [
                    f"    if not isinstance(v, {kind}):",
                    "        return",
                    f"    for x in {items}:",
                    f"        {self._compile(sub)}(x, d + 1)",
                ]
        exec(compile("\n".join(lines), f"<defaulting {name}>", "exec"), ns)
        return name

    def child(self, plan: _Plan, key: str) -> _Plan | None:
        """The plan of property `key` of `plan`, None when it has none or is inert."""
        target = plan.props.get(key) if plan.props is not None else None
        sub = self.plan(*target) if target is not None else None
        if sub is not None and self.is_inert(sub):
            sub = None
        plan.children[key] = sub
        return sub

    def resolve_live(self, plan: _Plan) -> tuple[tuple[str, _Plan], ...]:
        live = []
        for key in plan.props or ():
            sub = plan.children[key] if key in plan.children else self.child(plan, key)
            if sub is not None:
                live.append((key, sub))
        plan.live = tuple(live)
        return plan.live

    def item_plan(self, plan: _Plan) -> _Plan | None:
        if plan.item is None and plan.extra is not None:
            plan.item = self.plan(*plan.extra)
        return plan.item if plan.item is not None and not self.is_inert(plan.item) else None

    def is_inert(self, plan: _Plan) -> bool:
        if plan.inert is not None:
            return plan.inert
        plan.inert = False  # while recursive definitions are being worked out: walk them
        if plan.props is not None:
            inert = not plan.defaults and not plan.rules and plan.custom is None
            for key in plan.props:
                if not inert:
                    break
                inert = self.child(plan, key) is None
        elif plan.is_map or plan.is_array:
            inert = self.item_plan(plan) is None
        else:
            inert = True
        plan.inert = inert
        return inert


_DEFAULTERS: dict[str, _Defaulter] = {}
_UNSEEN: Any = object()


def default_builtin(obj: JsonDict, definition: str, version: str) -> None:
    """Default `obj` (an object of `definition`) in place as kube-apiserver `version` would."""
    defaulter = _DEFAULTERS.get(version)
    if defaulter is None:
        defaulter = _DEFAULTERS[version] = _Defaulter(get_schema_set(version), minor(version))
    walk = defaulter.roots.get(definition, _UNSEEN)
    if walk is _UNSEEN:
        plan = defaulter.plan(definition, {})
        walk = defaulter.roots[definition] = (
            defaulter.walker(plan) if plan is not None and not defaulter.is_inert(plan) else None
        )
    if walk is not None:
        walk(obj, 0)


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
