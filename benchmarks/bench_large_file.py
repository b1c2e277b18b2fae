"""Benchmark: a 10 MB file through the real server (printed, never asserted).

The file is the hostile-input test's: ConfigMaps of 20 long keys each, then one policy at its
end with an error, about 10 MB and 6,500 objects. Prints the server's time to first diagnostics,
diagnostics after an edit near the top (every later document moves), and its peak RSS.

Usage: python benchmarks/bench_large_file.py [--mb 10] [--edits 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics

from bench_diagnostics import server_run

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=10)
    parser.add_argument("--edits", type=int, default=3)
    args = parser.parse_args()
    text = generate(args.mb)
    print(f"file: {len(text) / 1e6:.1f} MB, {text.count('kind: ')} objects")
    cold, latencies, rss = asyncio.run(server_run(text, args.edits))
    print(f"server time to first diagnostics: {cold:.2f} s")
    print(
        f"server diagnostics after an edit: p50 {statistics.median(latencies):.2f} s, "
        f"max {max(latencies):.2f} s over {len(latencies)} edits"
    )
    if rss is not None:
        print(f"server peak RSS: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
