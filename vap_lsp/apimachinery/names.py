"""apimachinery's name validators, with their exact message texts.

Each function returns the list of detail strings the Go function returns; callers wrap every
string in a `field.Invalid` (or join them with ","), as the server does.

Sources: `k8s.io/apimachinery` `pkg/util/validation/validation.go` (IsDNS1123Subdomain,
IsDNS1123Label, IsDNS1035Label, IsQualifiedName, IsValidLabelValue), from v0.35 (Kubernetes
1.35) `pkg/api/validate/content` (IsLabelKey, IsLabelValue, IsPathSegmentName), and
`pkg/api/validation/generic.go` (NameIsDNSSubdomain, maskTrailingDash).

Version differences (checked against apimachinery tags v0.27–v0.37):

* From 1.35, label keys / qualified names and label values come from the `content` package,
  whose length messages say "bytes" instead of "characters" (also for the DNS-subdomain prefix of
  a label key), and whose too-many-slashes message says "a valid label key" instead of
  "a qualified name". `IsDNS1123Subdomain` itself (object names) keeps "characters".
"""

from __future__ import annotations

import re

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
DNS1035_LABEL_MAX = 63
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63

_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(DNS1035_LABEL_FMT)
_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)

# Kubernetes minor from which the `content` package texts apply (apimachinery v0.35).
CONTENT_PACKAGE_MINOR = 35


def _blen(value: str) -> int:
    # Go's len() counts bytes.
    return len(value.encode("utf-8", "surrogatepass"))


def max_len_error(length: int, unit: str = "characters") -> str:
    return f"must be no more than {length} {unit}"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery `RegexError`: examples are written "'a',  or 'b', "."""
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    out = msg + " (e.g. "
    for i, e in enumerate(examples):
        if i > 0:
            out += " or "
        out += "'" + e + "', "
    return out + "regex used for validation is '" + fmt + "')"


def is_dns1123_subdomain(value: str, unit: str = "characters") -> list[str]:
    """`IsDNS1123Subdomain` (util/validation: "characters"; content package: "bytes")."""
    errs: list[str] = []
    if _blen(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX, unit))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """`IsDNS1123Label`."""
    errs: list[str] = []
    if _blen(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """`IsDNS1035Label`."""
    errs: list[str] = []
    if _blen(value) > DNS1035_LABEL_MAX:
        errs.append(max_len_error(DNS1035_LABEL_MAX))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def is_qualified_name(value: str, minor: int) -> list[str]:
    """`IsQualifiedName` (≤1.34) / `content.IsLabelKey` (≥1.35): label keys, annotation keys,
    matchCondition names, audit annotation keys."""
    content = minor >= CONTENT_PACKAGE_MINOR
    unit = "bytes" if content else "characters"
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, unit))
    else:
        what = "a valid label key " if content else "a qualified name "
        return [
            what
            + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > QUALIFIED_NAME_MAX:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX, unit))
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str, minor: int) -> list[str]:
    """`IsValidLabelValue` (≤1.34) / `content.IsLabelValue` (≥1.35)."""
    unit = "bytes" if minor >= CONTENT_PACKAGE_MINOR else "characters"
    errs: list[str] = []
    if _blen(value) > LABEL_VALUE_MAX:
        errs.append(max_len_error(LABEL_VALUE_MAX, unit))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_path_segment_name(name: str) -> list[str]:
    """`path.ValidatePathSegmentName(name, false)` / `content.IsPathSegmentName`."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


def mask_trailing_dash(name: str) -> str:
    """`maskTrailingDash` — note the server drops the last *two* characters and appends 'a'."""
    if _blen(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """`NameIsDNSSubdomain`: metadata.name / generateName and binding policyName."""
    if prefix:
        name = mask_trailing_dash(name)
    return is_dns1123_subdomain(name)


CEL_RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_CEL_IDENT_RE = re.compile("[_a-zA-Z][_a-zA-Z0-9]*")


def is_cel_identifier(name: str) -> bool:
    """`isCELIdentifier` in admissionregistration validation.go: IDENT minus reserved words."""
    return bool(_CEL_IDENT_RE.fullmatch(name)) and name not in CEL_RESERVED
