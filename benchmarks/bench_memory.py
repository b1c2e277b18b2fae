"""Benchmark: the server's memory over a long editing session (printed, never asserted).

One generated file of about 1,000 lines (`bench_diagnostics.generate`) is opened in `vap-lsp
serve` and edited `--edits` times (default 10,000) in a row, each edit waiting for its
diagnostics, as a user typing in a comment inside the first object: every edit changes that
object's text (its results, index entry and typing model are computed and cached again), the
file keeps its size. The server's
resident memory (VmRSS) is printed every `--every` edits. The result caches are bounded by
entries (4,096 per-object results and index entries, 256 typing models) and by the characters
of their texts (README, "Robustness and limits"): with this file's small objects the entry
bounds are reached first, after about 4,200 such edits, so the growth that counts is the one
after `--filled` edits (default 5,000) to the end; a leak per message or per analysis shows
there as a straight line.

Usage: python benchmarks/bench_memory.py [--lines 1000] [--edits 10000] [--every 1000] [--filled 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_diagnostics import URI, RawClient, generate


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def run(lines: int, edits: int, every: int, filled: int) -> None:
    rows = generate(lines).split("\n")
    at = next(i for i, row in enumerate(rows) if row.startswith("apiVersion:")) + 1  # inside the object
    rows.insert(at, "# edit 00000")
    text = "\n".join(rows)
    client = await RawClient.spawn(sys.executable, "-m", "vap_lsp", "serve")
    assert client.process.stderr is not None
    drain = asyncio.ensure_future(_drain(client.process.stderr))
    await client.initialize({}, None)
    client.open(URI, text)
    await _published(client, 1)
    pid = client.process.pid
    samples: list[tuple[int, float]] = [(0, rss_mib(pid))]
    print(f"{text.count(chr(10))} lines; RSS after opening: {samples[0][1]:.1f} MiB")
    start = time.perf_counter()
    for version in range(2, edits + 2):
        digits = f"{version % 100000:05d}"
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [
                    {
                        "range": {
                            "start": {"line": at, "character": 7},
                            "end": {"line": at, "character": 12},
                        },
                        "text": digits,
                    }
                ],
            },
        )
        await _published(client, version)
        done = version - 1
        if done % every == 0:
            samples.append((done, rss_mib(pid)))
            rate = done / (time.perf_counter() - start)
            print(f"  after {done:6d} edits: {samples[-1][1]:7.1f} MiB ({rate:.0f} edits/s)", flush=True)
    await client.stop()
    drain.cancel()
    at_filled = min((s for s in samples if s[0] >= filled), key=lambda s: s[0], default=samples[0])
    end = samples[-1]
    print(
        f"growth from {at_filled[0]} to {end[0]} edits (caches full): {end[1] - at_filled[1]:+.1f} MiB; "
        f"from opening: {end[1] - samples[0][1]:+.1f} MiB"
    )


async def _published(client: RawClient, version: int) -> None:
    while (await client.published.get()).get("version") != version:
        pass


async def _drain(stderr: asyncio.StreamReader) -> None:
    while await stderr.readline():
        pass


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--filled", type=int, default=5000)
    args = parser.parse_args()
    asyncio.run(run(args.lines, args.edits, args.every, args.filled))


if __name__ == "__main__":
    main()
