"""Output formats of `vap-lsp check`: text for people, JSON for tools, SARIF for code scanning,
GitHub workflow annotations, JUnit XML for CI test reports (GitLab, Jenkins).

Positions: text prints 1-based line:column with columns in characters (what editors show);
JSON uses LSP's 0-based line and UTF-16 `character`; SARIF uses 1-based lines and UTF-16
columns, declared through `columnKind`.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from vap_lsp import __version__
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.codes import get_rule, help_uri, render_markdown
from vap_lsp.text import LineIndex


@dataclass
class FileReport:
    path: str
    lines: LineIndex
    diagnostics: list[Diagnostic]


def format_text(reports: list[FileReport]) -> str:
    out: list[str] = []
    for report in reports:
        for d in report.diagnostics:
            lc = report.lines.line_col(d.span.start)
            first, *rest = d.message.splitlines() or [""]
            out.append(f"{report.path}:{lc.line + 1}:{lc.column + 1}: {d.severity.label}: {first} [{d.code}]")
            out.extend(f"    {line}" for line in rest)
            for x in d.related:
                at = report.lines.line_col(x.span.start)
                out.append(f"    {report.path}:{at.line + 1}:{at.column + 1}: note: {x.message}")
    return "\n".join(out) + ("\n" if out else "")


def default_min_severity(output_format: str) -> Severity:
    """What a format shows unless `--min-severity`, `--show-notes` or the configuration say: the
    text a person reads leaves notes out (one line counts them); the formats that tools, code
    scanning and CI read keep everything and let the tool filter."""
    return Severity.WARNING if output_format == "text" else Severity.HINT


def split_by_severity(report: FileReport, level: Severity) -> tuple[FileReport, list[Diagnostic]]:
    """The report with what is at `level` or above, and what it leaves out."""
    shown = [d for d in report.diagnostics if d.severity <= level]
    hidden = [d for d in report.diagnostics if d.severity > level]
    return FileReport(report.path, report.lines, shown), hidden


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _by_class(diagnostics: list[Diagnostic]) -> tuple[int, int, int]:
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    return errors, warnings, len(diagnostics) - errors - warnings


def summary_line(reports: list[FileReport], level: Severity = Severity.HINT) -> str:
    """`3 files checked: 1 error, 2 warnings`: what the report shows. A class of severities is
    named when `level` (the most lenient of the files') lets it through, so a hidden class is
    never counted as `0` here; `hidden_line` counts it."""
    errors, warnings, notes = _by_class([d for r in reports for d in r.diagnostics])
    parts = [_count(errors, "error")]
    if level >= Severity.WARNING:
        parts.append(_count(warnings, "warning"))
    if level >= Severity.INFORMATION:
        parts.append(_count(notes, "note"))
    return f"{_count(len(reports), 'file')} checked: {', '.join(parts)}"


def hidden_line(hidden: list[Diagnostic], *, level_given: bool = False) -> str | None:
    """`212 notes hidden: 198 cel-type-check-guarded, 14 optional-field — --show-notes`: what a
    report left out, per code (most frequent first), and the option that shows it (with
    `--min-severity` on the command line, `--show-notes` would be refused: then that option)."""
    if not hidden:
        return None
    _, warnings, notes = _by_class(hidden)
    what = ", ".join(p for n, w in ((warnings, "warning"), (notes, "note")) if n for p in [_count(n, w)])
    codes: dict[str, int] = {}
    for d in hidden:
        codes[d.code] = codes.get(d.code, 0) + 1
    listed = ", ".join(
        f"{n} {code}" for code, n in sorted(codes.items(), key=lambda item: (-item[1], item[0]))
    )
    lowest = max(d.severity for d in hidden)
    option = "--show-notes" if not warnings and not level_given else f"--min-severity {lowest.label}"
    return f"{what} hidden: {listed} — {option}"


def _lsp_range(lines: LineIndex, d: Diagnostic | Related) -> dict[str, Any]:
    start, end = lines.range(d.span)
    return {
        "start": {"line": start.line, "character": start.character},
        "end": {"line": end.line, "character": end.character},
    }


def format_json(reports: list[FileReport]) -> str:
    files = [
        {
            "path": r.path,
            "diagnostics": [
                {
                    "range": _lsp_range(r.lines, d),
                    "severity": d.severity.label,
                    "code": d.code,
                    "source": d.source,
                    "message": d.message,
                    "field": d.field,
                    **(
                        {
                            "related": [
                                {"range": _lsp_range(r.lines, x), "message": x.message} for x in d.related
                            ]
                        }
                        if d.related
                        else {}
                    ),
                    **({"tags": ["unnecessary"]} if d.unnecessary else {}),
                }
                for d in r.diagnostics
            ],
        }
        for r in reports
    ]
    return json.dumps({"files": files}, indent=2, ensure_ascii=False) + "\n"


_SARIF_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}


def _sarif_rule(code: str) -> dict[str, Any]:
    """A SARIF reportingDescriptor with the rule's page (code scanning shows `help`)."""
    rule = get_rule(code)
    if rule is None:
        return {"id": code, "shortDescription": {"text": code}}
    page = render_markdown(rule)
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": rule.title},
        "helpUri": help_uri(code),
        "help": {"text": page, "markdown": page},
        "properties": {"severity": rule.severity, "group": rule.group},
    }


def _sarif_region(lines: LineIndex, d: Diagnostic | Related) -> dict[str, int]:
    rng = _lsp_range(lines, d)
    return {
        "startLine": rng["start"]["line"] + 1,
        "startColumn": rng["start"]["character"] + 1,
        "endLine": rng["end"]["line"] + 1,
        "endColumn": rng["end"]["character"] + 1,
    }


def format_sarif(reports: list[FileReport]) -> str:
    rule_ids = sorted({d.code for r in reports for d in r.diagnostics})
    results = []
    for r in reports:
        for d in r.diagnostics:
            region = _sarif_region(r.lines, d)
            artifact = {"uri": r.path.replace("\\", "/")}
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": rule_ids.index(d.code),
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": artifact,
                            "region": region,
                        }
                    }
                ],
            }
            if d.related:
                result["relatedLocations"] = [
                    {
                        "id": i,
                        "physicalLocation": {
                            "artifactLocation": artifact,
                            "region": _sarif_region(r.lines, x),
                        },
                        "message": {"text": x.message},
                    }
                    for i, x in enumerate(d.related)
                ]
            properties: dict[str, Any] = {"field": d.field} if d.field else {}
            if d.unnecessary:
                properties["tags"] = ["unnecessary"]
            if properties:
                result["properties"] = properties
            results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "vap-lsp",
                        "version": __version__,
                        "rules": [_sarif_rule(rule) for rule in rule_ids],
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


_GITHUB_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(reports: list[FileReport]) -> str:
    """GitHub Actions workflow commands: each diagnostic becomes an annotation on the diff."""
    out: list[str] = []
    for r in reports:
        for d in r.diagnostics:
            start, end = r.lines.line_col(d.span.start), r.lines.line_col(d.span.end)
            path = _gh_property(r.path.replace("\\", "/"))
            props = (
                f"file={path},line={start.line + 1},col={start.column + 1},"
                f"endLine={end.line + 1},endColumn={end.column + 1},title={_gh_property('vap-lsp ' + d.code)}"
            )
            out.append(f"::{_GITHUB_LEVEL[d.severity]} {props}::{_gh_data(d.message)}")
    return "\n".join(out) + ("\n" if out else "")


def _line_col(r: FileReport, d: Diagnostic) -> str:
    lc = r.lines.line_col(d.span.start)
    return f"{lc.line + 1}:{lc.column + 1}"


def format_junit(reports: list[FileReport]) -> str:
    """JUnit XML for CI test reports: a test suite per file, a failing test case per error (a file
    without errors is one passing case); warnings and notes go to the suite's system-out."""
    root = ET.Element("testsuites", name="vap-lsp check")
    total = failures = 0
    for r in reports:
        errors = [d for d in r.diagnostics if d.severity is Severity.ERROR]
        others = [d for d in r.diagnostics if d.severity is not Severity.ERROR]
        suite = ET.SubElement(
            root, "testsuite", name=r.path, tests=str(max(1, len(errors))), failures=str(len(errors))
        )
        if not errors:
            ET.SubElement(suite, "testcase", classname=r.path, name=r.path)
        for d in errors:
            where = _line_col(r, d)
            case = ET.SubElement(suite, "testcase", classname=r.path, name=f"{d.code} at {where}")
            failure = ET.SubElement(
                case, "failure", type=d.code, message=d.message.splitlines()[0] if d.message else ""
            )
            failure.text = f"{r.path}:{where}: {d.message}"
        if others:
            out = ET.SubElement(suite, "system-out")
            out.text = "\n".join(
                f"{r.path}:{_line_col(r, d)}: {d.severity.label}: {d.message} [{d.code}]" for d in others
            )
        total += max(1, len(errors))
        failures += len(errors)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def statistics(reports: list[FileReport]) -> str:
    """`--statistics`: diagnostics per code, most frequent first, with the severities seen."""
    counts: dict[str, int] = {}
    severities: dict[str, set[Severity]] = {}
    for r in reports:
        for d in r.diagnostics:
            counts[d.code] = counts.get(d.code, 0) + 1
            severities.setdefault(d.code, set()).add(d.severity)
    if not counts:
        return ""
    width = max(len(code) for code in counts)
    digits = len(str(max(counts.values())))
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(
        f"{count:>{digits}}  {code:<{width}}  {'/'.join(s.label for s in sorted(severities[code]))}\n"
        for code, count in rows
    )


FORMATTERS = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
    "junit": format_junit,
}
