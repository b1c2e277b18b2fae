"""A real kube-apiserver for the tests that need one (`impact --cluster`, the oracle's `serve`),
once per session: the one home of that fixture.

Where it comes from, in order:
- `VAP_LSP_TEST_KUBECONFIG`: a kubeconfig of a throwaway cluster someone started (the tests
  create and delete namespaces, objects, policies and RBAC rules in it);
- the oracle of issue 34: `vap-oracle serve --kubeconfig FILE` (kube-apiserver with an embedded
  etcd; FILE is written once the server answers), when its `serve` build is there
  (`oracle/build --serve --if-built`). Linking kube-apiserver takes minutes, so the tests never
  build it themselves unless `VAP_ORACLE_BUILD_SERVE=1` (CI builds it in the background and
  uses it when it is ready in time).
Otherwise (no Go, no build, no oracle in this tree) the tests skip and say why.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = float(os.environ.get("VAP_LSP_ORACLE_BUILD_TIMEOUT", "1800"))
START_TIMEOUT = 180.0


def _oracle_binary() -> str:
    build = ROOT / "oracle" / "build"
    if not build.exists():
        pytest.skip("no kube-apiserver: the oracle (issue 34, oracle/build) is not in this tree")
    sources = (ROOT / "oracle" / "cmd").rglob("*.go")
    if not any("//go:build serve" in p.read_text(encoding="utf-8", errors="replace") for p in sources):
        # Checked before building: a build of kube-apiserver's packages takes minutes.
        pytest.skip("no kube-apiserver: this tree's oracle has no `serve` yet (no `//go:build serve` source)")
    skip = os.environ.get("VAP_ORACLE_SERVE_SKIP")
    if skip:
        pytest.skip(f"no kube-apiserver: {skip}")
    build_it = os.environ.get("VAP_ORACLE_BUILD_SERVE") == "1"
    try:
        done = subprocess.run(
            [str(build), "--serve", *([] if build_it else ["--if-built"])],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"no kube-apiserver: `oracle/build --serve` took more than {BUILD_TIMEOUT:.0f} s")
    if done.returncode == 3:
        pytest.skip("no kube-apiserver: Go is not installed (oracle/build needs it)")
    if done.returncode == 5:
        pytest.skip(
            "no kube-apiserver: `vap-oracle serve` is not built (`oracle/build --serve` links it in "
            "minutes; or VAP_ORACLE_BUILD_SERVE=1, or VAP_LSP_TEST_KUBECONFIG=FILE of a throwaway cluster)"
        )
    if done.returncode != 0:
        pytest.skip(f"no kube-apiserver: `oracle/build --serve` failed: {done.stderr.strip()[-500:]}")
    return done.stdout.strip().splitlines()[-1]


def _written(path: Path) -> bool:
    """The kubeconfig is there whole (a writer that does not rename may be half-way)."""
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(config, dict) and bool(config.get("clusters")) and bool(config.get("users"))


@pytest.fixture(scope="session")
def kubeconfig() -> Iterator[str]:
    """The path of a kubeconfig whose current context is a cluster-admin of a real API server."""
    given = os.environ.get("VAP_LSP_TEST_KUBECONFIG")
    if given:
        yield given
        return
    binary = _oracle_binary()
    with tempfile.TemporaryDirectory(prefix="vap-lsp-kube-") as tmp:
        path = Path(tmp) / "kubeconfig"
        log = Path(tmp) / "serve.log"
        with open(log, "wb") as out:
            server = subprocess.Popen(
                [binary, "serve", "--kubeconfig", str(path)], stdout=out, stderr=subprocess.STDOUT
            )
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not _written(path):
                if server.poll() is not None:
                    pytest.skip(f"no kube-apiserver: `vap-oracle serve` exited: {log.read_text()[-500:]}")
                if time.monotonic() > deadline:
                    pytest.skip(
                        f"no kube-apiserver: `vap-oracle serve` did not answer in {START_TIMEOUT:.0f} s"
                    )
                time.sleep(0.2)
            yield str(path)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
