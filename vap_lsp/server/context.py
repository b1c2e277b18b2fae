"""What a feature module's handlers work with, handed to its `register` by the one table of
feature modules (`server.registration`): pygls' server (to talk to the client), the state, the
worker and the diagnostics scheduler. Feature modules never import `server.app`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

    from vap_lsp.server.diagnostics import DiagnosticsScheduler
    from vap_lsp.server.state import ServerState
    from vap_lsp.server.worker import Worker


@dataclass(frozen=True)
class Context:
    # pygls' server: messages to the client, its capabilities, progress, registrations.
    server: LanguageServer
    state: ServerState
    worker: Worker
    diagnostics: DiagnosticsScheduler
