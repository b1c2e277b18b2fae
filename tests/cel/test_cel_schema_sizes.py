"""Sizes from OpenAPI schemas as the API server derives them for cost estimation
(kubernetes/apiserver `pkg/cel/common/schemas.go` `SchemaDeclType`: `MaxElements` from maxItems,
maxProperties, maxLength, enum, else the worst case of a 3 MiB request from the minimum serialized
size; apiextensions `compilation.go` `sizeEstimator.EstimateSize`: 0..MaxElements by field path).
"""

from __future__ import annotations

from typing import Any

from vap_lsp.cel.cost_estimate import SizeEstimate
from vap_lsp.cel.schema_sizes import MAX_REQUEST_SIZE_BYTES, SchemaBound, SchemaRoot, SchemaSizes
from vap_lsp.cel.types import DYN

LIMIT = MAX_REQUEST_SIZE_BYTES - 2  # the request less its enclosing brackets or quotes


def _no_refs(schema: Any) -> Any:
    raise AssertionError(f"unexpected $ref {schema}")


def sizes(spec: dict[str, Any], version: str = "1.35") -> SchemaSizes:
    root = {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}
    return SchemaSizes({"object": SchemaRoot(root, _no_refs)}, kubernetes_version=version)


def size(s: SchemaSizes, *path: str) -> SizeEstimate | None:
    return s.estimate_size(("object", "spec", *path), DYN)


def test_declared_bounds() -> None:
    s = sizes(
        {
            "list": {"type": "array", "maxItems": 5, "items": {"type": "string"}},
            "map": {"type": "object", "maxProperties": 7, "additionalProperties": {"type": "string"}},
            # maxLength counts code points; the server reasons in bytes: × 4
            "name": {"type": "string", "maxLength": 10},
            "blob": {"type": "string", "format": "byte", "maxLength": 10},
            "mode": {"type": "string", "enum": ["a", "bbb"]},
            "negative": {"type": "array", "maxItems": -1, "items": {"type": "string"}},
        }
    )
    assert size(s, "list") == SizeEstimate(0, 5)
    assert size(s, "map") == SizeEstimate(0, 7)
    assert size(s, "name") == SizeEstimate(0, 40)
    assert size(s, "blob") == SizeEstimate(0, 10)
    assert size(s, "mode") == SizeEstimate(0, 3)
    assert size(s, "negative") == SizeEstimate(0, 0)
    assert s.bound(("object", "spec", "list")) == SchemaBound(("object", "spec", "list"), "maxItems", 5)


def test_worst_case_from_the_request_size() -> None:
    s = sizes(
        {
            "strings": {"type": "array", "items": {"type": "string"}},  # "" and a comma: 3
            "ints": {"type": "array", "items": {"type": "integer"}},  # 0 and a comma: 2
            "bools": {"type": "array", "items": {"type": "boolean"}},  # true: 5
            "objects": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "port"],
                    # {} + "name":"" (4 + 2 + 4) + "port":0 (4 + 1 + 4); a defaulted one is left out
                    "properties": {
                        "name": {"type": "string"},
                        "port": {"type": "integer"},
                        "mode": {"type": "string", "default": "x"},
                    },
                },
            },
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},  # "k":"" ≥ 8
            "text": {"type": "string"},
            "when": {"type": "string", "format": "date-time"},
        }
    )
    assert size(s, "strings") == SizeEstimate(0, LIMIT // 3)
    assert size(s, "ints") == SizeEstimate(0, LIMIT // 2)
    assert size(s, "bools") == SizeEstimate(0, LIMIT // 5)
    assert size(s, "objects") == SizeEstimate(0, LIMIT // (2 + 10 + 9 + 1))
    assert size(s, "labels") == SizeEstimate(0, LIMIT // 8)
    assert size(s, "text") == SizeEstimate(0, LIMIT)
    assert size(s, "when") == SizeEstimate(0, 32)
    assert s.bound(("object", "spec", "strings")) == SchemaBound(
        ("object", "spec", "strings"), None, LIMIT // 3
    )


def test_paths_through_items_values_and_keys() -> None:
    s = sizes(
        {
            "groups": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"members": {"type": "array", "maxItems": 3, "items": {"type": "string"}}},
                },
            },
            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 2}},
        }
    )
    assert size(s, "groups", "@items", "members") == SizeEstimate(0, 3)
    assert size(s, "groups", "@items", "members", "@items") == SizeEstimate(0, LIMIT)
    assert size(s, "labels", "@values") == SizeEstimate(0, 8)
    assert size(s, "labels", "@keys") == SizeEstimate(0, 0)  # StringType: MaxElements never set
    assert size(s, "groups", "@items") == SizeEstimate(0, 0)  # an object
    assert size(s, "groups", "@indices") is None  # the walk knows no indices
    assert size(s, "missing") is None
    assert s.estimate_size(("params", "x"), DYN) is None


def test_int_or_string_max_length_counts_from_1_34() -> None:
    """schemas.go, 1.34: an x-kubernetes-int-or-string with maxLength is bounded by it (× 4)."""
    spec = {"port": {"x-kubernetes-int-or-string": True, "maxLength": 5}}
    assert size(sizes(spec, "1.33"), "port") == SizeEstimate(0, LIMIT)
    assert size(sizes(spec, "1.34"), "port") == SizeEstimate(0, 20)


def test_resource_root_always_has_name_and_generate_name() -> None:
    """`WithTypeAndObjectMeta`: a root without metadata still exposes `metadata.name`."""
    root = SchemaRoot({"type": "object", "properties": {}}, _no_refs)
    s = SchemaSizes({"object": root})
    assert s.estimate_size(("object", "metadata", "name"), DYN) == SizeEstimate(0, LIMIT)
