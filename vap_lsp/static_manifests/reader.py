"""What kube-apiserver reads of a static manifests folder, and how it cuts files into documents.

k8s.io/apiserver `pkg/admission/plugin/manifest/loader.go`:

* `LoadFiles`: `os.ReadDir` (sorted by name), entries that are folders skipped (a symlink is
  not a folder there, and reading one that points at a folder fails), only names whose
  `filepath.Ext`, lower-cased, is `.yaml`, `.yml` or `.json`; an empty file is skipped.
* `splitYAMLDocuments`: apimachinery's `YAMLReader` (`pkg/util/yaml/decoder.go`) reads line
  by line (`bufio.ReadLine`: `\\r\\n` and `\\n` end a line); a line that starts with `---`
  ends the document being read, and only spaces or a `#` comment may follow the `---` on it
  (else `invalid Yaml document separator: <rest>`). A separator line that comes when nothing
  has been read yet stays at the start of the next document. Each document is then
  `bytes.TrimSpace`d, and one left empty is dropped.

So a file that holds only `---`, or whose last document is only a comment, yields a document
that decodes to nothing: kube-apiserver refuses it (`Object 'Kind' is missing in '---'`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vap_lsp.golang.strings import SPACE, trim_space

READ_EXTENSIONS = (".yaml", ".yml", ".json")
SEPARATOR = "---"


def go_ext(name: str) -> str:
    """`filepath.Ext`: from the last dot of the last path element (`.yaml` of `.yaml` too)."""
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


def is_read(name: str) -> bool:
    """Whether `LoadFiles` reads a file of this name (before looking at its content)."""
    return go_ext(name).lower() in READ_EXTENSIONS


@dataclass(frozen=True)
class Document:
    """One document as `splitYAMLDocuments` returns it: the trimmed text, where it starts and
    ends in the file's text, and its text as the decoder gets it (`\\r\\n` read as `\\n`)."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class SplitError:
    offset: int  # start of the offending separator line
    message: str  # `invalid Yaml document separator: ...`


def _lines(text: str) -> list[tuple[int, int, str]]:
    """(start, end without the line break, content as `bufio.ReadLine` returns it)."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    n = len(text)
    while pos < n:
        newline = text.find("\n", pos)
        if newline < 0:
            out.append((pos, n, text[pos:n]))
            break
        end = newline - 1 if newline > pos and text[newline - 1] == "\r" else newline
        out.append((pos, end, text[pos:end]))
        pos = newline + 1
    return out


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in SPACE:
        start += 1
    while end > start and text[end - 1] in SPACE:
        end -= 1
    return start, end


def split_documents(text: str) -> list[Document] | SplitError:
    """The documents kube-apiserver decodes, or the error that makes it give up on the file."""
    docs: list[Document] = []
    buffer: list[tuple[int, int, str]] = []

    def flush() -> None:
        if buffer:
            body = trim_space("".join(content + "\n" for _, _, content in buffer))
            if body:
                start, end = _trimmed(text, buffer[0][0], buffer[-1][1])
                docs.append(Document(start, end, body))
            buffer.clear()

    for start, end, content in _lines(text):
        if content.startswith(SEPARATOR):
            rest = trim_space(content[len(SEPARATOR) :])
            if rest and not rest.startswith("#"):
                return SplitError(start, f"invalid Yaml document separator: {rest}")
            if buffer:
                flush()
                continue
        buffer.append((start, end, content))
    flush()
    return docs


def describe_os_error(op: str, path: str, exc: OSError) -> str:
    """Go's `*fs.PathError` text for a failed open or read (`open P: no such file or directory`)."""
    reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
    return f"{op} {path}: {reason}"
