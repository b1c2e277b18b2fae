"""Compile one admission-policy expression the way the API server does.

`kubernetes/apiserver pkg/admission/plugin/cel/compile.go` `CompileCELExpression`:
`env.Compile` (parse; check only if the parse succeeded; AST validators only if the check
succeeded) → on issues the detail `compilation failed: <issues>`; otherwise the result type must
be exactly one of the expression kind's return types (`must evaluate to bool but got dyn`).

Offsets: the server compiles some expression kinds after `strings.TrimSpace`, so the columns
in its messages count from the trimmed text. `CompileResult.issues` carry offsets into the
*original* text (for mapping to file positions), while `render()` reproduces the server's text
computed on the trimmed one.

Results are cached by (text, environment identity, trim) in a bounded LRU: callers that reuse
their `Environment` objects get unchanged expressions back without re-checking.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal as TypingLiteral

from vap_lsp.cel.ast import CelIssue, ParsedExpr
from vap_lsp.cel.checker import CheckedExpr, CheckIssue, check
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.parser import parse
from vap_lsp.cel.types import Type
from vap_lsp.cel.validators import validate
from vap_lsp.lru import LruCache

__all__ = [
    "CompileIssue",
    "CompileResult",
    "clear_cache",
    "compile_expression",
    "go_trim_space",
    "parse_expression",
]

Phase = TypingLiteral["syntax", "check", "validator", "result"]


@dataclass(frozen=True, slots=True)
class CompileIssue:
    """One problem, with `start`/`end` in the original text (not the trimmed one).

    `message` is what the editor shows (cel-go's text, maybe followed by `; <hint>`);
    `cel_message` is exactly what the API server says.
    """

    phase: Phase
    message: str
    cel_message: str
    start: int
    end: int
    severity: str = "error"


@dataclass(eq=False)
class CompileResult:
    text: str
    """The expression as written."""
    compiled_text: str
    """What was compiled: `text`, or `text` after Go's `TrimSpace`."""
    offset: int
    """Offset of `compiled_text` within `text` (positions in parsed/checked add this)."""
    parsed: ParsedExpr
    checked: CheckedExpr | None
    """Also present after syntax errors (best-effort types for editor features)."""
    issues: list[CompileIssue] = field(default_factory=list)
    cel_issues: list[CelIssue] = field(default_factory=list)
    """The issues cel-go reports, offsets relative to `compiled_text` (empty on success)."""
    result_error: str | None = None
    """`must evaluate to …` detail when compilation succeeded with a wrong result type."""

    @property
    def output_type(self) -> Type | None:
        return self.checked.output_type if self.checked is not None and not self.cel_issues else None

    @property
    def ok(self) -> bool:
        return not self.cel_issues and self.result_error is None

    def render(self, description: str = "<input>") -> str | None:
        """The server's error detail (`compilation failed: ERROR: <input>:1:7: …`), or None."""
        if self.cel_issues:
            ordered = sorted(self.cel_issues, key=lambda i: _line_col(self.compiled_text, i.start))
            shown = ordered[:100]
            lines = [i.render(self.compiled_text, description) for i in shown]
            if len(ordered) > 100:
                lines.append(f"{len(ordered) - 100} more errors were truncated")
            return "compilation failed: " + "\n".join(lines)
        return self.result_error


def _line_col(source: str, offset: int) -> tuple[int, int]:
    if offset < 0:
        return (-1, 0)
    line_start = source.rfind("\n", 0, offset) + 1
    return source.count("\n", 0, line_start) + 1, offset - line_start


# Go's unicode.IsSpace (strings.TrimSpace); Python's str.isspace also counts \x1c-\x1f.
_GO_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


def go_trim_space(text: str) -> tuple[str, int]:
    """`strings.TrimSpace` and the number of leading characters removed."""
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACE:
        start += 1
    while end > start and text[end - 1] in _GO_SPACE:
        end -= 1
    return text[start:end], start


def _macro_names(env: Environment) -> frozenset[str]:
    return frozenset(f"{m.name}({m.arg_count})" for m in env.macros if m.arg_count is not None)


_MACROS: dict[int, tuple[Environment, frozenset[str]]] = {}


def _env_macros(env: Environment) -> frozenset[str]:
    entry = _MACROS.get(id(env))
    if entry is None or entry[0] is not env:
        if len(_MACROS) > 256:
            _MACROS.clear()
        entry = (env, _macro_names(env))
        _MACROS[id(env)] = entry
    return entry[1]


def _issue(phase: Phase, issue: CelIssue, offset: int) -> CompileIssue:
    cel_message = issue.cel_message if isinstance(issue, CheckIssue) and issue.cel_message else issue.message
    start = issue.start + offset if issue.start >= 0 else -1
    end = issue.end + offset if issue.end >= 0 else -1
    return CompileIssue(phase, issue.message, cel_message, start, end, issue.severity)


def parse_expression(text: str, env: Environment) -> ParsedExpr:
    """Parse with the environment's macros and syntax options (no backtick escapes: Kubernetes
    does not enable `cel.EnableIdentifierEscapeSyntax`)."""
    return parse(
        text,
        macros=_env_macros(env),
        enable_optional_syntax=env.features.optional_syntax,
        enable_ident_escape_syntax=False,
    )


def _compile(text: str, env: Environment, trim: bool) -> CompileResult:
    compiled, offset = go_trim_space(text) if trim else (text, 0)
    parsed = parse_expression(compiled, env)
    checked = check(parsed, env)
    result = CompileResult(text, compiled, offset, parsed, checked)
    syntax = [e for e in parsed.errors if e.severity == "error"]
    if syntax or parsed.ast is None:
        result.cel_issues = list(parsed.errors)
        result.issues = [_issue("syntax", e, offset) for e in parsed.errors]
        return result
    if checked.issues:
        result.cel_issues = list(checked.issues)
        result.issues = [_issue("check", e, offset) for e in checked.issues]
        return result
    validator_issues = validate(checked, env)
    if validator_issues:
        result.cel_issues = validator_issues
        result.issues = [_issue("validator", e, offset) for e in validator_issues]
        return result
    reason = env.result_type_error(checked.output_type)
    if reason is not None:
        result.result_error = reason
        result.issues = [CompileIssue("result", reason, reason, offset, offset + len(compiled))]
    return result


_CACHE: LruCache[tuple[str, int, bool], tuple[Environment, CompileResult]] = LruCache(4096)


def compile_expression(text: str, env: Environment, *, trim: bool = False) -> CompileResult:
    """Parse, check, validate and result-type-check `text` in `env` (cached; never raises).

    The returned object is shared between callers with the same key: treat it as read-only.
    """
    key = (text, id(env), trim)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is env:
        return hit[1]
    result = _compile(text, env, trim)
    _CACHE.put(key, (env, result))
    return result


def clear_cache() -> None:
    _CACHE.clear()
