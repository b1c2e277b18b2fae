"""The configuration's `crds` (`.vap-lsp.yaml` / `[tool.vap-lsp]`) on `check`, `run` and `test`:
the configuration form of `--crd`, which wins over it (it is given first)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_cli_crd import HTTPROUTE_CRD, OBJECT, OWNER_POLICY, ROUTE_POLICY, WIDGET_CRD
from vap_lsp.cli.main import main


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose CRDs live beside the checked folder, named by its configuration:

    .vap-lsp.yaml        crds: [crds/]
    crds/httproute-crd.yaml
    policies/policy.yaml (ROUTE_POLICY: object.spec.hostnamez)
    """
    shutil.copy(HTTPROUTE_CRD, (tmp_path / "crds").mkdir() or tmp_path / "crds" / "httproute-crd.yaml")
    _write(tmp_path / ".vap-lsp.yaml", "crds: [crds/]\n")
    _write(tmp_path / "policies" / "policy.yaml", ROUTE_POLICY)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_types_the_policy_from_the_configurations_crds(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "policies"]) == 0
    assert capsys.readouterr().out == (
        "policies/policy.yaml:13:31: warning: spec.validations[0].expression: type checking against "
        "gateway.networking.k8s.io/v1, Kind=HTTPRoute: ERROR: <input>:1:12: undefined field 'hostnamez' "
        "[cel-type-check]\n"
    )


def test_check_with_no_config_does_not_read_them(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "policies", "--no-config", "--show-notes"]) == 0
    assert "[typing-unavailable]" in capsys.readouterr().out


def test_crd_on_the_command_line_wins_over_the_configuration(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A second HTTPRoute CRD (given with --crd) that declares `hostnamez`: it ranks first.
    renamed = _write(
        repo / "other" / "crd.yaml", HTTPROUTE_CRD.read_text().replace("hostnames:", "hostnamez:")
    )
    assert main(["check", "policies", "--crd", str(renamed), "--show-notes"]) == 0
    out = capsys.readouterr().out
    assert "[cel-type-check]" not in out
    assert "object.spec.hostnamez is optional in the schema" in out  # typed from --crd's schema


def test_every_checked_files_configuration_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two projects checked together: each one's configuration gives its own CRDs, and the
    # union types both (CRDs, like the index, are shared by the whole run).
    shutil.copy(
        HTTPROUTE_CRD, (tmp_path / "a" / "crds").mkdir(parents=True) or tmp_path / "a" / "crds" / "r.yaml"
    )
    _write(tmp_path / "a" / ".vap-lsp.yaml", "crds: [crds/r.yaml]\n")
    _write(tmp_path / "a" / "policy.yaml", ROUTE_POLICY)
    _write(tmp_path / "b" / "pyproject.toml", '[tool.vap-lsp]\ncrds = ["../a/crds"]\n')
    _write(tmp_path / "b" / "policy.yaml", ROUTE_POLICY)
    argv = ["check", "--show-notes", str(tmp_path / "a" / "policy.yaml"), str(tmp_path / "b" / "policy.yaml")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("undefined field 'hostnamez' [cel-type-check]") == 2
    assert "typing-unavailable" not in out


def test_a_missing_crds_path_is_an_error_of_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path / ".vap-lsp.yaml", "crds: [vendor/crds]\n")
    policy = _write(tmp_path / "policy.yaml", ROUTE_POLICY)
    assert main(["check", str(policy)]) == 2
    err = capsys.readouterr().err
    assert f"vap-lsp: {config}: crds: {tmp_path / 'vendor' / 'crds'}: no such file or directory" in err


def test_run_reads_the_configurations_crds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Without the CRD the resource is guessed as "policys" and the policy does not match.
    policy = _write(tmp_path / "policy.yaml", OWNER_POLICY)
    obj = _write(tmp_path / "object.yaml", OBJECT)
    assert main(["run", str(policy), "--object", str(obj)]) == 0
    capsys.readouterr()
    _write(tmp_path / "crds" / "policy-crd.yaml", WIDGET_CRD)
    _write(tmp_path / ".vap-lsp.yaml", "crds: [crds]\n")
    assert main(["run", str(policy), "--object", str(obj)]) == 1
    assert "denied request: needs an owner" in capsys.readouterr().out
    assert main(["run", str(policy), "--object", str(obj), "--no-config"]) == 0


def test_run_takes_the_configurations_kubernetes_version_under_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path / ".vap-lsp.yaml", 'kubernetes-version: "0.1"\n')
    policy = _write(tmp_path / "policy.yaml", OWNER_POLICY)
    obj = _write(tmp_path / "object.yaml", OBJECT)
    assert main(["run", str(policy), "--object", str(obj)]) == 2  # the file's bad version is read
    assert ".vap-lsp.yaml" in capsys.readouterr().err


def test_test_reads_the_configurations_crds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path / "policy.yaml", OWNER_POLICY)
    _write(tmp_path / "object.yaml", OBJECT)
    suite = _write(
        tmp_path / "owner.vaptest.yaml",
        """\
        apiVersion: vap-lsp.io/v1alpha1
        kind: AdmissionTest
        policies: [policy.yaml]
        resources: [object.yaml]
        cases:
          - name: a Policy without an owner is denied
            object: {kind: Policy, name: p, namespace: default}
            expect: deny
        """,
    )
    assert main(["test", str(suite)]) == 1
    capsys.readouterr()
    _write(tmp_path / "crds" / "policy-crd.yaml", WIDGET_CRD)
    _write(tmp_path / ".vap-lsp.yaml", "crds: [crds]\n")
    assert main(["test", str(suite)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["test", str(suite), "--no-config"]) == 1
