# ruff: noqa: E501  (one table row per line: definition, path, parent, value, parent)
"""The defaulting rule table against the schemas and the defaulters it names (issue 39).

Each `Rule` of `defaulting.rules.RULES` stands for one assignment in a Go `SetDefaults_*`
(kubernetes `pkg/apis/<group>/<version>/defaults.go`): it must hang on a definition the bundled
OpenAPI has, at a field that definition declares; its hover text must name the defaulter and
the value as JSON; a default set under a condition (`SetDefaults_Service`'s traffic policies for
NodePort/LoadBalancer, `SetDefaults_Deployment`'s `rollingUpdate` for type RollingUpdate,
`SetDefaults_Job`'s `completions` when `parallelism` is unset, `SetDefaults_ExactDeviceRequest`'s
`count` for ExactCount) is set exactly when its condition holds, and a default without one is
set on every absent field.

Mutation testing (`benchmarks/mutation.py`) showed these tables were only exercised through
whole objects, so a changed definition name, field, value, condition or hover text went unseen.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from vap_lsp.defaulting.builtin import builtin_fields, default_builtin
from vap_lsp.defaulting.rules import RULES, SKIP, Rule
from vap_lsp.schema import get_schema_set

VERSION = "1.37"
SCHEMAS = get_schema_set(VERSION)
CURRENT = [r for r in RULES if r.since <= 37]


def _name(rule: Rule) -> str:
    return rule.definition.rsplit(".", 1)[-1] + "." + ".".join(rule.path)


def _properties(definition: dict[str, Any]) -> dict[str, Any]:
    props = SCHEMAS.resolve(definition).get("properties")
    return props if isinstance(props, dict) else {}


@pytest.mark.parametrize("rule", CURRENT, ids=[_name(r) for r in CURRENT])
def test_the_rule_hangs_on_a_declared_field(rule: Rule) -> None:
    definition = SCHEMAS.definition(rule.definition)
    assert definition is not None, rule.definition
    node: dict[str, Any] = definition
    for segment in rule.path:
        props = _properties(node)
        assert segment in props, (rule.definition, rule.path)
        node = props[segment]


@pytest.mark.parametrize("rule", RULES, ids=[_name(r) for r in RULES])
def test_the_rule_names_its_go_defaulter(rule: Rule) -> None:
    """`SetDefaults_<Type> (<group>/<version>)`, as hover shows it."""
    assert re.fullmatch(r"SetDefaults_[A-Z]\w+ \((core|[a-z0-9.]+)/v\w+\)", rule.source), rule.source


# The descriptions of defaults that are objects: what hover says they default to.
OBJECT_DESCRIPTIONS = {
    ("io.k8s.api.apps.v1.DeploymentStrategy", ("rollingUpdate",)): "{maxUnavailable: 25%, maxSurge: 25%} "
    "for RollingUpdate",
    ("io.k8s.api.apps.v1.DaemonSetUpdateStrategy", ("rollingUpdate",)): "{maxUnavailable: 1, maxSurge: 0} "
    "for RollingUpdate",
    ("io.k8s.api.apps.v1.StatefulSetSpec", ("persistentVolumeClaimRetentionPolicy",)): "{whenDeleted: "
    "Retain, whenScaled: Retain}",
    ("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", ("rollingUpdate",)): "{partition: 0} when the type "
    "was empty",
    (
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec",
        ("conversion",),
    ): '{strategy: "None"}',
}


@pytest.mark.parametrize("rule", RULES, ids=[_name(r) for r in RULES])
def test_the_description_starts_with_the_value(rule: Rule) -> None:
    """Hover's "defaulted to …": a constant default written as JSON first."""
    assert rule.description
    if callable(rule.value):
        return
    described = OBJECT_DESCRIPTIONS.get((rule.definition, rule.path))
    if described is not None:
        assert rule.description == described
    else:
        assert rule.description.startswith(json.dumps(rule.value, separators=(",", ":"))), rule.description


def test_every_object_description_belongs_to_a_rule() -> None:
    keys = {(r.definition, r.path) for r in RULES}
    assert set(OBJECT_DESCRIPTIONS) <= keys


def _place(path: tuple[str, ...], value: Any, parent: dict[str, Any] | None = None) -> dict[str, Any]:
    obj = copy.deepcopy(parent or {})
    node = obj
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return obj


def _get(obj: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return SKIP
        obj = obj[key]
    return obj


UNCONDITIONAL = [r for r in CURRENT if r.when is None and r.guard is None and not callable(r.value)]


@pytest.mark.parametrize("rule", UNCONDITIONAL, ids=[_name(r) for r in UNCONDITIONAL])
def test_a_constant_default_fills_an_absent_field(rule: Rule) -> None:
    """Absent (and, two levels down, under an empty parent): the rule's value, whatever it is."""
    obj = {} if len(rule.path) == 1 else _place(rule.path[:-1], {})
    default_builtin(obj, rule.definition, VERSION)
    found = _get(obj, rule.path)
    if isinstance(rule.value, dict):  # an object default: other rules fill its fields in
        assert isinstance(found, dict) and rule.value.items() <= found.items(), rule.source
    else:
        assert found == rule.value, rule.source
    assert (rule.path in builtin_fields(rule.definition, VERSION)) is rule.always


# Conditional rules: a parent where the condition holds and one where it does not, with the
# field each must end with (SKIP: absent).
CONDITIONS: list[tuple[str, tuple[str, ...], dict[str, Any], Any, dict[str, Any]]] = [
    # SetDefaults_Service: externalTrafficPolicy for NodePort and LoadBalancer only
    ("io.k8s.api.core.v1.ServiceSpec", ("externalTrafficPolicy",), {"type": "NodePort"}, "Cluster", {"type": "ClusterIP"}),
    ("io.k8s.api.core.v1.ServiceSpec", ("externalTrafficPolicy",), {"type": "LoadBalancer"}, "Cluster", {"type": "ExternalName"}),
    # internalTrafficPolicy for every type but ExternalName
    ("io.k8s.api.core.v1.ServiceSpec", ("internalTrafficPolicy",), {"type": "ClusterIP"}, "Cluster", {"type": "ExternalName"}),
    # allocateLoadBalancerNodePorts for LoadBalancer only
    ("io.k8s.api.core.v1.ServiceSpec", ("allocateLoadBalancerNodePorts",), {"type": "LoadBalancer"}, True, {"type": "NodePort"}),
    # SetDefaults_Deployment / DaemonSet / StatefulSet: rollingUpdate for type RollingUpdate
    ("io.k8s.api.apps.v1.DeploymentStrategy", ("rollingUpdate",), {"type": "RollingUpdate"}, {"maxUnavailable": "25%", "maxSurge": "25%"}, {"type": "Recreate"}),
    ("io.k8s.api.apps.v1.DaemonSetUpdateStrategy", ("rollingUpdate",), {"type": "RollingUpdate"}, {"maxUnavailable": 1, "maxSurge": 0}, {"type": "OnDelete"}),
    # StatefulSet: only an empty type creates rollingUpdate (a written RollingUpdate keeps it nil)
    ("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", ("rollingUpdate",), {}, {"partition": 0, "maxUnavailable": 1}, {"type": "RollingUpdate"}),
    ("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", ("rollingUpdate",), {"type": ""}, {"partition": 0, "maxUnavailable": 1}, {"type": "OnDelete"}),
    # SetDefaults_Job: completions 1 only when parallelism is unset too
    ("io.k8s.api.batch.v1.Job", ("spec", "completions"), {"spec": {}}, 1, {"spec": {"parallelism": 3}}),
    # SetDefaults_ExactDeviceRequest: count 1 for ExactCount
    ("io.k8s.api.resource.v1.ExactDeviceRequest", ("count",), {"allocationMode": "ExactCount"}, 1, {"allocationMode": "All"}),
]  # fmt: skip


@pytest.mark.parametrize(("definition", "path", "holds", "value", "fails"), CONDITIONS)
def test_a_conditional_default(
    definition: str, path: tuple[str, ...], holds: dict[str, Any], value: Any, fails: dict[str, Any]
) -> None:
    obj = copy.deepcopy(holds)
    default_builtin(obj, definition, VERSION)
    assert _get(obj, path) == value
    obj = copy.deepcopy(fails)
    default_builtin(obj, definition, VERSION)
    assert _get(obj, path) is SKIP


# Rules under a guard on the object (two levels down): partition and maxUnavailable of a
# StatefulSet's rollingUpdate, set only for type RollingUpdate (SetDefaults_StatefulSet).
GUARDED = [
    ({"type": "RollingUpdate", "rollingUpdate": {}}, {"partition": 0, "maxUnavailable": 1}),
    ({"type": "OnDelete", "rollingUpdate": {}}, {}),
    ({"type": "RollingUpdate", "rollingUpdate": {"partition": 3, "maxUnavailable": 2}}, {"partition": 3, "maxUnavailable": 2}),
]  # fmt: skip


@pytest.mark.parametrize(("strategy", "rolling"), GUARDED)
def test_a_guarded_default(strategy: dict[str, Any], rolling: dict[str, Any]) -> None:
    obj = copy.deepcopy(strategy)
    default_builtin(obj, "io.k8s.api.apps.v1.StatefulSetUpdateStrategy", VERSION)
    assert obj["rollingUpdate"] == rolling
    before = copy.deepcopy(strategy)
    default_builtin(before, "io.k8s.api.apps.v1.StatefulSetUpdateStrategy", "1.34")
    assert "maxUnavailable" not in before["rollingUpdate"] or "maxUnavailable" in strategy["rollingUpdate"]


def test_every_conditional_rule_is_in_the_table() -> None:
    conditional = {(r.definition, r.path) for r in CURRENT if r.when is not None}
    assert conditional == {(d, p) for d, p, *_ in CONDITIONS}
