# ruff: noqa: E501
"""Kubernetes' own CEL library test tables, re-typed (read, not copied) from
kubernetes/apiserver `pkg/cel/library/{ip,cidr}_test.go` (`TestIP`, `TestCIDR`; each case
carries the Go test's name) and run through vap-lsp's checker and interpreter in the stored
environment of the newest version. Values compare as the Go test compares them (`res.Equal`), runtime errors by their
exact text, compile errors by the pattern the Go test matches."""

from __future__ import annotations

import re

import pytest
from cel_eval_support import env, error, value

from vap_lsp.cel.compile import compile_expression

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


@pytest.mark.parametrize(("name", "expr", "expected"), IP_VALUES + CIDR_VALUES, ids=lambda x: str(x)[:60])
def test_value(name: str, expr: str, expected: object) -> None:
    assert value(expr) == expected


@pytest.mark.parametrize(("name", "expr", "message"), IP_ERRORS + CIDR_ERRORS, ids=lambda x: str(x)[:60])
def test_runtime_error(name: str, expr: str, message: str) -> None:
    assert error(expr) == message


@pytest.mark.parametrize(("name", "expr", "pattern"), IP_COMPILE_ERRORS, ids=lambda x: str(x)[:60])
def test_compile_error(name: str, expr: str, pattern: str) -> None:
    result = compile_expression(expr, env())
    messages = [i.cel_message for i in result.issues]
    assert messages and all(re.search(pattern, m) for m in messages), messages
