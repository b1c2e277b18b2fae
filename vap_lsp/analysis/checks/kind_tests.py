"""A kind test no matched kind can pass: a typo (`object.kind == 'pod'`, `kind-never-matched`,
a warning: the guard it was meant to be does nothing) or a kind the policy does not match
(`object.kind == 'Pod'` in a Deployment-only policy, `kind-test-dead`: harmless dead code,
information tagged unnecessary so editors fade it)."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.narrowing import written_span
from vap_lsp.cel.ast import Call, Expr, Ident, ListExpr, Literal, Select, children
from vap_lsp.schema.store import get_schema_set

__all__ = ["CHECK", "kind_tests"]


def _walk(node: Expr | None) -> Iterator[Expr]:
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def _kind_read(node: Expr) -> str | None:
    """`object.kind`, `oldObject.kind` or `request.kind.kind` as written (None: another node)."""
    if not isinstance(node, Select) or node.test_only or node.optional or node.field != "kind":
        return None
    operand = node.operand
    if isinstance(operand, Ident) and operand.name in ("object", "oldObject"):
        return f"{operand.name}.kind"
    if (
        isinstance(operand, Select)
        and operand.field == "kind"
        and isinstance(operand.operand, Ident)
        and operand.operand.name == "request"
    ):
        return "request.kind.kind"
    return None


@functools.lru_cache(maxsize=16)
def _schema_kinds(version: str) -> frozenset[str]:
    """Every kind a built-in resource of `version` serves (subresources' kinds included)."""
    out: set[str] = set()
    for r in get_schema_set(version).resources():
        out.add(r.kind)
        out.update(sub.kind for sub in r.subresources.values())
    return frozenset(out)


def _known(context: PolicyContext, name: str) -> bool:
    """Whether some schema has a kind `name`: a built-in kind, or a CRD's the workspace knows."""
    if name in _schema_kinds(context.version):
        return True
    workspace = context.workspace
    return workspace is not None and any(c.kind == name for c in workspace.crds())


def kind_tests(context: PolicyContext) -> list[Diagnostic]:
    """A kind test no matched kind can pass: `object.kind == 'pod'` (a wrong case), a kind the
    rules never match. Narrowing rules out the branch it guards for every kind, so the problems
    there are only `cel-type-check-guarded` and the branch never runs: a mistake, said once.
    Only when every rule is typed (a `*` or an unknown resource may hold any kind) and for a
    comparison with a string or a list of strings none of which is a matched kind."""
    kinds = sorted({k.gvk.kind for k in context.kinds})
    if not kinds or context.untyped_resources():
        return []
    out: list[Diagnostic] = []
    for site, result in context.create_time().results():
        parsed = result.parsed
        for node in _walk(parsed.ast):
            if (
                not isinstance(node, Call)
                or node.function not in ("_==_", "_!=_", "@in")
                or len(node.args) != 2
            ):
                continue
            left, right = node.args
            read = _kind_read(left) or (_kind_read(right) if node.function != "@in" else None)
            if read is None:
                continue
            other = right if _kind_read(left) else left
            items = other.elements if node.function == "@in" and isinstance(other, ListExpr) else [other]
            literals = [i for i in items if isinstance(i, Literal) and isinstance(i.value, str)]
            if not literals or len(literals) != len(items) or any(i.value in kinds for i in literals):
                continue
            names = ", ".join(f"'{i.value}'" for i in literals)
            matched = ", ".join(kinds)
            if all(_known(context, str(i.value)) for i in literals):
                start, end = written_span(parsed, node)
                out.append(
                    Diagnostic(
                        site.node.source_span(start + result.offset, end + result.offset),
                        Severity.INFORMATION,
                        "kind-test-dead",
                        f"{site.field}: {read} is never {names}: this policy matches {matched}, so the "
                        "test has the same value for every request and what it guards never runs (or "
                        "always does): dead code, unless the policy should match that kind too",
                        field=site.field,
                        unnecessary=True,
                    )
                )
                continue
            close = sorted({k for i in literals for k in kinds if str(i.value).lower() == k.lower()})
            hint = f" (did you mean {', '.join(repr(k) for k in close)}?)" if close else ""
            start, end = other.start + result.offset, other.end + result.offset
            if node.function == "@in":
                end = max(end, literals[-1].end + result.offset + 1)
            out.append(
                Diagnostic(
                    site.node.source_span(start, end),
                    Severity.WARNING,
                    "kind-never-matched",
                    f"{site.field}: {read} is never {names}{hint}: this policy matches "
                    f"{', '.join(kinds)}, so the test has the same value for every request and "
                    "what it guards never runs (or always does)",
                    field=site.field,
                )
            )
    return out


CHECK = policy_check(
    "kind-tests",
    ("kind-never-matched", "kind-test-dead"),
    "A kind test no matched kind can pass: a kind no schema has (a typo: the guard does nothing) is "
    "a warning, a kind the policy does not match is dead code.",
)(kind_tests)
