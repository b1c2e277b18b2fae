"""`benchmarks/mutation.py` stays runnable (issue 39): every module it mutates and every test file
it maps a module to exists, the committed report covers the modules with a score each, and every
mutant `benchmarks/mutation_equivalent.md` calls equivalent has its reason. The mutation run
itself takes long and needs mutmut (a dev tool): it is not part of the suite."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_script", ROOT / "benchmarks" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_and_test_file_exists() -> None:
    modules = _script().MODULES
    for module, tests in modules.items():
        assert (ROOT / module).exists(), module
        assert module.endswith((".py", "/")), module
        for test in tests:
            assert (ROOT / test).is_file(), (module, test)


def test_the_report_scores_every_module() -> None:
    report = json.loads((ROOT / "benchmarks" / "mutation_report.json").read_text(encoding="utf-8"))
    assert report["tool"].startswith("mutmut ")
    assert set(report["modules"]) == set(_script().MODULES)
    for module, entry in report["modules"].items():
        judged = entry["killed"] + entry["survived"]
        assert judged > 0, module
        assert entry["score"] == round(100 * entry["killed"] / judged, 1), module
        assert len(entry["survivors"]) == entry["survived"], module


def test_equivalent_mutants_have_reasons() -> None:
    script = _script()
    found = script.equivalent_mutants()
    assert found
    for name, reason in found.items():
        assert name.startswith("vap_lsp.") and "__mutmut_" in name, name
        assert len(reason) > 20, name


def test_the_module_list_prints_without_mutmut() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "--list"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "vap_lsp/policy/rules.py ←" in out.stdout
