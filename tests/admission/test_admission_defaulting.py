"""Admission evaluates objects as the API server has them when each phase runs: decoded and
defaulted (`vap_lsp.defaulting`), with what the registry fills in before validating admission,
and never an object its built-in validation rejects."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit
from vap_lsp.cli.run import add_parser
from vap_lsp.defaulting import default_object

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"]


def policy(expression: str, resource: str = "pods", group: str = "", version: str = "v1") -> str:
    return f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["{group}"]
      apiVersions: ["{version}"]
      operations: ["CREATE", "UPDATE"]
      resources: ["{resource}"]
  validations:
  - expression: "{expression}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""


POD = """
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers:
  - name: app
    image: registry.example.com/web:2.1
"""


def run(policies: str, obj: str, version: str = "1.35", **kw: Any) -> Any:
    inputs = PolicyInputs.from_objects([d for d in yaml.safe_load_all(policies) if d])
    return admit(
        AdmissionRequestInput("CREATE", yaml.safe_load(obj), **kw), inputs, kubernetes_version=version
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_the_issue_example_passes_with_the_defaulted_pull_policy(version: str) -> None:
    """The issue's example: a tagged image without imagePullPolicy is IfNotPresent at admission."""
    result = run(policy("object.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')"), POD, version)
    assert result.allowed, result.denials
    assert result.evaluations[0].expressions[0].result is True


def test_a_sample_written_already_defaulted_gets_the_same_verdict() -> None:
    checks = [
        "object.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')",
        "object.spec.securityContext.runAsNonRoot == true",
        "has(object.spec.enableServiceLinks) && object.spec.dnsPolicy == 'ClusterFirst'",
    ]
    written = yaml.safe_load(POD)
    already = default_object(written, "1.35").object
    for expression in checks:
        a = run(policy(expression), yaml.safe_dump(written))
        b = run(policy(expression), yaml.safe_dump(already))
        assert (a.allowed, [d.message for d in a.denials]) == (b.allowed, [d.message for d in b.denials])
        assert [x.result for e in a.evaluations for x in e.expressions] == [
            x.result for e in b.evaluations for x in e.expressions
        ]


def test_deployment_replicas_are_defaulted_before_validation() -> None:
    deployment = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: shop}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: c, image: "nginx:1"}]}
"""
    result = run(policy("object.spec.replicas <= 3", "deployments", "apps"), deployment)
    assert result.allowed and result.evaluations[0].expressions[0].result is True
    assert result.evaluated is not None and result.evaluated["spec"]["strategy"]["type"] == "RollingUpdate"


def test_server_fills_in_metadata_before_validating_admission() -> None:
    """rest.BeforeCreate / store.go: uid, creationTimestamp, the name from generateName; a Pod's
    status is Pending (pod strategy PrepareForCreate)."""
    pod = POD.replace("{name: web, namespace: shop}", "{generateName: web-, namespace: shop}")
    result = run(policy("object.metadata.name.startsWith('web-') && has(object.metadata.uid)"), pod)
    assert result.allowed, result.denials
    meta = result.evaluated["metadata"]
    assert len(meta["name"]) == len("web-") + 5 and meta["creationTimestamp"].endswith("Z")
    assert result.evaluated["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    # the result names the request as it was sent (no name); validating admission's own
    # attributes carry the generated one (test_a_generate_name_pod_reaches_validating_admission_named)
    assert result.object["name"] is None


def test_mutating_policies_see_no_uid_yet() -> None:
    """Mutating admission runs before Store.Create fills uid and creationTimestamp in."""
    map_ = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {'had-uid': string(has(object.metadata.uid))}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    result = run(map_, POD)
    assert result.patched is not None
    assert result.patched["metadata"]["labels"] == {"had-uid": "false"}
    assert "uid" in result.evaluated["metadata"]


GENERATED = POD.replace("{name: web, namespace: shop}", "{generateName: web-, namespace: shop}")


def test_a_generate_name_pod_reaches_validating_admission_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33: `kubectl create` of a Pod with only `generateName`. The registry names it before
    validating admission, whose attributes take that name "in case the generated name is
    populated" (`rest.AdmissionToValidateObjectFunc`, apiserver/pkg/registry/rest/create.go):
    `request.name` and `object.metadata.name` are set and equal. It was denied with `no such key`."""
    (tmp_path / "policy.yaml").write_text(
        policy("has(request.name) && request.name == object.metadata.name && request.name.startsWith('web-')")
    )
    (tmp_path / "pod.yaml").write_text(GENERATED)
    assert _cli([str(tmp_path / "policy.yaml"), "--object", str(tmp_path / "pod.yaml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("v1 Pod shop/web-") and "(generated)\n" in out.splitlines()[0] + "\n"
    assert out.endswith("  => admitted\n")


def test_mutating_admission_runs_before_the_name_is_generated() -> None:
    """A MutatingAdmissionPolicy runs on the request's attributes (create.go: the name from the
    URL or the object, empty here) before `Store.Create` generates the name: it sees neither
    `request.name` nor `object.metadata.name`; validating admission, after, sees both."""
    map_ = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{annotations: {'seen': string(has(object.metadata.name))
        + ',' + string(has(request.name))}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    check = "object.metadata.annotations['seen'] == 'false,false' && request.name == object.metadata.name"
    result = run(map_ + "---" + policy(check), GENERATED)
    assert result.allowed, result.denials
    assert result.patched is not None and "name" not in result.patched["metadata"]
    # A name the request gives is the same in both phases.
    named = run(map_ + "---" + policy("request.name == 'web'"), POD)
    assert named.allowed and named.patched["metadata"]["annotations"] == {"seen": "true,true"}


def test_a_pod_without_containers_is_rejected_by_the_server_not_the_policy() -> None:
    pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: empty, namespace: shop}\nspec: {}\n"
    result = run(policy("false"), pod)
    assert not result.allowed
    assert [d.message for d in result.denials] == ['Pod "empty" is invalid: spec.containers: Required value']
    assert result.evaluations == []  # validating admission never ran
    assert "rejected by the built-in validation before validating admission" in result.notes


def test_without_builtin_admission_an_incomplete_object_is_evaluated() -> None:
    inputs = PolicyInputs.from_objects([d for d in yaml.safe_load_all(policy("true")) if d])
    request = AdmissionRequestInput("CREATE", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}})
    result = admit(request, inputs, kubernetes_version="1.35", builtin_admission=False)
    assert result.allowed and result.evaluations[0].matched


def test_a_kind_without_schema_is_evaluated_as_written_with_a_note() -> None:
    widget = (
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {size: 3}\n"
    )
    result = run(policy("object.spec.size == 3", "widgets", "example.com"), widget)
    assert result.allowed and result.evaluations[0].expressions[0].result is True
    assert result.notes == ["no schema for example.com/v1 Widget: evaluated as written, without defaulting"]


CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 1}
              tier: {type: string, default: basic}
"""


def test_custom_resources_are_defaulted_from_their_crd() -> None:
    widget = (
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {unknown: x}\n"
    )
    expression = "object.spec.size == 1 && object.spec.tier == 'basic' && !has(object.spec.unknown)"
    result = run(policy(expression, "widgets", "example.com") + "---\n" + CRD, widget)
    assert result.allowed, result.evaluations
    assert result.notes == []
    assert result.evaluated["metadata"]["generation"] == 1


def test_params_are_read_as_stored_objects() -> None:
    """A param is a stored object: defaulted (a ConfigMap has nothing to default, a Service does)."""
    docs = policy("params.spec.type == 'ClusterIP'").replace(
        "spec:\n  matchConstraints:",
        "spec:\n  paramKind: {apiVersion: v1, kind: Service}\n  matchConstraints:",
    )
    docs = docs.replace(
        "spec: {policyName: p, validationActions: [Deny]}",
        "spec: {policyName: p, validationActions: [Deny], "
        "paramRef: {name: s, parameterNotFoundAction: Deny}}",
    )
    docs += "---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: shop}\n"
    docs += "spec: {ports: [{port: 80}]}\n"
    result = run(docs, POD)
    assert result.allowed, result.denials


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vap-lsp")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["run", *argv])
    code: int = args.func(args)
    return code


def test_run_json_show_defaulted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "policy.yaml").write_text(
        policy("object.spec.containers.all(c, c.imagePullPolicy == 'IfNotPresent')")
    )
    (tmp_path / "pod.yaml").write_text(POD)
    argv = [str(tmp_path / "policy.yaml"), "--object", str(tmp_path / "pod.yaml"), "--format", "json"]
    assert _cli([*argv, "--show-defaulted"]) == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    container = result["evaluatedObject"]["spec"]["containers"][0]
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["terminationMessagePath"] == "/dev/termination-log"
    assert _cli(argv) == 0
    assert "evaluatedObject" not in json.loads(capsys.readouterr().out)["results"][0]


@pytest.mark.parametrize(
    ("written", "registry_fields"),
    [
        (POD, True),
        # no schema: evaluated as written, and the registry's steps are not simulated
        ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n", False),
    ],
)
def test_the_callers_object_is_never_changed(written: str, registry_fields: bool) -> None:
    """Validating admission reads the engine's own decoded copy (no second copy of it): the
    registry's fields land on that copy, never on the request's object, defaulted or not."""
    obj = yaml.safe_load(written)
    before = json.loads(json.dumps(obj))
    inputs = PolicyInputs.from_objects([d for d in yaml.safe_load_all(policy("true")) if d])
    result = admit(AdmissionRequestInput("CREATE", obj), inputs, kubernetes_version="1.35")
    assert obj == before
    assert result.evaluated is not None and result.evaluated is not obj
    assert ("creationTimestamp" in result.evaluated["metadata"]) is registry_fields
    again = admit(AdmissionRequestInput("CREATE", obj), inputs, kubernetes_version="1.35")
    assert again.evaluated is not result.evaluated and obj == before


@pytest.mark.parametrize(("version", "generation"), [("1.32", None), ("1.33", 1), ("1.35", 1)])
def test_a_pods_generation_is_set_on_create_since_1_33(version: str, generation: int | None) -> None:
    """pkg/registry/core/pod/strategy.go PrepareForCreate: `pod.Generation = 1` (KEP-5067 Pod
    generation, ungated, 1.33); before 1.33 a Pod had no generation."""
    result = run(policy("true"), POD, version)
    assert result.evaluated["metadata"].get("generation") == generation


def test_a_pods_generation_is_bumped_when_its_spec_changes() -> None:
    """strategy.go updatePodGeneration: +1 when the spec changes; BeforeUpdate keeps the stored one."""
    old = yaml.safe_load(POD)
    old["metadata"]["generation"] = 4

    def update(obj: dict[str, Any], expected: int) -> Any:
        inputs = PolicyInputs.from_objects(
            [d for d in yaml.safe_load_all(policy(f"object.metadata.generation == {expected}")) if d]
        )
        request = AdmissionRequestInput("UPDATE", obj, old_object=old)
        return admit(request, inputs, kubernetes_version="1.35")

    changed = update(yaml.safe_load(POD.replace("web:2.1", "web:2.2")), 5)
    assert changed.allowed, changed.denials
    same = update(yaml.safe_load(POD), 4)
    assert same.allowed, same.denials
