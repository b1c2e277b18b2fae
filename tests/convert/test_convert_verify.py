# ruff: noqa: E501  (input YAML and expected CEL read best unbroken)
"""`--verify`: a source's own tests replayed through the converted policies. Gatekeeper suites as
gator reads them (open-policy-agent/gatekeeper `pkg/gator/verify`: `runner.go` — one object per
case, an AdmissionReview as its request; `assertion.go` — `violations` yes, no or a number of the
violations whose message matches `message`, a Go regular expression); Kyverno tests as the CLI
does (pass, fail, skip). A violation is what the binding's actions make visible: a denial, a
warning, an audit annotation."""

from __future__ import annotations

import textwrap
from pathlib import Path

from vap_lsp.convert.driver import convert_paths
from vap_lsp.convert.model import Options
from vap_lsp.convert.verify import AGREE, DISAGREE, NOT_EVALUABLE, verify

OPTIONS = Options("1.36")

TEMPLATE = """\
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8snolatest}
spec:
  crd:
    spec:
      names: {kind: K8sNoLatest}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source:
            validations:
              - expression: >-
                  request.operation == "UPDATE" ||
                  variables.anyObject.spec.containers.all(c, !c.image.endsWith(':latest'))
                messageExpression: "'latest image in ' + variables.anyObject.metadata.name"
              - expression: "variables.anyObject.spec.containers.size() < 3"
                message: too many containers
"""

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers:
{containers}
"""


def _pod(name: str, *images: str) -> str:
    return POD.format(
        name=name,
        containers="".join(f"    - {{name: c{i}, image: '{img}'}}\n" for i, img in enumerate(images)),
    )


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")


def _constraint(action: str) -> str:
    return f"""\
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sNoLatest
metadata: {{name: no-latest-{action}}}
spec:
  enforcementAction: {action}
  match:
    kinds: [{{apiGroups: [""], kinds: [Pod]}}]
"""


def _suite(tmp_path: Path, action: str = "deny") -> Path:
    _write(
        tmp_path,
        {
            "template.yaml": TEMPLATE,
            "constraint.yaml": _constraint(action),
            "allowed.yaml": _pod("ok", "nginx:1.27"),
            "latest.yaml": _pod("bad", "nginx:latest"),
            "both.yaml": _pod("worse", "a:latest", "b", "c"),
            "update.yaml": """\
                kind: AdmissionReview
                apiVersion: admission.k8s.io/v1beta1
                request:
                  operation: UPDATE
                  object: {apiVersion: v1, kind: Pod, metadata: {name: up}, spec: {containers: [{name: a, image: 'x:latest'}]}}
                """,
            "suite.yaml": """\
                kind: Suite
                apiVersion: test.gatekeeper.sh/v1alpha1
                tests:
                  - name: no-latest
                    template: template.yaml
                    constraint: constraint.yaml
                    cases:
                      - {name: allowed, object: allowed.yaml, assertions: [{violations: no}]}
                      - {name: latest, object: latest.yaml, assertions: [{violations: yes}]}
                      - name: two
                        object: both.yaml
                        assertions:
                          - violations: 2
                          - {violations: 1, message: "^latest image in worse$"}
                          - {violations: 0, message: nothing}
                      - {name: update, object: update.yaml, assertions: [{violations: no}]}
                      - {name: wrong, object: allowed.yaml, assertions: [{violations: yes}]}
                  - name: bad-constraint
                    template: template.yaml
                    constraint: constraint.yaml
                    invalid: true
                    cases:
                      - {name: any, object: allowed.yaml, assertions: [{violations: no}]}
                """,
        },
    )
    return tmp_path


def test_a_gatekeeper_suite(tmp_path: Path) -> None:
    folder = _suite(tmp_path)
    run = convert_paths([folder], OPTIONS, check=False)
    verification = verify([folder], run.conversions, OPTIONS, explain=True)
    by_name = {c.name: c for c in verification.cases}
    assert {n: c.status for n, c in by_name.items()} == {
        "no-latest / allowed": AGREE,
        "no-latest / latest": AGREE,
        "no-latest / two": AGREE,
        "no-latest / update": AGREE,
        "no-latest / wrong": DISAGREE,
        "bad-constraint / any": NOT_EVALUABLE,
    }
    assert by_name["no-latest / two"].actual == "2 violation(s): latest image in worse; too many containers"
    assert by_name["no-latest / update"].reason == (
        "an UPDATE without oldObject: replayed with the object as its old version"
    )
    wrong = by_name["no-latest / wrong"]
    assert (wrong.expected, wrong.actual, wrong.line) == ("violations: yes", "0 violation(s)", 17)
    # --explain: the evaluation, as `vap-lsp run --explain` shows it.
    assert wrong.explanation[0].startswith(
        "  gatekeeper-k8snolatest / binding gatekeeper-k8snolatest-no-latest-deny"
    )
    assert any("validations[0] pass" in line for line in wrong.explanation)


def test_warnings_and_audit_annotations_are_the_violations_of_warn_and_dryrun(tmp_path: Path) -> None:
    for action in ("warn", "dryrun"):
        folder = _suite(tmp_path / action, action)
        run = convert_paths([folder], OPTIONS, check=False)
        cases = verify([folder], run.conversions, OPTIONS).cases
        assert [c.status for c in cases if c.name != "bad-constraint / any"] == [AGREE] * 4 + [DISAGREE], (
            action
        )


KYVERNO_POLICY = """\
apiVersion: policies.kyverno.io/v1alpha1
kind: ValidatingPolicy
metadata: {name: no-latest}
spec:
  validationActions: [Audit]
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  matchConditions:
    - {name: not-on-update, expression: "request.operation != 'UPDATE'"}
  validations:
    - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))"
      message: no latest
---
apiVersion: policies.kyverno.io/v1alpha1
kind: ValidatingPolicy
metadata: {name: lookup}
spec:
  matchConstraints:
    resourceRules:
      - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
    - expression: "resource.Get('v1', 'configmaps', 'default', 'x').data.ok == 'true'"
"""


def test_a_kyverno_test(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "policy.yaml": KYVERNO_POLICY,
            ".kyverno-test/resources.yaml": _pod("good", "nginx:1")
            + "---\n"
            + _pod("bad", "nginx:latest")
            + "---\n"
            + _pod("later", "nginx:latest"),
            ".kyverno-test/values.yaml": """\
                apiVersion: cli.kyverno.io/v1alpha1
                kind: Values
                policies:
                  - name: no-latest
                    resources:
                      - name: later
                        values: {request.operation: UPDATE}
                """,
            ".kyverno-test/kyverno-test.yaml": """\
                apiVersion: cli.kyverno.io/v1alpha1
                kind: Test
                metadata: {name: t}
                policies: [../policy.yaml]
                resources: [resources.yaml]
                variables: values.yaml
                results:
                  - {isValidatingPolicy: true, policy: no-latest, kind: Pod, resources: [good], result: pass}
                  - {isValidatingPolicy: true, policy: no-latest, kind: Pod, resources: [bad], result: fail}
                  - {isValidatingPolicy: true, policy: no-latest, kind: Pod, resources: [later], result: skip}
                  - {isValidatingPolicy: true, policy: no-latest, kind: Pod, resources: [good], result: fail}
                  - {isValidatingPolicy: true, policy: no-latest, kind: Pod, resources: [gone], result: pass}
                  - {isValidatingPolicy: true, policy: lookup, kind: Pod, resources: [good], result: pass}
                """,
        },
    )
    run = convert_paths([tmp_path], OPTIONS, check=False)
    verification = verify([tmp_path], run.conversions, OPTIONS)
    assert [(c.name, c.expected, c.actual, c.status) for c in verification.cases] == [
        ("Pod good", "pass", "pass", AGREE),
        ("Pod bad", "fail", "fail", AGREE),
        ("Pod later", "skip", "skip", AGREE),  # an UPDATE: the match condition leaves it
        ("Pod good", "fail", "pass", DISAGREE),
        ("Pod gone", "pass", None, NOT_EVALUABLE),
        ("Pod good", "pass", None, NOT_EVALUABLE),
    ]
    assert verification.cases[-1].reason.startswith("not converted: resource.Get/List")
