"""google/cel-spec's conformance suite through vap_lsp.cel (tools/cel_conformance.py).

Runs when ../shared/cel-spec is present (skips otherwise). Fails on any test that fails and is
not in `cel_spec_known_differences.KNOWN_DIFFERENCES` (a regression), on any listed test that
passes (a stale entry), and when the pass rate falls below the issue's bar (98% of ≥ 1,000
applicable tests).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from cel_spec_known_differences import KNOWN_DIFFERENCES

ROOT = Path(__file__).resolve().parents[2]
CEL_SPEC = ROOT.parent / "shared" / "cel-spec"


def _tool() -> ModuleType:
    path = ROOT / "tools" / "cel_conformance.py"
    spec = importlib.util.spec_from_file_location("cel_conformance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cel_conformance"] = module
    spec.loader.exec_module(module)
    return module


pytestmark = pytest.mark.skipif(
    not (CEL_SPEC / "tests" / "simple" / "testdata").is_dir(),
    reason=f"the cel-spec conformance suite is not at {CEL_SPEC}",
)


@pytest.fixture(scope="module")
def summary() -> object:
    return _tool().run(CEL_SPEC)


def test_no_failure_outside_the_known_differences(summary: object) -> None:
    failures = {o.key: f"{o.expr}: {o.detail}" for o in summary.failures}  # type: ignore[attr-defined]
    unexpected = {k: v for k, v in failures.items() if k not in KNOWN_DIFFERENCES}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in sorted(unexpected.items()))


def test_every_known_difference_still_fails(summary: object) -> None:
    outcomes = {o.key: o.status for o in summary.outcomes}  # type: ignore[attr-defined]
    stale = [k for k in KNOWN_DIFFERENCES if outcomes.get(k) != "fail"]
    assert not stale, f"passing or unknown, remove from cel_spec_known_differences.py: {stale}"


def test_pass_rate_meets_the_bar(summary: object) -> None:
    passed = summary.count("pass")  # type: ignore[attr-defined]
    applicable = passed + summary.count("fail")  # type: ignore[attr-defined]
    assert applicable >= 1000
    assert passed / applicable >= 0.98, f"{passed}/{applicable}"


def test_only_protobuf_message_and_unknowns_tests_are_skipped(summary: object) -> None:
    tool = sys.modules["cel_conformance"]
    markers = (*tool.PROTO_MARKERS, "container ", "unknowns", "type.googleapis.com", "well_known", "enum")
    skipped = [o for o in summary.outcomes if o.status == "skip"]  # type: ignore[attr-defined]
    odd = [(o.key, o.detail) for o in skipped if not any(m in o.detail for m in markers)]
    assert not odd, odd


def test_known_differences_say_why() -> None:
    assert all(len(reason) > 40 for reason in KNOWN_DIFFERENCES.values())
