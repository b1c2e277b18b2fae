"""Allow `python -m vap_lsp`, which editors use when no console script is on PATH."""

from vap_lsp.cli.entry import main

raise SystemExit(main())
