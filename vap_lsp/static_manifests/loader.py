"""A static manifests folder checked as kube-apiserver loads it at start-up (KEP-5793).

The loader is k8s.io/apiserver `pkg/admission/plugin/policy/manifest/loader/loader.go`
(`LoadPolicyManifests`) with the decoding and validation k8s.io/kubernetes adds in
`pkg/admission/plugin/policy/manifest/loader/validating_loader.go` and `mutating_loader.go`
(identical in v1.36.3 and v1.37.2; v1.38.0-beta.0 adds declarative validation, whose errors
equal the handwritten ones it covers). For each file (`reader`), each document:

1. decode (`decode`): `error loading <file>: <decoder error>`;
2. accept: a `v1.List` item by item (`failed to decode list item: ...`), the plugin's policy or
   binding kind or its typed list (defaulted, then validated exactly as on create: the engine's
   normal checks), anything else `unsupported resource type *v1.X`;
3. each accepted item: its name (`manifest.ValidateManifestName`: `resource in file ... must
   have a name`, `... must have a name ending with ".static.k8s.io"`, `duplicate name ...`),
   then `spec.paramKind` / `spec.policyName` and `spec.paramRef` (`validatePolicyManifestConstraints`);

and, once every file is read, every binding's policy among the policies loaded
(`validateBindingReferences`). kube-apiserver stops at the first error and does not start
(`LoadInitial` via `generic.Plugin.ValidateInitialization`: `failed to load static policy
manifests from "<dir>": ...`); a later reload that fails is logged and ignored. This module
reports every error at its line, each worded as the loader would word it were it the first.

The objects also get every normal check of the engine, except what only the REST API does
(the reserved name suffix, `policy.rules`) and what the loader says in its own words here
(strict decoding, a binding's missing policy).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vap_lsp.analysis import files
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import FileAnalysis, analyse_bytes, analyse_text, parse_text
from vap_lsp.analysis.model.crds import CRDVersion
from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.suppress import apply_code_rules
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.policy.rules import RESERVED_NAME_DETAIL, parse_minor
from vap_lsp.static_manifests import gate as gates
from vap_lsp.static_manifests.decode import (
    DecodedType,
    Family,
    Role,
    duplicate_keys,
    interpret,
    missing,
    not_registered,
    registered,
)
from vap_lsp.static_manifests.reader import Document, SplitError, is_read, split_documents
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.detect import decode_bytes
from vap_lsp.yaml.model import ExpansionLimit, MappingNode, Node, SequenceNode, YamlFile, deref

CODE_VERSION = "static-version"
CODE_READ = "static-read"
CODE_SPLIT = "static-split"
CODE_DECODE = "static-decode"
CODE_KIND = "static-kind"
CODE_NAME = "static-name"
CODE_DUPLICATE = "static-duplicate-name"
CODE_PARAMS = "static-params"
CODE_POLICY_NAME = "static-policy-name"
CODE_REFERENCE = "static-binding-reference"
CODE_NOT_READ = "static-not-read"
CODE_PLUGIN = "static-plugin"

# The engine's strict decoding findings, worded again as the loader's decoder words them.
_DECODING = frozenset({"unknown-field", "duplicate-field", "type-mismatch"})
# Kept whatever the object: the file itself is broken.
_FILE_LEVEL = frozenset({"yaml-syntax", "not-text", "too-large", "template-marker", "internal-error"})
# Quoting a whole document in `Object 'Kind' is missing in '...'`: beyond this, cut.
QUOTE_LIMIT = 400
_GO_STRUCT_FIELD = re.compile(r"(into Go struct field \w*\.)")


@dataclass
class StaticFile:
    """One file of the folder that kube-apiserver reads, with what the check found in it."""

    path: Path
    lines: LineIndex
    diagnostics: list[Diagnostic] = field(default_factory=list)
    analysis: FileAnalysis | None = None  # the engine's, whose diagnostics these replace


@dataclass
class FolderResult:
    folder: Path
    family: Family
    minor: int
    files: list[StaticFile] = field(default_factory=list)
    # About the folder rather than a line of a file: the version and gate, the plugin chosen,
    # files that cannot be read, entries kube-apiserver does not read.
    notes: list[Diagnostic] = field(default_factory=list)
    # Files vap-lsp could not read (and so could not check): the CLI's I/O errors.
    io_errors: list[str] = field(default_factory=list)
    policies: int = 0
    bindings: int = 0

    @property
    def errors(self) -> int:
        return sum(d.severity is Severity.ERROR for f in self.files for d in f.diagnostics) + sum(
            d.severity is Severity.ERROR for d in self.notes
        )

    def summary(self) -> str:
        """One line: whether kube-apiserver of this version would start with this folder."""
        version = f"1.{self.minor}"
        if gates.gate(self.minor) is gates.Gate.ALPHA_OFF:  # said here too: text reports hide notes
            version += f" (with --feature-gates={gates.FEATURE_GATE}=true)"
        if gates.gate(self.minor) is gates.Gate.ABSENT:
            return f"kube-apiserver {version} would not load {self.folder}: static manifests arrive in 1.36"
        if self.errors:
            n = self.errors
            return (
                f"kube-apiserver {version} would not start: {n} error{'s' if n != 1 else ''} in {self.folder}"
            )
        policies = f"{self.policies} {'policy' if self.policies == 1 else 'policies'}"
        bindings = f"{self.bindings} binding{'s' if self.bindings != 1 else ''}"
        plugin = f"{self.family.plugin} plugin"
        return f"kube-apiserver {version} loads {self.folder}: {policies}, {bindings} ({plugin})"


# ------------------------------------------------------------------------------ the files


@dataclass
class _Read:
    path: Path
    data: bytes
    text: str | None
    settings: AnalysisSettings
    parsed: tuple[YamlFile, list[K8sObject]] | None = None
    docs: list[Document] | SplitError | None = None


def _read_folder(
    folder: Path,
    result: FolderResult,
    settings_for: Callable[[Path], AnalysisSettings],
    texts: Mapping[Path, str],
) -> list[_Read]:
    """`manifest.LoadFiles`: the files kube-apiserver reads, in its order (an open editor's text
    for a file in `texts`, also one not saved yet)."""
    problems: list[str] = []
    entries = files.list_folder(folder, problems)
    if entries is None:
        result.io_errors.extend(problems)
        return []
    listed = {name for name, _ in entries}
    entries = sorted(
        entries + [(p.name, False) for p in texts if p.parent == folder and p.name not in listed]
    )
    out: list[_Read] = []
    for name, is_folder in entries:
        path = folder / name
        if is_folder:
            if _holds_manifests(path):
                result.notes.append(
                    _note(f"{path}: kube-apiserver does not read subfolders of a staticManifestsDir")
                )
            continue
        if not is_read(name):
            if re.search(r"\.(ya?ml|json)\.", name, re.IGNORECASE):
                result.notes.append(
                    _note(f"{path}: not read: kube-apiserver reads only .yaml, .yml and .json files here")
                )
            continue
        errors: list[str] = []
        data = texts[path].encode() if path in texts else files.read_file(path, errors)
        if data is None:
            result.notes.append(
                _note(
                    f"failed to read file {go_quote(str(path))}: {'; '.join(errors)}",
                    Severity.ERROR,
                    CODE_READ,
                )
            )
            continue
        if not data:
            continue  # `LoadFiles` skips an empty file
        text, _ = decode_bytes(data)
        out.append(_Read(path, data, text, settings_for(path)))
    return out


def _holds_manifests(path: Path) -> bool:
    listed = files.list_folder(path, [])
    return bool(listed) and any(is_read(name) for name, is_folder in listed or [] if not is_folder)


def _note(message: str, severity: Severity = Severity.INFORMATION, code: str = CODE_NOT_READ) -> Diagnostic:
    return Diagnostic(Span(0, 0), severity, code, message)


# ----------------------------------------------------------------------- what each document is


@dataclass
class _Item:
    """A policy or binding the plugin accepts, as the loader validates it."""

    read: _Read
    node: MappingNode
    role: Role  # POLICY or BINDING
    kind: str


@dataclass
class _Object:
    """What the loader makes of one engine object (for the engine's findings inside it)."""

    obj: K8sObject
    dropped: bool = False  # never decoded (its kind is not registered): no finding of its own
    unsupported: bool = False  # decoded, then refused: only decoding findings count
    typed_item: int | None = None  # its index in a typed list
    list_item: bool = False  # an item of a metav1.List
    json: bool = False


def _data(node: Node | None) -> Any:
    try:
        return object_data(node)
    except ExpansionLimit:
        return None


def _quoted(text: str) -> str:
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"


class _FileCheck:
    """The loader's findings in one file and what it accepts from it."""

    def __init__(self, read: _Read, family: Family, minor: int) -> None:
        self.read = read
        self.family = family
        self.minor = minor
        self.findings: list[Diagnostic] = []
        self.items: list[_Item] = []
        self.objects: dict[int, _Object] = {}  # id(node) → what became of it
        assert read.parsed is not None
        self.yaml_file, objs = read.parsed
        self.lines = self.yaml_file.lines
        self.by_node = {id(o.node): o for o in objs}

    def error(
        self, span: Span, code: str, message: str, *, prefixed: bool = True, field: str | None = None
    ) -> None:
        text = f"error loading {self.read.path}: {message}" if prefixed else message
        self.findings.append(Diagnostic(span, Severity.ERROR, code, text, field=field))

    def run(self) -> None:
        docs = self.read.docs
        if isinstance(docs, SplitError):
            line = self.lines.line_of(docs.offset)
            span = Span(docs.offset, self.lines.line_end(line))
            self.error(
                span,
                CODE_SPLIT,
                f"failed to split YAML documents in file {go_quote(str(self.read.path))}: {docs.message}",
                prefixed=False,
            )
            for o in self.by_node.values():
                self.objects[id(o.node)] = _Object(o, dropped=True)
            return
        for doc in docs or []:
            self._document(doc)

    def _broken(self, doc: Document) -> bool:
        return any(
            problem.span.start < doc.end and yaml_doc.span.end > doc.start
            for yaml_doc in self.yaml_file.documents
            for problem in yaml_doc.problems
        ) or any(doc.start <= p.span.start < doc.end for p in self.yaml_file.problems)

    def _root(self, doc: Document) -> Node | None:
        for yaml_doc in self.yaml_file.documents:
            root = yaml_doc.root
            if root is not None and doc.start <= root.span.start < doc.end:
                return root
        return None

    def _head(self, node: Node | None, doc: Document) -> Span:
        if node is None:
            line = self.lines.line_of(doc.start)
            return Span(doc.start, min(doc.end, self.lines.line_end(line)))
        return head_span(node, self.lines)

    def _kind_span(self, node: Node | None, doc: Document) -> Span:
        if isinstance(node, MappingNode):
            for key in ("kind", "apiVersion"):
                value = deref(node.get(key))
                if value is not None:
                    return value.span
        return self._head(node, doc)

    def _document(self, doc: Document) -> None:
        if self._broken(doc):
            return  # the YAML itself is broken (`yaml-syntax`): the decoder gets no further either
        root = self._root(doc)
        node = deref(root)
        is_json = doc.text.startswith("{")
        decoded = self._decode(node, doc, _data(node), doc.text, list_item=False)
        if decoded is None:
            return
        if not is_json:
            for dup in duplicate_keys(root, self.lines, doc.start):
                self.error(dup.span, "duplicate-field", f"strict decoding error: {dup.message}")
        self._accept(node, doc, decoded, list_item=False, json=is_json)

    def _decode(
        self, node: Node | None, doc: Document, data: Any, original: str, *, list_item: bool
    ) -> DecodedType | None:
        """The decoder's verdict on one document or `List` item: its type, or None after an error."""
        prefix = "failed to decode list item: " if list_item else ""
        meta = interpret(data)
        problem = meta.error or missing(meta, _quoted(original))
        decoded = None
        if problem is None:
            decoded = registered(meta.group, meta.version, meta.kind)
            if decoded is None:
                problem = not_registered(meta.group, meta.version, meta.kind, gates.scheme_name(self.minor))
        if problem is not None:
            self.error(self._kind_span(node, doc), CODE_DECODE, prefix + problem)
            self._drop(node)
            return None
        return decoded

    def _drop(self, node: Node | None) -> None:
        for obj in self._objects_below(node):
            self.objects[id(obj.node)] = _Object(obj, dropped=True)

    def _objects_below(self, node: Node | None) -> list[K8sObject]:
        if node is None:
            return []
        span = node.span
        return [
            o for o in self.by_node.values() if span.start <= o.node.span.start < span.end or o.node is node
        ]

    def _accept(
        self,
        node: Node | None,
        doc: Document,
        decoded: DecodedType,
        *,
        list_item: bool,
        json: bool,
        depth: int = 0,
    ) -> None:
        """`acceptFileObject`: a `List` item by item, the plugin's kinds, else unsupported."""
        if decoded.role is Role.LIST:
            items = deref(node.get("items")) if isinstance(node, MappingNode) else None
            for item in items.items if isinstance(items, SequenceNode) and depth < 4 else []:
                item_node = deref(item)
                data = _data(item_node)
                original = _item_json(item_node, data, json, self.read.text or "")
                item_type = self._decode(item_node, doc, data, original, list_item=True)
                if item_type is not None:
                    self._accept(item_node, doc, item_type, list_item=True, json=json, depth=depth + 1)
            return
        if decoded.family is not self.family or decoded.role is None:
            self.error(self._kind_span(node, doc), CODE_KIND, f"unsupported resource type {decoded.go_type}")
            items = deref(node.get("items")) if isinstance(node, MappingNode) else None
            indices: dict[int, int] = {}
            if decoded.go_type.endswith("List") and isinstance(items, SequenceNode):
                indices = {id(deref(item)): i for i, item in enumerate(items.items)}
            for obj in self._objects_below(node):
                self.objects[id(obj.node)] = _Object(
                    obj,
                    unsupported=True,
                    list_item=list_item,
                    json=json,
                    typed_item=indices.get(id(obj.node)),
                )
            return
        if decoded.role is Role.TYPED_LIST:
            items = deref(node.get("items")) if isinstance(node, MappingNode) else None
            item_kind = decoded.go_type.removeprefix("*v1.").removesuffix("List")
            role = Role.POLICY if item_kind == self.family.policy_kind else Role.BINDING
            for i, item in enumerate(items.items if isinstance(items, SequenceNode) else []):
                item_node = deref(item)
                if isinstance(item_node, MappingNode):
                    self._take(item_node, role, item_kind, list_item=list_item, json=json, typed_item=i)
            return
        if isinstance(node, MappingNode):
            kind = self.family.policy_kind if decoded.role is Role.POLICY else self.family.binding_kind
            self._take(node, decoded.role, kind, list_item=list_item, json=json, typed_item=None)

    def _take(
        self, node: MappingNode, role: Role, kind: str, *, list_item: bool, json: bool, typed_item: int | None
    ) -> None:
        obj = self.by_node.get(id(node))
        if obj is not None:
            self.objects[id(node)] = _Object(obj, typed_item=typed_item, list_item=list_item, json=json)
        self.items.append(_Item(self.read, node, role, kind))


def _item_json(node: Node | None, data: Any, json: bool, text: str) -> str:
    """A `List` item as the decoder gets it (`RawExtension.Raw`): the JSON `sigs.k8s.io/yaml` made
    of it (keys sorted, compact), or the JSON as written."""
    from vap_lsp.golang.jsonenc import marshal

    if json and node is not None:
        return text[node.span.start : node.span.end]
    try:
        return marshal(data)
    except (TypeError, ValueError):
        return ""


# ----------------------------------------------------------------------- the accepted items


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _name_span(item: _Item, lines: LineIndex) -> Span:
    return span_for_path(item.node, ("metadata", "name"), lines)


def _check_items(checks: Sequence[_FileCheck]) -> tuple[int, int]:
    """`validateAcceptedItem` for every item in load order, then `validateBindingReferences`."""
    seen: dict[Role, dict[str, Path]] = {Role.POLICY: {}, Role.BINDING: {}}
    policies: set[str] = set()
    bindings: list[tuple[_FileCheck, _Item, str]] = []
    counts = {Role.POLICY: 0, Role.BINDING: 0}
    for check in checks:
        for item in check.items:
            counts[item.role] += 1
            data = _mapping(_data(item.node))
            meta = _mapping(data.get("metadata"))
            spec = _mapping(data.get("spec"))
            name = _str(meta.get("name"))
            path = check.read.path
            lines = check.lines
            if item.role is Role.POLICY:
                policies.add(name)
            # What the REST API does before validating and the loader does not (`rest.BeforeCreate`):
            # a name from generateName, the namespace of a cluster-scoped object cleared. So the
            # same validation says more here (`ValidateObjectMeta`).
            if not name and meta.get("generateName"):
                check.error(
                    span_for_path(item.node, ("metadata", "generateName"), lines, on_key=True),
                    "FieldValueRequired",
                    "metadata.name: Required value: name or generateName is required",
                    prefixed=False,
                    field="metadata.name",
                )
            if meta.get("namespace"):
                check.error(
                    span_for_path(item.node, ("metadata", "namespace"), lines, on_key=True),
                    "FieldValueForbidden",
                    "metadata.namespace: Forbidden: not allowed on this type",
                    prefixed=False,
                    field="metadata.namespace",
                )
            # manifest.ValidateManifestName (an empty name never gets here: the validation before
            # it requires one, so `resource in file ... must have a name` cannot be reached)
            if not name:
                pass
            elif not name.endswith(gates.SUFFIX):
                check.error(
                    _name_span(item, lines),
                    CODE_NAME,
                    f"{go_quote(name)} in file {go_quote(str(path))} must have a name ending with "
                    f"{go_quote(gates.SUFFIX)}",
                )
            elif name in seen[item.role]:
                check.error(
                    _name_span(item, lines),
                    CODE_DUPLICATE,
                    f"duplicate name {go_quote(name)} found in file {go_quote(str(path))} (previously seen "
                    f"in {go_quote(str(seen[item.role][name]))})",
                )
            else:
                seen[item.role][name] = path
            # validatePolicyManifestConstraints
            if item.role is Role.POLICY:
                if spec.get("paramKind") is not None:
                    check.error(
                        span_for_path(item.node, ("spec", "paramKind"), lines, on_key=True),
                        CODE_PARAMS,
                        f"{item.kind} {go_quote(name)}: spec.paramKind is not supported for static manifests",
                    )
                continue
            policy_name = _str(spec.get("policyName"))
            where = span_for_path(item.node, ("spec", "policyName"), lines)
            # An empty policyName is already `spec.policyName: Required value` of the validation,
            # which runs first (`binding ... must reference a policy` cannot be reached).
            if policy_name and not policy_name.endswith(gates.SUFFIX):
                check.error(
                    where,
                    CODE_POLICY_NAME,
                    f"binding {go_quote(name)}: spec.policyName {go_quote(policy_name)} must end with "
                    f"{go_quote(gates.SUFFIX)}",
                )
            elif policy_name:
                bindings.append((check, item, policy_name))
            if spec.get("paramRef") is not None:
                check.error(
                    span_for_path(item.node, ("spec", "paramRef"), lines, on_key=True),
                    CODE_PARAMS,
                    f"binding {go_quote(name)}: spec.paramRef is not supported for static manifests",
                )
    for check, item, policy_name in bindings:
        if policy_name not in policies:
            meta = _mapping(_mapping(_data(item.node)).get("metadata"))
            check.error(
                span_for_path(item.node, ("spec", "policyName"), check.lines),
                CODE_REFERENCE,
                f"binding {go_quote(_str(meta.get('name')))} references policy {go_quote(policy_name)} "
                "which does not exist in the manifest directory",
                prefixed=False,
            )
    return counts[Role.POLICY], counts[Role.BINDING]


# ------------------------------------------------------------------ the engine's findings


def _containing(objects: Iterable[_Object], span: Span) -> _Object | None:
    best: _Object | None = None
    for o in objects:
        s = o.obj.node.span
        if s.start <= span.start < max(s.end, s.start + 1) and (
            best is None or s.start >= best.obj.node.span.start
        ):
            best = o
    return best


def _static_words(d: Diagnostic, o: _Object, path: Path) -> Diagnostic | None:
    """An engine finding as the loader words it, or None when the loader says it otherwise."""
    if d.code == "duplicate-field" and not o.json:
        return None  # go-yaml's `already set in map`, found on the whole document
    if d.code in ("unknown-field", "duplicate-field"):
        field_path = d.field or ""
        if o.typed_item is not None:
            field_path = f"items[{o.typed_item}].{field_path}" if field_path else f"items[{o.typed_item}]"
        what = "unknown field" if d.code == "unknown-field" else "duplicate field"
        message = f'strict decoding error: {what} "{field_path}"'
    else:  # type-mismatch: `json: cannot unmarshal ...`, fatal
        message = d.message
        if o.typed_item is not None:
            message = _GO_STRUCT_FIELD.sub(lambda m: m.group(1) + "items.", message, count=1)
    if o.list_item:
        message = "failed to decode list item: " + message
    return replace(d, message=f"error loading {path}: {message}")


def _keep(d: Diagnostic, objects: dict[int, _Object], path: Path) -> Diagnostic | None:
    if d.code in _FILE_LEVEL:
        return d
    if d.code == "policy-not-found":
        return None  # the loader's `binding ... references policy ... which does not exist`
    if d.field == "metadata.name" and d.message.endswith(RESERVED_NAME_DETAIL):
        return None  # the REST API's rule (registry strategies); static names must carry the suffix
    if d.code == "namespace-ignored":
        return None  # the REST API clears it; the loader forbids it (said above in its words)
    o = _containing(objects.values(), d.span)
    if o is None:
        return d
    if o.dropped:
        return None
    if d.code in _DECODING:
        return _static_words(d, o, path)
    if o.unsupported:
        return None
    return d


# ------------------------------------------------------------------------------ the folder


def infer_family(folder: Path) -> Family | None:
    """The plugin whose kinds the folder holds most (None: neither), for a folder given without
    `--plugin`: the two plugins each read their own folder."""
    counts = _family_counts(folder)
    if not any(counts.values()):
        return None
    return max((Family.VALIDATING, Family.MUTATING), key=lambda f: counts[f])


def _family_counts(folder: Path) -> dict[Family, int]:
    counts = dict.fromkeys(Family, 0)
    listed = files.list_folder(folder, []) or []
    for name, is_folder in listed:
        if is_folder or not is_read(name):
            continue
        text = files.read_text(folder / name, [])
        if text is None:
            continue
        for obj in parse_text(text)[1]:
            decoded = registered(*_gv(obj.api_version), obj.kind)
            if decoded is not None and decoded.family is not None:
                counts[decoded.family] += 1
    return counts


def _gv(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def check_folder(
    folder: Path,
    *,
    version: str,
    family: Family | None = None,
    settings_for: Callable[[Path], AnalysisSettings] = lambda _: AnalysisSettings(),
    crds: Sequence[CRDVersion] = (),
    texts: Mapping[Path, str] | None = None,
    only: Path | None = None,
) -> FolderResult:
    """Every file kube-apiserver reads in `folder`, checked as its `family`'s plugin loads it
    (None: the family whose kinds the folder holds most), with the engine's normal checks.

    `texts`: files as an editor holds them (instead of the disk). `only`: the one file whose
    findings are wanted (the others are still read, for what they say about it: names, policies)."""
    texts = texts or {}
    minor = parse_minor(version)
    counts = _family_counts(folder) if family is None else {}
    chosen = family or (
        max((Family.VALIDATING, Family.MUTATING), key=lambda f: counts[f]) if counts else Family.VALIDATING
    )
    result = FolderResult(folder, chosen, minor)
    state = gates.gate(minor)
    if state is gates.Gate.ABSENT:
        result.notes.append(_note(gates.gate_text(minor) or "", Severity.ERROR, CODE_VERSION))
    elif state is gates.Gate.ALPHA_OFF:
        result.notes.append(_note(gates.gate_text(minor) or "", Severity.INFORMATION, CODE_VERSION))
    if family is None and counts and all(counts.values()):
        result.notes.append(
            _note(
                f"{folder} holds both ValidatingAdmissionPolicy and MutatingAdmissionPolicy kinds, but each "
                "plugin's staticManifestsDir takes only its own: checked as the "
                f"{chosen.plugin} plugin's folder (--plugin chooses)",
                code=CODE_PLUGIN,
            )
        )
    reads = _read_folder(folder, result, settings_for, texts)
    index = WorkspaceIndex()
    index.set_external_crds("static manifests: CRDs", crds)
    for read in reads:
        if read.text is None:
            continue
        read.parsed = parse_text(read.text)
        read.docs = split_documents(read.text)
        index.update(str(read.path), read.parsed[1], read.parsed[0].text)
    index.complete = True
    checks: list[_FileCheck] = []
    analyses: list[tuple[_Read, FileAnalysis, _FileCheck | None]] = []
    for read in reads:
        if read.text is None or read.parsed is None:
            if only is None or read.path == only:
                analyses.append((read, analyse_bytes(read.data, read.settings), None))
            continue
        check = _FileCheck(read, chosen, minor)
        check.run()
        checks.append(check)
        if only is not None and read.path != only:
            continue
        analysis = analyse_text(
            read.text, read.settings, workspace=index, uri=str(read.path), parsed=read.parsed
        )
        analyses.append((read, analysis, check))
    result.policies, result.bindings = _check_items(checks)
    for read, analysis, found in analyses:
        diagnostics = analysis.diagnostics
        if found is not None:
            check = found
            kept = [k for k in (_keep(d, check.objects, read.path) for d in diagnostics) if k is not None]
            own = {d.code for d in check.findings}
            added = [
                d
                for d in apply_code_rules(
                    check.findings, analysis.yaml, analysis.objects, read.settings.rules
                )
                if d.code in own
            ]
            diagnostics = sorted(
                kept + added, key=lambda d: (d.span.start, d.span.end, d.severity, d.message)
            )
        result.files.append(StaticFile(read.path, analysis.lines, diagnostics, analysis))
    return result


__all__ = ["FolderResult", "StaticFile", "check_folder", "infer_family"]
