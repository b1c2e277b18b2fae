"""Issue 37's proof on public libraries (tests/fixtures/libraries, see each PROVENANCE.md): every
gatekeeper-library template with a K8sNativeValidation engine and every kyverno/policies
ValidatingPolicy and validate.cel ClusterPolicy converted, clean under `vap-lsp check`, and the
libraries' own tests replayed through the converted policies: every evaluable case agrees.

The cases that are not evaluable are those of policies that cannot be converted (each with its
reason, below) and one whose resource file is absent upstream. On Kubernetes 1.37 (cel-go
v0.29) 23 Kyverno cases disagree, all from one change: `orValue` on a value that is not an
optional is `no such overload` from cel-go v0.28 (tests/cel/test_cel_eval_optional_or.py),
where Kyverno keeps the old behaviour; up to 1.36 they agree."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from vap_lsp.convert.driver import Run, convert_paths
from vap_lsp.convert.model import Options
from vap_lsp.convert.verify import AGREE, DISAGREE, NOT_EVALUABLE, Verification, verify

LIBRARIES = Path(__file__).parent.parent / "fixtures" / "libraries"
GATEKEEPER = LIBRARIES / "gatekeeper-library"
KYVERNO = LIBRARIES / "kyverno-policies"


def _statuses(verification: Verification) -> dict[str, int]:
    return dict(Counter(c.status for c in verification.cases))


@pytest.fixture(scope="module")
def kyverno_run() -> Run:
    return convert_paths([KYVERNO], Options("1.36"))


def test_gatekeeper_library_converts_and_agrees_with_its_suites() -> None:
    options = Options("1.37")
    run = convert_paths([GATEKEEPER], options)
    assert (len(run.conversions), sum(c.converted for c in run.conversions)) == (16, 16)
    assert run.unconvertible == []
    assert run.findings == []  # clean under `vap-lsp check`, with the constraint CRDs it writes
    verification = verify([GATEKEEPER], run.conversions, options)
    assert (verification.files, _statuses(verification)) == (16, {AGREE: 131})


def test_gatekeeper_library_with_configmap_params() -> None:
    options = Options("1.36", params="configmap")
    run = convert_paths([GATEKEEPER], options)
    assert not [f for f in run.findings if f.severity in ("error", "warning")]
    verification = verify([GATEKEEPER], run.conversions, options)
    assert _statuses(verification) == {AGREE: 113, NOT_EVALUABLE: 18}
    # Lists of objects (requiredlabels' labels, fsgroup's ranges, host-filesystem's paths).
    assert {c.reason.split(":")[1].strip() for c in verification.cases if c.status == NOT_EVALUABLE} == {
        "parameters a ConfigMap cannot hold"
    }


def test_kyverno_policies_convert(kyverno_run: Run) -> None:
    run = kyverno_run
    kinds = Counter(c.origin.kind for c in run.conversions)
    converted = Counter(c.origin.kind for c in run.conversions if c.converted)
    assert (dict(kinds), dict(converted)) == (
        {"ValidatingPolicy": 118, "ClusterPolicy": 135},
        {"ValidatingPolicy": 102, "ClusterPolicy": 133},
    )
    assert Counter(u.construct for u in run.unconvertible) == {
        "resource.Get/List": 10,
        "image data": 5,
        "user": 2,
        "roles of the requester": 2,
        "time": 1,
    }
    # What `vap-lsp check` finds is the sources' own CEL (the API server's type-check warnings on
    # Kyverno's expressions, unguarded optional fields): no error.
    assert not [f for f in run.findings if f.severity == "error"]


def test_kyverno_policies_agree_with_their_tests(kyverno_run: Run) -> None:
    verification = verify([KYVERNO], kyverno_run.conversions, Options("1.36"))
    assert verification.files == 227
    assert _statuses(verification) == {AGREE: 2858, NOT_EVALUABLE: 58}
    reasons = Counter(
        c.reason.split(":")[0] if c.reason.startswith("not converted") else c.reason
        for c in verification.cases
        if c.status == NOT_EVALUABLE
    )
    assert reasons == {"not converted": 57, "no such resource in the test's resource files": 1}


def test_on_1_37_orvalue_on_plain_values_fails(kyverno_run: Run) -> None:
    folders = [
        KYVERNO / "other-cel" / "ensure-readonly-hostpath",
        KYVERNO / "other-vpol" / "ensure-readonly-hostpath",
        KYVERNO / "other-vpol" / "require-emptydir-requests-limits",
        KYVERNO / "other-vpol" / "require-qos-guaranteed",
        KYVERNO / "pod-security-vpol" / "restricted" / "disallow-capabilities-strict",
    ]
    verification = verify(folders, kyverno_run.conversions, Options("1.37"))
    disagreements = [c for c in verification.cases if c.status == DISAGREE]
    assert len(disagreements) == 23
    # Each a resource the policy allows, where the converted policy's expression errors (and,
    # failurePolicy Fail, rejects or reports the request).
    assert {(c.expected, (c.actual or "").split(" (")[0]) for c in disagreements} == {("pass", "fail")}
    assert all("no such overload" in (c.actual or "") for c in disagreements)
