"""Mutation testing of the modules that decide verdicts (issue 39), with mutmut 3.

Not part of CI: a module takes minutes. Each module is mutated in its own scratch copy of the
repository (`--workdir`, default `$TMPDIR/vap-mutation/<module>`) with a `[tool.mutmut]` section
for that module alone: its mutants only (`EXCLUDED`: files of a package left out), and only the
fast test files that cover it (`MODULES`), so one mutant is judged in seconds, not by the suite.

mutmut 3 switches mutants inside functions of an already imported program. What ran before the
switch is invisible to it: a table built at import (`defaulting.rules._build`), a result cached
by an earlier test (a policy's analysis by its text, a compiled program). So the scratch copy's
`tests/conftest.py` empties vap-lsp's result caches before each test (`FRESH_CACHES`), and every
mutant mutmut calls a survivor or leaves uncovered is written into the source (`mutmut apply`)
and judged again by the module's tests in a new interpreter (`--no-confirm` skips that).

The scores go to `benchmarks/mutation_report.json` (the entries of the modules run are
replaced, the others kept): per module the mutants killed (and how many of them only a new
interpreter saw), survived (each with its diff), equivalent (survivors whose reason
`benchmarks/mutation_equivalent.md` gives), and the score = killed / (killed + survived).
`--sample N` judges N mutants drawn per module (seeded, `--seed`) instead of all of them; the
report says so (`sampled`, out of `generated`). `--markdown` prints the report as the README's
table.

Install the tool (a dev dependency only, never needed by the tests):
    .venv/bin/pip install 'mutmut>=3.8,<4'

Usage:
    .venv/bin/python benchmarks/mutation.py --list
    nice -n 15 .venv/bin/python benchmarks/mutation.py vap_lsp/admission/matching.py --show
    nice -n 15 .venv/bin/python benchmarks/mutation.py all --sample 60
    .venv/bin/python benchmarks/mutation.py --markdown
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "benchmarks" / "mutation_report.json"
EQUIVALENT = ROOT / "benchmarks" / "mutation_equivalent.md"

# Each module (a file, or a package: every .py under it) → the fast test files that cover it.
MODULES: dict[str, list[str]] = {
    "vap_lsp/defaulting/rules.py": [
        "tests/defaulting/test_rule_table.py",
        "tests/defaulting/test_zero_values.py",
        "tests/defaulting/test_builtin_defaults.py",
    ],
    "vap_lsp/defaulting/custom.py": [
        "tests/defaulting/test_custom_defaulters.py",
        "tests/defaulting/test_builtin_defaults.py",
        "tests/defaulting/test_zero_values.py",
    ],
    "vap_lsp/defaulting/plugins.py": [
        "tests/defaulting/test_plugins_on_update.py",
        "tests/defaulting/test_admission_plugins_upstream.py",
        "tests/defaulting/test_zero_values.py",
    ],
    # The rest of the package: the walk, the conversion round trip, CRDs, the registry's fill-ins,
    # a Service's allocations, the built-in required fields (the upstream file holds the
    # conversion tables, conversion_test.go; builtin_validation the Job selector and rejections).
    "vap_lsp/defaulting/": [
        "tests/defaulting/test_builtin_defaults.py",
        "tests/defaulting/test_compiled_walk.py",
        "tests/defaulting/test_crd_defaults.py",
        "tests/defaulting/test_walk_plan.py",
        "tests/defaulting/test_gated_defaults.py",
        "tests/admission/test_admission_defaulting.py",
        "tests/admission/test_service_allocation.py",
        "tests/admission/test_admission_builtin_validation.py",
        "tests/defaulting/test_admission_plugins_upstream.py",
        "tests/defaulting/test_registry_boundaries.py",
    ],
    "vap_lsp/policy/rules.py": [
        "tests/policy/test_policy_rules.py",
        "tests/policy/test_policy_upstream.py",
        "tests/policy/test_policy_limits.py",
    ],
    "vap_lsp/admission/matching.py": [
        "tests/admission/test_match_outcomes.py",
        "tests/admission/test_admission_matching.py",
    ],
    "vap_lsp/analysis/model/matching.py": [
        "tests/analysis/test_rule_classes.py",
        "tests/admission/test_match_outcomes.py",
        "tests/admission/test_admission_matching.py",
        "tests/analysis/test_guarantees.py",
    ],
    "vap_lsp/admission/engine.py": [
        "tests/admission/test_admission_validating.py",
        "tests/admission/test_admission_mutating.py",
        "tests/admission/test_admission_params.py",
        "tests/admission/test_admission_budget.py",
        "tests/admission/test_admission_explain.py",
        "tests/admission/test_admission_boundaries.py",
    ],
    "vap_lsp/cel/runtime/cost.py": [
        "tests/cel/test_cel_cost_rounding.py",
        "tests/cel/test_cel_cost_celgo_029.py",
        "tests/cel/test_cel_cost_k8s_library.py",
        "tests/cel/test_cel_eval_cost.py",
    ],
    "vap_lsp/analysis/model/cost_budget.py": [
        "tests/analysis/test_cost_budget.py",
        "tests/admission/test_admission_budget.py",
    ],
    "vap_lsp/cel/cost_estimate.py": [
        "tests/cel/test_cel_cost_estimate_lists.py",
        "tests/cel/test_cel_cost_celgo_029.py",
        "tests/cel/test_cel_cost_estimate_celgo.py",
        "tests/cel/test_cel_cost_estimate_k8s_library.py",
        "tests/cel/test_cel_cost_estimate_crd_rules.py",
    ],
    "vap_lsp/analysis/model/cost_estimates.py": [
        "tests/analysis/test_cost_estimates.py",
    ],
    "vap_lsp/analysis/model/guarantees.py": [
        "tests/analysis/test_field_guarantees.py",
        "tests/analysis/test_operation_boundaries.py",
        "tests/analysis/test_guarantees.py",
    ],
    "vap_lsp/analysis/model/narrowing.py": [
        "tests/analysis/test_decide.py",
        "tests/analysis/test_narrowing.py",
        "tests/analysis/test_operation_boundaries.py",
    ],
    "vap_lsp/impact/": [
        "tests/impact/test_impact_audit_events.py",
        "tests/impact/test_impact_audit.py",
        "tests/impact/test_impact_snapshot.py",
        "tests/impact/test_impact_base_and_shards.py",
        "tests/impact/test_impact_formats.py",
        "tests/impact/test_impact_urls.py",
        "tests/impact/test_impact_inputs_edges.py",
        "tests/impact/test_impact_html.py",
        "tests/impact/test_impact_robustness.py",
        "tests/impact/test_impact_readme.py",
        "tests/impact/test_impact_pss.py",
    ],
}

# Files of a package module left out, and why (said in the README).
EXCLUDED: dict[str, list[str]] = {
    # Their own entries above.
    "vap_lsp/defaulting/": [
        "vap_lsp/defaulting/rules.py",
        "vap_lsp/defaulting/custom.py",
        "vap_lsp/defaulting/plugins.py",
    ],
    # Their tests start a Dask LocalCluster or a kube-apiserver (tests/impact/test_impact_dask.py,
    # test_impact_live.py): minutes per mutant.
    "vap_lsp/impact/": ["vap_lsp/impact/scale.py", "vap_lsp/impact/live.py"],
}

# mutmut's exit codes (mutmut/__init__.py `status_by_exit_code`) folded into the report's words.
KILLED = {1, 3, -24, 24, 36, 37, 152, 255, -11, -9}  # a test failed, crashed or timed out
SURVIVED = {0}
NO_TESTS = {5, 33}
NAME = re.compile(r"`([A-Za-z0-9_.ǁ]+__mutmut_\d+)`")


def _slug(module: str) -> str:
    return module.strip("/").replace("/", "_").removesuffix(".py")


def _glob(module: str) -> str:
    return module + "*" if module.endswith("/") else module


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


# What the scratch copy holds: the sources, and what the tests read besides them.
COPIED = ("vap_lsp", "schemas", "tests", "examples", "README.md")

# Appended to the scratch copy's tests/conftest.py (never to the repository's): every test starts
# with vap-lsp's result caches empty. mutmut forks each mutant's tests from a process that has
# already run them once; a result cached then (a policy's analysis by its text, a compiled
# expression, a defaulting walk) would be served again and hide the mutant.
FRESH_CACHES = """

import functools as _functools

import pytest as _pytest


@_pytest.fixture(autouse=True)
def _mutation_fresh_caches():
    from vap_lsp.lru import LruCache

    for name, module in list(sys.modules.items()):
        if not name.startswith("vap_lsp.") or name.startswith("vap_lsp.schema"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, LruCache):
                value.clear()
            elif isinstance(value, _functools._lru_cache_wrapper):
                value.cache_clear()
    for module_name, attribute in (
        ("vap_lsp.defaulting.builtin", "_DEFAULTERS"),
        ("vap_lsp.admission.engine", "_COMPILED"),
        ("vap_lsp.cel.interpreter", "_PLANS"),
        ("vap_lsp.cel.interpreter", "_TRACED_PLANS"),
        ("vap_lsp.cel.interpreter", "_CANDIDATES"),
        ("vap_lsp.cel.interpreter", "_CANDIDATES_DEFAULT_COSTS"),
    ):
        cache = getattr(sys.modules.get(module_name), attribute, None)
        if cache is not None:
            cache.clear()
    yield
"""


def _prepare(module: str, workdir: Path, fresh: bool) -> None:
    """A scratch copy of the sources, schemas and tests, with a mutmut section for this module."""
    if fresh and workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for part in COPIED:
        target = workdir / part
        if target.is_dir():
            shutil.rmtree(target)
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, target, ignore=ignore)
        else:
            shutil.copy2(ROOT / part, target)
    conftest = workdir / "tests" / "conftest.py"
    conftest.write_text(conftest.read_text(encoding="utf-8") + FRESH_CACHES, encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pytest_section = pyproject[pyproject.index("[tool.pytest.ini_options]") :]
    pytest_section = pytest_section[: pytest_section.index("\n[", 1) + 1]
    (workdir / "pyproject.toml").write_text(
        "[project]\nname = 'vap-lsp-mutation'\nversion = '0'\n\n"
        + pytest_section
        + "\n[tool.mutmut]\n"
        + 'source_paths = ["vap_lsp"]\n'
        + f"only_mutate = {_toml_list([_glob(module)])}\n"
        + f"do_not_mutate = {_toml_list(EXCLUDED.get(module, []))}\n"
        + f"also_copy = {_toml_list([p for p in COPIED if p not in ('vap_lsp', 'tests')])}\n"
        + f"pytest_add_cli_args_test_selection = {_toml_list(_tests(module))}\n"
        + 'pytest_add_cli_args = ["-x", "-q", "-p", "no:cacheprovider"]\n'
        + "use_git_change_detection = false\n",
        encoding="utf-8",
    )


def _tests(module: str) -> list[str]:
    """The module's test files that exist (a boundary file may not be written yet)."""
    return [t for t in MODULES[module] if (ROOT / t).exists()]


def _meta_files(module: str, workdir: Path) -> list[Path]:
    base = workdir / "mutants"
    if module.endswith("/"):
        return sorted((base / module).rglob("*.py.meta"))
    meta = base / (module + ".meta")
    return [meta] if meta.exists() else []


def _exit_codes(module: str, workdir: Path) -> dict[str, int | None]:
    codes: dict[str, int | None] = {}
    for meta in _meta_files(module, workdir):
        data = json.loads(meta.read_text(encoding="utf-8"))
        codes.update(data.get("exit_code_by_key", {}))
    return codes


def _mutmut(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=workdir,
        env=env,
        text=True,
        capture_output=True,
        check=False,
    )


def equivalent_mutants() -> dict[str, str]:
    """Mutant name → why it is equivalent, from the lines of `mutation_equivalent.md`."""
    found: dict[str, str] = {}
    if not EQUIVALENT.exists():
        return found
    for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
        names = NAME.findall(line)
        reason = line.split(":", 1)[1].strip() if ":" in line else ""
        for name in names:
            found[name] = reason
    return found


def _diff(workdir: Path, name: str) -> str:
    shown = _mutmut(workdir, "show", name).stdout
    lines = [
        ln
        for ln in shown.splitlines()
        if ln.startswith(("+", "-")) and not ln.startswith(("+++", "---")) and ln[1:].strip()
    ]
    return " / ".join(ln.strip() for ln in lines)[:300]


def _module_files(module: str, workdir: Path) -> dict[Path, str]:
    """The module's source files in the scratch copy, with their text (to restore after `apply`)."""
    target = workdir / module
    files = sorted(target.rglob("*.py")) if module.endswith("/") else [target]
    files = [f for f in files if str(f.relative_to(workdir)) not in EXCLUDED.get(module, [])]
    return {f: f.read_text(encoding="utf-8") for f in files}


def _pytest_fresh(module: str, workdir: Path, timeout: float) -> tuple[int, float]:
    """The module's tests in a new interpreter over the scratch copy's sources: (exit code, seconds);
    a time-out counts as a failure (exit code -1)."""
    env = dict(os.environ, PYTHONPATH=str(workdir), PYTHONDONTWRITEBYTECODE="1")
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *_tests(module)]
    start = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=workdir, env=env, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, time.monotonic() - start
    return done.returncode, time.monotonic() - start


def _confirm(module: str, workdir: Path, names: list[str]) -> dict[str, bool]:
    """Each mutant written into the source (`mutmut apply`) and the module's tests run in a new
    interpreter: whether they fail. mutmut 3 switches mutants inside functions of an already
    imported program, so it cannot see a mutation of code that ran before the switch — tables
    built at import (`defaulting.rules._build`), results cached in the parent process (compiled
    defaulting walks, `lru_cache`s) — and reports those mutants as survivors or not covered."""
    if not names:
        return {}
    originals = _module_files(module, workdir)
    code, baseline = _pytest_fresh(module, workdir, timeout=3600)
    if code != 0:
        sys.exit(f"{module}: the tests fail unmutated in the scratch copy (exit {code})")
    killed: dict[str, bool] = {}
    try:
        for name in names:
            applied = _mutmut(workdir, "apply", name)
            if applied.returncode != 0:
                continue
            code, _ = _pytest_fresh(module, workdir, timeout=max(60.0, 10 * baseline))
            killed[name] = code not in (0, 5)
            for path, text in originals.items():
                path.write_text(text, encoding="utf-8")
    finally:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
    return killed


def run_module(module: str, args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(args.workdir or Path(tempfile.gettempdir()) / "vap-mutation") / _slug(module)
    _prepare(module, workdir, args.fresh)
    names: list[str] = []
    sampled = False
    generated = 0
    if args.sample:
        # Generation alone (a pattern that names no mutant), then a seeded draw of the names.
        _mutmut(workdir, "run", "--max-children", "1", "no-such-mutant-*")
        every = sorted(_exit_codes(module, workdir))
        generated = len(every)
        if len(every) > args.sample:
            names = sorted(random.Random(args.seed).sample(every, args.sample))
            sampled = True
    run_args = ["run", "--max-children", str(args.max_children), *names]
    result = _mutmut(workdir, *run_args)
    (workdir / "mutmut-run.log").write_text(result.stdout + result.stderr, encoding="utf-8")
    codes = _exit_codes(module, workdir)
    generated = generated or len(codes)
    if names:
        codes = {n: codes.get(n) for n in names}
    if not codes or all(c is None for c in codes.values()):
        sys.exit(f"{module}: mutmut judged no mutant; see {workdir / 'mutmut-run.log'}")
    equivalent = equivalent_mutants()
    undecided = [
        n for n, c in sorted(codes.items()) if (c in SURVIVED or c in NO_TESTS) and n not in equivalent
    ]
    fresh = {} if args.no_confirm else _confirm(module, workdir, undecided)
    killed = survived = not_run = 0
    eq: list[str] = []
    survivors: list[dict[str, str]] = []
    for name, code in sorted(codes.items()):
        if code in KILLED or fresh.get(name):
            killed += 1
        elif code in SURVIVED or code in NO_TESTS:
            if name in equivalent:
                eq.append(name)
            else:
                survived += 1
                survivors.append({"mutant": name, "diff": _diff(workdir, name)})
        else:
            not_run += 1
    judged = killed + survived
    return {
        "mutants": len(codes),
        "generated": generated,
        "sampled": sampled,
        "killed": killed,
        "survived": survived,
        "equivalent": len(eq),
        "killed_in_a_new_process": sum(fresh.values()),
        "not_covered_by_mutmut": sum(1 for c in codes.values() if c in NO_TESTS),
        "not_run": not_run,
        "score": round(100 * killed / judged, 1) if judged else None,
        "tests": _tests(module),
        "excluded": EXCLUDED.get(module, []),
        "survivors": survivors,
        "equivalent_mutants": eq,
    }


def markdown(report: dict[str, Any]) -> str:
    """The report as a table: module, mutants judged, killed, survived, equivalent, score."""
    rows = [
        "| module | mutants (sampled of) | killed (in a new process) | survived | equivalent | score |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for module, e in report["modules"].items():
        sample = f"{e['mutants']} of {e['generated']}" if e.get("generated") else str(e["mutants"])
        rows.append(
            f"| `{module}` | {sample} | {e['killed']} ({e['killed_in_a_new_process']}) | {e['survived']} "
            f"| {e['equivalent']} | {e['score']}% |"
        )
    return "\n".join(rows)


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, text=True, capture_output=True, check=False)
    return out.stdout.strip()


def _version() -> str:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "show", "mutmut"], text=True, capture_output=True, check=False
    )
    version = next((ln.split()[-1] for ln in out.stdout.splitlines() if ln.startswith("Version:")), "?")
    return f"mutmut {version}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("modules", nargs="*", help="module paths as in --list, or 'all'")
    parser.add_argument("--list", action="store_true", help="print the modules and their tests")
    parser.add_argument("--markdown", action="store_true", help="print the report as the README's table")
    parser.add_argument("--show", action="store_true", help="print the survivors' diffs of the last run")
    parser.add_argument("--sample", type=int, default=0, help="judge N random mutants per module")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument(
        "--max-children", type=int, default=1, help="parallel mutants (the machine is shared)"
    )
    parser.add_argument("--workdir", help="scratch folder (default $TMPDIR/vap-mutation)")
    parser.add_argument("--fresh", action="store_true", help="forget earlier results of these modules")
    parser.add_argument(
        "--no-confirm",
        action="store_true",
        help="skip re-running mutmut's survivors in a new interpreter (faster, undercounts kills)",
    )
    args = parser.parse_args()
    if args.markdown:
        print(markdown(json.loads(REPORT.read_text(encoding="utf-8"))))
        return
    if args.list or not args.modules:
        for module, tests in MODULES.items():
            print(module, "←", " ".join(tests))
        return
    modules = list(MODULES) if args.modules == ["all"] else args.modules
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        sys.exit(f"unknown module(s): {', '.join(unknown)}; see --list")
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        sys.exit("mutmut is not installed: .venv/bin/pip install 'mutmut>=3.8,<4'")
    report: dict[str, Any] = {"modules": {}}
    if REPORT.exists():
        report = json.loads(REPORT.read_text(encoding="utf-8"))
    for module in modules:
        entry = run_module(module, args)
        report["modules"][module] = entry
        report["modules"] = dict(sorted(report["modules"].items()))
        report["tool"] = _version()
        report["commit"] = _commit()
        REPORT.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(
            f"{module}: {entry['killed']} killed ({entry['killed_in_a_new_process']} in a new process), "
            f"{entry['survived']} survived, {entry['equivalent']} equivalent"
            + (f" (sample of {entry['mutants']})" if entry["sampled"] else "")
            + (f"; score {entry['score']}%" if entry["score"] is not None else "")
        )
        if args.show:
            for s in entry["survivors"]:
                print("  ", s["mutant"], "|", s["diff"])


if __name__ == "__main__":
    main()
