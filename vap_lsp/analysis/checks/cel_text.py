"""How the CEL checks place and word what they find: at the sub-expression in the YAML scalar, with
cel-go's `<input>:line:col` and Go's way of naming kinds."""

from __future__ import annotations

from collections.abc import Iterable

from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.compile import CompileIssue, CompileResult
from vap_lsp.text import Span

__all__ = ["issue_span", "kinds_text", "position_text"]


def issue_span(site: ExpressionSite, issue: CompileIssue) -> Span:
    """Where `issue` sits in the file, through the scalar's decoded → source map."""
    if issue.start < 0:
        return site.node.span
    end = max(issue.end, issue.start + 1)
    return site.node.source_span(issue.start, min(end, len(site.text)))


def position_text(result: CompileResult, issue: CompileIssue) -> str:
    """`<input>:line:col` relative to the text the server compiled (trimmed or not)."""
    if issue.start < 0:
        return "<input>:-1:0"
    offset = issue.start - result.offset
    source = result.compiled_text
    line_start = source.rfind("\n", 0, offset) + 1
    return f"<input>:{source.count(chr(10), 0, line_start) + 1}:{offset - line_start + 1}"


def kinds_text(gvks: Iterable[GVK]) -> str:
    """`apps/v1, Kind=Deployment; /v1, Kind=Pod`, as the server's warnings name them."""
    return "; ".join(str(g) for g in gvks)
