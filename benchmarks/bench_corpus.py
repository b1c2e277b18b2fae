"""Benchmark: `vap-lsp check` over the public policy corpus (printed, never asserted).

Prints files per second and the peak resident memory of the checking process.
Usage: python benchmarks/bench_corpus.py [CORPUS_DIR]   (default: ../shared/corpus)
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}; pass its path")
        return
    files = sum(1 for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml"))
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "vap_lsp", "check", "--format", "json", str(corpus)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        f"vap-lsp check over {files} corpus files: {seconds:.2f} s, {files / seconds:.0f} files/s "
        f"(exit {result.returncode})"
    )
    print(f"peak RSS of the checking process: {peak_kib / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
