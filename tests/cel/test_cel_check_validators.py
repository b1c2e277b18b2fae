# ruff: noqa: E501  (cel-go messages are long and kept on one line each)
"""cel-go's AST validators (duration/timestamp/regex literals, homogeneous aggregate literals)."""

from __future__ import annotations

import pytest

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.cel.runtime.timefmt import parse_timestamp
from vap_lsp.golang.regexp import compiles as go_regexp_ok
from vap_lsp.golang.timefmt import parse_duration as go_parse_duration

K = ExpressionKind


def _env(version: str = "1.34", kind: ExpressionKind = K.VARIABLE) -> Environment:
    return build_environment(version, kind, has_params=False)


def _issues(text: str, env: Environment | None = None) -> list[tuple[str, int]]:
    result = compile_expression(text, env or _env())
    return [(i.message, i.start) for i in result.issues]


def test_regex_literals() -> None:
    assert _issues("'a'.matches('(?=x)')") == [("invalid matches argument", 12)]
    assert _issues("'a'.matches('(a)\\\\1')") == [("invalid matches argument", 12)]
    assert _issues("'a'.matches('^[a-z]+(-[a-z]+)*$')") == []
    assert _issues("object.x.matches('[')") == [("invalid matches argument", 17)]
    assert _issues("[1].exists(x, string(x).matches('('))") == [("invalid matches argument", 32)]


def test_regex_validator_checks_the_first_argument_of_the_global_form() -> None:
    """cel-go validates argument 0: for `matches(s, re)` that is the subject, not the pattern."""
    assert _issues("matches('(', 'a')") == [("invalid matches argument", 8)]
    # the pattern, argument 1, is compiled when the program is built (OptOptimize's
    # MatchesRegexOptimization), and fails there
    assert _issues("matches('a', '(')") == [
        ("program instantiation failed: error parsing regexp: missing closing ): `(`", 13)
    ]


def test_duration_literals() -> None:
    assert _issues("duration('1x')") == [("invalid duration argument", 9)]
    assert _issues("duration('1h30m') > duration('-1.5s')") == []
    assert _issues("duration('')") == [("invalid duration argument", 9)]
    assert _issues("duration('1')") == [("invalid duration argument", 9)]
    assert _issues("duration('0')") == []
    # declared but not implemented: the validator's evaluation fails
    assert _issues("duration(1)") == [("invalid duration argument", 9)]


def test_timestamp_literals() -> None:
    assert _issues("timestamp('x')") == [("invalid timestamp argument", 10)]
    assert _issues("timestamp('2024-01-01T00:00:00Z')") == []
    assert _issues("timestamp('2024-01-01T00:00:00.123+01:00')") == []
    assert _issues("timestamp('2024-02-30T00:00:00Z')") == [("invalid timestamp argument", 10)]
    assert _issues("timestamp('2024-01-01 00:00:00Z')") == [("invalid timestamp argument", 10)]
    assert _issues("timestamp(0) < timestamp(253402300799)") == []
    assert _issues("timestamp(253402300800)") == [("invalid timestamp argument", 10)]


def test_literal_validators_start_at_compat_1_29() -> None:
    # new expressions: compat 1.28, no literal validator; the program's build still folds the
    # constant conversion (OptOptimize, base environment since 1.0) and fails there
    assert _issues("duration('1x')", _env("1.29")) == [
        ("program instantiation failed: type conversion error from 'string' to 'google.protobuf.Duration'", 0)
    ]
    assert _issues(
        "duration('1x')", build_environment("1.29", K.VARIABLE, has_params=False, mode="stored")
    ) == [("invalid duration argument", 9)]
    assert _issues("duration('1x')", _env("1.30")) == [("invalid duration argument", 9)]


def test_homogeneous_aggregate_literals() -> None:
    assert _issues("[1, 'a']") == [("expected type 'int' but found 'string'", 4)]
    assert _issues("[1, dyn(2)]") == [("expected type 'int' but found 'dyn'", 7)]  # a call sits at its '('
    assert _issues("[1, 'a', 2u]") == [("expected type 'int' but found 'string'", 4)]  # first only
    assert _issues("[[1], ['a']]") == [("expected type 'list(int)' but found 'list(string)'", 6)]
    assert _issues("{'a': 1, 'b': 'x', 1: 2}") == [
        ("expected type 'int' but found 'string'", 14),
        ("expected type 'string' but found 'int'", 19),
    ]
    assert _issues("[?optional.of(1), 2]") == []
    assert _issues("[object.a, object.b]") == []
    # the type-checked AST includes macro expansions: `map` builds one-element lists
    assert _issues("[1, 2].map(x, x > 1 ? 'a' : 'b')") == []


def test_string_format_lists_are_exempt() -> None:
    assert _issues("'%s is %d'.format(['a', 1])") == []
    assert _issues("'%s'.format([[1, 'a']])") == []


def test_homogeneous_literals_in_kubernetes_1_28_are_a_check_error() -> None:
    env = build_environment("1.28", K.VARIABLE, has_params=False)
    result = compile_expression("[1, 'a']", env)
    assert [(i.phase, i.message) for i in result.issues] == [
        ("check", "expected type 'int' but found 'string'")
    ]
    assert _issues("[1, dyn(2)]", env) == []


def test_validators_run_only_after_a_clean_check() -> None:
    result = compile_expression("[1, 'a'] == x", _env())
    assert [(i.phase, i.message) for i in result.issues] == [
        ("check", "undeclared reference to 'x' (in container '')")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("1s", 10**9),
        ("-1.5h", -5400 * 10**9),
        ("+2m3s", 123 * 10**9),
        ("1.s", 10**9),
        (".5ms", 500_000),
        ("1µs", 1000),
        ("1μs", 1000),
        ("100ns", 100),
        ("2562047h47m16.854775807s", 2**63 - 1),
        ("", None),
        ("1", None),
        (".s", None),
        ("1d", None),
        ("1h 2m", None),
        ("2562047h47m16.854775808s", None),
        ("-", None),
        ("1S", None),
    ],
)
def test_go_parse_duration(text: str, expected: int | None) -> None:
    assert go_parse_duration(text) == expected


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("2024-01-01T00:00:00Z", True),
        ("2024-01-01T00:00:00.999999999Z", True),
        ("2024-01-01T00:00:00,5Z", True),
        ("2024-01-01T1:00:00Z", True),
        ("2024-02-29T00:00:00Z", True),
        ("2023-02-29T00:00:00Z", False),
        ("2024-13-01T00:00:00Z", False),
        ("2024-01-01T24:00:00Z", False),
        ("2024-01-01t00:00:00Z", False),
        ("2024-01-01T00:00:00z", False),
        ("2024-01-01T00:00:00", False),
        ("2024-01-01T00:00:00+0100", False),
        ("0001-01-01T00:00:00Z", True),
        ("0001-01-01T00:00:00+00:01", False),
        ("9999-12-31T23:59:59Z", True),
    ],
)
def test_cel_timestamp_literal(text: str, ok: bool) -> None:
    """What the literal validator and `timestamp(string)` accept: Go's RFC 3339 parse, years 1–9999."""
    assert (parse_timestamp(text) is not None) == ok


def test_cel_timestamp_keeps_its_offset() -> None:
    one = parse_timestamp("1970-01-01T01:00:00+01:00")
    assert one is not None and (one.seconds, one.offset) == (0, 3600)
    later = parse_timestamp("2000-03-01T00:00:00Z")
    assert later is not None and later.seconds == 951868800


def test_go_regexp() -> None:
    assert go_regexp_ok("^a+$")
    assert go_regexp_ok("(?P<n>a)(?i)b\\pL[[:alpha:]]")
    assert not go_regexp_ok("(?!a)")
    assert not go_regexp_ok("a{1001}")
    assert not go_regexp_ok("\\C")
    assert go_regexp_ok("\\\\C")


FORMAT_CASES = [
    (
        "'%d'.format(['a'])",
        [("error during formatting: decimal clause can only be used on integers, was given string", 13)],
    ),
    ("'%s %s'.format(['a'])", [("index 1 out of range", 14)]),
    ("'%s'.format(['a', 'b'])", [("too many arguments supplied to string.format (expected 1, got 2)", 11)]),
    ("'%z'.format([1])", [('could not parse formatting clause: unrecognized formatting clause "z"', 11)]),
    (
        "'%.2'.format([1.5])",
        [
            (
                "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
                12,
            )
        ],
    ),
    ("'%'.format([1])", [("unexpected end of string", 10)]),
    (
        "'%s'.format([[1, optional.none()]])",
        [
            (
                "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type",
                30,
            )
        ],
    ),
    ("'%.2f %x %X %o %b %e %%'.format([1.5, 1, 'a', 2u, true, 1.0])", []),
    ("'%d'.format([object.x])", []),
    ("'%d'.format(object.list)", []),  # not a list literal: runtime only
]


@pytest.mark.parametrize(("text", "expected"), FORMAT_CASES)
def test_string_format_validator(text: str, expected: list[tuple[str, int]]) -> None:
    assert _issues(text) == expected
