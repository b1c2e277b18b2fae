"""Benchmark: CEL completion and hover latency (printed, never asserted).

On the ~1000-line multi-policy file of `bench_diagnostics.generate()`:
- the service functions alone (`complete`, `hover` on a snapshot), cold (fresh parse, empty
  feature caches) and warm;
- through the real server over stdio: requests on an unchanged document, and requests right
  after an edit (the analysis is then stale, so the server works from a fresh snapshot).

Targets: completion < 30 ms p95, hover < 20 ms p95.

Usage: python benchmarks/bench_features.py [--requests 60]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_diagnostics import generate, pct, start_server, stop_server  # noqa: E402

from vap_lsp.analysis.engine import AnalysisSettings  # noqa: E402
from vap_lsp.analysis.model.context import clear_cache as clear_typing_cache  # noqa: E402
from vap_lsp.features import cel_context  # noqa: E402
from vap_lsp.features.cel_completion import complete  # noqa: E402
from vap_lsp.features.cel_hover import hover  # noqa: E402
from vap_lsp.features.snapshot import make_snapshot  # noqa: E402
from vap_lsp.text import LineIndex  # noqa: E402

URI = "file:///bench/policies.yaml"


def cel_points(text: str) -> tuple[list[int], list[int]]:
    """Offsets right after a `.` in CEL (completion) and on a name in CEL (hover)."""
    completion: list[int] = []
    hovers: list[int] = []
    for m in re.finditer(r"(expression|messageExpression|valueExpression): ?[|>]?-?\s*(.+)", text):
        body_start = m.start(2)
        for d in re.finditer(r"\.", m.group(2)):
            completion.append(body_start + d.end())
        for w in re.finditer(r"[A-Za-z_]\w*", m.group(2)):
            hovers.append(body_start + w.start() + 1)
    return completion, hovers


def summary(name: str, samples: list[float]) -> str:
    return (
        f"{name}: p50 {statistics.median(samples) * 1000:.2f} ms, p95 {pct(samples, 95) * 1000:.2f} ms "
        f"(n={len(samples)})"
    )


def service_run(text: str, completion: list[int], hovers: list[int], n: int) -> None:
    settings = AnalysisSettings()
    warm = make_snapshot(URI, text, 1, settings)
    complete(warm, completion[0])  # load schemas once
    for label, fresh in (("cold (new parse + empty caches)", True), ("warm (same snapshot)", False)):
        c_times: list[float] = []
        h_times: list[float] = []
        for i in range(n):
            if fresh:
                cel_context._CACHE.clear()
                clear_typing_cache()
            t0 = time.perf_counter()
            snap = make_snapshot(URI, text, i, settings) if fresh else warm
            complete(snap, completion[(i * 7) % len(completion)])
            c_times.append(time.perf_counter() - t0)
            if fresh:
                cel_context._CACHE.clear()
                clear_typing_cache()
            t0 = time.perf_counter()
            snap = make_snapshot(URI, text, i, settings) if fresh else warm
            hover(snap, hovers[(i * 13) % len(hovers)])
            h_times.append(time.perf_counter() - t0)
        print(summary(f"service completion, {label}", c_times))
        print(summary(f"service hover, {label}", h_times))


async def server_run(text: str, completion: list[int], hovers: list[int], n: int) -> None:
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()
    client = await start_server(published, debounce_ms=200)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=URI, language_id="yaml", version=1, text=text))
    )
    while (await published.get()).version != 1:
        pass
    lines = LineIndex(text)

    def position(offset: int) -> lsp.Position:
        p = lines.position(offset)
        return lsp.Position(p.line, p.character)

    doc = lsp.TextDocumentIdentifier(URI)
    for label, edit in (("unchanged document", False), ("right after an edit", True)):
        c_times: list[float] = []
        h_times: list[float] = []
        version = 1
        for i in range(n):
            for kind, offsets, times in (("c", completion, c_times), ("h", hovers, h_times)):
                if edit:
                    version += 1
                    # Rewrite the first line in place (same text, new version: analysis is stale).
                    change = lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1)), text=text[0]
                    )
                    client.text_document_did_change(
                        lsp.DidChangeTextDocumentParams(
                            lsp.VersionedTextDocumentIdentifier(version=version, uri=URI), [change]
                        )
                    )
                offset = offsets[(i * (7 if kind == "c" else 13)) % len(offsets)]
                t0 = time.perf_counter()
                if kind == "c":
                    await client.text_document_completion_async(lsp.CompletionParams(doc, position(offset)))
                else:
                    await client.text_document_hover_async(lsp.HoverParams(doc, position(offset)))
                times.append(time.perf_counter() - t0)
        print(summary(f"server completion, {label}", c_times))
        print(summary(f"server hover, {label}", h_times))
    await stop_server(client)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=60)
    args = parser.parse_args()
    text = generate(args.lines)
    completion, hovers = cel_points(text)
    print(f"file: {text.count(chr(10))} lines; {len(completion)} completion and {len(hovers)} hover points")
    service_run(text, completion, hovers, args.requests)
    asyncio.run(server_run(text, completion, hovers, args.requests))


if __name__ == "__main__":
    main()
