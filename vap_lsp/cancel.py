"""Cancellation checkpoints: work that nobody waits for any more stops at the next one.

A cancelled request (`$/cancelRequest`) or a superseded analysis (the document changed while
it ran: its result would never be published) sets its `Token`; the thread doing the work runs
inside `scope(token)` and `checkpoint()` raises `Cancelled` there: per piece parsed and every
1,024 parser events inside one (`yaml.parse`: one 20 MB document stops midway), per object
checked (`analysis.engine`), per expression compiled (`cel.compile`). `Cancelled` is a
`BaseException`, like `asyncio.CancelledError`, so the engine's `except Exception` safety nets
(which turn a failing check into a diagnostic) let it through. Results are cached only when
complete, so an interrupted analysis leaves every cache consistent (and the objects it
finished cached for the next run).
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

__all__ = ["Cancelled", "Latest", "Token", "checkpoint", "scope"]


class Cancelled(BaseException):
    """The work of this thread was cancelled."""


class Token:
    __slots__ = ("cancelled", "superseded")

    def __init__(self) -> None:
        self.cancelled = False
        self.superseded = False

    def cancel(self) -> None:
        self.cancelled = True

    def supersede(self) -> None:
        """Cancelled because newer work of the same kind replaced it (not by its caller)."""
        self.superseded = self.cancelled = True


class Latest:
    """The newest work per key: work started under a key supersedes the older work still under
    way there (a second hover on a document makes the first one's answer useless)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[Hashable, Token] = {}

    def start(self, key: Hashable) -> Token:
        token = Token()
        with self._lock:
            older = self._tokens.get(key)
            self._tokens[key] = token
        if older is not None:
            older.supersede()
        return token

    def finish(self, key: Hashable, token: Token) -> None:
        with self._lock:
            if self._tokens.get(key) is token:
                del self._tokens[key]


_local = threading.local()


@contextmanager
def scope(token: Token) -> Iterator[None]:
    """Checkpoints in this thread inside the block answer to `token`."""
    outer = getattr(_local, "token", None)
    _local.token = token
    try:
        yield
    finally:
        _local.token = outer


def checkpoint() -> None:
    token: Token | None = getattr(_local, "token", None)
    if token is not None and token.cancelled:
        raise Cancelled
