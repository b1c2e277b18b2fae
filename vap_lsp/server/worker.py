"""Request handlers do their work in the server's thread pool, never on the event loop.

A whole-document feature parses the file when no analysis of its version exists yet; on a large
file that takes seconds, and on the event loop it would hold up every other request, document
change and publish behind it. The response is still sent from the loop.

`Worker` is fed by two callbacks (the pool, and whether a document is open), not by the server
object: the scheduler and every feature module use it without knowing pygls' server class.
Its dispatch (`request`, `guarded`) is the one error guard of the language services.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcContentModified, JsonRpcException

from vap_lsp.cancel import Cancelled, Latest, Token, checkpoint, scope
from vap_lsp.server.documents import DocumentNotOpen
from vap_lsp.server.preload import wait_for_engine

log = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")
P = TypeVar("P")


def _after_engine_import(work: Callable[[], T]) -> T:
    # Start-up imports the engine in the background (`server.preload`); work that could import
    # modules itself waits for it, so that two threads never import at the same time.
    wait_for_engine()
    return work()


def _log_failure(future: asyncio.Future[object]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("background work failed", exc_info=future.exception())


class Worker:
    def __init__(self, executor: Callable[[], Executor], is_open: Callable[[str], bool]) -> None:
        # The pool is created on first use (pygls' `thread_pool`): asked for each time.
        self._executor = executor
        self._is_open = is_open
        self._latest = Latest()  # the request under way per `supersession_key`

    async def run(self, work: Callable[[], T]) -> T:
        """`work` in the pool, awaited on the loop."""
        return await asyncio.get_running_loop().run_in_executor(
            self._executor(), functools.partial(_after_engine_import, work)
        )

    def background(self, work: Callable[[], object]) -> None:
        """Run `work` in the pool without waiting for it; a failure is logged, not lost."""
        future = asyncio.get_running_loop().run_in_executor(
            self._executor(), functools.partial(_after_engine_import, work)
        )
        future.add_done_callback(_log_failure)

    def request(self, handler: Callable[[P], T]) -> Callable[[P], Coroutine[Any, Any, T | None]]:
        """`handler` (a function of the params) as a pygls handler running in the pool; a
        request naming a document that is not open is answered with null without running it,
        and so is one whose handler fails (logged) or is cancelled; one superseded by a newer
        request of its kind on its document (`SUPERSEDED_BY_NEWER`) is answered with
        ContentModified."""

        @functools.wraps(handler)
        async def run(params: P) -> T | None:
            if not self._names_open_document(params):
                return None  # features answer null for a document the client has not opened
            key = supersession_key(params)
            token = self._latest.start(key) if key is not None else Token()

            def work() -> T | None:
                with scope(token):
                    checkpoint()  # superseded or cancelled while it waited for a thread: not begun
                    return self.guarded(None, functools.partial(handler, params), handler)

            try:
                return await self.run(work)
            except asyncio.CancelledError:  # `$/cancelRequest`: the thread stops at its next checkpoint
                token.cancel()
                raise
            except Cancelled:
                if key is not None and token.superseded:
                    raise JsonRpcContentModified(
                        f"superseded by a newer {key[0]} request on {key[1]}"
                    ) from None
                return None
            finally:
                if key is not None:
                    self._latest.finish(key, token)

        return run

    @staticmethod
    def guarded(default: D, work: Callable[[], T], name: object = None) -> T | D:
        """The one guard: `work()`, or `default` when it fails (logged) or its document was closed
        meanwhile; an error meant for the client (`JsonRpcException`) and cancellation pass.
        Handlers that combine several providers (code actions, hover, inlay hints) guard each."""
        try:
            return work()
        except DocumentNotOpen:  # closed meanwhile
            return default
        except JsonRpcException:  # an answer for the client (pygls sends it as the error)
            raise
        except Exception:  # a feature bug must not take the session down
            log.exception("%s failed", getattr(name or work, "__name__", "a request"))
            return default

    def _names_open_document(self, params: object) -> bool:
        """Whether the document the request names (if any) is open; the disk is never read for one."""
        document = getattr(params, "text_document", None)
        uri = getattr(document, "uri", None)
        return self._is_open(uri) if isinstance(uri, str) else True


# Requests an editor asks again by itself whenever the cursor, the view or the text moves: a newer
# one on the same document makes the older one's answer useless, so the older one stops at its
# next checkpoint and is answered with ContentModified (LSP 3.17, "Implementation
# Considerations": a server "can error these requests with ContentModified"; clients do not show
# it: vscode-languageclient answers its caller with the default value, and asks semantic tokens
# again). Requests whose answer is acted on are left out: executeCommand runs for its effect,
# code actions are asked for the cursor and for each diagnostic at once (both lists are shown),
# and a rename or a reference search is started by the user and awaited as such.
SUPERSEDED_BY_NEWER: dict[type, str] = {
    lsp.HoverParams: lsp.TEXT_DOCUMENT_HOVER,
    lsp.CompletionParams: lsp.TEXT_DOCUMENT_COMPLETION,
    lsp.SignatureHelpParams: lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
    lsp.DefinitionParams: lsp.TEXT_DOCUMENT_DEFINITION,
    lsp.SemanticTokensParams: lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    lsp.InlayHintParams: lsp.TEXT_DOCUMENT_INLAY_HINT,
    lsp.DocumentSymbolParams: lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
    lsp.CodeLensParams: lsp.TEXT_DOCUMENT_CODE_LENS,
}


def supersession_key(params: object) -> tuple[str, str] | None:
    """(method, document URI) for a request a newer one of the same key supersedes; None for
    one that runs to its end whatever follows it."""
    method = SUPERSEDED_BY_NEWER.get(type(params))
    uri = getattr(getattr(params, "text_document", None), "uri", None)
    return (method, uri) if method is not None and isinstance(uri, str) else None
