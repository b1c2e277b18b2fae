"""Benchmark: a 10 MB file through the real server (printed, never asserted).

The file is the hostile-input test's: ConfigMaps of 20 long keys each, then one policy at its
end with an error, about 10 MB and 6,500 objects. Prints the server's time to first diagnostics,
diagnostics after an edit near the top (every later document moves), its peak RSS, and how long
a hover on a small document waits while the large one is opened and its semantic tokens asked.

Usage: python benchmarks/bench_large_file.py [--mb 10] [--edits 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bench_diagnostics import ROOT, server_run, start_server, stop_server
from lsprotocol import types as lsp

POLICY = (
    "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
    "metadata:\n  name: p\nspec:\n  failurePolicy: Sometimes\n  validations:\n    - expression: 'true'\n"
)
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n" + "".join(
    f"  key{k}: value-{k}-" + "x" * 60 + "\n" for k in range(20)
)


def generate(megabytes: float) -> str:
    chunks: list[str] = []
    size = 0
    while size < megabytes * 1024 * 1024:
        chunk = CONFIG_MAP.replace("{i}", str(len(chunks)))
        chunks.append(chunk)
        size += len(chunk) + 4
    return "---\n".join([*chunks, POLICY])


async def hover_while_opening(text: str, hovers: int) -> list[float]:
    """Hover latencies on a small open document while the large one is opened and tokenised."""
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
    tokens = asyncio.ensure_future(
        client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(lsp.TextDocumentIdentifier(big_uri))
        )
    )
    line = small[: small.index("expression:")].count("\n")
    latencies = []
    for _ in range(hovers):
        t0 = time.perf_counter()
        await client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(small_uri), lsp.Position(line, 8))
        )
        latencies.append(time.perf_counter() - t0)
    await tokens
    await stop_server(client)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=10)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()
    text = generate(args.mb)
    print(f"file: {len(text) / 1e6:.1f} MB, {text.count('kind: ')} objects")
    cold, latencies, _, rss = asyncio.run(server_run(text, args.edits))
    print(f"server time to first diagnostics: {cold:.2f} s")
    print(
        f"server diagnostics after an edit: p50 {statistics.median(latencies):.2f} s, "
        f"max {max(latencies):.2f} s over {len(latencies)} edits"
    )
    if rss is not None:
        print(f"server peak RSS: {rss:.0f} MiB")
    hovers = asyncio.run(hover_while_opening(text, 5))
    print(
        "hover on another document while the large one opens: "
        f"p50 {statistics.median(hovers) * 1000:.0f} ms, max {max(hovers) * 1000:.0f} ms over {len(hovers)}"
    )


if __name__ == "__main__":
    main()
