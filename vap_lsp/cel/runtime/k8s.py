"""Kubernetes CEL libraries at run time (`kubernetes/apiserver pkg/cel/library/*.go`,
`pkg/cel/{quantity,ip,cidr,url,semver,format}.go`): quantity, URL, IP, CIDR, semver, format,
lists, regex, authz, jsonpatch; plus struct values (`Object{…}`, `JSONPatch{…}`)."""

from __future__ import annotations

import base64
import ipaddress
import re
import uuid as _uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cmp_to_key
from typing import Any, Protocol

from vap_lsp.apimachinery import quantity
from vap_lsp.cel.runtime.stdlib import compare
from vap_lsp.cel.runtime.timefmt import parse_timestamp
from vap_lsp.cel.runtime.values import (
    INT64_MAX,
    INT64_MIN,
    NONE,
    CelError,
    Duration,
    LibraryValue,
    Optional,
    UintType,
    Value,
    cel_equals,
    normalize,
    type_name,
)
from vap_lsp.golang import netip, neturl, regexp
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.golang.toolchain import Go

__all__ = [
    "GO_DEPENDENT",
    "IMPLS",
    "Authorizer",
    "AuthorizerValue",
    "AuthzRequest",
    "Decision",
    "StructValue",
    "make_struct",
    "resource_check",
    "wrap_activation_value",
]

Impl = Callable[..., Value]
IMPLS: dict[str, Impl] = {}
GO_DEPENDENT: dict[str, Callable[[Go], Impl]] = {}
"""Overloads that answer as the Go the Kubernetes version is built with (`vap_lsp.golang.toolchain`):
given that Go, the implementation. The URL library's: how `net/url` reads a host changed in Go's
patch releases (`vap_lsp.golang.neturl`). `ip()`/`cidr()` are not here: `net/netip` parses alike in
the Go of every supported Kubernetes (`vap_lsp.golang.netip`)."""

# --- struct values --------------------------------------------------------------------------------


class StructValue(LibraryValue):
    """A message built by `Type{field: value}` (MAP `Object{…}`, `JSONPatch{…}`)."""

    __slots__ = ("fields", "type_name")

    def __init__(self, type_name: str, fields: dict[str, Value]) -> None:
        self.type_name = type_name
        self.fields = fields

    @property
    def cel_type(self) -> str:  # type: ignore[override]
        return self.type_name

    def is_zero_value(self) -> bool:
        """apiserver mutation/dynamic ObjectVal.IsZeroValue: no fields set."""
        return not self.fields

    def get_field(self, name: str) -> Value:
        if name in self.fields:
            return self.fields[name]
        raise CelError(f"no such field '{name}'")

    def has_field(self, name: str) -> bool:
        return name in self.fields

    def equals(self, other: object) -> bool:
        return (
            isinstance(other, StructValue)
            and other.type_name == self.type_name
            and other.fields.keys() == self.fields.keys()
            and all(cel_equals(v, other.fields[k]) for k, v in self.fields.items())
        )

    def __str__(self) -> str:
        return f"{self.type_name}{self.fields}"


_JSONPATCH_FIELDS = frozenset({"op", "path", "from", "value"})


def make_struct(type_name_: str, fields: dict[str, Value]) -> StructValue:
    if type_name_ == "JSONPatch":
        for name in fields:
            if name not in _JSONPATCH_FIELDS:
                raise CelError(f"unexpected JSONPatchType field: {name}")
    return StructValue(type_name_, fields)


# --- quantity -------------------------------------------------------------------------------------


def parse_quantity(text: str) -> Fraction:
    """`resource.ParseQuantity` → exact value (errors are apimachinery's texts, as CEL errors)."""
    try:
        return quantity.parse_quantity(text)
    except quantity.QuantityError as exc:
        raise CelError(str(exc)) from exc


class Quantity(LibraryValue):
    """`resource.Quantity`: its exact value and the format it was parsed in (`BinarySI`,
    `DecimalSI`, `DecimalExponent`), which its text (`String()`) and a sum keep."""

    go_type = "cel.Quantity"

    __slots__ = ("format", "value")
    cel_type = "kubernetes.Quantity"

    def __init__(self, value: Fraction, format: str = "DecimalSI") -> None:
        self.value = value
        self.format = format

    def equals(self, other: object) -> bool:
        return isinstance(other, Quantity) and other.value == self.value

    def __str__(self) -> str:
        return quantity.format_quantity(self.value, format=self.format)


def _quantity(text: str) -> Quantity:
    return Quantity(parse_quantity(text), quantity.quantity_format(text))


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except CelError:
        return False
    return True


def _as_integer(q: Quantity) -> int:
    v = q.value
    if v.denominator != 1 or not INT64_MIN <= v.numerator <= INT64_MAX:
        raise CelError("cannot convert value to integer")
    return v.numerator


def _cmp(a: Fraction, b: Fraction) -> int:
    return -1 if a < b else (1 if a > b else 0)


IMPLS["string_to_quantity"] = _quantity
IMPLS["is_quantity_string"] = _is_quantity
IMPLS["quantity_sign"] = lambda q: _cmp(q.value, Fraction(0))
IMPLS["quantity_is_greater_than"] = lambda a, b: a.value > b.value
IMPLS["quantity_is_less_than"] = lambda a, b: a.value < b.value
IMPLS["quantity_compare_to"] = lambda a, b: _cmp(a.value, b.value)
IMPLS["quantity_get_float"] = lambda q: float(q.value)
IMPLS["quantity_get_int"] = _as_integer
IMPLS["quantity_is_integer"] = lambda q: q.value.denominator == 1 and INT64_MIN <= q.value <= INT64_MAX
# `Quantity.Add`/`Sub` keep the receiver's format
IMPLS["quantity_add"] = lambda a, b: Quantity(a.value + b.value, a.format)
IMPLS["quantity_add_int"] = lambda a, b: Quantity(a.value + b, a.format)
IMPLS["quantity_sub"] = lambda a, b: Quantity(a.value - b.value, a.format)
IMPLS["quantity_sub_int"] = lambda a, b: Quantity(a.value - b, a.format)

# --- URL ------------------------------------------------------------------------------------------


class URL(LibraryValue):
    """`apiservercel.URL`: Go's `*url.URL` as `url.Parse` read it (after `ParseRequestURI`
    accepted the text); two URLs are equal when Go writes them the same (`URL.String()`)."""

    go_type = "cel.URL"

    __slots__ = ("parsed",)
    cel_type = "kubernetes.URL"

    def __init__(self, parsed: neturl.URL) -> None:
        self.parsed = parsed

    def equals(self, other: object) -> bool:
        return isinstance(other, URL) and str(other.parsed) == str(self.parsed)

    def __str__(self) -> str:
        return str(self.parsed)


def _url(go: Go) -> Impl:
    """`stringToUrl`: `url.ParseRequestURI` decides, `url.Parse` reads (urls.go)."""

    def string_to_url(text: str) -> URL:
        try:
            neturl.parse_request_uri(text, go)
            return URL(neturl.parse(text, go))
        except neturl.URLError as exc:
            raise CelError(f"URL parse error during conversion from string: {exc}") from exc

    return string_to_url


def _is_url(go: Go) -> Impl:
    def is_url(text: str) -> bool:
        try:
            neturl.parse_request_uri(text, go)
        except neturl.URLError:
            return False
        return True

    return is_url


GO_DEPENDENT["string_to_url"] = _url
GO_DEPENDENT["is_url_string"] = _is_url
IMPLS["url_get_scheme"] = lambda u: u.parsed.scheme
IMPLS["url_get_host"] = lambda u: u.parsed.host
IMPLS["url_get_hostname"] = lambda u: u.parsed.hostname()
IMPLS["url_get_port"] = lambda u: u.parsed.port()
IMPLS["url_get_escaped_path"] = lambda u: u.parsed.escaped_path()
IMPLS["url_get_query"] = lambda u: u.parsed.query()

# --- IP and CIDR ----------------------------------------------------------------------------------

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _parse_addr(raw: str) -> Address:
    """`parseIPAddr` of the library: Go's `netip.ParseAddr`, then no zone, no IPv4-mapped form."""
    try:
        addr, zone = netip.parse_addr(raw)
    except netip.NetipError as exc:
        raise CelError(
            f"IP Address {go_quote(raw)} parse error during conversion from string: {exc}"
        ) from exc
    if zone:
        raise CelError(f"IP address {go_quote(raw)} with zone value is not allowed")
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return addr


class IP(LibraryValue):
    go_type = "cel.IP"
    __slots__ = ("addr",)
    cel_type = "net.IP"

    def __init__(self, addr: Address) -> None:
        self.addr = addr

    def equals(self, other: object) -> bool:
        return isinstance(other, IP) and other.addr == self.addr

    def to_cel_string(self) -> str:
        return str(self.addr)

    __str__ = to_cel_string


def _is_ip(raw: str) -> bool:
    try:
        _parse_addr(raw)
    except CelError:
        return False
    return True


def _is_canonical(raw: str) -> bool:
    return str(_parse_addr(raw)) == raw


def _link_local_multicast(a: Address) -> bool:
    if isinstance(a, ipaddress.IPv4Address):
        return a in ipaddress.ip_network("224.0.0.0/24")
    return a in ipaddress.ip_network("ff02::/16")


def _global_unicast(a: Address) -> bool:
    if a.is_unspecified or a.is_loopback or a.is_multicast or a.is_link_local:
        return False
    return not (isinstance(a, ipaddress.IPv4Address) and a == ipaddress.IPv4Address("255.255.255.255"))


IMPLS["string_to_ip"] = lambda s: IP(_parse_addr(s))
IMPLS["is_ip"] = _is_ip
IMPLS["ip_is_canonical"] = _is_canonical
IMPLS["ip_family"] = lambda ip: ip.addr.version
IMPLS["ip_is_unspecified"] = lambda ip: ip.addr.is_unspecified
IMPLS["ip_is_loopback"] = lambda ip: ip.addr.is_loopback
IMPLS["ip_is_link_local_multicast"] = lambda ip: _link_local_multicast(ip.addr)
IMPLS["ip_is_link_local_unicast"] = lambda ip: ip.addr.is_link_local
IMPLS["ip_is_global_unicast"] = lambda ip: _global_unicast(ip.addr)
IMPLS["ip_to_string"] = lambda ip: str(ip.addr)


class CIDR(LibraryValue):
    go_type = "cel.CIDR"
    __slots__ = ("addr", "prefix")
    cel_type = "net.CIDR"

    def __init__(self, addr: Address, prefix: int) -> None:
        self.addr = addr
        self.prefix = prefix

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        return ipaddress.ip_network(f"{self.addr}/{self.prefix}", strict=False)

    def equals(self, other: object) -> bool:
        return isinstance(other, CIDR) and (other.addr, other.prefix) == (self.addr, self.prefix)

    def to_cel_string(self) -> str:
        return f"{self.addr}/{self.prefix}"

    __str__ = to_cel_string


_CIDR_ERROR = "network address parse error during conversion from string: "


def _parse_cidr(raw: str) -> CIDR:
    """`parseCIDR` of the library: Go's `netip.ParsePrefix`, then no IPv4-mapped address."""
    try:
        addr, bits = netip.parse_prefix(raw)
    except netip.NetipError as exc:
        raise CelError(f"{_CIDR_ERROR}{exc}") from exc
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelError(f"IPv4-mapped IPv6 address {go_quote(raw)} is not allowed")
    return CIDR(addr, bits)


def _string_to_cidr(raw: str) -> CIDR:
    """`stringToCIDR` wraps parseCIDR's error in the same prefix again (the server says it twice)."""
    try:
        return _parse_cidr(raw)
    except CelError as exc:
        raise CelError(f"{_CIDR_ERROR}{exc.message}") from exc


def _is_cidr(raw: str) -> bool:
    try:
        _parse_cidr(raw)
    except CelError:
        return False
    return True


def _contains_ip(c: CIDR, ip: Value) -> bool:
    addr = ip.addr if isinstance(ip, IP) else _parse_addr(ip)
    return addr.version == c.addr.version and addr in c.network


def _contains_cidr(c: CIDR, other: Value) -> bool:
    o = other if isinstance(other, CIDR) else _string_to_cidr(other)
    if o.addr.version != c.addr.version or o.prefix < c.prefix:
        return False
    return o.addr in c.network


IMPLS["string_to_cidr"] = _string_to_cidr
IMPLS["is_cidr"] = _is_cidr
IMPLS["cidr_contains_ip_string"] = _contains_ip
IMPLS["cidr_contains_ip_ip"] = _contains_ip
IMPLS["cidr_contains_cidr_string"] = _contains_cidr
IMPLS["cidr_contains_cidr"] = _contains_cidr
IMPLS["cidr_ip"] = lambda c: IP(c.addr)
IMPLS["cidr_prefix_length"] = lambda c: c.prefix
IMPLS["cidr_masked"] = lambda c: CIDR(c.network.network_address, c.prefix)
IMPLS["cidr_is_mask"] = lambda c: c.addr == c.network.network_address  # `Prefix == Prefix.Masked()`
IMPLS["cidr_to_string"] = lambda c: c.to_cel_string()

# --- semver ---------------------------------------------------------------------------------------


class Semver(LibraryValue):
    go_type = "cel.Semver"
    __slots__ = ("build", "major", "minor", "patch", "pre")
    cel_type = "kubernetes.Semver"

    def __init__(
        self, major: int, minor: int, patch: int, pre: tuple[str, ...], build: tuple[str, ...] = ()
    ) -> None:
        self.major, self.minor, self.patch, self.pre = major, minor, patch, pre
        self.build = build  # kept for the text only: comparisons ignore it, as blang's do

    def equals(self, other: object) -> bool:
        return isinstance(other, Semver) and _semver_cmp(self, other) == 0

    def __str__(self) -> str:
        """blang/semver `Version.String()`: `1.2.3-rc.1+build.5`."""
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def _num(part: str, what: str) -> int:
    if not part.isdigit() or not part.isascii():
        raise CelError(f'Invalid character(s) found in {what} number "{part}"')
    if len(part) > 1 and part.startswith("0"):
        raise CelError(f'{what.capitalize()} number must not contain leading zeroes "{part}"')
    return int(part)


_IDENT_RE = re.compile(r"[0-9A-Za-z-]+\Z")


def parse_semver(text: str) -> Semver:
    """blang/semver v4 `Parse` (error texts as blang's)."""
    if not text:
        raise CelError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    major = _num(parts[0], "major")
    minor = _num(parts[1], "minor")
    rest = parts[2]
    idx = next((i for i, c in enumerate(rest) if c in "+-"), len(rest))
    patch = _num(rest[:idx], "patch")
    build = ""
    pre: tuple[str, ...] = ()
    tail = rest[idx:]
    pre_text, plus, build = tail.partition("+")
    if pre_text.startswith("-"):
        pre = tuple(pre_text[1:].split("."))
        for p in pre:
            if not p:
                raise CelError("Prerelease is empty")
            if not _IDENT_RE.match(p):
                raise CelError(f'Invalid character(s) found in prerelease "{p}"')
            if p.isdigit() and len(p) > 1 and p.startswith("0"):
                raise CelError(f'Numeric PreRelease version must not contain leading zeroes "{p}"')
    if plus:
        for b in build.split("."):
            if not b:
                raise CelError("Build meta data is empty")
            if not _IDENT_RE.match(b):
                raise CelError(f'Invalid character(s) found in build meta data "{b}"')
    return Semver(major, minor, patch, pre, tuple(build.split(".")) if plus else ())


def _normalize_semver(text: str) -> Semver:
    s = text.removeprefix("v")
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or not p[0].isdigit():
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise CelError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))


def _semver_cmp(a: Semver, b: Semver) -> int:
    for x, y in ((a.major, b.major), (a.minor, b.minor), (a.patch, b.patch)):
        if x != y:
            return -1 if x < y else 1
    if not a.pre or not b.pre:
        if a.pre == b.pre:
            return 0
        return 1 if not a.pre else -1
    for px, py in zip(a.pre, b.pre, strict=False):
        if px == py:
            continue
        xn, yn = px.isdigit(), py.isdigit()
        if xn and yn:
            return -1 if int(px) < int(py) else 1
        if xn != yn:
            return -1 if xn else 1
        return -1 if px < py else 1
    if len(a.pre) == len(b.pre):
        return 0
    return -1 if len(a.pre) < len(b.pre) else 1


def _semver(text: str, normalize_: bool = False) -> Semver:
    return _normalize_semver(text) if normalize_ else parse_semver(text)


def _is_semver(text: str, normalize_: bool = False) -> bool:
    try:
        _semver(text, normalize_)
    except CelError:
        return False
    return True


IMPLS["string_to_semver"] = _semver
IMPLS["string_bool_to_semver"] = _semver
IMPLS["is_semver_string"] = _is_semver
IMPLS["is_semver_string_bool"] = _is_semver
IMPLS["semver_is_greater_than"] = lambda a, b: _semver_cmp(a, b) > 0
IMPLS["semver_is_less_than"] = lambda a, b: _semver_cmp(a, b) < 0
IMPLS["semver_compare_to"] = _semver_cmp
IMPLS["semver_major"] = lambda v: v.major
IMPLS["semver_minor"] = lambda v: v.minor
IMPLS["semver_patch"] = lambda v: v.patch

# --- format ---------------------------------------------------------------------------------------

_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\Z")
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def _policy_names() -> Any:  # apimachinery validators, shared with the policy rules
    from vap_lsp.apimachinery import names

    return names


def _uri_errors(s: str, go: Go) -> list[str]:
    try:
        neturl.parse_request_uri(s, go)
    except neturl.URLError as exc:
        return [str(exc)]
    return []


def _byte_errors(s: str) -> list[str]:
    try:
        base64.b64decode(s, validate=True)
    except ValueError:
        return ["invalid base64"]
    return []


def _date_errors(s: str) -> list[str]:
    import datetime as dt

    if _DATE_RE.match(s):
        try:
            dt.date.fromisoformat(s)
            return []
        except ValueError:
            pass
    return ["invalid date"]


def _datetime_errors(s: str) -> list[str]:
    return [] if parse_timestamp(s) is not None else ["invalid datetime"]


def _uuid_errors(s: str) -> list[str]:
    if _UUID_RE.match(s):
        try:
            _uuid.UUID(s)
            return []
        except ValueError:
            pass
    return ["does not match the UUID format"]


Check = Callable[[str, Go], list[str]]
"""A named format's validation of a string, as kube-apiserver built with a Go does it."""


def _prefixed(check: Callable[[str], list[str]]) -> Check:
    return lambda s, go: check(_policy_names().mask_trailing_dash(s))


def _any_go(check: Callable[[str], list[str]]) -> Check:
    return lambda s, go: check(s)


_FORMATS: dict[str, tuple[str, Check, int]] = {
    "dns1123Label": ("DNS1123Label", _any_go(lambda s: _policy_names().is_dns1123_label(s)), 30),
    "dns1123Subdomain": ("DNS1123Subdomain", _any_go(lambda s: _policy_names().is_dns1123_subdomain(s)), 60),
    "dns1035Label": ("DNS1035Label", _any_go(lambda s: _policy_names().is_dns1035_label(s)), 30),
    "qualifiedName": ("QualifiedName", _any_go(lambda s: _policy_names().is_qualified_name(s, 34)), 60),
    "dns1123LabelPrefix": (
        "DNS1123LabelPrefix",
        _prefixed(lambda s: _policy_names().is_dns1123_label(s)),
        30,
    ),
    "dns1123SubdomainPrefix": (
        "DNS1123SubdomainPrefix",
        _prefixed(lambda s: _policy_names().is_dns1123_subdomain(s)),
        60,
    ),
    "dns1035LabelPrefix": (
        "DNS1035LabelPrefix",
        _prefixed(lambda s: _policy_names().is_dns1035_label(s)),
        30,
    ),
    "labelValue": ("LabelValue", _any_go(lambda s: _policy_names().is_valid_label_value(s, 34)), 40),
    "uri": ("URI", _uri_errors, 1103),
    "uuid": ("uuid", _any_go(_uuid_errors), 60),
    "byte": ("byte", _any_go(_byte_errors), 84),
    "date": ("date", _any_go(_date_errors), 70),
    "datetime": ("datetime", _any_go(_datetime_errors), 70),
}


class NamedFormat(LibraryValue):
    go_type = "cel.Format"
    __slots__ = ("max_regex_size", "name", "validate")
    cel_type = "kubernetes.NamedFormat"

    def __init__(self, name: str, validate: Check, max_regex_size: int) -> None:
        self.name = name
        self.validate = validate
        self.max_regex_size = max_regex_size

    def equals(self, other: object) -> bool:
        return isinstance(other, NamedFormat) and other.name == self.name

    def __str__(self) -> str:
        return f"format {self.name}"


_FORMAT_VALUES = {key: NamedFormat(*spec) for key, spec in _FORMATS.items()}


def _format_validate(go: Go) -> Impl:
    def validate(f: NamedFormat, s: str) -> Optional:
        errors = f.validate(s, go)
        return Optional(list(errors)) if errors else NONE

    return validate


GO_DEPENDENT["format-validate"] = _format_validate
IMPLS["format-named"] = lambda name: Optional(_FORMAT_VALUES[name]) if name in _FORMAT_VALUES else NONE
for _key, _value in _FORMAT_VALUES.items():
    IMPLS[f"format.{_key}"] = (lambda v: lambda: v)(_value)

# --- lists ----------------------------------------------------------------------------------------


def _is_sorted(lst: Value) -> bool:
    return all(compare(lst[i], lst[i + 1]) <= 0 for i in range(len(lst) - 1))


def _sum(zero: Value) -> Impl:
    from vap_lsp.cel.runtime.stdlib import IMPLS as STD

    def impl(lst: Value) -> Value:
        if not lst:
            return zero
        total = lst[0]
        for x in lst[1:]:
            if type(total) is int:
                total = STD["add_int64"](total, x)
            elif type(total) is float:
                total = total + x
            elif type(total).__name__ == "Duration":
                total = STD["add_duration_duration"](total, x)
            else:
                total = STD["add_uint64"](total, x)
        return total

    return impl


def _extreme(name: str, sign: int) -> Impl:
    def impl(lst: Value) -> Value:
        if not lst:
            raise CelError(f"{name} called on empty list")
        best = lst[0]
        for x in lst[1:]:
            if compare(best, x) == sign:
                best = x
        return best

    return impl


def _index_of(lst: Value, item: Value) -> int:
    return next((i for i, x in enumerate(lst) if cel_equals(x, item)), -1)


def _last_index_of(lst: Value, item: Value) -> int:
    for i in range(len(lst) - 1, -1, -1):
        if cel_equals(lst[i], item):
            return i
    return -1


def _includes(container: Value, item: Value) -> bool:
    if isinstance(container, (list, tuple)):
        return any(cel_equals(x, item) for x in container)
    if type(container) is str and type(item) is str:
        return item in container
    return cel_equals(container, item)


for _t, _zero in (("int", 0), ("uint", UintType(0)), ("double", 0.0), ("duration", Duration(0))):
    IMPLS[f"list_{_t}_sum_{_t}"] = _sum(_zero)
for _t in ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"):
    IMPLS[f"list_{_t}_is_sorted_bool"] = _is_sorted
    IMPLS[f"list_{_t}_max_{_t}"] = _extreme("max", -1)
    IMPLS[f"list_{_t}_min_{_t}"] = _extreme("min", 1)
IMPLS["list_a_index_of_int"] = _index_of
IMPLS["list_a_last_index_of_int"] = _last_index_of
IMPLS["list_includes_dyn_dyn"] = _includes

# --- regex ----------------------------------------------------------------------------------------


def _regex(pattern: str) -> Any:
    """`regexp.Compile` as the library calls it: `Illegal regex: <Go's error>`."""
    try:
        return regexp.compile(pattern)
    except regexp.RegexpError as exc:
        raise CelError(f"Illegal regex: {exc}") from exc


def _find(s: str, pattern: str) -> str:
    m = _regex(pattern).search(s)
    return m.group(0) if m is not None else ""


def _find_all(s: str, pattern: str, n: int = -1) -> list[str]:
    return regexp.find_all(_regex(pattern), s, n)


IMPLS["string_find_string"] = _find
IMPLS["string_find_all_string"] = _find_all
IMPLS["string_find_all_string_int"] = _find_all

# --- jsonpatch ------------------------------------------------------------------------------------

IMPLS["string_jsonpatch_escapeKey_string"] = lambda k: k.replace("~", "~0").replace("/", "~1")

# --- authz ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuthzRequest:
    """What `check(verb)` asks the authorizer (Kubernetes `authorizer.AttributesRecord`)."""

    verb: str
    path: str = ""
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""
    service_account: tuple[str, str] | None = None
    """(namespace, name) when checked as `authorizer.serviceAccount(ns, name)`."""


@dataclass(frozen=True)
class Decision:
    """The authorizer's answer: allowed (else denied/no opinion), its reason, an error."""

    allowed: bool
    reason: str = ""
    error: str = ""


class Authorizer(Protocol):
    """Supplied by the caller; never touches the network on our behalf."""

    def authorize(self, request: AuthzRequest) -> Decision: ...


class AuthorizerValue(LibraryValue):
    go_type = "library.authorizerVal"
    __slots__ = ("impl", "service_account")
    cel_type = "kubernetes.authorization.Authorizer"

    def __init__(self, impl: Authorizer, service_account: tuple[str, str] | None = None) -> None:
        self.impl = impl
        self.service_account = service_account

    def __str__(self) -> str:
        # the authorizer values have no JSON form: their texts say what they are
        if self.service_account is not None:
            return "authorizer for service account {}/{}".format(*self.service_account)
        return "authorizer"


class PathCheck(LibraryValue):
    go_type = "library.pathCheckVal"
    __slots__ = ("authz", "path")
    cel_type = "kubernetes.authorization.PathCheck"

    def __init__(self, authz: AuthorizerValue, path: str) -> None:
        self.authz, self.path = authz, path

    def __str__(self) -> str:
        return f"path check {self.path}"


class GroupCheck(LibraryValue):
    go_type = "library.groupCheckVal"
    __slots__ = ("authz", "group")
    cel_type = "kubernetes.authorization.GroupCheck"

    def __init__(self, authz: AuthorizerValue, group: str) -> None:
        self.authz, self.group = authz, group

    def __str__(self) -> str:
        return f"group check {self.group}"


@dataclass(frozen=True)
class ResourceCheck(LibraryValue):
    go_type = "library.resourceCheckVal"
    authz: AuthorizerValue
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    field_selector: str = ""
    label_selector: str = ""
    cel_type = "kubernetes.authorization.ResourceCheck"

    def __str__(self) -> str:
        resource = self.resource + (f"/{self.subresource}" if self.subresource else "")
        where = f" in {self.namespace}" if self.namespace else ""
        name = f" named {self.name}" if self.name else ""
        return f"resource check {self.group}/{resource}{where}{name}".replace("check /", "check ")


class DecisionValue(LibraryValue):
    go_type = "library.decisionVal"
    __slots__ = ("decision",)
    cel_type = "kubernetes.authorization.Decision"

    def __init__(self, decision: Decision) -> None:
        self.decision = decision

    def __str__(self) -> str:
        d = self.decision
        text = "decision: " + ("allowed" if d.allowed else "denied")
        if d.reason:
            text += f" ({d.reason})"
        return text + (f", error: {d.error}" if d.error else "")


def _check(authz: AuthorizerValue, request: AuthzRequest) -> DecisionValue:
    try:
        decision = authz.impl.authorize(request)
    except Exception as exc:  # the caller's authorizer failing is an errored decision
        decision = Decision(False, "", str(exc))
    return DecisionValue(decision)


def _path(a: AuthorizerValue, path: str) -> PathCheck:
    if not path:
        raise CelError("path must not be empty")
    return PathCheck(a, path)


def _service_account(a: AuthorizerValue, namespace: str, name: str) -> AuthorizerValue:
    names = _policy_names()
    if names.is_dns1123_label(namespace):
        raise CelError("Invalid service account namespace")
    if names.is_dns1123_subdomain(name):
        raise CelError("Invalid service account name")
    return AuthorizerValue(a.impl, (namespace, name))


def _resource(g: GroupCheck, resource: str) -> ResourceCheck:
    if not resource:
        raise CelError("resource must not be empty")
    return ResourceCheck(g.authz, g.group, resource)


def _with(field_name: str) -> Impl:
    def impl(r: ResourceCheck, value: str) -> ResourceCheck:
        from dataclasses import replace

        return replace(r, **{field_name: value})  # type: ignore[arg-type]

    return impl


IMPLS["authorizer_path"] = _path
IMPLS["authorizer_group"] = lambda a, g: GroupCheck(a, g)
IMPLS["authorizer_serviceaccount"] = _service_account
IMPLS["groupcheck_resource"] = _resource
IMPLS["resourcecheck_subresource"] = _with("subresource")
IMPLS["resourcecheck_namespace"] = _with("namespace")
IMPLS["resourcecheck_name"] = _with("name")
IMPLS["authorizer_fieldselector"] = _with("field_selector")
IMPLS["authorizer_labelselector"] = _with("label_selector")
IMPLS["pathcheck_check"] = lambda p, verb: _check(
    p.authz, AuthzRequest(verb=verb, path=p.path, service_account=p.authz.service_account)
)
IMPLS["resourcecheck_check"] = lambda r, verb: _check(
    r.authz,
    AuthzRequest(
        verb=verb,
        group=r.group,
        resource=r.resource,
        subresource=r.subresource,
        namespace=r.namespace,
        name=r.name,
        field_selector=r.field_selector,
        label_selector=r.label_selector,
        service_account=r.authz.service_account,
    ),
)
IMPLS["decision_allowed"] = lambda d: d.decision.allowed
IMPLS["decision_reason"] = lambda d: d.decision.reason
IMPLS["decision_errored"] = lambda d: bool(d.decision.error)
IMPLS["decision_error"] = lambda d: d.decision.error


def resource_check(
    authorizer: Authorizer,
    group: str,
    resource: str,
    subresource: str = "",
    namespace: str = "",
    name: str = "",
) -> ResourceCheck:
    """The value of `authorizer.requestResource` for a request (built by the admission layer)."""
    return ResourceCheck(AuthorizerValue(authorizer), group, resource, subresource, namespace, name)


def wrap_activation_value(v: object) -> Value:
    """An activation value: an `Authorizer` implementation becomes the CEL authorizer object;
    anything else is normalised as JSON-shaped data."""
    if not isinstance(v, LibraryValue) and hasattr(v, "authorize"):
        return AuthorizerValue(v)
    return normalize(v)


_ = (Mapping, field, cmp_to_key, type_name)
