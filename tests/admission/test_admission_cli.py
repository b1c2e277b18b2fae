"""`vap-lsp run`: text and JSON output, exit codes 0/1/2."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from vap_lsp.cli.run import add_parser


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vap-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["run", *argv])
    code: int = args.func(args)
    return code


POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: name-prefix}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"]}
  validations:
  - expression: "object.metadata.name.startsWith('ok-')"
    message: name must start with ok-
  - expression: "authorizer.group('').resource('secrets').check('get').allowed()"
    message: may not read secrets
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: name-prefix-b}
spec: {policyName: name-prefix, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: add-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: "[JSONPatch{op: 'add', path: '/metadata/labels', value: {'checked': 'yes'}}]"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-label-b}
spec: {policyName: add-label}
"""

RULES = """
- {user: alice, verbs: [get], apiGroups: [""], resources: [secrets]}
"""


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "p.yaml").write_text(POLICY)
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "ok.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: ok-1}\n"
        "spec: {containers: [{name: c, image: 'nginx:1'}]}\n"
    )
    (tmp_path / "two.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: ok-2}\n"
        "spec: {containers: [{name: c, image: 'nginx:1'}]}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\n"
        "spec: {containers: [{name: c, image: 'nginx:1'}]}\n"
    )
    return tmp_path


def _args(d: Path, *extra: str) -> list[str]:
    return [str(d / "policies"), "--authorizer-rules", str(d / "rules.yaml"), "--user", "alice", *extra]


def test_admitted_text(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(_args(workdir, "--object", str(workdir / "ok.yaml"))) == 0
    out = capsys.readouterr().out
    assert "v1 Pod default/ok-1" in out
    assert "name-prefix / binding name-prefix-b: matched" in out
    assert "spec.validations[0].expression: true" in out
    assert "+  labels:" in out
    assert "=> admitted" in out


def test_denied_json(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(_args(workdir, "--object", str(workdir / "two.yaml"), "--format", "json"))
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert [r["allowed"] for r in data["results"]] == [True, False]
    assert data["results"][1]["denials"] == [
        {
            "policy": "name-prefix",
            "binding": "name-prefix-b",
            "message": "ValidatingAdmissionPolicy 'name-prefix' with binding 'name-prefix-b' denied request: "
            "name must start with ok-",
            "reason": "Invalid",
            "code": 422,
        }
    ]
    assert data["results"][0]["patched"]["metadata"]["labels"] == {"checked": "yes"}


def test_authorizer_rules_decide(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([str(workdir / "policies"), "--object", str(workdir / "ok.yaml"), "--user", "bob"]) == 1
    assert "may not read secrets" in capsys.readouterr().out


def test_update_with_old_object(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(
        _args(workdir, "--object", str(workdir / "ok.yaml"), "--old-object", str(workdir / "ok.yaml"))
    )
    assert code == 0
    assert "mutated" not in capsys.readouterr().out  # the MAP matches CREATE only


def test_admission_review_input(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    review = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "1",
            "operation": "CREATE",
            "userInfo": {"username": "alice"},
            "object": {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "bad", "namespace": "x"},
                "spec": {"containers": [{"name": "c", "image": "nginx:1"}]},
            },
        },
    }
    (workdir / "review.json").write_text(json.dumps(review))
    assert _run([str(workdir / "policies"), "--object", str(workdir / "review.json")]) == 1
    assert "v1 Pod x/bad" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        ("- just a list\n", [], "is not a Kubernetes object"),
        ("a: [unclosed\n", [], "obj.yaml"),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n"
            "spec: {containers: [{name: c, image: 'nginx:1'}]}\n",
            ["--operation", "PATCH"],
            "unknown operation 'PATCH'",
        ),
        ("", [], "no object in the file"),
    ],
)
def test_bad_input_exit_2(
    workdir: Path, capsys: pytest.CaptureFixture[str], content: str, extra: list[str], message: str
) -> None:
    (workdir / "obj.yaml").write_text(content)
    assert _run([str(workdir / "policies"), "--object", str(workdir / "obj.yaml"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_missing_file_exit_2(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([str(workdir / "policies"), "--object", str(workdir / "missing.yaml")]) == 2
    assert "missing.yaml" in capsys.readouterr().err


def test_no_object_exit_2(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:  # a required option: argparse's usage error
        _run([str(workdir / "policies")])
    assert exited.value.code == 2
    assert "--object" in capsys.readouterr().err


def test_namespaces_under_admission_are_known_to_later_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled examples: a sample file creates a labelled Namespace and a Deployment in it;
    the binding's namespaceSelector sees the labels, as it would on a cluster."""
    root = Path(__file__).resolve().parents[2] / "examples"
    code = _run([str(root / "valid"), "--object", str(root / "tests" / "samples.yaml"), "--format", "json"])
    assert code == 1
    results = json.loads(capsys.readouterr().out)["results"]
    verdicts = {
        (r["object"]["namespace"], r["object"]["name"], r["object"]["kind"]): r["allowed"] for r in results
    }
    assert verdicts[("enforced", "no-team", "Deployment")] is False
    assert verdicts[("relaxed", "no-team", "Deployment")] is True
    assert verdicts[("enforced", "with-team", "Deployment")] is True


# A library of policies, most of which do not concern a Pod: the verdict must not be buried.
LIBRARY = "".join(
    f"""---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: ["{group}"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["{resource}"]}}
  validations:
  - expression: "object.metadata.name != 'forbidden'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {name}-b}}
spec: {{policyName: {name}, validationActions: [Deny]{selector}}}
"""
    for name, group, resource, selector in [
        ("pods-named", "", "pods", ""),
        ("pods-in-prod", "", "pods", ", matchResources: {namespaceSelector: {matchLabels: {env: prod}}}"),
        ("deployments", "apps", "deployments", ""),
        ("services", "", "services", ""),
        ("configmaps", "", "configmaps", ""),
    ]
)


def test_run_shows_what_matched_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "library.yaml").write_text(LIBRARY)
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: forbidden, namespace: dev}\n"
        "spec: {containers: [{name: c, image: 'nginx:1'}]}\n"
    )
    argv = [str(tmp_path / "library.yaml"), "--object", str(tmp_path / "pod.yaml")]
    assert _run(argv) == 1
    assert capsys.readouterr().out == (
        "v1 Pod dev/forbidden\n"
        "  pods-named / binding pods-named-b: matched\n"
        "    spec.validations[0].expression: false\n"
        "  not matched: 3 policies, 1 binding (--verbose says why)\n"
        "  => denied (Invalid, 422): ValidatingAdmissionPolicy 'pods-named' with binding 'pods-named-b' "
        "denied request: failed expression: object.metadata.name != 'forbidden'\n"
    )
    assert _run([*argv, "--verbose"]) == 1
    listed = capsys.readouterr().out.splitlines()
    assert (
        "  pods-in-prod / binding pods-in-prod-b: not matched (binding matchResources: namespaceSelector "
        "does not match)" in listed
    )
    assert "  services: not matched (matchConstraints: no resourceRule matches CREATE v1/pods)" in listed
    assert not any(line.startswith("  not matched:") for line in listed)
    # --explain follows the same rule; JSON, read by tools, lists every evaluation.
    assert _run([*argv, "--explain"]) == 1
    explained = capsys.readouterr().out
    assert "services" not in explained and "  not matched: 3 policies, 1 binding" in explained
    assert _run([*argv, "--format", "json"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert len(result["evaluations"]) == 5
