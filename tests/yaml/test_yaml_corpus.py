"""Every scalar of every real manifest in the shared corpus gets an exact offset map.

The corpus (../shared/corpus next to the project root) holds public admission-policy YAML.
For each file: no scalar may need the conservative fallback map, every map must satisfy the
model's invariants and point at the right characters, and the libyaml fast path must build
exactly the same model as the pure ruamel path.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from yaml_helpers import check_map, fingerprint, scalars

from vap_lsp.yaml import scalars as scalars_mod
from vap_lsp.yaml.model import ScalarStyle
from vap_lsp.yaml.parse import parse_yaml

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CORPUS = (PROJECT_ROOT / ".." / "shared" / "corpus").resolve()
FILES = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml")) if CORPUS.is_dir() else []

pytestmark = pytest.mark.skipif(
    not FILES, reason=f"no YAML corpus at {CORPUS} (shared/corpus next to the project)"
)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CORPUS)) for p in FILES])
def test_corpus_file(path: Path) -> None:
    text = path.read_bytes().decode("utf-8-sig")
    before = scalars_mod.fallback_count()
    fast = parse_yaml(text)
    slow = parse_yaml(text, use_libyaml=False)
    assert scalars_mod.fallback_count() == before, "a scalar needed the conservative fallback map"
    assert fingerprint(fast) == fingerprint(slow)
    for node in scalars(fast):
        check_map(text, node)
        if node.style in (ScalarStyle.PLAIN, ScalarStyle.SINGLE, ScalarStyle.LITERAL):
            for i, ch in enumerate(node.value):
                src = text[node.offsets[i]]
                # verbatim characters map to themselves; folded breaks map to line breaks
                assert src == ch or (ch in " \n" and src in "\r\n") or (ch == "'" and src == "'"), (
                    i,
                    ch,
                    src,
                )
