"""The cel-spec conformance environment adds cel-go extensions the API server does not load;
none of them may reach a Kubernetes environment."""

from __future__ import annotations

import dataclasses

import pytest

from vap_lsp.cel import library as lib
from vap_lsp.cel.checker import check
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.conformance import ConformanceDecls, conformance_environment, conformance_parse
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import evaluate
from vap_lsp.cel.types import INT

CONFORMANCE_ONLY_FUNCTIONS = ("math.greatest", "math.least", "math.abs", "base64.encode")


@pytest.mark.parametrize("minor", range(lib.OLDEST_MINOR, lib.NEWEST_MINOR + 1))
@pytest.mark.parametrize("mode", ["new", "stored"])
def test_kubernetes_environments_lack_the_conformance_extensions(minor: int, mode: str) -> None:
    for kind in ExpressionKind:
        env = build_environment(f"1.{minor}", kind, has_params=True, mode=mode)  # type: ignore[arg-type]
        for name in CONFORMANCE_ONLY_FUNCTIONS:
            assert env.find_function(name) is None, (minor, kind, name)
        string_reverse = env.find_function("reverse")
        assert string_reverse is None or string_reverse.overload("string_reverse") is None
        # Not a conformance-only name: Kubernetes' IP and CIDR libraries register their types
        # (ip.go, cidr.go: cel.Types(IPType), cel.Types(CIDRType); ip_test.go "type of IP is
        # net.IP"), so the identifiers exist exactly where the libraries do.
        has_ip = env.find_function("ip") is not None
        assert (env.find_type_identifier("net.IP") is not None) == has_ip
        assert (env.find_type_identifier("net.CIDR") is not None) == (env.find_function("cidr") is not None)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("math.greatest(1, 2) == 2", "undeclared reference to 'math'"),
        ("base64.encode(b'a') == 'YQ=='", "undeclared reference to 'base64'"),
        ("'ab'.reverse() == 'ba'", "found no matching overload for 'reverse'"),
        ("cel.block([1], cel.index(0)) == 1", "undeclared reference to 'cel'"),
        ("cel.bind(x, 1, x) == 1", "undeclared reference to 'cel'"),
    ],
)
def test_kubernetes_rejects_conformance_only_calls(expression: str, message: str) -> None:
    env = build_environment(f"1.{lib.NEWEST_MINOR}", ExpressionKind.VALIDATION, has_params=False)
    rendered = compile_expression(expression, env).render() or ""
    assert message in rendered


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("math.greatest(1, 2.5, 2u)", 2.5),
        ("math.least([3, 1, 2])", 1),
        ("math.bitShiftRight(-1, 60)", 15),
        ("math.round(-1.5)", -2.0),
        ("base64.decode('aGk')", b"hi"),
        ("'ab©'.reverse()", "©ba"),
        ("cel.block([x + 1, cel.index(0) * 2], cel.index(1))", 4),
        ("cel.bind(y, x, y + y)", 2),
        ("[1, 'a', 2.0].size()", 3),
    ],
)
def test_conformance_environment_evaluates_the_extensions(expression: str, expected: object) -> None:
    env = conformance_environment(ConformanceDecls({"x": INT}))
    checked = check(conformance_parse(expression, env), env)
    assert not checked.issues, checked.issues
    result = evaluate(checked, {"x": 1}, env=env)
    assert result.error is None
    assert result.value == expected and type(result.value) is type(expected)


@pytest.mark.parametrize(("minor", "local_wins"), [(36, False), (37, True)])
def test_comprehension_variable_shadows_a_dotted_global_from_cel_go_0_27(
    minor: int, local_wins: bool
) -> None:
    # cel-go v0.27 "Namespace resolution fix" (#1256), compiled into Kubernetes 1.37: inside
    # exists(y, …), `y.z` is the field of the local y; before, it was the global variable `y.z`.
    base = build_environment(f"1.{minor}", ExpressionKind.VARIABLE, has_params=False)
    env = dataclasses.replace(base, variables={"y.z": INT})
    result = compile_expression("[{'z': 'a'}].exists(y, y.z == 'a')", env)
    if local_wins:
        assert result.ok, result.render()
    else:
        assert "found no matching overload for '_==_' applied to '(int, string)'" in (result.render() or "")
