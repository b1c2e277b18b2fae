"""Benchmark: CEL parse+check latency per expression and the diagnostics pass (printed only).

Measures
- vap-lsp `compile_expression` (result cache cleared before every run) on every expression of the
  public policy corpus (`../shared/corpus`: `expression`, `messageExpression`, `valueExpression`
  keys; skipped when absent) and of the differential corpus (tests/cel/differential);
- on the differential corpus, Google's C++ CEL (`cel-expr-python`, `env.compile`) on the same
  standard-library expressions with the same declarations, and the ratio ours / C++;
- `analyse_text` on a generated multi-policy file of about 1000 lines (bench_diagnostics.generate).

Each expression is compiled `--repeat` times; its time is the median of those runs. Printed:
mean, p50, p95 over expressions.

Usage: python benchmarks/bench_cel.py [--repeat 5] [--lines 1000] [--runs 20] [--generated 4000]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "cel"))
sys.path.insert(0, str(ROOT / "tests" / "cel" / "differential"))

from bench_diagnostics import generate  # noqa: E402

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, clear_caches  # noqa: E402
from vap_lsp.cel.compile import clear_cache, compile_expression  # noqa: E402
from vap_lsp.cel.environment import ExpressionKind, build_environment  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
EXPRESSION_KEYS = ("expression", "messageExpression", "valueExpression")


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(label: str, samples: list[float]) -> str:
    if not samples:
        return f"{label}: no samples"
    return (
        f"{label}: n={len(samples)}, mean {statistics.fmean(samples) * 1e3:.3f} ms, "
        f"p50 {statistics.median(samples) * 1e3:.3f} ms, p95 {pct(samples, 95) * 1e3:.3f} ms"
    )


def per_expression(texts: list[str], compile_one: Callable[[str], object], repeat: int) -> list[float]:
    """Median time of `repeat` compilations of each text."""
    out: list[float] = []
    for text in texts:
        runs: list[float] = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            compile_one(text)
            runs.append(time.perf_counter() - t0)
        out.append(statistics.median(runs))
    return out


def _walk(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in EXPRESSION_KEYS and isinstance(value, str):
                yield value
            else:
                yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def corpus_expressions() -> list[str]:
    """Every CEL expression string of the policy corpus (any object kind)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    out: list[str] = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix not in (".yaml", ".yml"):
            continue
        try:
            docs = list(YAML(typ="safe", pure=True).load_all(path.read_text(encoding="utf-8")))
        except (YAMLError, UnicodeDecodeError, ValueError):
            continue
        for doc in docs:
            out.extend(_walk(doc))
    return out


def bench_policy_corpus(repeat: int) -> None:
    if not CORPUS.is_dir():
        print(f"policy corpus: not found at {CORPUS}, skipped")
        return
    texts = corpus_expressions()
    # Object and params are dyn here: the cost of schema types is measured by bench_diagnostics.
    env = build_environment("1.34", ExpressionKind.VARIABLE, has_params=True)

    def ours(text: str) -> object:
        clear_cache()
        return compile_expression(text, env)

    label = f"policy corpus, vap-lsp compile_expression ({len(texts)} expressions)"
    print(summary(label, per_expression(texts, ours, repeat)))


def bench_differential(repeat: int, generated: int) -> None:
    if importlib.util.find_spec("cel_expr_python") is None:
        print("differential corpus: cel-expr-python (C++ CEL) is not installed, skipped")
        return
    import differential_gen as gen  # tests/cel/differential
    import test_cel_differential as diff  # tests/cel: the corpus and both environments

    texts = [*diff.hand_written(), *gen.generate(generated, diff.GENERATOR_SEED)]
    env = diff.our_env()

    def ours(text: str) -> object:
        clear_cache()
        return compile_expression(text, env)

    our_times = per_expression(texts, ours, repeat)
    label = f"differential corpus, vap-lsp compile_expression ({len(texts)} expressions)"
    print(summary(label, our_times))
    cpp = diff.oracle_env()

    def theirs(text: str) -> object:
        try:
            return cpp.compile(text)
        except Exception as exc:  # rejected expressions cost time too
            return exc

    cpp_times = per_expression(texts, theirs, repeat)
    print(summary("differential corpus, C++ CEL env.compile (same expressions)", cpp_times))
    ratios = [o / c for o, c in zip(our_times, cpp_times, strict=True) if c > 0]
    print(
        f"ratio vap-lsp / C++: mean of totals {sum(our_times) / sum(cpp_times):.1f}x, "
        f"per-expression p50 {statistics.median(ratios):.1f}x, p95 {pct(ratios, 95):.1f}x"
    )


def bench_diagnostics(lines: int, runs: int) -> None:
    text = generate(lines)
    settings = AnalysisSettings()
    analyse_text(text, settings)  # warm the schema caches
    samples: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        analyse_text(text, settings)
        samples.append(time.perf_counter() - t0)
    cold: list[float] = []
    for _ in range(max(3, runs // 4)):
        clear_caches()  # parsed pieces, compiled CEL and per-object results: the whole pass
        t0 = time.perf_counter()
        analyse_text(text, settings)
        cold.append(time.perf_counter() - t0)
    print(f"diagnostics file: {text.count(chr(10))} lines, {text.count('kind: ')} objects")
    print(
        f"analyse_text: p50 {statistics.median(samples) * 1e3:.1f} ms, p95 {pct(samples, 95) * 1e3:.1f} ms "
        f"over {runs} runs (unchanged text); all caches cleared first: "
        f"p50 {statistics.median(cold) * 1e3:.1f} ms, p95 {pct(cold, 95) * 1e3:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5, help="compilations per expression (median kept)")
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--generated", type=int, default=4000, help="generated differential expressions")
    args = parser.parse_args()
    bench_policy_corpus(args.repeat)
    bench_differential(args.repeat, args.generated)
    bench_diagnostics(args.lines, args.runs)


if __name__ == "__main__":
    main()
