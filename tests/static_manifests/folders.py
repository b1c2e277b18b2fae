"""Run a static manifests folder written in a test, and read the result as kube-apiserver says it.

`loader_errors` gives each error-severity finding in the words the loader's error has when it is
the one kube-apiserver stops at: the loader's own findings carry them already; a finding of the
object's validation (the engine's field errors and CEL errors) gets the prefix the loader adds
(`error loading <file>: ValidatingAdmissionPolicy "<name>": `). `agrees` compares them with the
one error kube-apiserver returns (the Go tests' own expectations, and the Go oracle's in
benchmarks/static_manifests_oracle.py): the same text, or, for an object with several
validation errors, the aggregate `[a, b]` of some of ours.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import parse_text
from vap_lsp.golang.strconv import quote
from vap_lsp.static_manifests.decode import Family
from vap_lsp.static_manifests.gate import scheme_name
from vap_lsp.static_manifests.loader import FolderResult, check_folder

_OWN_WORDS = ("error loading ", "binding ", "failed to split ", "failed to read ")


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def run(
    folder: Path, files: dict[str, str] | None = None, plugin: str | None = None, version: str = "1.37"
) -> FolderResult:
    if files is not None:
        write(folder, files)
    return check_folder(folder, version=version, family=Family(plugin) if plugin else None)


def loader_errors(result: FolderResult) -> list[str]:
    out = [d.message for d in result.notes if d.severity is Severity.ERROR]
    for f in result.files:
        objects = parse_text(f.path.read_text(encoding="utf-8"))[1] if f.path.is_file() else []
        for d in f.diagnostics:
            if d.severity is not Severity.ERROR:
                continue
            if d.message.startswith(_OWN_WORDS):
                out.append(d.message)
                continue
            owner = max(
                (o for o in objects if o.node.span.start <= d.span.start < o.node.span.end),
                key=lambda o: o.node.span.start,
                default=None,
            )
            kind = owner.kind if owner is not None else "?"
            name = owner.name or "" if owner is not None else ""
            out.append(f"error loading {f.path}: {kind} {quote(name)}: {d.message}")
    return out


def expected(server: str, folder: Path, minor: int = 37) -> str:
    return server.replace("{dir}", str(folder)).replace("{scheme}", scheme_name(minor))


_STRICT = "strict decoding error: "
_NEXT_STRICT = re.compile(r", (?=unknown field |duplicate field )")
_NEXT_FIELD = re.compile(r", (?=(?:metadata|spec|items)[.\[])")


def agrees(server: str, ours: list[str]) -> bool:
    """Whether kube-apiserver's error `server` is one of `ours`, or the aggregate of several: the
    strict decoding errors of a document (`strict decoding error: a, b`, go-yaml's duplicate keys
    one per line), the field errors of an object's validation (`Kind "name": [a, b]`)."""
    if server in ours:
        return True
    head, sep, rest = server.partition(_STRICT)
    if sep:
        parts: list[str] = []
        for part in _NEXT_STRICT.split(rest):
            _, yaml_sep, lines = part.partition("yaml: unmarshal errors:\n")
            if yaml_sep:
                parts.extend(f"{yaml_sep}  {line.strip()}" for line in lines.splitlines())
            else:
                parts.append(part)
        return all(f"{head}{sep}{part}" in ours for part in parts)
    head, sep, rest = server.partition(": [")
    if sep and rest.endswith("]"):
        return all(f"{head}: {part}" in ours for part in _NEXT_FIELD.split(rest[:-1]))
    return False


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")
