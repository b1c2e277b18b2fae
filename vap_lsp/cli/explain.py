"""Text of `--explain` (`vap-lsp run`, `vap-lsp test`): the explanation laid out for a terminal.

Thin: the explanation and its text are `vap_lsp.admission.explain`; this adds `run`'s header and
verdict lines around it.
"""

from __future__ import annotations

from vap_lsp.admission.api import AdmissionResult
from vap_lsp.admission.explain import EvaluationExplanation, render_text

__all__ = ["format_explanation"]


def format_explanation(result: AdmissionResult, explanations: list[EvaluationExplanation]) -> str:
    """`run --explain`'s text for one object: the header and verdict of `run`, explained."""
    o = result.object
    where = f"{o.get('namespace')}/" if o.get("namespace") else ""
    lines = [f"{o.get('apiVersion')} {o.get('kind')} {where}{o.get('name') or '<no name>'}"]
    lines.extend(render_text(explanations))
    for w in result.warnings:
        lines.append(f"  warning: {w}")
    for key, value in result.audit_annotations.items():
        lines.append(f"  audit annotation {key}: {value}")
    if result.patch_diff:
        lines.append("  mutated:")
        lines.extend("    " + line.rstrip("\n") for line in result.patch_diff.splitlines())
    if result.allowed:
        lines.append("  => admitted")
    else:
        for d in result.denials:
            lines.append(f"  => denied ({d.reason}, {d.code}): {d.message}")
    return "\n".join(lines) + "\n"
