"""Request handlers do their work in the server's thread pool, never on the event loop.

A whole-document feature parses the file when no analysis of its version exists yet; on a large
file that takes seconds, and on the event loop it would hold up every other request, document
change and publish behind it. The response is still sent from the loop.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pygls.exceptions import JsonRpcException

from vap_lsp.cancel import Cancelled, Token, scope
from vap_lsp.server.documents import DocumentNotOpen, VapWorkspace
from vap_lsp.server.preload import wait_for_engine

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)

T = TypeVar("T")
S = TypeVar("S")
P = TypeVar("P")


def _after_engine_import(work: Callable[[], T]) -> T:
    # Start-up imports the engine in the background (`server.preload`); work that could import
    # modules itself waits for it, so that two threads never import at the same time.
    wait_for_engine()
    return work()


async def off_loop(ls: LanguageServer, work: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(
        ls.thread_pool, functools.partial(_after_engine_import, work)
    )


def in_background(ls: LanguageServer, work: Callable[[], object]) -> None:
    """Run `work` in the pool without waiting for it; a failure is logged, not lost."""
    future = asyncio.get_running_loop().run_in_executor(
        ls.thread_pool, functools.partial(_after_engine_import, work)
    )
    future.add_done_callback(_log_failure)


def _log_failure(future: asyncio.Future[object]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("background work failed", exc_info=future.exception())


def in_worker(
    handler: Callable[[S, P], T],
) -> Callable[[S, P], Coroutine[Any, Any, T | None]]:
    """Register `handler` (a plain function of the server and the params) to run in the pool;
    a request naming a document that is not open is answered with null without running it, and
    so is one whose handler fails (logged) or is cancelled."""

    @functools.wraps(handler)
    async def run(ls: S, params: P) -> T | None:  # pygls passes the server to a first parameter named `ls`
        server = cast("LanguageServer", ls)
        if not _is_open(server, params):
            return None  # features answer null for a document the client has not opened
        token = Token()

        def work() -> T:
            with scope(token):
                return handler(ls, params)

        try:
            return await off_loop(server, work)
        except asyncio.CancelledError:  # `$/cancelRequest`: the thread stops at its next checkpoint
            token.cancel()
            raise
        except (DocumentNotOpen, Cancelled):  # closed meanwhile
            return None
        except JsonRpcException:  # an answer for the client (pygls sends it as the error)
            raise
        except Exception:  # the one guard: a feature bug must not take the session down
            log.exception("%s failed", getattr(handler, "__name__", "a request"))
            return None

    return run


def _is_open(ls: LanguageServer, params: object) -> bool:
    """Whether the document the request names (if any) is open; the disk is never read for one."""
    document = getattr(params, "text_document", None)
    uri = getattr(document, "uri", None)
    if not isinstance(uri, str):
        return True
    workspace = ls.workspace
    return workspace.is_open(uri) if isinstance(workspace, VapWorkspace) else uri in workspace.text_documents
