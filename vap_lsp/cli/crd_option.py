"""`--crd PATH` (repeatable) of `check`, `run` and `test`, and the configuration's `crds`: CRDs
from outside the checked files. `--crd` is loaded first, so it ranks above the configuration."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from vap_lsp.analysis.crds import LoadedCRDs, load_crds
from vap_lsp.analysis.workspace import WorkspaceIndex
from vap_lsp.config import Config, crd_source


def load_external_crds(paths: Sequence[str], io_errors: list[str]) -> LoadedCRDs:
    """`--crd` for every command: unusable paths are I/O errors (exit 2), what the API server
    would say about a CRD is printed as a note (its schema is used anyway)."""
    loaded = load_crds(paths)
    io_errors.extend(f"--crd {p}" for p in loaded.problems)
    for finding in loaded.findings:
        print(f"vap-lsp: --crd {finding}", file=sys.stderr)
    return loaded


def load_config_crds(
    configs: Sequence[Config], io_errors: list[str], workspace: WorkspaceIndex | None = None
) -> list[dict[str, Any]]:
    """The `crds` of each configuration file, into `workspace` (one source each, after `--crd`,
    which the commands set first) and returned as documents (for `run`/`test` inputs). A missing
    path is an I/O error of that file, as with `--crd`."""
    documents: list[dict[str, Any]] = []
    for config in configs:
        if not config.crds:
            continue
        loaded = load_crds(list(config.crds))
        io_errors.extend(f"{config.path}: crds: {p}" for p in loaded.problems)
        for finding in loaded.findings:
            print(f"vap-lsp: {config.path}: crds: {finding}", file=sys.stderr)
        if workspace is not None:
            workspace.set_external_crds(crd_source(config), loaded.versions)
        documents.extend(loaded.documents)
    return documents


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
    parser.add_argument(
        "--config", metavar="FILE", help="use this .vap-lsp.yaml or pyproject.toml for every file"
    )
    parser.add_argument("--no-config", action="store_true", help="ignore configuration files")
