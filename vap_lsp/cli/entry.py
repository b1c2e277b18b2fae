"""The process entry point (`vap-lsp`, `python -m vap_lsp`).

`serve`, which editors run at every start, goes straight to `cli.serve`; modules load with the
cyclic GC paused until the command has what it needs (`vap_lsp.collector`). Calling
`vap_lsp.cli.main.main` directly (tests, embedding) changes nothing.
"""

from __future__ import annotations

import os
import sys

from vap_lsp import collector


def main() -> int:
    collector.pause()
    try:
        argv = sys.argv[1:]
        if argv[:1] == ["serve"]:  # what editors run at every start: no other command's imports
            from vap_lsp.cli.serve import main as serve

            return serve(argv[1:])
        from vap_lsp.cli.main import main as run

        return run(argv)
    except BrokenPipeError:
        # `vap-lsp ... | head`: the reader left. No traceback, and nothing more written (the
        # interpreter's final flush goes to /dev/null); the exit status of a process killed by
        # SIGPIPE, as a Go or C tool would have.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    finally:
        collector.resume()
