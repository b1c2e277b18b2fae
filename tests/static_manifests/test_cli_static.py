# ruff: noqa: E501  (YAML kept as written, one line each)
"""`vap-lsp check --static-manifests`, the configuration's `static-manifests` and folders an
AdmissionConfiguration names: exit codes and the summary line CI users read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.static_manifests.folders import write
from vap_lsp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {name}
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
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {name}
spec:
  policyName: {policy}
  validationActions: [Deny]
"""


def _good(folder: Path) -> Path:
    return write(
        folder,
        {
            "policy.yaml": POLICY.format(name="p.static.k8s.io"),
            "binding.yaml": BINDING.format(name="b.static.k8s.io", policy="p.static.k8s.io"),
        },
    )


def test_a_folder_that_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _good(tmp_path / "vap")
    assert main(["check", "--static-manifests", str(folder), "--plugin", "validating"]) == 0
    err = capsys.readouterr().err
    assert (
        f"kube-apiserver 1.37 loads {folder}: 1 policy, 1 binding (ValidatingAdmissionPolicy plugin)" in err
    )


def test_a_folder_that_keeps_kube_apiserver_from_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write(
        tmp_path / "vap",
        {
            "policy.yaml": POLICY.format(name="p"),  # no suffix
            "binding.yaml": BINDING.format(name="b.static.k8s.io", policy="missing.static.k8s.io"),
        },
    )
    assert main(["check", "--static-manifests", str(folder)]) == 1
    captured = capsys.readouterr()
    assert f"kube-apiserver 1.37 would not start: 2 errors in {folder}" in captured.err
    assert f'{folder}/policy.yaml:4:9: error: error loading {folder}/policy.yaml: "p" in file' in captured.out
    assert "[static-binding-reference]" in captured.out


def test_the_gate_per_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _good(tmp_path / "vap")
    assert main(["check", "--static-manifests", str(folder), "--kubernetes-version", "1.36"]) == 0
    summary = "kube-apiserver 1.36 (with --feature-gates=ManifestBasedAdmissionControlConfig=true) loads"
    assert summary in capsys.readouterr().err
    args = ["check", "--static-manifests", str(folder), "--kubernetes-version", "1.36", "--show-notes"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"{folder}:1:1: information: checked as kube-apiserver 1.36 loads it with " in out
    assert main(["check", "--static-manifests", str(folder), "--kubernetes-version", "1.35"]) == 1
    captured = capsys.readouterr()
    assert f"{folder}:1:1: error: Kubernetes 1.35 has no static manifests" in captured.out
    assert f"kube-apiserver 1.35 would not load {folder}: static manifests arrive in 1.36" in captured.err


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--plugin", "validating", "x.yaml"], "--plugin needs --static-manifests DIR"),
        (["--static-manifests", "no-such-folder"], "--static-manifests no-such-folder: not a folder"),
        ([], "check: give a PATH or --static-manifests DIR"),
    ],
)
def test_usage(args: list[str], problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *args]) == 2
    assert problem in capsys.readouterr().err


def test_a_configured_folder_is_checked_as_kube_apiserver_loads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the REST API the names would be refused (1.37); as a static folder they load."""
    _good(tmp_path / "vap")
    write(tmp_path, {".vap-lsp.yaml": "static-manifests:\n  - path: vap\n    plugin: validating\n"})
    assert main(["check", str(tmp_path)]) == 0
    assert f"kube-apiserver 1.37 loads {tmp_path / 'vap'}" in capsys.readouterr().err
    assert main(["check", "--no-config", str(tmp_path)]) == 1  # the same files through the API
    assert "are reserved for static manifest-based configurations" in capsys.readouterr().out


def test_a_folder_an_admission_configuration_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _good(tmp_path / "policies")
    write(
        tmp_path,
        {
            "admission.yaml": "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
            "- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n"
            "    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: /etc/kubernetes/policies\n"
        },
    )
    assert main(["check", "--format", "json", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    files = {Path(f["path"]).name: f["diagnostics"] for f in json.loads(captured.out)["files"]}
    assert [d["code"] for d in files["admission.yaml"]] == ["static-manifests-dir"]
    assert files["policy.yaml"] == files["binding.yaml"] == []
    assert "kube-apiserver 1.37 loads" in captured.err


def test_the_ci_smoke_test_still_holds(capsys: pytest.CaptureFixture[str]) -> None:
    """.ci/run: `vap-lsp check examples/` exits 1 (examples/broken), `examples/valid` 0; and the
    static example loads, in both plugins' folders."""
    assert main(["check", str(EXAMPLES)]) == 1
    assert main(["check", str(EXAMPLES / "valid")]) == 0
    assert main(["check", str(EXAMPLES / "static")]) == 0
    err = capsys.readouterr().err
    assert "2 policies, 2 bindings (ValidatingAdmissionPolicy plugin)" in err
    assert "1 policy, 1 binding (MutatingAdmissionPolicy plugin)" in err
    for plugin in ("validating", "mutating"):
        folder = EXAMPLES / "static" / plugin
        assert main(["check", "--static-manifests", str(folder), "--plugin", plugin]) == 0


def test_the_readmes_ci_recipe_runs_on_the_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """README "Static manifests": the workflow's `vap-lsp` steps pass on examples/static."""
    import shlex

    import yaml

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("# .github/workflows/static-manifests.yaml")
    block = readme[start : readme.index("```", start)]
    steps = yaml.safe_load(block)["jobs"]["check"]["steps"]
    commands = [shlex.split(s["run"].split("#")[0]) for s in steps if s.get("run", "").startswith("vap-lsp")]
    assert len(commands) == 2
    monkeypatch.chdir(ROOT)
    for command in commands:
        assert main(command[1:]) == 0, command


def test_the_readmes_commands(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """README "Static manifests": the three commands at its top, as written, on the example."""
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Static manifests")
    block = readme[
        readme.index("```sh\n", start) + 6 : readme.index("```", readme.index("```sh\n", start) + 6)
    ]
    commands = [shlex.split(line.split("#")[0]) for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [["vap-lsp", "check"]] * 3
    monkeypatch.chdir(ROOT)
    for command in commands:
        assert main(command[1:]) == 0, command
    assert "kube-apiserver 1.36 (with --feature-gates=ManifestBasedAdmissionControlConfig=true) loads" in (
        capsys.readouterr().err
    )
