"""The oracle for tests/oracle: built once per session (skipped, with the reason, without Go or
when the build fails), one long-lived `vap-oracle batch` process."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Oracle, OracleUnavailable, build_oracle


@pytest.fixture(scope="session")
def oracle() -> Iterator[Oracle]:
    # CI builds the oracle beside the other steps and says where it is (or why not).
    reason = os.environ.get("VAP_ORACLE_SKIP")
    if reason:
        pytest.skip(f"the oracle (Kubernetes' Go packages, oracle/) is unavailable: {reason}")
    given = os.environ.get("VAP_ORACLE")
    try:
        # A cold build takes minutes: the suite does not wait for one unless asked to.
        binary = Path(given) if given else build_oracle(build=os.environ.get("VAP_ORACLE_BUILD") == "1")
    except OracleUnavailable as exc:
        pytest.skip(f"the oracle (Kubernetes' Go packages, oracle/) is unavailable: {exc}")
    o = Oracle(binary)
    yield o
    o.close()
