"""The transport and document sync, driven with raw JSON-RPC bytes over a pipe.

Each test pins a defect of pygls 2.1.1 (the newest release) that vap-lsp answers for in
`server.transport` and `server.documents`: a pygls upgrade that fixes or breaks one shows here.
The server runs in this process on a thread (its own stdin reader, loop and pool) except where
the exit code of the process is the point.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp

from vap_lsp.server.app import create_server
from vap_lsp.server.transport import FrameReader, QueuedWriter, VapProtocol, serve_stdio

TIMEOUT = 30  # a guard against hanging, not a timing assertion


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Pipe:
    """A client speaking raw bytes to a server: in this process (`Pipe()`), or a process
    (`Pipe(process=True)`)."""

    def __init__(self, *, process: bool = False) -> None:
        self.messages: queue.Queue[Any] = queue.Queue()
        self.next_id = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.server = None
        if process:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "vap_lsp", "serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            assert self.process.stdin is not None and self.process.stdout is not None
            self._out, self._in = self.process.stdin, self.process.stdout
        else:
            server_in, client_out = os.pipe()
            client_in, server_out = os.pipe()
            self.server = create_server()
            stdin, stdout = os.fdopen(server_in, "rb"), os.fdopen(server_out, "wb")
            self.code: list[int] = []
            self._thread = threading.Thread(
                target=lambda: self.code.append(serve_stdio(self.protocol, stdin, stdout)), daemon=True
            )
            self._thread.start()
            self._out, self._in = os.fdopen(client_out, "wb"), os.fdopen(client_in, "rb")
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def protocol(self) -> VapProtocol:
        assert self.server is not None
        protocol = self.server.protocol
        assert isinstance(protocol, VapProtocol)
        return protocol

    def _read(self) -> None:
        frames = FrameReader(self._in.read1)  # type: ignore[attr-defined]
        while (message := frames.next_message()) is not None:
            self.messages.put(message)

    def raw(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()

    def notify(self, method: str, params: Any) -> None:
        self.raw(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.raw(frame({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def wait(self, match: Any) -> Any:
        """The next message `match` accepts (others are skipped)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            if match(message):
                return message

    def published(self, codes: list[str], uri: str | None = None) -> Any:
        """The next publication of diagnostics with these codes (for `uri`, when given)."""
        return self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and (uri is None or m["params"]["uri"] == uri)
                and [d["code"] for d in m["params"]["diagnostics"]] == codes
            )
        )

    def response(self, msg_id: int | None) -> Any:
        return self.wait(lambda m: "method" not in m and m.get("id") == msg_id)

    def call(self, method: str, params: Any) -> Any:
        return self.response(self.request(method, params))

    def initialize(self) -> None:
        result = self.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert "capabilities" in result["result"]
        self.notify("initialized", {})

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": version, "text": text}},
        )

    def text(self, uri: str) -> str:
        """The server's copy of a document, once every message sent so far was handled."""
        self.call("workspace/symbol", {"query": ""})  # handled after what came before it
        assert self.server is not None
        source: str = self.server.workspace.text_documents[uri].source
        return source

    def exit_code(self) -> int | None:
        """The server's exit code once it has ended (in this process: None if it has not)."""
        if self.process is not None:
            return self.process.wait(timeout=TIMEOUT)
        self._thread.join(TIMEOUT)
        return self.code[0] if self.code else None

    def close(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            return
        if self.process is None and self.code:
            return
        try:
            self.call("shutdown", None)
            self.notify("exit", None)
        except (OSError, queue.Empty):
            pass


@pytest.fixture
def pipe() -> Any:
    client = Pipe()
    yield client
    client.close()


URI = "file:///nowhere/policy.yaml"


def frame_bytes(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _edit(uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> dict[str, Any]:
    return {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [
            {
                "range": {
                    "start": {"line": start[0], "character": start[1]},
                    "end": {"line": end[0], "character": end[1]},
                },
                "text": text,
            }
        ],
    }


# Document sync: LSP's line breaks and clamping.


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_only_lsp_line_breaks_count_when_an_edit_is_applied(pipe: Pipe, separator: str) -> None:
    pipe.initialize()
    pipe.open(URI, f"a: 'x{separator}y'\nb: 2\n")
    pipe.notify("textDocument/didChange", _edit(URI, 2, (1, 0), (1, 1), "c"))
    assert pipe.text(URI) == f"a: 'x{separator}y'\nc: 2\n"


def test_a_position_past_the_end_of_a_line_is_that_lines_end(pipe: Pipe) -> None:
    pipe.initialize()
    pipe.open(URI, "a: 1\r\nb: 2")
    pipe.notify("textDocument/didChange", _edit(URI, 2, (0, 99), (0, 99), "0"))  # before the CRLF
    pipe.notify("textDocument/didChange", _edit(URI, 3, (1, 99), (1, 99), "0"))  # the last line
    pipe.notify("textDocument/didChange", _edit(URI, 4, (7, 0), (9, 9), "\n"))  # past the last line
    assert pipe.text(URI) == "a: 10\r\nb: 20\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_positions_are_counted_in_the_encoding_the_server_announced(pipe: Pipe, encoding: str) -> None:
    """The server announced the client's preferred position encoding (Neovim offers UTF-8
    first) but kept counting UTF-16 units: after a non-ASCII character every diagnostic was
    misplaced and every edit landed at the wrong column, corrupting the document."""
    answer = pipe.call(
        "initialize",
        {"processId": None, "rootUri": None, "capabilities": {"general": {"positionEncodings": [encoding]}}},
    )
    assert answer["result"]["capabilities"]["positionEncoding"] == encoding
    pipe.notify("initialized", {})
    line = "metadata: {name: p, annotations: {a: '\U0001f600\u00e9'}, bogus: 1}"
    text = f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n{line}\n"
    before = line[: line.index("bogus")]
    units = {
        "utf-8": len(before.encode()),
        "utf-16": len(before.encode("utf-16-le")) // 2,
        "utf-32": len(before),
    }
    column = units[encoding]
    pipe.open(URI, text)
    published = pipe.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    (unknown,) = [d for d in published["params"]["diagnostics"] if "bogus" in d["message"]]
    assert unknown["range"]["start"] == {"line": 2, "character": column}
    pipe.notify("textDocument/didChange", _edit(URI, 2, (2, column), (2, column + 5), "other"))
    assert pipe.text(URI).splitlines()[2] == line.replace("bogus", "other")


def _change(start: tuple[int, int], end: tuple[int, int], text: str) -> dict[str, Any]:
    rng = {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}}
    return {"range": rng, "text": text}


def test_changes_sent_last_to_first_are_applied_in_one_pass(
    pipe: Pipe, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replace-all arrives as one didChange of many changes, last to first: each was applied
    to a line index built anew over the whole text, on the event loop (1,000 changes to a 1 MB
    file held every message up for 3 s, 200 to a 10 MB file for 9 s). Changes that each end
    before the previous one starts are now placed in the text as it was and applied together."""
    import vap_lsp.server.documents as documents

    built: list[int] = []

    class CountedIndex(documents.LineIndex):
        def __init__(self, text: str) -> None:
            built.append(len(text))
            super().__init__(text)

    monkeypatch.setattr(documents, "LineIndex", CountedIndex)
    pipe.initialize()
    lines = [f"key{i}: value{i}" for i in range(200)]
    pipe.open(URI, "\n".join(lines) + "\n")
    pipe.text(URI)
    built.clear()
    replace_all = [_change((i, 0), (i, 3), "KEY") for i in range(199, -1, -1)]
    pipe.notify(
        "textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": replace_all}
    )
    assert pipe.text(URI) == "\n".join(line.replace("key", "KEY", 1) for line in lines) + "\n"
    assert len(built) == 1


@pytest.mark.parametrize(
    "changes",
    [
        # Last to first on one line; the second ends where the first starts.
        [_change((0, 6), (0, 8), "X"), _change((0, 2), (0, 6), "Y")],
        # The first one's start is past the end of its line (clamped): a later change on that line
        # past its original end must land after the first one's text, as one by one.
        [_change((0, 99), (0, 99), "!"), _change((0, 20), (0, 20), "?")],
        # Overlapping, ascending, reversed ranges, a whole-document change among them.
        [_change((1, 0), (1, 2), "a"), _change((1, 1), (1, 3), "b"), _change((2, 4), (1, 0), "c")],
        [_change((2, 0), (2, 1), "d"), {"text": "x: 1\ny: 2\n"}, _change((1, 0), (1, 1), "z")],
        # Surrogate pairs: a position inside one is never taken as it is.
        [_change((3, 6), (3, 6), "e"), _change((3, 5), (3, 5), "f"), _change((3, 2), (3, 2), "g")],
    ],
)
def test_changes_applied_together_equal_changes_applied_one_by_one(pipe: Pipe, changes: list[Any]) -> None:
    from vap_lsp.server.documents import VapTextDocument

    text = "abcdefgh\r\nijklmn\nopqrst\n'\U0001f600\U0001f600'\n"
    one_by_one = VapTextDocument(URI, text)
    for change in changes:
        params = {"textDocument": {"uri": URI, "version": 1}, "contentChanges": [change]}
        structured = pipe.protocol._converter.structure(params, lsp.DidChangeTextDocumentParams)
        one_by_one.apply_change(structured.content_changes[0])
    pipe.initialize()
    pipe.open(URI, text)
    pipe.notify(
        "textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": changes}
    )
    assert pipe.text(URI) == one_by_one.source


def test_a_document_is_known_by_the_uri_the_client_gave_it(pipe: Pipe) -> None:
    """pygls keys its documents by the URI with its %-escapes decoded, the server looked them up
    by the URI as sent: a document whose path has a space (or, from VS Code on Windows,
    `c%3A`) was never analysed on didOpen, never again after an edit, and was published under
    a URI the client never used."""
    uri = "file:///nowhere/my%20policies/p%C3%A9.yaml"
    pipe.initialize()
    pipe.open(uri, "a: [\n")
    published = pipe.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert published["params"]["uri"] == uri
    assert published["params"]["version"] == 1
    pipe.notify("textDocument/didChange", _edit(uri, 2, (0, 3), (0, 4), "1"))
    published = pipe.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert (published["params"]["uri"], published["params"]["version"]) == (uri, 2)
    assert published["params"]["diagnostics"] == []


def test_a_did_change_without_changes_is_published_for_its_version(pipe: Pipe) -> None:
    pipe.initialize()
    pipe.open(URI, "a: 1\n")
    pipe.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    pipe.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 7}, "contentChanges": []})
    published = pipe.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    assert published["params"]["version"] == 7


def test_notifications_leave_no_future_behind(pipe: Pipe) -> None:
    pipe.initialize()
    pipe.open(URI, "a: 1\n")
    for version in range(2, 202):
        pipe.notify("textDocument/didChange", _edit(URI, version, (0, 3), (0, 4), str(version)))
        pipe.notify("workspace/didChangeConfiguration", {"settings": {}})  # an async handler
    pipe.text(URI)
    # A finished future leaves on the loop's next turns; a leaked one never does.
    deadline = time.monotonic() + TIMEOUT
    while pipe.protocol._request_futures and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(pipe.protocol._request_futures) == 0


def test_notifications_about_documents_that_are_not_open_keep_nothing(pipe: Pipe) -> None:
    """A didSave naming a document the client never opened made the scheduler keep its
    bookkeeping for that URI for the rest of the session."""
    pipe.initialize()
    for i in range(100):
        pipe.notify("textDocument/didSave", {"textDocument": {"uri": f"file:///nowhere/never-{i}.yaml"}})
    pipe.call("workspace/symbol", {"query": ""})  # handled after the notifications
    assert pipe.server is not None
    assert pipe.server.diagnostics._documents == {}


# Framing: one wrong header must not make the server deaf.


def test_header_names_are_case_insensitive(pipe: Pipe) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    pipe.raw(
        b"content-length: %d\r\ncontent-type: application/vscode-jsonrpc\r\n\r\n%s"
        % (len(body), body.encode())
    )
    assert "capabilities" in pipe.response(1)["result"]


def test_a_content_length_counted_in_characters_loses_nothing(pipe: Pipe) -> None:
    pipe.initialize()
    text = "a: 'é ü ✓'\n"
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": URI, "languageId": "yaml", "version": 1, "text": text}},
        },
        ensure_ascii=False,
    )
    pipe.raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))  # characters, not bytes
    assert pipe.text(URI) == text


def test_a_request_whose_content_length_counts_characters_is_answered_at_once(pipe: Pipe) -> None:
    """The end of such a message was looked for at the next header: a client waiting for the
    answer (to `initialize` with a root path outside ASCII, to a symbol query with an accent)
    sent nothing more, and both waited for ever."""
    pipe.initialize()
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 50, "method": "workspace/symbol", "params": {"query": "é ✓"}},
        ensure_ascii=False,
    )
    pipe.raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))  # characters, not bytes
    assert pipe.response(50)["result"] == []


def test_garbage_and_a_huge_content_length_are_skipped(pipe: Pipe) -> None:
    pipe.initialize()
    pipe.raw(b"this is not a header\r\n\r\n{}")
    pipe.raw(b"Content-Length: 99999999999\r\n\r\n{")
    assert pipe.call("workspace/symbol", {"query": ""})["result"] == []
    # A body that is not JSON: said (once the next message shows where it ended), not fatal.
    pipe.raw(b"Content-Length: 5\r\n\r\nnope!")
    msg_id = pipe.request("workspace/symbol", {"query": ""})
    assert pipe.wait(lambda m: "error" in m)["error"]["code"] == -32700
    assert pipe.response(msg_id)["result"] == []


def test_a_message_over_the_limit_is_skipped_in_one_pass() -> None:
    """What is skipped is searched for the next header once: the reader lower-cased everything
    it held (up to the 64 MiB limit) again for every 64 KiB read, and a 96 MiB message kept
    the input (and the GIL) busy for minutes while nothing else was read."""
    size = 96 * 1024 * 1024
    after = frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"})
    chunks = iter([b"Content-Length: %d\r\n\r\n" % size, *[b"x" * 65536] * (size // 65536), after])
    frames = FrameReader(lambda _: next(chunks, b""))
    read: list[Any] = []
    reader = threading.Thread(target=lambda: read.append(frames.next_message()), daemon=True)
    reader.start()
    reader.join(TIMEOUT)
    assert read == [{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}]


def test_a_parse_error_is_answered_with_a_null_id(pipe: Pipe) -> None:
    """JSON-RPC 2.0, 5.1: "If there was an error in detecting the id in the Request object
    (e.g. Parse error/Invalid Request), it MUST be Null" (the member is there, as null)."""
    pipe.initialize()
    pipe.raw(b'Content-Length: 9\r\n\r\n{"id": 3,')
    pipe.request("workspace/symbol", {"query": ""})  # shows where the broken body ended
    error = pipe.wait(lambda m: "error" in m)
    assert error == {"jsonrpc": "2.0", "id": None, "error": error["error"]}
    assert error["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("message", "answer_id"),
    [
        ([1, 2], None),
        ({"jsonrpc": "1.0", "id": 4, "method": "x"}, 4),
        ({"id": {"a": 1}, "method": "x"}, None),
    ],
)
def test_an_invalid_request_is_answered_with_its_id_or_null(pipe: Pipe, message: Any, answer_id: Any) -> None:
    pipe.initialize()
    pipe.raw(frame(message))
    error = pipe.wait(lambda m: "error" in m)
    assert "id" in error and error["id"] == answer_id
    assert error["error"]["code"] == -32600


def test_a_null_body_is_an_invalid_request_and_the_server_goes_on(pipe: Pipe) -> None:
    """`null` is JSON but no message: the reader took it for the end of the input and the server
    exited with status 1, saying nothing."""
    pipe.initialize()
    pipe.raw(b"Content-Length: 4\r\n\r\nnull")
    error = pipe.wait(lambda m: "error" in m)
    assert error["id"] is None and error["error"]["code"] == -32600
    assert pipe.call("workspace/symbol", {"query": ""})["result"] == []


def test_a_body_nested_too_deeply_is_a_parse_error_and_the_server_goes_on(pipe: Pipe) -> None:
    """100,000 nested arrays: the JSON decoder's RecursionError killed the input thread."""
    pipe.initialize()
    pipe.raw(frame_bytes(b"[" * 100_000 + b"]" * 100_000))
    error = pipe.wait(lambda m: "error" in m)
    assert error["id"] is None and error["error"]["code"] == -32700
    assert "nested too deeply" in error["error"]["message"]
    assert pipe.call("workspace/symbol", {"query": ""})["result"] == []


def test_input_is_read_while_every_pool_thread_is_busy(pipe: Pipe) -> None:
    """pygls reads stdin through the thread pool that runs the handlers: with every thread in
    a long analysis or request, no message (not even `exit`) was read any more."""
    pipe.initialize()
    pipe.call("workspace/symbol", {"query": ""})  # the pool exists
    assert pipe.server is not None
    pool = pipe.server.thread_pool
    release = threading.Event()
    busy = [pool.submit(release.wait, 2 * TIMEOUT) for _ in range(pool._max_workers)]
    try:
        assert pipe.call("shutdown", None)["result"] is None
        pipe.notify("exit", None)
        assert pipe.exit_code() == 0
    finally:
        release.set()
        for future in busy:
            future.result()


# The lifecycle's errors.


def test_ill_typed_params_are_answered_with_invalid_params(pipe: Pipe) -> None:
    pipe.initialize()
    answer = pipe.call("textDocument/hover", {"textDocument": 5, "position": {"line": 0}})
    assert answer["error"]["code"] == -32602


def test_a_request_before_initialize_is_answered_with_server_not_initialized(pipe: Pipe) -> None:
    answer = pipe.call(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}
    )
    assert answer["error"]["code"] == -32002
    pipe.initialize()  # and initialize still works


def test_a_second_initialize_is_an_invalid_request_and_keeps_the_documents(pipe: Pipe) -> None:
    pipe.initialize()
    pipe.open(URI, "a: 1\n")
    answer = pipe.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert answer["error"]["code"] == -32600
    assert pipe.text(URI) == "a: 1\n"


@pytest.mark.parametrize("root", ["rootUri", "rootPath"])
def test_a_root_without_workspace_folders_is_the_one_folder(pipe: Pipe, tmp_path: Path, root: str) -> None:
    """LSP 3.17: `rootUri` (deprecated `rootPath`) is the workspace of a client that sends no
    `workspaceFolders`; pygls made no folder of it, so nothing was scanned and a binding never
    saw the policy beside it on disk."""
    (tmp_path / "z-policy.yaml").write_text(HOSTILE_POLICY)
    value = tmp_path.as_uri() if root == "rootUri" else str(tmp_path)
    pipe.call("initialize", {"processId": None, root: value, "capabilities": {}})
    pipe.notify("initialized", {})
    binding = tmp_path / "binding.yaml"
    pipe.open(binding.as_uri(), HOSTILE_BINDING)
    pipe.published(["param-ref-missing"])


def test_a_folder_added_is_scanned_and_one_removed_is_forgotten(pipe: Pipe, tmp_path: Path) -> None:
    """pygls only updates its list of folders: the files of an added folder stayed unknown and
    those of a removed one stayed in the index until a restart."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (there / "policy.yaml").write_text(HOSTILE_POLICY)
    folder = {"uri": there.as_uri(), "name": "there"}
    pipe.call(
        "initialize",
        {"processId": None, "capabilities": {}, "workspaceFolders": [{"uri": here.as_uri(), "name": "here"}]},
    )
    pipe.notify("initialized", {})
    binding = here / "binding.yaml"
    pipe.open(binding.as_uri(), HOSTILE_BINDING)

    pipe.published(["policy-not-found"], binding.as_uri())
    pipe.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [folder], "removed": []}})
    pipe.published(["param-ref-missing"], binding.as_uri())
    pipe.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folder]}})
    pipe.published(["policy-not-found"], binding.as_uri())


def test_a_file_changed_on_disk_counts_as_its_new_text(pipe: Pipe, tmp_path: Path) -> None:
    """A closed workspace file changed outside the editor (a checkout, a generator) is read
    again when the client says so (`workspace/didChangeWatchedFiles`): only CRD and
    configuration files were, so a binding kept the policy of the old text."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(HOSTILE_POLICY)
    folders = [{"uri": tmp_path.as_uri(), "name": "ws"}]
    pipe.call("initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
    pipe.notify("initialized", {})
    binding = tmp_path / "binding.yaml"
    pipe.open(binding.as_uri(), HOSTILE_BINDING)

    pipe.published(["param-ref-missing"], binding.as_uri())
    policy.write_text(HOSTILE_POLICY.replace("name: replica-limit", "name: renamed"))
    changed = {"changes": [{"uri": policy.as_uri(), "type": 2}]}
    pipe.notify("workspace/didChangeWatchedFiles", changed)
    pipe.published(["policy-not-found"], binding.as_uri())
    policy.write_text(HOSTILE_POLICY)
    pipe.notify("workspace/didChangeWatchedFiles", changed)
    pipe.published(["param-ref-missing"], binding.as_uri())
    policy.unlink()
    pipe.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": policy.as_uri(), "type": 3}]})
    pipe.published(["policy-not-found"], binding.as_uri())


@pytest.mark.parametrize(
    "capabilities",
    [
        {"window": {"workDoneProgress": True}},  # window/workDoneProgress/create
        {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},  # client/registerCapability
    ],
)
def test_a_client_that_never_answers_the_servers_requests_still_gets_the_scan(
    pipe: Pipe, tmp_path: Path, capabilities: dict[str, Any]
) -> None:
    """The scan waited for the answer to the progress token, and re-checking the documents (and
    every later change of the index) for the answer to the watchers' registration: a client
    that never answers got no cross-file finding for the whole session."""
    (tmp_path / "policy.yaml").write_text(HOSTILE_POLICY)
    folders = [{"uri": tmp_path.as_uri(), "name": "ws"}]
    pipe.call("initialize", {"processId": None, "capabilities": capabilities, "workspaceFolders": folders})
    pipe.notify("initialized", {})
    binding = tmp_path / "binding.yaml"
    pipe.open(binding.as_uri(), HOSTILE_BINDING)
    pipe.published(["param-ref-missing"])
    # And a change of the index still re-runs the binding: its policy renamed in the editor.
    policy = tmp_path / "policy.yaml"
    pipe.open(policy.as_uri(), HOSTILE_POLICY.replace("name: replica-limit", "name: renamed"))
    pipe.published(["policy-not-found"], binding.as_uri())


def test_a_request_after_shutdown_is_an_invalid_request(pipe: Pipe) -> None:
    pipe.initialize()
    assert pipe.call("shutdown", None)["result"] is None
    assert pipe.call("workspace/symbol", {"query": ""})["error"]["code"] == -32600


def test_features_answer_null_for_a_document_that_is_not_open(pipe: Pipe, tmp_path: Path) -> None:
    """The path is never read: a FIFO would block the thread that reads it for ever."""
    fifo = tmp_path / "policy.yaml"
    os.mkfifo(fifo)
    pipe.initialize()
    where = {"textDocument": {"uri": fifo.as_uri()}, "position": {"line": 0, "character": 0}}
    assert pipe.call("textDocument/hover", where)["result"] is None
    assert pipe.call("textDocument/documentSymbol", {"textDocument": where["textDocument"]})["result"] is None
    assert (
        pipe.call("textDocument/semanticTokens/full", {"textDocument": where["textDocument"]})["result"]
        is None
    )
    # The command the code lens carries, sent for a document that is not (or no longer) open.
    for arguments in ([fifo.as_uri(), "p"], [{"uri": fifo.as_uri()}]):
        run = {"command": "vapLsp.runAgainstSamples", "arguments": arguments}
        assert pipe.call("workspace/executeCommand", run)["result"] is None


# The process: exit codes.


def _exit_code(pipe: Pipe) -> int:
    assert pipe.process is not None
    return pipe.process.wait(timeout=TIMEOUT)


def test_exit_without_shutdown_exits_with_1() -> None:
    pipe = Pipe(process=True)
    pipe.initialize()
    pipe.notify("exit", None)
    assert _exit_code(pipe) == 1


def test_exit_after_shutdown_exits_with_0() -> None:
    pipe = Pipe(process=True)
    pipe.initialize()
    pipe.call("shutdown", None)
    pipe.notify("exit", None)
    assert _exit_code(pipe) == 0


def test_output_waiting_to_be_written_drops_superseded_diagnostics_and_is_bounded() -> None:
    """While the client is not reading, a document's newer diagnostics replace its older ones
    not written yet, and beyond the bound new messages are dropped instead of piling up."""
    gate = threading.Event()
    written: list[bytes] = []

    class Blocked:
        def write(self, data: bytes) -> None:
            gate.wait(TIMEOUT)
            written.append(data)

        def flush(self) -> None:
            pass

    writer = QueuedWriter(Blocked(), max_bytes=100)  # type: ignore[arg-type]
    writer.write(b"first")
    deadline = time.monotonic() + TIMEOUT
    while writer.pending() and time.monotonic() < deadline:  # taken, blocked in write
        time.sleep(0.01)
    writer.write(b"a@1", ("publish", "a"))
    writer.write(b"b@1", ("publish", "b"))
    writer.write(b"a@2", ("publish", "a"))
    writer.write(b"x" * 200)  # over the bound
    writer.write(b"b@" + b"2" * 200, ("publish", "b"))  # over the bound too: b@1 stays
    assert writer.pending() == 6
    gate.set()
    while len(written) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert written == [b"first", b"b@1", b"a@2"]


def test_a_client_that_stops_reading_cannot_keep_the_server_from_exiting() -> None:
    """Answers to a client that never reads fill the pipe (64 KiB here); writing them blocks the
    output thread, not the event loop, so the `exit` after them still ends the process."""
    process = subprocess.Popen(
        [sys.executable, "-m", "vap_lsp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,  # never read
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    try:
        init = {"processId": None, "rootUri": None, "capabilities": {}}
        messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}]
        messages.append({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        symbols = {"query": "x" * 200}  # each answer echoes nothing, each error 300 bytes or so
        messages += [
            {"jsonrpc": "2.0", "id": i, "method": "no/such/method", "params": symbols} for i in range(2, 1500)
        ]
        messages += [{"jsonrpc": "2.0", "method": "exit", "params": None}]
        process.stdin.write(b"".join(frame(m) for m in messages))
        process.stdin.flush()
        assert process.wait(timeout=TIMEOUT) == 1
    finally:
        process.kill()
        process.wait()


HOSTILE_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
"""
HOSTILE_BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b}
spec: {policyName: replica-limit, validationActions: [Deny]}
"""
HOSTILE_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: replicalimits.rules.example.com}
spec:
  group: rules.example.com
  names: {kind: ReplicaLimit, plural: replicalimits}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, properties: {maxReplicas: {type: integer}}}}
"""


def _hostile_workspace(root: Path) -> None:
    """A FIFO and a link to /dev/zero named *.yaml (sorted before the files the scan must still
    reach), two `vendor/a -> .` links under the `**` glob of the configuration's `crds`, and
    the policy a binding names and the CRD its params are typed by, on disk only."""
    # The scan skips vendor/: the CRD is found by the glob only.
    (root / ".vap-lsp.yaml").write_text("crds: ['**/crds/*.yaml']\nexclude: ['vendor/**']\n")
    os.mkfifo(root / "a-fifo.yaml")
    os.symlink("/dev/zero", root / "a-zero.yaml")
    vendor = root / "vendor"
    vendor.mkdir()
    os.symlink(".", vendor / "a")
    os.symlink(".", vendor / "b")
    (vendor / "crds").mkdir()
    os.mkfifo(vendor / "crds" / "fifo.yaml")
    (vendor / "crds" / "limit.yaml").write_text(HOSTILE_CRD)
    (root / "z-policy.yaml").write_text(HOSTILE_POLICY)
    (root / "z-binding.yaml").write_text(HOSTILE_BINDING)


def _start_in(root: Path) -> Pipe:
    pipe = Pipe(process=True)
    uri = root.as_uri()
    folders = [{"uri": uri, "name": "ws"}]
    answer = pipe.call(
        "initialize", {"processId": None, "rootUri": uri, "capabilities": {}, "workspaceFolders": folders}
    )
    assert "capabilities" in answer["result"]
    pipe.notify("initialized", {})
    return pipe


def test_a_hostile_workspace_starts_answers_and_exits_cleanly(tmp_path: Path) -> None:
    """Nothing blocks, grows or loops: the scan reads the files after the FIFO and the device
    (the binding finds its policy on disk, whose params are typed by the CRD the glob found),
    a hover is answered, and `shutdown` then `exit` exits with 0."""
    _hostile_workspace(tmp_path)
    pipe = _start_in(tmp_path)
    binding = tmp_path / "z-binding.yaml"
    pipe.open(binding.as_uri(), HOSTILE_BINDING)
    # Once the scan has read z-policy.yaml: found, and it declares params the binding lacks.
    pipe.published(["param-ref-missing"], binding.as_uri())
    policy = tmp_path / "z-policy.yaml"
    pipe.open(policy.as_uri(), HOSTILE_POLICY)
    where = {"textDocument": {"uri": policy.as_uri()}, "position": {"line": 9, "character": 52}}
    hover = pipe.call("textDocument/hover", where)["result"]
    # params.maxReplicas, typed by vendor/crds/limit.yaml
    assert hover["contents"]["value"].startswith("```cel\nmaxReplicas: int\n")
    pipe.call("shutdown", None)
    pipe.notify("exit", None)
    assert _exit_code(pipe) == 0


def test_exit_without_shutdown_in_a_hostile_workspace_exits_with_1(tmp_path: Path) -> None:
    _hostile_workspace(tmp_path)
    pipe = _start_in(tmp_path)
    pipe.notify("exit", None)
    assert _exit_code(pipe) == 1
