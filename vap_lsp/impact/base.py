"""The policies as they are at a git ref (`--base`): the same paths, read through `git show`.

Why git and not a checkout: the working tree stays as it is, and nothing is written.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import PolicyInputs
from vap_lsp.admission.load import InputError, documents
from vap_lsp.analysis.files import YAML_SUFFIXES
from vap_lsp.analysis.model.crds import list_items

GIT_TIMEOUT = 60


class BaseError(Exception):
    """Not a git repository, unknown ref, git missing."""


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BaseError(f"git {' '.join(args)}: {exc}") from exc
    if done.returncode != 0:
        raise BaseError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def base_files(paths: Sequence[str], ref: str) -> list[tuple[str, str]]:
    """(path, text) of every YAML file under `paths` as it is at `ref` (a path given by name is
    read whatever its suffix); paths absent at `ref` give nothing (a policy added since)."""
    out: list[tuple[str, str]] = []
    for raw in paths:
        path = Path(raw).resolve()
        folder = path if path.is_dir() else path.parent
        root = Path(_git(folder, "rev-parse", "--show-toplevel").strip())
        _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        rel = path.relative_to(root).as_posix() if path != root else "."
        listed = _git(root, "ls-tree", "-r", "--name-only", "-z", ref, "--", rel).split("\0")
        for name in sorted(n for n in listed if n):
            if path.is_dir() and not name.endswith(YAML_SUFFIXES):
                continue
            out.append((f"{ref}:{name}", _git(root, "show", f"{ref}:{name}")))
    return out


def base_inputs(paths: Sequence[str], ref: str) -> PolicyInputs:
    """Policies, bindings, params, namespaces and CRDs of `paths` at `ref`; raises BaseError
    (and InputError for a file that is not YAML at `ref`)."""
    objects: list[dict[str, Any]] = []
    for where, text in base_files(paths, ref):
        for doc in documents(text, where):
            for item in list_items(doc):
                if isinstance(item, dict) and item.get("apiVersion") and item.get("kind"):
                    objects.append(item)
    return PolicyInputs.from_objects(objects)


__all__ = ["BaseError", "InputError", "base_files", "base_inputs"]
