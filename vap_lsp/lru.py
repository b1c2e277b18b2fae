"""`LruCache`: the bounded, thread-safe mapping behind the project's result caches.

The server analyses in worker threads while language services (also in worker threads) read the
same compile, policy and snapshot caches; a lookup followed by a move-to-end, or an eviction loop,
must not interleave with another thread's, so every operation holds the cache's lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["LruCache"]

K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most `size` entries (more while one `put` asks for it), and with `weigh`, at most
    `max_weight` in total of what it gives each entry (the characters of the text a result was
    computed from: entries vary in size by orders of magnitude, a count alone bounds nothing);
    least recently used leave first. Values are never None: `get` answers None for a miss."""

    def __init__(self, size: int, *, weigh: Callable[[K, V], int] | None = None, max_weight: int = 0) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._weigh = weigh
        self.max_weight = max_weight
        self._weights: dict[K, int] = {}
        self.weight = 0  # the total of the entries' weights

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V, *, extra: int = 0) -> None:
        """Store `value`; `extra` raises the bound for this call (e.g. by a file's object count,
        so analysing one large file never evicts its own results)."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            if self._weigh is not None:
                weight = self._weigh(key, value)
                self.weight += weight - self._weights.get(key, 0)
                self._weights[key] = weight
            while len(self._entries) > self.size + extra or (
                self._weigh is not None and self.weight > self.max_weight and len(self._entries) > extra + 1
            ):
                old, _ = self._entries.popitem(last=False)
                self.weight -= self._weights.pop(old, 0)

    def values(self) -> list[V]:
        """The values held, least recently used first (a copy)."""
        with self._lock:
            return list(self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._weights.clear()
            self.weight = 0

    def __len__(self) -> int:
        return len(self._entries)
