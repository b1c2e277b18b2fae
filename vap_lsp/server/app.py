"""The pygls server: wires feature modules to one `VapLanguageServer` instance."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from vap_lsp import __version__
from vap_lsp.server import diagnostics
from vap_lsp.server.settings import ServerSettings, parse_settings

log = logging.getLogger(__name__)


class VapLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("vap-lsp", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.settings = ServerSettings()
        self.diagnostics = diagnostics.DiagnosticsScheduler(self)

    def apply_settings(self, raw: Any) -> None:
        self.settings, problems = parse_settings(raw, self.settings)
        for problem in problems:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=problem))


def create_server() -> VapLanguageServer:
    server = VapLanguageServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: VapLanguageServer, params: lsp.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: VapLanguageServer, params: lsp.DidChangeConfigurationParams) -> None:
        ls.apply_settings(params.settings)
        ls.diagnostics.schedule_all()

    diagnostics.register(server)
    return server


def run_server(host: str | None = None, port: int | None = None) -> None:
    logging.basicConfig(level=logging.WARNING, format="vap-lsp: %(levelname)s %(message)s")
    server = create_server()
    if host is not None and port is not None:
        server.start_tcp(host, port)
    else:
        server.start_io()
