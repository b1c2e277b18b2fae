"""`vap-lsp serve`: the language server's start.

Editors start the server on every launch, so its path imports no other command: the process
entry (`vap_lsp.cli.entry`) comes here directly for `serve`, and the full parser
(`vap_lsp.cli.main`) registers the same arguments for `--help`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

HELP = "run the language server (stdio unless --tcp)"


def add_parser(sub: Any) -> None:
    serve = sub.add_parser("serve", help=HELP, description=HELP)
    _add_arguments(serve)
    serve.set_defaults(func=run)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="vap-lsp serve", description=HELP)
    _add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    host: str | None = None
    port: int | None = None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not host or not port_text.isdigit():
            print("vap-lsp: --tcp expects HOST:PORT, e.g. 127.0.0.1:2087", file=sys.stderr)
            return 2
        port = int(port_text)
    from vap_lsp.server.startup_analyser import StartupAnalyser

    # First: it imports the engine on another core while this process imports the LSP stack.
    analyser = StartupAnalyser.spawn()
    from vap_lsp.server.preload import import_protocol

    import_protocol()  # before pygls: lsprotocol's attrs classes from cached bytecode
    from vap_lsp.server.app import run_server

    run_server(host=host, port=port, startup_analyser=analyser)
    return 0
