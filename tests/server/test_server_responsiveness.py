"""The event loop only moves messages: every request is answered from the thread pool.

A request that parses a large document on the loop would hold up every other request, edit and
publish behind it (with a 10 MB file open, a hover on another document waited 6 s). Latency
itself is measured by the benchmarks; this pins the structure.
"""

from __future__ import annotations

import asyncio

from vap_lsp.server.app import create_server

# Notifications and the handshake: cheap bookkeeping that must run in arrival order.
ON_THE_LOOP = {
    "initialize",
    "workspace/didChangeConfiguration",
    "textDocument/didOpen",
    "textDocument/didChange",
    "textDocument/didSave",
    "textDocument/didClose",
}


def test_every_request_handler_is_a_coroutine() -> None:
    server = create_server()
    features = server.protocol.fm.features
    assert (
        sorted(m for m, f in features.items() if m not in ON_THE_LOOP and not asyncio.iscoroutinefunction(f))
        == []
    )
    assert "textDocument/semanticTokens/full" in features  # the list is the real one
    for command in server.protocol.fm.commands.values():
        assert asyncio.iscoroutinefunction(command)
