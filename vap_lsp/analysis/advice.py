"""Advice beyond the API server: never errors, because the server accepts all of this.

What admission guarantees (a root that is null, a field that is present) comes from one model,
`analysis.guarantees`:
- a root read without a null guard where it can be null: `oldObject` on CREATE, `object` on
  DELETE, `namespaceObject` for cluster-scoped kinds and in matchConditions — the expression
  fails at admission for every such request (warning);
- a `message` that holds `{{ }}` templates or looks like CEL: it is shown verbatim
  (information: `messageExpression` is probably what was meant);
- selecting a field that can be absent at that point of admission (not defaulted, not
  required, not set by the API server), without `has()` or `?.`: fails at admission whenever
  it is absent (hint: too frequent to be a warning).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.guarantees import (
    Point,
    Subject,
    field_guarantee,
    mentions_root,
    null_cases,
    root_guarded,
    type_path,
)
from vap_lsp.analysis.narrowing import Reachability
from vap_lsp.analysis.sites import ExpressionSite
from vap_lsp.analysis.typing import PolicyTyping
from vap_lsp.cel.ast import Call, Expr, Ident, Select, children
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.yaml.model import MappingNode, ScalarNode, lookup

_TEMPLATE = re.compile(r"\{\{.*?\}\}")
_CEL_LOOKING = re.compile(r"\b(object|oldObject|params|request|variables)\.[A-Za-z_]")


def _walk(node: Expr | None) -> Iterator[Expr]:
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def null_roots(typing: PolicyTyping, results: list[tuple[ExpressionSite, CompileResult]]) -> list[Diagnostic]:
    """Roots read without a null guard where they can be null (warnings: the expression fails
    for every such request). A guard in a matchCondition keeps those requests out of every
    expression; a messageExpression that fails falls back to `message`, so it is not one."""
    conditions = [s.text for s, _ in results if s.kind is ExpressionKind.MATCH_CONDITION]
    readers = _variable_readers(results)
    diagnostics: list[Diagnostic] = []
    for case in null_cases(typing):
        if case.conditions_guard and root_guarded(case.root, conditions):
            continue  # a match condition already keeps those requests out
        for site, result in results:
            if not case.sites(site) or site.kind is ExpressionKind.MESSAGE_EXPRESSION:
                continue
            if result.parsed.ast is None or not mentions_root(case.root, site.text):
                continue
            if root_guarded(case.root, [site.text], by_request=case.conditions_guard):
                continue
            if site.kind is ExpressionKind.VARIABLE and all(
                root_guarded(case.root, [r.text]) for r in readers.get(site.name or "", [])
            ):
                continue  # evaluated only where the root is guarded (or never)
            node = _root_read(result.parsed.ast, case.root)
            if node is None:
                continue
            start = node.start + result.offset
            diagnostics.append(
                Diagnostic(
                    site.node.source_span(start, start + len(case.root)),
                    Severity.WARNING,
                    case.code,
                    f"{site.field}: {case.root} is null {case.case}; {case.fix}",
                    field=site.field,
                )
            )
    return diagnostics


def _root_read(ast: Expr, root: str) -> Ident | None:
    """The first read of a field or an index of `root`."""
    for node in _walk(ast):
        if isinstance(node, Select):
            operand: Expr | None = node.operand
        elif isinstance(node, Call) and node.function in ("_[_]", "_[?_]") and node.args:
            operand = node.args[0]
        else:
            continue
        if isinstance(operand, Ident) and operand.name == root:
            return operand
    return None


def _variable_readers(
    results: list[tuple[ExpressionSite, CompileResult]],
) -> dict[str, list[ExpressionSite]]:
    """The sites that read each variable (`variables.<name>`)."""
    readers: dict[str, list[ExpressionSite]] = {}
    for site, _ in results:
        for name in _VARIABLE_READ.findall(site.text):
            readers.setdefault(name, []).append(site)
    return readers


_VARIABLE_READ = re.compile(r"\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")


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


_SCHEMA_ROOTS = frozenset({"object", "oldObject", "params"})


def unguarded_optional_fields(
    site: ExpressionSite,
    result: CompileResult,
    checked: CheckedExpr,
    subjects: Mapping[str, Subject | None],
    point: Point,
    version: str,
    reach: Reachability | None = None,
) -> list[Diagnostic]:
    """Fields read without `has()`/`.?` that can be absent where the expression runs
    (`guarantees.field_guarantee`, with the kind each root holds). `reach`: the kind's narrowing
    (a node in a branch that cannot run for the kind is not read for it)."""
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
        if reach is not None and reach.guard_of(node) is not None:
            continue  # a branch that cannot run for this kind
        ref = checked.references.get(node.id)
        decl = ref.field if ref is not None else None
        if decl is None or ref is None:
            continue
        path = _path_text(node)
        if path is None or path in guarded or path in seen:
            continue
        root = path.split(".", 1)[0]
        if root not in _SCHEMA_ROOTS:
            continue  # variables' fields are inferred, not optional
        owner = subjects.get(root)
        fields = type_path(ref.owner, node.field, owner.type_name) if owner is not None else None
        if fields is None:
            fields = tuple(path.split(".")[1:])
        guarantee = field_guarantee(root, fields, decl, owner, point, version)
        if guarantee.present:
            continue
        seen.add(path)
        start = node.field_start + result.offset
        diagnostics.append(
            Diagnostic(
                site.node.source_span(start, start + len(node.field)),
                Severity.HINT,
                "optional-field",
                f"{site.field}: {path} is {guarantee.why}; without has() or `.?` the expression "
                "fails when it is absent",
                field=site.field,
            )
        )
    return diagnostics
