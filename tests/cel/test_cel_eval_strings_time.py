# ruff: noqa: E501
"""ext.Strings, regex, timestamps and durations at run time (cel-go semantics and texts)."""

from __future__ import annotations

import pytest
from cel_eval_support import error, value

from vap_lsp.cel.runtime.timefmt import format_go_duration
from vap_lsp.cel.runtime.values import Duration, Timestamp

VALUES: list[tuple[str, object]] = [
    ("'hello'.charAt(1)", "e"),
    ("'hello'.charAt(5)", ""),
    ("'héllo wörld'.indexOf('ö')", 7),
    ("'hello'.indexOf('l', 3)", 3),
    ("'hello'.indexOf('')", 0),
    ("'hello'.lastIndexOf('l')", 3),
    ("'hello'.lastIndexOf('l', 2)", 2),
    ("'hello'.lastIndexOf('')", 5),
    ("'HeLLo ÀB'.lowerAscii()", "hello Àb"),
    ("'hello é'.upperAscii()", "HELLO é"),
    ("'a.b.c'.replace('.', '/')", "a/b/c"),
    ("'a.b.c'.replace('.', '/', 1)", "a/b.c"),
    ("'a,b,c'.split(',')", ["a", "b", "c"]),
    ("'a,b,c'.split(',', 2)", ["a", "b,c"]),
    ("'a,b,c'.split(',', 0)", []),
    ("'abc'.split('')", ["a", "b", "c"]),
    ("'hello'.substring(2)", "llo"),
    ("'héllo'.substring(1, 3)", "él"),
    ("'  \\t hi \\n'.trim()", "hi"),
    ("['a', 'b'].join()", "ab"),
    ("['a', 'b'].join('-')", "a-b"),
    ("'x'.contains('') && 'abc'.startsWith('ab') && 'abc'.endsWith('bc')", True),
    ("strings.quote('a\"b\\n')", '"a\\"b\\n"'),
    ("'%s and %s'.format(['a', 1])", "a and 1"),
    ("'%d%%'.format([50])", "50%"),
    ("'%.2f'.format([1234.5678])", "1,234.57"),
    ("'%f'.format([1.5])", "1.500000"),
    ("'%e'.format([1234.5])", "1.234500e+03"),
    # cel-go ext/formatting.go (strings library v2, what Kubernetes loads) builds "%<p>e": the
    # clause's precision is Go's *width*; the fraction keeps six digits.
    ("'%.3e'.format([1234.5])", "1.234500e+03"),
    ("'%.16e'.format([1234.5])", "    1.234500e+03"),
    ("'%e'.format([-0.000012])", "-1.200000e-05"),
    ("'%b %o %x %X'.format([5, 8, 255, 255])", "101 10 ff FF"),
    ("'%x'.format(['hi'])", "6869"),
    ("'%s'.format([[1, 'a', 2.5]])", '[1, "a", 2.500000]'),
    ("'%s'.format([{'b': 1, 'a': true}])", '{"a":true, "b":1}'),
    ("'%s'.format([null])", "null"),
    ("'%s'.format([duration('90s')])", "90s"),
    ("'%s'.format([int])", "int"),
    ("'%s'.format([b'ab'])", "ab"),
    # regex (RE2)
    ("'abc123'.matches('[0-9]+')", True),
    ("matches('abc', '^b')", False),
    ("'abc123def456'.find('[0-9]+')", "123"),
    ("'abc'.find('[0-9]+')", ""),
    ("'a1b2c3'.findAll('[0-9]')", ["1", "2", "3"]),
    ("'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]),
    # timestamps and durations
    (
        "timestamp('2023-05-06T07:08:09.123456789Z') + duration('1ns') == timestamp('2023-05-06T07:08:09.12345679Z')",
        True,
    ),
    # cel-go keeps the offset Go's time.Parse read (common/types/timestamp.go: ConvertToType
    # formats t.Time with RFC3339Nano; the accessors read t.Hour() of that time.Time).
    ("string(timestamp('2023-05-06T07:08:09+02:00'))", "2023-05-06T07:08:09+02:00"),
    ("string(timestamp('2023-05-06T07:08:09+02:00') + duration('1h'))", "2023-05-06T08:08:09+02:00"),
    ("timestamp('2023-05-06T07:08:09+02:00').getHours()", 7),
    ("timestamp('2023-05-06T07:08:09+02:00').getHours('UTC')", 5),
    ("timestamp('2023-05-06T07:08:09+02:00') == timestamp('2023-05-06T05:08:09Z')", True),
    ("string(timestamp('2023-05-06T07:08:09+00:00'))", "2023-05-06T07:08:09Z"),
    ("string(timestamp('2023-05-06T07:08:09.120Z'))", "2023-05-06T07:08:09.12Z"),
    ("timestamp('2023-05-06T07:08:09Z').getFullYear()", 2023),
    ("timestamp('2023-05-06T07:08:09Z').getMonth()", 4),
    ("timestamp('2023-05-06T07:08:09Z').getDate()", 6),
    ("timestamp('2023-05-06T07:08:09Z').getDayOfMonth()", 5),
    ("timestamp('2023-05-06T07:08:09Z').getDayOfYear()", 125),
    ("timestamp('2023-05-06T07:08:09Z').getDayOfWeek()", 6),
    ("timestamp('2023-05-06T07:08:09.5Z').getMilliseconds()", 500),
    ("timestamp('2023-05-06T23:30:00Z').getHours('Europe/Paris')", 1),
    ("timestamp('2023-05-06T23:30:00Z').getDate('+02:00')", 7),
    ("timestamp('2023-05-06T00:30:00Z').getHours('-05:30')", 19),
    ("timestamp('2023-05-06T23:30:00Z').getMinutes('Asia/Kolkata')", 0),
    ("int(timestamp('1970-01-02T00:00:00Z'))", 86400),
    ("timestamp(86400) == timestamp('1970-01-02T00:00:00Z')", True),
    ("timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z') == duration('24h')", True),
    ("timestamp('2023-01-01T00:00:00Z') < timestamp('2023-01-01T00:00:01Z')", True),
    ("string(duration('1h30m'))", "5400s"),
    ("string(duration('1.5s'))", "1.5s"),
    ("string(duration('-1ms'))", "-0.001s"),
    ("string(duration('1ns'))", "0.000000001s"),
    ("duration('90m').getHours()", 1),
    ("duration('90m').getMinutes()", 90),
    ("duration('-90s').getMinutes()", -1),
    ("duration('1500ms').getMilliseconds()", 1500),
    ("int(duration('1us'))", 1000),
    ("duration('2h') > duration('119m')", True),
    ("duration('1h') + duration('1m') == duration('61m')", True),
]


@pytest.mark.parametrize(("expr", "expected"), VALUES)
def test_value(expr: str, expected: object) -> None:
    assert value(expr) == expected


ERRORS: list[tuple[str, str]] = [
    ("'hello'.charAt(6)", "index out of range: 6"),
    ("'hello'.charAt(-1)", "index out of range: -1"),
    ("'hello'.indexOf('l', -1)", "index out of range: -1"),
    ("'hello'.substring(6)", "index out of range: 6"),
    ("'hello'.substring(3, 2)", "invalid substring range. start: 3, end: 2"),
    ("'hello'.substring(1, 9)", "index out of range: 9"),
    ("[dyn('a'), dyn(1)].join()", "join: invalid input: 1"),
    ("dyn('%s %s').format(['a'])", "index 1 out of range"),
    (
        "'%d'.format([dyn('a')])",
        "error during formatting: decimal clause can only be used on integers, was given string",
    ),
    ("dyn('%q').format([1])", 'could not parse formatting clause: unrecognized formatting clause "q"'),
    ("'abc'.matches(['('][0])", "error parsing regexp: missing closing ): `(`"),
    # apiserver pkg/cel/library/regex.go: types.NewErr("Illegal regex: %v", err.Error())
    ("'abc'.find(['['][0])", "Illegal regex: error parsing regexp: missing closing ]: `[`"),
    (
        "timestamp(['2023-13-01T00:00:00Z'][0])",
        "type conversion error from 'string' to 'google.protobuf.Timestamp'",
    ),
    ("duration(['5'][0])", "type conversion error from 'string' to 'google.protobuf.Duration'"),
    ("timestamp([253402300800][0])", "timestamp overflow"),
    ("timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp overflow"),
    ("duration('2562047h') + duration('2562047h')", "integer overflow"),
    ("timestamp('2023-05-06T00:00:00Z').getHours('Mars/Olympus')", "unknown time zone Mars/Olympus"),
]


@pytest.mark.parametrize(("expr", "message"), ERRORS)
def test_error(expr: str, message: str) -> None:
    assert error(expr) == message


def test_nanosecond_precision() -> None:
    ts = value("timestamp('2023-05-06T07:08:09.000000001Z')")
    assert isinstance(ts, Timestamp) and ts.nanos % 1_000_000_000 == 1
    d = value("duration('1.000000001s')")
    assert isinstance(d, Duration) and d.nanos == 1_000_000_001


def test_go_duration_string() -> None:
    assert format_go_duration(0) == "0s"
    assert format_go_duration(5_400_000_000_000) == "1h30m0s"
    assert format_go_duration(1_500_000) == "1.5ms"
    assert format_go_duration(-2_000_000_001) == "-2.000000001s"
