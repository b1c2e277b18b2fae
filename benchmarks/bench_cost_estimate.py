"""Benchmark: the static cost estimate of every VAP/MAP expression of the corpus.

Each policy of the corpus is analysed first as `vap-lsp check CORPUS` does (one workspace, CRDs
of the corpus included), so its typing model and compile results are warm, as they are when
an editor asks for the estimate after a diagnostics run. Then `analysis.cost_estimates.
estimate_policy` is timed per policy on that warm model, cold (nothing estimated yet) and again
(cached per model, kind and site). What an estimate adds per keystroke is the cold time of the
edited policy. Also printed: how many estimates exceed the per-call limit (1,000,000), with and
without a schema bound on their dominant comprehension. Printed, never asserted.

Usage: python benchmarks/bench_cost_estimate.py [CORPUS_DIR]   (default: ../shared/corpus)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text
from vap_lsp.analysis.model import cost_estimates
from vap_lsp.analysis.model.context import PolicyContext, policy_context
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.yaml.detect import decode_bytes
from vap_lsp.yaml.model import ExpansionLimit, to_python

ROOT = Path(__file__).resolve().parents[1]
PER_CALL_LIMIT = 1_000_000


def _models(corpus: Path) -> list[PolicyContext]:
    settings = AnalysisSettings()
    version = settings.resolved_version()
    paths = sorted(p for p in corpus.rglob("*") if p.suffix in (".yaml", ".yml"))
    texts: dict[Path, str] = {}
    workspace = WorkspaceIndex()
    for path in paths:
        text, _ = decode_bytes(path.read_bytes())
        if text is None:
            continue
        texts[path] = text
        workspace.update(str(path), parse_text(text)[1], text)
    workspace.complete = True
    models: list[PolicyContext] = []
    for path, text in texts.items():
        analysis = analyse_text(text, settings, workspace=workspace, uri=str(path))
        for obj in analysis.objects:
            recognised = recognise(obj.api_version, obj.kind)
            if recognised is None or recognised[0] not in (PolicyKind.VAP, PolicyKind.MAP):
                continue
            try:
                data = to_python(obj.node, budget=200_000)
            except ExpansionLimit:
                continue
            spec = data.get("spec") if isinstance(data, dict) else None
            if isinstance(spec, dict):
                models.append(policy_context(obj.node, recognised[0], spec, version, workspace))
    return models


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "corpus"
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}; pass its path")
        return
    models = _models(corpus)
    # Warm every view the estimate reads (as after a diagnostics run); no estimate is made yet.
    for model in models:
        for kind in [k for k in model.kinds if k.has_schema] or [None]:
            view = model.view("precise", kind)
            for site in model.sites:
                view.result(site)
    cold: list[float] = []
    counts: Counter[str] = Counter()
    start_all = time.perf_counter()
    for model in models:
        start = time.perf_counter()
        found = cost_estimates.estimate_policy(model)
        cold.append(time.perf_counter() - start)
        counts["expressions"] += len(found)
        for e in found:
            if e.cost.max > PER_CALL_LIMIT:
                counts["over the per-call limit"] += 1
                if e.dominant is not None and not e.unbounded():
                    counts["over the limit with every range bounded by the schema"] += 1
    total_cold = time.perf_counter() - start_all
    start_all = time.perf_counter()
    for model in models:
        cost_estimates.estimate_policy(model)
    total_cached = time.perf_counter() - start_all
    print(f"{len(models)} policies, {counts['expressions']} expressions estimated")
    print(
        f"cold: {total_cold * 1000:.0f} ms in all, per policy median "
        f"{statistics.median(cold) * 1000:.2f} ms, max {max(cold) * 1000:.1f} ms; "
        f"per expression {total_cold / max(counts['expressions'], 1) * 1e6:.0f} µs"
    )
    print(f"cached: {total_cached * 1000:.1f} ms in all")
    print(
        f"over the per-call limit: {counts['over the per-call limit']} "
        f"({counts['over the limit with every range bounded by the schema']} with every range bounded)"
    )


if __name__ == "__main__":
    main()
