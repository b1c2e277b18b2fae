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
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
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


def _lsp_range(lines: LineIndex, d: Diagnostic) -> dict[str, Any]:
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


def format_sarif(reports: list[FileReport]) -> str:
    rule_ids = sorted({d.code for r in reports for d in r.diagnostics})
    results = []
    for r in reports:
        for d in r.diagnostics:
            rng = _lsp_range(r.lines, d)
            region = {
                "startLine": rng["start"]["line"] + 1,
                "startColumn": rng["start"]["character"] + 1,
                "endLine": rng["end"]["line"] + 1,
                "endColumn": rng["end"]["character"] + 1,
            }
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": rule_ids.index(d.code),
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": r.path.replace("\\", "/")},
                            "region": region,
                        }
                    }
                ],
            }
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
                        "rules": [_sarif_rule(rule) for rule in rule_ids],
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "sarif": format_sarif}
