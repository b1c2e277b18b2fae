"""The one reader of files on disk: `vap-lsp check`, `run`, `test`, the configuration, CRD files
and the server's workspace scan all read through here, so a FIFO, a device, a dangling symlink,
a huge file or undecodable text gets the same clear message everywhere and never hangs.

API (every function appends one-line messages, `PATH: what is wrong`, to `errors` and never raises):

- `MAX_FILE_BYTES`: the one size limit; a larger file is reported, not read.
- `read_file(path, errors) -> bytes | None`: the bytes of a regular file (symlinks followed).
  Anything else is never opened for reading: `stat` first, then `open` with `O_NONBLOCK` and an
  `fstat` of the opened descriptor (a path swapped for a FIFO in between cannot block either).
  Reads at most `MAX_FILE_BYTES + 1` bytes.
- `read_text(path, errors) -> str | None`: `read_file` then YAML's decoding (UTF-8, or
  UTF-16/32 with a byte order mark); undecodable text is `PATH:LINE:COL: not UTF-8: ...`.
- `read_stream(stream, name, errors) -> bytes | None`: the same bounded read of a binary stream
  (standard input for `vap-lsp check -`).
- `text_problem(path, data) -> str | None`: the message `read_text` gives for bytes already read.
- `unreadable(path) -> str | None`: why `path` cannot be read as a file (missing, dangling
  symlink, FIFO, device, directory, permission), or None; what `collect_files` reports.
- `walk_yaml(root, errors, suffixes)`: the `*.yaml`/`*.yml` (or `suffixes`) files below a
  folder (hidden folders skipped, symlinked folders not followed, `.vap-lsp.yaml`
  configuration files left out).
- `walked(root, path)`: whether `walk_yaml(root)` yields `path`, without walking.
- `list_folder(folder, errors)`: the entries directly in one folder, sorted by name, each with
  whether it is a folder itself (a symlink is not, as Go's `os.ReadDir` says): what
  kube-apiserver lists of a `staticManifestsDir` (`vap_lsp.static_manifests`).
- `collect_files(paths, errors)`: files named on the command line and those found in folders.
- `expand_glob(pattern, errors)`: the paths a glob matches, `**` not following symlinked folders,
  capped (`MAX_GLOB_PATHS`, `MAX_GLOB_FOLDERS`).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from vap_lsp.text import LineIndex
from vap_lsp.yaml.detect import decode_bytes, lossy_text

YAML_SUFFIXES = (".yaml", ".yml")
# vap-lsp's own configuration files (`vap_lsp.config`): found in a folder, never checked as policies.
CONFIG_FILE_NAMES = (".vap-lsp.yaml", ".vap-lsp.yml")
# Files larger than this are reported, not parsed: no policy is anywhere near it.
MAX_FILE_BYTES = 16 * 1024 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _too_large(name: str | Path) -> str:
    return f"{name}: skipped, larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB"


def _kind_problem(path: str | Path, mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    kind = next((text for test, text in _KINDS if test(mode)), "not a regular file")
    return f"{path}: skipped, {kind} is not a regular file"


def _missing(path: str | Path) -> str:
    """A path that `stat` (following links) cannot find: say when it is a dangling symlink."""
    try:
        target = os.readlink(path)
    except OSError:
        return f"{path}: no such file or directory"
    return f"{path}: broken symbolic link (its target {target} does not exist)"


def unreadable(path: str | Path) -> str | None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return _missing(path)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return _kind_problem(path, mode)


def read_file(path: str | Path, errors: list[str]) -> bytes | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        errors.append(_missing(path))
        return None
    except OSError as exc:
        errors.append(f"{path}: {exc.strerror or exc}")
        return None
    problem = _kind_problem(path, info.st_mode)
    if problem is None and info.st_size > MAX_FILE_BYTES:
        problem = _too_large(path)
    if problem is not None:
        errors.append(problem)
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        errors.append(f"{path}: {exc.strerror or exc}")
        return None
    try:
        problem = _kind_problem(path, os.fstat(fd).st_mode)  # replaced since the stat above?
        if problem is not None:
            errors.append(problem)
            return None
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return read_stream(stream, str(path), errors)
    except OSError as exc:
        errors.append(f"{path}: {exc.strerror or exc}")
        return None
    finally:
        os.close(fd)


def read_stream(stream: BinaryIO, name: str, errors: list[str]) -> bytes | None:
    try:
        data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        errors.append(f"{name}: {exc.strerror or exc}")
        return None
    if len(data) > MAX_FILE_BYTES:
        errors.append(_too_large(name))
        return None
    return data


def text_problem(path: str | Path, data: bytes) -> str | None:
    text, problem = decode_bytes(data)
    if text is not None or problem is None:
        return None
    where = LineIndex(lossy_text(data)[: problem.span.start + 1]).line_col(problem.span.start)
    return f"{path}:{where.line + 1}:{where.column + 1}: {problem.message}"


def read_text(path: str | Path, errors: list[str]) -> str | None:
    data = read_file(path, errors)
    if data is None:
        return None
    text, _ = decode_bytes(data)
    if text is None:
        errors.append(text_problem(path, data) or f"{path}: not a text file")
    return text


def walk_yaml(root: Path, errors: list[str], suffixes: tuple[str, ...] = YAML_SUFFIXES) -> Iterator[Path]:
    """YAML files (or files ending in `suffixes`) below `root`, sorted, hidden folders skipped,
    symlinked folders not followed (so a symlink loop cannot hang the walk), vap-lsp's
    configuration files left out. Every other name is yielded: `read_file` says why a FIFO or a
    dangling symlink among them is not read."""

    def onerror(exc: OSError) -> None:
        errors.append(f"{exc.filename}: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(suffixes) and name not in CONFIG_FILE_NAMES:
                yield Path(dirpath) / name


def walked(root: Path, path: Path, suffixes: tuple[str, ...] = YAML_SUFFIXES) -> bool:
    """Whether `walk_yaml(root)` yields `path` (absolute, normalised as a URI gives it): below
    `root` through folders that are neither hidden nor symlinks, a YAML name, no configuration
    file. What the server's folder scan reads, checked for one file without walking."""
    try:
        relative = Path(os.path.normpath(path)).relative_to(os.path.normpath(root))
    except ValueError:
        return False
    folders = relative.parts[:-1]
    if not relative.parts or any(part.startswith(".") for part in folders):
        return False
    if any(os.path.islink(Path(root, *folders[: i + 1])) for i in range(len(folders))):
        return False
    return relative.name.endswith(suffixes) and relative.name not in CONFIG_FILE_NAMES


def list_folder(folder: str | Path, errors: list[str]) -> list[tuple[str, bool]] | None:
    """(name, is a folder without following a symlink) of every entry directly in `folder`,
    sorted by name as Go's `os.ReadDir` sorts them; None (and a message) if it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    except FileNotFoundError:
        errors.append(_missing(folder))
        return None
    except OSError as exc:
        errors.append(f"{folder}: {exc.strerror or exc}")
        return None
    return sorted(found)


def collect_files(paths: Sequence[str | Path], errors: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(walk_yaml(path, errors))
            continue
        problem = unreadable(raw)
        if problem is None:
            files.append(path)
        else:
            errors.append(problem)
    return files


# The most paths one glob may yield, and folders it may visit: a pattern over a huge tree is
# reported and cut, not followed for minutes.
MAX_GLOB_PATHS = 10_000
MAX_GLOB_FOLDERS = 20_000
GLOB_CHARS = frozenset("*?[")


def expand_glob(pattern: str | Path, errors: list[str]) -> list[Path]:
    """The paths matching `pattern` (`**` for any folders, `*`, `?`, `[...]`), sorted, as
    `glob.glob(recursive=True)` finds them except that `**` never descends into a symlinked
    folder (two `vendor/a -> .` links made it unbounded) and the walk is capped
    (`MAX_GLOB_PATHS`, `MAX_GLOB_FOLDERS`, said in `errors`). Names starting with `.` match only
    a segment that starts with `.`, as in `glob`."""
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) and not (GLOB_CHARS & set(parts[fixed])):
        fixed += 1
    base = Path(*parts[:fixed]) if fixed else Path()
    found: dict[Path, None] = {}
    visited = 0

    def children(folder: Path) -> list[os.DirEntry[str]]:
        nonlocal visited
        visited += 1
        try:
            with os.scandir(folder if str(folder) else ".") as entries:
                return sorted(entries, key=lambda e: e.name)
        except OSError:
            return []

    def full() -> bool:
        return len(found) >= MAX_GLOB_PATHS or visited >= MAX_GLOB_FOLDERS

    def walk(folder: Path, rest: tuple[str, ...]) -> None:
        if full():
            return
        if not rest:
            found[folder] = None
            return
        segment, more = rest[0], rest[1:]
        if segment == "**":
            walk(folder, more)
            for entry in children(folder):
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    walk(folder / entry.name, rest)
                elif not more:  # a last `**` matches files too
                    walk(folder / entry.name, more)
            return
        if not (GLOB_CHARS & set(segment)):
            if os.path.lexists(folder / segment):
                walk(folder / segment, more)
            return
        for entry in children(folder):
            if entry.name.startswith(".") and not segment.startswith("."):
                continue
            if fnmatch.fnmatchcase(entry.name, segment) and (not more or entry.is_dir()):
                walk(folder / entry.name, more)

    if fixed == len(parts):
        return [base] if os.path.lexists(base) else []
    if os.path.isdir(base if str(base) else "."):
        walk(base, parts[fixed:])
    if full():
        errors.append(
            f"{pattern}: stopped after {len(found)} paths and {visited} folder listings "
            f"(at most {MAX_GLOB_PATHS} and {MAX_GLOB_FOLDERS} per pattern)"
        )
    return sorted(found)
