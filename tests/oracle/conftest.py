"""The oracle for tests/oracle: built once per session (skipped, with the reason, without Go or
when the build fails), one long-lived `vap-oracle batch` process."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Oracle, OracleUnavailable, build_oracle


@pytest.fixture(scope="session")
def oracle() -> Iterator[Oracle]:
    try:
        binary = build_oracle()
    except OracleUnavailable as exc:
        pytest.skip(f"the oracle (Kubernetes' Go packages, oracle/) is unavailable: {exc}")
    o = Oracle(binary)
    yield o
    o.close()
