"""The conversion report: what was converted into which file, what could not be and why, what
`vap-lsp check` says of the output, and the verification's cases — as text, JSON or Markdown."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from vap_lsp.convert.driver import Run
from vap_lsp.convert.verify import AGREE, DISAGREE, NOT_EVALUABLE, Verification


def _sources_line(run: Run) -> str:
    templates = [c for c in run.conversions if c.origin.kind == "ConstraintTemplate"]
    policies = [c for c in run.conversions if c.origin.kind != "ConstraintTemplate"]
    parts = []
    if templates:
        bindings = sum(len(c.bindings) for c in templates)
        parts.append(
            f"{sum(c.converted for c in templates)} of {len(templates)} ConstraintTemplates "
            f"({bindings} constraint{'s' if bindings != 1 else ''} bound)"
        )
    if policies:
        parts.append(f"{sum(c.converted for c in policies)} of {len(policies)} Kyverno policies")
    written = sum(len(c.policies) for c in run.conversions)
    return (
        f"converted {' and '.join(parts) or 'nothing'}: {written} ValidatingAdmissionPolicies in "
        f"{len(run.texts)} files"
    )


def _check_counts(run: Run) -> Counter[str]:
    return Counter(f.severity for f in run.findings)


def verification_summary(verification: Verification) -> str:
    total = len(verification.cases)
    agree, disagree, skipped = (verification.count(s) for s in (AGREE, DISAGREE, NOT_EVALUABLE))
    evaluable = agree + disagree
    share = f" ({100 * agree / evaluable:.1f}% of evaluable)" if evaluable else ""
    return (
        f"verified {total} cases from {verification.files} test files: {agree} agree{share}, "
        f"{disagree} disagree, {skipped} not evaluable"
    )


def _not_evaluable_reasons(verification: Verification) -> list[tuple[int, str]]:
    reasons = Counter(c.reason for c in verification.cases if c.status == NOT_EVALUABLE)
    return sorted(((n, r) for r, n in reasons.items()), key=lambda x: (-x[0], x[1]))


def text_report(run: Run, verification: Verification | None, *, outdir: str | None = None) -> str:
    lines = [f"vap-lsp convert: {_sources_line(run)}"]
    for c in run.conversions:
        if not c.objects:
            continue
        where = f"{outdir}/{c.file_name}" if outdir else c.file_name
        bindings = len([e for e in c.objects if e.data.get("kind") == "ValidatingAdmissionPolicyBinding"])
        lines.append(
            f"  {where} ← {c.origin.path} ({c.origin.kind} {c.origin.name}): "
            f"{len(c.policies)} polic{'ies' if len(c.policies) != 1 else 'y'}, {bindings} "
            f"binding{'s' if bindings != 1 else ''}"
        )
    if run.unconvertible:
        lines.append(f"not converted ({len(run.unconvertible)}):")
        for u in run.unconvertible:
            field = f" [{u.where}]" if u.where else ""
            lines.append(f"  {u.origin.at()}: {u.origin.label()}: {u.construct}{field}: {u.reason}")
    notes = [(c, n) for c in run.conversions for n in c.notes]
    if notes or run.notes:
        lines.append("notes:")
        lines.extend(f"  {note}" for note in run.notes)
        lines.extend(f"  {c.origin.at()}: {c.origin.label()}: {n}" for c, n in notes)
    counts = _check_counts(run)
    summary = ", ".join(f"{counts[s]} {s}" for s in ("error", "warning", "information", "hint") if counts[s])
    lines.append(f"vap-lsp check on the output: {summary or 'clean'}")
    for f in run.findings:
        if f.severity in ("error", "warning"):
            lines.append(f"  {f.file}:{f.line}: {f.severity} [{f.code}] {f.message}")
    if verification is not None:
        lines.append(verification_summary(verification))
        for case in verification.cases:
            if case.status != DISAGREE:
                continue
            at = f"{case.test_file}:{case.line}" if case.line else case.test_file
            lines.append(
                f"  DISAGREE {at}: {case.policy}: {case.name}: expected {case.expected}; converted: "
                f"{case.actual}"
            )
            if case.reason:
                lines.append(f"    {case.reason}")
            lines.extend(f"    {line}" for line in case.explanation)
        reasons = _not_evaluable_reasons(verification)
        if reasons:
            lines.append("  not evaluable:")
            lines.extend(f"    {n} × {reason}" for n, reason in reasons)
        for problem in verification.problems:
            lines.append(f"  warning: {problem}")
    return "\n".join(lines) + "\n"


def json_report(run: Run, verification: Verification | None) -> str:
    out: dict[str, Any] = {
        "conversions": [
            {
                "source": c.origin.path,
                "line": c.origin.line,
                "kind": c.origin.kind,
                "name": c.origin.name,
                "file": c.file_name if c.objects else None,
                "policies": [p["metadata"]["name"] for p in c.policies],
                "rules": c.rules,
                "bindings": c.bindings,
                "notes": c.notes,
            }
            for c in run.conversions
        ],
        "unconvertible": [u.to_json() for u in run.unconvertible],
        "check": [f.__dict__ for f in run.findings],
        "problems": run.problems,
        "notes": run.notes,
    }
    if verification is not None:
        out["verification"] = {
            "files": verification.files,
            "agree": verification.count(AGREE),
            "disagree": verification.count(DISAGREE),
            "notEvaluable": verification.count(NOT_EVALUABLE),
            "cases": [c.to_json() for c in verification.cases],
            "problems": verification.problems,
        }
    return json.dumps(out, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(run: Run, verification: Verification | None) -> str:
    lines = ["# vap-lsp convert", "", _sources_line(run).capitalize() + ".", ""]
    lines += ["| output | source | policies |", "|---|---|---|"]
    for c in run.conversions:
        if c.objects:
            names = ", ".join(f"`{p['metadata']['name']}`" for p in c.policies)
            lines.append(
                f"| `{c.file_name}` | `{c.origin.path}` ({c.origin.kind} {c.origin.name}) | {names} |"
            )
    if run.unconvertible:
        lines += ["", "## Not converted", "", "| source | what | why |", "|---|---|---|"]
        for u in run.unconvertible:
            lines.append(
                f"| `{u.origin.at()}` {_cell(u.origin.label())} | {_cell(u.construct)} | {_cell(u.reason)} |"
            )
    counts = _check_counts(run)
    summary = ", ".join(f"{counts[s]} {s}" for s in ("error", "warning", "information", "hint") if counts[s])
    lines += ["", f"`vap-lsp check` on the output: {summary or 'clean'}."]
    if verification is not None:
        lines += ["", "## Verification", "", verification_summary(verification).capitalize() + "."]
        disagreements = [c for c in verification.cases if c.status == DISAGREE]
        if disagreements:
            lines += ["", "| case | expected | converted |", "|---|---|---|"]
            for case in disagreements:
                lines.append(
                    f"| `{case.test_file}:{case.line}` {_cell(case.name)} | {_cell(case.expected)} | "
                    f"{_cell(case.actual or '')} |"
                )
        reasons = _not_evaluable_reasons(verification)
        if reasons:
            lines += ["", "| not evaluable | cases |", "|---|---|"]
            lines.extend(f"| {_cell(r)} | {n} |" for n, r in reasons)
    return "\n".join(lines) + "\n"


FORMATS = {"text": text_report, "json": json_report, "markdown": markdown_report}
