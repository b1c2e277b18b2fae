"""The policies in ../shared/corpus that ship test cases, reproduced with their expected
outcomes: pfnet/kaptest's and cybozu-go/ofen's kaptest manifests and Kyverno's
kyverno-test.yaml folders for ValidatingAdmissionPolicy/MutatingAdmissionPolicy (every
`kyverno-test.yaml` of the corpus with such results).

Every case must pass, except the differences listed below, each investigated: the file relies
on behaviour of its tool that the API server does not have. A listed difference that stops
failing is reported too, so the list cannot go stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vap_lsp.testfiles.discover import discover
from vap_lsp.testfiles.model import TestSuite
from vap_lsp.testfiles.runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
KYVERNO = "kyverno__kyverno/test/cli"
FOLDERS = [
    "pfnet__kaptest",
    "cybozu-go__ofen",
    f"{KYVERNO}/test-validating-admission-policy",
    f"{KYVERNO}/test-mutating-admission-policy",
    f"{KYVERNO}/test/validating-admission-policies",
]

_NO_OPERATIONS = (
    "the resourceRule has no `operations`: the API server rejects the policy at creation "
    "(operations: Required value) and a rule without operations matches no request; Kyverno's CLI "
    "ignores operations"
)
# (test file relative to the corpus, case name) -> why our (API server) result differs.
EXPECTED_DIFFERENCES: dict[tuple[str, str], str] = {
    (
        f"{KYVERNO}/test-validating-admission-policy/match-namespaces/kyverno-test.yaml",
        "validate-namespace-name Namespace invalid-namespace → fail",
    ): _NO_OPERATIONS,
    (
        f"{KYVERNO}/test-validating-admission-policy/match-namespaces/kyverno-test.yaml",
        "validate-namespace-name Namespace valid-namespace → pass",
    ): _NO_OPERATIONS,
    (
        f"{KYVERNO}/test-validating-admission-policy/with-params/kyverno-test.yaml",
        "check-deployments-replicas Deployment nginx-deployment2 → fail",
    ): (
        "the binding has no `validationActions`: the API server rejects it at creation "
        "(validationActions: Required value), and without an action a false validation denies "
        "nothing; Kyverno's CLI treats it as Deny"
    ),
    (
        f"{KYVERNO}/test-mutating-admission-policy/with-two-params/kyverno-test.yaml",
        "change-deployment-replicas-labels Deployment test-deployment → pass",
    ): (
        "the expression reads `params.items[0]`/`params.items[1]`: Kyverno's CLI hands the params "
        "selected by paramRef.selector over as a list; the API server evaluates the policy once per "
        "selected param with `params` that object, so `params.items` is `no such key` (an error, "
        "denied under failurePolicy Fail)"
    ),
}

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not present at {CORPUS}")


def _suites() -> list[TestSuite]:
    if not CORPUS.is_dir():
        return []
    errors: list[str] = []
    suites = discover([str(CORPUS / f) for f in FOLDERS if (CORPUS / f).is_dir()], errors)
    assert errors == []
    return suites


SUITES = _suites()


def _rel(suite: TestSuite) -> str:
    return Path(suite.path).relative_to(CORPUS).as_posix()


def test_every_test_folder_is_found() -> None:
    found = sorted(_rel(s) for s in SUITES)
    assert len([f for f in found if f.endswith("kaptest.yaml")]) == 8
    kyverno = [f for f in found if f.endswith("kyverno-test.yaml")]
    # 11 VAP folders have a kyverno-test.yaml (4 more hold only policies and resources), 14 MAP.
    assert len(kyverno) == 25
    assert sum(len(s.cases) for s in SUITES) == 90


@pytest.mark.parametrize("suite", SUITES, ids=_rel)
def test_corpus_suite_reproduces_its_expected_outcomes(suite: TestSuite) -> None:
    assert suite.problems == []
    assert suite.cases
    for case in suite.cases:
        case.expected_difference = EXPECTED_DIFFERENCES.get((_rel(suite), case.name))
    results = run_suite(suite)
    unexpected = [
        f"{r.case.name} (line {r.case.line}): {'; '.join(r.failures)}"
        for r in results
        if not r.passed and not r.expected_difference
    ]
    assert unexpected == []
    stale = [r.case.name for r in results if r.passed and r.case.expected_difference]
    assert stale == [], "listed as an expected difference but now passes"


def test_expected_differences_name_existing_cases() -> None:
    names = {(_rel(s), c.name) for s in SUITES for c in s.cases}
    assert set(EXPECTED_DIFFERENCES) <= names


def test_kaptest_cases_note_when_the_server_would_not_match() -> None:
    """kaptest's examples match `deployments` in the core group: on a server nothing matches."""
    (suite,) = [
        s for s in SUITES if _rel(s) == "pfnet__kaptest/examples/simple/simple-policy.test/kaptest.yaml"
    ]
    results = run_suite(suite)
    assert [r.actual for r in results] == ["admit", "deny", "error"]
    assert all(any("would not match" in n for n in r.notes) for r in results)


def test_no_server_match_note_for_kinds_without_a_crd() -> None:
    """ofen's kinds come without their CRD: the resource name would be a guess, so no note."""
    (suite,) = [s for s in SUITES if _rel(s) == "cybozu-go__ofen/config/vap/vap.test/kaptest.yaml"]
    results = run_suite(suite)
    assert all(r.passed for r in results)
    assert not any("would not match" in n for r in results for n in r.notes)
    # Denials come from validations evaluating to false, not from the binding's configuration.
    assert {r.actual for r in results} == {"admit", "deny"}
