"""Finding policy files on disk, shared by `vap-lsp check` and the server's workspace scan."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

YAML_SUFFIXES = (".yaml", ".yml")
# Files larger than this are reported, not parsed: no policy is anywhere near it.
MAX_FILE_BYTES = 16 * 1024 * 1024


def walk_yaml(root: Path, errors: list[str]) -> Iterator[Path]:
    """YAML files below `root`, sorted, hidden folders skipped, symlinked folders not followed
    (so a symlink loop cannot hang the walk)."""

    def onerror(exc: OSError) -> None:
        errors.append(f"{exc.filename}: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(YAML_SUFFIXES):
                yield Path(dirpath) / name


def collect_files(paths: Sequence[str], errors: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(walk_yaml(path, errors))
        elif path.is_file():
            files.append(path)
        else:
            errors.append(f"{raw}: no such file or directory")
    return files


def read_file(path: Path, errors: list[str]) -> bytes | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            errors.append(f"{path}: skipped, larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
            return None
        return path.read_bytes()
    except OSError as exc:
        errors.append(f"{path}: {exc.strerror or exc}")
        return None
