"""Benchmark: cold start and diagnostics latency (printed, never asserted).

Measures, on a generated multi-policy file of about 1000 lines:
- cold start: spawning `vap-lsp serve` until the first diagnostics for an opened document,
  p50/p95 over N starts, in two conditions:
  * "bytecode cached": every module's .pyc exists, as after `pip install` (which compiles) or
    any earlier run that could write `__pycache__`;
  * "vap_lsp compiled": the dependencies' .pyc exist but vap_lsp's do not, as for an editable
    install under PYTHONDONTWRITEBYTECODE=1 (this sandbox sets it): vap_lsp is compiled from
    source at every start.
  Each condition uses its own PYTHONPYCACHEPREFIX, primed by one unmeasured start.
- diagnostics after an edit through the real server (debounce 0), p50/p95 over N edits;
- the engine alone (`analyse_text`), p50/p95.

Usage: python benchmarks/bench_diagnostics.py [--lines 1000] [--edits 40] [--starts 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text  # noqa: E402

URI = "file:///bench/policies.yaml"


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
    debounce_ms: int = 0,
    env: dict[str, str] | None = None,
    folder: Path | None = None,
) -> LanguageClient:
    """Spawn `vap-lsp serve` over stdio and initialise it; publications go to `published`."""
    client = LanguageClient("vap-lsp-bench", "1")

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "vap_lsp", "serve", env=env)
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            initialization_options={"debounceMs": debounce_ms},
            workspace_folders=[lsp.WorkspaceFolder(folder.as_uri(), folder.name)] if folder else None,
        )
    )
    client.initialized(lsp.InitializedParams())
    return client


async def stop_server(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def server_run(
    text: str, edits: int, env: dict[str, str] | None = None, folder: Path | None = None
) -> tuple[float, list[float], float | None]:
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()

    async def wait_version(version: int) -> None:
        while True:
            params = await published.get()
            if params.version == version:
                return

    start = time.perf_counter()
    client = await start_server(published, env=env, folder=folder)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    )
    await wait_version(1)
    cold = time.perf_counter() - start

    latencies: list[float] = []
    line_count = text.count("\n")
    for version in range(2, edits + 2):
        line = (version * 37) % line_count
        change = lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)), text="# edit\n"
        )
        t0 = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=version, uri=URI), [change]
            )
        )
        await wait_version(version)
        latencies.append(time.perf_counter() - t0)
    server_process = client._server  # pygls keeps the spawned process here
    rss = peak_rss_mib(server_process.pid) if server_process is not None else None
    await stop_server(client)
    return cold, latencies, rss


def cold_starts(text: str, starts: int) -> None:
    """Cold start p50/p95 with and without vap_lsp's bytecode (see the module docstring)."""
    base = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    }
    with tempfile.TemporaryDirectory(prefix="vap-lsp-bench-") as tmp:
        cached = {**base, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "cached")}
        compiled = {**base, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "compiled")}
        for env in (cached, compiled):
            asyncio.run(server_run(text, 0, env))  # writes the .pyc of every module it imports
        # PYTHONPYCACHEPREFIX mirrors absolute source paths: drop vap_lsp's, keep the rest.
        shutil.rmtree(Path(compiled["PYTHONPYCACHEPREFIX"] + str(ROOT)) / "vap_lsp")
        compiled["PYTHONDONTWRITEBYTECODE"] = "1"
        for label, env in (("bytecode cached", cached), ("vap_lsp compiled", compiled)):
            samples = [asyncio.run(server_run(text, 0, env))[0] for _ in range(starts)]
            p50 = statistics.median(samples) * 1000
            print(
                f"server cold start to first diagnostics ({label}): p50 {p50:.0f} ms, "
                f"p95 {pct(samples, 95) * 1000:.0f} ms, max {max(samples) * 1000:.0f} ms over {starts} starts"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=40)
    parser.add_argument("--starts", type=int, default=10)
    args = parser.parse_args()
    text = generate(args.lines)
    print(f"file: {text.count(chr(10))} lines, {text.count('kind: ')} objects")

    settings = AnalysisSettings()
    analyse_text(text, settings)  # warm the schema caches
    engine = []
    for _ in range(args.edits):
        t0 = time.perf_counter()
        analyse_text(text, settings)
        engine.append(time.perf_counter() - t0)
    print(
        f"engine analyse_text: p50 {statistics.median(engine) * 1000:.1f} ms, "
        f"p95 {pct(engine, 95) * 1000:.1f} ms"
    )

    if args.starts:
        cold_starts(text, args.starts)
    _, latencies, rss = asyncio.run(server_run(text, args.edits))
    print(
        f"server diagnostics after an edit: p50 {statistics.median(latencies) * 1000:.1f} ms, "
        f"p95 {pct(latencies, 95) * 1000:.1f} ms over {len(latencies)} edits"
    )

    if rss is not None:
        print(f"server peak RSS: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
