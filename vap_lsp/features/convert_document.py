""" "Convert to ValidatingAdmissionPolicy": the Gatekeeper template or Kyverno policy of an open
document converted as `vap-lsp convert` does, into the text of a new file beside it.

What could not be converted, and the notes, lead the new file as comments: nothing is dropped
in silence, in the editor either.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.convert import gatekeeper, kyverno
from vap_lsp.convert.driver import convert_sources
from vap_lsp.convert.model import Options
from vap_lsp.convert.sources import read_text_sources
from vap_lsp.features.snapshot import DocumentSnapshot

TITLE = "Convert to ValidatingAdmissionPolicy"


def _data(obj: K8sObject) -> dict[str, object]:
    return {"apiVersion": obj.api_version, "kind": obj.kind}


def convertible(obj: K8sObject) -> bool:
    """A Gatekeeper template or constraint, or a Kyverno policy."""
    data = _data(obj)
    return gatekeeper.is_template(data) or gatekeeper.is_constraint(data) or kyverno.is_kyverno_policy(data)


def offers(snapshot: DocumentSnapshot, offset: int) -> bool:
    """Whether the object at `offset` (or, without one, the document) can be converted."""
    obj = snapshot.object_at(offset)
    if obj is not None:
        return convertible(obj)
    return any(convertible(o) for o in snapshot.objects)


@dataclass(frozen=True)
class ConvertedDocument:
    text: str
    """The YAML of the new file (empty when nothing could be converted)."""
    file_name: str
    """Its name, beside the source: `<stem>.vap.yaml`."""
    summary: str
    """One line for the user."""


def _comment(lines: list[str]) -> str:
    return "".join(f"# {line}\n" for line in lines)


def convert_document(path: str, text: str, kubernetes_version: str) -> ConvertedDocument:
    """The document converted (its own objects only: a template's constraints in other files
    are converted by `vap-lsp convert` given both)."""
    run = convert_sources(read_text_sources(text, path), Options(kubernetes_version))
    stem = PurePath(path).name.rsplit(".", 1)[0] or "policy"
    header: list[str] = []
    for u in run.unconvertible:
        field = f" [{u.where}]" if u.where else ""
        header.append(f"Not converted: {u.origin.label()}: {u.construct}{field}: {u.reason}")
    header.extend(f"Note: {c.origin.label()}: {note}" for c in run.conversions for note in c.notes)
    policies = sum(len(c.policies) for c in run.conversions)
    body = "---\n".join(run.texts.values())
    summary = (
        f"{policies} ValidatingAdmissionPolic{'ies' if policies != 1 else 'y'} written"
        + (
            f", {len(run.unconvertible)} part(s) not converted (see the file's first lines)"
            if run.unconvertible
            else ""
        )
        if policies
        else "nothing could be converted: "
        + "; ".join(f"{u.construct}: {u.reason}" for u in run.unconvertible[:2])
    )
    text_out = _comment(header) + body if body else ""
    return ConvertedDocument(text_out, f"{stem}.vap.yaml", summary)
