"""kube-apiserver's `--admission-control-config-file` and the static manifests folders it names.

k8s.io/apiserver, as read at v0.36.3, v0.37.2 and v0.38.0-beta.0:

* `pkg/admission/config.go ReadAdmissionConfiguration`: the file is decoded strictly as an
  `AdmissionConfiguration` of `apiserver.config.k8s.io/v1` (or the older
  `apiserver.k8s.io/v1alpha1`, `pkg/apis/apiserver/v1alpha1/register.go`): `plugins`, each
  with `name` and either an inline `configuration` or a `path` (relative to the file's folder,
  `makeAbs`).
* `pkg/admission/plugin/policy/config/config.go loadConfig`: the ValidatingAdmissionPolicy and
  MutatingAdmissionPolicy plugins decode their configuration strictly with a scheme of their own
  (`apiserver.config.k8s.io/v1` `ValidatingAdmissionPolicyConfiguration` and
  `MutatingAdmissionPolicyConfiguration`, `policyconfig/v1/register.go`), refuse the other
  plugin's kind (`unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration`), then
  `manifest.ValidateStaticManifestsDir` (`pkg/admission/plugin/manifest/validation.go`): the
  feature gate, an absolute path (`path.IsAbs`), one that exists and is a directory.

Any of these keeps kube-apiserver from starting. Before 1.36 the two plugins ignore their
configuration (`NewPlugin(_ io.Reader)`, v0.35.4). Where the folder is depends on the machine:
a path that does not exist here is looked for beside the configuration file (its trailing
components), and a folder found either way is checked in static mode (`loader`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from vap_lsp.analysis import files
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.golang.jsonenc import marshal
from vap_lsp.golang.strconv import quote as go_quote
from vap_lsp.static_manifests import gate as gates
from vap_lsp.static_manifests.decode import (
    Family,
    duplicate_keys,
    interpret,
    json_kind,
    missing,
    not_registered,
)
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import ExpansionLimit, MappingNode, Node, SequenceNode, deref

CODE_CONFIG = "admission-config"
CODE_DIR = "static-manifests-dir"

CONFIG_GROUP = "apiserver.config.k8s.io"
ADMISSION_CONFIGURATION = "AdmissionConfiguration"
ADMISSION_API_VERSIONS = (f"{CONFIG_GROUP}/v1", "apiserver.k8s.io/v1alpha1")
PLUGIN_KINDS = {
    "ValidatingAdmissionPolicyConfiguration": Family.VALIDATING,
    "MutatingAdmissionPolicyConfiguration": Family.MUTATING,
}
PLUGIN_NAMES = {family.plugin: family for family in Family}
# Where `policy/config/config.go` creates its scheme (line 32 in v0.36.3, v0.37.2, v0.38.0-beta.0).
CONFIG_SCHEME = "pkg/admission/plugin/policy/config/config.go:32"
_PLUGIN_FIELDS = ("apiVersion", "kind", "staticManifestsDir")


def is_admission_config(obj: K8sObject) -> bool:
    return obj.kind == ADMISSION_CONFIGURATION and obj.api_version in ADMISSION_API_VERSIONS


def is_plugin_config(obj: K8sObject) -> bool:
    return obj.kind in PLUGIN_KINDS and obj.api_version == f"{CONFIG_GROUP}/v1"


@dataclass(frozen=True)
class DeclaredFolder:
    """A `staticManifestsDir`, and the folder on this machine that is checked as it."""

    family: Family
    declared: str  # as written
    folder: Path
    source: Path  # the configuration file


@dataclass
class _Context:
    path: Path | None  # the file being checked
    lines: LineIndex
    minor: int
    diagnostics: list[Diagnostic]
    folders: list[DeclaredFolder]

    def add(self, span: Span, severity: Severity, code: str, message: str, field: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(span, severity, code, message, field=field))


def _data(node: Node | None) -> Any:
    try:
        return object_data(node)
    except ExpansionLimit:
        return None


def check_admission_configs(
    objects: Sequence[K8sObject], lines: LineIndex, path: Path | None, minor: int
) -> tuple[list[Diagnostic], list[DeclaredFolder]]:
    """Diagnostics of the AdmissionConfiguration and plugin configuration objects of one file,
    and the static manifests folders they name."""
    ctx = _Context(path, lines, minor, [], [])
    for obj in objects:
        if is_admission_config(obj):
            _admission_config(obj, ctx)
        elif is_plugin_config(obj):
            _plugin_config(obj.node, None, ctx, None)
    return ctx.diagnostics, ctx.folders


def _unknown_fields(
    node: MappingNode, allowed: Iterable[str], prefix: str, ctx: _Context, where: str = ""
) -> None:
    allowed = set(allowed)
    for key, _ in node.items:
        name = getattr(key, "value", None)
        if isinstance(name, str) and name not in allowed:
            field = f"{prefix}{name}"
            ctx.add(
                key.span,
                Severity.ERROR,
                "unknown-field",
                f'{where}strict decoding error: unknown field "{field}"',
                field,
            )


def _admission_config(obj: K8sObject, ctx: _Context) -> None:
    node = obj.node
    for dup in duplicate_keys(node, ctx.lines, node.span.start):
        ctx.add(dup.span, Severity.ERROR, "duplicate-field", f"strict decoding error: {dup.message}")
    _unknown_fields(node, ("apiVersion", "kind", "plugins"), "", ctx)
    plugins = deref(node.get("plugins"))
    if not isinstance(plugins, SequenceNode):
        return
    for i, written_entry in enumerate(plugins.items):
        entry = deref(written_entry)
        if not isinstance(entry, MappingNode):
            continue
        _unknown_fields(entry, ("name", "path", "configuration"), f"plugins[{i}].", ctx)
        name = _data(entry.get("name"))
        family = PLUGIN_NAMES.get(name) if isinstance(name, str) else None
        if family is None:
            continue
        configuration = deref(entry.get("configuration"))
        if configuration is not None and _data(configuration) is not None:
            _plugin_config(configuration, family, ctx, None)
            continue
        written = _data(entry.get("path"))
        if isinstance(written, str) and written:
            _plugin_config_file(entry, family, written, i, ctx)


def _plugin_config_file(entry: MappingNode, family: Family, written: str, i: int, ctx: _Context) -> None:
    """A plugin configuration given by `path`, relative to the configuration file's folder."""
    where = span_for_path(entry, ("path",), ctx.lines)
    base = ctx.path.parent if ctx.path is not None else Path.cwd()
    target = Path(written) if Path(written).is_absolute() else base / written
    errors: list[str] = []
    text = files.read_text(target, errors)
    if text is None:
        ctx.add(
            where,
            Severity.INFORMATION,
            CODE_DIR,
            f"plugins[{i}].path: {'; '.join(errors)}: kube-apiserver reads it where it runs; "
            "not checked here",
        )
        return
    yaml_file, _ = parse_text(text)
    root = yaml_file.documents[0].root if yaml_file.documents else None
    inner = _Context(target, yaml_file.lines, ctx.minor, [], ctx.folders)
    _plugin_config(deref(root), family, inner, target)
    for d in inner.diagnostics:  # each said at the `path` of the entry that names the file
        ctx.add(where, d.severity, d.code, f"{target}: {d.message}", d.field)


def _plugin_config(node: Node | None, family: Family | None, ctx: _Context, file: Path | None) -> None:
    """`loadConfig` of one plugin configuration (inline, in a file, or a file of its own)."""
    root = node
    data = _data(root)
    head = head_span(root, ctx.lines) if root is not None else Span(0, 0)

    def span(path: tuple[str | int, ...], on_key: bool = False) -> Span:
        if root is None:
            return head
        return span_for_path(root, path, ctx.lines, on_key=on_key)

    if file is not None and root is not None:
        for dup in duplicate_keys(root, ctx.lines, root.span.start):
            ctx.add(dup.span, Severity.ERROR, "duplicate-field", f"strict decoding error: {dup.message}")
    meta = interpret(data)
    original = marshal(data) if isinstance(data, dict) else ""
    problem = meta.error or missing(meta, original)
    kind_span = span(("kind",))
    if problem is None:
        gv = f"{meta.group}/{meta.version}" if meta.group else meta.version
        if gv != f"{CONFIG_GROUP}/v1" or meta.kind not in PLUGIN_KINDS:
            problem = not_registered(meta.group, meta.version, meta.kind, CONFIG_SCHEME)
    if problem is not None:
        ctx.add(kind_span, Severity.ERROR, CODE_CONFIG, problem)
        return
    state = gates.gate(ctx.minor)
    if state is gates.Gate.ABSENT:
        ctx.add(
            kind_span,
            Severity.ERROR,
            "static-version",
            f"Kubernetes 1.{ctx.minor} ignores this configuration: its {PLUGIN_KINDS[meta.kind].plugin} "
            "plugin reads none (NewPlugin(_ io.Reader)); staticManifestsDir arrives in 1.36",
        )
        return
    decoded = PLUGIN_KINDS[meta.kind]
    if family is not None and decoded is not family:
        ctx.add(kind_span, Severity.ERROR, CODE_CONFIG, f"unexpected type: *policyconfig.{meta.kind}")
        return
    assert isinstance(data, dict)
    if isinstance(root, MappingNode):
        _unknown_fields(root, _PLUGIN_FIELDS, "", ctx)
    written = data.get("staticManifestsDir")
    if written is not None and not isinstance(written, str):
        ctx.add(
            span(("staticManifestsDir",)),
            Severity.ERROR,
            "type-mismatch",
            f"json: cannot unmarshal {json_kind(written)} into Go struct field "
            f"{meta.kind}.staticManifestsDir of type string",
        )
        return
    if not written:
        return
    _static_manifests_dir(written, decoded, span(("staticManifestsDir",)), ctx, file)


def _invalid(value: str, detail: str) -> str:
    return f"staticManifestsDir: Invalid value: {go_quote(value)}: {detail}"


def _static_manifests_dir(
    written: str, family: Family, where: Span, ctx: _Context, file: Path | None
) -> None:
    """`manifest.ValidateStaticManifestsDir`, with what can be known on this machine."""
    if gates.gate(ctx.minor) is gates.Gate.ALPHA_OFF:
        ctx.add(
            where,
            Severity.INFORMATION,
            "static-version",
            f"staticManifestsDir: Forbidden: staticManifestsDir requires the {gates.FEATURE_GATE} "
            f"feature gate to be enabled — unless kube-apiserver 1.{ctx.minor} runs with "
            f"--feature-gates={gates.FEATURE_GATE}=true (alpha, off by default); checked as if it did",
            "staticManifestsDir",
        )
    if not written.startswith("/"):
        ctx.add(
            where,
            Severity.ERROR,
            CODE_DIR,
            _invalid(written, "must be an absolute file path"),
            "staticManifestsDir",
        )
        return
    here = Path(written)
    if here.exists():
        if not here.is_dir():
            ctx.add(
                where,
                Severity.WARNING,
                CODE_DIR,
                _invalid(written, "must be a directory") + " (so it is on this machine)",
                "staticManifestsDir",
            )
            return
        ctx.folders.append(DeclaredFolder(family, written, here, file or ctx.path or here))
        return
    source = file or ctx.path
    found = beside(written, source.parent) if source is not None else None
    if found is None:
        ctx.add(
            where,
            Severity.INFORMATION,
            CODE_DIR,
            f"{written} is not on this machine (kube-apiserver checks it where it runs: "
            f"{_invalid(written, 'unable to read: ...')} if it is missing there), nor a folder of the same "
            "trailing path beside this file: nothing to check in static mode",
            "staticManifestsDir",
        )
        return
    ctx.add(
        where,
        Severity.INFORMATION,
        CODE_DIR,
        f"{written} is not on this machine: the folder {found} (the same trailing path, beside this file) is "
        f"checked as the {family.plugin} plugin loads it",
        "staticManifestsDir",
    )
    ctx.folders.append(DeclaredFolder(family, written, found, source or found))


def beside(written: str, base: Path) -> Path | None:
    """The folder a `staticManifestsDir` of another machine stands for here: the longest trailing
    part of its path that is a folder below `base` (`/etc/kubernetes/policies/vap` → `base/policies/vap`,
    else `base/vap`), then below `base`'s parent and grandparent with at least two components."""
    parts = PurePosixPath(written).parts[1:]
    for climb, root in enumerate([base, *list(base.parents)[:2]]):
        shortest = 1 if climb == 0 else 2
        for start in range(len(parts) - shortest + 1):
            candidate = root.joinpath(*parts[start:])
            if candidate.is_dir():
                return candidate
    return None


__all__ = [
    "ADMISSION_API_VERSIONS",
    "DeclaredFolder",
    "beside",
    "check_admission_configs",
    "is_admission_config",
    "is_plugin_config",
]
