"""The defaulting walk skips subtrees in which nothing is ever defaulted (labels, selectors,
quantities): that must never skip a subtree where a default, a Go rule or a custom defaulter
could apply. Checked against reachability over the bundled schemas, worked out here apart from
the walker's own plans."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from vap_lsp.defaulting import default_object
from vap_lsp.defaulting.builtin import _DEFAULTERS, default_builtin, minor
from vap_lsp.defaulting.custom import CUSTOM
from vap_lsp.defaulting.rules import BY_DEFINITION
from vap_lsp.schema import get_schema_set


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, Mapping):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _refs(value)


def _has_default(schema: Any) -> bool:
    if isinstance(schema, Mapping):
        props = schema.get("properties")
        if isinstance(props, Mapping) and any(
            isinstance(p, Mapping) and "default" in p for p in props.values()
        ):
            return True
        return any(_has_default(v) for k, v in schema.items() if k != "default")
    return isinstance(schema, list) and any(_has_default(v) for v in schema)


def _defaulted_somewhere(version: str) -> set[str]:
    """Definitions under which something can be defaulted (fixed point over `$ref`s)."""
    schemas = get_schema_set(version)
    v = minor(version)
    names = schemas.definition_names()
    refs = {n: set(_refs(schemas.definition(n))) for n in names}
    live = {
        n
        for n in names
        if n in CUSTOM
        or any(r.since <= v for r in BY_DEFINITION.get(n, ()))
        or _has_default(schemas.definition(n))
    }
    changed = True
    while changed:
        changed = False
        for n in names:
            if n not in live and refs[n] & live:
                live.add(n)
                changed = True
    return live


@pytest.mark.parametrize("version", ["1.30", "1.34"])
def test_a_definition_is_skipped_only_when_nothing_below_it_is_defaulted(version: str) -> None:
    schemas = get_schema_set(version)
    default_builtin({}, "io.k8s.api.core.v1.Pod", version)  # makes the version's walker
    walker = _DEFAULTERS[version]
    live = _defaulted_somewhere(version)
    skipped = set()
    for name in schemas.definition_names():
        plan = walker.plan(name, {})
        if plan is not None and walker.is_inert(plan):
            skipped.add(name)
    assert not skipped & live
    # And the skipping is real: leaves of workloads where nothing is defaulted are not walked.
    assert {"io.k8s.api.core.v1.Toleration", "io.k8s.apimachinery.pkg.api.resource.Quantity"} <= skipped
    assert "io.k8s.api.core.v1.PodTemplateSpec" not in skipped


def test_defaults_below_skipped_neighbours_still_apply() -> None:
    """SetDefaults_Container (core/v1) and SetDefaults_Pod reach containers whose labelled,
    selected and limited siblings are skipped."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"a": "b"}},
        "spec": {
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "k"}
                    ]
                }
            },
            "containers": [{"name": "c", "image": "nginx", "resources": {"limits": {"cpu": "1"}}}],
        },
    }
    out = default_object(pod, "1.34").object
    container = out["spec"]["containers"][0]
    assert container["imagePullPolicy"] == "Always"
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert container["resources"] == {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}}
    assert out["spec"]["affinity"] == pod["spec"]["affinity"]
    assert out["metadata"]["labels"] == {"a": "b"}
