"""How the loader's decoder reads one document: what it finds there and the words it fails with.

The loader decodes with `codecs.UniversalDeserializer()` of a strict codec factory over a scheme
of its own (k8s.io/kubernetes `pkg/admission/plugin/policy/manifest/loader/validating_loader.go`:
`admissionregistrationinstall.Install(scheme)` and the unversioned `List` and `Status`). The
serializer is apimachinery's `runtime/serializer/json` (`Serializer.Decode`, `meta.go
SimpleMetaFactory.Interpret`, `runtime/error.go`), chosen by content: a document whose first
non-space character is `{` is JSON, anything else YAML. In that order:

1. the document as JSON (YAML converted by `sigs.k8s.io/yaml`, duplicate keys dropped);
2. `apiVersion` and `kind` read from it: `couldn't get version/kind; json parse error: ...`
   when it is no JSON object (or they are no strings), `unexpected GroupVersion string: ...`;
3. `Object 'Kind' is missing in '<document>'`, then `Object 'apiVersion' is missing in ...`;
4. the kind in the scheme: `no kind "ConfigMap" is registered for version "v1" in scheme "..."`
   (`Scheme.New`: by group, version and kind, else by kind alone among the unversioned kinds);
5. the object decoded strictly: fatal `json: cannot unmarshal ...` errors, then the strict
   errors in one `strict decoding error: a, b`: for YAML first go-yaml v2's duplicate keys
   (`yaml.YAMLToJSONStrict` of the original text: `yaml: unmarshal errors:\\n  line 7: key
   "failurePolicy" already set in map`, the line counted in the document, the line of the
   value), then unknown fields; for JSON `duplicate field "x"` and unknown fields.

Which decoded types each plugin then accepts is the loader's business (`loader`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from vap_lsp.golang.jsonenc import marshal_float
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import AliasNode, MappingNode, Node, ScalarNode, ScalarStyle, SequenceNode, deref
from vap_lsp.yaml.resolve import resolve_scalar

POLICY_GROUP = "admissionregistration.k8s.io"


class Family(enum.Enum):
    """The two admission plugins that load static manifests, with the kinds each accepts."""

    VALIDATING = "validating"
    MUTATING = "mutating"

    @property
    def plugin(self) -> str:
        return "ValidatingAdmissionPolicy" if self is Family.VALIDATING else "MutatingAdmissionPolicy"

    @property
    def policy_kind(self) -> str:
        return self.plugin

    @property
    def binding_kind(self) -> str:
        return self.plugin + "Binding"


class Role(enum.Enum):
    POLICY = "policy"
    BINDING = "binding"
    TYPED_LIST = "typed list"  # of policies or of bindings: items inherit the kind
    LIST = "list"  # metav1.List: each item decoded on its own


@dataclass(frozen=True)
class DecodedType:
    """What a registered kind decodes into: its Go type as `%T` prints it, and, for the four
    policy kinds in `admissionregistration.k8s.io/v1` and their lists, whose plugin takes it."""

    go_type: str
    role: Role | None = None
    family: Family | None = None


_POLICY_KINDS = {
    "ValidatingAdmissionPolicy": (Family.VALIDATING, Role.POLICY),
    "ValidatingAdmissionPolicyBinding": (Family.VALIDATING, Role.BINDING),
    "MutatingAdmissionPolicy": (Family.MUTATING, Role.POLICY),
    "MutatingAdmissionPolicyBinding": (Family.MUTATING, Role.BINDING),
}
_WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")
# k8s.io/api admissionregistration/<version>/register.go addKnownTypes (the same in 1.36-1.38).
_GROUP_KINDS: dict[str, tuple[str, ...]] = {
    "v1": (*_WEBHOOK_KINDS, *_POLICY_KINDS),
    "v1beta1": (*_WEBHOOK_KINDS, *_POLICY_KINDS),
    "v1alpha1": tuple(_POLICY_KINDS),
}
# apimachinery metav1.AddToGroupVersion: the option kinds and WatchEvent in every group-version.
_META_IN_EVERY_VERSION = (
    "ListOptions",
    "GetOptions",
    "DeleteOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
    "WatchEvent",
)
# `Scheme.New` falls back to these by kind alone, whatever the group and version:
# metav1.AddToGroupVersion's `AddUnversionedTypes(Unversioned, ...)` and the loader's own
# `AddUnversionedTypes(metav1.SchemeGroupVersion, &metav1.List{}, &metav1.Status{})`.
_UNVERSIONED = ("Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList", "List")


def split_api_version(api_version: str) -> tuple[str, str] | None:
    """`schema.ParseGroupVersion`: "" → ("", ""), "v1" → ("", "v1"), "g/v" → (g, v); None for
    more than one slash."""
    if api_version in ("", "/"):
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def registered(group: str, version: str, kind: str) -> DecodedType | None:
    """The type `Scheme.New` makes for this kind, or None: `no kind ... is registered`."""
    if group == POLICY_GROUP and kind in _GROUP_KINDS.get(version, ()):
        info = _POLICY_KINDS.get(kind)
        if version == "v1" and info is not None:
            return DecodedType(f"*v1.{kind}", info[1], info[0])
        return DecodedType(f"*{version}.{kind}")
    if (
        group == POLICY_GROUP
        and kind.endswith("List")
        and kind[: -len("List")] in _GROUP_KINDS.get(version, ())
    ):
        item = _POLICY_KINDS.get(kind[: -len("List")])
        if version == "v1" and item is not None:
            return DecodedType(f"*v1.{kind}", Role.TYPED_LIST, item[0])
        return DecodedType(f"*{version}.{kind}")
    if group == POLICY_GROUP and version in _GROUP_KINDS and kind in _META_IN_EVERY_VERSION:
        return DecodedType(f"*v1.{kind}")
    if kind in _UNVERSIONED:
        return DecodedType("*v1.List", Role.LIST) if kind == "List" else DecodedType(f"*v1.{kind}")
    return None


def not_registered(group: str, version: str, kind: str, scheme: str) -> str:
    """`notRegisteredErr.Error` for a kind."""
    gv = f"{group}/{version}" if group else version
    return f'no kind "{kind}" is registered for version "{gv}" in scheme "{scheme}"'


# ------------------------------------------------------------------- apiVersion and kind

_FIND_KIND = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


def json_kind(value: Any) -> str:
    """The JSON kind Go's `UnmarshalTypeError` names for a decoded value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@dataclass(frozen=True)
class TypeMeta:
    """`apiVersion` and `kind` as `SimpleMetaFactory.Interpret` reads them, or why it cannot."""

    group: str = ""
    version: str = ""
    kind: str = ""
    error: str | None = None


def interpret(data: Any) -> TypeMeta:
    """From the document as plain data (None for an empty document)."""
    if data is None:
        return TypeMeta()
    if not isinstance(data, dict):
        return TypeMeta(
            error="couldn't get version/kind; json parse error: json: cannot unmarshal "
            f"{json_kind(data)} into Go value of type {_FIND_KIND}"
        )
    for field in ("apiVersion", "kind"):
        value = data.get(field)
        if value is not None and not isinstance(value, str):
            return TypeMeta(
                error="couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{json_kind(value)} into Go struct field .{field} of type string"
            )
    api_version = data.get("apiVersion") or ""
    kind = data.get("kind") or ""
    gv = split_api_version(api_version)
    if gv is None:
        return TypeMeta(error=f"unexpected GroupVersion string: {api_version}")
    return TypeMeta(gv[0], gv[1], kind)


def missing(meta: TypeMeta, original: str) -> str | None:
    """`Object 'Kind' is missing in '...'`, `Object 'apiVersion' is missing in '...'` or None."""
    if not meta.kind:
        return f"Object 'Kind' is missing in '{original}'"
    if not meta.version:
        return f"Object 'apiVersion' is missing in '{original}'"
    return None


# ----------------------------------------------------------------- go-yaml v2 duplicate keys


def go_sharp_v(value: Any) -> str:
    """A decoded YAML key as Go's `%#v` prints it (the key of `already set in map`)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return marshal_float(value) if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, str):
        return go_quote(value)
    return repr(value)


@dataclass(frozen=True)
class DuplicateKey:
    span: Span  # the key written the second time
    line: int  # as go-yaml counts it in the document
    key: str  # `%#v`

    @property
    def message(self) -> str:
        return f"yaml: unmarshal errors:\n  line {self.line}: key {self.key} already set in map"


def _is_merge(key: Node) -> bool:
    return (
        isinstance(key, ScalarNode)
        and key.value == "<<"
        and key.style is ScalarStyle.PLAIN
        and key.tag is None
    )


def _key_of(node: Node) -> tuple[str, Any] | None:
    node_ = deref(node)
    if not isinstance(node_, ScalarNode):
        return None  # a mapping or sequence key: go-yaml fails the decode ("invalid map key")
    value = resolve_scalar(node_)
    return type(value).__name__, value


def duplicate_keys(
    root: Node | None, lines: LineIndex, doc_start: int, budget: int = 200_000
) -> list[DuplicateKey]:
    """Every key go-yaml v2's strict decoder finds already set, in its order, with merge keys
    (`<<`) merged as it merges them (a sequence of maps from the last)."""
    first_line = lines.line_of(doc_start)
    found: list[DuplicateKey] = []
    seen_reports: set[tuple[int, str]] = set()
    remaining = [budget]

    def line_of(key: Node, value: Node) -> int:
        target = value
        if isinstance(value, ScalarNode) and value.is_null and not value.value:
            target = key  # an empty value: go-yaml marks it where the `:` ends, on the key's line
        return lines.line_of(target.span.start) - first_line + 1

    def fill(mapping: MappingNode, keys: set[tuple[str, Any]], depth: int) -> None:
        for key, value in mapping.items:
            remaining[0] -= 1
            if remaining[0] < 0 or depth > 100:
                return
            if _is_merge(key):
                merged = deref(value)
                sources = [merged] if isinstance(merged, MappingNode) else []
                if isinstance(merged, SequenceNode):
                    sources = [
                        m for m in (deref(i) for i in reversed(merged.items)) if isinstance(m, MappingNode)
                    ]
                for source in sources:
                    fill(source, keys, depth + 1)
                continue
            identity = _key_of(key)
            if identity is None:
                continue
            walk(value, depth + 1)  # go-yaml decodes the value before it sets the key
            if identity in keys:
                report = DuplicateKey(key.span, line_of(key, value), go_sharp_v(identity[1]))
                if (report.line, report.key) not in seen_reports:
                    seen_reports.add((report.line, report.key))
                    found.append(report)
            else:
                keys.add(identity)

    def walk(node: Node | None, depth: int) -> None:
        remaining[0] -= 1
        if node is None or remaining[0] < 0 or depth > 100:
            return
        if isinstance(node, AliasNode):
            walk(node.target, depth + 1)
        elif isinstance(node, MappingNode):
            fill(node, set(), depth)
        elif isinstance(node, SequenceNode):
            for item in node.items:
                walk(item, depth + 1)

    walk(root, 0)
    return found


def iter_nodes(node: Node | None) -> Iterator[Node]:
    """Every node below `node` (aliases not followed)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        yield current
        if isinstance(current, MappingNode):
            for k, v in current.items:
                stack.extend((v, k))
        elif isinstance(current, SequenceNode):
            stack.extend(reversed(current.items))
