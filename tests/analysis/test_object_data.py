"""Reading an object into plain data: one function (`objects.object_data`), one size limit,
cached by node."""

from __future__ import annotations

import pytest

from vap_lsp.analysis.model import objects
from vap_lsp.analysis.model.objects import OBJECT_NODE_BUDGET, find_objects, object_data
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


def test_the_cache_holds_a_bounded_amount_of_text_not_a_number_of_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An entry keeps its node, and so the parsed document, alive: bounded by 1,024 entries only,
    editing a 0.94 MB CRD in the server grew it by ~30 MiB an edit (1 GB after 30 edits), every
    version's model kept. Each entry weighs the characters its node spans, or the nodes its
    expansion visited when aliases make that more (here a tenth of the real bound)."""
    monkeypatch.setattr(objects._DATA, "max_weight", objects.DATA_CACHE_WEIGHT // 10)
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n"
    text += "".join(f"  key{i:06d}: value{i:06d}\n" for i in range(2_000))  # ~50,000 characters
    for version in range(2 * objects._DATA.max_weight // len(text)):
        (obj,) = find_objects(parse(f"# version {version}\n" + text))
        object_data(obj.node)
    held = [node.span.end - node.span.start for node, *_ in objects._DATA.values()]
    assert len(held) > 1
    assert sum(held) <= objects._DATA.max_weight


def test_aliases_weigh_what_they_expand_to() -> None:
    wide = "a: &a [" + ", ".join(["x"] * 1000) + "]\n"
    wide += "b: [" + ", ".join(["*a"] * 100) + "]\n"  # ~100,000 nodes from ~4,400 characters
    objects._DATA.clear()
    object_data(parse(wide).documents[0].root)
    assert objects._DATA.weight >= 100_000
