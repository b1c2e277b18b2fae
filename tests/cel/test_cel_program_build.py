"""What fails while the API server builds an expression's program, after it compiled.

kubernetes/apiserver `pkg/admission/plugin/cel/compile.go` calls `env.Program` on the checked AST,
with the base environment's `cel.EvalOptions(cel.OptOptimize, …)` (`pkg/cel/environment/base.go`):
cel-go's `decOptimize` folds a type conversion of a constant into a constant right there
(`interpreter/decorators.go` `maybeOptimizeConstUnary`), and `CompileRegexConstants` compiles a
constant pattern of `matches` (OptOptimize's `MatchesRegexOptimization`) and of Kubernetes' `find`
and `findAll` (`library/regex.go`). An error there fails the build: `program instantiation failed:
…`, an internal error when the policy is created. Nodes are met operands first.
"""

from __future__ import annotations

import pytest
from cel_eval_support import env, run

from vap_lsp.cel.compile import compile_expression

FAILS: list[tuple[str, str, str]] = [
    ("int('x') > 0", "int('x')", "type conversion error from 'string' to 'int'"),
    ("uint(-1) == 1u", "uint(-1)", "unsigned integer overflow"),
    ("string(b'\\xff') == ''", "string(b'\\xff')", "invalid UTF-8 in bytes, cannot convert to string"),
    # dyn() is a conversion too: dyn('x') folds, then int() of that constant
    ("int(dyn('x')) > 0", "int(dyn('x'))", "type conversion error from 'string' to 'int'"),
    ("[uint(1), uint(-1)].size() == 2", "uint(-1)", "unsigned integer overflow"),
    ("'abc'.matches(dyn('('))", "dyn('(')", "error parsing regexp: missing closing ): `(`"),
    ("'abc'.find(dyn('[')) == ''", "dyn('[')", "error parsing regexp: missing closing ]: `[`"),
    ("'abc'.findAll('(', 2).size() == 0", "'('", "error parsing regexp: missing closing ): `(`"),
    # the first one the planner meets
    ("'a'.find('(') == string(b'\\xff')", "'('", "error parsing regexp: missing closing ): `(`"),
]


@pytest.mark.parametrize(("expression", "node", "error"), FAILS)
def test_a_failure_while_the_program_is_built(expression: str, node: str, error: str) -> None:
    result = compile_expression(expression, env())
    assert not result.ok
    assert result.render() == f"program instantiation failed: {error}"
    [issue] = result.issues
    assert (issue.phase, expression[issue.start : issue.end]) == ("program", node)


@pytest.mark.parametrize(
    "expression",
    [
        "int('1') + int(uint(2u)) > 0",  # folded, fine
        "string(b'abc') == 'abc' && duration('1s') > duration('0s')",
        "int(object.spec.replicas) > 0",  # read at admission: an evaluation error if it fails
        "'abc'.matches(object.spec.pattern)",
    ],
)
def test_what_folds_fine_or_is_not_constant_builds(expression: str) -> None:
    assert compile_expression(expression, env()).ok


def test_the_evaluator_keeps_the_runtime_error_of_a_value_read_at_admission() -> None:
    assert run("int(['x'][0]) > 0").error == "type conversion error from 'string' to 'int'"
