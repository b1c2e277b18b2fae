"""Every CEL expression of the shared policy corpus parses without syntax errors.

The corpus lives next to the project (<project root>/../shared/corpus).  Files
that are broken on purpose (SOURCES.md) or by a real upstream typo are listed
below with the errors cel-go gives for them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from vap_lsp.cel.parser import parse

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
EXPRESSION_KEYS = ("expression", "messageExpression", "valueExpression")

# file → first error message of each broken expression in it.
KNOWN_SYNTAX_ERRORS: dict[str, list[str]] = {
    # SOURCES.md: intentionally unparsable / undeclared expressions (`!!!`).
    "jpbetz__validation-admission-policy-examples/policyvalidationerrors/vap.yaml": [
        "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
        "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
    ],
    # Real upstream typo `object,spec...` (a comma instead of a dot); the API server rejects it too.
    "gnunn1__validating-admission-policies/configuration/deployments/probes-must-be-defined.yaml": [
        "Syntax error: mismatched input ',' expecting <EOF>",
        "Syntax error: mismatched input ',' expecting <EOF>",
    ],
}


def _walk(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in EXPRESSION_KEYS and isinstance(value, str):
                yield value
            else:
                yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def _corpus_expressions() -> list[tuple[str, str]]:
    yaml = YAML(typ="safe")
    out: list[tuple[str, str]] = []
    for path in sorted([*CORPUS.rglob("*.yaml"), *CORPUS.rglob("*.yml")]):
        try:
            docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
        except Exception:  # invalid YAML is some other test's business
            continue
        rel = path.relative_to(CORPUS).as_posix()
        for doc in docs:
            out.extend((rel, expr) for expr in _walk(doc))
    return out


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not present at {CORPUS}")
def test_corpus_expressions_parse(capsys: pytest.CaptureFixture[str]) -> None:
    exprs = _corpus_expressions()
    assert len(exprs) > 100
    failures: dict[str, list[str]] = {}
    t0 = time.perf_counter()
    for rel, text in exprs:
        r = parse(text)
        if r.errors:
            failures.setdefault(rel, []).append(r.errors[0].message)
        else:
            assert r.ast is not None
    elapsed = time.perf_counter() - t0
    with capsys.disabled():
        print(
            f"\nCEL corpus: {len(exprs)} expressions parsed in {elapsed:.3f}s "
            f"({len(exprs) / elapsed:.0f} expressions/s), {sum(map(len, failures.values()))} with errors"
        )
    assert failures == KNOWN_SYNTAX_ERRORS
