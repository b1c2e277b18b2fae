"""OffsetMap: a scalar's decoded-index -> source-offset map stored as runs (vap_lsp.yaml.offsets).

It must behave exactly like the list of offsets it replaces (indexing, slicing, iteration,
equality, bisect), while storing one run per stretch of consecutive source characters.
"""

from __future__ import annotations

import bisect
import random

import pytest

from vap_lsp.yaml.model import MappingNode, ScalarNode
from vap_lsp.yaml.offsets import OffsetMap, OffsetRuns
from vap_lsp.yaml.parse import parse_yaml


def runs(m: OffsetMap) -> int:
    return len(m._starts)


def test_linear_map_is_one_run() -> None:
    m = OffsetMap.linear(5, 4)
    assert m == [5, 6, 7, 8]
    assert (len(m), m[0], m[-1], m[1:3]) == (4, 5, 8, [6, 7])
    assert runs(m) == 1


def test_gaps_and_repeats_start_new_runs() -> None:
    offsets = [4, 5, 7, 8, 8, 8, 20]  # an escape (5 -> 7), a constant tail, a jump
    m = OffsetMap.of(offsets)
    assert m == offsets and list(m) == offsets and tuple(m) == tuple(offsets)
    assert [m[i] for i in range(-7, 7)] == offsets + offsets
    assert runs(m) == 5  # 4-5, 7-8, 8, 8, 20


def test_out_of_range_index_raises_like_a_list() -> None:
    m = OffsetMap.linear(0, 3)
    with pytest.raises(IndexError):
        m[3]
    with pytest.raises(IndexError):
        m[-4]


def test_shifted_moves_every_offset_and_keeps_the_runs() -> None:
    m = OffsetMap.of([1, 2, 3, 10, 11])
    assert m.shifted(100) == [101, 102, 103, 110, 111]
    assert m.shifted(0) is m
    assert m == [1, 2, 3, 10, 11]  # immutable


def test_builder_merges_consecutive_additions() -> None:
    b = OffsetRuns()
    b.add(10, 3)  # 10 11 12
    b.add(13, 2)  # 13 14: continues the run
    b.add(20, 1)
    b.add(0, 0)  # nothing
    m = b.freeze()
    assert m == [10, 11, 12, 13, 14, 20] and runs(m) == 2


def test_empty_map_is_falsy() -> None:
    assert not OffsetMap.empty() and OffsetMap.empty() == [] and OffsetMap.linear(3, 0) == []


def test_index_of_is_bisect_left_on_random_monotone_maps() -> None:
    rng = random.Random(7)
    for _ in range(200):
        offsets = sorted(rng.randrange(0, 60) for _ in range(rng.randrange(1, 30)))
        m = OffsetMap.of(offsets)
        assert m == offsets
        for x in range(-1, 62):
            assert m.index_of(x) == bisect.bisect_left(offsets, x)


def test_a_plain_scalar_is_one_run_and_a_folded_block_one_per_line() -> None:
    text = "a: " + "x" * 500 + "\nb: >\n  one\n  two\n  three\n"
    f = parse_yaml(text)
    root = f.documents[0].root
    assert isinstance(root, MappingNode)
    a, b = (v for _, v in root.items)
    assert isinstance(a, ScalarNode) and isinstance(b, ScalarNode)
    assert runs(a.offsets) == 1 and len(a.offsets) == 501
    # "one two three\n": a run per line, the folded spaces and the final break mapped to breaks
    # that directly follow their line, so they join that line's run.
    assert b.value == "one two three\n" and runs(b.offsets) == 3
