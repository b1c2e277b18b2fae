"""`vap-lsp serve --tcp HOST:PORT` answers LSP over a socket (for editors that prefer TCP), with
the same framing and lifecycle as stdio (`server.transport`: one reader for both)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from vap_lsp.server.transport import FrameReader

TIMEOUT = 30  # a guard against hanging, not a timing assertion


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _read_message(sock: socket.socket) -> dict[str, object]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, "server closed the connection"
        data += chunk
    header, _, body = data.partition(b"\r\n\r\n")
    length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(4096)
    result: dict[str, object] = json.loads(body[:length])
    return result


def test_initialize_over_tcp() -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vap_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not listen"
                time.sleep(0.1)
        with sock:
            body = json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
            ).encode()
            sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            reply = _read_message(sock)
            assert reply["id"] == 1
            result = reply["result"]
            assert isinstance(result, dict)
            assert result["serverInfo"]["name"] == "vap-lsp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_bad_tcp_address_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "vap_lsp", "serve", "--tcp", "nonsense"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "HOST:PORT" in result.stderr


@contextmanager
def _served() -> Iterator[tuple[subprocess.Popen[bytes], socket.socket]]:
    """A server process listening on a free port, and a client's connection to it."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vap_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not listen"
                time.sleep(0.1)
        with sock:
            yield proc, sock
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _frame(message: object) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_tcp_has_the_framing_and_lifecycle_of_stdio() -> None:
    """What pygls' own TCP reader got wrong: a lower-case header, garbage between messages and a
    body that is not JSON leave the server listening; `exit` is honoured, with 1 without
    `shutdown`."""
    with _served() as (proc, sock):
        messages = FrameReader(sock.recv)
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
        body = json.dumps(initialize).encode()
        sock.sendall(b"garbage\r\n\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
        reply = messages.next_message()
        assert reply["id"] == 1 and "capabilities" in reply["result"]
        sock.sendall(b"Content-Length: 5\r\n\r\nnope!")
        symbols = {"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": {"query": ""}}
        sock.sendall(_frame(symbols))
        assert messages.next_message() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": "the body of 5 bytes is not JSON"},
        }
        assert messages.next_message() == {"jsonrpc": "2.0", "id": 2, "result": []}
        sock.sendall(_frame({"jsonrpc": "2.0", "method": "exit"}))
        assert proc.wait(timeout=TIMEOUT) == 1


def test_a_port_in_use_is_an_error_not_a_traceback() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "vap_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr
