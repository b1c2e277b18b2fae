# ruff: noqa: E501  (report lines are kept on one line each)
"""The full differential run of vap-lsp against the oracle (Kubernetes' own Go packages,
`oracle/`, issue 34): printed, never asserted.

Builds the oracle (`oracle/build`; minutes the first time), then: every policy file of the shared
corpus, the examples and the test fixtures through `check` on both sides; `--cel` generated CEL
expressions (typed grammar over object/request, built-in kinds) through `cel`; `--run` generated
policy sets (validations, variables, matchConditions, selectors, exclusions, mutations) and
requests through `run`. Prints the cases run per mode, the time, and the divergences by class:
deliberate differences are normalised by the harness (tests/oracle/DELIBERATE.md); "open" are
known, not yet fixed classes (listed in tests/oracle/test_differential.py); anything else is
"unexplained".

Usage: python benchmarks/oracle_diff.py [--cel 10000] [--run 10000] [--seed 0] [--show 3]
(`VAP_ORACLE=<binary>` uses that oracle instead of building one, as tests/oracle does.)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "oracle"))

import generators as g  # noqa: E402
from harness import Divergence, Oracle, Tally, build_oracle, cel_case, run_case  # noqa: E402
from test_differential import CORPUS, _open, check_both, policy_files  # noqa: E402


def report(title: str, tally: Tally, seconds: float, show: int) -> int:
    open_ = [d for d in tally.divergences if _open(d)]
    unexplained = [d for d in tally.divergences if not _open(d)]
    kinds: dict[str, int] = {}
    for d in unexplained:
        kinds[d.kind] = kinds.get(d.kind, 0) + 1
    print(
        f"{title}: {tally.cases} cases in {seconds:.1f} s; open {len(open_)}, unexplained {len(unexplained)} {kinds}"
    )
    shown: dict[str, int] = {}
    for d in unexplained:
        shown[d.kind] = shown.get(d.kind, 0) + 1
        if shown[d.kind] <= show:
            print("  " + str(d)[:1500].replace("\n", "\n  "))
    return len(unexplained)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cel", type=int, default=10_000)
    parser.add_argument("--run", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3)
    args = parser.parse_args()
    t = time.perf_counter()
    given = os.environ.get("VAP_ORACLE")
    binary = Path(given) if given else build_oracle()
    print(f"oracle: {binary} (built or found in {time.perf_counter() - t:.1f} s)")
    oracle = Oracle(binary)
    total = 0
    t = time.perf_counter()
    files = policy_files(CORPUS, ROOT / "examples", ROOT / "tests" / "fixtures")
    total += report(
        "check (corpus, examples, fixtures)", check_both(oracle, files), time.perf_counter() - t, args.show
    )

    tally = Tally()
    t = time.perf_counter()
    for i in range(args.cel):
        r = random.Random(f"cel-{args.seed}-{i}")
        kind = r.choice(sorted(g.KINDS))
        tally.add(cel_case(oracle, g.Cel(r, kind).expr(), kind=kind, obj=g.KINDS[kind](r)))
    total += report("cel (generated)", tally, time.perf_counter() - t, args.show)

    tally = Tally()
    t = time.perf_counter()
    for i in range(args.run):
        c = g.run_case_inputs(random.Random(f"run-{args.seed}-{i}"))
        found: list[Divergence] = run_case(
            oracle,
            c["documents"],
            c["obj"],
            old=c["old"],
            operation=c["operation"],
            user=c["user"],
            groups=c["groups"],
        )
        tally.add(found)
    total += report("run (generated)", tally, time.perf_counter() - t, args.show)
    oracle.close()
    print(f"unexplained divergences: {total}")


if __name__ == "__main__":
    main()
