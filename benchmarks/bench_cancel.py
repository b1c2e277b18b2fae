"""Benchmark: how soon cancelled work stops on one huge YAML document (printed, never asserted).

One document of about 20 MB (a ConfigMap with many keys: no `---` line to cut it into pieces,
so the parse is one run of the YAML parser) is parsed, then analysed, on a thread inside
`cancel.scope`; the token is cancelled after a share of the uncancelled time and the time from
the cancellation to the thread's end is printed. Before the parser had checkpoints of its own,
only the end of the parse could notice the cancellation.

Usage: python benchmarks/bench_cancel.py [--mb 20] [--at 0.25 0.5]
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--at", type=float, nargs="+", default=[0.25, 0.5])
    args = parser.parse_args()
    text = generate(args.mb)
    print(f"one document of {len(text) / 1024 / 1024:.1f} MB, {text.count(chr(10))} lines")
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
