"""Quick fix for `typing-unavailable`: use the version under which the workspace's CRD is served.

A rule on `gateway.networking.k8s.io/v1 httproutes` whose CRD in the workspace only serves
`v1beta1` matches nothing on a cluster running that CRD, and is untyped: the fix rewrites the
rule's apiVersion (when no typed resource of the rule needs the old one, else it adds the
version), or `paramKind.apiVersion`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.coverage import params_item, rule_items
from vap_lsp.features.cel_context import policy_cel
from vap_lsp.features.edits import TextEditResult, rewrite_value
from vap_lsp.text import Span
from vap_lsp.yaml.model import ScalarNode, SequenceNode, lookup

if TYPE_CHECKING:
    from vap_lsp.features.code_actions import CodeActionResult, DiagnosticRef
    from vap_lsp.features.snapshot import DocumentSnapshot


def _rule_fixes(d: DiagnosticRef, root: Any, context: PolicyContext, index: int) -> list[CodeActionResult]:
    from vap_lsp.features.code_actions import CodeActionResult

    rule = next((r for r in context.rules if r.index == index), None)
    if rule is None:
        return []
    path = ("spec", "matchConstraints", "resourceRules", index, "apiVersions")
    versions, _, found = lookup(root, path)
    if not isinstance(versions, SequenceNode) or len(found) != len(path):
        return []
    still_needed = {g.version for g in rule.typed}
    listed = [i for i in versions.items if isinstance(i, ScalarNode)]
    out: list[CodeActionResult] = []
    for u in rule_items(rule):
        item = next((i for i in listed if i.value == u.version), None)
        if not u.elsewhere or item is None:
            continue
        alt = u.elsewhere[0]
        target = f"{alt.group}/{alt.version} {alt.plural} ({alt.kind})"
        if u.version not in still_needed:
            edit = rewrite_value(item, alt.version)
            out.append(
                CodeActionResult(f"Match {target}, the version the workspace's CRD serves", [edit], d, True)
            )
        elif versions.flow and listed:
            # Another resource of the rule is typed under this version: add, do not replace.
            at = listed[-1].span.end
            edit = TextEditResult(Span(at, at), f", {alt.version}")
            out.append(
                CodeActionResult(f"Also match {target}, the version the workspace's CRD serves", [edit], d)
            )
    return out


def _param_fixes(d: DiagnosticRef, root: Any, context: PolicyContext) -> list[CodeActionResult]:
    from vap_lsp.features.code_actions import CodeActionResult

    u = params_item(context)
    if u is None or not u.elsewhere:
        return []
    node, _, found = lookup(root, ("spec", "paramKind", "apiVersion"))
    if not isinstance(node, ScalarNode) or len(found) != 3:
        return []
    alt = u.elsewhere[0]
    api_version = f"{alt.group}/{alt.version}"
    return [
        CodeActionResult(
            f"Use {api_version}, the version the workspace's CRD for {alt.kind} serves",
            [rewrite_value(node, api_version)],
            d,
            preferred=True,
        )
    ]


def typing_unavailable_fixes(snapshot: DocumentSnapshot, d: DiagnosticRef) -> list[CodeActionResult]:
    obj = snapshot.object_at(d.span.start)
    pc = policy_cel(snapshot, obj) if obj is not None else None  # the model of the diagnostics
    if pc is None or not d.field:
        return []
    root, context = pc.context.root, pc.context
    if d.field == "spec.paramKind":
        return _param_fixes(d, root, context)
    prefix = "spec.matchConstraints.resourceRules["
    if d.field.startswith(prefix) and d.field.endswith("]") and d.field[len(prefix) : -1].isdigit():
        return _rule_fixes(d, root, context, int(d.field[len(prefix) : -1]))
    return []
