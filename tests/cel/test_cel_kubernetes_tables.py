# ruff: noqa: E501
"""Kubernetes' own CEL library test tables, re-typed (read, not copied) from
kubernetes/apiserver `pkg/cel/library/{ip,cidr,quantity,semver,format}_test.go` (`TestIP`,
`TestCIDR`, `TestQuantity`, `TestSemver`, `TestFormat`; each case carries the Go test's name) and run through vap-lsp's checker and interpreter in the stored
environment of the newest version. Values compare as the Go test compares them (`res.Equal`), runtime errors by their
exact text, compile errors by the pattern the Go test matches."""

from __future__ import annotations

import re

import pytest
from cel_eval_support import env, error, value

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.runtime.values import Optional, to_python

# (Go case name, expression, expected value). IP/CIDR results are compared through string()
# or ==, as the Go test's res.Equal does.
IP_VALUES: list[tuple[str, str, object]] = [
    ("parse ipv4", 'ip("192.168.0.1") == ip("192.168.0.1")', True),
    ("isIP valid ipv4", 'isIP("192.168.0.1")', True),
    ("isIP invalid ipv4", 'isIP("192.168.0.1.0")', False),
    ("ip.isCanonical valid ipv4", 'ip.isCanonical("127.0.0.1")', True),
    ("ipv4 family", 'ip("192.168.0.1").family()', 4),
    ("ipv4 isUnspecified true", 'ip("0.0.0.0").isUnspecified()', True),
    ("ipv4 isUnspecified false", 'ip("127.0.0.1").isUnspecified()', False),
    ("ipv4 isLoopback true", 'ip("127.0.0.1").isLoopback()', True),
    ("ipv4 isLoopback false", 'ip("1.2.3.4").isLoopback()', False),
    ("ipv4 isLinkLocalMulticast true", 'ip("224.0.0.1").isLinkLocalMulticast()', True),
    ("ipv4 isLinkLocalMulticast false", 'ip("224.0.1.1").isLinkLocalMulticast()', False),
    ("ipv4 isLinkLocalUnicast true", 'ip("169.254.169.254").isLinkLocalUnicast()', True),
    ("ipv4 isLinkLocalUnicast false", 'ip("192.168.0.1").isLinkLocalUnicast()', False),
    ("ipv4 isGlobalUnicast true", 'ip("192.168.0.1").isGlobalUnicast()', True),
    ("ipv4 isGlobalUnicast false", 'ip("255.255.255.255").isGlobalUnicast()', False),
    ("parse ipv6", 'ip("2001:db8::68") == ip("2001:db8::68")', True),
    ("isIP valid ipv6", 'isIP("2001:db8::68")', True),
    ("isIP invalid ipv4 (the ipv6 case)", 'isIP("2001:db8:::68")', False),
    ("ip.isCanonical valid ipv6", 'ip.isCanonical("2001:db8::68")', True),
    ("ip.isCanonical non-canonical ipv6", 'ip.isCanonical("2001:DB8::68")', False),
    ("ipv6 family", 'ip("2001:db8::68").family()', 6),
    ("ipv6 isUnspecified true", 'ip("::").isUnspecified()', True),
    ("ipv6 isUnspecified false", 'ip("::1").isUnspecified()', False),
    ("ipv6 isLoopback true", 'ip("::1").isLoopback()', True),
    ("ipv6 isLoopback false", 'ip("2001:db8::abcd").isLoopback()', False),
    ("ipv6 isLinkLocalMulticast true", 'ip("ff02::1").isLinkLocalMulticast()', True),
    ("ipv6 isLinkLocalMulticast false", 'ip("fd00::1").isLinkLocalMulticast()', False),
    ("ipv6 isLinkLocalUnicast true", 'ip("fe80::1").isLinkLocalUnicast()', True),
    ("ipv6 isLinkLocalUnicast false", 'ip("fd80::1").isLinkLocalUnicast()', False),
    ("ipv6 isGlobalUnicast true", 'ip("2001:db8::abcd").isGlobalUnicast()', True),
    ("ipv6 isGlobalUnicast false", 'ip("ff00::1").isGlobalUnicast()', False),
    ("converting an IP address to a string", 'string(ip("192.168.0.1"))', "192.168.0.1"),
    ("type of IP is net.IP", 'type(ip("192.168.0.1")) == net.IP', True),
]

IP_ERRORS: list[tuple[str, str, str]] = [
    (
        "parse invalid ipv4",
        'ip("192.168.0.1.0")',
        'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long',
    ),
    (
        "ip.isCanonical invalid ipv4",
        'ip.isCanonical("127.0.0.1.0")',
        'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long',
    ),
    (
        "parse invalid ipv6",
        'ip("2001:db8:::68")',
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ),
    (
        "ip.isCanonical invalid ipv6",
        'ip.isCanonical("2001:db8:::68")',
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ),
]

IP_COMPILE_ERRORS: list[tuple[str, str, str]] = [
    (
        "passing cidr into isIP returns compile error",
        'isIP(cidr("192.168.0.0/24"))',
        r"found no matching overload for 'isIP' applied to '\(net.CIDR\)'",
    ),
]

CIDR_VALUES: list[tuple[str, str, object]] = [
    ("parse ipv4", 'string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
    ("contains IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
    ("does not contain IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', False),
    ("contains IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', True),
    ("does not contain IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', False),
    ("contains CIDR ipv4 (CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
    ("contains CIDR ipv4 (CIDR) (/32)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', True),
    ("does not contain IP ipv4 (CIDR)", 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', False),
    (
        "does not contain IP ipv4 (CIDR) (/32)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))',
        False,
    ),
    ("contains CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', True),
    ("does not contain CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', False),
    ("returns IP ipv4", 'cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', True),
    ("masks masked ipv4", 'string(cidr("192.168.0.0/24").masked())', "192.168.0.0/24"),
    ("masks unmasked ipv4", 'string(cidr("192.168.0.1/24").masked())', "192.168.0.0/24"),
    ("returns prefix length ipv4", 'cidr("192.168.0.0/24").prefixLength()', 24),
    ("parse ipv6", 'string(cidr("2001:db8::/32"))', "2001:db8::/32"),
    ("contains IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', True),
    ("does not contain IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', False),
    ("contains IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:db8::1")', True),
    ("does not contain IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:dc8::1")', False),
    ("contains CIDR ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', True),
    ("does not contain IP ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', False),
    ("contains CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', True),
    ("does not contain CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', False),
    ("returns IP ipv6", 'cidr("2001:db8::/32").ip() == ip("2001:db8::")', True),
    ("masks masked ipv6", 'string(cidr("2001:db8::/32").masked())', "2001:db8::/32"),
    ("masks unmasked ipv6", 'string(cidr("2001:db8:1::/32").masked())', "2001:db8::/32"),
    ("returns prefix length ipv6", 'cidr("2001:db8::/32").prefixLength()', 32),
    ("converting a CIDR to a string", 'string(cidr("192.168.0.0/24"))', "192.168.0.0/24"),
    ("type of CIDR is net.CIDR", 'type(cidr("192.168.0.0/24")) == net.CIDR', True),
]

# stringToCIDR wraps parseCIDR's error, which already carries the same prefix: the server's
# text says it twice.
_CIDR_PREFIX = "network address parse error during conversion from string: " * 2
CIDR_ERRORS: list[tuple[str, str, str]] = [
    (
        "parse invalid ipv4",
        'cidr("192.168.0.0/")',
        _CIDR_PREFIX + 'netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ),
    (
        "parse invalid ipv6",
        'cidr("2001:db8::/")',
        _CIDR_PREFIX + 'netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ),
]


QUANTITY_VALUES: list[tuple[str, str, object]] = [
    ("parse", 'quantity("12Mi") == quantity("12582912")', True),
    ("isQuantity", 'isQuantity("20")', True),
    ("isQuantity_megabytes", 'isQuantity("20M")', True),
    ("isQuantity_mebibytes", 'isQuantity("20Mi")', True),
    ("isQuantity_invalidSuffix", 'isQuantity("20Mo")', False),
    ("isQuantity_passingRegex", 'isQuantity("10Mm")', False),
    ("equality_reflexivity", 'quantity("200M") == quantity("200M")', True),
    (
        "equality_symmetry",
        'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
        True,
    ),
    (
        "equality_transitivity",
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
        True,
    ),
    ("inequality", 'quantity("200M") == quantity("0.3G")', False),
    ("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', True),
    ("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', True),
    ("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', False),
    ("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', True),
    ("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', True),
    ("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', False),
    ("compare_equal", 'quantity("200M").compareTo(quantity("0.2G"))', 0),
    ("compare_less", 'quantity("50M").compareTo(quantity("50Mi"))', -1),
    ("compare_greater", 'quantity("50Mi").compareTo(quantity("50M"))', 1),
    ("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', False),
    ("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', True),
    ("sub_int", 'quantity("50k").sub(20) == quantity("49980")', True),
    ("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
    ("arith_chain", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
    ("as_integer", 'quantity("50k").asInteger()', 50000),
    ("is_integer (huge)", 'quantity("9999999999999999999999999999999999999G").isInteger()', False),
    ("is_integer", 'quantity("50").isInteger()', True),
    ("as_float", 'quantity("50.703k").asApproximateFloat()', 50703.0),
    (
        "add_does_not_mutate_receiver",
        '[quantity("9999999999999999999999999999999999999")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)',
        True,
    ),
]

# The Go test matches runtime errors with a regular expression.
QUANTITY_ERRORS: list[tuple[str, str, str]] = [
    ("parseInvalidSuffix", 'quantity("10Mo")', "quantities must match the regular expression.*"),
    ("parseInvalidSuffixPassesRegex", 'quantity("10Mm")', "unable to parse quantity's suffix"),
    (
        "as_integer_error",
        'quantity("9999999999999999999999999999999999999G").asInteger()',
        "cannot convert value to integer",
    ),
]

SEMVER_VALUES: list[tuple[str, str, object]] = [
    ("parse", 'semver("1.2.3") == semver("1.2.3")', True),
    ("isSemver", 'isSemver("1.2.3-beta.1+build.1")', True),
    ("isSemver_empty_false", 'isSemver("")', False),
    ("isSemver_v_prefix_false", 'isSemver("v1.0.0")', False),
    ("isSemver_v_leading_whitespace_false", 'isSemver(" 1.0.0")', False),
    ("isSemver_v_contains_whitespace_false", 'isSemver("1. 0.0")', False),
    ("isSemver_v_trailing_whitespace_false", 'isSemver("1.0.0 ")', False),
    ("isSemver_leading_zeros_false", 'isSemver("01.01.01")', False),
    ("isSemver_major_only_false", 'isSemver("1")', False),
    ("isSemver_major_minor_only_false", 'isSemver("1.1")', False),
    ("isSemver_empty_normalize_false", 'isSemver("", true)', False),
    ("isSemver_v_leading_whitespace_normalize_false", 'isSemver(" 1.0.0", true)', False),
    ("isSemver_v_contains_whitespace_normalize_false", 'isSemver("1. 0.0", true)', False),
    ("isSemver_v_trailing_whitespace_normalize_false", 'isSemver("1.0.0 ", true)', False),
    ("isSemver_v_prefix_normalize_true", 'isSemver("v1.0.0", true)', True),
    ("isSemver_leading_zeros_normalize_true", 'isSemver("01.01.01", true)', True),
    ("isSemver_major_only_normalize_true", 'isSemver("1", true)', True),
    ("isSemver_major_minor_only_normalize_true", 'isSemver("1.1", true)', True),
    ("equality_normalize", 'semver("v01.01", true) == semver("1.1.0")', True),
    ("equality_reflexivity", 'semver("1.2.3") == semver("1.2.3")', True),
    ("inequality", 'semver("1.2.3") == semver("1.0.0")', False),
    ("semver_less", 'semver("1.0.0").isLessThan(semver("1.2.3"))', True),
    ("semver_less_false", 'semver("1.0.0").isLessThan(semver("1.0.0"))', False),
    ("semver_greater", 'semver("1.2.3").isGreaterThan(semver("1.0.0"))', True),
    ("semver_greater_false", 'semver("1.0.0").isGreaterThan(semver("1.0.0"))', False),
    ("compare_equal", 'semver("1.2.3").compareTo(semver("1.2.3"))', 0),
    ("compare_less", 'semver("1.0.0").compareTo(semver("1.2.3"))', -1),
    ("compare_greater", 'semver("1.2.3").compareTo(semver("1.0.0"))', 1),
    ("major", 'semver("1.2.3").major()', 1),
    ("minor", 'semver("1.2.3").minor()', 2),
    ("patch", 'semver("1.2.3").patch()', 3),
]

SEMVER_ERRORS: list[tuple[str, str, str]] = [
    ("parseInvalidVersion", 'semver("v1.0")', "No Major.Minor.Patch elements found"),
]

_DNS1123_LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
_DNS1123_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
_DNS1035_LABEL = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

# validate() answers optional.none() (None here) or an optional list of messages.
FORMAT_VALUES: list[tuple[str, str, object]] = [
    ("example_usage_dns1123Label", 'format.dns1123Label().validate("my-label-name")', None),
    ("example_usage_dns1123Subdomain", 'format.dns1123Subdomain().validate("apiextensions.k8s.io")', None),
    ("example_usage_qualifiedName", 'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', None),
    ("example_usage_dns1123LabelPrefix", 'format.dns1123LabelPrefix().validate("my-label-prefix-")', None),
    (
        "example_usage_dns1123SubdomainPrefix",
        'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")',
        None,
    ),
    ("example_usage_dns1035LabelPrefix", 'format.dns1035LabelPrefix().validate("my-label-prefix-")', None),
    ("example_usage_uri", 'format.uri().validate("http://example.com")', None),
    ("example_usage_uuid", 'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', None),
    ("example_usage_byte", 'format.byte().validate("aGVsbG8=")', None),
    ("example_usage_date", 'format.date().validate("2021-01-01")', None),
    ("example_usage_datetime", 'format.datetime().validate("2021-01-01T00:00:00Z")', None),
    ("dns1123Label", 'format.dns1123Label().validate("contains a space")', [_DNS1123_LABEL]),
    ("dns1123Subdomain", 'format.dns1123Subdomain().validate("contains a space")', [_DNS1123_SUBDOMAIN]),
    ("dns1035Label", 'format.dns1035Label().validate("contains a space")', [_DNS1035_LABEL]),
    (
        "qualifiedName",
        'format.qualifiedName().validate("contains a space")',
        [
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ],
    ),
    ("dns1123LabelPrefix", 'format.dns1123LabelPrefix().validate("contains a space-")', [_DNS1123_LABEL]),
    (
        "dns1123SubdomainPrefix",
        'format.dns1123SubdomainPrefix().validate("contains a space-")',
        [_DNS1123_SUBDOMAIN],
    ),
    ("dns1035LabelPrefix", 'format.dns1035LabelPrefix().validate("contains a space-")', [_DNS1035_LABEL]),
    ("dns1123Label_Success", 'format.dns1123Label().validate("my-label-name")', None),
    ("dns1123Subdomain_Success", 'format.dns1123Subdomain().validate("example.com")', None),
    ("dns1035Label_Success", 'format.dns1035Label().validate("my-label-name")', None),
    ("qualifiedName_Success", 'format.qualifiedName().validate("my.name")', None),
    ("byte_success", 'format.byte().validate("aGVsbG8=")', None),
    ("byte_failure", 'format.byte().validate("aGVsbG8")', ["invalid base64"]),
    ("date_success", 'format.date().validate("2020-01-01")', None),
    ("date_failure", 'format.date().validate("2020-01-32")', ["invalid date"]),
    ("datetime_success", 'format.datetime().validate("2020-01-01T00:00:00Z")', None),
    ("datetime_failure", 'format.datetime().validate("2020-01-32T00:00:00Z")', ["invalid datetime"]),
    ("unknown_format", 'format.named("unknown").hasValue()', False),
    ("labelValue_success", 'format.labelValue().validate("my-cool-label-Value")', None),
    (
        "labelValue_failure",
        'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
        [
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ],
    ),
    ("lookup and comparison (dns1123Label)", 'format.named("dns1123Label").hasValue()', True),
    (
        "comparison with lookup succeeds (dns1123Label)",
        'format.named("dns1123Label").value() == format.dns1123Label()',
        True,
    ),
    ("compare_dns1123Label_dns1035Label", "format.dns1123Label() == format.dns1035Label()", False),
]

COMPILE_PATTERNS: list[tuple[str, str, str]] = [
    (
        "TestQuantity isQuantity_noOverload",
        "isQuantity([1, 2, 3])",
        "found no matching overload for 'isQuantity' applied to.*",
    ),
    (
        "TestSemver isSemver_noOverload",
        "isSemver([1, 2, 3])",
        "found no matching overload for 'isSemver' applied to.*",
    ),
]


@pytest.mark.parametrize(
    ("name", "expr", "pattern"), QUANTITY_ERRORS + SEMVER_ERRORS, ids=lambda x: str(x)[:60]
)
def test_runtime_error_pattern(name: str, expr: str, pattern: str) -> None:
    assert re.search(pattern, error(expr) or ""), error(expr)


@pytest.mark.parametrize(
    ("name", "expr", "expected"),
    IP_VALUES + CIDR_VALUES + QUANTITY_VALUES + SEMVER_VALUES + FORMAT_VALUES,
    ids=lambda x: str(x)[:60],
)
def test_value(name: str, expr: str, expected: object) -> None:
    got = value(expr)
    assert (to_python(got) if isinstance(got, Optional) else got) == expected


@pytest.mark.parametrize(("name", "expr", "message"), IP_ERRORS + CIDR_ERRORS, ids=lambda x: str(x)[:60])
def test_runtime_error(name: str, expr: str, message: str) -> None:
    assert error(expr) == message


@pytest.mark.parametrize(
    ("name", "expr", "pattern"), IP_COMPILE_ERRORS + COMPILE_PATTERNS, ids=lambda x: str(x)[:60]
)
def test_compile_error(name: str, expr: str, pattern: str) -> None:
    result = compile_expression(expr, env())
    messages = [i.cel_message for i in result.issues]
    assert messages and all(re.search(pattern, m) for m in messages), messages


# kubernetes/apiextensions-apiserver pkg/apiserver/schema/cel/validation_test.go,
# TestValidationExpressions: rules that must hold (`valid`), by test case. `self.url` of the
# "URL parsing" case is written out as the string its object holds.
_SELF_URL = "'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor'"
VALID_RULES: list[tuple[str, str]] = [
    *(
        ("URL parsing", rule.replace("self.url", _SELF_URL))
        for rule in (
            "url('/path').getScheme() == ''",
            "url('https://example.com/').getScheme() == 'https'",
            "url('https://example.com:80/').getHost() == 'example.com:80'",
            "url('https://example.com/').getHost() == 'example.com'",
            "url('https://[::1]:80/').getHost() == '[::1]:80'",
            "url('https://[::1]/').getHost() == '[::1]'",
            "url('/path').getHost() == ''",
            "url('https://example.com:80/').getHostname() == 'example.com'",
            "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
            "url('https://[::1]/').getHostname() == '::1'",
            "url('/path').getHostname() == ''",
            "url('https://example.com:80/').getPort() == '80'",
            "url('https://example.com/').getPort() == ''",
            "url('/path').getPort() == ''",
            "url('https://example.com/path').getEscapedPath() == '/path'",
            "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
            "url('https://example.com').getEscapedPath() == ''",
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
            "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
            "url('https://example.com/path?').getQuery() == {}",
            "url('https://example.com/path').getQuery() == {}",
            "url(self.url).getScheme() == 'https'",
            "url(self.url).getHost() == 'kubernetes.io:80'",
            "url(self.url).getHostname() == 'kubernetes.io'",
            "url(self.url).getPort() == '80'",
            "url(self.url).getEscapedPath() == '/docs/home'",
            "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
            "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
            "isURL('/path') == true",
            "isURL('https://a:b:c/') == false",
            "isURL('../relative-path') == false",
        )
    ),
    *(
        ("optionals", rule)
        for rule in (
            "optional.ofNonZeroValue(1).hasValue()",
            "optional.ofNonZeroValue(uint(1)).hasValue()",
            "optional.ofNonZeroValue(1.1).hasValue()",
            "optional.ofNonZeroValue('a').hasValue()",
            "optional.ofNonZeroValue(true).hasValue()",
            "optional.ofNonZeroValue(['a']).hasValue()",
            "optional.ofNonZeroValue({'k': 'v'}).hasValue()",
            "optional.ofNonZeroValue(timestamp('2011-08-18T00:00:00.000+01:00')).hasValue()",
            "optional.ofNonZeroValue(duration('19h3m37s10ms')).hasValue()",
            "optional.ofNonZeroValue(null) == optional.none()",
            "optional.ofNonZeroValue(0) == optional.none()",
            "optional.ofNonZeroValue(uint(0)) == optional.none()",
            "optional.ofNonZeroValue(0.0) == optional.none()",
            "optional.ofNonZeroValue('') == optional.none()",
            "optional.ofNonZeroValue(false) == optional.none()",
            "optional.ofNonZeroValue([]) == optional.none()",
            "optional.ofNonZeroValue({}) == optional.none()",
            "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()",
            "optional.ofNonZeroValue(duration('0s')) == optional.none()",
            "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}",
            "{?'k': optional.of('v'), 'k2': 'v2'} == {'k': 'v', 'k2': 'v2'}",
            "['a', ?optional.none(), 'c'] == ['a', 'c']",
            "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']",
        )
    ),
    *(
        ("IP and CIDR", rule)
        for rule in (
            'isIP("192.168.0.1")',
            'ip.isCanonical("127.0.0.1")',
            'ip("192.168.0.1").family() > 0',
            'ip("0.0.0.0").isUnspecified()',
            'ip("127.0.0.1").isLoopback()',
            'ip("224.0.0.1").isLinkLocalMulticast()',
            'ip("192.168.0.1").isGlobalUnicast()',
            'type(ip("192.168.0.1")) == net.IP',
            'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))',
            'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")',
            'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))',
            'type(cidr("2001:db8::/32").ip()) == net.IP',
            "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
            "cidr('192.168.0.0/16').prefixLength() == 16",
            "cidr('::1/128').ip().family() == 6",
        )
    ),
]


@pytest.mark.parametrize(("case", "rule"), VALID_RULES, ids=lambda x: str(x)[:70])
def test_valid_rule(case: str, rule: str) -> None:
    assert value(rule) is True


# The same test's `errors`: a constant regex find/findAll rejects is a compile-time error
# (program instantiation), a bad matches literal the literal validator's.
RULE_ERRORS: list[tuple[str, str]] = [
    ("'abc'.find(')') == ''", "program instantiation failed: error parsing regexp: unexpected ): `)`"),
    ("'abc'.findAll(')') == []", "program instantiation failed: error parsing regexp: unexpected ): `)`"),
    ("'abc'.findAll(')', 1) == []", "program instantiation failed: error parsing regexp: unexpected ): `)`"),
    ("'abc'.matches('x++')", "invalid matches argument"),
]


@pytest.mark.parametrize(("rule", "message"), RULE_ERRORS)
def test_rule_error_at_compile_time(rule: str, message: str) -> None:
    result = compile_expression(rule, env())
    assert [i.cel_message for i in result.issues] == [message]


# TestValidationExpressions "stdlib list functions" and "stdlib regex functions": `self.<field>`
# written out as the literal its object holds (durations and dates as the typed values the CRD
# schema's formats give).
_SELF = {
    "self.ints": "[1, 2, 2, 3]",
    "self.unsortedInts": "[2, 1]",
    "self.emptyInts": "dyn([])",
    "self.doubles": "[1.0, 2.0, 2.0, 3.0]",
    "self.unsortedDoubles": "[2.0, 1.0]",
    "self.emptyDoubles": "dyn([])",
    "self.durations": "[duration('1s'), duration('1m'), duration('1m'), duration('1h')]",
    "self.unsortedDurations": "[duration('1m'), duration('1s')]",
    "self.emptyDurations": "dyn([])",
    "self.strings": "['a', 'b', 'b', 'c']",
    "self.unsortedStrings": "['b', 'a']",
    "self.emptyStrings": "dyn([])",
    "self.dates": "[timestamp('2000-01-01T00:00:00Z'), timestamp('2000-02-01T00:00:00Z'), timestamp('2000-02-01T00:00:00Z'), timestamp('2010-01-01T00:00:00Z')]",
    "self.unsortedDates": "[timestamp('2000-02-01T00:00:00Z'), timestamp('2000-01-01T00:00:00Z')]",
    "self.emptyDates": "dyn([])",
    "self.objs": "[{'f1': 'a', 'f2': 'a'}, {'f1': 'a', 'f2': 'b'}, {'f1': 'a', 'f2': 'b'}, {'f1': 'a', 'f2': 'c'}]",
    "self.str": "'this is a 123 string 456'",
}


def _literal(rule: str) -> str:
    for name in sorted(_SELF, key=len, reverse=True):
        rule = rule.replace(name, _SELF[name])
    return rule


LIST_AND_REGEX_RULES = [
    "self.ints.sum() == 8", "self.ints.min() == 1", "self.ints.max() == 3", "self.emptyInts.sum() == 0",
    "self.ints.isSorted()", "self.emptyInts.isSorted()", "self.unsortedInts.isSorted() == false",
    "self.ints.indexOf(2) == 1", "self.ints.lastIndexOf(2) == 2", "self.ints.indexOf(10) == -1",
    "self.ints.lastIndexOf(10) == -1",
    "self.doubles.sum() == 8.0", "self.doubles.min() == 1.0", "self.doubles.max() == 3.0",
    "self.emptyDoubles.sum() == 0", "self.doubles.isSorted()", "self.unsortedDoubles.isSorted() == false",
    "self.doubles.indexOf(2.0) == 1", "self.doubles.lastIndexOf(2.0) == 2", "self.doubles.indexOf(10.0) == -1",
    "self.durations.sum() == duration('1h2m1s')", "self.durations.min() == duration('1s')",
    "self.durations.max() == duration('1h')", "self.durations.isSorted()",
    "self.unsortedDurations.isSorted() == false", "self.durations.indexOf(duration('1m')) == 1",
    "self.durations.lastIndexOf(duration('1m')) == 2", "self.durations.indexOf(duration('2m')) == -1",
    "self.strings.min() == 'a'", "self.strings.max() == 'c'", "self.strings.isSorted()",
    "self.unsortedStrings.isSorted() == false", "self.strings.indexOf('b') == 1",
    "self.strings.lastIndexOf('b') == 2", "self.strings.indexOf('x') == -1",
    "self.dates.min() == timestamp('2000-01-01T00:00:00.000Z')",
    "self.dates.max() == timestamp('2010-01-01T00:00:00.000Z')", "self.dates.isSorted()",
    "self.unsortedDates.isSorted() == false",
    "self.dates.indexOf(timestamp('2000-02-01T00:00:00.000Z')) == 1",
    "self.dates.lastIndexOf(timestamp('2000-02-01T00:00:00.000Z')) == 2",
    "self.dates.indexOf(timestamp('2005-02-01T00:00:00.000Z')) == -1",
    "[[1], [2]].indexOf([1]) == 0", "[{'a': 1}, {'b': 2}].lastIndexOf({'b': 2}) == 1",
    "self.objs.indexOf(self.objs[1]) == 1", "self.objs.lastIndexOf(self.objs[1]) == 2",
    "([0] + [1, 2]).min() == 0", "dyn([]).sum() == 0", "dyn([1, 2]).sum() == 3",
    "dyn([1.0, 2.0]).sum() == 3.0", "[].sum() == 0",
    "self.str.find('[0-9]+') == '123'", "self.str.find('[0-9]+') != '456'", "self.str.find('xyz') == ''",
    "self.str.findAll('[0-9]+') == ['123', '456']", "self.str.findAll('[0-9]+', 0) == []",
    "self.str.findAll('[0-9]+', 1) == ['123']", "self.str.findAll('[0-9]+', 2) == ['123', '456']",
    "self.str.findAll('[0-9]+', 3) == ['123', '456']", "self.str.findAll('[0-9]+', -1) == ['123', '456']",
    "self.str.findAll('xyz') == []", "self.str.findAll('xyz', 1) == []",
]  # fmt: skip


@pytest.mark.parametrize("rule", LIST_AND_REGEX_RULES)
def test_list_and_regex_rule(rule: str) -> None:
    assert value(_literal(rule)) is True


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("[1].filter(x, x > 1).min() == 1", "min called on empty list"),
        ("[1].filter(x, x > 1).max() == 3", "max called on empty list"),
        ("['a'].filter(x, x > 'a').min() == 'a'", "min called on empty list"),
    ],
)
def test_list_runtime_error(rule: str, message: str) -> None:
    assert error(rule) == message


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("['a', 'b'].sum() == 'c'", "found no matching overload for 'sum' applied to 'list(string).()'"),
        ("[[1], [2]].min() == [1]", "found no matching overload for 'min' applied to 'list(list(int)).()'"),
        (
            "[{'a': 1}, {'b': 2}].max() == {'b': 2}",
            "found no matching overload for 'max' applied to 'list(map(string, int)).()'",
        ),
    ],
)
def test_list_compile_error(rule: str, message: str) -> None:
    assert message in [i.cel_message for i in compile_expression(rule, env()).issues]
