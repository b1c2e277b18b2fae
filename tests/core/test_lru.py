"""LruCache: the bounded, thread-safe mapping behind the result caches (vap_lsp.lru)."""

from __future__ import annotations

import threading

from vap_lsp.lru import LruCache


def test_least_recently_used_leaves_first() -> None:
    cache: LruCache[str, int] = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2


def test_extra_raises_the_bound_for_one_put() -> None:
    cache: LruCache[int, int] = LruCache(1)
    for i in range(5):
        cache.put(i, i, extra=4)
    assert len(cache) == 5
    cache.put(5, 5)  # back to the plain bound
    assert len(cache) == 1 and cache.get(5) == 5


def test_threads_hammering_one_small_cache_never_raise() -> None:
    cache: LruCache[int, int] = LruCache(8)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for i in range(20_000):
                key = (i * seed) % 13
                if cache.get(key) is None:
                    cache.put(key, i)
        except BaseException as exc:  # an eviction racing a move-to-end raised KeyError before
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in (1, 3, 5, 7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) <= 8


def test_a_weighed_cache_is_bounded_by_the_weight_of_its_entries() -> None:
    """Entries of very different sizes: a count alone would let 4,096 large ones in."""
    cache: LruCache[str, int] = LruCache(100, weigh=lambda key, _: len(key), max_weight=10)
    cache.put("aaaa", 1)
    cache.put("bbbb", 2)
    cache.put("cccc", 3)  # 12 > 10: the least recently used leaves
    assert (cache.get("aaaa"), cache.get("bbbb"), cache.get("cccc")) == (None, 2, 3)
    assert cache.weight == 8
    cache.put("bbbb", 4)  # replacing an entry weighs it once
    assert cache.weight == 8
    cache.put("x" * 50, 5)  # heavier than the bound on its own: it stays, alone
    assert len(cache) == 1 and cache.weight == 50


def test_extra_keeps_a_large_files_own_entries_whatever_they_weigh() -> None:
    cache: LruCache[str, int] = LruCache(100, weigh=lambda key, _: len(key), max_weight=10)
    for i in range(5):
        cache.put(f"object-{i}", i, extra=5)
    assert len(cache) == 5
    cache.clear()
    assert cache.weight == 0 and len(cache) == 0
