"""ARCHITECTURE.md's package table says what each package may import, and that a package
imports only from rows above it: both are checked against the real imports of the source
(every `import`, also inside functions and under TYPE_CHECKING), so the table stays true."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vap_lsp"


def _rows() -> list[tuple[str, str]]:
    """(package, its "may import" cell), in table order."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return [
        (m.group(1), m.group(2))
        for m in re.finditer(r"^\| `vap_lsp\.([a-z_]+)` \|.*\| ([^|]*) \|$", text, flags=re.MULTILINE)
    ]


def _declared(cell: str, above: list[str]) -> set[str]:
    if cell.strip() == "nothing":
        return set()
    if cell.strip() == "everything above":
        return set(above)
    return {name.split(".")[0] for name in re.findall(r"`([a-z_.]+)`", cell)}


def _imports(package: str) -> set[str]:
    """The other top-level parts of vap_lsp that `package` imports."""
    files = (
        [PACKAGE / f"{package}.py"]
        if (PACKAGE / f"{package}.py").exists()
        else (PACKAGE / package).rglob("*.py")
    )
    found: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                inside = parts[0] == "vap_lsp" and len(parts) > 1 and parts[1] != package
                if inside and ((PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").exists()):
                    found.add(parts[1])
    return found


def test_every_package_is_in_the_table() -> None:
    listed = {name for name, _ in _rows()}
    parts = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()
    }
    assert sorted(parts - listed - {"__init__", "__main__"}) == []


def test_each_package_imports_only_what_its_row_declares_and_only_from_rows_above() -> None:
    rows = _rows()
    order = [name for name, _ in rows]
    undeclared: dict[str, list[str]] = {}
    upward: dict[str, list[str]] = {}
    for i, (name, cell) in enumerate(rows):
        actual = _imports(name)
        extra = sorted(actual - _declared(cell, order[:i]))
        if extra:
            undeclared[name] = extra
        below = sorted(p for p in actual | _declared(cell, order[:i]) if p in order and order.index(p) > i)
        if below:
            upward[name] = below
    assert undeclared == {}
    assert upward == {}


def _server_imports() -> dict[str, set[str]]:
    """Module → the other `vap_lsp.server` modules it imports (also inside functions and under
    TYPE_CHECKING: an annotation-only import is still an edge a reader has to follow)."""
    server = PACKAGE / "server"
    modules = {p.stem for p in server.glob("*.py")} - {"__init__"}
    graph: dict[str, set[str]] = {}
    for name in modules:
        found: set[str] = set()
        for node in ast.walk(ast.parse((server / f"{name}.py").read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for full in names:
                parts = full.split(".")
                if parts[:2] == ["vap_lsp", "server"] and len(parts) > 2 and parts[2] in modules:
                    found.add(parts[2])
        graph[name] = found - {name}
    return graph


def test_no_module_of_the_server_package_imports_the_entry_point() -> None:
    """Feature modules receive the state and callbacks they need (`server.context.Context`);
    only the process entry (`cli`) imports `server.app`."""
    assert sorted(name for name, imports in _server_imports().items() if "app" in imports) == []


def test_the_server_package_has_no_import_circle() -> None:
    graph = _server_imports()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                cycles.append([*path[path.index(other) :], other])
            elif other not in state:
                visit(other, [*path, other])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def _module_imports(package: str) -> dict[str, set[str]]:
    """Each module of `vap_lsp.<package>` (subpackages included, dotted: `model.context`) → the
    other modules of the package it imports, anywhere in its source (inside functions and under
    TYPE_CHECKING too). `from vap_lsp.analysis import files` names the module `files`."""
    root = PACKAGE / package
    modules = {
        ".".join(p.relative_to(root).with_suffix("").parts)
        for p in root.rglob("*.py")
        if p.stem != "__init__"
    }
    prefix = ["vap_lsp", package]
    graph: dict[str, set[str]] = {}
    for name in modules:
        found: set[str] = set()
        path = root / (name.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for full in names:
                parts = full.split(".")
                if parts[:2] != prefix:
                    continue
                inner = ".".join(parts[2:])
                if inner in modules:
                    found.add(inner)
        graph[name] = found - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                cycles.append([*path[path.index(other) :], other])
            elif other not in state:
                visit(other, [*path, other])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles


def test_the_analysis_package_has_no_import_circle() -> None:
    """`analysis.model` is layered (objects, schemas and matching below narrowing and guarantees,
    below the policy context); a circle would mean a module that cannot be read on its own."""
    graph = _module_imports("analysis")
    assert any(name.startswith("model.") for name in graph), "the scan found no model module"
    assert _cycles(graph) == []


def test_the_model_never_imports_a_check_nor_the_engine() -> None:
    """What a policy is (`analysis.model`) knows nothing of who reads it."""
    graph = _module_imports("analysis")
    offending = {
        name: sorted(i for i in imports if i.startswith("checks.") or i == "engine")
        for name, imports in graph.items()
        if name.startswith("model.")
    }
    assert {name: found for name, found in offending.items() if found} == {}


def test_features_never_import_a_check() -> None:
    """Editor features read the model; a check's findings reach them only as diagnostics."""
    offending: dict[str, list[str]] = {}
    for path in (PACKAGE / "features").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.startswith("vap_lsp.analysis")
            ):
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
                bad = [m for m in modules if m.startswith("vap_lsp.analysis.checks")]
                if bad:
                    offending.setdefault(path.name, []).extend(bad)
    assert offending == {}
