"""What the command line and the server call: a file's analysis with its AdmissionConfiguration
findings, and the static manifests folders that apply.

A folder is checked in static mode when it is given with `--static-manifests`, named in the
configuration's `static-manifests`, or named by an AdmissionConfiguration among the files
(`admission_config.DeclaredFolder`); `loader.check_folder` does the checking.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from vap_lsp.analysis import files
from vap_lsp.analysis.engine import FileAnalysis, analyse_text, parse_text
from vap_lsp.analysis.model.crds import CRDVersion
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.suppress import apply_code_rules
from vap_lsp.policy.rules import parse_minor
from vap_lsp.static_manifests.admission_config import DeclaredFolder, check_admission_configs
from vap_lsp.static_manifests.decode import Family
from vap_lsp.static_manifests.gate import mentions_admission_config
from vap_lsp.static_manifests.loader import check_folder
from vap_lsp.static_manifests.reader import is_read
from vap_lsp.yaml.model import YamlFile


@dataclass(frozen=True)
class StaticFolder:
    """A folder to check as kube-apiserver loads it, with the plugin (None: said by its kinds)
    and where that was said (`--static-manifests`, a configuration file, an AdmissionConfiguration)."""

    folder: Path
    family: Family | None
    origin: str


def family_of(plugin: str | None) -> Family | None:
    return Family(plugin) if plugin else None


def analyse_file(
    text: str,
    settings: AnalysisSettings | None = None,
    *,
    workspace: WorkspaceIndex | None = None,
    uri: str | None = None,
    parsed: tuple[YamlFile, list[K8sObject]] | None = None,
    path: Path | None = None,
) -> tuple[FileAnalysis, list[DeclaredFolder]]:
    """`engine.analyse_text`, and for a file that holds an AdmissionConfiguration (or a policy
    plugin's configuration) its findings and the static manifests folders it names."""
    settings = settings or AnalysisSettings()
    analysis = analyse_text(text, settings, workspace=workspace, uri=uri, parsed=parsed)
    if not mentions_admission_config(text):
        return analysis, []
    minor = parse_minor(settings.resolved_version())
    found, folders = check_admission_configs(analysis.objects, analysis.lines, path, minor)
    if not found:
        return analysis, folders
    codes = {d.code for d in found}
    added = [
        d for d in apply_code_rules(found, analysis.yaml, analysis.objects, settings.rules) if d.code in codes
    ]
    diagnostics = sorted(
        analysis.diagnostics + added, key=lambda d: (d.span.start, d.span.end, d.severity, d.message)
    )
    return replace(analysis, diagnostics=diagnostics), folders


def analyse_static_document(
    text: str,
    path: Path,
    folder: StaticFolder,
    settings_for: Callable[[Path], AnalysisSettings],
    *,
    texts: Mapping[Path, str],
    crds: Sequence[CRDVersion] = (),
) -> FileAnalysis:
    """One document of a static manifests folder, as the editor shows it: its findings as
    kube-apiserver loads the folder (the other files read from `texts`, open buffers, or from
    disk), with what is said of the folder itself (the gate, unreadable entries) at its start."""
    version = settings_for(path).resolved_version()
    result = check_folder(
        folder.folder,
        version=version,
        family=folder.family,
        settings_for=settings_for,
        crds=crds,
        texts={**texts, path: text},
        only=path,
    )
    own = next((f for f in result.files if f.path == path), None)
    if own is None or own.analysis is None:  # an empty file: kube-apiserver skips it
        return analyse_text(text, settings_for(path))
    return replace(own.analysis, diagnostics=[*result.notes, *own.diagnostics])


def manifest_files(folder: Path, errors: list[str]) -> list[Path]:
    """The files kube-apiserver reads in a static manifests folder (`reader.is_read`), in its order."""
    listed = files.list_folder(folder, errors)
    return [folder / name for name, is_folder in listed or [] if not is_folder and is_read(name)]


def declared_folders(
    text: str, path: Path | None, settings: AnalysisSettings | None = None
) -> list[DeclaredFolder]:
    """The static manifests folders an AdmissionConfiguration in `text` names (none without one)."""
    if not mentions_admission_config(text):
        return []
    yaml_file, objects = parse_text(text)
    minor = parse_minor((settings or AnalysisSettings()).resolved_version())
    return check_admission_configs(objects, yaml_file.lines, path, minor)[1]


__all__ = [
    "StaticFolder",
    "analyse_file",
    "analyse_static_document",
    "declared_folders",
    "family_of",
    "manifest_files",
]
