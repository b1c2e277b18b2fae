"""`vap-lsp check` over the public policy corpus: no error on what the API server accepts.

The corpus (../shared/corpus, 850+ real files) is not part of a user's clone; the test skips
with a reason when it is absent. Each policy file is checked against the newest bundled
Kubernetes version that serves all of its policy apiVersions, as its authors would have applied
it; files whose errors are real (SOURCES.md "Known-bad or suspicious manifests") are listed
below with the diagnostics they must produce.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_known_bad import CEL_KNOWN_BAD, DECODING_KNOWN_BAD, KNOWN_BAD, STATIC_MANIFESTS

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_bytes
from vap_lsp.analysis.model.objects import find_objects
from vap_lsp.policy.kinds import POLICY_GROUP, recognise
from vap_lsp.schema.store import available_versions, get_schema_set

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"policy corpus not found at {CORPUS}")


def _corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml"))


def _version_for(data: bytes) -> str:
    """Newest bundled version serving every policy apiVersion in the file."""
    analysis = analyse_bytes(data, AnalysisSettings())
    versions = list(reversed(available_versions()))
    for version in versions:
        schema_set = get_schema_set(version)
        ok = True
        for obj in find_objects(analysis.yaml):
            rec = recognise(obj.api_version, obj.kind)
            if rec and schema_set.definition_for_kind(POLICY_GROUP, rec[1], obj.kind) is None:
                ok = False
        if ok:
            return version
    return versions[0]


def test_no_errors_on_files_the_server_accepts() -> None:
    unexpected: dict[str, list[str]] = {}
    checked = 0
    for path in _corpus_files():
        rel = path.relative_to(CORPUS).as_posix()
        data = path.read_bytes()
        version = _version_for(data)
        analysis = analyse_bytes(data, AnalysisSettings(version))
        checked += 1
        expected = (
            KNOWN_BAD.get(rel, [])
            + DECODING_KNOWN_BAD.get(rel, [])
            + CEL_KNOWN_BAD.get(rel, [])
            + STATIC_MANIFESTS.get(rel, [])
        )
        errors = [d.message for d in analysis.diagnostics if d.severity is Severity.ERROR]
        surprising = [m for m in errors if not any(m.startswith(e) for e in expected)]
        missing = [e for e in expected if not any(m.startswith(e) for m in errors)]
        if surprising or missing:
            unexpected[rel] = surprising + [f"MISSING: {e}" for e in missing]
    print(f"\n{checked} corpus files checked")
    assert checked > 800
    assert unexpected == {}
