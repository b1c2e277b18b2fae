"""Signature help, semantic tokens, inlay hints, and the document-local snapshot text."""

from __future__ import annotations

import pytest
from cel_feature_helpers import at, policy, snapshot

from vap_lsp.features import cel_context
from vap_lsp.features.cel_context import document_local_text
from vap_lsp.features.cel_signature import signature_help
from vap_lsp.features.inlay_hints import inlay_hints
from vap_lsp.features.semantic_tokens import semantic_tokens


def test_signature_help_for_a_method_filters_by_receiver_and_tracks_the_argument() -> None:
    text = policy("|\n        'a'.replace('x', ")
    result = signature_help(snapshot(text), at(text, "replace('x', "))
    assert result is not None
    assert [s.label for s in result.signatures] == [
        "<string>.replace(string, string) -> string",
        "<string>.replace(string, string, int) -> string",
    ]
    assert result.active_parameter == 1
    first = result.signatures[0]
    assert [first.label[a:b] for a, b in first.parameters] == ["string", "string"]


def test_signature_help_for_macros_and_namespaced_functions() -> None:
    text = policy("|\n        object.spec.template.spec.containers.all(c, ")
    result = signature_help(snapshot(text), at(text, "all(c, "))
    assert result is not None
    assert result.signatures[0].label == "<list|map>.all(x, predicate)"
    assert result.active_parameter == 1
    text = policy("|\n        sets.contains([1], ")
    result = signature_help(snapshot(text), at(text, "[1], "))
    assert result is not None
    assert [s.label for s in result.signatures] == ["sets.contains(list(T), list(T)) -> bool"]


def test_no_signature_outside_a_call() -> None:
    text = policy("|\n        object.spec.replicas")
    assert signature_help(snapshot(text), at(text, "replicas")) is None


def _tokens(text: str) -> list[tuple[int, int, str, str]]:
    snap = snapshot(text)
    out = []
    for tok in semantic_tokens(snap):
        lc = snap.lines.line_col(tok.start)
        assert snap.lines.line_of(tok.end) == lc.line  # never spans lines
        out.append((lc.line, lc.column, text[tok.start : tok.end], tok.type))
    return out


def test_semantic_tokens_classify_names_by_the_typed_ast() -> None:
    text = policy("|\n        variables.names.all(n, n.startsWith('x')) && object.spec.replicas <= 5")
    toks = [(word, kind) for line, _, word, kind in _tokens(text) if line == 16]
    assert toks == [
        ("variables", "variable"),
        ("names", "variable"),
        ("all", "macro"),
        ("n", "parameter"),
        ("n", "parameter"),
        ("startsWith", "method"),
        ("'x'", "string"),
        ("&&", "operator"),
        ("object", "variable"),
        ("spec", "property"),
        ("replicas", "property"),
        ("<=", "operator"),
        ("5", "number"),
    ]


def test_semantic_tokens_split_strings_across_folded_lines_and_map_escapes() -> None:
    text = policy('"\'ab\n        cd\' == \\"x\\""')
    toks = [t for t in _tokens(text) if t[0] >= 15]
    assert toks[0] == (15, 19, "'ab", "string")
    assert toks[1] == (16, 8, "cd'", "string")
    assert toks[2][2:] == ("==", "operator")
    assert toks[3][2:] == ('\\"x\\"', "string")


def test_inlay_hint_after_the_variable_name() -> None:
    text = policy("object.spec.replicas > 1")
    (hint,) = inlay_hints(snapshot(text))
    assert hint.label == ": list(string)"
    assert hint.offset == at(text, "name: names")


def test_document_local_text_keeps_offsets_and_blanks_other_documents() -> None:
    text = "a: 1\n---\nb: 2\n---\nc: 3\n"
    local = document_local_text(text, text.index("b"))
    assert len(local) == len(text)
    assert local.count("\n") == text.count("\n")
    assert "b: 2" in local and "a: 1" not in local and "c: 3" not in local


def test_the_policy_facts_cache_holds_a_bounded_amount_of_policy_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An entry keeps its policy's node and typing model alive (~125 bytes a character of an
    expression-dense policy): bounded by 256 entries only, semantic tokens and a hover after
    each edit of a 72,000-character policy grew the server by 2.6 MiB an edit, without end
    until 256 versions. Each entry weighs its policy's characters (here a tenth of the bound)."""
    monkeypatch.setattr(cel_context._CACHE, "max_weight", cel_context.CACHE_WEIGHT // 10)
    expressions = "".join(f"\n    - expression: object.spec.replicas != {i}" for i in range(1_000))
    for version in range(2 * cel_context._CACHE.max_weight // len(expressions)):
        text = policy("|\n        true").replace("validations:", f"validations: # {version}{expressions}")
        semantic_tokens(snapshot(text))
    held = [obj.node.span.end - obj.node.span.start for obj, _ in cel_context._CACHE.values()]
    assert len(held) > 1
    assert sum(held) <= cel_context._CACHE.max_weight
