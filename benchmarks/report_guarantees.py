"""Report: what the guarantees model (`analysis.guarantees`) leaves of the advice, on real policies.

Runs `vap-lsp check` over the corpus (all of it, and Kubescape's multi-kind library alone) and
prints, per set: the findings per code, the `optional-field` hints on fields the API server
always sets (`kind`, `apiVersion`, `metadata`, `metadata.name` outside mutating CREATE — the
goal is 0), the hints by field, and the null-root findings. Printed, never asserted.

Usage: python benchmarks/report_guarantees.py [CORPUS_DIR] [--src SRC]
(default: ../shared/corpus; `--src` runs another checkout's `vap_lsp`, e.g. an older commit
extracted with `git archive`, to print the figures before a change).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = "kubescape__cel-admission-library"
_HINT = re.compile(r": (?P<path>[\w.]+) is (?P<why>.*?); without has\(\)")
# Always set on the object a policy sees, whatever its kind (metadata.name: except on CREATE in
# a mutating policy, which the hint then says).
_SERVER_SET = re.compile(r"^(object|oldObject)\.(kind|apiVersion|metadata)$")
_NULL_ROOTS = ("old-object-on-create", "object-on-delete", "namespace-object-null", "param-ref-missing")


def _check(path: Path, src: Path) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = ["check", "--no-config", "--exit-zero", "--format", "json", str(path)]
    # Run in `src`: `-m` puts the working folder first on the path.
    run = [sys.executable, "-m", "vap_lsp", *command]
    result = subprocess.run(run, capture_output=True, text=True, env=env, cwd=src, check=False)
    files = json.loads(result.stdout)["files"]
    return [d for f in files for d in f["diagnostics"]]


def _report(title: str, diagnostics: list[dict[str, object]]) -> None:
    codes = Counter(str(d["code"]) for d in diagnostics)
    hints = [_HINT.search(str(d["message"])) for d in diagnostics if d["code"] == "optional-field"]
    paths = Counter(m["path"] for m in hints if m)
    server_set = sum(n for p, n in paths.items() if _SERVER_SET.match(p))
    name = sum(
        1
        for m in hints
        if m and m["path"].endswith("metadata.name") and not m["why"].startswith("absent on CREATE")
    )
    print(f"== {title}: {len(diagnostics)} findings")
    print("  per code: " + ", ".join(f"{c} {n}" for c, n in codes.most_common()))
    print(f"  optional-field hints: {codes['optional-field']}")
    print(f"    on kind/apiVersion/metadata (goal 0): {server_set}; on metadata.name where it is set: {name}")
    print("    by field: " + ", ".join(f"{p} {n}" for p, n in paths.most_common(12)))
    print("  null roots: " + ", ".join(f"{c} {codes[c]}" for c in _NULL_ROOTS))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--src", default=str(ROOT), help="the checkout whose vap_lsp is run")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}; pass its path")
        return
    src = Path(args.src)
    _report(f"corpus ({corpus})", _check(corpus, src))
    if (corpus / LIBRARY).is_dir():
        _report(f"{LIBRARY} (60 multi-kind policies)", _check(corpus / LIBRARY, src))


if __name__ == "__main__":
    main()
