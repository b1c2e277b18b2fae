"""`OffsetMap`: the source offset of every decoded character of a scalar, stored as runs.

A scalar's decoded characters mostly come from consecutive source characters (a plain or
quoted scalar without escapes is one run; each line of a block scalar is one). A list of one
int per character cost about 40 bytes a character and dominated the model of large files;
runs cost a few ints per scalar and shift to another base in O(runs).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

__all__ = ["OffsetMap", "OffsetRuns"]


class OffsetMap(Sequence[int]):
    """An immutable, monotone sequence of source offsets, one per decoded index.

    Run k covers decoded indices [starts[k], starts[k+1]) with offsets sources[k], sources[k]+1,
    ...; a map equals any sequence with the same items (tests compare with lists).
    """

    __slots__ = ("_n", "_sources", "_starts")

    def __init__(self, n: int, starts: tuple[int, ...], sources: tuple[int, ...]) -> None:
        self._n = n
        self._starts = starts
        self._sources = sources

    @classmethod
    def linear(cls, source_start: int, n: int) -> OffsetMap:
        """source_start, source_start + 1, ... (n items)."""
        return cls(n, (0,), (source_start,)) if n else EMPTY_OFFSETS

    @classmethod
    def empty(cls) -> OffsetMap:
        """The map of a node with no characters in the file (the model's default)."""
        return EMPTY_OFFSETS

    @classmethod
    def of(cls, offsets: Iterable[int]) -> OffsetMap:
        runs = OffsetRuns()
        for offset in offsets:
            runs.add(offset, 1)
        return runs.freeze()

    def shifted(self, d: int) -> OffsetMap:
        """Every offset moved by d (a parsed piece placed at another offset)."""
        if not self._n or not d:
            return self
        sources = self._sources
        if len(sources) == 1:  # most scalars: a moved copy of a large file makes one per scalar
            return OffsetMap(self._n, self._starts, (sources[0] + d,))
        return OffsetMap(self._n, self._starts, tuple([s + d for s in sources]))

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("offset index out of range")
        k = bisect.bisect_right(self._starts, i) - 1
        return self._sources[k] + i - self._starts[k]

    def __iter__(self) -> Iterator[int]:
        starts, sources = self._starts, self._sources
        for k, source in enumerate(sources):
            end = starts[k + 1] if k + 1 < len(starts) else self._n
            yield from range(source, source + end - starts[k])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OffsetMap):
            return self._n == other._n and list(self) == list(other)
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def index_of(self, offset: int) -> int:
        """The first decoded index whose source offset is at or after `offset` (bisect_left)."""
        return bisect.bisect_left(self, offset)

    def __repr__(self) -> str:
        return f"OffsetMap({list(self)!r})"


class OffsetRuns:
    """Builds an `OffsetMap` while a scalar is decoded, merging consecutive offsets."""

    __slots__ = ("n", "sources", "starts")

    def __init__(self) -> None:
        self.n = 0
        self.starts: list[int] = []
        self.sources: list[int] = []

    def add(self, source: int, count: int) -> None:
        """`count` decoded characters from source offsets source, source + 1, ..."""
        if count <= 0:
            return
        if not self.starts or self.sources[-1] + self.n - self.starts[-1] != source:
            self.starts.append(self.n)
            self.sources.append(source)
        self.n += count

    def freeze(self) -> OffsetMap:
        return OffsetMap(self.n, tuple(self.starts), tuple(self.sources)) if self.n else EMPTY_OFFSETS


EMPTY_OFFSETS = OffsetMap(0, (), ())
