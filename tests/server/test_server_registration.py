"""One table of feature modules, one handler per LSP method: code actions, hover and inlay hints
combine every module's provider, each under the worker's one guard, so a failing provider
costs its own part of the answer only."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.workspace import Workspace

from vap_lsp.server import registration
from vap_lsp.server.app import create_server
from vap_lsp.server.registration import Feature

URI = "file:///ws/policy.yaml"


def _server_with(monkeypatch: pytest.MonkeyPatch, *features: Feature) -> Any:
    monkeypatch.setattr(registration, "FEATURES", features)
    server = create_server()
    server.protocol._workspace = Workspace("file:///ws")  # what initialize would set up
    server.workspace.put_text_document(lsp.TextDocumentItem(URI, "yaml", 1, "kind: ConfigMap\n"))
    return server


def _nothing(ctx: Any) -> None:
    """A feature module without handlers of its own."""


async def test_a_failing_code_action_provider_leaves_the_others_answer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(ctx: Any, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        raise ZeroDivisionError("a feature bug")

    def fixes(ctx: Any, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return [lsp.CodeAction(title="fix it", kind=lsp.CodeActionKind.QuickFix)]

    server = _server_with(
        monkeypatch,
        Feature(_nothing, code_actions=broken, code_action_kinds=(lsp.CodeActionKind.Source,)),
        Feature(_nothing, code_actions=fixes, code_action_kinds=(lsp.CodeActionKind.QuickFix,)),
    )
    handler = server.protocol.fm.features[lsp.TEXT_DOCUMENT_CODE_ACTION]
    here = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    params = lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(URI), here, lsp.CodeActionContext(diagnostics=[])
    )
    assert [a.title for a in await handler(params)] == ["fix it"]
    assert "broken failed" in caplog.text
    # The one registration offers the kinds of every provider, in table order.
    options = server.protocol.fm.feature_options[lsp.TEXT_DOCUMENT_CODE_ACTION]
    assert options.code_action_kinds == [lsp.CodeActionKind.Source, lsp.CodeActionKind.QuickFix]


async def test_hovers_are_joined_in_table_order_at_the_first_ones_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 4))

    def cel(ctx: Any, params: lsp.HoverParams) -> lsp.Hover | None:
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, "`kind`: string"), first)

    def silent(ctx: Any, params: lsp.HoverParams) -> lsp.Hover | None:
        return None

    def values(ctx: Any, params: lsp.HoverParams) -> lsp.Hover | None:
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, "value: `ConfigMap`"))

    server = _server_with(
        monkeypatch,
        Feature(_nothing, hover=cel),
        Feature(_nothing, hover=silent),
        Feature(_nothing, hover=values),
    )
    handler = server.protocol.fm.features[lsp.TEXT_DOCUMENT_HOVER]
    found = await handler(lsp.HoverParams(lsp.TextDocumentIdentifier(URI), lsp.Position(0, 1)))
    assert found == lsp.Hover(
        lsp.MarkupContent(lsp.MarkupKind.Markdown, "`kind`: string\n\n---\n\nvalue: `ConfigMap`"), first
    )


async def test_the_real_table_registers_each_shared_method_once_with_every_kind() -> None:
    server = create_server()
    options = server.protocol.fm.feature_options[lsp.TEXT_DOCUMENT_CODE_ACTION]
    assert options.code_action_kinds == [lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Source]
    modules = [m for f in registration.FEATURES for m in f.imports]
    assert len(modules) == len(set(modules))  # each language service belongs to one feature
