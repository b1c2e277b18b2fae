"""Benchmark: `vap-lsp convert` on the public libraries of tests/fixtures/libraries (printed only).

For gatekeeper-library (its K8sNativeValidation templates) and kyverno/policies (ValidatingPolicies
and validate.cel ClusterPolicies), per Kubernetes version: policies converted, what could not be
(by construct), what `vap-lsp check` says of the output (by severity), the verification of the
libraries' own tests (agree, disagree, not evaluable with the reasons), and the time of each step.
The README's "Migrating to native policies" figures come from this script.

Usage: python benchmarks/bench_convert.py [--versions 1.36 1.37] [--params constraint configmap]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from vap_lsp.convert.driver import convert_paths
from vap_lsp.convert.model import Options
from vap_lsp.convert.report import verification_summary
from vap_lsp.convert.verify import DISAGREE, NOT_EVALUABLE, verify

LIBRARIES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "libraries"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", nargs="+", default=["1.36", "1.37"])
    parser.add_argument("--params", nargs="+", default=["constraint"], choices=("constraint", "configmap"))
    args = parser.parse_args()
    for library in ("gatekeeper-library", "kyverno-policies"):
        folder = LIBRARIES / library
        for version in args.versions:
            for params in args.params if library == "gatekeeper-library" else ["constraint"]:
                options = Options(version, params=params)
                started = time.perf_counter()
                run = convert_paths([folder], options)
                converted = time.perf_counter()
                verification = verify([folder], run.conversions, options)
                verified = time.perf_counter()
                label = f"{library} on Kubernetes {version}" + (
                    f", --params {params}" if library.startswith("gate") else ""
                )
                print(f"== {label}")
                sources = Counter(c.origin.kind for c in run.conversions)
                done = Counter(c.origin.kind for c in run.conversions if c.converted)
                for kind, n in sorted(sources.items()):
                    print(f"  {kind}: {done[kind]} of {n} converted")
                policies = sum(len(c.policies) for c in run.conversions)
                print(f"  {policies} ValidatingAdmissionPolicies written in {len(run.texts)} files")
                for construct, n in Counter(u.construct for u in run.unconvertible).most_common():
                    print(f"  not converted: {n} × {construct}")
                findings = Counter(f.severity for f in run.findings)
                print(f"  vap-lsp check: {dict(findings) or 'clean'}")
                print(f"  {verification_summary(verification)}")
                for reason, n in Counter(
                    c.reason for c in verification.cases if c.status == NOT_EVALUABLE
                ).most_common():
                    print(f"    not evaluable: {n} × {reason[:140]}")
                for case in verification.cases:
                    if case.status == DISAGREE:
                        where = f"{case.test_file}:{case.line} {case.name}"
                        print(f"    disagree: {where}: {case.expected} / {case.actual}"[:220])
                took = f"convert and check {converted - started:.1f} s, verify {verified - converted:.1f} s"
                print(f"  time: {took}")


if __name__ == "__main__":
    main()
