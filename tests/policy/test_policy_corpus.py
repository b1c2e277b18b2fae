"""Defaults + validation over every policy document of the shared corpus.

The corpus (../shared/corpus relative to the project root) holds real-world manifests. Most are
accepted by the API server; the files in KNOWN_BAD are rejected by it for the reason given, so
they must produce exactly those errors. Every other file must produce no server errors.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from corpus_known_bad import KNOWN_BAD
from ruamel.yaml import YAML

from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import recognise
from vap_lsp.policy.rules import validate

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def _documents(path: Path) -> list[Any]:
    try:
        docs = list(YAML(typ="safe").load_all(path.read_text(encoding="utf-8")))
    except Exception:  # unparseable files are covered by the YAML layer
        return []
    out: list[Any] = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out.extend(doc["items"])
        else:
            out.append(doc)
    return out


@functools.cache
def _policy_documents() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json"):
            continue
        rel = path.relative_to(CORPUS).as_posix()
        for doc in _documents(path):
            if isinstance(doc, dict) and recognise(doc.get("apiVersion"), doc.get("kind")) is not None:
                out.append((rel, doc))
    return out


def _run(k8s: str) -> tuple[int, dict[str, list[str]]]:
    checked = 0
    found: dict[str, list[str]] = {}
    for rel, doc in _policy_documents():
        recognised = recognise(doc.get("apiVersion"), doc.get("kind"))
        if recognised is not None:
            kind, version = recognised
            checked += 1
            for err in validate(kind, version, apply_defaults(kind, version, doc), k8s):
                if err.server_error:
                    found.setdefault(rel, []).append(err.message())
    return checked, found


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS}")
@pytest.mark.parametrize("k8s", ["1.31", "1.34", "1.36"])
def test_corpus(k8s: str) -> None:
    checked, found = _run(k8s)
    print(f"\n{checked} policy documents checked with Kubernetes {k8s}")
    for rel, messages in found.items():
        for m in messages:
            print(f"  {rel}: {m}")
    assert checked > 1000
    unexpected = {rel: m for rel, m in found.items() if rel not in KNOWN_BAD}
    assert unexpected == {}
    for rel, expected in KNOWN_BAD.items():
        got = found.get(rel, [])
        assert len(got) == len(expected), (rel, got)
        for g, e in zip(got, expected, strict=True):
            assert g.startswith(e), (rel, g, e)
