"""`or` and `orValue` as cel-go's optional library evaluates them (`cel/library.go`,
`decorateOptionalOr` → `evalOptionalOr`, `evalOptionalOrValue`): the right side is evaluated only
when the left optional is empty, and a left side that is not an optional — a plain field read,
`container.volumeMounts.orValue([])` — is returned unchanged up to cel-go v0.27 (`optVal, ok :=
optLHS.(*types.Optional); if !ok { return optLHS }`, v0.23.2 to v0.27.0: Kubernetes 1.33 to 1.36)
and is `no such overload` from v0.28.0 (the `default:` branch; Kubernetes 1.37, cel-go v0.29.2).

Kyverno keeps the old behaviour with a macro of its own (kyverno/kyverno `pkg/cel/compiler/env.go`
`OrValueCompatEnvOptions`), so a Kyverno policy written that way stops working as a
ValidatingAdmissionPolicy on 1.37: `vap-lsp convert --verify` shows it."""

from __future__ import annotations

import pytest
from cel_eval_support import env, run

OBJECT = {"spec": {"x": 1, "list": [1, 2]}}

# (expression, value up to 1.36, value or error on 1.37)
CASES: list[tuple[str, object, object]] = [
    # optionals: the same in every version
    ("optional.of(1).orValue(2)", 1, 1),
    ("optional.none().orValue(2)", 2, 2),
    ("object.?spec.?y.orValue(3)", 3, 3),
    ("object.?spec.?x.or(optional.of(7)).value()", 1, 1),
    ("object.?spec.?y.or(optional.of(7)).value()", 7, 7),
    # the right side is not evaluated when the left one has a value
    ("optional.of(1).orValue(1 / 0)", 1, 1),
    ("object.?spec.?x.or(optional.of(1 / 0)).value()", 1, 1),
    # a value that is not an optional
    ("object.spec.orValue({}).x", 1, "no such overload"),
    ("object.spec.list.orValue([]).size()", 2, "no such overload"),
    ("object.spec.or(optional.none()).x", 1, "no such overload"),
]


@pytest.mark.parametrize("version", ["1.33", "1.36"])
@pytest.mark.parametrize(("text", "before", "after"), CASES)
def test_up_to_cel_go_v0_27_a_plain_value_is_returned_as_it_is(
    version: str, text: str, before: object, after: object
) -> None:
    result = run(text, {"object": OBJECT}, environment=env(version=version))
    assert (result.error, result.value) == (None, before)


@pytest.mark.parametrize(("text", "before", "after"), CASES)
def test_from_cel_go_v0_28_it_is_no_such_overload(text: str, before: object, after: object) -> None:
    result = run(text, {"object": OBJECT}, environment=env(version="1.37"))
    if after == "no such overload":
        assert result.error == "no such overload"
    else:
        assert (result.error, result.value) == (None, after)


def test_an_error_on_the_left_is_the_error_in_every_version() -> None:
    for version in ("1.36", "1.37"):
        result = run("object.spec.missing.orValue(1)", {"object": OBJECT}, environment=env(version=version))
        assert result.error == "no such key: missing"
