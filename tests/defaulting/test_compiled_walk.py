"""The defaulting walk is generated code (one function per definition, `builtin._compile`); it
must do exactly what the plain reading of the rules does: at each object, the OpenAPI
`default`s, then the Go rules, then the custom defaulter of its definition, then its fields.
Checked here against that plain reading, written apart over the schema, on objects generated
from the schemas of every kind (seeded, so a failure reproduces)."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

import pytest

from vap_lsp.defaulting.builtin import _apply_rule, default_builtin, minor
from vap_lsp.defaulting.custom import custom_for
from vap_lsp.defaulting.rules import BY_DEFINITION
from vap_lsp.schema import get_schema_set
from vap_lsp.schema.store import SchemaSet

SCALARS = ["", "x", "RollingUpdate", "LoadBalancer", "Local", "None", "Always", "ClientIP", "Container", 0, 1]


def reference(
    ss: SchemaSet, value: Any, schema: Mapping[str, Any], version_minor: int, depth: int = 0
) -> None:
    ref = schema.get("$ref")
    definition = ref if isinstance(ref, str) else None
    if definition is not None:
        schema = ss.definition(definition) or {}
    if depth > 64:
        return
    props = schema.get("properties")
    if isinstance(value, dict) and isinstance(props, dict):
        for key, ps in props.items():
            if isinstance(ps, dict) and "default" in ps and value.get(key) is None:
                value[key] = copy.deepcopy(ps["default"])
        if definition is not None:
            for rule in BY_DEFINITION.get(definition, ()):
                if rule.since <= version_minor:
                    _apply_rule(value, rule)
            custom = custom_for(definition, version_minor)
            if custom is not None:
                custom(value)
        for key, child in value.items():
            if isinstance(child, (dict, list)) and isinstance(props.get(key), dict):
                reference(ss, child, props[key], version_minor, depth + 1)
    elif isinstance(value, dict) and isinstance(schema.get("additionalProperties"), dict):
        for child in value.values():
            if isinstance(child, (dict, list)):
                reference(ss, child, schema["additionalProperties"], version_minor, depth + 1)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for child in value:
            if isinstance(child, (dict, list)):
                reference(ss, child, schema["items"], version_minor, depth + 1)


def generate(ss: SchemaSet, schema: Mapping[str, Any], rnd: random.Random, depth: int = 0) -> Any:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return generate(ss, ss.definition(ref) or {}, rnd, depth)
    if depth > 6:
        return None
    props = schema.get("properties")
    if isinstance(props, dict):
        out = {}
        for key, ps in props.items():
            if isinstance(ps, dict) and key not in ("apiVersion", "kind") and rnd.random() < 0.5:
                v = generate(ss, ps, rnd, depth + 1)
                if v is not None:
                    out[key] = v
        return out
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return [x for x in (generate(ss, schema["items"], rnd, depth + 1) for _ in range(2)) if x is not None]
    if schema.get("type") == "object" and isinstance(schema.get("additionalProperties"), dict):
        v = generate(ss, schema["additionalProperties"], rnd, depth + 1)
        return {"k": v} if v is not None else {}
    return rnd.choice([None, *SCALARS]) if schema.get("type") in ("string", "integer") else None


@pytest.mark.parametrize("version", ["1.30", "1.34", "1.35"])
def test_the_compiled_walk_does_what_the_rules_say(version: str) -> None:
    ss = get_schema_set(version)
    rnd = random.Random(7)
    compared = 0
    for name in sorted(ss.definition_names()):
        definition = ss.definition(name)
        if not isinstance(definition, dict) or "x-kubernetes-group-version-kind" not in definition:
            continue
        for _ in range(3):
            obj = generate(ss, definition, rnd) or {}
            expected = copy.deepcopy(obj)
            reference(ss, expected, {"$ref": name}, minor(version))
            default_builtin(obj, name, version)
            assert obj == expected, name
            compared += 1
    assert compared > 300
