"""`message-not-cel`: a validation's `message` the author meant to be computed.

The server shows `message` verbatim; `{{ }}` templates are never interpolated and CEL-looking text
is printed as written. Information: `messageExpression` is probably what was meant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from vap_lsp.analysis.checks.check import Check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.object_context import ObjectContext, Role
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import ScalarNode, lookup

__all__ = ["CHECK", "message_templates"]

_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_CEL_LOOKING = re.compile(r"\b(object|oldObject|params|request|variables)\.[A-Za-z_]")


def message_templates(ctx: ObjectContext) -> list[Diagnostic]:
    """A `message` with `{{ }}` templates or that looks like CEL: shown verbatim by the server."""
    if ctx.kind is not PolicyKind.VAP or ctx.spec is None:
        return []
    root, spec = ctx.obj.node, ctx.spec
    diagnostics: list[Diagnostic] = []
    validations = spec.get("validations")
    for i, v in enumerate(validations if isinstance(validations, list) else []):
        if not isinstance(v, Mapping) or not isinstance(v.get("message"), str):
            continue
        node, _, found = lookup(root, ("spec", "validations", i, "message"))
        if not isinstance(node, ScalarNode) or len(found) != 4:
            continue
        field = f"spec.validations[{i}].message"
        if _TEMPLATE.search(node.value):
            what = "contains a {{ }} template, which is never interpolated"
        elif _CEL_LOOKING.search(node.value) and "messageExpression" not in v:
            what = "looks like CEL, but message is shown verbatim"
        else:
            continue
        diagnostics.append(
            Diagnostic(
                node.span,
                Severity.INFORMATION,
                "message-not-cel",
                f"{field} {what}; use messageExpression for a computed message",
                field=field,
            )
        )
    return diagnostics


CHECK = Check(
    "message-templates",
    ("message-not-cel",),
    Role.POLICY,
    message_templates,
    "A validation message holding {{ }} templates or CEL-looking text, which the server shows verbatim.",
)
