"""Where the inputs of `vap-lsp impact` are: local paths, or URLs and globs read through fsspec
(`file://`, `s3://`, `gs://`, `az://`… when the matching fsspec package is installed).

Why fsspec and not a reader per store: audit logs of a fleet sit in object storage, and the
Dask workers that read them (`impact.scale`) need the same names the client was given; fsspec
is what Dask itself reads with. It comes with `vap-lsp[scale]`; without it local paths work as
they always did and a URL or a glob gets a clear message.

Local paths keep their checks (`analysis.files.unreadable`: a FIFO or a device is never
opened). Gzip is recognised by its content, whatever the name.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from vap_lsp.analysis.files import unreadable, walk_yaml

GZIP_MAGIC = b"\x1f\x8b"
_GLOB = ("*", "?", "[")
SCALE_EXTRA = "pip install 'vap-lsp[scale]'"


class LocationError(Exception):
    """An input that cannot be named or opened (the message names it)."""


@dataclass(frozen=True)
class Location:
    """One input file: a local path, or a URL (`protocol://…`) read through fsspec."""

    url: str
    """A local path as given (or found below a folder), or a URL with its protocol."""

    @property
    def local(self) -> bool:
        return "://" not in self.url

    def __str__(self) -> str:
        return self.url

    def size(self) -> int:
        """Bytes stored (compressed for gzip); -1 when unknown."""
        try:
            if self.local:
                return Path(self.url).stat().st_size
            fs, path = _filesystem(self.url)
            return int(fs.size(path) or -1)
        except (OSError, ValueError):
            return -1

    def open_raw(self) -> IO[bytes]:
        """The stored bytes (raises LocationError)."""
        try:
            if self.local:
                problem = unreadable(self.url)  # found in a folder: a FIFO must not block the run
                if problem is not None:
                    raise LocationError(problem)
                return open(self.url, "rb")
            fs, path = _filesystem(self.url)
            raw: IO[bytes] = fs.open(path, "rb")
            return raw
        except OSError as exc:
            raise LocationError(f"{self.url}: {exc.strerror or exc}") from exc

    def open_binary(self) -> IO[bytes]:
        """The file's bytes, gunzipped when it starts with the gzip magic (whatever its name)."""
        raw = self.open_raw()
        try:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
        except OSError as exc:
            raw.close()
            raise LocationError(f"{self.url}: {exc.strerror or exc}") from exc
        if gzipped:
            return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
        return raw

    def gzipped(self) -> bool:
        with self.open_raw() as raw:
            return raw.read(2) == GZIP_MAGIC


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError:
        return None
    return fsspec


def _filesystem(url: str) -> tuple[Any, str]:
    """fsspec's filesystem for `url` and the path inside it; raises LocationError when fsspec or
    the package of that protocol (s3fs, gcsfs, adlfs…) is not installed."""
    fsspec = _fsspec()
    if fsspec is None:
        raise LocationError(f"{url}: reading URLs and globs needs fsspec: {SCALE_EXTRA}")
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise LocationError(f"{url}: {exc}") from exc
    return fs, str(path)


def is_pattern(text: str) -> bool:
    return any(c in text for c in _GLOB)


def expand(paths: Sequence[str], errors: list[str], suffixes: tuple[str, ...]) -> list[Location]:
    """The files named: local files, local folders (their files with `suffixes`, as
    `analysis.files.walk_yaml` finds them), URLs, URL folders (their files with `suffixes`) and
    globs (every match: a glob names its files). Problems go to `errors`."""
    out: list[Location] = []
    for raw in paths:
        if "://" not in raw and (Path(raw).exists() or not is_pattern(raw)):
            path = Path(raw)
            if path.is_dir():
                out.extend(Location(str(p)) for p in walk_yaml(path, errors, suffixes=suffixes))
                continue
            problem = unreadable(raw)  # a FIFO or a device is never opened
            if problem is None:
                out.append(Location(raw))
            else:
                errors.append(problem)
            continue
        try:
            out.extend(_expand_url(raw, suffixes))
        except LocationError as exc:
            errors.append(str(exc))
    return out


def _expand_url(raw: str, suffixes: tuple[str, ...]) -> list[Location]:
    fs, path = _filesystem(raw)
    protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
    local = "file" in protocols  # local matches keep the checks of local paths
    try:
        if is_pattern(path):
            found = sorted(str(p) for p in fs.glob(path) if fs.isfile(p))
            if not found:
                raise LocationError(f"{raw}: no file matches")
        elif fs.isdir(path):
            found = sorted(str(p) for p in fs.find(path) if str(p).endswith(suffixes))
        elif fs.isfile(path):
            found = [path]
        else:
            raise LocationError(f"{raw}: no such file or directory")
    except OSError as exc:
        raise LocationError(f"{raw}: {exc.strerror or exc}") from exc
    if local:
        return [Location(p) for p in found]
    return [Location(fs.unstrip_protocol(p)) for p in found]


__all__ = ["Location", "LocationError", "expand", "is_pattern"]
