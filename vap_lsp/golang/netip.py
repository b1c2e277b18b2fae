"""Go's `net/netip`: `ParseAddr`, `ParsePrefix` and `Addr.String`, with Go's error texts.

Go's parser differs from Python's `ipaddress` in what it accepts (an IPv4 octet with a leading
zero is refused, a zone is kept) and its messages name the problem.

Every function takes the `Go` to behave as (`toolchain`), by default the newest Kubernetes'. Go
1.23 changed `parseIPv6` (`src/net/netip/netip.go`): an IPv6 group has at most four hex digits
(`each group must have 4 or less digits`; Go 1.22 took `00000001::` for `1::`), and an embedded
IPv4 address's error names the whole address (Go 1.22: `ParseAddr("::1.2.3"): ParseAddr("1.2.3"):
IPv4 address too short (at "1.2.3")`). Parsing is the same from go1.23.0 to go1.26.10, and every
supported Kubernetes' newest patch release is built with a Go from that range (`toolchain`), so
Kubernetes' `ip()` and `cidr()` behave alike in all of them; only its earliest patch releases
(1.30.x and 1.31.0 on Go 1.22) parsed as Go 1.22 does, which vap-lsp does not model per patch.
"""

from __future__ import annotations

import ipaddress

from vap_lsp.golang.strconv import atoi, quote
from vap_lsp.golang.toolchain import NEWEST, Go

__all__ = ["Addr", "NetipError", "addr_string", "is_4in6", "parse_addr", "parse_prefix"]

_FOUR_DIGIT_GROUPS = {(1, 23): 0}
"""Go 1.23's `parseIPv6`: at most four digits a group, embedded IPv4 errors about the whole text."""

Addr = ipaddress.IPv4Address | ipaddress.IPv6Address


class NetipError(ValueError):
    """`str()` is Go's text, e.g. `ParseAddr("1.2.3"): IPv4 address too short`."""


class _Fail(Exception):
    def __init__(self, msg: str, at: str = "") -> None:
        super().__init__(msg)
        self.msg = msg
        self.at = at


def _parse_ipv4(s: str) -> bytes:
    fields = bytearray(4)
    val = pos = dig_len = 0
    for i, c in enumerate(s):
        if "0" <= c <= "9":
            if dig_len == 1 and val == 0:
                raise _Fail("IPv4 field has octet with leading zero")
            val = val * 10 + ord(c) - 48
            dig_len += 1
            if val > 255:
                raise _Fail("IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(s) - 1 or s[i - 1] == ".":
                raise _Fail("IPv4 field must have at least one digit", s[i:])
            if pos == 3:
                raise _Fail("IPv4 address too long")
            fields[pos] = val
            pos += 1
            val = dig_len = 0
        else:
            raise _Fail("unexpected character", s[i:])
    if pos < 3:
        raise _Fail("IPv4 address too short")
    fields[3] = val
    return bytes(fields)


def _parse_ipv6(text: str, go: Go) -> tuple[bytes, str]:
    s = text
    zone = ""
    if "%" in s:
        s, _, zone = s.partition("%")
        if not zone:
            raise _Fail("zone must be a non-empty string")
    four_digits = go.has(_FOUR_DIGIT_GROUPS)
    ip = bytearray(16)
    ellipsis = -1
    if s.startswith("::"):
        ellipsis = 0
        s = s[2:]
        if not s:
            return bytes(ip), zone
    i = 0
    while i < 16:
        off = 0
        acc = 0
        while off < len(s):
            c = s[off]
            if "0" <= c <= "9" or "a" <= c <= "f" or "A" <= c <= "F":
                acc = (acc << 4) + int(c, 16)
            else:
                break
            if off > 3 and four_digits:
                raise _Fail("each group must have 4 or less digits", s)
            if acc > 0xFFFF:
                raise _Fail("IPv6 field has value >=2^16", s)
            off += 1
        if off == 0:
            raise _Fail("each colon-separated field must have at least one digit", s)
        if off < len(s) and s[off] == ".":
            if ellipsis < 0 and i != 12:
                raise _Fail("embedded IPv4 address must replace the final 2 fields of the address", s)
            if i + 4 > 16:
                raise _Fail("too many hex fields to fit an embedded IPv4 at the end of the address", s)
            try:
                ip[i : i + 4] = _parse_ipv4(s)
            except _Fail as exc:
                if four_digits:
                    raise  # about the whole text (`in`), at the place in the IPv4 part
                raise _Fail(_message(s, exc), s) from None
            s = ""
            i += 4
            break
        ip[i] = acc >> 8
        ip[i + 1] = acc & 0xFF
        i += 2
        s = s[off:]
        if not s:
            break
        if s[0] != ":":
            raise _Fail("unexpected character, want colon", s)
        if len(s) == 1:
            raise _Fail("colon must be followed by more characters", s)
        s = s[1:]
        if s[0] == ":":
            if ellipsis >= 0:
                raise _Fail("multiple :: in address", s)
            ellipsis = i
            s = s[1:]
            if not s:
                break
    if s:
        raise _Fail("trailing garbage after address", s)
    if i < 16:
        if ellipsis < 0:
            raise _Fail("address string too short")
        n = 16 - i
        ip[ellipsis + n : 16] = ip[ellipsis:i]
        ip[ellipsis : ellipsis + n] = bytes(n)
    elif ellipsis >= 0:
        raise _Fail("the :: must expand to at least one field of zeros", s)
    return bytes(ip), zone


def _message(text: str, exc: _Fail) -> str:
    msg = f"ParseAddr({quote(text)}): {exc.msg}"
    return msg + (f" (at {quote(exc.at)})" if exc.at else "")


def parse_addr(text: str, go: Go = NEWEST) -> tuple[Addr, str]:
    """`netip.ParseAddr` → (address, zone); raises NetipError with Go's text."""
    try:
        for c in text:
            if c == ".":
                return ipaddress.IPv4Address(_parse_ipv4(text)), ""
            if c == ":":
                raw, zone = _parse_ipv6(text, go)
                return ipaddress.IPv6Address(raw), zone
            if c == "%":
                raise _Fail("missing IPv6 address")
        raise _Fail("unable to parse IP")
    except _Fail as exc:
        raise NetipError(_message(text, exc)) from None


def is_4in6(addr: Addr) -> bool:
    """`Addr.Is4In6`: an IPv4-mapped IPv6 address (::ffff:0:0/96)."""
    return isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None


def addr_string(addr: Addr) -> str:
    """`Addr.String()`: RFC 5952 for IPv6, with an IPv4-mapped address's dotted tail."""
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return f"::ffff:{addr.ipv4_mapped}"
    return str(addr)


def parse_prefix(text: str, go: Go = NEWEST) -> tuple[Addr, int]:
    """`netip.ParsePrefix` as Go 1.22 and later (every supported Kubernetes' Go) do it: no zone,
    bits in decimal without sign or leading zero, as `strconv.Atoi` reads them (so bits beyond
    int64 are `bad bits`, not `out of range`). Raises NetipError with Go's text."""
    i = text.rfind("/")
    head = f"netip.ParsePrefix({quote(text)}): "
    if i < 0:
        raise NetipError(head + "no '/'")
    addr_text, bits_text = text[:i], text[i + 1 :]
    try:
        addr, zone = parse_addr(addr_text, go)
    except NetipError as exc:
        raise NetipError(head + str(exc)) from None
    if zone:
        raise NetipError(head + "IPv6 zones cannot be present in a prefix")
    bits = atoi(bits_text)
    if (len(bits_text) > 1 and not "1" <= bits_text[0] <= "9") or bits is None:
        raise NetipError(head + "bad bits after slash: " + quote(bits_text))
    if bits < 0 or bits > (32 if addr.version == 4 else 128):
        raise NetipError(head + "prefix length out of range")
    return addr, bits
