"""Start-up imports what the first diagnostics need and nothing more.

Cold start (spawn → first diagnostics) is measured by `benchmarks/bench_diagnostics.py`; these
tests pin the structure that keeps it short: the language services and the admission engine
are imported by their handlers on first use, or by `warm_features` after the first publish.
Each check runs in a fresh interpreter, since this test process has imported everything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from vap_lsp.server import cel_features, hover_completion, run_features, yaml_features

LAZY = (
    *hover_completion.FEATURE_MODULES,
    *cel_features.FEATURE_MODULES,
    *yaml_features.FEATURE_MODULES,
    *run_features.FEATURE_MODULES,
)


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_creating_the_server_imports_no_language_service() -> None:
    loaded = _modules_after("from vap_lsp.server.app import create_server\ncreate_server()")
    assert "vap_lsp.analysis.engine" in loaded  # the first diagnostics need it
    assert sorted(m for m in LAZY if m in loaded) == []
    assert sorted(m for m in loaded if m.startswith(("vap_lsp.admission", "vap_lsp.testfiles"))) == []


def test_warm_features_imports_every_lazy_service() -> None:
    loaded = _modules_after("from vap_lsp.server.app import create_server\ncreate_server().warm_features()")
    assert sorted(m for m in LAZY if m not in loaded) == []
    assert "vap_lsp.testfiles.runner" in loaded


def _preload(cache: Path) -> tuple[int, str]:
    """Import lsprotocol through the cache in a fresh interpreter; (scripts compiled, a check)."""
    script = (
        "from vap_lsp.server.preload import import_protocol\n"
        "compiled = import_protocol()\n"
        "from lsprotocol import types, converters\n"
        "p = converters.get_converter().structure({'line': 1, 'character': 2}, types.Position)\n"
        "print(compiled, p == types.Position(1, 2), repr(types.WorkspaceFolder('u', 'n')))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    compiled, rest = out.stdout.split(" ", 1)
    return int(compiled), rest.strip()


def test_lsprotocols_attrs_methods_are_compiled_once_then_read_from_the_cache(tmp_path: Path) -> None:
    first, check = _preload(tmp_path)
    assert first > 500  # one script per attrs class of lsprotocol.types
    assert check == "True WorkspaceFolder(uri='u', name='n')"  # generated __init__, __eq__, __repr__
    assert _preload(tmp_path) == (0, check)
    (cached,) = (tmp_path / "vap-lsp").iterdir()
    cached.write_bytes(b"not marshal data")
    assert _preload(tmp_path) == (first, check)  # a corrupt cache: compiled as usual, rewritten
    assert _preload(tmp_path) == (0, check)
