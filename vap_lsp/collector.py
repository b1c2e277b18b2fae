"""The cyclic garbage collector around start-up, for every process vap-lsp starts.

Importing the CLI, lsprotocol, pygls and the engine builds ~10^5 long-lived objects and a little
cyclic garbage (classes attrs rebuilds, ~18,000 objects in all), yet the collector keeps passing
over all of it while modules load: ~100 ms of a server's start (measured with `gc.callbacks`).
So a process pauses it while it loads (`pause`), turns it back on once loaded (`resume`), and a
long-lived one (the server) later collects once and freezes what survived (`freeze_survivors`,
off the path to the first diagnostics): later full collections then skip the start-up objects,
and the start-up garbage is freed rather than frozen with them.
"""

from __future__ import annotations

import gc


def pause() -> None:
    gc.disable()


def resume() -> None:
    gc.enable()


def freeze_survivors() -> None:
    gc.collect()
    gc.freeze()
