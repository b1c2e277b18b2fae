"""Compile one admission-policy expression the way the API server does.

`kubernetes/apiserver pkg/admission/plugin/cel/compile.go` `CompileCELExpression`:
`env.Compile` (parse; check only if the parse succeeded; AST validators only if the check
succeeded) → on issues the detail `compilation failed: <issues>`; otherwise the result type must
be exactly one of the expression kind's return types (`must evaluate to bool but got dyn`);
then `env.Program`, where cel-go's OptOptimize folds type conversions of constants (`int('x')`
fails there) and the constant patterns of `matches` and of the Kubernetes regex library's `find`
and `findAll` are compiled (`CompileRegexConstants`): a failure is `program instantiation failed:
…`, an internal error rather than an invalid value.

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

from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Call, CelIssue, Expr, ParsedExpr
from vap_lsp.cel.checker import CheckedExpr, CheckIssue, check
from vap_lsp.cel.environment import Environment
from vap_lsp.cel.parser import parse
from vap_lsp.cel.types import Type
from vap_lsp.cel.validators import validate
from vap_lsp.golang.strings import trim_space_offset
from vap_lsp.lru import LruCache

__all__ = [
    "CompileIssue",
    "CompileResult",
    "clear_cache",
    "compile_expression",
    "parse_expression",
]

Phase = TypingLiteral["syntax", "check", "validator", "result", "program"]


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
    """`must evaluate to …` when compilation succeeded with a wrong result type, or the internal
    error `program instantiation failed: …` of building the program."""

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


# Parsed expressions by text and parser options: a policy's expression is compiled in one
# environment per view and matched kind (a dozen for a Pod Security policy), all parsing the same
# text the same way. The AST is read-only once parsed, so the compile results share it.
_PARSED: LruCache[tuple[str, frozenset[str], bool], ParsedExpr] = LruCache(
    4096, weigh=lambda key, _: len(key[0]), max_weight=4_000_000
)


def parse_expression(text: str, env: Environment) -> ParsedExpr:
    """Parse with the environment's macros and syntax options (no backtick escapes: Kubernetes
    does not enable `cel.EnableIdentifierEscapeSyntax`); cached by text and options."""
    macros = _env_macros(env)
    key = (text, macros, env.features.optional_syntax)
    hit = _PARSED.get(key)
    if hit is not None:
        return hit
    parsed = parse(
        text,
        macros=macros,
        enable_optional_syntax=env.features.optional_syntax,
        enable_ident_escape_syntax=False,
    )
    _PARSED.put(key, parsed)
    return parsed


def _compile(text: str, env: Environment, trim: bool) -> CompileResult:
    compiled, offset = trim_space_offset(text) if trim else (text, 0)
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
    program = _program_issue(checked, env)
    if program is not None:
        message, node = program
        start = node.start  # the whole call or literal (its message has no position)
        result.result_error = message
        result.issues = [
            CompileIssue("program", message, message, start + offset, max(node.end, start) + offset)
        ]
    return result


_BUILT = frozenset(
    {"bool", "bytes", "double", "duration", "dyn", "int", "string", "timestamp", "type", "uint",
     "matches", "find", "findAll"}
)  # fmt: skip
"""What can fail while the program is built: cel-go's type conversions (`overloads.
IsTypeConversionFunction`), which the base environment's `cel.EvalOptions(cel.OptOptimize, …)`
folds when their argument is a constant (`interpreter/decorators.go` `maybeOptimizeConstUnary`),
and the functions whose constant pattern is compiled then (`CompileRegexConstants`: `matches`
under OptOptimize, `find`/`findAll` in Kubernetes' `library.Regex`)."""


def _program_issue(checked: CheckedExpr, env: Environment) -> tuple[str, Expr] | None:
    """The first node that fails while the server builds the program, in the order its planner
    meets them (operands first), with the server's detail: a type conversion of a constant that
    fails when folded (`int('x')`, `uint(-1)`), a constant pattern of `matches`, `find` or
    `findAll` Go's `regexp.Compile` rejects (`find('(a')`, `matches(dyn('('))`). The evaluator's
    planner finds them (`interpreter.build_errors`), only for expressions that call one."""
    root = checked.parsed.ast
    if root is None:
        return None
    nodes = {node.id: node for node in checked.parsed.walk() if isinstance(node, Expr)}
    if not any(isinstance(n, Call) and n.function in _BUILT for n in nodes.values()):
        return None
    from vap_lsp.cel.interpreter import build_errors  # the evaluator's own folding

    for node_id, message in build_errors(checked, env):
        return f"program instantiation failed: {message}", nodes[node_id]
    return None


# 4,096 results, of expressions of 4 million characters in all (a checked AST is ~1 KB per
# 10 characters).
_CACHE: LruCache[tuple[str, int, bool], tuple[Environment, CompileResult]] = LruCache(
    4096, weigh=lambda key, _: len(key[0]), max_weight=4_000_000
)


def compile_expression(text: str, env: Environment, *, trim: bool = False) -> CompileResult:
    """Parse, check, validate and result-type-check `text` in `env` (cached; never raises).

    The returned object is shared between callers with the same key: treat it as read-only.
    """
    key = (text, id(env), trim)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is env:
        return hit[1]
    checkpoint()  # a cancelled request or superseded analysis stops here
    result = _compile(text, env, trim)
    _CACHE.put(key, (env, result))
    return result


def clear_cache() -> None:
    _CACHE.clear()
    _PARSED.clear()
