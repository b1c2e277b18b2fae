"""Every diagnostic code the tool can emit has a page, and every page tells the truth.

The emitted codes are found in the source, not listed by hand: every `Diagnostic(...)` built in
`vap_lsp` is read with `ast`; a literal code is taken as is, and a code computed from an
expression must be one of the routes below, each of which enumerates its codes from the
source of that route (an enum's members that are constructed, a module's constants, a
`Literal` type). A new literal code without a catalog entry fails
`test_every_emitted_code_has_a_page`; a new route fails `test_every_code_route_is_known`.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vap_lsp.analysis.engine import analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cli.main import main
from vap_lsp.codes import DOCS_URL, help_uri, rules

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vap_lsp"


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _arg(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def _constructed_members(enum_name: str) -> set[str]:
    """Members of `enum_name` passed as an argument to a call anywhere in the package (so
    constructed into a problem or error), not the ones only listed in tables or compared."""
    members: set[str] = set()
    for _, tree in _modules():
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            for a in call.args:
                if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == enum_name:
                    members.add(a.attr)
    return members


def _module_constants(module: Path, prefix: str = "") -> set[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith(prefix)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out.add(node.value.value)
    return out


def _problem_kinds() -> set[str]:
    from vap_lsp.yaml.model import ProblemKind

    return {ProblemKind[m].value for m in _constructed_members("ProblemKind")}


def _field_error_types() -> set[str]:
    from vap_lsp.policy.field_errors import ErrorType

    return {ErrorType[m].code for m in _constructed_members("ErrorType")}


def _structural_codes() -> set[str]:
    # StructuralIssue(span, message, CODE, path): its code argument is always a module constant.
    path = PACKAGE / "schema" / "structure.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        n.targets[0].id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Constant)
        and isinstance(n.value.value, str)
    }
    out: set[str] = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n) == "StructuralIssue"):
        code = _arg(call, 2, "code")
        assert isinstance(code, ast.Name) and code.id in constants, ast.unparse(call)
        out.add(constants[code.id])
    return out


def _field_error_helpers(module: Path) -> set[str]:
    """Codes of the `field_errors` helpers (`invalid(...)`, `required(...)`...) that `module` calls:
    each helper builds its `FieldError` with one `ErrorType` member."""
    from vap_lsp.policy.field_errors import ErrorType

    helpers: dict[str, str] = {}
    source = ast.parse((PACKAGE / "policy" / "field_errors.py").read_text(encoding="utf-8"))
    for fn in (n for n in source.body if isinstance(n, ast.FunctionDef)):
        members = {
            a.attr
            for call in ast.walk(fn)
            if isinstance(call, ast.Call) and _callee(call) == "FieldError"
            for a in call.args[:1]
            if isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "ErrorType"
        }
        if len(members) == 1:
            helpers[fn.name] = members.pop()
    tree = ast.parse(module.read_text(encoding="utf-8"))
    called = {_callee(c) for c in ast.walk(tree) if isinstance(c, ast.Call)}
    return {ErrorType[helpers[name]].code for name in called & set(helpers)}


def _cel_phases() -> set[str]:
    from vap_lsp.cel.compile import Phase

    return {"cel-" + p for p in typing.get_args(Phase)}


# Diagnostic codes computed from an expression: (module, the expression as written) → its codes.
# Keyed by module too, so the same expression elsewhere (another `issue.code`) is a new route.
ROUTES: dict[tuple[str, str], Callable[[], set[str]]] = {
    ("vap_lsp/analysis/engine.py", "problem.kind.value"): _problem_kinds,
    # A cached object's diagnostic placed at the object's new offset: no code of its own.
    ("vap_lsp/analysis/engine.py", "d.code"): set,
    ("vap_lsp/analysis/checks/server_validation.py", "error.type.code"): _field_error_types,
    ("vap_lsp/analysis/checks/server_validation.py", "issue.code"): _structural_codes,
    ("vap_lsp/analysis/checks/mutations.py", "finding.code"): lambda: _module_constants(
        PACKAGE / "analysis" / "checks" / "mutations.py", "CODE_"
    ),
    ("vap_lsp/analysis/checks/precise.py", "PRECISE_CODE"): lambda: {"vap-lsp-type-check"},
    # A root that is null where the policy reads it: one code per case.
    ("vap_lsp/analysis/checks/null_roots.py", "case.code"): lambda: _module_constants(
        PACKAGE / "analysis" / "model" / "guarantees.py", "CODE_"
    ),
    ("vap_lsp/analysis/checks/cel_compile.py", "'cel-' + issue.phase"): _cel_phases,
    # A CRD in the checked files or given with --crd: strict decoding, then the server's CRD checks.
    ("vap_lsp/analysis/checks/crd.py", "issue.code"): _structural_codes,
    ("vap_lsp/analysis/checks/crd.py", "error.type.code"): lambda: _field_error_helpers(
        PACKAGE / "analysis" / "model" / "crd_validation.py"
    ),
    # A kustomize patch: strict decoding of the partial object, a JSON 6902 operation's value.
    ("vap_lsp/analysis/checks/patch.py", "issue.code"): _structural_codes,
    ("vap_lsp/analysis/checks/typing_coverage.py", "CODE"): lambda: _module_constants(
        PACKAGE / "analysis" / "checks" / "typing_coverage.py", "CODE"
    ),
    ("vap_lsp/analysis/checks/runtime_shape.py", "CODE"): lambda: _module_constants(
        PACKAGE / "analysis" / "checks" / "runtime_shape.py", "CODE"
    ),
    # Static manifests: the loader's findings (and the strict decoding codes it words again).
    ("vap_lsp/static_manifests/loader.py", "code"): lambda: (
        _module_constants(PACKAGE / "static_manifests" / "loader.py", "CODE_") | {"duplicate-field"}
    ),
    ("vap_lsp/static_manifests/admission_config.py", "code"): lambda: (
        _module_constants(PACKAGE / "static_manifests" / "admission_config.py", "CODE_")
        | {"static-version", "unknown-field", "duplicate-field", "type-mismatch"}
    ),
}


def _diagnostic_codes() -> tuple[set[str], list[str]]:
    """(every code the package can emit, code expressions no route knows: 'file:line: expr')."""
    codes: set[str] = set()
    unknown: list[str] = []
    for path, tree in _modules():
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _callee(call) != "Diagnostic":
                continue
            if isinstance(call.func, ast.Attribute):  # lsp.Diagnostic: only convert.py builds it
                code = _arg(call, 99, "code")
                if code is None or ast.unparse(code) != "d.code":
                    unknown.append(f"{path.relative_to(ROOT)}:{call.lineno}: lsp.Diagnostic without d.code")
                continue
            code = _arg(call, 2, "code")
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                codes.add(code.value)
            elif code is not None and (str(path.relative_to(ROOT)), ast.unparse(code)) in ROUTES:
                codes |= ROUTES[(str(path.relative_to(ROOT)), ast.unparse(code))]()
            else:
                where = ast.unparse(code) if code is not None else "(none)"
                unknown.append(f"{path.relative_to(ROOT)}:{call.lineno}: {where}")
    return codes, unknown


def test_every_code_route_is_known() -> None:
    _, unknown = _diagnostic_codes()
    assert unknown == [], "codes this test cannot enumerate: add the route to ROUTES"


def test_the_scan_finds_the_codes_it_must() -> None:
    # A guard against a scan that silently finds nothing.
    codes, _ = _diagnostic_codes()
    expected = {"yaml-syntax", "unknown-field", "FieldValueForbidden", "cel-type-check", "map-json-patch"}
    assert expected <= codes
    assert "cel-syntax" in codes and "policy-not-found" in codes and "test-failed" in codes


def test_every_emitted_code_has_a_page() -> None:
    codes, _ = _diagnostic_codes()
    assert sorted(codes - set(rules())) == []


def test_every_page_is_for_a_code_that_is_emitted() -> None:
    codes, _ = _diagnostic_codes()
    assert sorted(set(rules()) - codes) == []


_SEVERITY_NAMES = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def _severities_of(text: str) -> dict[str, set[str]]:
    """Each code the text gets, with the severities it gets it with."""
    workspace = WorkspaceIndex()
    workspace.complete = True
    analysis = analyse_text(textwrap.dedent(text), workspace=workspace, uri="file:///example.yaml")
    found: dict[str, set[str]] = {}
    for d in analysis.diagnostics:
        found.setdefault(str(d.code), set()).add(_SEVERITY_NAMES[int(d.severity)])
    return found


def _codes_of(text: str) -> set[str]:
    return set(_severities_of(text))


@pytest.mark.parametrize("code", [c for c, r in rules().items() if r.checked])
def test_the_example_gets_the_code_and_the_fix_does_not(code: str) -> None:
    rule = rules()[code]
    found = _severities_of(rule.example)
    assert code in found
    # the page's severity is the one the analysis reports ("error or warning": either)
    assert found[code] <= set(rule.severity.split(" or ")), (found[code], rule.severity)
    if rule.fixed:
        assert code not in _codes_of(rule.fixed)


def test_every_page_has_the_three_parts() -> None:
    for rule in rules().values():
        assert rule.title and rule.server.strip() and rule.example.strip() and rule.fix.strip(), rule.code
        groups = {"yaml", "decoding", "validation", "cel", "workspace", "advice", "run", "internal", "static"}
        assert rule.group in groups, rule.code


def test_the_unsuppressible_codes_agree() -> None:
    from vap_lsp.analysis.suppress import UNSUPPRESSIBLE

    assert {c for c, r in rules().items() if not r.suppressible} == UNSUPPRESSIBLE


def test_docs_rules_is_generated_from_the_catalog() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "generate_rule_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_rule_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "FieldValueForbidden"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# `FieldValueForbidden`: ")
    assert "## What the API server does" in out and "## Example" in out and "## Fix" in out
    assert "mutually exclusive" in out


def test_rule_all_lists_every_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "--all"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == list(rules())
    assert main(["rule", "--all", "--format", "json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert entries[0]["url"] == DOCS_URL + entries[0]["code"] + ".md"


def test_rule_unknown_code_exits_2_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "fieldvalueforbidden"]) == 2
    assert "did you mean 'FieldValueForbidden'" in capsys.readouterr().err


def test_sarif_rules_carry_help_and_help_uri(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(textwrap.dedent(rules()["cel-type-check"].example), encoding="utf-8")
    assert main(["check", "--format", "sarif", str(policy)]) == 0  # a warning: exit 0
    driver = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]
    (rule,) = [r for r in driver["rules"] if r["id"] == "cel-type-check"]
    assert rule["helpUri"] == DOCS_URL + "cel-type-check.md"
    assert rule["help"]["markdown"].startswith("# `cel-type-check`")
    assert rule["shortDescription"]["text"] == rules()["cel-type-check"].title


def test_lsp_diagnostics_carry_code_description() -> None:
    from vap_lsp.server.convert import to_lsp_diagnostic

    analysis = analyse_text(textwrap.dedent(rules()["cel-syntax"].example))
    (d,) = [to_lsp_diagnostic(d, analysis.lines) for d in analysis.diagnostics if d.code == "cel-syntax"]
    assert d.code_description is not None and d.code_description.href == help_uri("cel-syntax")


def test_each_check_declares_every_code_its_module_reports() -> None:
    """A row of the check table (`analysis.checks.table`) says which codes it reports: the scan of
    its module's `Diagnostic(...)` calls finds no other."""
    from vap_lsp.analysis.checks.table import CHECKS, FILE_CHECKS

    declared: dict[str, set[str]] = {}
    for check in (*CHECKS, *FILE_CHECKS):
        runs = [check.run, *(c.cell_contents for c in getattr(check.run, "__closure__", None) or ())]
        for run in runs:
            module = getattr(run, "__module__", None)
            if isinstance(module, str) and module.startswith("vap_lsp.analysis.checks."):
                declared.setdefault(module.rsplit(".", 1)[-1], set()).update(check.codes)
    undeclared: dict[str, list[str]] = {}
    for path, tree in _modules():
        if path.parent.name != "checks":
            continue
        found: set[str] = set()
        for call in ast.walk(tree):
            if not isinstance(call, ast.Call) or _callee(call) != "Diagnostic":
                continue
            code = _arg(call, 2, "code")
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                found.add(code.value)
            elif code is not None:
                found |= ROUTES[(str(path.relative_to(ROOT)), ast.unparse(code))]()
        extra = sorted(found - declared.get(path.stem, set()))
        if extra:
            undeclared[path.stem] = extra
    assert declared, "the scan found no row"
    assert undeclared == {}
