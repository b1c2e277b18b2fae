"""Running test files end to end: the example suite passes, failures are reported with their
line and in JUnit, and "Run against samples" as a language service (no LSP)."""

from __future__ import annotations

import os
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vap_lsp.cli.main import main
from vap_lsp.features.run_samples import Source, run_against_samples, sample_paths, short_message
from vap_lsp.server.settings import parse_settings
from vap_lsp.testfiles.discover import read_suite
from vap_lsp.testfiles.runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "tests"

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: max-replicas}
    spec:
      failurePolicy: Fail
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
      validations:
        - expression: object.spec.replicas <= 3
          messageExpression: "'at most 3 replicas, not ' + string(object.spec.replicas)"
      auditAnnotations:
        - {key: replicas, valueExpression: "string(object.spec.replicas)"}
    ---
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata: {name: max-replicas}
    spec:
      policyName: max-replicas
      validationActions: [Deny, Audit]
    """
)


def _deployment(name: str, replicas: int) -> str:
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: shop}}\n"
        f"spec: {{replicas: {replicas}, selector: {{matchLabels: {{app: a}}}}, template: "
        f"{{metadata: {{labels: {{app: a}}}}, spec: {{containers: [{{name: c, image: 'nginx:1'}}]}}}}}}\n"
    )


def test_example_suite_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "junit.xml"
    assert main(["test", "-v", str(EXAMPLES), "--junit", str(junit)]) == 0
    out = capsys.readouterr().out
    assert out.count("PASS ") == 7 and out.rstrip().endswith("7 passed, 0 failed")
    root = ET.parse(junit).getroot()
    assert root.get("tests") == "7" and root.get("failures") == "0"


def test_failures_are_reported_with_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "max.vaptest.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: vap-lsp.io/v1alpha1
            kind: AdmissionTest
            policies: [policy.yaml]
            cases:
              - name: two replicas pass
                object:
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata: {name: a}
                  spec:
                    replicas: 2
                    selector: {matchLabels: {app: a}}
                    template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: 'x:1'}]}}
                expect: {decision: admit, auditAnnotations: {replicas: "2"}}
              - name: five replicas are denied with the message
                policy: max-replicas
                object:
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata: {name: b}
                  spec:
                    replicas: 5
                    selector: {matchLabels: {app: a}}
                    template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: 'x:1'}]}}
                expect: {decision: deny, messages: ["at most 3 replicas, not 5"], allowed: false}
              - name: wrong on purpose
                object:
                  apiVersion: apps/v1
                  kind: Deployment
                  metadata: {name: c}
                  spec:
                    replicas: 9
                    selector: {matchLabels: {app: a}}
                    template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: 'x:1'}]}}
                expect: admit
            """
        )
    )
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()
    assert main(["test", str(tmp_path), "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL wrong on purpose ({tmp_path / 'max.vaptest.yaml'}:26)" in out
    assert "expected admit, got deny" in out
    assert out.rstrip().endswith("2 passed, 1 failed")
    failures = ET.parse(junit).getroot().findall(".//failure")
    assert len(failures) == 1 and "expected admit, got deny" in (failures[0].get("message") or "")


def test_run_against_samples_service(tmp_path: Path) -> None:
    policy = Source("file:///ws/policy.yaml", "/ws/policy.yaml", POLICY, 3)
    big = Source("file:///ws/big.yaml", "/ws/big.yaml", _deployment("big", 7))
    small = Source("file:///ws/small.yaml", "/ws/small.yaml", _deployment("small", 1))
    config = Source(
        "file:///ws/cm.yaml", "/ws/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    )
    outcome = run_against_samples(policy.uri, "max-replicas", [policy, big, small, config], [], "1.34")
    assert outcome.summary == "max-replicas: 1 denied, 1 admitted"
    (denied,) = outcome.diagnostics[big.uri]
    assert denied.message == "denied by max-replicas: at most 3 replicas, not 7"
    assert big.text[denied.span.start : denied.span.end] == "apiVersion"
    assert [d.code for d in outcome.diagnostics[small.uri]] == ["admitted"]
    assert config.uri not in outcome.diagnostics
    (failing,) = outcome.diagnostics[policy.uri]
    assert POLICY[failing.span.start : failing.span.end] == "object.spec.replicas <= 3"
    assert failing.field == "spec.validations[0].expression"
    assert "## Deployment shop/big: denied" in outcome.report
    assert "audit annotation max-replicas/replicas: 7" in outcome.report


def test_run_against_samples_uses_setting_files_and_test_files(tmp_path: Path) -> None:
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\n"
        "spec: {containers: [{name: c, image: 'nginx:1'}]}\n"
    )
    (tmp_path / "samples" / "big.yaml").write_text(_deployment("big", 8))
    paths = sample_paths(["samples/*.yaml"], [str(tmp_path)], [])
    assert [p.name for p in paths] == ["big.yaml", "pod.yaml"]
    extras = [Source(p.as_uri(), str(p), p.read_text()) for p in paths]
    test_text = (
        "apiVersion: vap-lsp.io/v1alpha1\nkind: AdmissionTest\npolicies: [policy.yaml]\ncases:\n"
        "- name: ten replicas\n  object: {apiVersion: apps/v1, kind: Deployment, "
        "metadata: {name: t, namespace: shop}, spec: {replicas: 10, selector: {matchLabels: {app: a}}, "
        "template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: 'x:1'}]}}}}\n"
        "  expect: admit\n"
    )
    (tmp_path / "policy.yaml").write_text(POLICY)
    policy = Source((tmp_path / "policy.yaml").as_uri(), str(tmp_path / "policy.yaml"), POLICY)
    test = Source((tmp_path / "t.vaptest.yaml").as_uri(), str(tmp_path / "t.vaptest.yaml"), test_text)
    outcome = run_against_samples(policy.uri, "max-replicas", [policy, test], extras, "1.34")
    assert [d.code for d in outcome.diagnostics[extras[0].uri]] == ["denied"]
    assert extras[1].uri not in outcome.diagnostics  # a Pod: not matched, in the report only
    (failed,) = outcome.diagnostics[test.uri]
    assert failed.code == "test-failed" and "expected admit, got deny" in failed.message
    assert test_text[failed.span.start : failed.span.end] == "- name: ten replicas"
    assert "tests: 0 passed, 1 failed" in outcome.summary


def test_unknown_policy_and_synthesized_binding() -> None:
    only_policy = POLICY.split("---")[0]
    policy = Source("file:///ws/p.yaml", "/ws/p.yaml", only_policy)
    sample = Source("file:///ws/d.yaml", "/ws/d.yaml", _deployment("d", 5))
    outcome = run_against_samples(policy.uri, "max-replicas", [policy, sample], [], "1.34")
    assert "synthesized binding" in outcome.report
    assert [d.code for d in outcome.diagnostics[sample.uri]] == ["denied"]
    missing = run_against_samples(policy.uri, "nope", [policy], [], "1.34")
    assert missing.diagnostics == {} and "no policy named nope" in missing.summary


def test_short_message_and_samples_setting() -> None:
    text = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no"
    assert short_message(text) == "no"
    settings, problems = parse_settings({"vapLsp": {"samples": ["a/*.yaml", "b.yaml"]}})
    assert settings.samples == ("a/*.yaml", "b.yaml") and problems == []
    kept, problems = parse_settings({"vapLsp": {"samples": "a"}}, settings)
    assert kept.samples == settings.samples and problems == [
        "vapLsp.samples: expected a list of globs or paths"
    ]


def test_run_suite_filters_by_policy() -> None:
    suite = read_suite(EXAMPLES / "require-team-label.vaptest.yaml")
    assert suite is not None
    assert len(run_suite(suite, policy="add-default-label")) == 1


def test_kaptest_mutating_suite_with_expect_object(tmp_path: Path) -> None:
    (tmp_path / "map.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: admissionregistration.k8s.io/v1
            kind: MutatingAdmissionPolicy
            metadata: {name: add-owner}
            spec:
              matchConstraints:
                resourceRules:
                  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
              matchConditions:
                - {name: not-skipped, expression: "!('skip' in object.metadata.?labels.orValue({}))"}
              mutations:
                - patchType: ApplyConfiguration
                  applyConfiguration:
                    expression: 'Object{metadata: Object.metadata{labels: {"owner": "platform"}}}'
            """
        )
    )
    (tmp_path / "map.test").mkdir()
    (tmp_path / "map.test" / "resources.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: skipped, labels: {skip: 'yes'}}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: expected, labels: {owner: platform}}\n"
    )
    (tmp_path / "map.test" / "kaptest.yaml").write_text(
        "version: v1alpha1\npolicies: [../map.yaml]\nresources: [resources.yaml]\nmapTestSuites:\n"
        "- policy: add-owner\n  tests:\n"
        "  - object: {kind: ConfigMap, name: plain}\n    expect: mutate\n"
        "    expectObject: {kind: ConfigMap, name: expected}\n"
        "  - object: {kind: ConfigMap, name: skipped}\n    expect: skip\n"
    )
    suite = read_suite(tmp_path / "map.test" / "kaptest.yaml")
    assert suite is not None and suite.problems == []
    results = run_suite(suite, "1.36")
    assert [(r.actual, r.passed, r.failures) for r in results] == [("mutate", True, []), ("skip", True, [])]


def test_sample_globs_do_not_follow_symlinked_folders(tmp_path: Path) -> None:
    """`vapLsp.samples: ['**/*.yaml']` over a tree with two links back to its root (as in the
    issue's hostile workspace): each file once, no loop; a FIFO named *.yaml is reported, never
    listed (reading it would block)."""
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "pod.yaml").write_text("kind: Pod\n")
    (tmp_path / "vendor").mkdir()
    os.symlink("..", tmp_path / "vendor" / "a")
    os.symlink("..", tmp_path / "vendor" / "b")
    os.symlink("..", tmp_path / "samples" / "up")
    os.mkfifo(tmp_path / "fifo.yaml")
    errors: list[str] = []
    found = sample_paths(["**/*.yaml", "samples"], [str(tmp_path)], errors)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["samples/pod.yaml"]
    assert errors == [f"{tmp_path / 'fifo.yaml'}: skipped, a named pipe (FIFO) is not a regular file"]
