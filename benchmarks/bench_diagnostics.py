"""Benchmark: diagnostics latency, edit bursts and cold start (printed, never asserted).

With the server's default settings (adaptive scheduling, no `debounceMs`), on generated
multi-policy files of about 1,000 and 10,000 lines (`--lines`):
- the engine alone: `analyse_text` after an edit, p50, and how much of it is parsing
  (`parse_text`): what decides whether publishing syntax before the CEL pass would help;
- edit → published diagnostics through the real server, one edit at a time, p50/p95, from the
  client writing the change to it reading the publication as JSON (`RawClient`: no typed
  structuring on the client's side, which is not the server's time);
- bursts: 20 edits 30 ms apart, then how many analyses the server ran (counted from its
  `VAP_LSP_LOG=debug` log) and the time from the burst's last edit to the diagnostics of the
  final version, median over `--bursts`;
- the server's peak RSS.
Then cold start on the first size: spawning `vap-lsp serve` until the first diagnostics for an
opened document, p50/p95 over N starts, in these conditions:
  * "bytecode cached": every module's .pyc exists, as after `pip install` (which compiles) or
    any earlier run that could write `__pycache__` (default settings: the startup analyser
    runs when the machine has two CPUs, `server.startup_analyser`);
  * the same with `VAP_LSP_STARTUP_ANALYSER=0`, the server alone;
  * "bare pygls server, the floor": a pygls server that imports lsprotocol the same way and
    publishes empty diagnostics on didOpen, nothing else: what Python, lsprotocol and pygls
    cost on this machine before vap-lsp does anything;
  * "vap_lsp compiled": the dependencies' .pyc exist but vap_lsp's do not, as for an editable
    install under PYTHONDONTWRITEBYTECODE=1 (this sandbox sets it): vap_lsp is compiled from
    source at every start.
  The first three alternate start by start. Each bytecode condition uses its own
  PYTHONPYCACHEPREFIX and XDG_CACHE_HOME (where the server keeps lsprotocol's compiled attrs
  methods, `server.preload`), primed by one unmeasured start.
Edits are measured once the server analyses with its own engine (the first diagnostics may come
from the startup analyser while it still imports it).
The machine's CPU count and load average are printed first: on a shared machine they explain
the spread.

Usage: python benchmarks/bench_diagnostics.py [--lines 1000 10000] [--edits 40] [--bursts 5] [--starts 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from asyncio.subprocess import PIPE
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text  # noqa: E402
from vap_lsp.analysis.model.workspace import WorkspaceIndex  # noqa: E402

URI = "file:///bench/policies.yaml"
BURST_EDITS = 20
BURST_GAP = 0.03


def generate(lines: int) -> str:
    """Concatenate the valid examples, renamed, until the text has at least `lines` lines."""
    sources = sorted((ROOT / "examples" / "valid").glob("*.yaml"))
    parts: list[str] = []
    i = 0
    while sum(p.count("\n") for p in parts) < lines:
        text = sources[i % len(sources)].read_text(encoding="utf-8")
        parts.append(text.replace("name: ", f"name: b{i}-", 2).rstrip("\n") + "\n---\n")
        i += 1
    return "".join(parts)


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def peak_rss_mib(pid: int) -> float | None:
    """VmHWM of a process (Linux), the high-water mark of its resident memory."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def start_server(
    published: asyncio.Queue[lsp.PublishDiagnosticsParams],
    *,
    debounce_ms: int | None = 0,
    env: dict[str, str] | None = None,
    folder: Path | None = None,
) -> LanguageClient:
    """Spawn `vap-lsp serve` over stdio with pygls' client and initialise it; publications go to
    `published` (for `bench_large_file`'s typed requests; latencies use `RawClient`).

    `debounce_ms=None` leaves the setting out: the server's default (adaptive) scheduling.
    """
    client = LanguageClient("vap-lsp-bench", "1")

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "vap_lsp", "serve", env=env)
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            initialization_options={} if debounce_ms is None else {"debounceMs": debounce_ms},
            workspace_folders=[lsp.WorkspaceFolder(folder.as_uri(), folder.name)] if folder else None,
        )
    )
    client.initialized(lsp.InitializedParams())
    return client


async def stop_server(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


class RawClient:
    """A minimal LSP client over stdio that reads messages as JSON only.

    The latencies are the server's: pygls' client turns each publication into lsprotocol
    objects before handing it over (1-3 ms for the ~60 diagnostics of the 1,000-line file), work
    an editor does its own way. Requests the server sends are answered with null.
    """

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.published: asyncio.Queue[dict[str, Any]] = asyncio.Queue()  # publishDiagnostics params
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def spawn(cls, *args: str, env: dict[str, str] | None = None) -> RawClient:
        process = await asyncio.create_subprocess_exec(
            *args, stdin=PIPE, stdout=PIPE, stderr=PIPE, env=env, limit=2**24
        )
        return cls(process)

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        self._send({"id": self._next_id, "method": method, "params": params})
        return await future

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            length = 0
            while (line := await stdout.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line:
                return
            message = json.loads(await stdout.readexactly(length))
            if "method" not in message:
                future = self._pending.pop(message["id"])
                future.set_result(message.get("result"))
            elif "id" in message:  # a request of the server's (configuration, registrations)
                self._send({"id": message["id"], "result": None})
            elif message["method"] == "textDocument/publishDiagnostics":
                self.published.put_nowait(message["params"])

    async def initialize(self, options: dict[str, Any] | None, folder: Path | None) -> None:
        folders = [{"uri": folder.as_uri(), "name": folder.name}] if folder else None
        params: dict[str, Any] = {
            "processId": None,
            "rootUri": None,
            "capabilities": {},
            "workspaceFolders": folders,
        }
        if options is not None:
            params["initializationOptions"] = options
        await self.request("initialize", params)
        self.notify("initialized", {})

    def open(self, uri: str, text: str) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        )

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        await self.process.wait()
        self._reader.cancel()


class Session:
    """One server with one open document, edited by inserting a comment line."""

    def __init__(self, client: RawClient, text: str) -> None:
        self.client = client
        self.lines = text.count("\n")
        self.version = 1
        self.analysed: list[int] = []  # versions the server analysed, from its debug log
        self.own_engine = asyncio.Event()  # the server analysed with its own engine (not the helper's)

    def edit(self) -> None:
        self.version += 1
        line = (self.version * 37) % self.lines
        at = {"line": line, "character": 0}
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": self.version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": "# edit\n"}],
            },
        )
        self.lines += 1

    async def wait_version(self, version: int) -> None:
        while (await self.client.published.get()).get("version") != version:
            pass

    async def read_log(self, stderr: asyncio.StreamReader) -> None:
        """Drain the server's stderr (a full pipe would block it), noting each analysis."""
        while line := await stderr.readline():
            found = re.search(rb"analysed \S+ version (\d+)", line)
            if found:
                self.analysed.append(int(found.group(1)))
                if b"startup analyser" not in line:
                    self.own_engine.set()

    async def logged(self, version: int) -> None:
        """The log line of the run that analysed `version` can trail its publication."""
        while version not in self.analysed:
            await asyncio.sleep(0.005)


async def server_run(
    text: str,
    edits: int,
    env: dict[str, str] | None = None,
    folder: Path | None = None,
    *,
    bursts: int = 0,
    debounce_ms: int | None = 0,
) -> tuple[float, list[float], list[tuple[int, float, float]], float | None]:
    """Open `text`, then `edits` single edits and `bursts` bursts; returns the time to the first
    diagnostics, edit latencies, (analyses, seconds from the last and from the first edit to the
    final diagnostics) per burst, and the server's peak RSS."""
    start = time.perf_counter()
    client = await RawClient.spawn(
        sys.executable, "-m", "vap_lsp", "serve", env={**(env or os.environ), "VAP_LSP_LOG": "debug"}
    )
    await client.initialize({} if debounce_ms is None else {"debounceMs": debounce_ms}, folder)
    session = Session(client, text)
    server_process = client.process
    assert server_process.stderr is not None
    reader = asyncio.ensure_future(session.read_log(server_process.stderr))
    client.open(URI, text)
    await session.wait_version(1)
    cold = time.perf_counter() - start
    # Edits are measured once the server analyses with its own engine (the first diagnostics may
    # come from the startup analyser while the server still imports its engine).
    if edits or bursts:
        await session.own_engine.wait()

    latencies: list[float] = []
    for _ in range(edits):
        t0 = time.perf_counter()
        session.edit()
        await session.wait_version(session.version)
        latencies.append(time.perf_counter() - t0)
    burst_results: list[tuple[int, float, float]] = []
    for _ in range(bursts):
        await session.logged(session.version)  # every earlier run has ended
        before = len(session.analysed)
        first_edit = time.perf_counter()
        for i in range(BURST_EDITS):
            if i:
                await asyncio.sleep(BURST_GAP)
            session.edit()
        last_edit = time.perf_counter()
        await session.wait_version(session.version)
        done = time.perf_counter()
        await session.logged(session.version)
        burst_results.append((len(session.analysed) - before, done - last_edit, done - first_edit))
    rss = peak_rss_mib(server_process.pid)
    await client.stop()
    reader.cancel()
    return cold, latencies, burst_results, rss


def report_size(lines: int, edits: int, bursts: int) -> None:
    text = generate(lines)
    print(f"\nfile: {text.count(chr(10))} lines, {text.count('kind: ')} objects")
    settings = AnalysisSettings()
    index = WorkspaceIndex()
    analyse_text(text, settings, workspace=index, uri=URI)  # warm the schema, parse and result caches
    body = text.split("\n")
    engine: list[float] = []
    parsing: list[float] = []
    for i in range(1, 2 * max(edits, 10) + 1):  # one more line each time, as the server sees edits
        body.insert(i * 37 % len(body), "# edit")
        edited = "\n".join(body)
        t0 = time.perf_counter()
        if i % 2:
            parse_text(edited)
            parsing.append(time.perf_counter() - t0)
        else:
            analyse_text(edited, settings, workspace=index, uri=URI)
            engine.append(time.perf_counter() - t0)
    print(
        f"  engine analyse_text after an edit: p50 {statistics.median(engine) * 1000:.1f} ms, "
        f"p95 {pct(engine, 95) * 1000:.1f} ms; parsing alone (parse_text) p50 "
        f"{statistics.median(parsing) * 1000:.1f} ms"
    )
    _, latencies, burst_results, rss = asyncio.run(server_run(text, edits, bursts=bursts, debounce_ms=None))
    print(
        f"  server edit -> diagnostics (default settings): p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p95 {pct(latencies, 95) * 1000:.1f} ms over {len(latencies)} edits"
    )
    if burst_results:
        runs = [r for r, _, _ in burst_results]
        finals = [f for _, f, _ in burst_results]
        totals = [t for _, _, t in burst_results]
        print(
            f"  burst of {BURST_EDITS} edits {BURST_GAP * 1000:.0f} ms apart: analyses run "
            f"{statistics.median(runs):.0f} (min {min(runs)}, max {max(runs)}), final diagnostics "
            f"{statistics.median(finals) * 1000:.0f} ms after the last edit "
            f"(max {max(finals) * 1000:.0f} ms), {statistics.median(totals) * 1000:.0f} ms after the "
            f"first, median over {len(burst_results)} bursts"
        )
    if rss is not None:
        print(f"  server peak RSS: {rss:.0f} MiB")


BARE_SERVER = """\
import sys
from vap_lsp.server.preload import import_protocol
import_protocol()
from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
server = LanguageServer("bare", "1")
@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params):
    ls.text_document_publish_diagnostics(
        lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[], version=1)
    )
server.start_io()
"""


async def bare_run(env: dict[str, str]) -> float:
    """Spawn -> first (empty) diagnostics of a pygls server that does nothing else: the floor
    that importing Python, lsprotocol (through the same cache) and pygls sets on this machine."""
    start = time.perf_counter()
    client = await RawClient.spawn(sys.executable, "-c", BARE_SERVER, env=env)
    await client.initialize(None, None)
    client.open(URI, "")
    await client.published.get()
    elapsed = time.perf_counter() - start
    await client.stop()
    return elapsed


def cold_starts(text: str, starts: int) -> None:
    """Cold start p50/p95 (see the module docstring); the bytecode-cached conditions alternate
    start by start, so that a busy moment of a shared machine falls on all of them."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "VAP_LSP_STARTUP_ANALYSER")
    }
    with tempfile.TemporaryDirectory(prefix="vap-lsp-bench-") as tmp:
        # Each condition also has its own cache of lsprotocol's attrs methods (server.preload).
        cached = {
            **base,
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "cached"),
            "XDG_CACHE_HOME": str(Path(tmp) / "c1"),
        }
        compiled = {
            **base,
            "PYTHONPYCACHEPREFIX": str(Path(tmp) / "compiled"),
            "XDG_CACHE_HOME": str(Path(tmp) / "c2"),
        }
        for env in (cached, compiled):
            asyncio.run(server_run(text, 0, env, debounce_ms=None))  # writes every imported module's .pyc
        asyncio.run(bare_run(cached))
        # PYTHONPYCACHEPREFIX mirrors absolute source paths: drop vap_lsp's, keep the rest.
        shutil.rmtree(Path(compiled["PYTHONPYCACHEPREFIX"] + str(ROOT)) / "vap_lsp")
        compiled["PYTHONDONTWRITEBYTECODE"] = "1"
        conditions: dict[str, list[float]] = {
            "bytecode cached": [],
            "bytecode cached, startup analyser off": [],
            "bare pygls server, the floor": [],
        }
        without_helper = {**cached, "VAP_LSP_STARTUP_ANALYSER": "0"}
        for _ in range(starts):
            default = asyncio.run(server_run(text, 0, cached, debounce_ms=None))[0]
            conditions["bytecode cached"].append(default)
            conditions["bytecode cached, startup analyser off"].append(
                asyncio.run(server_run(text, 0, without_helper, debounce_ms=None))[0]
            )
            conditions["bare pygls server, the floor"].append(asyncio.run(bare_run(cached)))
        conditions["vap_lsp compiled"] = [
            asyncio.run(server_run(text, 0, compiled, debounce_ms=None))[0] for _ in range(starts)
        ]
        for label, samples in conditions.items():
            print(
                f"cold start to first diagnostics ({label}): p50 {statistics.median(samples) * 1000:.0f} ms, "
                f"p95 {pct(samples, 95) * 1000:.0f} ms, min {min(samples) * 1000:.0f} ms over {starts} starts"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load} (1/5/15 min) at the start")
    for lines in args.lines:
        report_size(lines, args.edits, args.bursts)
    if args.starts:
        print()
        cold_starts(generate(args.lines[0]), args.starts)


if __name__ == "__main__":
    main()
