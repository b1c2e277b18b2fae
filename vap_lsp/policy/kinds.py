"""Recognising the four admission-policy kinds.

Only the real group `admissionregistration.k8s.io` is recognised; the polyfill group
`admissionregistration.x-k8s.io` (kubernetes-sigs/cel-admission-webhook) is served by a CRD with
its own validation, so none of these rules apply to it.
"""

from __future__ import annotations

import enum

POLICY_GROUP = "admissionregistration.k8s.io"


class PolicyKind(enum.Enum):
    VAP = "ValidatingAdmissionPolicy"
    VAPB = "ValidatingAdmissionPolicyBinding"
    MAP = "MutatingAdmissionPolicy"
    MAPB = "MutatingAdmissionPolicyBinding"

    @property
    def kind(self) -> str:
        return self.value

    @property
    def is_binding(self) -> bool:
        return self in (PolicyKind.VAPB, PolicyKind.MAPB)

    @property
    def is_mutating(self) -> bool:
        return self in (PolicyKind.MAP, PolicyKind.MAPB)


# Versions of the group that have ever served each kind (kubernetes/api admissionregistration):
# VAP/VAPB v1alpha1 (1.26), v1beta1 (1.28), v1 (1.30); MAP/MAPB v1alpha1 (1.32), v1beta1 (1.34),
# v1 (1.36).
SERVED_VERSIONS: dict[PolicyKind, tuple[str, ...]] = {
    PolicyKind.VAP: ("v1alpha1", "v1beta1", "v1"),
    PolicyKind.VAPB: ("v1alpha1", "v1beta1", "v1"),
    PolicyKind.MAP: ("v1alpha1", "v1beta1", "v1"),
    PolicyKind.MAPB: ("v1alpha1", "v1beta1", "v1"),
}

_BY_KIND = {k.value: k for k in PolicyKind}


def recognise(api_version: object, kind: object) -> tuple[PolicyKind, str] | None:
    """The policy kind and the group version, or None when this is not one of the four kinds."""
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    policy_kind = _BY_KIND.get(kind)
    if policy_kind is None:
        return None
    group, sep, version = api_version.partition("/")
    if not sep or group != POLICY_GROUP:
        return None
    if version not in SERVED_VERSIONS[policy_kind]:
        return None
    return policy_kind, version
