"""Document bookkeeping: one model per open document, and the index follows open buffers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from lsprotocol import types as lsp
from pygls.workspace import Workspace

from vap_lsp.analysis.engine import analyse_text, parse_text
from vap_lsp.server.app import create_server
from vap_lsp.server.diagnostics import DiagnosticsScheduler


def test_a_changed_document_drops_its_stale_analysis_and_extras() -> None:
    scheduler = DiagnosticsScheduler(cast(Any, None))  # document_changed never touches the server
    seen: list[str] = []
    scheduler.change_listeners.append(seen.append)
    scheduler.analyses["file:///a.yaml"] = (1, analyse_text("a: 1\n"))
    scheduler.analyses["file:///b.yaml"] = (4, analyse_text("b: 2\n"))
    scheduler.extra["file:///a.yaml"] = []

    scheduler.document_changed("file:///a.yaml")

    assert list(scheduler.analyses) == ["file:///b.yaml"]  # other documents keep theirs
    assert scheduler.extra == {}
    assert seen == ["file:///a.yaml"]


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: NAME
spec:
  validations:
    - expression: "true"
"""


def test_a_late_reindex_from_disk_does_not_override_a_reopened_buffer(tmp_path: Path) -> None:
    """didClose re-reads the file in the thread pool; if the document is open again by then,
    the buffer's own analysis has indexed it, and the disk must not replace that."""
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY.replace("NAME", "on-disk"), encoding="utf-8")
    uri = path.as_uri()
    server = create_server()
    server.protocol._workspace = Workspace(tmp_path.as_uri())  # what initialize would set up
    buffer = POLICY.replace("NAME", "in-buffer")
    server.workspace.put_text_document(lsp.TextDocumentItem(uri, "yaml", 2, buffer))
    server.index.update(uri, parse_text(buffer)[1])

    server.reindex_from_disk(uri)
    assert [p.name for p in server.index.policies()] == ["in-buffer"]

    server.workspace.remove_text_document(uri)  # closed for good: the disk counts again
    server.reindex_from_disk(uri)
    assert [p.name for p in server.index.policies()] == ["on-disk"]
