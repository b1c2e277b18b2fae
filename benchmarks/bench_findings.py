"""Findings per code with and without narrowing by guards (`analysis.narrowing`), on real policies.

Runs `vap-lsp check` (JSON) over the corpus and over the multi-kind library committed as test
data (Kubescape's cel-admission-library, `tests/fixtures/libraries/`), twice each: as it is, and
with narrowing switched off (every branch reachable for every kind: what vap-lsp reported before
it). Prints per set the findings per code before → after, and the server's type-check warnings
split into those in a branch that runs (`cel-type-check`) and those only in branches a guard
rules out (`cel-type-check-guarded`). Printed, never asserted (the library's counts are pinned
by `tests/analysis/test_library_kubescape.py`).

Usage: python benchmarks/bench_findings.py [CORPUS_DIR]   (default: ../shared/corpus)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "tests" / "fixtures" / "libraries" / "kubescape-cel-admission-library"
_TYPE_CHECK = ("cel-type-check", "cel-type-check-guarded", "cel-type-check-extra", "vap-lsp-type-check")


def _run(path: Path, narrowing: bool) -> tuple[Counter[str], float]:
    """Findings per code of `vap-lsp check path`, in a fresh interpreter (no warm caches)."""
    command = [sys.executable, __file__, "--check", str(path)] + ([] if narrowing else ["--no-narrowing"])
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    files = json.loads(result.stdout)["files"]
    return Counter(str(d["code"]) for f in files for d in f["diagnostics"]), elapsed


def _check(path: str, narrowing: bool) -> None:
    """The child: `vap-lsp check --format json path`, narrowing switched off if asked."""
    if not narrowing:
        from vap_lsp.analysis.model import context as model
        from vap_lsp.analysis.model import narrowing as module

        setattr(model, "reachability", lambda parsed, *_args, **_kw: module.everything_reachable(parsed))  # noqa: B010
    from vap_lsp.cli.main import main

    main(["check", "--no-config", "--exit-zero", "--format", "json", path])


def _report(title: str, path: Path) -> None:
    before, t_before = _run(path, narrowing=False)
    after, t_after = _run(path, narrowing=True)
    print(f"== {title}: {sum(before.values())} → {sum(after.values())} findings")
    for code in sorted(set(before) | set(after), key=lambda c: (-max(before[c], after[c]), c)):
        mark = "" if before[code] == after[code] else "   *"
        print(f"  {code:28} {before[code]:6} → {after[code]:6}{mark}")
    server = after["cel-type-check"] + after["cel-type-check-guarded"]
    print(
        f"  the server's type-check warnings: {before['cel-type-check']} before; after: "
        f"{after['cel-type-check']} in a branch that runs, {after['cel-type-check-guarded']} only in "
        f"branches a guard rules out (of {server} problem×kind groups)"
    )
    own = [c for c in _TYPE_CHECK[2:] if before[c] != after[c]]
    if own:
        print("  vap-lsp's own checks: " + ", ".join(f"{c} {before[c]} → {after[c]}" for c in own))
    print(f"  check time: {t_before:.1f} s without narrowing, {t_after:.1f} s with (one process each)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--check", help=argparse.SUPPRESS)
    parser.add_argument("--no-narrowing", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check:
        _check(args.check, not args.no_narrowing)
        return
    _report("kubescape/cel-admission-library (tests/fixtures/libraries, 60 multi-kind policies)", LIBRARY)
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}: only the committed library was measured")
        return
    _report(f"corpus ({corpus})", corpus)


if __name__ == "__main__":
    main()
