"""Inlay hints: the inferred type of each `spec.variables[*]` entry, after its name (vap-lsp's
precise type, with the server's in the tooltip when it reads the variable as `dyn`).

A variable's type is what every later expression sees through `variables.<name>`, and it is
not written anywhere in the policy; showing it saves hovering over each use.
"""

from __future__ import annotations

from dataclasses import dataclass

from vap_lsp.features.cel_context import policy_cels
from vap_lsp.features.cel_docs import type_text
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.text import Span
from vap_lsp.yaml.model import ScalarNode, lookup

__all__ = ["InlayHint", "inlay_hints"]


@dataclass(frozen=True)
class InlayHint:
    """`label` shown at `offset` (a code-point offset); `tooltip` in markdown."""

    offset: int
    label: str
    tooltip: str | None = None


def inlay_hints(snapshot: DocumentSnapshot, within: Span | None = None) -> list[InlayHint]:
    hints: list[InlayHint] = []
    for pc in policy_cels(snapshot):
        for var in pc.variables:
            if var.inferred is None:
                continue
            name_path = (*var.site.path[:-1], "name")
            name_node, _, found = lookup(pc.obj.node, name_path)
            anchor = name_node if isinstance(name_node, ScalarNode) and len(found) == len(name_path) else None
            offset = anchor.span.end if anchor is not None else var.site.node.span.end
            if within is not None and not within.start <= offset <= within.end:
                continue
            inferred = type_text(var.inferred)
            tooltip = f"`variables.{var.name}` has type `{inferred}`"
            if type_text(var.server_type) != inferred:
                tooltip += (
                    f"; the API server reads it as `{type_text(var.server_type)}` (object types read as "
                    "`dyn` through `variables`), vap-lsp keeps the inferred type"
                )
            hints.append(InlayHint(offset, f": {inferred}", tooltip))
    hints.sort(key=lambda h: h.offset)
    return hints
