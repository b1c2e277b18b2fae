"""Which Kubernetes versions load static manifests, and what their loader is called.

Every fact is read in the source of the release it is about:

* `ManifestBasedAdmissionControlConfig` (k8s.io/apiserver `pkg/features/kube_features.go`):
  absent in v0.35.4, alpha and off by default in v0.36.3, beta and on by default in v0.37.2
  and in v0.38.0-beta.0.
* Before 1.36 the admission plugins ignore their configuration altogether: v0.35.4
  `policy/validating/plugin.go` and `policy/mutating/plugin.go` declare `NewPlugin(_ io.Reader)`,
  so a `staticManifestsDir` there is never read and kube-apiserver starts without the policies.
* From 1.36, a `staticManifestsDir` with the gate off keeps kube-apiserver from starting
  (`policy/config/config.go loadConfig` → `manifest.ValidateStaticManifestsDir`:
  `staticManifestsDir: Forbidden: ...`).
* The loader decodes with a scheme of its own, created in k8s.io/kubernetes
  `pkg/admission/plugin/policy/manifest/loader/validating_loader.go` (line 35 in v1.36.3 and
  v1.37.2, line 37 in v1.38.0-beta.0); apimachinery names a scheme after the place it is created
  (`runtime.NewScheme` → `naming.GetNameFromCallsite`, the path cut after `/pkg/`... of a
  `-trimpath` build: `hack/lib/golang.sh`), and `no kind "X" is registered ...` quotes that name.
"""

from __future__ import annotations

import enum

FEATURE_GATE = "ManifestBasedAdmissionControlConfig"
FIRST_MINOR = 36
DEFAULT_ON_MINOR = 37
SUFFIX = ".static.k8s.io"
"""`manifest.StaticConfigSuffix` (k8s.io/apiserver `pkg/admission/plugin/manifest/validation.go`)."""


class Gate(enum.Enum):
    ABSENT = "absent"  # the version has no static manifests
    ALPHA_OFF = "alpha"  # there, behind an alpha gate that is off by default
    BETA_ON = "beta"  # there, on by default


def mentions_admission_config(text: str) -> bool:
    """A cheap test on a file's text, before any parsing (the server asks it before its engine is
    imported): could it hold an AdmissionConfiguration or a policy plugin's configuration?"""
    return "AdmissionConfiguration" in text or "AdmissionPolicyConfiguration" in text


def gate(minor: int) -> Gate:
    if minor < FIRST_MINOR:
        return Gate.ABSENT
    return Gate.ALPHA_OFF if minor < DEFAULT_ON_MINOR else Gate.BETA_ON


_SCHEME_LINE = {36: 35, 37: 35}
_NEWEST_SCHEME_LINE = 37  # v1.38.0-beta.0


def scheme_name(minor: int) -> str:
    """The name `no kind ... is registered ... in scheme "..."` gives the loader's scheme."""
    line = _SCHEME_LINE.get(minor, _NEWEST_SCHEME_LINE)
    return f"pkg/admission/plugin/policy/manifest/loader/validating_loader.go:{line}"


def gate_text(minor: int) -> str | None:
    """What to say about the gate at this version (None: on by default, nothing to say)."""
    state = gate(minor)
    if state is Gate.ABSENT:
        return (
            f"Kubernetes 1.{minor} has no static manifests: its ValidatingAdmissionPolicy and "
            "MutatingAdmissionPolicy plugins ignore their configuration, so kube-apiserver starts "
            f"without these policies (staticManifestsDir arrives in 1.{FIRST_MINOR}, behind the "
            f"{FEATURE_GATE} feature gate)"
        )
    if state is Gate.ALPHA_OFF:
        return (
            f"checked as kube-apiserver 1.{minor} loads it with --feature-gates={FEATURE_GATE}=true: "
            "the gate is alpha and off by default in 1.36, and without it a staticManifestsDir keeps "
            "kube-apiserver from starting (staticManifestsDir: Forbidden)"
        )
    return None
