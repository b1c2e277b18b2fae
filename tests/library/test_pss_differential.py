"""Differential test: the policies `vap-lsp library pss` generates against Pod Security
Admission's own evaluator, on generated Pods.

Each Pod (`pss_pods.pods`: every field a PSA check reads, values near each boundary) goes through
the generated policy with vap-lsp's offline admission (decoded and defaulted as the API server
does), and the object validating admission saw goes through `vap-oracle pss`
(`oracle/cmd/vap-oracle/pss.go`: k8s.io/pod-security-admission v0.37.2's `NewEvaluator` over
`DefaultChecks`, `EvaluatePod`, `AggregateCheckResults`). Both must give the same verdict and the
same failing checks, in the same order (a validation's message starts with PSA's reason).
Details are PSA's words but list values gathered across containers in visit order where PSA
sorts them; they are counted, not compared.

Bounded here (a few hundred Pods); `benchmarks/bench_pss.py` runs ≥ 5,000 per level and version.
Skips with the reason when Go is missing or the oracle does not build (no module proxy or cache).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.library.pss_pods import OracleUnavailable, PssOracle, Tally, build_oracle, differential, pods
from vap_lsp.admission.api import PolicyInputs, prepare
from vap_lsp.library.pss import Options, generate

PODS = 150
VERSIONS = ("v1.0", "v1.25", "latest")


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PssOracle]:
    try:
        binary = build_oracle()
    except OracleUnavailable as exc:
        pytest.skip(str(exc))
    running = PssOracle(binary)
    yield running
    running.close()


@pytest.fixture(scope="module")
def generated() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    @settings(
        max_examples=PODS,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(pods())
    @seed(36)
    def collect(pod: dict[str, Any]) -> None:
        out.append(pod)

    collect()
    return out


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("level", ["baseline", "restricted"])
def test_generated_policy_agrees_with_psa(
    oracle: PssOracle, generated: list[dict[str, Any]], level: str, version: str
) -> None:
    policy = generate(Options(level=level, version=version, workloads="off"))
    prepared = prepare(
        PolicyInputs.from_objects(policy.objects()), kubernetes_version="1.37", builtin_admission=False
    )
    tally = Tally()
    for start in range(0, len(generated), 50):
        tally.add(differential(prepared, oracle, level, version, generated[start : start + 50]))
    assert tally.pods == len(generated) >= PODS * 0.9
    assert 0 < tally.denied < tally.pods or level == "restricted"  # both verdicts are reached
    assert tally.divergences == 0, "\n".join(tally.examples)


def test_the_oracle_answers_as_psa(oracle: PssOracle) -> None:
    """The oracle itself on two of PSA's fixtures (so a broken oracle cannot agree by accident)."""
    testdata = Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "pod-security-admission"
    import yaml

    fail = yaml.safe_load((testdata / "testdata/baseline/v1.37/fail/hostnamespaces0.yaml").read_text())
    good = yaml.safe_load((testdata / "testdata/baseline/v1.37/pass/base.yaml").read_text())
    assert oracle.ask("baseline", "latest", [fail, good]) == [
        {"allowed": False, "reasons": ["host namespaces"], "details": ["hostIPC=true"]},
        {"allowed": True, "reasons": None, "details": None},
    ]
