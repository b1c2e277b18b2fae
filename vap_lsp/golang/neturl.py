"""Go's `net/url`: `Parse`, `ParseRequestURI`, and the `URL` accessors Kubernetes' URL library
calls (`Hostname`, `Port`, `EscapedPath`, `Query`, `String`).

Go splits a URL its own way: a rootless path after a scheme is opaque (`mailto:a@b`), the host
must be followed by a numeric port only, `%` escapes in a host are restricted, and the raw path
is kept only when it is a valid encoding of the decoded path.

How a host is read changed in patch releases of Go 1.24–1.26, so the same URL is accepted by
one Kubernetes and rejected by another (which Go each is built with: `toolchain`). Every function
takes the `Go` to behave as, by default the newest Kubernetes' (`toolchain.NEWEST`). The changes,
from each release's `src/net/url/url.go` (`parseHost`, `parseQuery`):

* `_IP_LITERAL_CHECKED` (CVE-2025-47912, GO-2025-4010; go1.24.8, go1.25.2): a host with a `[` is an IP literal
  wherever the `[` is (the text before the last `[` dropped), and what is inside the brackets
  must be an IPv6 address (`invalid host: ParseAddr(…)`; IPv4 and IPv4-mapped: `invalid IPv6 host`).
  Before: only a leading `[` opened a literal, and its content was not checked.
* `_IPV4_MAPPED_OK` (go.dev/issue/75815; go1.24.10, go1.25.4, go1.26.0): an IPv4-mapped address is
  accepted again and an IPv4 one is `invalid IP-literal`.
* `_BRACKET_FIRST` (CVE-2026-25679, go.dev/issue/77578; go1.25.8, go1.26.1): a `[` after the first
  byte of the host is `invalid IP-literal`. Go 1.24 never got it.
* `_STRICT_COLONS` (go.dev/issue/75223; go1.26.0, GODEBUG `urlstrictcolons`, on for a main module
  of go 1.26, so Kubernetes 1.36 on): a host's port starts at its first colon, so `http://a:1:2/`
  and `http://::1/` are `invalid port`; `_STRICT_COLONS_WEB` (go.dev/issue/78077; go1.26.2): for
  `http`/`https` only (go1.26.0–1.26.1: every scheme but `postgres`/`postgresql`).
* `_MAX_QUERY_PARAMS` (go1.24.12, go1.25.6, go1.26.0; GODEBUG `urlmaxqueryparams`, on for a main
  module of go 1.24 on, so Kubernetes 1.33 on): a query of more than 10,000 `&`-separated
  parameters parses to nothing (`URL.Query` is empty).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vap_lsp.golang import netip
from vap_lsp.golang.strconv import atoi, quote, quote_bytes
from vap_lsp.golang.toolchain import NEWEST, Go

_IP_LITERAL_CHECKED = {(1, 24): 8, (1, 25): 2}
_IPV4_MAPPED_OK = {(1, 24): 10, (1, 25): 4, (1, 26): 0}
_BRACKET_FIRST = {(1, 25): 8, (1, 26): 1}
_STRICT_COLONS = {(1, 26): 0}
_STRICT_COLONS_WEB = {(1, 26): 2}
_MAX_QUERY_PARAMS = {(1, 24): 12, (1, 25): 6, (1, 26): 0}
_DEFAULT_MAX_PARAMS = 10_000

__all__ = ["URL", "URLError", "parse", "parse_query", "parse_request_uri"]


class URLError(ValueError):
    """Go's `*url.Error`: `str()` is `parse "<url>": <reason>`."""


_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(7)


def _should_escape(c: str, mode: int) -> bool:
    if "a" <= c <= "z" or "A" <= c <= "Z" or "0" <= c <= "9":
        return False
    if mode in (_HOST, _ZONE) and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _PATH:
            return c == "?"
        if mode == _PATH_SEGMENT:
            return c in "/;,?"
        if mode == _USER_PASSWORD:
            return c in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    return not (mode == _FRAGMENT and c in "!()*")


def _is_hex(c: str) -> bool:
    return "0" <= c <= "9" or "a" <= c <= "f" or "A" <= c <= "F"


def _bytes(s: str) -> bytes:
    """A Go string's bytes: bytes that were not UTF-8 travel as surrogate escapes."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "replace")


def _unescape(text: str, mode: int) -> str:
    """Go's `unescape`, over bytes; raises the reason (without `parse "…": `) as ValueError.
    Decoded bytes that are not UTF-8 are kept as surrogate escapes (Go keeps the bytes)."""
    s = _bytes(text)
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == 0x25:
            if i + 2 >= n or not _is_hex(chr(s[i + 1])) or not _is_hex(chr(s[i + 2])):
                raise ValueError("invalid URL escape " + quote_bytes(s[i : i + 3]))
            v = int(s[i + 1 : i + 3], 16)
            if mode == _HOST and v < 0x80 and s[i : i + 3] != b"%25":
                raise ValueError("invalid URL escape " + quote_bytes(s[i : i + 3]))
            if (
                mode == _ZONE
                and s[i : i + 3] != b"%25"
                and v != 0x20
                and v < 0x80
                and _should_escape(chr(v), _HOST)
            ):
                raise ValueError("invalid URL escape " + quote_bytes(s[i : i + 3]))
            i += 3
        else:
            if mode in (_HOST, _ZONE) and c < 0x80 and _should_escape(chr(c), mode):
                raise ValueError("invalid character " + quote(chr(c)) + " in host name")
            i += 1
    if b"%" not in s and (mode != _QUERY_COMPONENT or b"+" not in s):
        return text
    out = bytearray()
    j = 0
    while j < n:
        b = s[j]
        if b == 0x25:
            out.append(int(s[j + 1 : j + 3], 16))
            j += 3
        elif b == 0x2B and mode == _QUERY_COMPONENT:
            out.append(0x20)
            j += 1
        else:
            out.append(b)
            j += 1
    return out.decode("utf-8", "surrogateescape")


def _escape(s: str, mode: int) -> str:
    out = []
    for b in _bytes(s):
        c = chr(b)
        if b < 0x80 and not _should_escape(c, mode):
            out.append(c)
        elif c == " " and mode == _QUERY_COMPONENT:
            out.append("+")
        else:
            out.append(f"%{b:02X}")
    return "".join(out)


def _valid_encoded(s: str, mode: int) -> bool:
    for c in s:
        if c in "!$&'()*+,;=:@[]%":
            continue
        if c >= "\x80" or _should_escape(c, mode):
            return False
    return True


def _valid_optional_port(port: str) -> bool:
    if port == "":
        return True
    return port[0] == ":" and all("0" <= c <= "9" for c in port[1:])


def _split_host_port(host_port: str) -> tuple[str, str]:
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon != -1 and _valid_optional_port(host[colon:]):
        host, port = host[:colon], host[colon + 1 :]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


@dataclass
class URL:
    """Go's `url.URL` (the fields Kubernetes reads)."""

    scheme: str = ""
    opaque: str = ""
    user: tuple[str, str | None] | None = None
    host: str = ""
    path: str = ""
    raw_path: str = ""
    omit_host: bool = False
    force_query: bool = False
    raw_query: str = ""
    fragment: str = ""
    raw_fragment: str = ""
    go: Go = field(default=NEWEST, compare=False, repr=False)
    """The Go whose `net/url` parsed it (and answers `query()`)."""

    def hostname(self) -> str:
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        return _split_host_port(self.host)[1]

    def escaped_path(self) -> str:
        if self.raw_path and _valid_encoded(self.raw_path, _PATH):
            try:
                if _unescape(self.raw_path, _PATH) == self.path:
                    return self.raw_path
            except ValueError:
                pass
        if self.path == "*":
            return "*"
        return _escape(self.path, _PATH)

    def escaped_fragment(self) -> str:
        if self.raw_fragment and _valid_encoded(self.raw_fragment, _FRAGMENT):
            try:
                if _unescape(self.raw_fragment, _FRAGMENT) == self.fragment:
                    return self.raw_fragment
            except ValueError:
                pass
        return _escape(self.fragment, _FRAGMENT)

    def query(self) -> dict[str, list[str]]:
        return parse_query(self.raw_query, self.go)

    def __str__(self) -> str:
        out = []
        if self.scheme:
            out.append(self.scheme + ":")
        if self.opaque:
            out.append(self.opaque)
        else:
            authority = self.scheme or self.host or self.user is not None
            if authority and not (self.omit_host and not self.host and self.user is None):
                if self.host or self.path or self.user is not None:
                    out.append("//")
                if self.user is not None:
                    name, password = self.user
                    out.append(_escape(name, _USER_PASSWORD))
                    if password is not None:
                        out.append(":" + _escape(password, _USER_PASSWORD))
                    out.append("@")
                if self.host:
                    out.append(_escape(self.host, _HOST))
            path = self.escaped_path()
            if path and path[0] != "/" and self.host:
                out.append("/")
            if not out and ":" in path.partition("/")[0]:
                out.append("./")
            out.append(path)
        if self.force_query or self.raw_query:
            out.append("?" + self.raw_query)
        if self.fragment:
            out.append("#" + self.escaped_fragment())
        return "".join(out)


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if "a" <= c <= "z" or "A" <= c <= "Z":
            continue
        if "0" <= c <= "9" or c in "+-.":
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise ValueError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


_USERINFO_OK = frozenset("-._:~!$&'()*+,;=%@")


def _ip_literal(host: str, open_: int, go: Go) -> str:
    """An IP literal `[…]` (RFC 3986, zones as RFC 6874) from `host`'s `[` at `open_` on."""
    close = host.rfind("]")
    if close < 0:
        raise ValueError("missing ']' in host")
    colon_port = host[close + 1 :]
    if not _valid_optional_port(colon_port):
        raise ValueError(f"invalid port {quote(colon_port)} after host")
    if not go.has(_IP_LITERAL_CHECKED):
        zone = host[:close].find("%25")
        if zone >= 0:
            return (
                _unescape(host[:zone], _HOST)
                + _unescape(host[zone:close], _ZONE)
                + _unescape(host[close:], _HOST)
            )
        return _unescape(host, _HOST)
    hostname = host[open_ + 1 : close]  # a `]` before the `[` left a `[` in colon_port: refused above
    zone = hostname.find("%25")
    if zone >= 0:
        unescaped = _unescape(hostname[:zone], _HOST) + _unescape(hostname[zone:], _ZONE)
    else:
        unescaped = _unescape(hostname, _HOST)
    try:
        addr, _ = netip.parse_addr(unescaped, go)
    except netip.NetipError as exc:
        raise ValueError(f"invalid host: {exc}") from None
    if go.has(_IPV4_MAPPED_OK):
        if addr.version == 4:
            raise ValueError("invalid IP-literal")
    elif addr.version == 4 or netip.is_4in6(addr):
        raise ValueError("invalid IPv6 host")
    return "[" + unescaped + "]" + colon_port


def _port_colon(scheme: str, host: str, go: Go) -> int:
    """Where `host`'s `:port` starts: its last colon, or its first where colons are strict."""
    last = host.rfind(":")
    if last < 0 or not go.has(_STRICT_COLONS) or go.setting("urlstrictcolons") == "0":
        return last
    if go.has(_STRICT_COLONS_WEB):
        strict = scheme in ("http", "https")
    else:
        strict = scheme not in ("postgres", "postgresql")
    return host.find(":") if strict else last


def _parse_host(scheme: str, host: str, go: Go) -> str:
    """Go's `parseHost`: `host[:port]` of an authority, unescaped."""
    if go.has(_IP_LITERAL_CHECKED):
        open_ = host.rfind("[")
        if open_ > 0 and go.has(_BRACKET_FIRST):
            raise ValueError("invalid IP-literal")
        if open_ >= 0:
            return _ip_literal(host, open_, go)
    elif host.startswith("["):
        return _ip_literal(host, 0, go)
    i = _port_colon(scheme, host, go)
    if i != -1 and not _valid_optional_port(host[i:]):
        raise ValueError(f"invalid port {quote(host[i:])} after host")
    return _unescape(host, _HOST)


def _parse_authority(scheme: str, authority: str, go: Go) -> tuple[tuple[str, str | None] | None, str]:
    i = authority.rfind("@")
    host = _parse_host(scheme, authority[i + 1 :] if i >= 0 else authority, go)
    if i < 0:
        return None, host
    userinfo = authority[:i]
    if not all(c.isascii() and (c.isalnum() or c in _USERINFO_OK) for c in userinfo):
        raise ValueError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return (_unescape(userinfo, _USER_PASSWORD), None), host
    name, _, password = userinfo.partition(":")
    return (_unescape(name, _USER_PASSWORD), _unescape(password, _USER_PASSWORD)), host


def _parse(raw: str, via_request: bool, go: Go) -> URL:
    if any(c < " " or c == "\x7f" for c in raw):
        raise ValueError("net/url: invalid control character in URL")
    if raw == "" and via_request:
        raise ValueError("empty url")
    url = URL(go=go)
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query = True
        rest = rest[:-1]
    else:
        rest, _, url.raw_query = rest.partition("?")
    if not rest.startswith("/"):
        if url.scheme:
            url.opaque = rest  # RFC 3986's rootless paths are opaque
            return url
        if via_request:
            raise ValueError("invalid URI for request")
        if ":" in rest.partition("/")[0]:
            raise ValueError("first path segment in URL cannot contain colon")
    if (url.scheme or (not via_request and not rest.startswith("///"))) and rest.startswith("//"):
        authority, slash, tail = rest[2:].partition("/")
        rest = slash + tail
        url.user, url.host = _parse_authority(url.scheme, authority, go)
    elif url.scheme and rest.startswith("/"):
        url.omit_host = True
    url.path = _unescape(rest, _PATH)
    url.raw_path = "" if _escape(url.path, _PATH) == rest else rest
    return url


def parse_request_uri(raw: str, go: Go = NEWEST) -> URL:
    """`url.ParseRequestURI`: an absolute URI or an absolute path, no fragment."""
    try:
        return _parse(raw, True, go)
    except ValueError as exc:
        raise URLError(f"parse {quote(raw)}: {exc}") from None


def parse(raw: str, go: Go = NEWEST) -> URL:
    """`url.Parse`: any URL reference; `#` starts the fragment."""
    u, hash_, frag = raw.partition("#")
    try:
        url = _parse(u, False, go)
    except ValueError as exc:
        raise URLError(f"parse {quote(u)}: {exc}") from None
    if hash_:
        try:
            url.fragment = _unescape(frag, _FRAGMENT)
            url.raw_fragment = "" if _escape(url.fragment, _FRAGMENT) == frag else frag
        except ValueError as exc:
            raise URLError(f"parse {quote(raw)}: {exc}") from None
    return url


def _params_within_max(params: int, go: Go) -> bool:
    """Go's `urlParamsWithinMax` (`_MAX_QUERY_PARAMS`)."""
    if not go.has(_MAX_QUERY_PARAMS):
        return True
    within_default = params <= _DEFAULT_MAX_PARAMS
    custom = atoi(go.setting("urlmaxqueryparams"))
    if custom is None:
        return within_default
    return custom == 0 or params < custom


def parse_query(query: str, go: Go = NEWEST) -> dict[str, list[str]]:
    """`url.ParseQuery`, errors ignored as `URL.Query` does (pairs with `;` or bad escapes skipped;
    nothing at all past the parameter limit)."""
    out: dict[str, list[str]] = {}
    if not _params_within_max(query.count("&") + 1, go):
        return out
    while query:
        key, _, query = query.partition("&")
        if ";" in key or not key:
            continue
        key, _, value = key.partition("=")
        try:
            k = _unescape(key, _QUERY_COMPONENT)
            v = _unescape(value, _QUERY_COMPONENT)
        except ValueError:
            continue
        out.setdefault(k, []).append(v)
    return out
