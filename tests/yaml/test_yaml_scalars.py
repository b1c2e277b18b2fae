"""Decoded-index -> source-offset maps, for every scalar style (vap_lsp.yaml.scalars).

Each test writes the YAML inline and states which source characters produce the decoded
value. `source_chars` reads the source character behind each decoded character: for text that
is copied verbatim it equals the value; an escape maps to its backslash and a folded or kept
line break maps to the line break it came from. Every test runs through both event sources
(libyaml fast path and pure ruamel), which must agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from yaml_helpers import check_map, scalar, scalars, source_chars

from vap_lsp.yaml import scalars as scalars_mod
from vap_lsp.yaml.model import ScalarStyle, YamlFile
from vap_lsp.yaml.parse import parse_yaml

Parse = Callable[[str], YamlFile]


@pytest.fixture(params=[True, False], ids=["libyaml", "ruamel"])
def parse(request: pytest.FixtureRequest) -> Iterator[Parse]:
    before = scalars_mod.fallback_count()

    def run(text: str) -> YamlFile:
        f = parse_yaml(text, use_libyaml=request.param)
        assert not f.problems and not any(d.problems for d in f.documents), f
        for node in scalars(f):
            check_map(text, node)
        return f

    yield run
    assert scalars_mod.fallback_count() == before, "a scalar needed the conservative fallback map"


def test_plain_single_line_maps_one_to_one(parse: Parse) -> None:
    text = "key: hello world\n"
    v = scalar(parse(text), "key")
    assert v.value == "hello world"
    assert v.offsets == list(range(5, 17))
    assert v.content_start == 5
    assert v.source_span(0, 5) == v.span.__class__(5, 10)
    assert v.decoded_index(11) == 6


def test_plain_multi_line_folds_breaks_to_spaces_and_blank_lines_to_newlines(parse: Parse) -> None:
    text = "k: first\n  second   \n\n  third\n"
    v = scalar(parse(text), "k")
    assert v.value == "first second\nthird"
    # the folded space maps to the first line break, the "\n" to the blank line's break
    assert source_chars(text, v) == "first\nsecond\nthird"
    assert v.offsets[5] == text.index("\n")
    assert v.offsets[12] == text.index("\n\n") + 1
    assert v.offsets[-1] == text.index("third") + 5


def test_single_quoted_doubled_quote_and_folding(parse: Parse) -> None:
    text = "k: 'it''s\n  folded'\n"
    v = scalar(parse(text), "k")
    assert v.value == "it's folded"
    assert v.content_start == 4
    assert source_chars(text, v) == "it's\nfolded"
    assert v.offsets[2] == 6  # the first of the two quotes
    assert v.offsets[3] == 8
    assert v.offsets[-1] == text.rindex("'")  # before the closing quote


def test_double_quoted_escapes_map_to_their_backslash(parse: Parse) -> None:
    text = r'k: "a\n\t\\\"\/\x41\u00e9\U0001F600\N\_\L\P\0\a\b\e\f\r\v\ z"' + "\n"
    v = scalar(parse(text), "k")
    assert v.value == 'a\n\t\\"/Aé😀\x85\xa0\u2028\u2029\0\x07\x08\x1b\x0c\r\x0b z'
    src = source_chars(text, v)
    assert src[0] == "a" and src[-1] == "z"
    assert set(src[1:-1]) == {"\\"}
    assert text[v.offsets[6] : v.offsets[7]] == r"\x41"
    assert text[v.offsets[8] : v.offsets[9]] == r"\U0001F600"
    assert v.offsets[-1] == len(text) - 2


def test_double_quoted_escape_tab_character(parse: Parse) -> None:
    text = 'k: "a\\\tb"\n'  # backslash followed by a real TAB
    v = scalar(parse(text), "k")
    assert v.value == "a\tb"
    assert v.offsets == [4, 5, 7, 8]


def test_double_quoted_escaped_line_break_joins_without_space(parse: Parse) -> None:
    text = 'k: "abc \\\n    def\n\n  ghi"\n'
    v = scalar(parse(text), "k")
    # the space before the backslash is kept, the escaped break and indentation vanish,
    # the unescaped break + blank line fold to one "\n"
    assert v.value == "abc def\nghi"
    assert source_chars(text, v) == "abc def\nghi"
    assert v.offsets[4] == text.index("def")
    assert v.offsets[7] == text.index("\n\n") + 1


def test_literal_block_clip_maps_lines_and_final_break(parse: Parse) -> None:
    text = "k: |\n  line one\n  line two\n\nnext: 1\n"
    v = scalar(parse(text), "k")
    assert v.style is ScalarStyle.LITERAL
    assert v.value == "line one\nline two\n"
    assert source_chars(text, v) == "line one\nline two\n"
    assert v.content_start == text.index("line one")
    assert v.offsets[-1] == text.index("two\n") + 4  # just past the kept break


def test_literal_strip_and_keep_chomping(parse: Parse) -> None:
    text = "s: |-\n  a\n\n\nk: |+\n  b\n\n\nz: 1\n"
    f = parse(text)
    s, k = scalar(f, "s"), scalar(f, "k")
    assert s.value == "a"
    assert s.offsets == [text.index("a\n"), text.index("a\n") + 1]
    assert k.value == "b\n\n\n"
    b = text.index("b\n")
    # kept trailing newlines map to the line breaks of the blank lines
    assert k.offsets == [b, b + 1, b + 2, b + 3, b + 4]


def test_explicit_indentation_indicators(parse: Parse) -> None:
    text = "a: |2-\n    indented\n  base\nb: |-1\n  x\n"
    f = parse(text)
    a = scalar(f, "a")
    assert a.value == "  indented\nbase"
    assert a.offsets[0] == text.index("    indented") + 2  # the first kept indentation space
    assert source_chars(text, a) == "  indented\nbase"
    b = scalar(f, "b")
    assert b.value == " x"
    assert b.offsets[0] == text.index("  x") + 1


def test_literal_in_sequence_with_explicit_indent(parse: Parse) -> None:
    text = "items:\n- |1\n   two spaces\n- end\n"
    v = scalar(parse(text), "items", 0)
    assert v.value == "  two spaces\n"
    assert source_chars(text, v) == "  two spaces\n"


def test_folded_block_folds_except_more_indented_lines(parse: Parse) -> None:
    text = "k: >\n  one\n  two\n\n  three\n    more\n  four\n"
    v = scalar(parse(text), "k")
    assert v.value == "one two\nthree\n  more\nfour\n"
    assert source_chars(text, v) == "one\ntwo\nthree\n  more\nfour\n"
    assert v.offsets[3] == text.index("one\n") + 3  # the folded space is the line break


def test_folded_strip_and_keep(parse: Parse) -> None:
    text = "a: >-\n  x\n  y\n\nb: >+\n  z\n\n"
    f = parse(text)
    assert scalar(f, "a").value == "x y"
    b = scalar(f, "b")
    assert b.value == "z\n\n"
    assert source_chars(text, b) == "z\n\n"


def test_crlf_line_endings(parse: Parse) -> None:
    text = "a: plain\r\n  folded\r\nb: 'q\r\n\r\n  r'\r\nc: |\r\n  l1\r\n  l2\r\nd: >-\r\n  f1\r\n  f2\r\n"
    f = parse(text)
    a, b, c, d = (scalar(f, k) for k in "abcd")
    assert a.value == "plain folded"
    assert a.offsets[5] == text.index("\r\n")  # a CRLF folds to one space at the CR
    assert b.value == "q\nr"
    assert b.offsets[1] == text.index("\r\n\r\n  r") + 2
    assert c.value == "l1\nl2\n"
    assert source_chars(text, c) == "l1\rl2\r"
    assert c.offsets[-1] == text.index("l2\r\n") + 4  # past the whole CRLF
    assert d.value == "f1 f2"
    assert source_chars(text, d) == "f1\rf2"


def test_tabs_inside_quoted_and_block_scalars(parse: Parse) -> None:
    text = 'a: "x\ty \t\n\t z"\nb: |\n  \tt\n'
    f = parse(text)
    a = scalar(f, "a")
    assert a.value == "x\ty z"
    assert source_chars(text, a) == "x\ty\nz"
    b = scalar(f, "b")
    assert b.value == "\tt\n"
    assert source_chars(text, b) == "\tt\n"


@pytest.mark.parametrize(
    "text,key",
    [
        ("k: café 日本 😀 end\n", "k"),
        ("k: 'café 日本 😀 end'\n", "k"),
        ('k: "café 日本 😀 end"\n', "k"),
        ("k: |\n  café 日本 😀 end\n", "k"),
        ("k: >-\n  café\n  日本 😀 end\n", "k"),
        ("k: café\n  日本 😀 end\n", "k"),
    ],
)
def test_non_ascii_offsets_are_code_points(parse: Parse, text: str, key: str) -> None:
    v = scalar(parse(text), key)
    src = source_chars(text, v)
    for i, ch in enumerate(v.value):
        if ch not in " \n":  # folded spaces/newlines map to the line break
            assert src[i] == ch
    emoji = v.value.index("😀")
    assert text[v.offsets[emoji]] == "😀"
    assert v.offsets[emoji + 1] == v.offsets[emoji] + 1  # one code point, not two UTF-16 units


def test_unicode_escape_next_to_literal_emoji(parse: Parse) -> None:
    text = 'k: "😀\\u263A😀"\n'
    v = scalar(parse(text), "k")
    assert v.value == "😀☺😀"
    assert v.offsets == [4, 5, 11, 12]


def test_empty_scalars(parse: Parse) -> None:
    text = "a:\nb: ''\nc: \"\"\nd: |\ne: x\n"
    f = parse(text)
    a = scalar(f, "a")
    assert a.value == "" and a.offsets == [2] and a.span.start == a.span.end == 2
    b = scalar(f, "b")
    assert b.value == "" and b.offsets == [text.index("''") + 1]
    assert scalar(f, "c").value == ""
    assert scalar(f, "d").value == ""


def test_flow_context_scalars(parse: Parse) -> None:
    text = "k: [a b, 'c', \"d\\n\", {e: f g}]\n"
    f = parse(text)
    assert scalar(f, "k", 0).offsets == [4, 5, 6, 7]
    assert scalar(f, "k", 1).offsets == [10, 11]
    assert scalar(f, "k", 2).value == "d\n"
    assert scalar(f, "k", 2).offsets == [15, 16, 18]


def test_top_level_block_scalar_without_indentation(parse: Parse) -> None:
    text = "--- |\nfoo\nbar\n--- >\nbaz\n"
    f = parse(text)
    assert f.documents[0].root is not None
    v = f.documents[0].root
    assert v.value == "foo\nbar\n"  # type: ignore[attr-defined]
    assert source_chars(text, v) == "foo\nbar\n"  # type: ignore[arg-type]


def test_source_span_and_decoded_index_round_trip(parse: Parse) -> None:
    text = 'expression: "object.spec.replicas \\u003e 3"\n'
    v = scalar(parse(text), "expression")
    assert v.value == "object.spec.replicas > 3"
    gt = v.value.index(">")
    span = v.source_span(gt, gt + 1)
    assert span.start == text.index("\\u003e")  # the escape's backslash
    assert v.decoded_index(v.offsets[gt]) == gt
    assert v.decoded_index(0) is None


def test_decode_scalar_matches_ruamel_directly() -> None:
    """The re-scanner on its own: value, map and content start for a double-quoted token."""
    text = 'x: "a\\tb"'
    value, offsets, start = scalars_mod.decode_scalar(text, ScalarStyle.DOUBLE, 3, len(text))
    assert (value, offsets, start) == ("a\tb", [4, 5, 7, 8], 4)


def test_mismatch_falls_back_to_conservative_map() -> None:
    before = scalars_mod.fallback_count()
    offsets, start = scalars_mod.scalar_offsets('"abc"', ScalarStyle.DOUBLE, 0, 5, "something else")
    assert start == 1
    assert offsets == [1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    assert scalars_mod.fallback_count() == before + 1
