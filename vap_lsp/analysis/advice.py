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
from dataclasses import replace
from typing import Any

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.guarantees import (
    NullCase,
    Point,
    Subject,
    field_guarantee,
    mentions_root,
    null_cases,
    presence_tested,
    root_guarded,
    type_path,
)
from vap_lsp.analysis.narrowing import Facts, Reachability, decide, reachability
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
    expression; a messageExpression that fails falls back to `message`, so it is not one.

    Where the null case is an operation (`oldObject` on CREATE, `object` on DELETE), narrowing
    (`analysis.narrowing`, per matched kind with only that operation) decides which reads can
    run: `request.operation`, `x == null` and variables holding such tests, in the expression
    and in matchConditions. `has()` and `.?` are safe on null. Without a typed kind, a guard
    anywhere in the expression counts."""
    readers = _variable_readers(results)
    diagnostics: list[Diagnostic] = []
    for case in null_cases(typing):
        flow = _NullFlow(typing, case, results)
        if flow.excluded:
            continue  # a match condition already keeps those requests out
        for site, result in results:
            if not case.sites(site) or site.kind is ExpressionKind.MESSAGE_EXPRESSION:
                continue
            if result.parsed.ast is None or not mentions_root(case.root, site.text):
                continue
            node = flow.unguarded_read(site, result)
            if node is None:
                continue
            if site.kind is ExpressionKind.VARIABLE and not any(
                flow.reads_variable(reader, site.name or "") for reader in readers.get(site.name or "", [])
            ):
                continue  # evaluated only where the root is guarded (or never)
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


class _NullFlow:
    """Which reads of a null case's root can run when it is null."""

    def __init__(
        self, typing: PolicyTyping, case: NullCase, results: list[tuple[ExpressionSite, CompileResult]]
    ) -> None:
        self.typing = typing
        self.case = case
        self.results = {id(site): result for site, result in results}
        conditions = [(s, r) for s, r in results if s.kind is ExpressionKind.MATCH_CONDITION]
        op = case.operation
        facts = [
            replace(f, operations=frozenset({op}))
            for f in (typing.facts(k) for k in typing.kinds)
            if op is not None and op in f.operations
        ]
        texts = [s.text for s, _ in conditions]
        if not facts:  # no narrowing: a guard anywhere counts
            self.facts: list[Facts] = []
            self.excluded = case.conditions_guard and root_guarded(case.root, texts)
            return
        # Kinds for which no matchCondition rules the request out.
        self.facts = [
            f
            for f in facts
            if not any(
                r.parsed.ast is not None and decide(r.parsed.ast, f, {}) is False for _, r in conditions
            )
        ]
        presence = any(presence_tested(case.root, text) for text in texts)
        self.excluded = not self.facts or (case.conditions_guard and presence)

    def _reachable(self, site: ExpressionSite, result: CompileResult, node: Expr) -> bool:
        if not self.facts:
            return True
        variables = self.typing.variable_asts(site)
        return any(reachability(result.parsed, f, variables).guard_of(node) is None for f in self.facts)

    def unguarded_read(self, site: ExpressionSite, result: CompileResult) -> Ident | None:
        """The first read of the root that can run when it is null (None: every read is guarded)."""
        root = self.case.root
        if not self.facts:
            if root_guarded(root, [site.text], by_request=self.case.conditions_guard):
                return None
            return _root_read(result.parsed.ast, root) if result.parsed.ast is not None else None
        if presence_tested(root, site.text):
            return None
        for read, ident in _root_reads(result.parsed.ast, root):
            if self._reachable(site, result, read):
                return ident
        return None

    def reads_variable(self, site: ExpressionSite, name: str) -> bool:
        """Whether `site` reads `variables.<name>` where the root can be null."""
        if site.kind is ExpressionKind.MESSAGE_EXPRESSION:
            return False
        if not self.facts:
            return not root_guarded(self.case.root, [site.text])
        result = self.results.get(id(site))
        if result is None or result.parsed.ast is None or presence_tested(self.case.root, site.text):
            return False
        return any(
            isinstance(n, Select) and n.field == name and isinstance(n.operand, Ident)
            and n.operand.name == "variables" and self._reachable(site, result, n)
            for n in _walk(result.parsed.ast)
        )  # fmt: skip


def _root_reads(ast: Expr | None, root: str) -> Iterator[tuple[Expr, Ident]]:
    """Every read of a field or an index of `root` that fails when it is null (`.?` does not)."""
    for node in _walk(ast):
        if isinstance(node, Select) and not node.test_only and not node.optional:
            operand: Expr | None = node.operand
        elif isinstance(node, Call) and node.function == "_[_]" and node.args:
            operand = node.args[0]
        else:
            continue
        if isinstance(operand, Ident) and operand.name == root:
            yield node, operand


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
