"""Start-up imports what the first diagnostics need and nothing more.

Cold start (spawn → first diagnostics) is measured by `benchmarks/bench_diagnostics.py`; these
tests pin the structure that keeps it short: the server can answer `initialize` before the
analysis engine is imported (`run_server` imports it in a background thread meanwhile); the
language services and the admission engine are imported by their handlers on first use, or by
`registration.warm` after the first publish. Each check runs in a fresh interpreter, since this
test process has imported everything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from vap_lsp.server.registration import FEATURES

LAZY = tuple(module for feature in FEATURES for module in feature.imports)


def _fresh(script: str, env: dict[str, str] | None = None) -> str:
    """What `script` prints in a fresh interpreter (start-up is what these tests are about)."""
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env, timeout=120
    ).stdout


def _modules_after(code: str) -> set[str]:
    return set(_fresh(f"import sys\n{code}\nprint('\\n'.join(sys.modules))").split())


# The engine and what only it needs: parsing (ruamel.yaml), CEL, the checks.
ENGINE = (
    "vap_lsp.analysis.engine",
    "vap_lsp.yaml.parse",
    "vap_lsp.cel",
    "vap_lsp.analysis.checks.server_validation",
)


def test_creating_the_server_imports_neither_the_engine_nor_a_language_service() -> None:
    # What `vap-lsp serve` imports before it answers `initialize`, from the command line on.
    loaded = _modules_after(
        "from vap_lsp.cli.main import build_parser\nbuild_parser().parse_args(['serve'])\n"
        "from vap_lsp.server.app import create_server\ncreate_server()"
    )
    assert sorted(m for m in ENGINE if m in loaded) == []
    assert sorted(m for m in LAZY if m in loaded) == []
    assert sorted(m for m in loaded if m.startswith(("vap_lsp.admission", "vap_lsp.testfiles"))) == []


def test_the_background_import_loads_the_engine_for_the_first_diagnostics() -> None:
    loaded = _modules_after(
        "from vap_lsp.server.app import create_server\ncreate_server()\n"
        "from vap_lsp.server.preload import import_engine_in_background, wait_for_engine\n"
        "import_engine_in_background()\nwait_for_engine()"
    )
    assert sorted(m for m in ENGINE if m not in loaded) == []
    assert sorted(m for m in LAZY if m in loaded) == []


def test_the_background_import_then_retires_the_startup_analyser() -> None:
    # Once the engine is imported no document goes to the helper: it ends even if none was opened.
    script = (
        "import os\nos.environ['VAP_LSP_STARTUP_ANALYSER'] = '1'\n"
        "from vap_lsp.server.startup_analyser import StartupAnalyser\nhelper = StartupAnalyser.spawn()\n"
        "from vap_lsp.server.app import create_server\nserver = create_server(helper)\n"
        "from vap_lsp.server.preload import import_engine_in_background, wait_for_engine\n"
        "import_engine_in_background(server.diagnostics.retire_startup_analyser)\nwait_for_engine()\n"
        "print(helper.open, helper._process.wait(timeout=60))"
    )
    assert _fresh(script).strip() == "False 0"


def test_work_in_the_thread_pool_waits_for_a_background_import_under_way() -> None:
    # The first analysis, as the diagnostics scheduler runs it, while the engine is being imported.
    script = (
        "import asyncio\n"
        "from vap_lsp.server.app import create_server\nserver = create_server()\n"
        "from vap_lsp.server.preload import import_engine_in_background\n"
        "async def first():\n"
        "    import_engine_in_background()\n"
        "    return await server.worker.run(lambda: server.state.analyse('untitled:a', 'kind: ['))\n"
        "print([d.code for d in asyncio.run(first()).diagnostics])"
    )
    assert _fresh(script).strip() == "['yaml-syntax']"


def test_warming_imports_every_lazy_service() -> None:
    loaded = _modules_after("from vap_lsp.server import registration\nregistration.warm()")
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
    compiled, rest = _fresh(script, env).split(" ", 1)
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
    # A FIFO where the cache file goes (no writer: opening it to read would block for ever) is
    # refused like any path that is not a regular file, and replaced by the rewritten cache.
    cached.unlink()
    os.mkfifo(cached)
    assert _preload(tmp_path) == (first, check)
    assert cached.is_file()
    assert _preload(tmp_path) == (0, check)


def test_vap_lsp_serve_reaches_the_server_without_any_other_command() -> None:
    # The process entry goes straight to `cli.serve` (here stopped by a bad --tcp before it starts).
    loaded = _modules_after(
        "sys.argv = ['vap-lsp', 'serve', '--tcp', 'no-port']\n"
        "from vap_lsp.cli.entry import main\nassert main() == 2"
    )
    assert "vap_lsp.cli.serve" in loaded
    assert sorted(m for m in loaded if m.startswith("vap_lsp.") and m != "vap_lsp.cli.serve") == [
        "vap_lsp.cli",
        "vap_lsp.cli.entry",
        "vap_lsp.collector",
    ]


def test_modules_load_with_the_cyclic_collector_paused_and_a_command_runs_with_it() -> None:
    script = (
        "import gc, sys\n"
        "from vap_lsp.cli import entry\n"
        "import vap_lsp.cli.main\n"
        "states = []\n"
        "real = vap_lsp.cli.main.build_parser\n"
        "def build_parser():\n"
        "    states.append(gc.isenabled())\n"
        "    return real()\n"
        "vap_lsp.cli.main.build_parser = build_parser\n"
        "import vap_lsp.cli.rule\n"
        "def command(args):\n"
        "    states.append(gc.isenabled())\n"
        "    return 0\n"
        "vap_lsp.cli.rule._rule = command\n"
        "sys.argv = ['vap-lsp', 'rule', '--all']\n"
        "print(entry.main(), states, gc.isenabled())"
    )
    assert _fresh(script).strip() == "0 [False, True] True"


def test_after_the_first_publish_the_server_frees_start_up_garbage_and_freezes_the_rest() -> None:
    script = (
        "import gc\nfrom vap_lsp import collector\ncollector.pause()\n"
        "from vap_lsp.server.app import create_server\nserver = create_server()\n"
        "class Cycle:\n    pass\n"
        "import weakref\nc = Cycle(); c.me = c; garbage = weakref.ref(c); del c\n"  # start-up garbage
        "collector.resume()\nfrom vap_lsp.server import registration\nregistration.warm()\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 0, garbage() is None)"
    )
    assert _fresh(script).strip() == "True True True"  # collecting again, frozen, the garbage freed


def test_old_lsprotocol_caches_are_pruned_to_the_newest_few(tmp_path: Path) -> None:
    from vap_lsp.server.preload import KEPT_CACHE_FILES

    folder = tmp_path / "vap-lsp"
    folder.mkdir()
    for age in range(6):  # earlier installs' caches, the oldest last
        old = folder / f"lsprotocol-attrs-old{age}.marshal"
        old.write_bytes(b"")
        os.utime(old, (1_000_000 - age, 1_000_000 - age))
    _preload(tmp_path)  # writes this install's cache
    kept = sorted(p.name for p in folder.iterdir())
    assert len(kept) == KEPT_CACHE_FILES
    assert [n for n in kept if "old" in n] == [
        f"lsprotocol-attrs-old{a}.marshal" for a in range(KEPT_CACHE_FILES - 1)
    ]
