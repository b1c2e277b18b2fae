"""Benchmark: analysis time against the size of the CEL (printed, never asserted).

Over the generated stress set (`stress_set.py`: Pod-Security-shaped policies of 1, 4, 16 and 64 KB
of CEL over 1–11 matched kinds, 10–400 `has()` facts, nested comprehensions, 50 variables) and
over the corpus:
- `analyse_text` of each policy, cold (every cache cleared, modules loaded): the median of
  `--repeat` runs, ms per KB of CEL, and the growth exponent between sizes (1.0 is linear: 4×
  the CEL in 4× the time);
- the corpus file by file: the slowest files, and with `--compare FILE` (a `--save` of an earlier
  run) every file slower than before by more than 20% and 20 ms;
- `vap-lsp check` as a user runs it (process start included): one small policy, the 64 KB
  policy, and a 26-file library of PSS policies with their bindings.

Goals (issue 32): linear, ≤ 50 ms per KB of CEL, 64 KB in ≤ 2 s, the library in ≤ 3× one small
policy, no corpus file slower than before. `--server EDITS` also times the server: first
diagnostics after spawning it, and an edit inside the first validation to its diagnostics.
README ("Long policies") quotes the figures.

Usage: python benchmarks/bench_analysis.py [--repeat 3] [--corpus DIR] [--save FILE] [--compare FILE]
       [--no-corpus | --corpus-only] [--server EDITS]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import stress_set  # noqa: E402

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, clear_caches  # noqa: E402


def _cold(text: str, repeat: int) -> float:
    """Median seconds of a cold analysis of `text` (caches cleared before each run, and the
    cycles they held collected: a full collection of the previous analysis's models, ~0.1 s
    after the 400-fact policy, is not this one's time)."""
    samples = []
    for _ in range(repeat):
        clear_caches()
        gc.collect()
        start = time.process_time()
        analyse_text(text, AnalysisSettings())
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def _row(name: str, text: str, repeat: int) -> tuple[float, float]:
    kb = stress_set.cel_size(text) / 1024
    seconds = _cold(text, repeat)
    print(f"  {name:<34} {kb:7.1f} KB  {seconds * 1000:8.0f} ms  {seconds * 1000 / kb:6.1f} ms/KB")
    return kb, seconds


def _exponent(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.log(b[1] / a[1]) / math.log(b[0] / a[0])


def _series(title: str, rows: list[tuple[str, str]], repeat: int) -> None:
    print(title)
    measured = [_row(name, text, repeat) for name, text in rows]
    for a, b in itertools.pairwise(measured):
        print(f"    growth {a[0]:.1f} → {b[0]:.1f} KB: exponent {_exponent(a, b):.2f}")


def _corpus(corpus: Path, repeat: int) -> dict[str, float]:
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    times: dict[str, float] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        times[str(path.relative_to(corpus))] = _cold(text, repeat)
    return times


def _check(args: list[str], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of `vap-lsp check ARGS` in a fresh process (CPU: user and
    system time of the child, what a loaded machine does not inflate)."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "vap_lsp", "check", "--no-config", *args],
            capture_output=True,
            check=False,
            cwd=ROOT,
        )
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--save", type=Path, help="write the corpus times (JSON) to compare later")
    parser.add_argument("--compare", type=Path, help="a --save of an earlier run")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--corpus-only", action="store_true")
    parser.add_argument("--server", type=int, default=0, metavar="EDITS", help="also time the server")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    analyse_text(stress_set.pss_policy(1), AnalysisSettings())  # load modules and schemas
    series: list[tuple[str, list[tuple[str, str]]]] = [
        ("PSS-shaped, 11 kinds", [(f"pss {kb} KB", stress_set.pss_policy(kb)) for kb in (1, 4, 16, 64)]),
        (
            "PSS-shaped, 16 KB, by kinds",
            [(f"pss {k} kinds", stress_set.pss_policy(16, k)) for k in (1, 4, 11)],
        ),
        ("has() facts", [(f"{n} facts", stress_set.facts_policy(n)) for n in (10, 100, 400)]),
        ("nested comprehensions", [(f"nested {kb} KB", stress_set.nested_policy(kb)) for kb in (1, 4, 16)]),
        ("variables", [(f"{n} variables", stress_set.variables_policy(n)) for n in (5, 50)]),
    ]
    for title, rows in series if not args.corpus_only else []:
        _series(title, rows, args.repeat)
    stress = _shared_stress()
    if stress is not None and not args.corpus_only:
        _series("../shared/stress/pss-shape.yaml", [("pss-shape", stress)], args.repeat)

    if not args.no_corpus and args.corpus.is_dir():
        times = _corpus(args.corpus, 1)
        total = sum(times.values())
        print(f"corpus: {len(times)} files analysed cold in {total:.1f} s; slowest:")
        for path, seconds in sorted(times.items(), key=lambda kv: -kv[1])[:5]:
            print(f"  {seconds * 1000:7.0f} ms  {path}")
        if args.save:
            args.save.write_text(json.dumps(times, indent=0, sort_keys=True), encoding="utf-8")
        if args.compare and args.compare.is_file():
            before = json.loads(args.compare.read_text(encoding="utf-8"))
            flagged = [p for p, t in times.items() if p in before and t > before[p] * 1.2 + 0.02]
            # A single cold run can meet a collection or the other core's work: measure again.
            again = {
                p: _cold((args.corpus / p).read_text(encoding="utf-8", errors="replace"), 5) for p in flagged
            }
            slower = {p: (before[p], t) for p, t in again.items() if t > before[p] * 1.2 + 0.02}
            print(f"  compared with {args.compare}: {len(slower)} files slower by > 20% and 20 ms")
            for path, (was, now) in sorted(slower.items()):
                print(f"    {path}: {was * 1000:.0f} → {now * 1000:.0f} ms")

    if args.server:
        _server_report(args.server)
    if args.corpus_only:
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = ROOT / "examples" / "valid" / "add-default-label.yaml"
        big = folder / "pss-64kb.yaml"
        big.write_text(stress_set.pss_policy(64), encoding="utf-8")
        for name, text in stress_set.library().items():
            path = folder / "library" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        runs: list[tuple[str, Callable[[], tuple[float, float]]]] = [
            ("one small policy", lambda: _check([str(small)], args.repeat)),
            ("the 64 KB policy", lambda: _check([str(big)], args.repeat)),
            ("a 26-file PSS library", lambda: _check([str(folder / "library")], args.repeat)),
        ]
        print("vap-lsp check, process start included (median wall and CPU time):")
        first = (0.0, 0.0)
        for name, run in runs:
            wall, cpu = run()
            first = first if first[0] else (wall, cpu)
            print(
                f"  {name:<24} wall {wall:6.2f} s ({wall / first[0]:.1f}×), "
                f"CPU {cpu:6.2f} s ({cpu / first[1]:.1f}× one small policy)"
            )


async def _server(text: str, edits: int, debounce_ms: int | None) -> tuple[float, list[float]]:
    """Seconds from spawning `vap-lsp serve` to the first diagnostics of `text`, then from each
    edit inside its first expression (a literal changed) to the diagnostics of that version."""
    from bench_diagnostics import URI, RawClient

    start = time.perf_counter()
    client = await RawClient.spawn(sys.executable, "-m", "vap_lsp", "serve")
    await client.initialize({} if debounce_ms is None else {"debounceMs": debounce_ms}, None)
    client.open(URI, text)

    async def published(version: int) -> None:
        while (await client.published.get()).get("version") != version:
            pass

    await published(1)
    cold = time.perf_counter() - start
    line, column = _first_validation(text)
    latencies = []
    for version in range(2, edits + 2):
        at = {"line": line, "character": column}
        t0 = time.perf_counter()
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": URI, "version": version},
                "contentChanges": [
                    {"range": {"start": at, "end": at}, "text": f"{version} == {version} && "}
                ],
            },
        )
        await published(version)
        latencies.append(time.perf_counter() - t0)
    await client.stop()
    return cold, latencies


def _first_validation(text: str) -> tuple[int, int]:
    """Where the first validation's expression starts (line, UTF-16 column), after its quote or
    on the line after a block scalar's indicator."""
    lines = text.split("\n")
    for i, row in enumerate(lines):
        found = re.match(r"(\s*-?\s*)expression: ?(.*)$", row)
        if not found or "validations" not in "\n".join(lines[max(0, i - 40) : i]):
            continue
        rest = found.group(2)
        if rest[:1] in (">", "|"):
            following = lines[i + 1]
            return i + 1, len(following) - len(following.lstrip())
        column = len(row) - len(rest)
        return i, column + 1 if rest[:1] in ("'", '"') else column
    raise ValueError("no validation expression")


def _server_report(edits: int) -> None:
    import asyncio

    from bench_diagnostics import generate, pct

    print("the server (stdio), first diagnostics after spawning it and an edit inside an expression:")
    for name, text in (
        ("the 1,000-line fixture", generate(1000)),
        ("../shared/stress/pss-shape.yaml", _shared_stress()),
        ("pss 16 KB", stress_set.pss_policy(16)),
    ):
        if text is None:
            continue
        for debounce, label in ((0, "debounceMs 0"), (None, "default pacing")):
            cold, latencies = asyncio.run(_server(text, edits, debounce))
            print(
                f"  {name:<34} {label:<15} first {cold:5.2f} s, edit -> diagnostics p50 "
                f"{statistics.median(latencies) * 1000:4.0f} ms, p95 {pct(latencies, 95) * 1000:4.0f} ms"
            )


def _shared_stress() -> str | None:
    path = ROOT.parent / "shared" / "stress" / "pss-shape.yaml"
    return path.read_text(encoding="utf-8") if path.is_file() else None


if __name__ == "__main__":
    main()
