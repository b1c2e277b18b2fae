"""CEL front end (AST and parser) matching cel-go as used by the Kubernetes API server."""

from vap_lsp.cel.ast import CelIssue, ParsedExpr
from vap_lsp.cel.parser import parse

__all__ = ["CelIssue", "ParsedExpr", "parse"]
