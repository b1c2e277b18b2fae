"""Defaulting never raises on malformed objects, and what it keeps of the input is unchanged."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from vap_lsp.defaulting import default_object
from vap_lsp.defaulting.builtin import default_builtin
from vap_lsp.defaulting.plugins import ClusterObjects, admission_plugins, stored

KEYS = st.sampled_from(
    [
        "spec",
        "containers",
        "image",
        "template",
        "ports",
        "volumes",
        "strategy",
        "type",
        "metadata",
        "labels",
        "name",
        "resources",
        "limits",
        "requests",
        "hostNetwork",
        "selector",
        "x",
        "behavior",
        "tolerations",
        "volumeMounts",
        "initContainers",
        "serviceAccountName",
        "automountServiceAccountToken",
        "priority",
        "priorityClassName",
        "taints",
        "finalizers",
        "stringData",
        "data",
        "annotations",
        "podCIDRs",
    ]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)
KINDS = st.sampled_from(
    [
        ("v1", "Pod"),
        ("apps/v1", "Deployment"),
        ("batch/v1", "Job"),
        ("v1", "Service"),
        ("v1", "ReplicationController"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("v1", "LimitRange"),
        ("v1", "Secret"),
        ("v1", "Node"),
        ("apps/v1", "DaemonSet"),
        ("v1", "PersistentVolumeClaim"),
    ]
)


@settings(max_examples=150, deadline=None)
@given(kind=KINDS, body=st.dictionaries(KEYS, JSON, max_size=4))
def test_malformed_objects_never_raise(kind: tuple[str, str], body: dict[str, Any]) -> None:
    obj = {"apiVersion": kind[0], "kind": kind[1], **body}
    out = default_object(obj, "1.35").object
    # defaulting only adds: every top-level value of a wrong type is as written, or gone when
    # empty and its Go field is omitempty (`null`, `""`, `false`, `0`: defaulting/omitempty.py)
    for key, value in body.items():
        if not isinstance(value, (dict, list)):
            assert value is None or out.get(key) == value or (key not in out and not value)


@settings(max_examples=60, deadline=None)
@given(body=st.dictionaries(KEYS, JSON, max_size=4))
def test_raw_walk_raises_nothing_either(body: dict[str, Any]) -> None:
    default_builtin(dict(body), "io.k8s.api.core.v1.Pod", "1.30")


RESOURCES = st.sampled_from(
    [
        ("", "pods"),
        ("", "nodes"),
        ("", "persistentvolumeclaims"),
        ("", "persistentvolumes"),
        ("networking.k8s.io", "ingresses"),
    ]
)


@settings(max_examples=200, deadline=None)
@given(
    resource=RESOURCES,
    body=st.dictionaries(KEYS, JSON, max_size=4),
    old=st.dictionaries(KEYS, JSON, max_size=4),
    operation=st.sampled_from(["CREATE", "UPDATE"]),
)
def test_the_admission_plugins_never_raise_on_malformed_objects(
    resource: tuple[str, str], body: dict[str, Any], old: dict[str, Any], operation: str
) -> None:
    """`volumes: null`, a `spec` that is a list, containers that are strings...: the plugins
    leave what they cannot read as written (the server would have rejected the body)."""
    stored(old, resource, "default", ClusterObjects(), 35)
    admission_plugins(body, old, operation, resource, "default", ClusterObjects(), 35)
