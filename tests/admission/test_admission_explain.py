"""`admit(..., explain=True)` and `vap_lsp.admission.explain`: why each policy decided as it did.

The verdicts are the engine's (the same with and without explain); the explanation names the
failing element of a comprehension by index, path and value, lists every failing validation,
says which message the server uses and why (validator.go's messageExpression fallback), marks
unread variables and records each mutation's patch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, prepare
from vap_lsp.admission.explain import EvaluationExplanation, explain_result, render_text
from vap_lsp.cli.main import main
from vap_lsp.defaulting import default_object

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {
        "containers": [
            {"name": "app", "image": "registry.example.com/web:2.1"},
            {
                "name": "debug",
                "image": "docker.io/library/busybox:1.36",
                "securityContext": {"privileged": True},
            },
        ]
    },
}

POLICY = """
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: images}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  variables:
  - name: containers
    expression: "object.spec.containers"
  - name: never
    expression: "object.spec.containers.size()"
  validations:
  - expression: "variables.containers.all(c, c.image.startsWith('registry.example.com/'))"
    messageExpression: >-
      'untrusted: ' + variables.containers.filter(c, !c.image.startsWith('registry.example.com/'))
      .map(c, c.name).join(', ')
  - expression: "!object.spec.containers.exists(c, c.name == 'debug')"
    messageExpression: "string(object.spec.missing)"
    message: "no debug containers"
  - expression: >-
      object.spec.containers.filter(c, has(c.securityContext) && c.securityContext.privileged).size() == 0
    reason: Forbidden
  - expression: "object.metadata.name.size() > 0"
    messageExpression: "'never shown'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: images-binding}
spec:
  policyName: images
  validationActions: [Deny]
"""


def _explained(docs: str, obj: dict[str, Any] = POD) -> tuple[Any, list[EvaluationExplanation]]:
    prepared = prepare(
        PolicyInputs.from_objects([d for d in yaml.safe_load_all(docs) if d]), kubernetes_version="1.34"
    )
    request = AdmissionRequestInput("CREATE", obj)
    plain = prepared.admit(request)
    result = prepared.admit(request, explain=True)
    assert result.to_json() == plain.to_json()  # explaining never changes a verdict
    return result, explain_result(result, prepared, request)


def test_all_names_the_failing_element_by_index_path_and_value() -> None:
    result, [ex] = _explained(POLICY)
    v0 = ex.validations[0]
    assert v0.outcome == "fail" and v0.expression is not None
    [failure] = v0.expression.failures
    [witness] = failure.via
    assert (witness.macro, witness.key, witness.path) == ("all", 1, "object.spec.containers[1]")
    # the container as validating admission saw it: defaulted, with the service account token
    # the ServiceAccount admission plugin mounted
    container = result.evaluated["spec"]["containers"][1]
    assert witness.value == container
    assert {k: v for k, v in container.items() if k != "volumeMounts"} == (
        default_object(POD, "1.35").object["spec"]["containers"][1]
    )
    assert [m["mountPath"] for m in container["volumeMounts"]] == [
        "/var/run/secrets/kubernetes.io/serviceaccount"
    ]
    assert failure.text == "c.image.startsWith('registry.example.com/')" and failure.value is False
    image = failure.operands[0]
    assert (image.text, image.path, image.value) == (
        "c.image",
        "object.spec.containers[1].image",
        "docker.io/library/busybox:1.36",
    )
    assert (v0.message_source, v0.message) == ("messageExpression", "untrusted: debug")


def test_exists_and_filter_size_name_their_elements() -> None:
    _, [ex] = _explained(POLICY)
    exists = ex.validations[1].expression
    assert exists is not None
    [negated] = exists.failures
    assert [(w.macro, w.path) for w in negated.witnesses] == [("exists", "object.spec.containers[1]")]
    size = ex.validations[2].expression
    assert size is not None
    [compared] = size.failures
    assert compared.operands[0].value == 1
    assert [(w.macro, w.key, w.path) for w in compared.witnesses] == [
        ("filter", 1, "object.spec.containers[1]")
    ]


def test_every_failing_validation_is_listed_with_the_message_the_server_uses() -> None:
    result, [ex] = _explained(POLICY)
    assert [v.outcome for v in ex.validations] == ["fail", "fail", "fail", "pass"]
    assert len(result.denials) == 3
    v1 = ex.validations[1]
    # validator.go: a failing messageExpression falls back to `message`.
    assert v1.message_expression is not None and v1.message_expression.error is not None
    assert v1.fallback_reason is not None and "no such key: missing" in v1.fallback_reason
    assert (v1.message_source, v1.message) == ("message", "no debug containers")
    v2 = ex.validations[2]
    assert (v2.message_source, v2.message, v2.reason) == (
        "expression",
        "failed expression: object.spec.containers.filter(c, has(c.securityContext) && "
        "c.securityContext.privileged).size() == 0",
        "Forbidden",
    )


def test_message_expression_of_a_passing_validation_is_not_reported() -> None:
    result, _ = _explained(POLICY)
    fields = [x.field for ev in result.evaluations for x in ev.expressions]
    assert "spec.validations[0].messageExpression" in fields
    assert "spec.validations[3].messageExpression" not in fields


def test_unread_variables_and_scope() -> None:
    _, [ex] = _explained(POLICY)
    assert [(name, e is not None) for name, e in ex.variables] == [("containers", True), ("never", False)]
    assert ("binding.validationActions", "Deny") in ex.scope
    assert ex.scope[0][0] == "matchConstraints.resourceRules[0]"
    assert ex.cost > 0


def test_an_expression_cost_is_its_own_and_the_variables_it_evaluated() -> None:
    """composition.go: a variable is a program of its own, charged to the call that reads it but
    no part of the reading expression's cost (the per-call limit applies to each alone)."""
    _, explained = _explained(POLICY)
    x = explained[0].validations[0].expression
    assert x is not None
    # variables.containers (2), two iterations of 8 (cond 2, @result, c.image 2, startsWith 3), the
    # result (1); `object.spec.containers` (3) evaluated for it
    assert (x.cost, x.variables_cost) == (19 + 3, 3)
    assert x.to_json()["cost"] == 22 and x.to_json()["variablesCost"] == 3
    lines = render_text(explained)
    assert any(line.endswith("fail: false   [cost 22: 19 + 3 for variables]") for line in lines), lines
    assert any(line.endswith("[cost 3]") and "variables.containers" in line for line in lines), lines


def test_short_circuited_operands_are_marked() -> None:
    docs = POLICY.replace(
        '  - expression: "object.metadata.name.size() > 0"',
        "  - expression: \"object.metadata.name == 'x' && object.spec.containers.size() == 1\"",
    )
    _, [ex] = _explained(docs)
    e = ex.validations[3].expression
    assert e is not None and e.skipped == ["object.spec.containers.size() == 1"]
    assert [f.text for f in e.failures] == ["object.metadata.name == 'x'"]


def test_error_is_traced_to_the_operand_it_came_from() -> None:
    docs = POLICY.replace(
        "object.metadata.name.size() > 0", "object.spec.containers.all(c, c.ports.size() > 0)"
    )
    _, [ex] = _explained(docs)
    v3 = ex.validations[3]
    assert v3.outcome == "error" and v3.expression is not None
    [failure] = v3.expression.failures
    assert failure.text == "c.ports" and failure.error == "no such key: ports"
    assert failure.via[0].path == "object.spec.containers[0]"


MAP = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: add-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{metadata: Object.metadata{labels: {'owner': 'platform'}}}"
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: add-label-binding}
spec:
  policyName: add-label
"""


def test_mutations_carry_their_patch_and_the_object_after() -> None:
    _, [ex] = _explained(MAP)
    [(expr, step)] = ex.mutations
    assert expr is not None and expr.field == "spec.mutations[0].applyConfiguration.expression"
    assert step["patch"] == {"metadata": {"labels": {"owner": "platform"}}}
    assert step["changed"] is True and step["round"] == 0
    assert step["object"]["metadata"]["labels"] == {"app": "web", "owner": "platform"}


def test_run_explain_keeps_the_exit_code_and_prints_the_element(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "policy.yaml").write_text(POLICY)
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(POD))
    args = [str(tmp_path / "policy.yaml"), "--object", str(tmp_path / "pod.yaml")]
    assert main(["run", *args]) == 1
    plain = capsys.readouterr().out
    assert "spec.validations[3].messageExpression" not in plain
    assert main(["run", *args, "--explain"]) == 1
    text = capsys.readouterr().out
    assert "all() element object.spec.containers[1] = " in text
    assert 'object.spec.containers[1].image = "docker.io/library/busybox:1.36"   (c.image)' in text
    assert "variables.never: not read" in text
    assert text.splitlines()[-3:] == [line for line in plain.splitlines() if "=> denied" in line]
    assert main(["run", *args, "--explain", "--format", "json"]) == 1
    [out] = json.loads(capsys.readouterr().out)["results"]
    [ev] = out["explain"]
    assert ev["validations"][0]["expression"]["failures"][0]["via"][0]["path"] == "object.spec.containers[1]"


ROOT = Path(__file__).resolve().parents[2]


def _readme_block(after: str) -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("```\n", text.index(after)) + 4
    return text[start : text.index("```\n", start)]


def test_readme_examples_are_what_the_commands_print(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    run = "vap-lsp run examples/valid/trusted-images.yaml --object examples/tests/pods.yaml --explain"
    main(run.split()[1:])
    shown = _readme_block(f"From `{run}`:")
    assert capsys.readouterr().out.startswith(shown)
    test = "vap-lsp test examples/tests/trusted-images.vaptest.yaml --coverage"
    assert main(test.split()[1:]) == 0
    assert capsys.readouterr().out.endswith(_readme_block(f"From `{test}`:"))
