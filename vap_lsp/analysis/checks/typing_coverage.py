"""`typing-unavailable`: say when context is lost, on the rule (or `paramKind`) that loses it.

What is lost, and why, is the policy context's (`PolicyContext.rules`, `.params_untyped`), worded
by `model.coverage`. One INFORMATION diagnostic per rule, naming what is untyped and how to give
the schema; never more than advice: the server accepts such policies.
"""

from __future__ import annotations

from vap_lsp.analysis.checks.check import Check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.coverage import params_item, rule_items, untyped_message
from vap_lsp.analysis.model.object_context import ObjectContext, Role
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.yaml.model import MappingNode, Path

__all__ = ["CHECK", "CODE", "check_typing_coverage"]

CODE = "typing-unavailable"


def check_typing_coverage(ctx: ObjectContext) -> list[Diagnostic]:
    """One information diagnostic per rule (and on `paramKind`) where context is lost; none for a
    policy without expressions (nothing to type)."""
    context = ctx.policy
    if context is None or not context.sites:
        return []
    assert ctx.lines is not None
    root, lines = ctx.obj.node, ctx.lines
    diagnostics: list[Diagnostic] = []
    for rule in context.rules:
        items = rule_items(rule)
        if not items:
            continue
        path: Path = ("spec", "matchConstraints", "resourceRules", rule.index)
        field_text = f"spec.matchConstraints.resourceRules[{rule.index}]"
        span = span_for_path(root, path, lines)
        diagnostics.append(
            Diagnostic(
                span,
                Severity.INFORMATION,
                CODE,
                f"{field_text}: " + untyped_message("object", items),
                field=field_text,
            )
        )
    param = params_item(context)
    if param is not None:
        node = root.get("spec")
        pk = node.get("paramKind") if isinstance(node, MappingNode) else None
        span = head_span(pk, lines) if pk is not None else head_span(root, lines)
        message = "spec.paramKind: " + untyped_message("params", [param])
        diagnostics.append(Diagnostic(span, Severity.INFORMATION, CODE, message, field="spec.paramKind"))
    return diagnostics


CHECK = Check(
    "typing-coverage",
    (CODE,),
    Role.POLICY,
    check_typing_coverage,
    "Where context is lost (wildcards, subresources, unknown or schemaless kinds, past the type "
    "checker's 10 kinds, a paramKind without a schema): one note per rule.",
)
