# ruff: noqa: E501  (the server's messages and the Go tests' YAML are kept as written, one line each)
"""Manifest names, the staticManifestsDir and the plugins' configuration.

Translated from k8s.io/apiserver v0.37.2 (the same in v0.36.3 and v0.38.0-beta.0):
`pkg/admission/plugin/manifest/validation_test.go` (`TestValidateManifestName`,
`TestValidateStaticManifestsDir`) and `pkg/admission/plugin/policy/config/config_test.go`
(`TestLoadValidatingConfig`, `TestLoadMutatingConfig`). Where vap-lsp cannot know what the Go
test knows (whether a path exists on the control-plane node), the case says what it does instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.static_manifests.folders import dedent, loader_errors, run
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.static_manifests.api import analyse_file

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  {meta}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "true"
"""


# TestValidateManifestName: (case, metadata, the error it contains or None)
NAME_CASES = [
    ("valid name", "name: test.static.k8s.io", None),
    # "empty name": `must have a name` cannot be reached in kube-apiserver's loaders: their
    # validation (ObjectMeta) requires a name first, generateName or not (nothing generates one).
    ("empty name", "generateName: test-", "metadata.name: Required value: name or generateName is required"),
    ("missing suffix", "name: no-suffix", "must have a name ending with"),
]


@pytest.mark.parametrize(("case", "meta", "error"), NAME_CASES, ids=[c[0] for c in NAME_CASES])
def test_validate_manifest_name(case: str, meta: str, error: str | None, tmp_path: Path) -> None:
    result = run(tmp_path, {"test.yaml": POLICY.format(meta=meta)}, "validating")
    errors = loader_errors(result)
    if error is None:
        assert errors == []
    else:
        assert [e for e in errors if error in e], errors


def test_validate_manifest_name_duplicate(tmp_path: Path) -> None:
    """Names are unique per kind of object across the folder, in load order (files by name)."""
    files = {
        "first.yaml": POLICY.format(meta="name: dup.static.k8s.io"),
        "second.yaml": POLICY.format(meta="name: dup.static.k8s.io"),
    }
    result = run(tmp_path, files, "validating")
    assert loader_errors(result) == [
        f'error loading {tmp_path}/second.yaml: duplicate name "dup.static.k8s.io" found in file '
        f'"{tmp_path}/second.yaml" (previously seen in "{tmp_path}/first.yaml")'
    ]


def test_a_policy_and_a_binding_may_share_a_name(tmp_path: Path) -> None:
    binding = (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata:\n  name: same.static.k8s.io\nspec:\n  policyName: same.static.k8s.io\n"
        "  validationActions: [Deny]\n"
    )
    result = run(tmp_path, {"a.yaml": POLICY.format(meta="name: same.static.k8s.io"), "b.yaml": binding})
    assert loader_errors(result) == [] and (result.policies, result.bindings) == (1, 1)


# ------------------------------------------------------------------ the plugins' configuration


def _config(kind: str, dir_line: str) -> str:
    return f"kind: {kind}\napiVersion: apiserver.config.k8s.io/v1\n{dir_line}"


def _check(text: str, path: Path, version: str = "1.37") -> tuple[list[Diagnostic], list[Path]]:
    analysis, folders = analyse_file(text, AnalysisSettings(version), path=path)
    return analysis.diagnostics, [f.folder for f in folders]


def _said(diagnostics: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(d.severity.label, d.message) for d in diagnostics]


@pytest.mark.parametrize(
    "kind", ["ValidatingAdmissionPolicyConfiguration", "MutatingAdmissionPolicyConfiguration"]
)
def test_load_config(kind: str, tmp_path: Path) -> None:
    """TestLoadValidatingConfig / TestLoadMutatingConfig, row by row."""
    valid = tmp_path / "manifests"
    valid.mkdir()
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("")
    here = tmp_path / "config.yaml"
    # "valid config with staticManifestsDir": accepted, and the folder is checked in static mode
    assert _check(_config(kind, f"staticManifestsDir: {valid}\n"), here) == ([], [valid])
    # "valid config with empty staticManifestsDir"
    assert _check(_config(kind, ""), here) == ([], [])
    # "forbidden when feature gate disabled": in 1.36 the gate is off unless turned on: checked as
    # if on, and said (information); in 1.35 there is no such configuration at all (an error).
    found, folders = _check(_config(kind, "staticManifestsDir: /etc/kubernetes/policies\n"), here, "1.36")
    assert any(
        d.severity is Severity.INFORMATION and "staticManifestsDir: Forbidden" in d.message for d in found
    )
    found, _ = _check(_config(kind, "staticManifestsDir: /etc/kubernetes/policies\n"), here, "1.35")
    assert [d.severity for d in found] == [Severity.ERROR] and "Kubernetes 1.35 ignores" in found[0].message
    # "invalid relative path"
    found, _ = _check(_config(kind, "staticManifestsDir: relative/path\n"), here)
    assert _said(found) == [
        ("error", 'staticManifestsDir: Invalid value: "relative/path": must be an absolute file path')
    ]
    # "path does not exist": not on this machine says nothing of the control-plane node (a note)
    found, folders = _check(_config(kind, "staticManifestsDir: /nonexistent/path\n"), here)
    assert [d.severity for d in found] == [Severity.INFORMATION] and folders == []
    assert "unable to read" in found[0].message
    # "path is not a directory" (here, on this machine: a warning)
    found, _ = _check(_config(kind, f"staticManifestsDir: {not_a_dir}\n"), here)
    assert _said(found) == [
        (
            "warning",
            f'staticManifestsDir: Invalid value: "{not_a_dir}": must be a directory (so it is on this machine)',
        )
    ]


def _admission(configuration: str, name: str = "ValidatingAdmissionPolicy") -> str:
    body = "\n".join("      " + line for line in dedent(configuration).splitlines())
    return (
        dedent(
            f"""
        apiVersion: apiserver.config.k8s.io/v1
        kind: AdmissionConfiguration
        plugins:
          - name: {name}
            configuration:
        """
        )
        + body
        + "\n"
    )


def test_load_config_empty_and_unknown_kind(tmp_path: Path) -> None:
    """ "empty input" (`'Kind' is missing`) and "unknown kind" (`no kind "Unknown" is registered`)
    as a plugin's inline configuration."""
    here = tmp_path / "admission.yaml"
    found, _ = _check(_admission("{}"), here)
    assert _said(found) == [("error", "Object 'Kind' is missing in '{}'")]
    found, _ = _check(_admission('{"kind":"Unknown","apiVersion":"v1"}'), here)
    assert _said(found) == [
        (
            "error",
            'no kind "Unknown" is registered for version "v1" in scheme '
            '"pkg/admission/plugin/policy/config/config.go:32"',
        )
    ]


def test_each_plugin_takes_its_own_kind(tmp_path: Path) -> None:
    """`LoadValidatingConfig` accepts only `*policyconfig.ValidatingAdmissionPolicyConfiguration`."""
    text = _admission(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: MutatingAdmissionPolicyConfiguration\n"
        "staticManifestsDir: /etc/kubernetes/vap\n"
    )
    found, _ = _check(text, tmp_path / "admission.yaml")
    assert _said(found)[0] == ("error", "unexpected type: *policyconfig.MutatingAdmissionPolicyConfiguration")


def test_a_misspelt_field_is_a_strict_decoding_error(tmp_path: Path) -> None:
    text = _admission(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\n"
        "staticManifestDir: /etc/kubernetes/vap\n"
    )
    found, folders = _check(text, tmp_path / "admission.yaml")
    assert _said(found) == [("error", 'strict decoding error: unknown field "staticManifestDir"')]
    assert folders == []


def test_a_folder_of_another_machine_is_found_beside_the_file(tmp_path: Path) -> None:
    """`/etc/kubernetes/admission/validating-policies` on the nodes, `validating-policies/`
    beside the configuration in the repository: that folder is checked in static mode."""
    (tmp_path / "validating-policies").mkdir()
    text = _admission(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: ValidatingAdmissionPolicyConfiguration\n"
        "staticManifestsDir: /etc/kubernetes/admission/validating-policies/\n"
    )
    found, folders = _check(text, tmp_path / "admission.yaml")
    assert folders == [tmp_path / "validating-policies"]
    assert [d.severity for d in found] == [Severity.INFORMATION]
    assert "checked as the ValidatingAdmissionPolicy plugin loads it" in found[0].message


def test_the_integration_tests_admission_configuration(tmp_path: Path) -> None:
    """k8s.io/kubernetes v1.37.2 test/integration/apiserver/cel/static_policy_test.go
    `createCombinedPolicyAdmissionConfig`: the legacy `apiserver.k8s.io/v1alpha1` kind, one
    folder per plugin."""
    vap, map_ = tmp_path / "vap", tmp_path / "map"
    vap.mkdir()
    map_.mkdir()
    text = f"""
apiVersion: apiserver.k8s.io/v1alpha1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: "{vap}"
- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: "{map_}"
"""
    analysis, folders = analyse_file(text, AnalysisSettings("1.37"), path=tmp_path / "admission-config.yaml")
    assert analysis.diagnostics == []
    assert [(f.family.value, f.folder) for f in folders] == [("validating", vap), ("mutating", map_)]
