"""Offsets ↔ LSP positions: UTF-16 code units, every kind of line break."""

from __future__ import annotations

from vap_lsp.text import LineCol, LineIndex, Position, Span


def test_ascii_round_trip() -> None:
    idx = LineIndex("ab\ncd\n")
    assert idx.position(4) == Position(1, 1)
    assert idx.offset(Position(1, 1)) == 4
    assert idx.line_col(4) == LineCol(1, 1)


def test_astral_characters_count_two_utf16_units() -> None:
    text = "x: 😀é\n"
    idx = LineIndex(text)
    after_emoji = text.index("é")
    assert idx.position(after_emoji) == Position(0, 5)  # "x: " = 3, emoji = 2
    assert idx.offset(Position(0, 5)) == after_emoji
    assert idx.line_col(after_emoji) == LineCol(0, 4)  # characters, as the CLI prints them


def test_crlf_and_lone_cr_are_line_breaks() -> None:
    idx = LineIndex("a\r\nb\rc\n")
    assert [idx.line_start(i) for i in range(idx.line_count)] == [0, 3, 5, 7]
    assert idx.line_end(0) == 1
    assert idx.position(5) == Position(2, 0)


def test_positions_past_the_end_are_clamped() -> None:
    idx = LineIndex("ab\ncd")
    assert idx.offset(Position(0, 99)) == 2
    assert idx.offset(Position(9, 0)) == 5
    assert idx.position(99) == Position(1, 2)


def test_negotiated_utf8_and_utf32_encodings() -> None:
    text = "k: é😀x\n"
    idx = LineIndex(text)
    x = text.index("x")
    assert idx.position(x, "utf-8") == Position(0, 3 + 2 + 4)
    assert idx.position(x, "utf-32") == Position(0, 5)
    assert idx.offset(Position(0, 9), "utf-8") == x
    assert idx.offset(Position(0, 5), "utf-32") == x


def test_line_starts_are_the_same_with_and_without_carriage_returns() -> None:
    """Texts without `\\r` take a faster path; the lines it finds are those of the general one."""
    for text in ["", "a", "\n", "a\n", "\n\n", "ab\ncd", "ab\ncd\n", "é\n😀x\n\ny"]:
        fast = LineIndex(text)
        general = LineIndex(text.replace("\n", "\r\n"))
        assert fast.line_count == general.line_count == text.count("\n") + 1
        for line in range(fast.line_count):
            assert fast.line_start(line) == general.line_start(line) - line  # one `\r` less per line


def test_a_span_is_one_range_in_every_encoding() -> None:
    # `LineIndex.range` is the one span → range conversion (LSP diagnostics, hovers, edits, CLI JSON).
    idx = LineIndex("a: 😀x\nb: y\n")
    span = Span(3, 9)  # "😀x\nb: "
    assert idx.range(span) == (Position(0, 3), Position(1, 3))
    assert idx.range(span, "utf-8") == (Position(0, 3), Position(1, 3))
    assert idx.range(Span(4, 5), "utf-16") == (Position(0, 5), Position(0, 6))
    assert idx.range(Span(4, 5), "utf-8") == (Position(0, 7), Position(0, 8))
