"""Objects from cluster snapshots, streamed: `kubectl get -o yaml|json` Lists, multi-document
YAML, folders of manifests, gzip-compressed files.

Why not `admission.load`: that reader keeps every document (with positions) for a handful of
sample objects; a snapshot may hold millions of objects in one `List`, so here the items of a
top-level List are read one at a time (YAML through libyaml's events, JSON through
`raw_decode` over a sliding buffer) and memory stays flat in the number of objects. YAML is
read as kubectl reads it (YAML 1.1 scalars), except that timestamps stay strings, as they do
when the API server decodes a manifest into an object.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import yaml

from vap_lsp.impact.locations import Location, LocationError, expand

SNAPSHOT_SUFFIXES = (".yaml", ".yml", ".json", ".yaml.gz", ".yml.gz", ".json.gz")
# Below this size a file is parsed whole (faster); above it, a List's items are streamed.
WHOLE_FILE_BYTES = 8 * 1024 * 1024
_CHUNK = 1 << 20


class SnapshotError(Exception):
    """A file that cannot be read as objects (the message names the file)."""


@dataclass(frozen=True)
class SourceObject:
    """One object of the snapshot and where it came from (file, document, item)."""

    source: str
    obj: dict[str, Any]


def snapshot_files(paths: Sequence[str], errors: list[str]) -> list[Location]:
    """Files given (paths, URLs, globs), and below folders: YAML and JSON manifests, plain or
    gzip-compressed."""
    return expand(paths, errors, SNAPSHOT_SUFFIXES)


def _text_stream(path: Location) -> tuple[IO[str], int]:
    binary = path.open_binary()
    size = path.size() if not isinstance(binary, gzip.GzipFile) else -1
    return io.TextIOWrapper(binary, encoding="utf-8", errors="replace"), size


def iter_objects(paths: Sequence[Location]) -> Iterator[SourceObject]:
    """Every Kubernetes object of the files, Lists unwrapped; raises SnapshotError on a file
    that is not YAML or JSON (objects before the error were already yielded)."""
    for path in paths:
        yield from _file_objects(path)


def _file_objects(path: Location) -> Iterator[SourceObject]:
    try:
        stream, size = _text_stream(path)
    except LocationError as exc:
        raise SnapshotError(str(exc)) from exc
    with stream:
        try:
            first = _first_char(stream)
            json_text = first in ("{", "[")
            docs = _json_documents(stream, size) if json_text else _yaml_documents(stream, size)
            index = 0
            for doc in docs:
                for item in _items(doc):
                    index += 1
                    if _is_object(item):
                        yield SourceObject(f"{path}#{index}", item)
        except (yaml.YAMLError, json.JSONDecodeError, ValueError) as exc:
            raise SnapshotError(f"{path}: {_one_line(exc)}") from exc
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise SnapshotError(f"{path}: {exc}") from exc


def _is_object(item: Any) -> bool:
    """A Kubernetes object: a mapping with a non-empty string apiVersion and kind."""
    if not isinstance(item, dict):
        return False
    api_version, kind = item.get("apiVersion"), item.get("kind")
    return isinstance(api_version, str) and isinstance(kind, str) and bool(api_version and kind)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _first_char(stream: IO[str]) -> str:
    """The first character that is not blank or a YAML comment line, leaving the stream where
    it was (TextIOWrapper over a seekable or gzip stream can seek back to 0)."""
    while True:
        line = stream.readline()
        if not line:
            stream.seek(0)
            return ""
        stripped = line.lstrip("\ufeff \t\r\n")
        if stripped and not stripped.startswith("#"):
            stream.seek(0)
            return stripped[0]


def _items(doc: Any, depth: int = 0) -> Iterator[Any]:
    """A `*List` document's items (nested Lists too), else the document itself."""
    if isinstance(doc, _StreamedList):
        yield from doc.items
        return
    if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and depth < 4:
        items = doc.get("items")
        if isinstance(items, list):
            for item in items:
                yield from _items(item, depth + 1)
            return
    yield doc


@dataclass
class _StreamedList:
    """A top-level List whose items are read as they are consumed."""

    items: Iterator[Any]


# --- YAML -------------------------------------------------------------------------------------------


class _Resolver(yaml.resolver.Resolver):  # type: ignore[misc]
    """YAML 1.1 as kubectl resolves it, timestamps left as strings."""


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}


class _PureParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):  # type: ignore[misc]
    """PyYAML's own parser, where PyYAML was built without libyaml."""

    def __init__(self, stream: IO[str]) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


_Parser: Any = getattr(yaml, "CParser", None) or _PureParser
_Composer: Any = yaml.composer.Composer
_Constructor: Any = yaml.constructor.SafeConstructor


class _Loader(_Parser, _Composer, _Constructor, _Resolver):  # type: ignore[misc]
    """libyaml's events, composed node by node in Python (so a List's items can be built one at
    a time)."""

    def __init__(self, stream: IO[str]) -> None:
        _Parser.__init__(self, stream)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


def _whole_loader(stream: IO[str]) -> Any:
    """libyaml composing whole documents (faster, for files read whole)."""
    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is None:
        return _Loader(stream)

    class Whole(c_loader, _Resolver):  # type: ignore[valid-type,misc]
        pass

    return Whole(stream)


def _yaml_documents(stream: IO[str], size: int) -> Iterator[Any]:
    if 0 <= size <= WHOLE_FILE_BYTES:
        whole = _whole_loader(stream)
        try:
            while whole.check_data():
                yield whole.get_data()
        finally:
            whole.dispose()
        return
    loader = _Loader(stream)
    try:
        yield from _yaml_stream(loader)
    finally:
        loader.dispose()


def _yaml_stream(loader: Any) -> Iterator[Any]:
    """Documents of the stream; a top-level mapping with an `items` sequence is a
    `_StreamedList` when its `kind` (before `items`) says List or is not given before it."""
    ev = yaml.events
    loader.get_event()  # StreamStart
    while not loader.check_event(ev.StreamEndEvent):
        loader.get_event()  # DocumentStart
        if not loader.check_event(ev.MappingStartEvent):
            node = loader.compose_node(None, None)
            loader.get_event()  # DocumentEnd
            loader.anchors = {}
            yield loader.construct_document(node)
            continue
        loader.get_event()  # MappingStart
        head: dict[Any, Any] = {}
        streamed = False
        while not loader.check_event(ev.MappingEndEvent):
            key = loader.construct_document(loader.compose_node(None, None))
            kind = head.get("kind")
            if (
                key == "items"
                and loader.check_event(ev.SequenceStartEvent)
                and (kind is None or str(kind).endswith("List"))
            ):
                loader.get_event()  # SequenceStart
                streamed = True
                yield _StreamedList(_yaml_items(loader))
                continue
            head[key] = loader.construct_document(loader.compose_node(None, None))
        loader.get_event()  # MappingEnd
        loader.get_event()  # DocumentEnd
        loader.anchors = {}
        if not streamed:
            yield head
        elif not str(head.get("kind", "")).endswith("List"):
            raise ValueError("a top-level `items` sequence in an object that is not a List")


def _yaml_items(loader: Any) -> Iterator[Any]:
    ev = yaml.events
    while not loader.check_event(ev.SequenceEndEvent):
        yield loader.construct_document(loader.compose_node(None, None))
    loader.get_event()  # SequenceEnd


# --- JSON -------------------------------------------------------------------------------------------


def _json_documents(stream: IO[str], size: int) -> Iterator[Any]:
    """One JSON value, or several in a row (`kubectl get -o json` of several files, JSON lines)."""
    if 0 <= size <= WHOLE_FILE_BYTES:
        text = stream.read()
        decoder = json.JSONDecoder()
        pos = _skip_ws(text, 0)
        while pos < len(text):
            value, pos = decoder.raw_decode(text, pos)
            yield value
            pos = _skip_ws(text, pos)
        return
    reader = _JsonReader(stream)
    while not reader.at_end():
        if reader.peek() == "{":
            yield from reader.object_streaming_items()
        else:
            yield reader.value()


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\ufeff":
        pos += 1
    return pos


class _JsonReader:
    """JSON values off a text stream through a buffer of at most one value plus one chunk."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.decoder = json.JSONDecoder()

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.stream.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def _skip(self) -> None:
        while True:
            self.pos = _skip_ws(self.buf, self.pos)
            if self.pos < len(self.buf) or not self._fill():
                return

    def at_end(self) -> bool:
        self._skip()
        return self.pos >= len(self.buf)

    def peek(self) -> str:
        self._skip()
        if self.pos >= len(self.buf):
            raise ValueError("unexpected end of JSON")
        return self.buf[self.pos]

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise ValueError(f"expected {char!r} at character {self.pos}")
        self.pos += 1

    def value(self) -> Any:
        self._skip()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._fill():
                    continue
                raise
            # A number at the end of the buffer may go on in the next chunk.
            if end == len(self.buf) and not self.eof and self._fill():
                continue
            self.pos = end
            return value

    def object_streaming_items(self) -> Iterator[Any]:
        """A top-level object, its `items` array streamed as a `_StreamedList` (see YAML)."""
        self.expect("{")
        head: dict[str, Any] = {}
        streamed = False
        if self.peek() == "}":
            self.pos += 1
            yield head
            return
        while True:
            key = self.value()
            self.expect(":")
            kind = head.get("kind")
            if key == "items" and self.peek() == "[" and (kind is None or str(kind).endswith("List")):
                self.pos += 1
                streamed = True
                yield _StreamedList(self._array_items())
            else:
                head[str(key)] = self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("}")
            break
        if not streamed:
            yield head
        elif not str(head.get("kind", "")).endswith("List"):
            raise ValueError("a top-level `items` array in an object that is not a List")

    def _array_items(self) -> Iterator[Any]:
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return
