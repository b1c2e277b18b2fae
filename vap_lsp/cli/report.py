"""Output formats of `vap-lsp check`: text for people, JSON for tools, SARIF for code scanning.

Positions: text prints 1-based line:column with columns in characters (what editors show);
JSON uses LSP's 0-based line and UTF-16 `character`; SARIF uses 1-based lines and UTF-16
columns, declared through `columnKind`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from vap_lsp import __version__
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
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


def summary_line(reports: list[FileReport]) -> str:
    counts = dict.fromkeys(Severity, 0)
    for report in reports:
        for d in report.diagnostics:
            counts[d.severity] += 1
    files = len(reports)
    return (
        f"{files} file{'s' if files != 1 else ''} checked: {counts[Severity.ERROR]} errors, "
        f"{counts[Severity.WARNING]} warnings, {counts[Severity.INFORMATION] + counts[Severity.HINT]} notes"
    )


def _lsp_range(lines: LineIndex, d: Diagnostic | Related) -> dict[str, Any]:
    start = lines.position(d.span.start)
    end = lines.position(d.span.end)
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
            if d.field:
                result["properties"] = {"field": d.field}
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
                        "rules": [{"id": rule, "shortDescription": {"text": rule}} for rule in rule_ids],
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "sarif": format_sarif}
