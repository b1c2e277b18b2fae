"""Reading test files: our format, kaptest manifests and kyverno-test.yaml into one case model;
discovery; the JSON Schema; reports. Independent of the admission engine's verdicts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from vap_lsp.admission.api import AdmissionResult, Denial, Evaluation, ExpressionEvaluation
from vap_lsp.cli.main import main
from vap_lsp.testfiles.discover import discover, read_suite
from vap_lsp.testfiles.model import CaseResult, Decision, Mode, TestSuite
from vap_lsp.testfiles.report import SuiteRun, junit_report, text_report
from vap_lsp.testfiles.runner import observed_decision

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tests" / "require-team-label.vaptest.yaml"
SCHEMA = ROOT / "schemas" / "vap-lsp-test.schema.json"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  paramKind: {apiVersion: v1, kind: ConfigMap}
  validations:
    - expression: object.spec.replicas <= 5
"""

RESOURCES = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ok, namespace: foo}
spec: {replicas: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: old, namespace: foo}
spec: {replicas: 1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: config, namespace: foo}
data: {max: "5"}
---
apiVersion: v1
kind: Namespace
metadata: {name: foo, labels: {env: prod}}
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_example_reads_as_five_cases_with_inline_and_referenced_objects() -> None:
    suite = read_suite(EXAMPLE)
    assert suite is not None and suite.format == "vap-lsp" and suite.problems == []
    assert [c.expect.decision for c in suite.cases] == [
        Decision.DENY, Decision.ADMIT, Decision.SKIP, None, Decision.MUTATE,
    ]  # fmt: skip
    first, _, third, update, mutate = suite.cases
    assert first.request.object is not None and first.request.object["metadata"]["namespace"] == "enforced"
    assert first.expect.messages == ("Deployment no-team has no team label",)
    assert third.request.object is not None and third.request.object["metadata"]["namespace"] == "relaxed"
    assert update.request.operation == "UPDATE" and update.request.old_object is not None
    assert update.request.user.username == "alice@example.com" and update.request.user.groups == (
        "developers",
    )
    assert update.expect.allowed is False
    assert mutate.expect.patched is not None and mutate.expect.patched["metadata"]["labels"] == {
        "owner": "platform"
    }
    assert first.line == 13 and mutate.line == 43
    assert set(suite.policies) == {"require-team-label.example.com", "add-default-label"}
    assert all(c.mode is Mode.SERVER for c in suite.cases)


def _schema_keys(schema: dict[str, Any], name: str) -> set[str]:
    return set(schema["definitions"][name]["properties"])


def test_schema_lists_every_field_the_reader_accepts() -> None:
    from vap_lsp.testfiles import native

    schema = json.loads(SCHEMA.read_text())
    assert schema["properties"]["apiVersion"]["const"] == native.API_VERSION
    assert schema["properties"]["kind"]["const"] == native.KIND
    assert set(schema["properties"]) == native._TOP_KEYS
    assert _schema_keys(schema, "case") == native._CASE_KEYS
    expect_object = schema["definitions"]["case"]["properties"]["expect"]["anyOf"][1]
    assert set(expect_object["properties"]) == native._EXPECT_KEYS
    assert schema["definitions"]["decision"]["enum"] == [d.value for d in Decision]
    assert "$schema=../../schemas/vap-lsp-test.schema.json" in EXAMPLE.read_text().splitlines()[0]


def test_native_bad_input_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "policy.yaml", POLICY)
    test = _write(
        tmp_path,
        "bad.vaptest.yaml",
        "apiVersion: vap-lsp.io/v1alpha1\nkind: AdmissionTest\npolicies: [policy.yaml]\n"
        "cases:\n- name: x\n  object: {kind: Deployment, name: missing}\n  expect: maybe\n"
        "- name: y\n  policy: nope\n  colour: blue\n"
        "  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}\n"
        "  expect: deny\n",
    )
    suite = read_suite(test)
    assert suite is not None and suite.cases == []
    text = "\n".join(suite.problems)
    assert "no object Deployment missing" in text
    assert "'maybe' is not one of" in text
    assert "unknown field 'colour'" in text
    assert "no policy named 'nope'" in text


def test_native_case_without_binding_gets_a_synthesized_one(tmp_path: Path) -> None:
    _write(tmp_path, "policy.yaml", POLICY)
    _write(tmp_path, "resources.yaml", RESOURCES)
    test = _write(
        tmp_path,
        "t.vaptest.yaml",
        "apiVersion: vap-lsp.io/v1alpha1\nkind: AdmissionTest\npolicies: [policy.yaml]\n"
        "resources: [resources.yaml]\ncases:\n- name: x\n  policy: replicas\n"
        "  object: {kind: Deployment, name: ok, namespace: foo}\n  namespace: foo\n"
        "  params: [{kind: ConfigMap, name: config, namespace: foo}]\n  expect: admit\n",
    )
    suite = read_suite(test)
    assert suite is not None and suite.problems == []
    (case,) = suite.cases
    (binding,) = case.inputs.bindings
    assert binding["kind"] == "ValidatingAdmissionPolicyBinding"
    assert binding["spec"]["policyName"] == "replicas"
    assert binding["spec"]["paramRef"] == {
        "name": "config",
        "namespace": "foo",
        "parameterNotFoundAction": "Deny",
    }
    assert case.request.namespace == "foo"
    assert case.notes and "synthesized binding" in case.notes[0]


def test_kaptest_manifest_v01_and_v02(tmp_path: Path) -> None:
    _write(tmp_path, "policy.yaml", POLICY)
    _write(tmp_path, "policy.test/resources.yaml", RESOURCES)
    body = (
        "resources: [resources.yaml]\n"
        "{suites}:\n- policy: replicas\n  tests:\n"
        "  - object: {kind: Deployment, name: ok, namespace: foo}\n    param: {name: config}\n"
        "    userInfo: {name: alice}\n    expect: admit\n"
        "  - object: {kind: Deployment, name: ok, namespace: foo}\n"
        "    oldObject: {kind: Deployment, name: old, namespace: foo}\n    expect: deny\n"
        "    deniedMessage: too many\n"
        "  - oldObject: {kind: Deployment, name: old, namespace: foo}\n    expect: skip\n"
    )
    v01 = _write(
        tmp_path,
        "policy.test/kaptest.yaml",
        "validatingAdmissionPolicies: [../policy.yaml]\n" + body.replace("{suites}", "testSuites"),
    )
    v02 = _write(
        tmp_path,
        "policy.test/v2.yaml",
        "version: v1alpha1\npolicies: [../policy.yaml]\n" + body.replace("{suites}", "vapTestSuites"),
    )
    for path in (v01, v02):
        suite = read_suite(path)
        assert suite is not None and suite.format == "kaptest" and suite.problems == [], path
        create, update, delete = suite.cases
        assert [c.request.operation for c in suite.cases] == ["CREATE", "UPDATE", "DELETE"]
        assert all(c.mode is Mode.KAPTEST and c.request.dry_run for c in suite.cases)
        assert create.request.user.username == "alice"
        # matchConstraints are not evaluated by kaptest: the case runs a policy matching all.
        (policy,) = create.inputs.policies
        assert policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == ["*"]
        assert create.original_policy is not None
        assert create.original_policy["spec"]["matchConstraints"]["resourceRules"][0]["resources"] == [
            "deployments"
        ]
        (binding,) = create.inputs.bindings
        assert binding["spec"]["paramRef"]["name"] == "config"
        assert create.inputs.params[0]["metadata"]["name"] == "config"
        assert [n["metadata"]["name"] for n in create.inputs.namespaces] == ["foo"]
        assert update.expect.messages == ("too many",)
        assert delete.request.object is None and delete.expect.decision is Decision.SKIP


def test_kyverno_test_file(tmp_path: Path) -> None:
    _write(tmp_path, "policy.yaml", POLICY.replace("  paramKind: {apiVersion: v1, kind: ConfigMap}\n", ""))
    _write(tmp_path, "resources.yaml", RESOURCES)
    _write(
        tmp_path,
        "values.yaml",
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Value\n"
        "namespaceSelector:\n- {name: foo, labels: {env: dev}}\n",
    )
    _write(
        tmp_path,
        "user.yaml",
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: UserInfo\nuserInfo: {username: bob, groups: [g]}\n",
    )
    test = _write(
        tmp_path,
        "kyverno-test.yaml",
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\n"
        "policies: [policy.yaml]\nresources: [resources.yaml]\n"
        "variables: values.yaml\nuserinfo: user.yaml\nresults:\n"
        "- {isValidatingAdmissionPolicy: true, kind: Deployment, policy: replicas,\n"
        "   resources: [ok, foo/old], result: pass}\n"
        "- {policy: a-kyverno-policy, rule: r, resources: [x], result: fail}\n",
    )
    suite = read_suite(test)
    assert suite is not None and suite.format == "kyverno" and suite.problems == []
    assert [c.expect.decision for c in suite.cases] == [Decision.ADMIT, Decision.ADMIT]
    case = suite.cases[0]
    assert case.request.user.username == "bob" and case.request.operation == "CREATE"
    labels = [n["metadata"].get("labels") for n in case.inputs.namespaces]
    assert {"env": "prod"} in labels and {"env": "dev"} in labels
    assert case.inputs.bindings[0]["spec"]["policyName"] == "replicas"
    assert "synthesized binding" in case.notes[0]


def test_discovery_by_name_and_content(tmp_path: Path) -> None:
    _write(tmp_path, "policy.yaml", POLICY)
    _write(tmp_path, "a/kaptest.yaml", "policies: [../policy.yaml]\nvapTestSuites: []\n")
    _write(tmp_path, "b/anything.yaml", "policies: [../policy.yaml]\nvapTestSuites: []\n")
    _write(tmp_path, "c/other.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    errors: list[str] = []
    suites = discover([str(tmp_path)], errors)
    assert sorted(Path(s.path).relative_to(tmp_path).as_posix() for s in suites) == [
        "a/kaptest.yaml",
        "b/anything.yaml",
    ]
    assert errors == []
    discover([str(tmp_path / "c/other.yaml"), str(tmp_path / "nope")], errors)
    assert any("not a test file" in e for e in errors) and any("no such file" in e for e in errors)


def test_cli_exit_code_2_on_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(tmp_path / "missing")]) == 2
    _write(tmp_path, "x.vaptest.yaml", "apiVersion: vap-lsp.io/v1alpha1\nkind: AdmissionTest\ncases: 3\n")
    assert main(["test", str(tmp_path)]) == 2
    assert "bad input" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["test", str(empty)]) == 2


def _result(**kw: Any) -> AdmissionResult:
    base: dict[str, Any] = {
        "object": {}, "allowed": True, "denials": [], "warnings": [], "audit_annotations": {},
        "patched": None, "patch_diff": None, "evaluations": [],
    }  # fmt: skip
    base.update(kw)
    return AdmissionResult(**base)


def test_observed_decision_from_evaluations() -> None:
    from vap_lsp.admission.api import AdmissionRequestInput

    request = AdmissionRequestInput("CREATE", {"kind": "Pod"})
    matched = Evaluation("p", "b", None, True, None, [])
    assert observed_decision(_result(), request, "p") is Decision.SKIP
    assert observed_decision(_result(evaluations=[matched]), request, "p") is Decision.ADMIT
    denied = _result(allowed=False, denials=[Denial("p", "b", "no", "Invalid", 422)], evaluations=[matched])
    assert observed_decision(denied, request, "p") is Decision.DENY
    assert observed_decision(denied, request, "other") is Decision.SKIP
    failing = Evaluation(
        "p",
        "b",
        None,
        True,
        None,
        [ExpressionEvaluation("spec.validations[0].expression", "x", None, "no such key")],
    )
    assert observed_decision(_result(evaluations=[failing]), request, "p") is Decision.ERROR
    # A failing messageExpression does not decide (the server falls back to the message).
    message = Evaluation(
        "p",
        "b",
        None,
        True,
        None,
        [ExpressionEvaluation("spec.validations[0].messageExpression", "x", None, "bad")],
    )
    assert observed_decision(_result(evaluations=[message]), request, "p") is Decision.ADMIT
    patched = _result(evaluations=[matched], patched={"kind": "Pod", "metadata": {"labels": {"a": "b"}}})
    assert observed_decision(patched, request, "p") is Decision.MUTATE


def test_junit_and_text_reports() -> None:
    suite = read_suite(EXAMPLE)
    assert suite is not None
    ok, bad = suite.cases[0], suite.cases[1]
    runs = [
        SuiteRun(
            suite,
            [CaseResult(ok, True, "deny"), CaseResult(bad, False, "skip", ["expected admit, got skip"])],
        ),
        SuiteRun(TestSuite("broken.yaml", "unknown", problems=["broken.yaml: empty test file"])),
    ]
    root = ET.fromstring(junit_report(runs))
    assert root.get("tests") == "3" and root.get("failures") == "1" and root.get("errors") == "1"
    failure = root.find(".//testcase/failure")
    assert failure is not None and failure.get("message") == "expected admit, got skip"
    text = text_report(runs)
    assert "FAIL a Deployment with a team label is admitted" in text
    assert text.rstrip().endswith("1 passed, 1 failed, 1 input problems")
