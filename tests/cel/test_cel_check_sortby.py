"""ext.Lists `sortBy` is a macro (Kubernetes 1.35+ in new expressions)."""

from __future__ import annotations

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment


def test_sort_by_expands_and_types_from_1_35() -> None:
    env = build_environment("1.35", ExpressionKind.VALIDATION, has_params=False)
    result = compile_expression("[{'n': 'b'}, {'n': 'a'}].sortBy(e, e.n)[0].n == 'a'", env)
    assert result.ok, [i.message for i in result.issues]
    listed = compile_expression("[3, 1, 2].sortBy(x, -x)", env)
    assert str(listed.checked.output_type if listed.checked else None) == "list(int)"


def test_sort_by_before_1_35_names_the_version() -> None:
    env = build_environment("1.34", ExpressionKind.VALIDATION, has_params=False)
    result = compile_expression("[3, 1, 2].sortBy(x, -x) == [3, 2, 1]", env)
    assert not result.ok
    assert any("available from Kubernetes 1.35" in i.message for i in result.issues)


def test_sort_by_variable_must_be_an_identifier() -> None:
    env = build_environment("1.35", ExpressionKind.VALIDATION, has_params=False)
    result = compile_expression("[1].sortBy(1, 2) == [1]", env)
    assert [i.cel_message for i in result.issues] == [
        "sortBy(var, ...) variable name must be a simple identifier"
    ]
