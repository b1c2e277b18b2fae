"""The pygls server: the entry point that builds the state, the worker, the diagnostics scheduler
and the handlers of every feature module (`server.registration`), and serves."""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from vap_lsp import __version__, collector
from vap_lsp.server import crd_watch, registration, sync, yaml_features
from vap_lsp.server.context import Context
from vap_lsp.server.diagnostics import DiagnosticsScheduler
from vap_lsp.server.preload import import_engine_in_background
from vap_lsp.server.startup_analyser import StartupAnalyser
from vap_lsp.server.state import ServerState
from vap_lsp.server.transport import VapProtocol, exit_now, serve_stdio, serve_tcp
from vap_lsp.server.worker import Worker

log = logging.getLogger(__name__)


class VapLanguageServer(LanguageServer):
    """pygls' server with vap-lsp's protocol; everything else is in `state`, `worker` and
    `diagnostics`, which feature modules receive through a `Context`, never through this class."""

    def __init__(self, startup_analyser: StartupAnalyser | None = None) -> None:
        super().__init__(
            "vap-lsp",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=VapProtocol,
        )
        # Late-bound, so that tests can record what is sent.
        self.state = ServerState(lambda: self.workspace, lambda params: self.window_show_message(params))
        self.worker = Worker(lambda: self.thread_pool, self.state.is_open)
        self.diagnostics = DiagnosticsScheduler(
            self.state,
            self.worker,
            lambda params: self.text_document_publish_diagnostics(params),
            warm=registration.warm,
            startup_analyser=startup_analyser,
        )
        self.context = Context(self, self.state, self.worker, self.diagnostics)


def create_server(startup_analyser: StartupAnalyser | None = None) -> VapLanguageServer:
    server = VapLanguageServer(startup_analyser)
    ctx, state, diagnostics = server.context, server.state, server.diagnostics

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        state.event_loop = asyncio.get_running_loop()
        state.apply_settings(params.initialization_options)
        # Once the answer is written (the next turn of the loop), import the engine while the
        # client reads it: spawn -> first diagnostics overlaps the client's work, not ours.
        # The startup analyser is of no use once the engine is here (documents then go to it).
        asyncio.get_running_loop().call_soon(import_engine_in_background, diagnostics.retire_startup_analyser)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        crds = state.settings.crds
        state.apply_settings(params.settings)
        if state.settings.crds != crds:
            # Re-read the CRDs first, so no analysis runs with the old ones.
            await crd_watch.refresh(ctx)
        diagnostics.schedule_all()

    @server.feature(lsp.INITIALIZED)
    async def initialized(params: lsp.InitializedParams) -> None:
        count = await yaml_features.scan_workspace_with_progress(ctx)
        log.info("indexed %d workspace files", count)
        # vapLsp.crds, else the crds of the configuration files the scan met.
        await crd_watch.reload_and_publish(ctx, rewatch=True)
        diagnostics.schedule_all()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(params: lsp.DidChangeWorkspaceFoldersParams) -> None:
        # pygls has updated the workspace's folders (and nothing else).
        await sync.folders_added(ctx, list(params.event.added))

    registration.register(ctx)
    return server


def run_server(
    host: str | None = None, port: int | None = None, startup_analyser: StartupAnalyser | None = None
) -> None:
    logging.basicConfig(level=logging.WARNING, format="vap-lsp: %(levelname)s %(message)s")
    # VAP_LSP_LOG=debug|info: vap-lsp's own log (not pygls's message traffic) on stderr.
    level = os.environ.get("VAP_LSP_LOG", "").upper()
    if level in ("DEBUG", "INFO"):
        logging.getLogger("vap_lsp").setLevel(level)
    # Requests and analyses share the GIL in the thread pool: a 1 ms switch interval (default 5)
    # lets a hover that needs 2 ms of CPU answer in tens of milliseconds, not hundreds, while a
    # large file is analysed.
    sys.setswitchinterval(0.001)
    server = create_server(startup_analyser)
    collector.resume()  # every module the event loop needs is loaded (`vap_lsp.collector`)
    assert isinstance(server.protocol, VapProtocol)
    if host is not None and port is not None:
        code = serve_tcp(server.protocol, host, port)
    else:
        code = serve_stdio(server.protocol, sys.stdin.buffer, sys.stdout.buffer)
    server.diagnostics.retire_startup_analyser()
    exit_now(code)
