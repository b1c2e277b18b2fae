"""Estimates with sizes from a schema, against Kubernetes' own expectations for CRD validation
rules (kubernetes/kubernetes `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/
compilation_test.go` `TestCostEstimation`, each case by its name).

Each case estimates one rule on a schema twice: with no bounds ("calc": every size the worst case
of a 3 MiB request, from the minimum serialized size of the items) and with `maxItems` /
`maxProperties` / `maxLength` set to the case's `setMaxElements` ("set"). The rule's `self` (and
`oldSelf`) is the schema's node, not a resource root (`SchemaDeclType(schema, false)`), typed as
`schema_to_type` types it and sized by `SchemaSizes` — the same two pieces that size `object` for
admission policies.

Not translated: the "... with has" cases (`has(self.x)` on maps), whose expectations are 0, which
`schemaChecker` reads as "do not check" (`if expectedCost > 0`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from vap_lsp.cel.checker import check
from vap_lsp.cel.conformance import ConformanceDecls, conformance_environment, conformance_parse
from vap_lsp.cel.cost_estimate import estimate_cost
from vap_lsp.cel.environment import schema_to_type
from vap_lsp.cel.schema_sizes import SchemaRoot, SchemaSizes

Schema = dict[str, Any]
Gen = Callable[[int | None], Schema]


def _no_refs(schema: Any) -> Any:
    raise AssertionError(f"unexpected $ref {schema}")


def _bounded(schema: Schema, keyword: str, most: int | None) -> Schema:
    return schema if most is None else {**schema, keyword: most}


def _scalar(kind: str) -> Schema:
    """`parseRuleType`: formats are strings, int-or-string has no type."""
    if kind in ("duration", "date", "date-time"):
        return {"type": "string", "format": kind}
    if kind == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": kind}


REQUIRED_OBJECT: Schema = {
    "type": "object",
    "required": ["required"],
    "properties": {"required": {"type": "string"}, "optional": {"type": "string"}},
}


def array(kind: str) -> Gen:  # genArrayWithRule
    return lambda n: _bounded({"type": "array", "items": _scalar(kind)}, "maxItems", n)


def array_of_arrays(kind: str) -> Gen:  # genArrayOfArraysWithRule
    return lambda n: _bounded(
        {"type": "array", "items": {"type": "array", "items": {"type": kind}}}, "maxItems", n
    )


def object_array(n: int | None) -> Schema:  # genObjectArrayWithRule
    return _bounded({"type": "array", "items": REQUIRED_OBJECT}, "maxItems", n)


def map_array(kind: str) -> Gen:  # getMapArrayWithRule
    item = {"type": "object", "additionalProperties": {"type": kind}}
    return lambda n: _bounded({"type": "array", "items": item}, "maxItems", n)


def map_of(item: Schema) -> Gen:  # genMapWithRule, genMapWithCustomItemRule
    return lambda n: _bounded({"type": "object", "additionalProperties": item}, "maxProperties", n)


def string(n: int | None) -> Schema:  # genStringWithRule
    return _bounded({"type": "string"}, "maxLength", n)


def byte_string(n: int | None) -> Schema:  # genBytesWithRule
    return _bounded({"type": "string", "format": "byte"}, "maxLength", n)


def enum_string(*values: str) -> Gen:  # genEnumWithRuleAndValues
    return lambda n: _bounded({"type": "string", "enum": list(values)}, "maxLength", n)


def nested_spec(n: int | None) -> Schema:  # genNestedSpecWithRule
    return _bounded({"type": "object", "additionalProperties": string(n)}, "maxProperties", n)


def all_max_nested(n: int | None) -> Schema:  # genAllMaxNestedSpecWithRootRule
    inner = _bounded(REQUIRED_OBJECT, "maxProperties", n)
    item = _bounded({"type": "object", "additionalProperties": inner}, "maxProperties", n)
    return _bounded({"type": "array", "items": item}, "maxItems", n)


def one_max_nested(n: int | None) -> Schema:  # genOneMaxNestedSpecWithRootRule
    item = _bounded({"type": "object", "additionalProperties": REQUIRED_OBJECT}, "maxProperties", n)
    return {"type": "array", "items": item}


def strings_array(n: int | None) -> Schema:  # "extended library join" / "isSorted"
    return _bounded({"type": "array", "items": string(n)}, "maxItems", n)


def replace_object(n: int | None) -> Schema:  # "extended library replace"
    props = {"str": string(n), "before": string(2), "after": string(4)}
    return {"type": "object", "properties": props}


def split_object(n: int | None) -> Schema:  # "extended library split"
    return {"type": "object", "properties": {"str": string(n), "separator": string(n)}}


INT_OR_STRING = _scalar("int-or-string")
NUMBER_ARRAY: Schema = {"type": "array", "items": {"type": "number"}}
NUMBER_MAP: Schema = {"type": "object", "additionalProperties": {"type": "number"}}
EXCEEDS = -1  # `expectCalcCostExceedsLimit: costLimit`: more than the per-call limit

# (name, schema, rule, calc cost, setMaxElements, set cost)
CASES: list[tuple[str, Gen, str, int, int, int]] = [
    ("number array with all", array("number"), "self.all(x, true)", 4718591, 10, 32),
    ("string array with all", array("string"), "self.all(x, true)", 3145727, 20, 62),
    ("boolean array with all", array("boolean"), "self.all(x, true)", 1887437, 5, 17),
    ("array of number arrays with all", array_of_arrays("number"), "self.all(x, true)", 3145727, 100, 302),
    ("array of objects with all", object_array, "self.all(x, true)", 555128, 50, 152),
    ("map of numbers with all", map_of({"type": "number"}), "self.all(x, true)", 1348169, 10, 32),
    ("map of strings with all", map_of({"type": "string"}), "self.all(x, true)", 1179647, 3, 11),
    ("map of booleans with all", map_of({"type": "boolean"}), "self.all(x, true)", 943718, 100, 302),
    ("string with contains", string, "self.contains('test')", 314574, 10, 5),
    ("string with startsWith", string, "self.startsWith('test')", 2, 15, 2),
    ("string with endsWith", string, "self.endsWith('test')", 2, 30, 2),
    ("concat string", string, 'size(self + "hello") > size("hello")', 314578, 4, 7),
    ("index of array with numbers", array("number"), "self[1] == 0.0", 2, 5000, 2),
    ("index of array with strings", array("string"), "self[1] == self[1]", 314577, 8, 314577),
    ("O(n^2) loop with numbers", array("number"), "self.all(x, self.all(y, true))", EXCEEDS, 10, 352),
    (
        "O(n^3) loop with numbers", array("number"), "self.all(x, self.all(y, self.all(z, true)))",
        EXCEEDS, 10, 3552,
    ),
    ("regex matches simple", string, 'self.matches("x")', 314574, 50, 22),
    ("regex matches empty string", string, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7),
    ("regex matches empty regex", string, 'self.matches("")', 1, 100, 1),
    ("map of strings with value length", nested_spec, "self.all(x, x.contains(self[x]))", 2752507, 10, 72),
    ("set array maxLength to zero", array("number"), "self[3] == 0.0", 2, 0, 2),
    ("set map maxLength to zero", map_of({"type": "number"}), 'self["x"] == 0.0', 2, 0, 2),
    ("set string maxLength to zero", string, 'self == "x"', 2, 0, 1),
    ("set bytes maxLength to zero", byte_string, 'self == b"x"', 2, 0, 1),
    (
        "set maxLength greater than estimated maxLength", array("number"), "self.all(x, x == 0.0)",
        6291454, 3 * 1024 * 2048, 25165826,
    ),
    (
        "nested types with root rule with all supporting maxLength", all_max_nested,
        'self.all(x, x["y"].required == "z")', 7340027, 10, 72,
    ),
    (
        "nested types with root rule with one supporting maxLength", one_max_nested,
        'self.all(x, x["y"].required == "z")', 7340027, 10, 7340027,
    ),
    ("int-or-string array with all", array("int-or-string"), "self.all(x, true)", 4718591, 10, 32),
    ("index of array with int-or-strings", array("int-or-string"), "self[0] == 5", 3, 10, 3),
    ("index of array with booleans", array("boolean"), "self[0] == false", 2, 25, 2),
    ("index of array of objects", object_array, "self[0] == null", 2, 422, 2),
    ("index of array of array of numnbers", array_of_arrays("number"), "self[0][0] == -1.0", 3, 51, 3),
    ("array of number maps with all", map_array("number"), "self.all(x, x.y == 25.2)", 6291452, 12, 74),
    ("index of array of number maps", map_array("number"), "self[0].x > 2.0", 4, 3000, 4),
    ("duration array with all", array("duration"), "self.all(x, true)", 2359295, 5, 17),
    ("index of duration array", array("duration"), "self[0].getHours() == 2", 4, 525, 4),
    ("date array with all", array("date"), "self.all(x, true)", 725936, 15, 47),
    ("index of date array", array("date"), "self[2].getDayOfMonth() == 13", 4, 42, 4),
    ("date-time array with all", array("date-time"), "self.all(x, true)", 428963, 25, 77),
    ("index of date-time array", array("date-time"), "self[2].getMinutes() == 45", 4, 99, 4),
    ("map of int-or-strings with all", map_of(INT_OR_STRING), "self.all(x, true)", 1348169, 15, 47),
    ("map of objects with all", map_of(REQUIRED_OBJECT), "self.all(x, true)", 428963, 20, 62),
    ("map of number maps with all", map_of(NUMBER_MAP), "self.all(x, true)", 1179647, 10, 32),
    ("map of number arrays with all", map_of(NUMBER_ARRAY), "self.all(x, true)", 1179647, 25, 77),
    ("map of durations with all", map_of(_scalar("duration")), "self.all(x, true)", 1048577, 5, 17),
    ("map of dates with all", map_of(_scalar("date")), "self.all(x, true)", 524288, 10, 32),
    ("map of date-times with all", map_of(_scalar("date-time")), "self.all(x, true)", 349526, 25, 77),
    ("extended library regex find", string, "self.find('[0-9]+') == ''", 629147, 10, 11),
    ("extended library join", strings_array, "self.join(' ') == 'aa bb'", 329853068905, 10, 43),
    ("extended library isSorted", strings_array, "self.isSorted() == true", 329854432052, 10, 52),
    (
        "extended library replace", replace_object,
        "self.str.replace(self.before, self.after) == 'does not matter'", 629154, 4, 12,
    ),
    ("extended library split", split_object, "self.str.split(self.separator) == []", 629160, 10, 22),
    ("extended library lowerAscii", string, "self.lowerAscii() == 'lower!'", 314575, 10, 6),
    ("check cost of size call", map_of({"type": "integer"}), "oldSelf.size() == self.size()", 5, 10, 5),
    (
        "check cost of timestamp comparison", map_of(_scalar("date-time")), 'self["a"] == self["b"]', 8, 7, 8,
    ),
    ("check cost of duration comparison", map_of(_scalar("duration")), 'self["c"] == self["d"]', 8, 42, 8),
    (
        "enums with maxLength equals to the longest possible value",
        enum_string("A", "B", "C", "LongValue"), "self.contains('A')", 2, 1000, 401,
    ),
]  # fmt: skip


def rule_cost(schema: Schema, rule: str) -> int:
    """The rule's estimated maximum, as apiextensions' `Compile` records it (`MaxCost`)."""
    typ = schema_to_type(schema, _no_refs, "selfType", resource_root=False)
    assert typ is not None
    env = conformance_environment(ConformanceDecls(variables={"self": typ, "oldSelf": typ}))
    checked = check(conformance_parse(rule, env), env)
    assert not checked.issues, [i.message for i in checked.issues]
    root = SchemaRoot(schema, _no_refs, resource_root=False)
    sizes = SchemaSizes({"self": root, "oldSelf": root})
    return estimate_cost(checked, sizes).cost.max


@pytest.mark.parametrize(
    ("name", "gen", "rule", "calc", "set_max", "set_cost"), CASES, ids=[c[0] for c in CASES]
)
def test_rule_estimate_as_apiextensions_estimates_it(
    name: str, gen: Gen, rule: str, calc: int, set_max: int, set_cost: int
) -> None:
    unbounded = rule_cost(gen(None), rule)
    if calc == EXCEEDS:
        assert unbounded > 1_000_000, name
    else:
        assert unbounded == calc, name
    assert rule_cost(gen(set_max), rule) == set_cost, name
