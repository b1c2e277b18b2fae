"""The process entry point (`vap-lsp`, `python -m vap_lsp`): modules load with the cyclic GC off.

Importing the CLI, lsprotocol and pygls builds ~10^5 long-lived objects and next to no garbage
cycles, yet the collector keeps passing over them: ~100 ms of a server's start (measured with
`gc.callbacks`). The collector is off from here until the command has loaded what it needs;
`settle` then freezes what start-up built (later collections never scan it) and turns the
collector back on. Calling `vap_lsp.cli.main.main` directly (tests, embedding) changes nothing.
"""

from __future__ import annotations

import gc
import sys


def settle() -> None:
    """Start-up is over: move what it built out of the collector's way, and collect again."""
    gc.freeze()
    gc.enable()


def main() -> int:
    gc.disable()
    try:
        argv = sys.argv[1:]
        if argv[:1] == ["serve"]:  # what editors run at every start: no other command's imports
            from vap_lsp.cli.serve import main as serve

            return serve(argv[1:])
        from vap_lsp.cli.main import main as run

        return run(argv)
    finally:
        gc.enable()
