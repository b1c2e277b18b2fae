"""Scalar resolution as kubectl (sigs.k8s.io/yaml -> go-yaml v2, YAML 1.1) does it."""

from __future__ import annotations

import math
from typing import Any

import pytest

from vap_lsp.text import Span
from vap_lsp.yaml.model import ScalarNode, ScalarStyle, to_python
from vap_lsp.yaml.parse import parse_yaml
from vap_lsp.yaml.resolve import resolve_scalar


def plain(value: str, tag: str | None = None, style: ScalarStyle = ScalarStyle.PLAIN) -> Any:
    return resolve_scalar(ScalarNode(span=Span(0, 0), value=value, tag=tag, style=style))


@pytest.mark.parametrize(
    "value,expected",
    [
        *[(w, True) for w in ["true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"]],
        *[(w, False) for w in ["false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"]],
        *[(w, None) for w in ["", "~", "null", "Null", "NULL"]],
        ("tRue", "tRue"),
        ("nO", "nO"),
        ("0", 0),
        ("42", 42),
        ("-17", -17),
        ("+5", 5),
        ("1_000", 1000),
        ("0x1F", 31),
        ("-0x10", -16),
        ("0o17", 15),
        ("017", 15),  # leading zero: octal
        ("0b101", 5),
        ("08", 8.0),  # not octal, not an int: go-yaml falls through to float
        ("9223372036854775807", 9223372036854775807),
        ("18446744073709551615", 18446744073709551615),  # ParseUint
        ("18446744073709551616", 1.8446744073709552e19),  # too big for ints: float
        ("1.5", 1.5),
        ("-1.5e3", -1500.0),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("1e400", "1e400"),  # float overflow is an error in Go: stays a string
        (".inf", math.inf),
        ("-.Inf", -math.inf),
        ("+.INF", math.inf),
        ("1_0.5", 10.5),
        ("0x", "0x"),
        ("1.2.3", "1.2.3"),
        ("2001-12-14", "2001-12-14"),  # timestamps reach JSON as strings
        ("1:30", "1:30"),  # no sexagesimal ints in go-yaml
        ("-", "-"),
        ("infinity", "infinity"),
        ("<<", "<<"),
        ("hello", "hello"),
    ],
)
def test_plain_scalar_resolution(value: str, expected: Any) -> None:
    got = plain(value)
    assert got == expected and type(got) is type(expected)


def test_nan() -> None:
    assert math.isnan(plain(".nan")) and math.isnan(plain(".NaN"))


@pytest.mark.parametrize(
    "style", [ScalarStyle.SINGLE, ScalarStyle.DOUBLE, ScalarStyle.LITERAL, ScalarStyle.FOLDED]
)
def test_quoted_and_block_scalars_are_strings(style: ScalarStyle) -> None:
    assert plain("true", style=style) == "true"
    assert plain("5", style=style) == "5"
    assert plain("", style=style) == ""


@pytest.mark.parametrize(
    "tag,value,expected",
    [
        ("!!str", "5", "5"),
        ("!!str", "true", "true"),
        ("!!int", "5", 5),
        ("!!int", "0x10", 16),
        ("!!int", "abc", "abc"),  # go-yaml would fail the decode; we keep the text
        ("!!bool", "yes", True),
        ("!!bool", "maybe", "maybe"),
        ("!!float", "5", 5.0),
        ("!!float", "1.5", 1.5),
        ("!!null", "whatever", None),
        ("!<tag:yaml.org,2002:int>", "7", 7),
        ("!", "5", "5"),
        ("!custom", "5", "5"),
    ],
)
def test_explicit_tags(tag: str, value: str, expected: Any) -> None:
    got = plain(value, tag=tag)
    assert got == expected and type(got) is type(expected)
    assert plain(value, tag=tag, style=ScalarStyle.DOUBLE) == expected  # tags apply to quoted too


def test_to_python_uses_yaml_1_1_rules() -> None:
    text = "on: yes\nport: 0x50\nname: '0x50'\nempty:\nlist: [y, n, ~]\n"
    root = parse_yaml(text).documents[0].root
    assert to_python(root) == {
        True: True,
        "port": 80,
        "name": "0x50",
        "empty": None,
        "list": [True, False, None],
    }
