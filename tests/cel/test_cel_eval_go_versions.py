# ruff: noqa: E501
"""`url()`, `isURL()`, `format.uri()`, `ip()` and `cidr()` per Kubernetes version: what the Go each
kube-apiserver is built with says (`vap_lsp.golang.toolchain`).

Kubernetes' URL library calls `url.ParseRequestURI` then `url.Parse` (`pkg/cel/library/urls.go`,
`stringToUrl`, `isURL`; the `uri` format of `format.go` calls `ParseRequestURI`), its IP and CIDR
libraries `netip.ParseAddr` and `netip.ParsePrefix` (`ip.go` `parseIPAddr`, `cidr.go` `parseCIDR`).
Every expected value below is what those Go calls returned when built with the `.go-version` of
each minor's newest patch release (go1.23.10, go1.24.9, go1.24.13, go1.25.11, go1.26.5, go1.26.5,
go1.26.8, go1.26.10) and run with the GODEBUG defaults its `go.mod` selects
(`urlstrictcolons=0` before 1.36, `urlmaxqueryparams=0` before 1.33); the CEL texts around them are
the library's own.
"""

from __future__ import annotations

import pytest
from cel_eval_support import env, run

from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.runtime.values import Optional, to_python

MINORS = range(30, 38)

Verdict = tuple[str, str, str] | str
"""(getHost(), getHostname(), getPort()), or what `url.ParseRequestURI` said after `parse "<url>": `."""


def _per_minor(*spans: tuple[range, Verdict]) -> dict[int, Verdict]:
    table = {minor: verdict for minors, verdict in spans for minor in minors}
    assert sorted(table) == list(MINORS)
    return table


URLS: dict[str, dict[int, Verdict]] = {
    # CVE-2025-47912 (go1.24.8) read the last `[` as the start of an IP literal, dropping what is
    # before it; go1.25.8 (CVE-2026-25679) refuses a `[` that does not start the host.
    "http://x[::1]/": _per_minor(
        (range(30, 31), 'invalid port ":1]" after host'),
        (range(31, 33), ("[::1]", "::1", "")),
        (range(33, 38), "invalid IP-literal"),
    ),
    "http://a[b/": _per_minor(
        (range(30, 31), ("a[b", "a[b", "")),
        (range(31, 33), "missing ']' in host"),
        (range(33, 38), "invalid IP-literal"),
    ),
    # Brackets hold an IPv6 address from go1.24.8 on; IPv4-mapped again from go1.24.10.
    "http://[1.2.3.4]/": _per_minor(
        (range(30, 31), ("[1.2.3.4]", "1.2.3.4", "")),
        (range(31, 32), "invalid IPv6 host"),
        (range(32, 38), "invalid IP-literal"),
    ),
    "http://[::ffff:1.2.3.4]/": _per_minor(
        (range(30, 31), ("[::ffff:1.2.3.4]", "::ffff:1.2.3.4", "")),
        (range(31, 32), "invalid IPv6 host"),
        (range(32, 38), ("[::ffff:1.2.3.4]", "::ffff:1.2.3.4", "")),
    ),
    "http://[v1.x]/": _per_minor(
        (range(30, 31), ("[v1.x]", "v1.x", "")),
        (range(31, 38), 'invalid host: ParseAddr("v1.x"): unexpected character (at "v1.x")'),
    ),
    # urlstrictcolons (go1.26, on for kube-apiserver from 1.36, whose go.mod says go 1.26): the port
    # starts at the first colon of an http(s) host.
    "http://a:1:2/": _per_minor(
        (range(30, 36), ("a:1:2", "a:1", "2")),
        (range(36, 38), 'invalid port ":1:2" after host'),
    ),
    "HTTPS://h:1:2/": _per_minor(
        (range(30, 36), ("h:1:2", "h:1", "2")),
        (range(36, 38), 'invalid port ":1:2" after host'),
    ),
    "https://::1/": _per_minor(
        (range(30, 36), ("::1", ":", "1")),
        (range(36, 38), 'invalid port "::1" after host'),
    ),
    "postgres://a:1,b:2/": _per_minor((MINORS, ("a:1,b:2", "a:1,b", "2"))),
    "http://[::1]:8080/p": _per_minor((MINORS, ("[::1]:8080", "::1", "8080"))),
}


def _environment(minor: int) -> Environment:
    return env(ExpressionKind.VARIABLE, f"1.{minor}")


@pytest.mark.parametrize("minor", MINORS)
@pytest.mark.parametrize("text", list(URLS))
def test_url_per_kubernetes_version(text: str, minor: int) -> None:
    verdict = URLS[text][minor]
    got = run(
        f"[url('{text}').getHost(), url('{text}').getHostname(), url('{text}').getPort()]",
        environment=_environment(minor),
    )
    accepted = run(f"isURL('{text}')", environment=_environment(minor))
    if isinstance(verdict, tuple):
        assert (got.error, tuple(to_python(got.value))) == (None, verdict)
        assert accepted.value is True
    else:
        assert got.error == f'URL parse error during conversion from string: parse "{text}": {verdict}'
        assert accepted.value is False


@pytest.mark.parametrize("minor", range(31, 38))  # the format library: 1.31
def test_format_uri_per_kubernetes_version(minor: int) -> None:
    got = run("format.uri().validate('http://a:1:2/')", environment=_environment(minor))
    assert isinstance(got.value, Optional)
    expected = ['parse "http://a:1:2/": invalid port ":1:2" after host'] if minor >= 36 else None
    assert to_python(got.value) == expected


@pytest.mark.parametrize("minor", MINORS)
def test_query_of_more_than_ten_thousand_parameters_is_empty_from_1_33(minor: int) -> None:
    """urlmaxqueryparams (go1.24.12, go1.25.6): `URL.Query` parses nothing past 10,000 parameters;
    kube-apiserver's go.mod selects the limit from 1.33 (`godebug default=go1.24`)."""
    params = {"limit": "http://h/?" + "a=1&" * 10_000 + "b=2", "under": "http://h/?" + "a=1&" * 9_999 + "b=2"}
    got = run(
        "[url(params.limit).getQuery().size(), url(params.under).getQuery().size()]",
        {"params": params},
        environment=_environment(minor),
        cost_limit=None,
    )
    assert got.error is None
    assert to_python(got.value) == ([0, 2] if minor >= 33 else [2, 2])


# net/netip parses alike in every supported Kubernetes' Go (go1.23 on): one verdict for all.
IP_VERDICTS: list[tuple[str, object]] = [
    ("isIP('00000001::')", False),  # Go 1.23: at most four digits a group (Go 1.22 read 1::)
    ("isIP('0001::') && ip('0001::') == ip('1::')", True),
    ("isCIDR('00001::/64')", False),
    ("isCIDR('0001::/64')", True),
]

IP_ERRORS: list[tuple[str, str]] = [
    (
        "ip(dyn('00000001::'))",
        'IP Address "00000001::" parse error during conversion from string: ParseAddr("00000001::"): each group must have 4 or less digits (at "00000001::")',
    ),
    (
        "ip(dyn('::1.2.3'))",
        'IP Address "::1.2.3" parse error during conversion from string: ParseAddr("::1.2.3"): IPv4 address too short',
    ),
    (
        "ip(dyn('1::2.3.4.5:6'))",
        'IP Address "1::2.3.4.5:6" parse error during conversion from string: ParseAddr("1::2.3.4.5:6"): unexpected character (at ":6")',
    ),
    (
        "cidr(dyn('1.2.3.4/99999999999999999999'))",
        "network address parse error during conversion from string: network address parse error during conversion from string: "
        'netip.ParsePrefix("1.2.3.4/99999999999999999999"): bad bits after slash: "99999999999999999999"',
    ),
    (
        "cidr(dyn('1.2.3.4/4294967296'))",
        "network address parse error during conversion from string: network address parse error during conversion from string: "
        'netip.ParsePrefix("1.2.3.4/4294967296"): prefix length out of range',
    ),
    (
        "cidr(dyn('::1.2.3/128'))",
        "network address parse error during conversion from string: network address parse error during conversion from string: "
        'netip.ParsePrefix("::1.2.3/128"): ParseAddr("::1.2.3"): IPv4 address too short',
    ),
]


@pytest.mark.parametrize("minor", [30, 37])
@pytest.mark.parametrize(("expr", "expected"), IP_VERDICTS)
def test_ip_and_cidr_acceptance(expr: str, expected: object, minor: int) -> None:
    got = run(expr, environment=_environment(minor))
    assert (got.error, got.value) == (None, expected)


@pytest.mark.parametrize("minor", [30, 37])
@pytest.mark.parametrize(("expr", "message"), IP_ERRORS)
def test_ip_and_cidr_errors(expr: str, message: str, minor: int) -> None:
    assert run(expr, environment=_environment(minor)).error == message
