"""`--crd PATH` (repeatable) of `check`, `run` and `test`: CRDs from outside the checked files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from vap_lsp.analysis.crds import LoadedCRDs, load_crds


def load_external_crds(paths: Sequence[str], io_errors: list[str]) -> LoadedCRDs:
    """`--crd` for every command: unusable paths are I/O errors (exit 2), what the API server
    would say about a CRD is printed as a note (its schema is used anyway)."""
    loaded = load_crds(paths)
    io_errors.extend(f"--crd {p}" for p in loaded.problems)
    for finding in loaded.findings:
        print(f"vap-lsp: --crd {finding}", file=sys.stderr)
    return loaded


def add_crd_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="PATH",
        help="CRDs typing object/params of policies on custom resources (file, folder, glob or "
        "`kubectl get crd -o yaml` output; repeatable); CRDs among the checked files win",
    )
