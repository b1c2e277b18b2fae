"""The worker dispatch is the one error guard of the request handlers: a failing handler is
logged and answered with null (the session goes on); an error meant for the client still
reaches it."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from vap_lsp.server.app import create_server
from vap_lsp.server.worker import in_worker


async def test_a_failing_handler_is_answered_with_null_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    def broken_hover(ls: Any, params: Any) -> str:
        raise ZeroDivisionError("a feature bug")

    assert await in_worker(broken_hover)(create_server(), object()) is None
    assert "broken_hover failed" in caplog.text


async def test_an_error_for_the_client_reaches_it() -> None:
    def refuses(ls: Any, params: Any) -> str:
        raise JsonRpcInvalidParams("no")

    with pytest.raises(JsonRpcInvalidParams):
        await in_worker(refuses)(create_server(), object())
