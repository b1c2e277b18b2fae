"""Fuzzing the CEL front-end: any text yields issues, never an exception or a recursion blow-up.

CI runs a bounded number of examples; `VAP_LSP_FUZZ_EXAMPLES=20000 pytest tests/robustness`
runs a long campaign (see README "Robustness").
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment

EXAMPLES = int(os.environ.get("VAP_LSP_FUZZ_EXAMPLES", "300"))

TOKENS = [
    "object", "oldObject", "params", "request", "variables", "authorizer", "namespaceObject", "x", "c",
    ".", ".?", "[", "[?", "]", "(", ")", "{", "{?", "}", ",", ":", "?", "!", "-", "+", "*", "/", "%",
    "==", "!=", "<", "<=", ">", ">=", "&&", "||", " in ", "true", "false", "null", "1", "1u", "0x1F",
    "1.5e3", "'s'", '"d"', "'''t'''", "r'\\d'", "b'\\xff'", "has(", "all(", "exists(", "map(", "filter(",
    "size(", "matches(", "startsWith(", "quantity(", "ip(", "cidr(", "url(", "semver(", "sets.contains(",
    "optional.of(", "orValue(", "Object{", "JSONPatch{", "spec", "metadata", "labels", "containers",
    "transformMap(", "sortBy(", "dyn(", "int(", "string(", "duration('1s')", "timestamp('x')", "\n", " ",
    "\\", "'", '"', "`", "#", "é", "😀", "\x00",
]  # fmt: skip

KINDS = list(ExpressionKind)
ENVIRONMENTS = {
    (version, kind): build_environment(version, kind, has_params=True)
    for version in ("1.30", "1.34", "1.37")
    for kind in KINDS
}
# The parser raises Python's recursion limit once, on first use; do it before hypothesis
# records the limit, so it has nothing to restore.
compile_expression("1", ENVIRONMENTS[("1.34", ExpressionKind.VALIDATION)])


def _check_never_raises(text: str, version: str, kind: ExpressionKind) -> None:
    result = compile_expression(text, ENVIRONMENTS[(version, kind)], trim=True)
    for issue in result.issues:
        assert isinstance(issue.message, str) and issue.message
        assert issue.start == -1 or 0 <= issue.start <= len(text)


VERSIONS = st.sampled_from(["1.30", "1.34", "1.37"])


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join), VERSIONS, st.sampled_from(KINDS))
def test_token_soup(text: str, version: str, kind: ExpressionKind) -> None:
    _check_never_raises(text, version, kind)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.text(max_size=80), VERSIONS, st.sampled_from(KINDS))
def test_arbitrary_text(text: str, version: str, kind: ExpressionKind) -> None:
    _check_never_raises(text, version, kind)


@settings(max_examples=max(20, EXAMPLES // 10), deadline=None)
@given(st.integers(min_value=1, max_value=20_000), st.sampled_from(["(", "[", "!", "-", "a.", "{'a': "]))
def test_deep_nesting_is_a_limit_error_not_a_crash(depth: int, opener: str) -> None:
    closer = {"(": ")", "[": "]", "{'a': ": "}"}.get(opener, "")
    text = opener * depth + "1" + closer * depth
    _check_never_raises(text, "1.34", ExpressionKind.VALIDATION)
