"""The cyclic garbage collector around start-up, for every process vap-lsp starts.

Importing the CLI, lsprotocol, pygls and the engine builds ~10^5 long-lived objects and a little
cyclic garbage (classes attrs rebuilds, ~18,000 objects in all), yet the collector keeps passing
over all of it while modules load: ~100 ms of a server's start (measured with `gc.callbacks`).
So a process pauses it while it loads (`pause`), turns it back on once loaded (`resume`), and a
long-lived one (the server) later collects once and freezes what survived (`freeze_survivors`,
off the path to the first diagnostics): later full collections then skip the start-up objects,
and the start-up garbage is freed rather than frozen with them.

Analysis allocates hundreds of thousands of small acyclic objects; the collector's repeated
passes over them cost ~40% of parse time on large files. So the engine holds the collector
off while it builds a file's model (`held`; reference counting still frees everything), and
the server holds it from an analysis until its diagnostics are written: the one collection of
what the analysis left (0.4-3 ms on a 1,000-line file) then runs after the publish, not before.
Holds are counted across threads; the last release turns the collector back on if a hold
found it on.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


def pause() -> None:
    gc.disable()


def resume() -> None:
    gc.enable()


def freeze_survivors() -> None:
    gc.collect()
    gc.freeze()


_lock = threading.Lock()
_holds = 0
_enable_after = False


def hold() -> None:
    global _holds, _enable_after
    with _lock:
        if _holds == 0:
            _enable_after = gc.isenabled()
            gc.disable()
        _holds += 1


def release() -> None:
    global _holds
    with _lock:
        _holds -= 1
        if _holds == 0 and _enable_after:
            gc.enable()


@contextlib.contextmanager
def held() -> Iterator[None]:
    hold()
    try:
        yield
    finally:
        release()
