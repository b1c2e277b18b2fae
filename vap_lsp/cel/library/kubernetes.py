"""Kubernetes CEL libraries (`kubernetes/apiserver pkg/cel/library/*.go`).

Each library is gated by the `IntroducedVersion` of its `base.go` option (see `decls`):
URLs, Regex, Lists v0 always; Authz 1.27; Quantity 1.28; IP and CIDR 1.30; Format 1.31;
AuthzSelectors 1.31 (also behind the `AuthorizeWithSelectors` gate in 1.31–1.36: alpha/off in
1.31, beta/on from 1.32 — with default gates the version rule gives the same answer); Semver v1
1.33 (v0 and the v1 normalize overloads arrive together); Lists v1 (`includes`) 1.37; CIDR v1
(`isMask`) 1.38 (1.38.0-beta.0: `library.CIDR(library.CIDRVersion(1))` at 1.38, v0 removed there).
JSONPatch is declared only for MAP mutation expressions (`compile.go hasPatchTypes`), in every
binary that has MAP (1.32+), in both environments.
"""

from __future__ import annotations

from vap_lsp.cel import types as t
from vap_lsp.cel.library.decls import (
    BASE_TYPES,
    Library,
    NamedTypes,
    Row,
    Since,
    build_overloads,
    templated,
)

# Library types. Object (struct) types unless the Go code uses cel.OpaqueType; the difference
# matters for `null` assignability only via cel-go's legacy rule, which accepts both.
URL = t.ObjectType("kubernetes.URL")
QUANTITY = t.ObjectType("kubernetes.Quantity")
SEMVER = t.ObjectType("kubernetes.Semver")
NAMED_FORMAT = t.ObjectType("kubernetes.NamedFormat")
IP = t.opaque("net.IP")
CIDR = t.opaque("net.CIDR")
AUTHORIZER = t.ObjectType("kubernetes.authorization.Authorizer")
PATH_CHECK = t.ObjectType("kubernetes.authorization.PathCheck")
GROUP_CHECK = t.ObjectType("kubernetes.authorization.GroupCheck")
RESOURCE_CHECK = t.ObjectType("kubernetes.authorization.ResourceCheck")
DECISION = t.ObjectType("kubernetes.authorization.Decision")

LIBRARY_TYPES: dict[str, t.Type] = {
    typ.name: typ
    for typ in (
        URL,
        QUANTITY,
        SEMVER,
        NAMED_FORMAT,
        IP,
        CIDR,
        AUTHORIZER,
        PATH_CHECK,
        GROUP_CHECK,
        RESOURCE_CHECK,
        DECISION,
    )
}

# Signatures below may use the short names (`Quantity`, `ResourceCheck`); messages print full ones.
_NAMED = NamedTypes(
    {**BASE_TYPES, **LIBRARY_TYPES, **{n.rsplit(".", 1)[-1]: typ for n, typ in LIBRARY_TYPES.items()}}
)


def _library(
    name: str, source: str, rows: list[Row], since: Since, *, patch_types_only: bool = False
) -> Library:
    return Library(
        name=name,
        source=source,
        overloads=build_overloads(name, _NAMED, rows, since),
        patch_types_only=patch_types_only,
    )


URLS = _library(
    "kubernetes.urls",
    "kubernetes/apiserver pkg/cel/library/urls.go",
    [
        (
            "string_to_url",
            "url(string) -> URL",
            "parses an absolute URI or absolute path (error if invalid)",
        ),
        ("url_get_scheme", "<URL>.getScheme() -> string", "the scheme, '' if absent"),
        (
            "url_get_host",
            "<URL>.getHost() -> string",
            "host and port ('[::1]:80' keeps IPv6 brackets)",
        ),
        (
            "url_get_hostname",
            "<URL>.getHostname() -> string",
            "the host without port or IPv6 brackets",
        ),
        ("url_get_port", "<URL>.getPort() -> string", "the port, '' if absent"),
        ("url_get_escaped_path", "<URL>.getEscapedPath() -> string", "the escaped path"),
        (
            "url_get_query",
            "<URL>.getQuery() -> map(string, list(string))",
            "query parameters by name",
        ),
        ("is_url_string", "isURL(string) -> bool", "whether url() would accept the string"),
    ],
    Since(),
)

REGEX = _library(
    "kubernetes.regex",
    "kubernetes/apiserver pkg/cel/library/regex.go",
    [
        ("string_find_string", "<string>.find(string) -> string", "the first match of the regex, '' if none"),
        ("string_find_all_string", "<string>.findAll(string) -> list(string)", "all matches of the regex"),
        (
            "string_find_all_string_int",
            "<string>.findAll(string, int) -> list(string)",
            "at most n matches of the regex (n < 0: all)",
        ),
    ],
    Since(),
)

# lists.go: comparableTypes / summableTypes, ids use the short type names.
_COMPARABLE = ["int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"]
_SUMMABLE = ["int", "uint", "double", "duration"]

LISTS = _library(
    "kubernetes.lists",
    "kubernetes/apiserver pkg/cel/library/lists.go",
    [
        *templated(
            [
                (
                    "list_{id}_is_sorted_bool",
                    "<list({T})>.isSorted() -> bool",
                    "whether a list of {T} is ascending",
                )
            ],
            _COMPARABLE,
        ),
        *templated(
            [("list_{id}_sum_{id}", "<list({T})>.sum() -> {T}", "sum of a list of {T} (0 if empty)")],
            _SUMMABLE,
        ),
        *templated(
            [
                (
                    "list_{id}_max_{id}",
                    "<list({T})>.max() -> {T}",
                    "largest element of a list of {T} (error if empty)",
                )
            ],
            _COMPARABLE,
        ),
        *templated(
            [
                (
                    "list_{id}_min_{id}",
                    "<list({T})>.min() -> {T}",
                    "smallest element of a list of {T} (error if empty)",
                )
            ],
            _COMPARABLE,
        ),
        ("list_a_index_of_int", "<list(A)>.indexOf(A) -> int", "index of the first equal element, or -1"),
        (
            "list_a_last_index_of_int",
            "<list(A)>.lastIndexOf(A) -> int",
            "index of the last equal element, or -1",
        ),
        (
            "list_includes_dyn_dyn",
            "<dyn>.includes(dyn) -> bool",
            "whether a list contains the element, or a value equals it",
            Since(compat=37),
        ),
    ],
    Since(),
)

AUTHZ = _library(
    "kubernetes.authz",
    "kubernetes/apiserver pkg/cel/library/authz.go",
    [
        (
            "authorizer_path",
            "<Authorizer>.path(string) -> PathCheck",
            "an authorization check for a non-resource URL path",
        ),
        (
            "authorizer_group",
            "<Authorizer>.group(string) -> GroupCheck",
            "an authorization check for an API group",
        ),
        (
            "authorizer_serviceaccount",
            "<Authorizer>.serviceAccount(string, string) -> Authorizer",
            "an authorizer for the service account (namespace, name)",
        ),
        (
            "groupcheck_resource",
            "<GroupCheck>.resource(string) -> ResourceCheck",
            "an authorization check for a resource of the group",
        ),
        (
            "resourcecheck_subresource",
            "<ResourceCheck>.subresource(string) -> ResourceCheck",
            "restricts the check to a subresource",
        ),
        (
            "resourcecheck_namespace",
            "<ResourceCheck>.namespace(string) -> ResourceCheck",
            "restricts the check to a namespace",
        ),
        (
            "resourcecheck_name",
            "<ResourceCheck>.name(string) -> ResourceCheck",
            "restricts the check to an object name",
        ),
        (
            "pathcheck_check",
            "<PathCheck>.check(string) -> Decision",
            "runs the authorization check for a verb (cost 350,000)",
        ),
        (
            "resourcecheck_check",
            "<ResourceCheck>.check(string) -> Decision",
            "runs the authorization check for a verb (cost 350,000)",
        ),
        (
            "decision_errored",
            "<Decision>.errored() -> bool",
            "whether the authorization check failed with an error",
        ),
        (
            "decision_error",
            "<Decision>.error() -> string",
            "the error of the authorization check, '' if none",
        ),
        (
            "decision_allowed",
            "<Decision>.allowed() -> bool",
            "whether the authorizer allowed the request",
        ),
        (
            "decision_reason",
            "<Decision>.reason() -> string",
            "the authorizer's reason for the decision",
        ),
    ],
    Since(compat=27),
)

AUTHZ_SELECTORS = _library(
    "kubernetes.authzSelectors",
    "kubernetes/apiserver pkg/cel/library/authz.go (AuthzSelectors)",
    [
        (
            "authorizer_fieldselector",
            "<ResourceCheck>.fieldSelector(string) -> ResourceCheck",
            "restricts the check to objects matching a field selector",
        ),
        (
            "authorizer_labelselector",
            "<ResourceCheck>.labelSelector(string) -> ResourceCheck",
            "restricts the check to objects matching a label selector",
        ),
    ],
    Since(compat=31),
)

QUANTITY_LIB = _library(
    "kubernetes.quantity",
    "kubernetes/apiserver pkg/cel/library/quantity.go",
    [
        (
            "string_to_quantity",
            "quantity(string) -> Quantity",
            "parses a resource quantity such as '1.5Gi'",
        ),
        ("is_quantity_string", "isQuantity(string) -> bool", "whether quantity() would accept the string"),
        (
            "quantity_sign",
            "sign(Quantity) -> int",
            "-1, 0 or 1 (a global function: write sign(q), not q.sign())",
        ),
        (
            "quantity_is_greater_than",
            "<Quantity>.isGreaterThan(Quantity) -> bool",
            "whether this quantity is larger",
        ),
        (
            "quantity_is_less_than",
            "<Quantity>.isLessThan(Quantity) -> bool",
            "whether this quantity is smaller",
        ),
        (
            "quantity_compare_to",
            "<Quantity>.compareTo(Quantity) -> int",
            "-1, 0 or 1 comparing two quantities",
        ),
        (
            "quantity_get_float",
            "<Quantity>.asApproximateFloat() -> double",
            "the quantity as a (possibly rounded) double",
        ),
        (
            "quantity_get_int",
            "<Quantity>.asInteger() -> int",
            "the quantity as an int (error if not exact)",
        ),
        (
            "quantity_is_integer",
            "<Quantity>.isInteger() -> bool",
            "whether asInteger() would succeed",
        ),
        (
            "quantity_add",
            "<Quantity>.add(Quantity) -> Quantity",
            "the sum of two quantities",
        ),
        ("quantity_add_int", "<Quantity>.add(int) -> Quantity", "adds an integer"),
        (
            "quantity_sub",
            "<Quantity>.sub(Quantity) -> Quantity",
            "the difference of two quantities",
        ),
        ("quantity_sub_int", "<Quantity>.sub(int) -> Quantity", "subtracts an integer"),
    ],
    Since(compat=28),
)

IP_LIB = _library(
    "kubernetes.ip",
    "kubernetes/apiserver pkg/cel/library/ip.go",
    [
        (
            "string_to_ip",
            "ip(string) -> net.IP",
            "parses an IPv4 or IPv6 address (no zones, no IPv4-mapped IPv6)",
        ),
        ("ip_family", "<net.IP>.family() -> int", "4 or 6"),
        (
            "ip_is_canonical",
            "ip.isCanonical(string) -> bool",
            "whether the address string is in canonical form",
        ),
        ("ip_is_unspecified", "<net.IP>.isUnspecified() -> bool", "whether the address is 0.0.0.0 or ::"),
        ("ip_is_loopback", "<net.IP>.isLoopback() -> bool", "whether the address is a loopback address"),
        (
            "ip_is_link_local_multicast",
            "<net.IP>.isLinkLocalMulticast() -> bool",
            "whether the address is link-local multicast",
        ),
        (
            "ip_is_link_local_unicast",
            "<net.IP>.isLinkLocalUnicast() -> bool",
            "whether the address is link-local unicast",
        ),
        (
            "ip_is_global_unicast",
            "<net.IP>.isGlobalUnicast() -> bool",
            "whether the address is global unicast",
        ),
        ("is_ip", "isIP(string) -> bool", "whether ip() would accept the string"),
        ("ip_to_string", "string(net.IP) -> string", "the address in canonical form"),
    ],
    Since(compat=30),
)

CIDR_LIB = _library(
    "kubernetes.cidr",
    "kubernetes/apiserver pkg/cel/library/cidr.go",
    [
        ("string_to_cidr", "cidr(string) -> net.CIDR", "parses a CIDR such as '10.0.0.0/8'"),
        (
            "cidr_contains_ip_string",
            "<net.CIDR>.containsIP(string) -> bool",
            "whether the range contains the address",
        ),
        (
            "cidr_contains_ip_ip",
            "<net.CIDR>.containsIP(net.IP) -> bool",
            "whether the range contains the address",
        ),
        (
            "cidr_contains_cidr_string",
            "<net.CIDR>.containsCIDR(string) -> bool",
            "whether the range contains the other range",
        ),
        (
            "cidr_contains_cidr",
            "<net.CIDR>.containsCIDR(net.CIDR) -> bool",
            "whether the range contains the other range",
        ),
        ("cidr_ip", "<net.CIDR>.ip() -> net.IP", "the address part of the CIDR"),
        ("cidr_prefix_length", "<net.CIDR>.prefixLength() -> int", "the prefix length"),
        ("cidr_masked", "<net.CIDR>.masked() -> net.CIDR", "the CIDR with host bits cleared"),
        (
            "cidr_is_mask",
            "<net.CIDR>.isMask() -> bool",
            "whether no bit after the prefix is set (a subnet, not an interface address)",
            Since(compat=38),  # CIDR library v1 (v0.38.0-beta.0 base.go, cidr.go cidrLibraryDeclsV1)
        ),
        ("is_cidr", "isCIDR(string) -> bool", "whether cidr() would accept the string"),
        ("cidr_to_string", "string(net.CIDR) -> string", "the CIDR in canonical form"),
    ],
    Since(compat=30),
)

# format.go ConstantFormats: each is a zero-argument global function `format.<name>()`.
_FORMATS = [
    ("dns1123Label", "a DNS-1123 label (e.g. a namespace name)"),
    ("dns1123Subdomain", "a DNS-1123 subdomain (e.g. most object names)"),
    ("dns1035Label", "a DNS-1035 label (e.g. a service name)"),
    ("qualifiedName", "a qualified name such as a label key"),
    ("dns1123LabelPrefix", "a DNS-1123 label prefix (generateName)"),
    ("dns1123SubdomainPrefix", "a DNS-1123 subdomain prefix (generateName)"),
    ("dns1035LabelPrefix", "a DNS-1035 label prefix (generateName)"),
    ("labelValue", "a label value"),
    ("uri", "a URI"),
    ("uuid", "a UUID"),
    ("byte", "base64-encoded bytes"),
    ("date", "an RFC 3339 full-date"),
    ("datetime", "an RFC 3339 date-time"),
]

FORMAT = _library(
    "kubernetes.format",
    "kubernetes/apiserver pkg/cel/library/format.go",
    [
        (
            "format-validate",
            "<NamedFormat>.validate(string) -> optional_type(list(string))",
            "none if the string is valid, else the list of errors",
        ),
        (
            "format-named",
            "format.named(string) -> optional_type(NamedFormat)",
            "the format with the given name, or none",
        ),
        *[
            (f"format.{name}", f"format.{name}() -> NamedFormat", f"the format of {what}")
            for name, what in _FORMATS
        ],
    ],
    Since(compat=31),
)

SEMVER_LIB = _library(
    "kubernetes.semver",
    "kubernetes/apiserver pkg/cel/library/semverlib.go",
    [
        ("string_to_semver", "semver(string) -> Semver", "parses a strict semantic version"),
        (
            "string_bool_to_semver",
            "semver(string, bool) -> Semver",
            "parses a semantic version; true normalizes ('v' prefix, missing minor/patch, leading zeros)",
        ),
        ("is_semver_string", "isSemver(string) -> bool", "whether semver() would accept the string"),
        (
            "is_semver_string_bool",
            "isSemver(string, bool) -> bool",
            "whether semver(s, normalize) would accept the string",
        ),
        (
            "semver_is_greater_than",
            "<Semver>.isGreaterThan(Semver) -> bool",
            "whether this version is greater",
        ),
        (
            "semver_is_less_than",
            "<Semver>.isLessThan(Semver) -> bool",
            "whether this version is smaller",
        ),
        (
            "semver_compare_to",
            "<Semver>.compareTo(Semver) -> int",
            "-1, 0 or 1 comparing two versions",
        ),
        ("semver_major", "<Semver>.major() -> int", "the major version"),
        ("semver_minor", "<Semver>.minor() -> int", "the minor version"),
        ("semver_patch", "<Semver>.patch() -> int", "the patch version"),
    ],
    Since(compat=33),
)

JSONPATCH = _library(
    "kubernetes.jsonpatch",
    "kubernetes/apiserver pkg/cel/library/jsonpatch.go",
    [
        (
            "string_jsonpatch_escapeKey_string",
            "jsonpatch.escapeKey(string) -> string",
            "escapes a key for a JSON Patch path ('~' → '~0', '/' → '~1')",
        ),
    ],
    Since(binary=32),
    patch_types_only=True,
)
