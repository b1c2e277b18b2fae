"""A Pod's `PrepareForCreate` beyond its status (pkg/registry/core/pod/strategy.go, Kubernetes
v1.37.2): what validating admission sees of a created pod that its author did not write. Each
case: the pod as written (tests/oracle/pod_create_cases.py), the version, what the object
validating admission saw holds. The same pods go to a real kube-apiserver in
tests/oracle/test_serve.py."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))

from pod_create_cases import AFFINITY, GATED, KEY, apparmor_pod, evaluated


@pytest.mark.parametrize("version", ["1.30", "1.37"])
def test_a_pod_with_scheduling_gates_is_created_unschedulable(version: str) -> None:
    # applySchedulingGatedCondition: a {type: PodScheduled, reason: SchedulingGated} condition.
    (condition,) = evaluated(GATED, version)["status"]["conditions"]
    stamp = condition.pop("lastTransitionTime")
    assert isinstance(stamp, str) and stamp.endswith("Z")
    assert condition == {
        "type": "PodScheduled",
        "status": "False",
        "lastProbeTime": None,
        "reason": "SchedulingGated",
        "message": "Scheduling is blocked due to non-empty scheduling gates",
    }


def test_a_pod_without_gates_has_no_condition() -> None:
    assert (
        "conditions"
        not in evaluated(GATED.replace("schedulingGates: [{name: example.com/wait}]", ""))["status"]
    )


def test_match_label_keys_are_merged_into_affinity_selectors_from_1_31() -> None:
    # mutatePodAffinity (MatchLabelKeysInPodAffinity: beta, on from 1.31): each key the pod's
    # labels have, In for matchLabelKeys and NotIn for mismatchLabelKeys.
    spec = evaluated(AFFINITY, "1.31")["spec"]
    required = spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert required[0]["labelSelector"] == {
        "matchLabels": {"a": "b"},
        "matchExpressions": [
            {"key": "app", "operator": "In", "values": ["web"]},
            {"key": "tier", "operator": "NotIn", "values": ["front"]},
        ],
    }
    preferred = spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert preferred[0]["podAffinityTerm"]["labelSelector"]["matchExpressions"] == [
        {"key": "x", "operator": "Exists"},
        {"key": "app", "operator": "In", "values": ["web"]},
    ]


def test_affinity_selectors_are_as_written_before_1_31() -> None:
    required = evaluated(AFFINITY, "1.30")["spec"]["affinity"]["podAffinity"]
    assert required["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] == {
        "matchLabels": {"a": "b"}
    }


@pytest.mark.parametrize(("version", "merged"), [("1.33", False), ("1.34", True), ("1.37", True)])
def test_topology_spread_selectors_are_merged_from_1_34(version: str, merged: bool) -> None:
    # mutateTopologySpreadConstraints: MatchLabelKeysInPodTopologySpread and (1.34 on)
    # MatchLabelKeysInPodTopologySpreadSelectorMerge.
    (constraint,) = evaluated(AFFINITY, version)["spec"]["topologySpreadConstraints"]
    expected = {"matchLabels": {"a": "b"}}
    if merged:
        expected["matchExpressions"] = [{"key": "app", "operator": "In", "values": ["web"]}]  # type: ignore[list-item]
    assert constraint["labelSelector"] == expected


def _apparmor(
    annotations: dict[str, str], pod_profile: str | None = None, os: str | None = None
) -> list[Any]:
    spec = evaluated(yaml.safe_dump(apparmor_pod(annotations, pod_profile, os)))["spec"]
    return [
        c.get("securityContext", {}).get("appArmorProfile")
        for c in spec["initContainers"] + spec["containers"]
    ]


@pytest.mark.parametrize(
    ("annotation", "profile"),
    [
        ("runtime/default", {"type": "RuntimeDefault"}),
        ("unconfined", {"type": "Unconfined"}),
        ("localhost/k8s-nginx", {"type": "Localhost", "localhostProfile": "k8s-nginx"}),
        # podutil.ApparmorFieldForAnnotation has no profile for these, and
        # ValidateAppArmorProfileField rejects a padded or too long (> 4095 bytes) name: not copied.
        ("localhost/", None),
        ("localhost/ padded ", None),
        ("localhost/" + "x" * 4096, None),
        ("localhost/" + "x" * 4095, {"type": "Localhost", "localhostProfile": "x" * 4095}),
    ],
)
def test_an_apparmor_annotation_becomes_the_containers_field(annotation: str, profile: Any) -> None:
    # applyAppArmorVersionSkew: the deprecated annotation, for init containers too.
    assert _apparmor({KEY + "c": annotation, KEY + "i": annotation}) == [profile, profile]


def test_an_apparmor_annotation_equal_to_the_pods_profile_or_on_windows_is_left() -> None:
    assert _apparmor({KEY + "c": "runtime/default"}, pod_profile="RuntimeDefault") == [None, None]
    assert _apparmor({KEY + "c": "runtime/default"}, os="windows") == [None, None]
