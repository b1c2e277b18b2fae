"""Every defaulting rule against an explicit zero value (issue 39).

Go's defaulters test "unset" per field: a nil pointer, or the zero value of a plain field
(`if obj.TimeoutSeconds == 0 { obj.TimeoutSeconds = 1 }` in `SetDefaults_Probe`,
`if len(obj.DNSPolicy) == 0` in `SetDefaults_PodSpec`, `if sp.TargetPort == intstr.FromInt32(0)
|| sp.TargetPort == intstr.FromString("")` in `SetDefaults_Service`; kubernetes
`pkg/apis/core/v1/defaults.go` and the other `defaults.go` files `rules.py` lists). A rule whose
`zero` names such values must replace an explicit zero; a rule over a pointer field (`Replicas
*int32` in `SetDefaults_Deployment`, `Suspend *bool` in `SetDefaults_Job`...) must keep it. Every
rule of `RULES` is checked both ways, so a mutation of a rule's `zero`, of the unset test or of the
generated walk's comparison fails here.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from vap_lsp.defaulting.builtin import default_builtin
from vap_lsp.defaulting.rules import RULES, SKIP, Rule

VERSION = "1.37"

# A parent that makes a conditional rule apply, or gives a computed default its input.
CONTEXT: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {
    ("io.k8s.api.core.v1.ServicePort", ("targetPort",)): {"port": 8080},
    ("io.k8s.api.rbac.v1.Subject", ("apiGroup",)): {"kind": "User", "name": "u"},
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames",
        ("singular",),
    ): {"plural": "widgets", "kind": "Widget"},
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames",
        ("listKind",),
    ): {"plural": "widgets", "kind": "Widget"},
    ("io.k8s.api.core.v1.ServiceSpec", ("externalTrafficPolicy",)): {"type": "LoadBalancer"},
}


def _name(rule: Rule) -> str:
    return rule.definition.rsplit(".", 1)[-1] + "." + ".".join(rule.path)


def _parent(rule: Rule) -> dict[str, Any]:
    parent = copy.deepcopy(CONTEXT.get((rule.definition, rule.path), {}))
    if rule.when is not None and not rule.when(parent):
        for extra in ({"allocationMode": "ExactCount"}, {"type": "LoadBalancer"}, {"type": "RollingUpdate"}):
            if rule.when({**parent, **extra}):
                parent.update(extra)
                break
    return parent


def _place(parent: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """The object of the rule's definition with `value` at `path` (below `parent`'s fields)."""
    obj = copy.deepcopy(parent)
    node = obj
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return obj


def _get(obj: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj[key]
    return obj


ZERO_RULES = [r for r in RULES if r.zero and r.guard is None and r.since <= 37]
POINTER_RULES = [
    r
    for r in RULES
    if not r.zero
    and r.guard is None
    and r.when is None
    and r.since <= 37
    and not callable(r.value)
    and type(r.value) in (int, str, bool)
]
ZERO_OF = {int: 0, str: "", bool: False}


def test_the_tables_are_not_empty() -> None:
    assert len(ZERO_RULES) >= 40
    assert len(POINTER_RULES) >= 30


@pytest.mark.parametrize(
    ("rule", "zero"),
    [(r, z) for r in ZERO_RULES for z in r.zero],
    ids=[f"{_name(r)}={z!r}" for r in ZERO_RULES for z in r.zero],
)
def test_an_explicit_zero_is_replaced(rule: Rule, zero: Any) -> None:
    """The Go defaulter's `== 0` / `len(...) == 0` branch: the zero value counts as unset."""
    parent = _parent(rule)
    expected = rule.computed(_place(parent, rule.path[:-1], {}) if len(rule.path) > 1 else parent)
    assert expected is not SKIP, "the context must give the computed default its input"
    obj = _place(parent, rule.path, copy.deepcopy(zero))
    default_builtin(obj, rule.definition, VERSION)
    assert _get(obj, rule.path) == expected, rule.source


@pytest.mark.parametrize("rule", ZERO_RULES, ids=[_name(r) for r in ZERO_RULES])
def test_a_value_that_is_not_zero_is_kept(rule: Rule) -> None:
    """A set field is never overwritten, whatever its value."""
    sample = next(z for z in rule.zero)
    kept: Any = {int: 7, str: "Explicit", list: [{"type": "Explicit"}]}[type(sample)]
    obj = _place(_parent(rule), rule.path, copy.deepcopy(kept))
    default_builtin(obj, rule.definition, VERSION)
    assert _get(obj, rule.path) == kept, rule.source


@pytest.mark.parametrize("rule", POINTER_RULES, ids=[_name(r) for r in POINTER_RULES])
def test_a_pointer_field_keeps_its_explicit_zero(rule: Rule) -> None:
    """A pointer field is unset only when nil: `replicas: 0`, `suspend: false`, `""` stay."""
    zero = ZERO_OF[type(rule.value)]
    obj = _place({}, rule.path, zero)
    default_builtin(obj, rule.definition, VERSION)
    assert _get(obj, rule.path) == zero, rule.source
    assert type(_get(obj, rule.path)) is type(zero)


@pytest.mark.parametrize("rule", POINTER_RULES, ids=[_name(r) for r in POINTER_RULES])
def test_a_pointer_field_is_defaulted_when_absent_or_null(rule: Rule) -> None:
    for absent in ({}, _place({}, rule.path, None)):
        obj = copy.deepcopy(absent)
        default_builtin(obj, rule.definition, VERSION)
        assert _get(obj, rule.path) == rule.value, rule.source


def test_a_probe_with_explicit_zeros_is_fully_defaulted() -> None:
    """`SetDefaults_Probe` (core/v1): timeoutSeconds 1, periodSeconds 10, successThreshold 1,
    failureThreshold 3 replace explicit zeros; initialDelaySeconds has no defaulter and stays 0."""
    probe = {
        "timeoutSeconds": 0,
        "periodSeconds": 0,
        "successThreshold": 0,
        "failureThreshold": 0,
        "initialDelaySeconds": 0,
    }
    default_builtin(probe, "io.k8s.api.core.v1.Probe", VERSION)
    assert probe == {
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
        "initialDelaySeconds": 0,
    }


@pytest.mark.parametrize("rule", ZERO_RULES, ids=[_name(r) for r in ZERO_RULES])
def test_the_zero_values_are_go_zero_values(rule: Rule) -> None:
    """What counts as unset besides nil is the Go zero value of the field's type ("" for a
    string, 0 for a number, an empty slice), never another value: the tests above take `zero`
    from the rule, this one holds it to Go."""
    assert rule.zero
    assert all(z in ("", 0, []) and z is not False for z in rule.zero), rule.zero


def test_copy_json_copies_containers_and_shares_leaves() -> None:
    """`copy_json`: nested maps and lists are new (a default set on two objects is not shared),
    leaves are the same objects."""
    from vap_lsp.defaulting.rules import copy_json

    leaf = "text"
    value = {"a": [[1, leaf], {"b": [2]}], "c": leaf}
    copied = copy_json(value)
    assert copied == value
    assert copied is not value and copied["a"] is not value["a"]
    assert copied["a"][0] is not value["a"][0]
    assert copied["a"][1]["b"] is not value["a"][1]["b"]
    assert copied["c"] is leaf and copied["a"][0][1] is leaf
