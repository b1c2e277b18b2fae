"""Import lsprotocol with attrs' generated methods compiled once, not at every start.

`lsprotocol.types` (which pygls imports whole) defines ~550 attrs classes. For each, attrs
writes the source of `__init__`, `__eq__`, `__repr__`, ... and compiles it: about half of the
module's import time, and the largest single cost of the server's start. A code object depends
only on that source text, the file name attrs gives it, the compiler flags and the Python
bytecode version, so the code objects are kept in a marshal file under the user's cache
directory and looked up by (file name, source): a cache entry can never stand for other code.
Anything unexpected (other attrs internals, an unreadable, corrupt or unwritable cache) falls
back to compiling as usual. Called by `vap-lsp serve` before anything imports pygls.

The analysis engine is not imported before the server answers `initialize`:
`import_engine_in_background` loads it in a thread while the client handles that answer (the
CPU of both imports stays the same; the time the server would spend waiting for the client's
next messages is used), so it is ready, or nearly, when the first document arrives.
"""

from __future__ import annotations
import __future__

import importlib
import importlib.util
import logging
import marshal
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

log = logging.getLogger(__name__)

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

_Key = tuple[str, str]  # (file name attrs gives the script, script)


ENGINE_MODULE = "vap_lsp.analysis.engine"


_engine_import: threading.Thread | None = None


def import_engine_in_background(then: Callable[[], object] | None = None) -> None:
    """Start importing the analysis engine in a daemon thread (once); `then` runs in that thread
    once the import has ended.

    Call it once every module the event loop needs is imported: the loop imports nothing after
    that. Work in the thread pool waits for this import first (`wait_for_engine`, called by
    `server.worker`), so no other thread imports modules while it runs: no lock-order
    deadlock between two imports is possible. A failure is logged, and the first analysis's own
    import of `vap_lsp.analysis.engine` reports it again.
    """
    global _engine_import
    if _engine_import is None:
        _engine_import = threading.Thread(
            target=_import_engine, args=(then,), name="vap-lsp-engine-import", daemon=True
        )
        _engine_import.start()


def engine_ready() -> bool:
    """Whether the engine is imported and no background import of it is still running."""
    thread = _engine_import
    return ENGINE_MODULE in sys.modules and (thread is None or not thread.is_alive())


def wait_for_engine() -> None:
    """Block until the background import (if one was started) has finished."""
    thread = _engine_import
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def _import_engine(then: Callable[[], object] | None) -> None:
    try:
        importlib.import_module(ENGINE_MODULE)
    except Exception:
        log.exception("could not import %s", ENGINE_MODULE)
    if then is not None:
        try:
            then()
        except Exception:
            log.exception("after importing %s", ENGINE_MODULE)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vap-lsp"


def import_protocol(directory: Path | None = None) -> int:
    """Import `lsprotocol.types`; returns how many attrs scripts had to be compiled (0 when the
    cache had them all; -1 when the cache was not used)."""
    if "lsprotocol.types" in sys.modules:
        return -1
    try:
        make: Any = importlib.import_module("attr._make")
    except ImportError:  # pragma: no cover - attrs is a dependency of lsprotocol
        make = None
    original = getattr(make, "_compile_and_eval", None)
    code = getattr(original, "__code__", None)
    if code is None or code.co_varnames[: code.co_argcount] != ("script", "globs", "locs", "filename"):
        import lsprotocol.types

        return -1
    flags = code.co_flags & _FUTURE_FLAGS  # what attrs' own compile() call inherits
    try:
        path = _cache_file(directory or cache_dir(), make)
    except (RuntimeError, OSError):  # no home directory: no cache
        path = None
    known = _load(path) if path is not None else {}
    used: dict[_Key, CodeType] = {}
    compiled = 0

    def compile_and_eval(
        script: str,
        globs: dict[str, Any] | None,
        locs: Mapping[str, object] | None = None,
        filename: str = "",
    ) -> None:
        nonlocal compiled
        key = (filename, script)
        bytecode = known.get(key)
        if not isinstance(bytecode, CodeType):
            bytecode = compile(script, filename, "exec", flags=flags, dont_inherit=True)
            compiled += 1
        used[key] = bytecode
        eval(bytecode, globs, locs)

    make._compile_and_eval = compile_and_eval
    try:
        import lsprotocol.types  # noqa: F401
    finally:
        make._compile_and_eval = original
    if compiled and path is not None:
        _store(path, used)  # only what this import used: the file never collects stale entries
    return compiled


def _cache_file(directory: Path, make: Any) -> Path | None:
    """The cache of this lsprotocol, attrs and Python (a new version of either: a new file)."""
    spec = importlib.util.find_spec("lsprotocol.types")
    if spec is None or spec.origin is None:
        return None
    parts = [importlib.util.MAGIC_NUMBER.hex(), str(marshal.version)]
    for source in (spec.origin, getattr(make, "__file__", "")):
        try:
            stat = os.stat(source)
        except OSError:
            return None
        parts += [str(stat.st_size), str(stat.st_mtime_ns)]
    return directory / f"lsprotocol-attrs-{'-'.join(parts)}.marshal"


def _load(path: Path) -> dict[_Key, CodeType]:
    """Through `analysis.files` like every read: a FIFO or a device planted where the cache file
    goes is refused instead of blocking start-up."""
    from vap_lsp.analysis.files import read_file

    if not path.exists():
        return {}
    errors: list[str] = []
    raw = read_file(path, errors)
    if raw is None:
        log.debug("ignoring %s", "; ".join(errors))
        return {}
    try:
        data = marshal.loads(raw)
    except Exception as exc:  # corrupt: compile, and rewrite it
        log.debug("ignoring %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _store(path: Path, codes: dict[_Key, CodeType]) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(marshal.dumps(codes))
        os.replace(temporary, path)  # readers see the old file or the new one, never half of it
    except OSError as exc:
        log.debug("could not write %s: %s", path, exc)
        temporary.unlink(missing_ok=True)
        return
    _prune(path.parent)


# Each new install (of lsprotocol, attrs or Python) writes a new ~2 MB file: the newest few are
# kept (two environments used in turn must not evict each other), older ones deleted.
KEPT_CACHE_FILES = 4


def _prune(directory: Path) -> None:
    try:
        files = sorted(
            directory.glob("lsprotocol-attrs-*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in files[KEPT_CACHE_FILES:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # another server pruning at the same time, a read-only cache
        log.debug("could not prune %s: %s", directory, exc)
