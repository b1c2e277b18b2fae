"""DiagnosticsScheduler bookkeeping that keeps memory to one model per open document."""

from __future__ import annotations

from typing import Any, cast

from vap_lsp.analysis.engine import analyse_text
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
