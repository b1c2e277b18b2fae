"""Custom resources: pruning and structural defaulting as apiextensions-apiserver applies them
(`pkg/apiserver/schema/defaulting/algorithm_test.go` TestDefault, `pruning/algorithm_test.go`)."""

from __future__ import annotations

from typing import Any

import yaml

from vap_lsp.defaulting import ITEM, VALUE, crd_defaulted_fields, default_object

SCHEMA: dict[str, Any] = yaml.safe_load(
    """
type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      replicas: {type: integer, default: 1}
      mode: {type: string, default: fast, nullable: true}
      size: {type: string, default: small}
      nested:
        type: object
        default: {}
        properties:
          level: {type: integer, default: 3}
      items:
        type: array
        items:
          type: object
          properties:
            weight: {type: integer, default: 10}
      byName:
        type: object
        additionalProperties:
          type: object
          properties:
            enabled: {type: boolean, default: true}
      free:
        type: object
        x-kubernetes-preserve-unknown-fields: true
"""
)


def run(obj: dict[str, Any]) -> dict[str, Any]:
    return default_object(obj, "1.35", SCHEMA).object


def test_defaults_fill_nested_objects_list_items_and_map_values() -> None:
    out = run(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"items": [{}, {"weight": 2}], "byName": {"a": {}}, "mode": None, "size": None},
        }
    )
    assert out["spec"] == {
        "items": [{"weight": 10}, {"weight": 2}],
        "byName": {"a": {"enabled": True}},
        "mode": None,  # nullable: an explicit null stays
        "size": "small",  # null while not nullable: defaulted
        "replicas": 1,
        "nested": {"level": 3},  # a defaulted object is defaulted further inside
    }


def test_missing_spec_gets_its_default_then_its_children() -> None:
    out = run({"apiVersion": "example.com/v1", "kind": "Widget"})
    assert out["spec"] == {"replicas": 1, "mode": "fast", "size": "small", "nested": {"level": 3}}


def test_unknown_fields_are_pruned_except_preserved_and_metadata() -> None:
    out = run(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"unknown": 1, "free": {"anything": {"goes": 1}}},
            "extra": True,
        }
    )
    assert "extra" not in out
    assert "unknown" not in out["spec"]
    assert out["spec"]["free"] == {"anything": {"goes": 1}}
    assert out["metadata"] == {"name": "w"}


def test_crd_defaulted_fields() -> None:
    fields = crd_defaulted_fields(SCHEMA)
    assert fields[("spec", "replicas")].value == 1
    assert ("spec", "items", ITEM, "weight") in fields
    assert ("spec", "byName", VALUE, "enabled") in fields
    assert ("spec", "free") not in fields
