"""Pod Security Admission's own fixtures through the policies `vap-lsp library pss` generates.

The fixtures (`tests/fixtures/libraries/pod-security-admission/testdata`, see its PROVENANCE.md)
are what PSA's `test/run.go` creates on a cluster for each level and policy version: every Pod
of `pass/` must be admitted, every Pod of `fail/` denied with an error containing the substring
its generator names (`expectErrorSubstring` of `test/fixtures_*.go`, the check ID when unset).

Here each Pod goes through `prepare(...).admit` (what `vap-lsp run` does: decoded and defaulted
as the API server does) against the library of that level and version, as a CREATE in namespace
`default`. The server's own validation is off: some `fail` Pods are invalid on purpose
(`failRequiresError` of the 1.35 baseline procMount generator) and the policy alone must deny
them. A VAP denial shows its first failing validation; PSA lists every failing check, so the
substring is looked for among the messages of all the failing validations.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare
from vap_lsp.library.pss import Options, generate
from vap_lsp.library.pss_checks import LATEST_MINOR

TESTDATA = (
    Path(__file__).resolve().parents[1] / "fixtures" / "libraries" / "pod-security-admission" / "testdata"
)
if not (TESTDATA / "baseline" / "v1.0" / "pass" / "base.yaml").is_file():
    pytest.skip(f"PSA's fixtures are not in {TESTDATA} (see PROVENANCE.md)", allow_module_level=True)

# test/fixtures_*.go: registerFixtureGenerator(..., fixtureGenerator{expectErrorSubstring: ...});
# the file name is the check ID lower-cased (fixtures_test.go), the substring the check ID if unset.
EXPECTED_SUBSTRING = {
    "allowprivilegeescalation": "allowPrivilegeEscalation",  # check ID (unset)
    "apparmorprofile": "forbidden AppArmor profile",  # fixtures_appArmorProfile.go
    "capabilities_baseline": "capabilities",  # fixtures_capabilities_baseline.go
    "capabilities_restricted": "unrestricted capabilities",  # fixtures_capabilities_restricted.go
    "hostnamespaces": "host namespaces",  # fixtures_hostNamespaces.go
    "hostpathvolumes": "hostPath",  # fixtures_hostPathVolumes.go
    "hostports": "hostPort",  # fixtures_hostPorts.go
    "hostprobesandhostlifecycle": "probe or lifecycle host",  # fixtures_hostProbesAndHostLifecycle.go
    "privileged": "privileged",  # check ID
    "procmount": "procMount",  # fixtures_procMount.go
    "procmount_restricted": "procMount",  # fixtures_procMount.go
    "restrictedvolumes": "restricted volume types",  # fixtures_restrictedVolumes.go
    "runasnonroot": "runAsNonRoot",  # check ID
    "runasuser": "runAsUser",  # check ID
    "seccompprofile_baseline": "seccompProfile",  # fixtures_seccompProfile_baseline.go
    "seccompprofile_restricted": "seccompProfile",  # fixtures_seccompProfile_restricted.go
    "selinuxoptions": "seLinuxOptions",  # fixtures_seLinuxOptions.go
    "sysctls": "forbidden sysctl",  # fixtures_sysctls.go
    "windowshostprocess": "hostProcess",  # fixtures_windowsHostProcess.go
}
CASES = [(level, minor) for level in ("baseline", "restricted") for minor in range(LATEST_MINOR + 1)]


def _fixtures(level: str, minor: int, verdict: str) -> list[tuple[str, dict[str, Any]]]:
    folder = TESTDATA / level / f"v1.{minor}" / verdict
    return [(p.name, yaml.safe_load(p.read_text(encoding="utf-8"))) for p in sorted(folder.glob("*.yaml"))]


def _check(prepared: Any, level: str, minor: int, namespace: str = "default") -> list[str]:
    """The fixtures of (level, v1.minor) that do not get PSA's verdict, with why."""
    wrong: list[str] = []
    for name, pod in _fixtures(level, minor, "pass"):
        result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace=namespace))
        if not result.allowed:
            wrong.append(f"pass/{name} denied: {[d.detail for d in result.denials]}")
    for name, pod in _fixtures(level, minor, "fail"):
        result = prepared.admit(AdmissionRequestInput("CREATE", pod, namespace=namespace))
        expected = EXPECTED_SUBSTRING[re.sub(r"\d+\.yaml$", "", name)]
        messages = [f.message for e in result.evaluations for f in e.failures]
        if result.allowed:
            wrong.append(f"fail/{name} admitted")
        elif not any(expected in m for m in messages):
            wrong.append(f"fail/{name} denied without {expected!r}: {messages}")
    return wrong


@pytest.mark.parametrize(("level", "minor"), CASES, ids=[f"{lv}-v1.{m}" for lv, m in CASES])
def test_psa_fixtures_get_psas_verdict(level: str, minor: int) -> None:
    policy = generate(Options(level=level, version=f"v1.{minor}", workloads="off"))
    prepared = prepare(
        PolicyInputs.from_objects(policy.objects()), kubernetes_version="1.37", builtin_admission=False
    )
    assert _fixtures(level, minor, "pass") and _fixtures(level, minor, "fail")
    assert _check(prepared, level, minor) == []


def test_every_fixture_version_is_tested() -> None:
    """The fixtures hold exactly the versions v1.0 to the newest the library knows (a newer PSA
    adds a folder: the library must learn its checks first)."""
    for level in ("baseline", "restricted"):
        found = sorted(int(p.name.removeprefix("v1.")) for p in (TESTDATA / level).iterdir())
        assert found == list(range(LATEST_MINOR + 1))


# The namespace-labels library: one policy for every level and version, chosen per namespace.
LABELLED = [
    (level, minor) for level in ("baseline", "restricted") for minor in (0, 8, 19, 22, 25, 31, 35, 37)
]


@pytest.fixture(scope="module")
def labelled() -> Any:
    policy = generate(Options(namespace_labels=True, workloads="off"))
    namespaces = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": f"{level}-{minor}",
                "labels": {
                    "pod-security.kubernetes.io/enforce": level,
                    "pod-security.kubernetes.io/enforce-version": f"v1.{minor}",
                },
            },
        }
        for level, minor in LABELLED
    ]
    return prepare(
        PolicyInputs.from_objects([*policy.objects(), *namespaces]),
        kubernetes_version="1.37",
        builtin_admission=False,
    )


@pytest.mark.parametrize(("level", "minor"), LABELLED, ids=[f"{lv}-v1.{m}" for lv, m in LABELLED])
def test_psa_fixtures_through_the_namespace_labels_library(labelled: Any, level: str, minor: int) -> None:
    """Labelled `enforce: <level>`, `enforce-version: v1.<minor>`, the namespace gets PSA's
    verdict on that version's fixtures (versions where a check changes)."""
    assert _check(labelled, level, minor, namespace=f"{level}-{minor}") == []
