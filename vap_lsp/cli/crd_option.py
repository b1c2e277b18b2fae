"""What `check`, `run` and `test` share: `--crd PATH` (repeatable) and the configuration's `crds`
(CRDs from outside the checked files; `--crd` is loaded first, so it ranks above the
configuration), `--config`/`--no-config`, and `--kubernetes-version`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_lsp.analysis.files import unreadable
from vap_lsp.config import Config, ConfigResolver, configured_crds, load_config
from vap_lsp.schema.store import normalize_version

if TYPE_CHECKING:
    from vap_lsp.analysis.model.crds import LoadedCRDs
    from vap_lsp.analysis.model.workspace import WorkspaceIndex


def _report(loaded: LoadedCRDs, label: str, io_errors: list[str]) -> None:
    """Unusable paths are I/O errors (exit 2), what the API server would say about a CRD is
    printed as a note (its schema is used anyway); both start with `label`."""
    io_errors.extend(f"{label}{p}" for p in loaded.problems)
    for finding in loaded.findings:
        print(f"vap-lsp: {label}{finding}", file=sys.stderr)


def load_external_crds(
    paths: Sequence[str], io_errors: list[str], workspace: WorkspaceIndex | None = None
) -> list[dict[str, Any]]:
    """`--crd`, into `workspace` (set before the configuration's, so it ranks above them) and
    returned as documents (for `run`/`test` inputs)."""
    if not paths:
        return []
    from vap_lsp.analysis.model.crds import load_crds  # imported by the commands that use it, not `serve`

    loaded = load_crds(paths)
    _report(loaded, "--crd ", io_errors)
    if workspace is not None:
        workspace.set_external_crds("--crd", loaded.versions)
    return loaded.documents


def load_config_crds(
    configs: Sequence[Config], io_errors: list[str], workspace: WorkspaceIndex | None = None
) -> list[dict[str, Any]]:
    """The `crds` of each configuration file, into `workspace` (one source each, after `--crd`,
    which the commands set first) and returned as documents (for `run`/`test` inputs). A missing
    path is an I/O error of that file, as with `--crd`."""
    documents: list[dict[str, Any]] = []
    for source, label, loaded in configured_crds(configs):
        _report(loaded, f"{label}: ", io_errors)
        if workspace is not None:
            workspace.set_external_crds(source, loaded.versions)
        documents.extend(loaded.documents)
    return documents


def config_resolver(args: argparse.Namespace) -> ConfigResolver:
    """The configuration lookup of one command run (`--config`, `--no-config`)."""
    return ConfigResolver(Path(args.config) if args.config else None, isolated=args.no_config, snapshot=True)


def explicit_config_problems(args: argparse.Namespace) -> list[str]:
    """`--config FILE` is read before the run starts: a missing or broken file stops it (exit 2),
    instead of the run going on without the configuration the user named."""
    if not args.config:
        return []
    problem = unreadable(args.config)
    if problem is not None:
        return [f"--config {problem}"]
    return list(load_config(Path(args.config)).errors)


def given_version(args: argparse.Namespace) -> str | None:
    """`--kubernetes-version`, normalized (ValueError: not a version vap-lsp knows)."""
    return normalize_version(args.kubernetes_version) if args.kubernetes_version else None


def add_crd_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="PATH",
        help="CRDs typing object/params of policies on custom resources (file, folder, glob or "
        "`kubectl get crd -o yaml` output; repeatable); CRDs among the checked files win",
    )


def add_config_options(parser: argparse.ArgumentParser) -> None:
    given = parser.add_mutually_exclusive_group()  # both at once: argparse's usage error, exit 2
    given.add_argument(
        "--config",
        metavar="FILE",
        help="use this configuration for every file: .vap-lsp.yaml (YAML), or a .toml file "
        "([tool.vap-lsp] of a pyproject.toml)",
    )
    given.add_argument("--no-config", action="store_true", help="ignore configuration files")
