"""`cel-*` errors: every expression compiled as the API server compiles it on create/update.

The server's `validation.go` compiles each expression with `object`, `oldObject` and `params` as
`dyn` in the NewExpressions environment of its expression kind and Kubernetes version; an issue
rejects the object. One error per issue, with the server's text (`convertCELErrorToValidationError`)
and cel-go's position, placed on the sub-expression.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import get_args

from vap_lsp.analysis.checks.cel_text import issue_span, position_text
from vap_lsp.analysis.checks.check import policy_check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.cel.compile import CompileIssue, CompileResult, Phase
from vap_lsp.cel.environment import ExpressionKind
from vap_lsp.policy.field_errors import ErrorType, invalid


def _message(site: ExpressionSite, result: CompileResult, issue: CompileIssue) -> str:
    """The server's `convertCELErrorToValidationError`: an invalid expression is
    `field.Invalid(path, expression, detail)` — the expression quoted as Go's `%q` prints it
    (trimmed where the server compiled it trimmed: matchConditions) — and a failure to build
    the program is `field.InternalError`. One message per issue, each with the server's text."""
    if issue.phase == "program":
        return f"{site.field}: {ErrorType.INTERNAL.label}: {issue.message}"  # no value, as ErrorBody
    if issue.phase == "result":
        detail = issue.message
    else:
        detail = f"compilation failed: ERROR: {position_text(result, issue)}: {issue.message}"
    shown = result.compiled_text if site.kind is ExpressionKind.MATCH_CONDITION else result.text
    return invalid(site.path, shown, detail).message()


def compile_errors(context: PolicyContext) -> Iterable[Diagnostic]:
    for site, result in context.create_time().results():
        for issue in result.issues:
            yield Diagnostic(
                issue_span(site, issue),
                Severity.ERROR,
                "cel-" + issue.phase,
                _message(site, result, issue),
                field=site.field,
            )


CHECK = policy_check(
    "cel-compile",
    tuple("cel-" + phase for phase in get_args(Phase)),
    "Every expression compiled as the server compiles it on create (object, oldObject and params "
    "as dyn): errors, with cel-go's texts.",
)(compile_errors)
