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
# 1.36/1.37 are derived from the kubernetes-validate wheel; point this at it to compare them too.
KV_ENV = "VAP_LSP_KUBERNETES_VALIDATE"


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
    kv_env = os.environ.get(KV_ENV)
    kv = Path(kv_env) if kv_env else None
    written = gen.generate(OPENAPI, tmp_path, kv)
    assert written[:6] == ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35"]
    for v in written:
        assert _files(tmp_path, v) == _files(SCHEMAS, v), (
            f"schemas/{v} is stale: rerun tools/generate_schemas.py"
        )
    if kv is None:
        pytest.skip(f"1.36/1.37 not compared: set {KV_ENV} to the kubernetes-validate 1.37.0 wheel")


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
