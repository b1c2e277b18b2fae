"""The worker dispatch is the one error guard of the request handlers: a failing handler is
logged and answered with null (the session goes on); an error meant for the client still
reaches it."""

from __future__ import annotations

from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from vap_lsp.server.app import create_server


async def test_a_failing_handler_is_answered_with_null_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    def broken_hover(params: Any) -> str:
        raise ZeroDivisionError("a feature bug")

    assert await create_server().worker.request(broken_hover)(object()) is None
    assert "broken_hover failed" in caplog.text


async def test_an_error_for_the_client_reaches_it() -> None:
    def refuses(params: Any) -> str:
        raise JsonRpcInvalidParams("no")

    with pytest.raises(JsonRpcInvalidParams):
        await create_server().worker.request(refuses)(object())
