"""Benchmark: how soon cancelled work stops on one huge YAML document (printed, never asserted).

One document of about 20 MB (a ConfigMap with many keys: no `---` line to cut it into pieces,
so the parse is one run of the YAML parser) is parsed, then analysed, on a thread inside
`cancel.scope`; the token is cancelled after a share of the uncancelled time and the time from
the cancellation to the thread's end is printed. Before the parser had checkpoints of its own,
only the end of the parse could notice the cancellation.

With `--server`, the issue's scenario through the real server: the 20 MB document is opened,
four semantic-tokens requests on it are sent and cancelled ($/cancelRequest), then hovers on a
small document are timed while the large one is still analysed; the server's peak RSS is
printed (before cancellation stopped work: a hover took 5.8 s, 542 MiB peak).

Usage: python benchmarks/bench_cancel.py [--mb 20] [--at 0.25 0.5] [--server]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
from collections.abc import Callable

from bench_diagnostics import ROOT, peak_rss_mib, start_server, stop_server
from lsprotocol import types as lsp

from vap_lsp.analysis.engine import analyse_text
from vap_lsp.cancel import Cancelled, Token, scope
from vap_lsp.yaml import parse


def generate(megabytes: float) -> str:
    """One ConfigMap, one document, `megabytes` long."""
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: huge", "data:"]
    line = "  key{}: value-" + "x" * 60
    count = int(megabytes * 1024 * 1024 / (len(line) + 8))
    lines.extend(line.format(i) for i in range(count))
    return "\n".join(lines) + "\n"


def uncancelled(work: Callable[[], object]) -> float:
    parse.clear_cache()
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def stop_latency(work: Callable[[], object], after: float) -> tuple[float, str]:
    """Seconds from the cancellation (`after` seconds into the work) to the thread's end."""
    parse.clear_cache()
    token = Token()
    outcome: list[str] = []

    def run() -> None:
        with scope(token):
            try:
                work()
                outcome.append("finished")
            except Cancelled:
                outcome.append("cancelled")

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(after)
    token.cancel()
    cancelled_at = time.perf_counter()
    thread.join()
    return time.perf_counter() - cancelled_at, outcome[0]


async def server_scenario(text: str, hovers: int) -> tuple[list[float], float | None]:
    """Hover latencies on a small document after four cancelled whole-document requests on the
    large one, and the server's peak RSS."""
    small = (ROOT / "examples" / "valid" / "replica-limit.yaml").read_text(encoding="utf-8")
    small_uri, big_uri = "file:///bench/small.yaml", "file:///bench/big.yaml"
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()
    client = await start_server(published)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(small_uri, "yaml", 1, small))
    )
    while (await published.get()).uri != small_uri:
        pass
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(big_uri, "yaml", 1, text))
    )
    requests = []
    for n in range(4):
        msg_id = f"tokens-{n}"
        params = lsp.SemanticTokensParams(lsp.TextDocumentIdentifier(big_uri))
        method = lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL
        requests.append(asyncio.wrap_future(client.protocol.send_request(method, params, msg_id=msg_id)))
        await asyncio.sleep(0.2)
        client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
    line = small[: small.index("expression:")].count("\n")
    latencies = []
    for _ in range(hovers):
        t0 = time.perf_counter()
        await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(small_uri), lsp.Position(line, 8))
        )
        latencies.append(time.perf_counter() - t0)
    await asyncio.gather(*requests, return_exceptions=True)  # answered: RequestCancelled
    while (await published.get()).uri != big_uri:
        pass
    assert client._server is not None  # the process pygls' client started
    rss = peak_rss_mib(client._server.pid)
    await stop_server(client)
    return latencies, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--at", type=float, nargs="+", default=[0.25, 0.5])
    parser.add_argument("--server", action="store_true", help="the scenario through the server")
    args = parser.parse_args()
    text = generate(args.mb)
    print(f"one document of {len(text) / 1024 / 1024:.1f} MB, {text.count(chr(10))} lines")
    if args.server:
        latencies, rss = asyncio.run(server_scenario(text, 5))
        print(
            "hover on a small document after four cancelled semantic-tokens requests on the large one: "
            f"first {latencies[0] * 1000:.0f} ms, then p50 {statistics.median(latencies[1:]) * 1000:.0f} ms"
        )
        print(f"server peak RSS: {rss:.0f} MiB" if rss is not None else "server peak RSS: unknown")
        return
    works: dict[str, Callable[[], object]] = {
        "parse_yaml": lambda: parse.parse_yaml(text),
        "analyse_text": lambda: analyse_text(text),
    }
    for name, work in works.items():
        total = uncancelled(work)
        print(f"{name}: {total:.2f} s uncancelled")
        for share in args.at:
            latency, outcome = stop_latency(work, total * share)
            print(f"  cancelled at {share:.0%}: {outcome} {latency * 1000:.0f} ms after the cancellation")


if __name__ == "__main__":
    main()
