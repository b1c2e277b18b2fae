"""Text, JSON and JUnit XML reports of a test run (the CLI writes them; CI reads the JUnit file)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_lsp.testfiles.model import CaseResult, TestSuite

if TYPE_CHECKING:
    from vap_lsp.testfiles.coverage import Coverage


@dataclass
class SuiteRun:
    suite: TestSuite
    results: list[CaseResult] = field(default_factory=list)


def counts(runs: list[SuiteRun]) -> tuple[int, int, int]:
    """(passed, failed, expected differences)."""
    results = [r for run in runs for r in run.results]
    differences = sum(1 for r in results if r.expected_difference)
    passed = sum(1 for r in results if r.passed)
    return passed, len(results) - passed - differences, differences


def _explained(r: CaseResult) -> list[str]:
    """The case's explanation (`--explain`): of its policy only, when it names one."""
    from vap_lsp.admission.explain import render_text

    explanations = [e for e in r.explanations or [] if r.case.policy is None or e.policy == r.case.policy]
    return render_text(explanations, indent="       ")


def text_report(runs: list[SuiteRun], *, verbose: bool = False, explain: bool = False) -> str:
    out: list[str] = []
    for run in runs:
        suite = run.suite
        out.append(f"{suite.path} ({suite.format})")
        out.extend(f"  bad input: {p}" for p in suite.problems)
        for r in run.results:
            where = f":{r.case.line}" if r.case.line else ""
            if r.passed:
                if verbose or explain:
                    out.append(f"  PASS {r.case.name}")
                    out.extend(f"       note: {n}" for n in r.notes)
                    if explain:
                        out.extend(_explained(r))
                continue
            label = "XDIFF" if r.expected_difference else "FAIL"
            out.append(f"  {label} {r.case.name} ({suite.path}{where})")
            out.extend(f"       {line}" for f in r.failures for line in f.splitlines())
            if r.expected_difference:
                out.append(f"       expected difference: {r.case.expected_difference}")
            out.extend(f"       note: {n}" for n in r.notes)
            if explain:
                out.extend(_explained(r))
    passed, failed, differences = counts(runs)
    bad = sum(len(run.suite.problems) for run in runs)
    summary = f"{passed} passed, {failed} failed"
    if differences:
        summary += f", {differences} expected differences"
    if bad:
        summary += f", {bad} input problems"
    out.append(summary)
    return "\n".join(out) + "\n"


def junit_report(runs: list[SuiteRun]) -> str:
    root = ET.Element("testsuites", name="vap-lsp test")
    total_tests = total_failures = total_errors = 0
    for run in runs:
        suite = run.suite
        failures = sum(1 for r in run.results if not r.passed and not r.expected_difference)
        errors = len(suite.problems)
        skipped = sum(1 for r in run.results if r.expected_difference)
        element = ET.SubElement(
            root,
            "testsuite",
            name=suite.path,
            tests=str(len(run.results) + errors),
            failures=str(failures),
            errors=str(errors),
            skipped=str(skipped),
        )
        for problem in suite.problems:
            case = ET.SubElement(element, "testcase", name="read test file", classname=suite.path)
            ET.SubElement(case, "error", message=problem).text = problem
        for r in run.results:
            case = ET.SubElement(
                element,
                "testcase",
                name=r.case.name,
                classname=suite.path,
                file=suite.path,
                line=str(r.case.line or 0),
            )
            if r.expected_difference:
                ET.SubElement(case, "skipped", message=f"expected difference: {r.case.expected_difference}")
            elif not r.passed:
                detail = "\n".join([*r.failures, *(f"note: {n}" for n in r.notes)])
                ET.SubElement(
                    case, "failure", message=r.failures[0] if r.failures else "failed"
                ).text = detail
            elif r.notes:
                ET.SubElement(case, "system-out").text = "\n".join(r.notes)
        total_tests += len(run.results) + errors
        total_failures += failures
        total_errors += errors
    root.set("tests", str(total_tests))
    root.set("failures", str(total_failures))
    root.set("errors", str(total_errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def json_report(runs: list[SuiteRun], coverage: Coverage | None = None) -> str:
    """`vap-lsp test --format json`: every case with its verdict, failures and (with
    `--explain`) the explanation tree; the coverage when asked for."""
    passed, failed, differences = counts(runs)
    payload: dict[str, Any] = {
        "suites": [
            {
                "path": run.suite.path,
                "format": run.suite.format,
                "problems": list(run.suite.problems),
                "cases": [
                    {
                        "name": r.case.name,
                        "line": r.case.line,
                        "passed": r.passed,
                        "actual": r.actual,
                        "failures": r.failures,
                        "notes": r.notes,
                        **(
                            {"explain": [e.to_json() for e in r.explanations]}
                            if r.explanations is not None
                            else {}
                        ),
                    }
                    for r in run.results
                ],
            }
            for run in runs
        ],
        "summary": {"passed": passed, "failed": failed, "expectedDifferences": differences},
    }
    if coverage is not None:
        from vap_lsp.testfiles.coverage import to_json

        payload["coverage"] = to_json(coverage)
    return json.dumps(payload, indent=2, default=str) + "\n"
