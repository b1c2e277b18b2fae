"""`vap-lsp library pss`: which checks a level and version runs, the objects generated, and what
`vap-lsp check` says of them.

Which checks run where is Pod Security Admission's registry (`policy/registry.go` `populate`
over `policy/check_*.go`'s `Versions` and `OverrideCheckIDs`, k8s.io/pod-security-admission
v0.37.2), written out here by version from those files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import analyse_text
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.library.pss import Options, OptionsError, generate, parse_version
from vap_lsp.library.pss_checks import CHECKS, variants_for

BASELINE_1_0 = [
    "appArmorProfile",
    "capabilities_baseline",
    "hostNamespaces",
    "hostPathVolumes",
    "hostPorts",
    "privileged",
    "procMount",
    "seLinuxOptions",
    "seccompProfile_baseline",
    "sysctls",
    "windowsHostProcess",
]


def _ids(level: str, minor: int) -> list[str]:
    return [c.id for c, _ in variants_for(level, minor)]


def _functions(level: str, minor: int) -> dict[str, str]:
    return {c.id: v.function for c, v in variants_for(level, minor)}


def test_baseline_checks_by_version() -> None:
    assert _ids("baseline", 0) == BASELINE_1_0
    assert _ids("baseline", 33) == BASELINE_1_0
    # check_hostProbesAndhostLifecycle.go: MinimumVersion 1.34
    with_probes = sorted([*BASELINE_1_0, "hostProbesAndHostLifecycle"])
    assert _ids("baseline", 34) == with_probes
    assert _ids("baseline", 37) == with_probes


def test_restricted_checks_by_version() -> None:
    """Baseline checks first (by ID), then restricted ones; each restricted variant's
    OverrideCheckIDs drop the baseline check it replaces from that version on."""
    base = [c for c in BASELINE_1_0 if c != "hostPathVolumes"]  # restrictedVolumes overrides, 1.0
    assert _ids("restricted", 0) == [*base, "restrictedVolumes", "runAsNonRoot"]
    assert _ids("restricted", 8) == [*base, "allowPrivilegeEscalation", "restrictedVolumes", "runAsNonRoot"]
    no_seccomp = [c for c in base if c != "seccompProfile_baseline"]
    assert _ids("restricted", 19) == [
        *no_seccomp,
        "allowPrivilegeEscalation",
        "restrictedVolumes",
        "runAsNonRoot",
        "seccompProfile_restricted",
    ]
    no_caps = [c for c in no_seccomp if c != "capabilities_baseline"]
    assert _ids("restricted", 22) == [
        *no_caps,
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "restrictedVolumes",
        "runAsNonRoot",
        "seccompProfile_restricted",
    ]
    assert "runAsUser" not in _ids("restricted", 22) and "runAsUser" in _ids("restricted", 23)
    at_35 = _ids("restricted", 35)
    assert "procMount" not in at_35 and "procMount_restricted" in at_35
    assert "hostProbesAndHostLifecycle" in at_35
    assert len(at_35) == 15


def test_version_variants() -> None:
    """The `CheckPod` in effect is the last variant at or below the version."""
    assert _functions("baseline", 26)["sysctls"] == "sysctlsV1Dot0"
    assert _functions("baseline", 27)["sysctls"] == "sysctlsV1Dot27"
    assert _functions("baseline", 31)["sysctls"] == "sysctlsV1Dot29"
    assert _functions("baseline", 36)["sysctls"] == "sysctlsV1Dot32"
    assert _functions("baseline", 37)["sysctls"] == "sysctlsV1Dot37"
    assert _functions("baseline", 18)["seccompProfile_baseline"] == "seccompProfileBaseline_1_0"
    assert _functions("baseline", 19)["seccompProfile_baseline"] == "seccompProfileBaseline_1_19"
    assert _functions("baseline", 30)["seLinuxOptions"] == "seLinuxOptions1_0"
    assert _functions("baseline", 31)["seLinuxOptions"] == "seLinuxOptions1_31"
    assert _functions("baseline", 35)["procMount"] == "procMount1_35baseline"
    assert _functions("restricted", 24)["allowPrivilegeEscalation"] == "allowPrivilegeEscalation_1_8"
    assert _functions("restricted", 25)["allowPrivilegeEscalation"] == "allowPrivilegeEscalation_1_25"
    assert _functions("restricted", 35)["runAsNonRoot"] == "runAsNonRoot1_35"
    # a version past the newest is the newest (EvaluatePod: maxVersion)
    assert _functions("baseline", 99) == _functions("baseline", 37)


def test_every_check_file_is_cited() -> None:
    assert sorted(c.file for c in CHECKS) == [
        "check_allowPrivilegeEscalation.go",
        "check_appArmorProfile.go",
        "check_capabilities_baseline.go",
        "check_capabilities_restricted.go",
        "check_hostNamespaces.go",
        "check_hostPathVolumes.go",
        "check_hostPorts.go",
        "check_hostProbesAndhostLifecycle.go",
        "check_privileged.go",
        "check_procMount_baseline.go",
        "check_procMount_restricted.go",
        "check_restrictedVolumes.go",
        "check_runAsNonRoot.go",
        "check_runAsUser.go",
        "check_seLinuxOptions.go",
        "check_seccompProfile_baseline.go",
        "check_seccompProfile_restricted.go",
        "check_sysctls.go",
        "check_windowsHostProcess.go",
    ]


def test_versions_parse_as_psa_parses_them() -> None:
    """api.ParseVersion: `latest` or `v1.x` (no leading zero)."""
    assert parse_version("latest") == 37
    assert parse_version("v1.0") == 0
    assert parse_version("v1.30") == 30
    assert parse_version("v1.99") == 37
    for bad in ("1.30", "v1.05", "v2.0", "v1.", "latest "):
        with pytest.raises(OptionsError):
            parse_version(bad)


def test_bad_options_are_said() -> None:
    with pytest.raises(OptionsError, match="--level is required"):
        generate(Options())
    with pytest.raises(OptionsError, match="--workloads sometimes"):
        generate(Options(level="baseline", workloads="sometimes"))
    with pytest.raises(OptionsError, match="--level privileged"):
        generate(Options(level="privileged"))
    with pytest.raises(OptionsError, match=r"--kubernetes-version 1\.29"):
        generate(Options(level="baseline", kubernetes_version="1.29"))


def test_objects_generated() -> None:
    """A policy and a binding per place a pod spec sits; Pods Deny, workloads Warn (as PSA);
    validations in PSA's order, named in the annotation; reason Forbidden (PSA's 403)."""
    generated = generate(Options(level="restricted", version="v1.30"))
    kinds = [(o["kind"], o["metadata"]["name"]) for o in generated.objects()]
    assert kinds == [
        ("ValidatingAdmissionPolicy", "pss-restricted-v1.30"),
        ("ValidatingAdmissionPolicyBinding", "pss-restricted-v1.30"),
        ("ValidatingAdmissionPolicy", "pss-restricted-v1.30-workloads"),
        ("ValidatingAdmissionPolicyBinding", "pss-restricted-v1.30-workloads"),
        ("ValidatingAdmissionPolicy", "pss-restricted-v1.30-cronjobs"),
        ("ValidatingAdmissionPolicyBinding", "pss-restricted-v1.30-cronjobs"),
        ("ValidatingAdmissionPolicy", "pss-restricted-v1.30-podtemplates"),
        ("ValidatingAdmissionPolicyBinding", "pss-restricted-v1.30-podtemplates"),
    ]
    objects = generated.objects()
    pods, workloads = objects[0], objects[2]
    assert objects[1]["spec"] == {"policyName": "pss-restricted-v1.30", "validationActions": ["Deny"]}
    assert objects[3]["spec"]["validationActions"] == ["Warn"]
    assert pods["metadata"]["annotations"]["vap-lsp/pss-checks"].split(",") == _ids("restricted", 30)
    assert pods["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == [
        "pods",
        "pods/ephemeralcontainers",
        "pods/resize",
    ]
    assert [r["resources"] for r in workloads["spec"]["matchConstraints"]["resourceRules"]] == [
        ["deployments", "replicasets", "statefulsets", "daemonsets"],
        ["jobs"],
        ["replicationcontrollers"],
    ]
    assert {v["reason"] for v in pods["spec"]["validations"]} == {"Forbidden"}
    assert pods["spec"]["failurePolicy"] == "Fail"
    # typed for 1.30: no resize subresource, no image volumes there
    old = generate(Options(level="restricted", kubernetes_version="1.30", workloads="off")).objects()[0]
    assert old["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == [
        "pods",
        "pods/ephemeralcontainers",
    ]
    assert "has(v.image)" not in yaml.safe_dump(old) and "has(v.image)" in yaml.safe_dump(pods)


def test_workloads_deny_and_off() -> None:
    deny = generate(Options(level="baseline", workloads="deny")).objects()
    assert {o["spec"]["validationActions"][0] for o in deny if o["kind"].endswith("Binding")} == {"Deny"}
    off = generate(Options(level="baseline", workloads="off")).objects()
    assert [o["kind"] for o in off] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]


def test_exemptions_params() -> None:
    objects = generate(Options(level="baseline", workloads="off", exemptions=True)).objects()
    policy, binding, params = objects
    assert policy["spec"]["paramKind"] == {"apiVersion": "v1", "kind": "ConfigMap"}
    assert [c["name"] for c in policy["spec"]["matchConditions"]] == [
        "significant-pod-update",
        "exempt-namespace",
        "exempt-user",
        "exempt-runtime-class",
    ]
    assert binding["spec"]["paramRef"] == {
        "name": "pss-exemptions",
        "namespace": "kube-system",
        "parameterNotFoundAction": "Deny",
    }
    assert params == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "pss-exemptions", "namespace": "kube-system"},
        "data": {"namespaces": "", "usernames": "", "runtimeClassNames": "", "images": ""},
    }


def test_yaml_reads_back_as_the_objects_and_is_stable() -> None:
    """The text (comments, literal blocks) is what a YAML reader turns into the objects; one file
    per object with `-o`; the same options give the same bytes."""
    for options in (
        Options(level="restricted", exemptions=True),
        Options(namespace_labels=True, level="baseline", version="v1.25"),
    ):
        generated = generate(options)
        assert list(yaml.safe_load_all(generated.text())) == generated.objects()
        files = generated.files()
        assert [yaml.safe_load(t) for t in files.values()] == generated.objects()
        assert generate(options).text() == generated.text()
    text = generate(Options(level="baseline", workloads="off")).text()
    assert "# privileged: Privileged Pods disable most security mechanisms and must be disallowed.\n" in text
    assert "# policy/check_privileged.go privileged_1_0 (baseline check, privileged_1_0 from v1.0)" in text


# --- `vap-lsp check` on what is generated ------------------------------------------------------

# Notes vap-lsp's analysis gives that are not the policy's to fix (reported to the analysis' owner):
# - optional-field on `object.spec.template` of a ReplicationController: the policy's
#   matchCondition `has(object.spec) && has(object.spec.template) && …` keeps absent templates
#   out, which the hint does not read;
# - cel-cost on a comprehension nested over two lists without maxItems (containers × ports,
#   containers × capabilities.add): their estimate multiplies two request-sized maxima that share
#   one 3 MiB request; PSA's hostPorts check needs the nest, the capabilities detail lists the
#   added ones per container.
KNOWN_NOTES = {"cel-cost", "optional-field"}


@pytest.mark.parametrize(
    ("options", "version"),
    [
        (Options(level="restricted", exemptions=True), "1.37"),
        (Options(level="baseline", version="v1.18", kubernetes_version="1.30", workloads="off"), "1.30"),
        (Options(namespace_labels=True, exemptions=True, workloads="off"), "1.37"),
    ],
    ids=["restricted-params-all-kinds", "baseline-v1.18-k8s1.30", "namespace-labels"],
)
def test_generated_policies_have_no_error_or_warning(options: Options, version: str) -> None:
    generated = generate(options)
    analysis = analyse_text(generated.text(), AnalysisSettings(kubernetes_version=version))
    bad = [d for d in analysis.diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]
    assert [f"{d.code}: {d.message}" for d in bad] == []
    notes = [d for d in analysis.diagnostics if d.code not in KNOWN_NOTES]
    assert [f"{d.code}: {d.message}" for d in notes] == []
    for d in analysis.diagnostics:
        if d.code == "optional-field":
            assert "object.spec.template is optional in the schema for v1 ReplicationController" in d.message
        if d.code == "cel-cost":
            assert d.message.startswith("spec.variables[")
            inner = ("[*].ports has no maxItems", "[*].securityContext.capabilities.add has no maxItems")
            assert any(n in d.message for n in inner), d.message


def test_cost_report(tmp_path: Path) -> None:
    """`--cost`: every validation with its worst case; the budgets of the policy."""
    from vap_lsp.library.cost import estimate, render

    generated = generate(Options(level="baseline", workloads="off"))
    (policy,) = estimate(generated.text(), "1.37")
    assert [c.check for c in policy.checks] == _ids("baseline", 37)
    host_namespaces = next(c for c in policy.checks if c.check == "hostNamespaces")
    assert host_namespaces.worst < 100  # three fields, no list
    privileged = next(c for c in policy.checks if c.check == "privileged")
    assert privileged.variables > 1_000_000  # containers sized from a 3 MiB request
    assert [b.budget.name for b in policy.budgets] == [
        "matchConditions",
        "validations and messageExpressions",
    ]
    text = render([policy])
    assert text.startswith("pss-baseline-latest: 12 validations, 11 of them over the per-call limit")


# --- the command ---------------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vap_lsp", "library", "pss", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_prints_and_writes(tmp_path: Path) -> None:
    done = _cli("--level", "baseline", "--workloads", "off")
    assert done.returncode == 0, done.stderr
    assert done.stdout == generate(Options(level="baseline", workloads="off")).text()
    done = _cli("--level", "restricted", "--version", "v1.25", "--exemptions", "params", "-o", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        generate(Options(level="restricted", version="v1.25", exemptions=True)).files()
    )
    assert "wrote " in done.stderr


def test_cli_bad_options_exit_2(tmp_path: Path) -> None:
    done = _cli("--version", "v2.0")
    assert done.returncode == 2
    assert (
        "--level is required" in done.stderr and '--version v2.0: must be "latest" or "v1.x"' in done.stderr
    )
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    done = _cli("--level", "baseline", "-o", str(blocker / "sub"))
    assert done.returncode == 2 and "vap-lsp: library pss:" in done.stderr


def test_the_docs_page_is_up_to_date() -> None:
    """docs/library/pss.md is generated from the catalogue (and PSA's fixtures' denials)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "tools" / "generate_pss_docs.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
