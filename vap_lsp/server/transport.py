"""JSON-RPC over stdio or TCP and the LSP lifecycle, hardened where pygls 2.1.1 is not.

pygls stays the framework (features, converters, workspace); this module replaces what a
careless client or a pygls defect could knock over:

- framing (`FrameReader`, on its own thread, never in the thread pool that analyses; the one
  reader of both stdio and TCP, `serve`): header
  names are case-insensitive; a message whose body is not JSON (a client counting characters
  instead of bytes in Content-Length) is recovered from the bytes up to the end of its JSON value
  (at once: its sender may be waiting for the answer), else up to the next header, or dropped,
  and the reader re-synchronises on the next `Content-Length` instead of going deaf;
  a Content-Length above `MAX_MESSAGE_BYTES` is skipped without allocating it;
- errors a client must get as answers (`VapProtocol.dispatch`), with an `id` member that is
  null where the request's cannot be read (pygls leaves the member out): -32700 for a body
  that is not JSON, -32600 for one that is not a request object, -32602 for ill-typed params, -32002 for a
  request before `initialize`, -32600 for a request after `shutdown` and for a second
  `initialize` (the open documents stay);
- `exit` ends the process with 0 after `shutdown` and 1 without (pygls's `sys.exit` inside
  the loop was swallowed: always 0); end of input does the same;
- every finished handler's future leaves `_request_futures` (pygls keeps one per notification
  for ever: ~1.9 KB per keystroke);
- `didChange` without changes still moves the document's version, so it is published for it;
- a client that sends `rootUri` (or `rootPath`) without `workspaceFolders` has that root as its
  one workspace folder (pygls made none: nothing was scanned);
- the position encoding pygls negotiates and announces (UTF-8 when a client such as Neovim
  offers it first) is the one positions are counted in;
- output is written on its own thread (`QueuedWriter`): a client that stops reading blocks that
  thread, never the event loop, so `exit` is still honoured; a publication of a document's
  diagnostics not yet written when a newer one for the same document comes is dropped, and
  beyond `MAX_QUEUED_BYTES` unwritten, new messages are dropped (logged once).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Generator, Hashable
from concurrent.futures import Future
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import (
    JsonRpcContentModified,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path

from vap_lsp.server.documents import VapTextDocument, VapWorkspace

log = logging.getLogger(__name__)

# The largest message read: a 20 MB policy file opened is ~21 MB of JSON.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# A header line longer than this is not a header: the reader re-synchronises.
_MAX_HEADER_LINE = 8 * 1024
# Output a client has not read yet beyond which new messages are dropped (it is not reading).
MAX_QUEUED_BYTES = 64 * 1024 * 1024
_MARKER = b"content-length:"
_LENGTH = re.compile(rb"\s*content-length\s*:\s*(\d+)\s*", re.IGNORECASE)


def _message(value: Any) -> Any:
    """A parsed body as the next message: `null` is JSON but no message (None means the end of
    the input to the reader's caller), so it is an invalid request, answered as one."""
    return (
        JsonRpcInvalidRequest("the body is null: not a request, notification or response")
        if value is None
        else value
    )


class FrameReader:
    """Messages (parsed JSON) from a byte stream with LSP's base protocol framing."""

    def __init__(self, read: Callable[[int], bytes], max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._read = read
        self._buffer = bytearray()
        self._eof = False
        self.max_bytes = max_bytes

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._read(65536)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    def _line(self) -> bytes | None:
        """The next line with its `\\n`; None at the end of input. A line longer than a header
        can be is cut at the limit (and so does not parse as one)."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 or len(self._buffer) > _MAX_HEADER_LINE:
                end = end + 1 if end >= 0 else _MAX_HEADER_LINE
                line = bytes(self._buffer[:end])
                del self._buffer[:end]
                return line
            if not self._fill():
                if not self._buffer:
                    return None
                line = bytes(self._buffer)
                self._buffer.clear()
                return line

    def _exactly(self, n: int) -> bytes | None:
        while len(self._buffer) < n:
            if not self._fill():
                return None
        data = bytes(self._buffer[:n])
        del self._buffer[:n]
        return data

    def _until_marker(self, data: bytes, *, keep: bool = True) -> tuple[bytes, int, bool]:
        """`data` and what follows in the input up to the next `Content-Length` header (left in
        the input): at most the last `max_bytes` of it (none unless `keep`: skipped input is only
        searched), how many bytes that was, and whether a marker was found. Each byte is
        lower-cased and searched once, so skipping is linear in what is skipped."""
        pending = bytearray(data) + self._buffer
        self._buffer.clear()
        dropped = 0  # bytes let go from the front of pending
        searched = 0  # pending[:searched] holds no marker start, but for a marker's first bytes
        while True:
            start = max(0, searched - len(_MARKER) + 1)
            at = bytes(pending[start:]).lower().find(_MARKER)
            if at >= 0:
                end = start + at
                self._buffer[:0] = pending[end:]
                return bytes(pending[:end]), dropped + end, True
            searched = len(pending)
            limit = max(self.max_bytes if keep else 0, len(_MARKER) - 1)
            if len(pending) > limit:  # keep the tail where a marker may start
                drop = len(pending) - limit
                del pending[:drop]
                dropped += drop
                searched -= drop
            chunk = b""
            if not self._eof:
                chunk = self._read(65536)
                self._eof = not chunk
            if not chunk:
                return bytes(pending), dropped + len(pending), False
            pending += chunk

    def _rest_of_value(self, body: bytes) -> tuple[Any] | None:
        """(The JSON value `body` starts, completed from the input), leaving what follows it in
        the input, if the input goes on with a value's remaining bytes and then ends or a header
        starts; None (nothing consumed) if it does not."""
        decoder = json.JSONDecoder()
        while True:
            data = body + bytes(self._buffer)
            try:
                text = data.decode()
            except UnicodeDecodeError as error:
                if error.reason != "unexpected end of data":
                    return None  # not UTF-8
                text = data[: error.start].decode()  # a character cut at the end: read on
            try:
                value, end = decoder.raw_decode(text)
            except json.JSONDecodeError as error:
                incomplete = error.pos >= len(text) or error.msg.startswith("Unterminated string")
                if not incomplete or len(data) > self.max_bytes or not self._fill():
                    return None
                continue
            rest = data[len(text[:end].encode()) :]
            head = rest.lstrip()[: len(_MARKER)].lower()
            if not _MARKER.startswith(head):
                return None
            self._buffer[:] = rest
            return (value,)

    def _headers(self) -> int | None:
        """The Content-Length of the next header block; None at the end of input."""
        length: int | None = None
        seen = False
        while True:
            line = self._line()
            if line is None:
                return None
            if not line.strip():
                if length is not None:
                    return length
                if seen:
                    log.warning("a message without Content-Length was ignored")
                    seen = False
                continue
            match = _LENGTH.fullmatch(line)
            if match is not None:
                length, seen = int(match.group(1)), True
            elif b":" in line and len(line) < _MAX_HEADER_LINE and line[:1].isalpha():
                seen = True  # another header (Content-Type)
            else:  # not a header: out of step; go to the next Content-Length
                _, skipped, found = self._until_marker(line, keep=False)
                log.warning("skipped %d bytes of input that were not a message", skipped)
                if not found:
                    return None
                length, seen = None, False

    def next_message(self) -> Any:
        """The next message as parsed JSON (a `JsonRpcParseError` instance for a body that is
        not JSON); None at the end of input."""
        while True:
            length = self._headers()
            if length is None:
                return None
            if length > self.max_bytes:
                log.warning("a message of %d bytes (at most %d) was skipped", length, self.max_bytes)
                if not self._until_marker(b"", keep=False)[2]:
                    return None
                continue
            body = self._exactly(length)
            if body is None:
                return None
            try:
                return _message(json.loads(body))
            except RecursionError:
                return JsonRpcParseError(f"the body of {len(body)} bytes is nested too deeply to read")
            except ValueError:
                pass
            # Content-Length was wrong. Characters counted instead of bytes fall short by the
            # bytes past ASCII, which follow: the message ends where its JSON value does (read
            # now: its sender may wait for the answer and send nothing more).
            try:
                found = self._rest_of_value(body)
            except RecursionError:
                return JsonRpcParseError(f"the body of {len(body)} bytes is nested too deeply to read")
            if found is not None:
                log.warning(
                    "a message with a wrong Content-Length (%d) was read to the end of its JSON", length
                )
                return _message(found[0])
            # Else it ends where the next one starts.
            body, _, _ = self._until_marker(body)
            try:
                message = json.loads(body)
                log.warning(
                    "a message with a wrong Content-Length (%d, not %d bytes) was read", length, len(body)
                )
                return _message(message)
            except RecursionError:
                return JsonRpcParseError(f"the body of {len(body)} bytes is nested too deeply to read")
            except ValueError:
                return JsonRpcParseError(f"the body of {len(body)} bytes is not JSON")


class QueuedWriter:
    """pygls' writer, writing on its own thread in the order messages come (see the module)."""

    def __init__(self, output: BinaryIO, max_bytes: int = MAX_QUEUED_BYTES) -> None:
        self._output = output
        self._max_bytes = max_bytes
        self._ready = threading.Condition()
        self._queue: deque[list[Any]] = deque()  # [key, frame]; a superseded frame is b""
        self._latest: dict[Hashable, list[Any]] = {}
        self._bytes = 0
        self._closed = False
        self._dropping = False
        threading.Thread(target=self._drain, name="vap-lsp output", daemon=True).start()

    def write(self, data: bytes, key: Hashable | None = None) -> None:
        """Queue one framed message; `key` names what a later message with the same key
        supersedes while this one is not written (a document's diagnostics)."""
        with self._ready:
            if self._closed:
                return
            older = self._latest.get(key) if key is not None else None
            freed = len(older[1]) if older is not None else 0
            if self._bytes - freed + len(data) > self._max_bytes:  # the older one stays, if any
                if not self._dropping:
                    log.error(
                        "the client reads nothing: %d bytes wait, new messages are dropped", self._bytes
                    )
                    self._dropping = True
                return
            if older is not None:
                self._bytes -= freed
                older[1] = b""
            entry = [key, data]
            self._queue.append(entry)
            self._bytes += len(data)
            if key is not None:
                self._latest[key] = entry
            self._ready.notify()

    def pending(self) -> int:
        """Bytes queued and not written yet."""
        with self._ready:
            return self._bytes

    def _drain(self) -> None:
        while True:
            with self._ready:
                while not self._queue and not self._closed:
                    self._ready.wait()
                if not self._queue:
                    return
                entry = self._queue.popleft()
                key, data = entry
                if key is not None and self._latest.get(key) is entry:
                    del self._latest[key]
                self._bytes -= len(data)
                if self._bytes <= self._max_bytes // 2:
                    self._dropping = False
            if not data:
                continue
            try:
                self._output.write(data)
                self._output.flush()
            except (OSError, ValueError):  # the client closed its input: nothing more can go
                log.warning("cannot write to the client any more")
                with self._ready:
                    self._closed = True
                    self._queue.clear()
                    self._latest.clear()
                    self._bytes = 0
                return

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify()


def _superseding_key(data: Any) -> Hashable | None:
    """What a message supersedes when it is sent: a document's earlier diagnostics."""
    if getattr(data, "method", None) == lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
        uri = getattr(getattr(data, "params", None), "uri", None)
        if isinstance(uri, str):
            return (lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, uri)
    return None


class VapProtocol(LanguageServerProtocol):
    """pygls' protocol with the lifecycle rules of LSP 3.17 and without its leaks."""

    def __init__(self, server: Any, converter: Any) -> None:
        super().__init__(server, converter)
        self._initialize_received = False
        self.exit_code: int | None = None
        # Set by the transport: called once `exit` was handled (or the input ended).
        self.on_exit: Callable[[int], None] | None = None

    def dispatch(self, data: Any) -> None:
        """Handle one parsed message (on the event loop); what must be answered with an error
        is answered."""
        if isinstance(data, JsonRpcException):
            self._send_response(None, None, data.to_response_error())
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != self.VERSION:
            self._send_response(_request_id(data), None, JsonRpcInvalidRequest().to_response_error())
            return
        method = data.get("method")
        msg_id: Any = data.get("id")
        if isinstance(method, str) and "id" in data:
            error = self._lifecycle_error(method)
            if error is not None:
                self._send_response(msg_id, None, error.to_response_error())
                return
        elif (
            method != lsp.EXIT
            and isinstance(method, str)
            and (not self._initialize_received or self._shutdown)
        ):
            log.debug("dropped %s (before initialize or after shutdown)", method)
            return
        try:
            message = self.structure_message(data)
        except JsonRpcException as exc:
            if isinstance(method, str) and "id" in data:
                self._send_response(msg_id, None, exc.to_response_error())
            else:
                log.warning("dropped %s: %s", method or "a response", exc)
            return
        if method == lsp.INITIALIZE:
            self._initialize_received = True
        self.handle_message(message)

    def _send_response(self, msg_id: Any, result: Any = None, error: lsp.ResponseError | None = None) -> None:
        """An error response keeps its `id` member even when it is null (pygls' converter drops
        null members: JSON-RPC 2.0 says a parse error or an invalid request whose id cannot be
        read is answered with `"id": null`)."""
        if error is None:
            super()._send_response(msg_id, result)
        else:
            self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": error})

    def _send_data(self, data: Any) -> None:
        """pygls' framing (Content-Length counted in bytes), through the `QueuedWriter` with what
        the message supersedes."""
        if not data or self.writer is None:
            return
        try:
            body = json.dumps(data, default=self._serialize_message).encode(self.CHARSET)
        except Exception as error:  # a message that cannot be serialised: as pygls reports it
            log.exception("cannot serialise a message")
            self._server._report_server_error(error, JsonRpcInternalError)
            return
        header = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}"
        frame = header.encode("ascii") + b"\r\n\r\n" + body
        if isinstance(self.writer, QueuedWriter):
            self.writer.write(frame, _superseding_key(data))
        else:
            self.writer.write(frame)

    def _lifecycle_error(self, method: str) -> JsonRpcException | None:
        if method == lsp.INITIALIZE and self._initialize_received:
            return JsonRpcInvalidRequest("initialize was already received: the server keeps its state")
        if not self._initialize_received and method != lsp.INITIALIZE:
            return JsonRpcServerNotInitialized(f"{method} before initialize")
        if self._shutdown:
            return JsonRpcInvalidRequest(f"{method} after shutdown")
        return None

    def _execute_handler(
        self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(lambda done: self._forget(msg_id, done))

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A superseded request's ContentModified (`server.worker`) is an ordinary answer, sent
        without the traceback pygls logs for every error a handler raises."""
        if not future.cancelled() and isinstance(future.exception(), JsonRpcContentModified):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, None, future.exception().to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _forget(self, msg_id: Any, future: Future[Any] | asyncio.Future[Any]) -> None:
        if self._request_futures.get(msg_id) is future:
            self._request_futures.pop(msg_id, None)

    @lsp_method(lsp.INITIALIZE)
    def lsp_initialize(self, params: lsp.InitializeParams) -> Generator[Any, Any, lsp.InitializeResult]:
        steps = super().lsp_initialize(params)
        try:
            step = next(steps)
        except StopIteration as done:  # (no initialize handler)
            self._install_workspace(params)
            return done.value  # type: ignore[no-any-return]
        self._install_workspace(params)
        try:
            while True:
                step = steps.send((yield step))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    def _install_workspace(self, params: lsp.InitializeParams) -> None:
        """Replace the workspace pygls has just made (its first step) with ours, which reads no
        disk and keeps LSP's line breaks (`server.documents`), with the position encoding pygls
        negotiated and announces (it was taken before pygls made it: UTF-16 whatever was
        announced)."""
        root_uri = params.root_uri
        if root_uri is None and params.root_path is not None:
            root_uri = from_fs_path(params.root_path)
        folders = params.workspace_folders
        if folders is None and root_uri is not None:
            # A client without workspace folders: its root is the one folder (LSP 3.17, rootUri).
            name = unquote(root_uri.rstrip("/").rsplit("/", 1)[-1]) or root_uri
            folders = [lsp.WorkspaceFolder(uri=root_uri, name=name)]
        made = self._workspace
        self._workspace = VapWorkspace(
            root_uri,
            self._server._text_document_sync_kind,
            folders or [],
            made.position_encoding if made is not None else None,
        )

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: lsp.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        document = self.workspace.text_documents.get(params.text_document.uri)
        if document is None:
            log.warning("didChange of %s, which is not open, was ignored", params.text_document.uri)
            return
        if isinstance(document, VapTextDocument):
            document.apply_changes(params.content_changes)
        else:
            for change in params.content_changes:
                document.apply_change(change)
        document.version = params.text_document.version  # also without changes
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.SHUTDOWN)
    def lsp_shutdown(self, *args: Any) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.SHUTDOWN)) is not None:
            yield handler, args, None
        current = self.msg_id
        # A copy: a cancelled future leaves the table at once (`_forget`).
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        self._shutdown = True

    @lsp_method(lsp.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(lsp.EXIT)) is not None:
            yield handler, args, None
        self.finish(0 if self._shutdown else 1)

    def finish(self, code: int) -> None:
        if self.exit_code is None:
            self.exit_code = code
            if self.on_exit is not None:
                self.on_exit(code)


def _request_id(data: Any) -> int | str | None:
    """The id of a message that is not a valid request, if it has a usable one."""
    msg_id = data.get("id") if isinstance(data, dict) else None
    return msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None


def serve_stdio(protocol: VapProtocol, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Run the server on `stdin`/`stdout` until `exit` or the end of input; the exit code."""
    return serve(protocol, getattr(stdin, "read1", stdin.read), stdout)


def serve_tcp(protocol: VapProtocol, host: str, port: int) -> int:
    """Listen on `host:port`, serve the first client that connects as stdio is served (the
    same reader and lifecycle: pygls' own TCP reader has neither), and return its exit code.
    One client per process, as an editor starts one server per session."""
    try:
        listener = socket.create_server((host, port))
    except OSError as error:
        log.error("cannot listen on %s:%d: %s", host, port, error.strerror or error)
        return 2
    with listener:
        connection, _ = listener.accept()
    with connection, connection.makefile("wb") as output:
        return serve(protocol, connection.recv, output)


def serve(protocol: VapProtocol, read: Callable[[int], bytes], output: BinaryIO) -> int:
    """Run the server until `exit` or the end of input; returns the exit code. Input is read
    with `read` on its own thread, so it is never queued behind analyses."""
    protocol.set_writer(QueuedWriter(output))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    stopped: asyncio.Future[int] = loop.create_future()

    def stop(code: int) -> None:
        if not stopped.done():
            stopped.set_result(code)

    protocol.on_exit = stop

    def reader() -> None:
        frames = FrameReader(read)
        try:
            while (message := frames.next_message()) is not None:
                loop.call_soon_threadsafe(protocol.dispatch, message)
        except Exception:  # the input broke (closed under us): as its end
            log.exception("reading the client's messages failed")
        finally:
            # The end of input without `exit`: as `exit` (LSP: 1 unless shut down).
            loop.call_soon_threadsafe(lambda: protocol.finish(0 if protocol._shutdown else 1))

    threading.Thread(target=reader, name="vap-lsp input", daemon=True).start()
    try:
        return loop.run_until_complete(stopped)
    except KeyboardInterrupt:
        return 1


def exit_now(code: int) -> None:
    """End the process at once: analyses still running in the pool are abandoned, not waited for
    (an `exit` must be honoured even during a long analysis)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        logging.shutdown()
        os._exit(code)
