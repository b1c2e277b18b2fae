"""Reading an object into plain data: one function (`objects.object_data`), one size limit,
cached by node."""

from __future__ import annotations

import pytest

from vap_lsp.analysis.objects import OBJECT_NODE_BUDGET, find_objects, object_data
from vap_lsp.yaml.model import ExpansionLimit
from vap_lsp.yaml.parse import parse_yaml as parse


def test_an_object_is_read_once_and_shared() -> None:
    yaml_file = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: '1', num: 1}\n")
    (obj,) = find_objects(yaml_file)
    data = object_data(obj.node)
    assert data == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "a"},
        "data": {"k": "1", "num": 1},
    }
    assert object_data(obj.node) is data
    assert object_data(None) is None


def test_an_alias_bomb_is_over_the_one_budget_every_time() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefgh":
        prev = chr(ord(level) - 1)
        bomb += f"{level}: &{level} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    root = parse(bomb).documents[0].root
    for _ in range(2):
        with pytest.raises(ExpansionLimit, match=f"budget of {OBJECT_NODE_BUDGET} nodes"):
            object_data(root)
