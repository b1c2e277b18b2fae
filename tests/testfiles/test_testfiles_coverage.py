"""`vap-lsp test --coverage / --coverage-lcov / --coverage-xml / --explain / --format json`.

Coverage counts, per policy, how often each expression ran and with which outcomes, and which
outcomes each branch (`&&`, `||`, `?:` conditions, comprehension predicates) took, for the
three test-file formats; lines are the policy file's YAML lines.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vap_lsp.cli.main import main

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: images}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
    - expression: "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"
    - expression: >-
        !object.spec.containers.exists(c,
        c.image.endsWith(':latest'))
  auditAnnotations:
    - key: count
      valueExpression: "object.spec.containers.size() > 1 ? 'many' : 'one'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: images-binding}
spec:
  policyName: images
  validationActions: [Deny]
"""

PODS = """\
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: default}
spec:
  containers:
    - {name: app, image: registry.example.com/app:1}
    - {name: debug, image: docker.io/library/busybox:1.36}
---
apiVersion: v1
kind: Pod
metadata: {name: good, namespace: default}
spec:
  containers:
    - {name: app, image: registry.example.com/app:1}
"""

NATIVE = """\
apiVersion: vap-lsp.io/v1alpha1
kind: AdmissionTest
metadata: {name: images}
policies: [policy.yaml]
resources: [pods.yaml]
cases:
  - name: bad is denied
    object: {kind: Pod, name: bad, namespace: default}
    expect: deny
  - name: good is admitted
    object: {kind: Pod, name: good, namespace: default}
    expect: admit
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "pods.yaml").write_text(PODS)
    (tmp_path / "images.vaptest.yaml").write_text(NATIVE)
    return tmp_path


def test_coverage_table_names_outcomes_branches_and_the_validation_that_never_fails(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["test", str(suite / "images.vaptest.yaml"), "--coverage"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("coverage of images") :].splitlines()
    assert table[0] == f"coverage of images ({suite / 'policy.yaml'})"
    rows = {line.split()[0]: line.split()[1:] for line in table[2:] if line.startswith("  spec.")}
    # runs, true, false, error, value, branches
    assert rows["spec.validations[0].expression"] == ["2", "1", "1", "0", "0", "2/2"]
    assert rows["spec.validations[1].expression"] == ["2", "2", "0", "0", "0", "1/2"]
    assert rows["spec.auditAnnotations[0].valueExpression"] == ["2", "0", "0", "0", "2", "2/2"]
    assert "    never true: c.image.endsWith(':latest')" in table
    assert "  no test makes spec.validations[1] fail" in table
    assert "  expressions evaluated: 3/3, branches: 5/6 (83%)" in table


def test_lcov_lines_are_the_yaml_lines_of_expressions_and_branches(suite: Path) -> None:
    lcov = suite / "out.lcov"
    xml = suite / "out.xml"
    args = ["test", str(suite / "images.vaptest.yaml"), "--coverage-lcov", str(lcov)]
    assert main([*args, "--coverage-xml", str(xml)]) == 0
    records = lcov.read_text().splitlines()
    assert records[:2] == ["TN:vap-lsp", f"SF:{suite / 'policy.yaml'}"]
    assert [r for r in records if r.startswith("DA:")] == ["DA:9,2", "DA:11,2", "DA:15,2"]
    # The exists() predicate is written on line 12 of the folded scalar: its branch is there.
    assert [r for r in records if r.startswith("BRDA:")] == [
        "BRDA:9,1,0,1",
        "BRDA:9,1,1,1",
        "BRDA:12,2,0,0",
        "BRDA:12,2,1,1",
        "BRDA:15,3,0,1",
        "BRDA:15,3,1,1",
    ]
    assert records[-5:] == ["BRF:6", "BRH:5", "LF:3", "LH:3", "end_of_record"]
    root = ET.fromstring(xml.read_text())
    assert root.get("branches-valid") == "6" and root.get("branches-covered") == "5"
    lines = root.findall(".//class[@name='images']/lines/line")
    assert [(x.get("number"), x.get("hits"), x.get("condition-coverage")) for x in lines] == [
        ("9", "2", "100% (2/2)"),
        ("11", "2", "50% (1/2)"),
        ("15", "2", "100% (2/2)"),
    ]


def test_coverage_of_kaptest_and_kyverno_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "pods.yaml").write_text(PODS)
    (tmp_path / "kaptest.yaml").write_text(
        "policies: [policy.yaml]\nresources: [pods.yaml]\nvapTestSuites:\n- policy: images\n  tests:\n"
        "  - object: {kind: Pod, name: bad, namespace: default}\n    expect: deny\n"
    )
    (tmp_path / "kyverno-test.yaml").write_text(
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [policy.yaml]\n"
        "resources: [pods.yaml]\nresults:\n"
        "- {isValidatingAdmissionPolicy: true, kind: Pod, policy: images, resources: [good], result: pass}\n"
    )
    for name, row in (
        ("kaptest.yaml", ["1", "0", "1", "0", "0", "2/2"]),
        ("kyverno-test.yaml", ["1", "1", "0", "0", "0", "1/2"]),
    ):
        assert main(["test", str(tmp_path / name), "--coverage"]) == 0, name
        out = capsys.readouterr().out
        rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("  spec.")}
        assert rows["spec.validations[0].expression"] == row, name


def test_explain_and_json(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["test", str(suite / "images.vaptest.yaml"), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "  PASS bad is denied" in out and "  PASS good is admitted" in out
    assert "all() element object.spec.containers[1] = " in out
    assert 'object.spec.containers[1].image = "docker.io/library/busybox:1.36"   (c.image)' in out
    args = ["test", str(suite / "images.vaptest.yaml"), "--explain", "--coverage", "--format", "json"]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    bad = report["suites"][0]["cases"][0]
    [ev] = bad["explain"]
    failure = ev["validations"][0]["expression"]["failures"][0]
    assert failure["via"][0]["path"] == "object.spec.containers[1]"
    [cov] = report["coverage"]
    assert cov["policy"] == "images" and cov["neverFailing"] == ["spec.validations[1].expression"]
    assert report["summary"] == {"passed": 2, "failed": 0, "expectedDifferences": 0}
