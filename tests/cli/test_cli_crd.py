"""`--crd PATH` on `check`, `run` and `test`: CRDs that live outside the policy repository."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vap_lsp.cli.main import main

HTTPROUTE_CRD = Path(__file__).resolve().parents[1] / "fixtures" / "crds" / "httproute-crd.yaml"

ROUTE_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: hostnames
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [gateway.networking.k8s.io]
        apiVersions: [v1]
        operations: [CREATE, UPDATE]
        resources: [httproutes]
  validations:
    - expression: "object.spec.hostnamez.all(h, h.endsWith('.example.com'))"
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_check_without_crd_says_the_rule_is_untyped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.yaml", ROUTE_POLICY)
    assert main(["check", str(policy), "--show-notes"]) == 0
    assert capsys.readouterr().out == (
        f"{policy}:8:9: information: spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for "
        "gateway.networking.k8s.io/v1 httproutes: no schema (not a built-in resource, and no CRD for it "
        "among the checked files); give its CRD with `--crd FILE` (CLI), the `vapLsp.crds` setting "
        "(editor) or `crds` in the configuration file (both) [typing-unavailable]\n"
    )


def test_check_with_crd_types_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = _write(tmp_path, "policy.yaml", ROUTE_POLICY)
    assert main(["check", str(policy), "--crd", str(HTTPROUTE_CRD)]) == 0
    assert capsys.readouterr().out == (
        f"{policy}:13:31: warning: spec.validations[0].expression: type checking against "
        "gateway.networking.k8s.io/v1, Kind=HTTPRoute: ERROR: <input>:1:12: undefined field 'hostnamez' "
        "[cel-type-check]\n"
    )


def test_check_with_a_missing_crd_path_is_an_io_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.yaml", ROUTE_POLICY)
    assert main(["check", str(policy), "--crd", str(tmp_path / "nope.yaml")]) == 2
    assert f"vap-lsp: --crd {tmp_path / 'nope.yaml'}: no such file or directory" in capsys.readouterr().err


def test_check_reports_what_the_server_would_say_about_a_given_crd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _write(tmp_path, "policy.yaml", ROUTE_POLICY)
    crd = _write(
        tmp_path, "crd.yaml", HTTPROUTE_CRD.read_text().replace("name: httproutes.", "name: routes.")
    )
    assert main(["check", str(policy), "--crd", str(crd)]) == 0
    err = capsys.readouterr().err
    assert (
        f"vap-lsp: --crd {crd}: CustomResourceDefinition routes.gateway.networking.k8s.io: error: "
        'metadata.name: Invalid value: "routes.gateway.networking.k8s.io": '
        'must be spec.names.plural+"."+spec.group'
    ) in err


# A kind whose plural is not the conventional guess ("policys"): without its CRD, `run` and
# `test` cannot know the resource the policy matches.
WIDGET_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: policies.example.com}
spec:
  group: example.com
  names: {kind: Policy, plural: policies}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties: {spec: {type: object, properties: {owner: {type: string}}}}
"""

OWNER_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: owner}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [policies]}
  validations:
    - {expression: "has(object.spec.owner)", message: needs an owner}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: owner}
spec: {policyName: owner, validationActions: [Deny]}
"""

OBJECT = """\
apiVersion: example.com/v1
kind: Policy
metadata: {name: p, namespace: default}
spec: {}
"""


def test_run_uses_the_crd_to_find_the_resource(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = _write(tmp_path, "policy.yaml", OWNER_POLICY)
    obj = _write(tmp_path, "object.yaml", OBJECT)
    crd = _write(tmp_path, "crd.yaml", WIDGET_CRD)
    assert main(["run", str(policy), "--object", str(obj)]) == 0  # resource guessed as "policys"
    capsys.readouterr()
    assert main(["run", str(policy), "--object", str(obj), "--crd", str(crd)]) == 1
    assert "denied request: needs an owner" in capsys.readouterr().out


def test_test_uses_the_crd_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "policy.yaml", OWNER_POLICY)
    _write(tmp_path, "object.yaml", OBJECT)
    crd = _write(tmp_path, "crd.yaml", WIDGET_CRD)
    suite = _write(
        tmp_path,
        "owner.vaptest.yaml",
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
    assert main(["test", str(suite), "--crd", str(crd)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
