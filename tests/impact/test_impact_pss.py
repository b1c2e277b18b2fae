"""`vap-lsp impact --base-pss`: what replacing Pod Security Admission with policies would change.

The base is PSA emulated by the generated namespace-labels library (`vap_lsp.impact.pss`), with
the cluster's PodSecurityConfiguration (k8s.io/pod-security-admission `admission/api`:
`defaults`, `exemptions`) when given. `examples/pss` is the README's example: a snapshot with
labelled namespaces, the cluster's AdmissionConfiguration, and `vap-lsp library pss --level
restricted --exemptions params` with kube-system and a profiler image exempt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.impact.conftest import impact_cli
from vap_lsp.admission.load import InputError
from vap_lsp.impact.pss import PssConfig, read_config
from vap_lsp.library.pss import Options, generate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pss"


def _changed(report: dict[str, Any], key: str) -> list[str]:
    return [f"{o['kind']} {o['namespace']}/{o['name']}" for o in report["changes"][key]]


def test_the_example(impact_json: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, report = impact_json(
        [
            "examples/pss/policies",
            "--objects",
            "examples/pss/cluster.yaml",
            "--base-pss",
            "--pss-config",
            "examples/pss/pss-config.yaml",
            "--jobs",
            "1",
        ]
    )
    assert code == 1  # something is newly denied
    # shop enforces baseline, batch is unlabelled (privileged): restricted denies there
    assert _changed(report, "newlyDenied") == ["Pod batch/nightly-report", "Pod shop/web-5d9c7-abcde"]
    # PSA denies the profiler's SYS_PTRACE (baseline); the library exempts its image
    assert _changed(report, "newlyAdmitted") == ["Pod shop/profiler"]
    assert report["changes"]["newlyAdmitted"][0]["message"].endswith(
        'non-default capabilities (container "profiler" must not include "SYS_PTRACE" in '
        "securityContext.capabilities.add)"
    )
    assert any("emulated by the namespace-labels library" in n for n in report["notes"])
    assert any("exempt: namespaces kube-system" in n for n in report["notes"])


def test_without_configuration_psas_defaults(impact_json: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No --pss-config: privileged and latest for unlabelled namespaces, nothing exempt — so
    kube-system's privileged pod is no longer newly denied by the exempting library."""
    monkeypatch.chdir(ROOT)
    _, report = impact_json(
        ["examples/pss/policies", "--objects", "examples/pss/cluster.yaml", "--base-pss", "--jobs", "1"]
    )
    assert "Pod kube-system/kube-proxy-x7k2p" not in _changed(report, "newlyDenied")
    assert any("PSA's built-in defaults" in n for n in report["notes"])


def test_the_emulated_psa_knows_the_versions_of_its_kubernetes(tmp_path: Path, impact_json: Any) -> None:
    """PSA of Kubernetes 1.33 evaluates `latest` as v1.33: no hostProbesAndHostLifecycle (v1.34)."""
    snapshot = tmp_path / "snap.yaml"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "probe", "namespace": "apps"},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "busybox",
                    "livenessProbe": {"tcpSocket": {"port": 80, "host": "10.0.0.1"}},
                }
            ]
        },
    }
    ns = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "apps", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}},
    }
    snapshot.write_text(yaml.safe_dump_all([ns, pod]), encoding="utf-8")
    policies = tmp_path / "policies.yaml"
    # the new side: baseline pinned at v1.33, which admits the probe's host
    policies.write_text(generate(Options(level="baseline", version="v1.33", workloads="off")).text())
    for version, denied_by_psa in (("1.33", False), ("1.34", True)):
        _, report = impact_json(
            [
                str(policies),
                "--objects",
                str(snapshot),
                "--base-pss",
                "--kubernetes-version",
                version,
                "--jobs",
                "1",
            ]
        )
        assert _changed(report, "newlyAdmitted") == (["Pod apps/probe"] if denied_by_psa else [])


def test_options_that_do_not_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    assert impact_cli(["p", "--objects", "o", "--base-pss", "--base", "main"]) == 2
    assert "--base-pss and --base" in capsys.readouterr().err
    assert impact_cli(["p", "--objects", "o", "--pss-config", "c.yaml"]) == 2
    assert "--pss-config needs --base-pss" in capsys.readouterr().err


def test_reading_the_configuration(tmp_path: Path) -> None:
    plain = tmp_path / "psc.yaml"
    plain.write_text(
        "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n"
        "defaults: {enforce: baseline, enforce-version: v1.29, warn: restricted, warn-version: v1.30}\n"
        "exemptions: {usernames: [admin], runtimeClasses: [kata]}\n",
        encoding="utf-8",
    )
    config = read_config(str(plain))
    assert config == PssConfig(
        enforce="baseline",
        enforce_version="v1.29",
        warn="restricted",
        warn_version="v1.30",
        usernames=("admin",),
        runtime_classes=("kata",),
        source=str(plain),
    )
    assert read_config(str(EXAMPLE / "pss-config.yaml")).namespaces == ("kube-system",)
    other = tmp_path / "other.yaml"
    other.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", encoding="utf-8")
    with pytest.raises(InputError, match="no PodSecurityConfiguration"):
        read_config(str(other))
    bad = tmp_path / "bad.yaml"
    bad.write_text(plain.read_text().replace("[admin]", "admin"), encoding="utf-8")
    with pytest.raises(InputError, match=r"exemptions\.usernames: must be a list of names"):
        read_config(str(bad))


def test_a_level_psa_would_refuse_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "psc.yaml"
    config.write_text(
        "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\n"
        "defaults: {enforce: strict}\n",
        encoding="utf-8",
    )
    snapshot = EXAMPLE / "cluster.yaml"
    code = impact_cli(
        [str(EXAMPLE / "policies"), "--objects", str(snapshot), "--base-pss", "--pss-config", str(config)]
    )
    assert code == 2
    assert "--level strict: must be one of" in capsys.readouterr().err


def test_the_example_policies_are_what_the_generator_writes() -> None:
    """`examples/pss/policies` is `vap-lsp library pss --level restricted --exemptions params -o`
    with the exemptions ConfigMap filled in."""
    files = generate(Options(level="restricted", exemptions=True)).files()
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in (EXAMPLE / "policies").iterdir()}
    assert sorted(on_disk) == sorted(files)
    for name, text in files.items():
        if name != "pss-exemptions.yaml":
            assert on_disk[name] == text, name
    data = yaml.safe_load(on_disk["pss-exemptions.yaml"])["data"]
    assert data == {
        "namespaces": "kube-system",
        "usernames": "",
        "runtimeClassNames": "",
        "images": "registry.example.com/tools/profiler",
    }
