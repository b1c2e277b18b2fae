"""The committed schemas/ equal what tools/generate_schemas.py produces from the shared inputs."""

from __future__ import annotations

import gzip
import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
OPENAPI = ROOT.parent / "shared" / "k8s-openapi"
SCHEMAS = ROOT / "schemas"
# 1.36-1.38 come from k8s.io/kubernetes releases (their api/openapi-spec/v3): this lists the
# module folders, separated by os.pathsep (`go mod download -json k8s.io/kubernetes@v1.36.3` ... `Dir`).
RELEASES_ENV = "VAP_LSP_KUBERNETES_RELEASES"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_schemas", ROOT / "tools" / "generate_schemas.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _files(d: Path, version: str) -> dict[str, bytes]:
    """Decompressed content of one version: its rest/index files and the shards its index names."""
    import json

    out = {name: (d / version / name).read_bytes() for name in ("rest.json", "index.json")}
    index = json.loads(out["index.json"])["definitions"]
    for shard in sorted(set(index.values())):
        out[shard] = gzip.decompress((d / "_shards" / shard).read_bytes())
    return out


@pytest.mark.skipif(not OPENAPI.is_dir(), reason=f"shared OpenAPI inputs not found at {OPENAPI}")
def test_committed_schemas_match_generator(tmp_path: Path) -> None:
    gen = _generator()
    listed = os.environ.get(RELEASES_ENV)
    releases = [Path(p) for p in listed.split(os.pathsep)] if listed else []
    written = gen.generate(OPENAPI, tmp_path, None, releases)
    assert written[:6] == ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35"]
    for v in written:
        assert _files(tmp_path, v) == _files(SCHEMAS, v), (
            f"schemas/{v} is stale: rerun tools/generate_schemas.py"
        )
    if not releases:
        pytest.skip(f"1.36-1.38 not compared: set {RELEASES_ENV} to the k8s.io/kubernetes module folders")


@pytest.mark.skipif(not OPENAPI.is_dir(), reason=f"shared OpenAPI inputs not found at {OPENAPI}")
def test_generator_is_idempotent(tmp_path: Path) -> None:
    gen = _generator()
    gen.generate(OPENAPI, tmp_path, None)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    gen.generate(OPENAPI, tmp_path, None)
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    assert before == after


def test_no_orphan_shards() -> None:
    import json

    used: set[str] = set()
    for v in SCHEMAS.iterdir():
        if (v / "index.json").is_file():
            used |= set(json.loads((v / "index.json").read_text())["definitions"].values())
    assert {p.name for p in (SCHEMAS / "_shards").iterdir()} == used
