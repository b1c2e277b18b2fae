"""Advice beyond the API server: never errors, because the server accepts all of this.

- `oldObject` read in a policy that matches CREATE, without a null guard: `oldObject` is null
  on CREATE, so the expression fails at admission for every create (warning);
- a `message` that holds `{{ }}` templates or looks like CEL: it is shown verbatim
  (information: `messageExpression` is probably what was meant);
- selecting a field that the schema neither requires nor defaults, without `has()` or `?.`:
  fails at admission whenever the field is absent (hint: too frequent to be a warning).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.sites import ExpressionSite
from vap_lsp.cel.ast import Expr, Ident, Select, children
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.yaml.model import MappingNode, ScalarNode, lookup

_GUARD = re.compile(
    r"\boldObject\s*[!=]=\s*null\b|\bnull\s*[!=]=\s*oldObject\b|\bhas\(\s*oldObject\b|\brequest\.operation\b"
)
_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_CEL_LOOKING = re.compile(r"\b(object|oldObject|params|request|variables)\.[A-Za-z_]")


def _operations(spec: Mapping[str, Any]) -> set[str]:
    constraints = spec.get("matchConstraints")
    rules = constraints.get("resourceRules") if isinstance(constraints, Mapping) else None
    ops: set[str] = set()
    for rule in rules if isinstance(rules, list) else []:
        if isinstance(rule, Mapping) and isinstance(rule.get("operations"), list):
            ops.update(o for o in rule["operations"] if isinstance(o, str))
    return ops


def _walk(node: Expr | None) -> Iterator[Expr]:
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def old_object_on_create(
    sites: list[tuple[ExpressionSite, CompileResult]], spec: Mapping[str, Any]
) -> list[Diagnostic]:
    ops = _operations(spec)
    if not ops & {"CREATE", "*"}:
        return []
    guards = " ".join(site.text for site, _ in sites if site.kind.name == "MATCH_CONDITION")
    if _GUARD.search(guards):
        return []  # a match condition already keeps CREATE requests out
    diagnostics: list[Diagnostic] = []
    for site, result in sites:
        if _GUARD.search(site.text) or result.parsed.ast is None:
            continue
        for node in _walk(result.parsed.ast):
            if (
                isinstance(node, Select)
                and isinstance(node.operand, Ident)
                and node.operand.name == "oldObject"
            ):
                start = node.operand.start + result.offset
                diagnostics.append(
                    Diagnostic(
                        site.node.source_span(start, start + len("oldObject")),
                        Severity.WARNING,
                        "old-object-on-create",
                        f"{site.field}: oldObject is null on CREATE, which this policy matches; "
                        "guard with `oldObject == null || ...` or `request.operation == 'UPDATE'`",
                        field=site.field,
                    )
                )
                break
    return diagnostics


def message_templates(root: MappingNode, spec: Mapping[str, Any]) -> list[Diagnostic]:
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


def _path_text(node: Expr) -> str | None:
    parts: list[str] = []
    cur: Expr = node
    while isinstance(cur, Select):
        if cur.optional:
            return None
        parts.append(cur.field)
        cur = cur.operand
    if not isinstance(cur, Ident):
        return None
    parts.append(cur.name)
    return ".".join(reversed(parts))


_ALWAYS_PRESENT = frozenset({"metadata.name", "metadata.namespace"})
_SCHEMA_ROOTS = frozenset({"object", "oldObject", "params"})


def unguarded_optional_fields(
    site: ExpressionSite, result: CompileResult, checked: CheckedExpr
) -> list[Diagnostic]:
    parsed = result.parsed
    if parsed.ast is None:
        return []
    guarded: set[str] = set()
    selects: list[Select] = []
    for node in _walk(parsed.ast):
        if isinstance(node, Select):
            if node.test_only:
                path = _path_text(node)
                if path:
                    guarded.add(path)
            else:
                selects.append(node)
    # has() macros keep their original call; the expanded test-only select is what we saw above.
    diagnostics: list[Diagnostic] = []
    seen: set[str] = set()
    for node in selects:
        ref = checked.references.get(node.id)
        decl = ref.field if ref is not None else None
        if decl is None or decl.required or decl.has_default:
            continue
        path = _path_text(node)
        if path is None or path in guarded or path in seen or path.split(".", 1)[-1] in _ALWAYS_PRESENT:
            continue
        if path.split(".", 1)[0] not in _SCHEMA_ROOTS:
            continue  # variables' fields are inferred, not optional
        seen.add(path)
        start = node.field_start + result.offset
        diagnostics.append(
            Diagnostic(
                site.node.source_span(start, start + len(node.field)),
                Severity.HINT,
                "optional-field",
                f"{site.field}: {path} is optional in the schema; without has() or `.?` the expression "
                "fails when it is absent",
                field=site.field,
            )
        )
    return diagnostics
