"""Types through `variables`: the server's verdict stays exact, vap-lsp's own check sees through.

The API server reads object types as `dyn` through `variables` (composition.go), so
`variables.spec.replicaz` passes its compiler and its type checker. vap-lsp keeps each variable's
inferred type and reports what that finds as its own advisory check (`vap-lsp-type-check`,
a warning, labelled as vap-lsp's), with the variable's definition as related information.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text
from vap_lsp.analysis.model.context import policy_context
from vap_lsp.analysis.model.typing import untyped_resources
from vap_lsp.cli.main import main
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import to_python

DEPLOYMENTS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
  variables:
    - name: spec
      expression: object.spec
    - name: containers
      expression: object.spec.template.spec.containers + object.spec.template.spec.initContainers
    - name: replicas
      expression: variables.spec.replicas
  validations:
"""


def _check(validations: str, template: str = DEPLOYMENTS) -> tuple[str, list[Diagnostic]]:
    text = template + textwrap.indent(textwrap.dedent(validations), "    ")
    diagnostics = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    return text, [d for d in diagnostics if d.severity is not Severity.HINT]


def _at(text: str, d: Diagnostic) -> str:
    return text[d.span.start : d.span.end]


def test_undefined_field_through_a_variable_is_vap_lsps_warning_with_the_definition_related() -> None:
    text, diags = _check("- expression: variables.spec.replicaz > 1\n")
    (d,) = diags
    assert (d.severity, d.code) == (Severity.WARNING, "vap-lsp-type-check")
    assert d.message == (
        "spec.validations[0].expression: undefined field 'replicaz' (vap-lsp's own type check through "
        "`variables.spec`, typed from apps/v1, Kind=Deployment; the API server reads object types as "
        "dyn through variables and does not report this)"
    )
    assert _at(text, d) == ".replicaz"
    (related,) = d.related
    assert _at(text, related) == "object.spec"  # the definition of `spec`
    assert related.message == "`variables.spec` is defined here; vap-lsp types it as `Deployment.spec`"


def test_the_same_typo_on_object_stays_the_servers_type_check_warning_only() -> None:
    _, diags = _check("- expression: object.spec.replicaz > 1\n")
    assert [d.code for d in diags] == ["cel-type-check"]


def test_comprehension_variable_over_a_typed_list_variable() -> None:
    # `containers + initContainers` has two element type names; JSON values concatenate fine,
    # so vap-lsp types the variable as the containers list and sees `c` as a container.
    text, diags = _check("- expression: \"variables.containers.all(c, c.imagez != '')\"\n")
    (d,) = diags
    assert d.code == "vap-lsp-type-check"
    assert "undefined field 'imagez'" in d.message and "`variables.containers`" in d.message
    assert _at(text, d) == ".imagez"


def test_optional_selection_and_or_value_chain() -> None:
    _, diags = _check('- expression: "variables.spec.?replicaz.orValue(1) > 1"\n')
    (d,) = diags
    assert d.code == "vap-lsp-type-check" and "undefined field 'replicaz'" in d.message


def test_impossible_overload_through_a_variable() -> None:
    _, diags = _check("- expression: \"variables.replicas.startsWith('1')\"\n")
    (d,) = diags
    assert d.code == "vap-lsp-type-check"
    assert "found no matching overload for 'startsWith' applied to 'int.(string)'" in d.message
    assert "`variables.replicas`" in d.message


@pytest.mark.parametrize(
    "expression",
    [
        # Heterogeneous equality is false at run time, never an error.
        "- expression: \"variables.replicas != '1'\"\n",
        # Object types are maps at run time: size() works.
        '- expression: "variables.spec.template.metadata.labels.size() > 0 || true"\n',
        # Correct expressions through variables.
        "- expression: \"variables.containers.all(c, c.image != '')\"\n",
        '- expression: "variables.spec.replicas > 1 && variables.replicas < 10"\n',
        '- expression: "has(variables.spec.strategy) && variables.spec.?paused.orValue(false) == false"\n',
    ],
)
def test_nothing_when_evaluation_cannot_fail(expression: str) -> None:
    _, diags = _check(expression)
    assert diags == []


def test_several_kinds_a_field_of_one_kind_only_is_a_hint() -> None:
    template = DEPLOYMENTS.replace('resources: ["deployments"]', 'resources: ["deployments", "replicasets"]')
    text = template + "    - expression: \"variables.spec.strategy.type != 'Recreate'\"\n"
    diagnostics = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    (d,) = [d for d in diagnostics if d.code == "vap-lsp-type-check"]
    assert d.severity is Severity.HINT
    assert "typed from apps/v1, Kind=ReplicaSet" in d.message


def test_map_variables_are_typed_too() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: admissionregistration.k8s.io/v1beta1
        kind: MutatingAdmissionPolicy
        metadata:
          name: demo
        spec:
          matchConstraints:
            resourceRules:
              - apiGroups: [""]
                apiVersions: ["v1"]
                operations: ["CREATE"]
                resources: ["pods"]
          reinvocationPolicy: Never
          variables:
            - name: meta
              expression: object.metadata
          mutations:
            - patchType: ApplyConfiguration
              applyConfiguration:
                expression: >
                  Object{metadata: Object.metadata{labels: {"x": variables.meta.nmae}}}
        """
    )
    diagnostics = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    # (v1beta1 at 1.34 is also noted as off by default: `api-off-by-default`, information.)
    (d,) = [d for d in diagnostics if d.severity not in (Severity.HINT, Severity.INFORMATION)]
    assert d.code == "vap-lsp-type-check" and "undefined field 'nmae'" in d.message


def test_typing_model_exposes_both_types_and_schema_sources() -> None:
    gateway = """\
      - apiGroups: ["gateway.networking.k8s.io"]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["httproutes", "pods/exec"]
"""
    text = DEPLOYMENTS.replace("  variables:\n", gateway + "  variables:\n") + "    - expression: 'true'\n"
    _, objects = parse_text(text)
    (obj,) = objects
    spec = to_python(obj.node)["spec"]
    typing = policy_context(obj.node, PolicyKind.VAP, spec, "1.34")
    assert [(str(k.gvk), k.source) for k in typing.kinds] == [("apps/v1, Kind=Deployment", "built-in")]
    assert typing.kinds_without_schema == ()
    assert typing.params_kind is None  # no paramKind
    assert [(str(u), u.reason) for u in typing.untyped_resources()] == [
        ("gateway.networking.k8s.io/v1 httproutes", "unknown"),
        ("gateway.networking.k8s.io/v1 pods/exec", "subresource"),
    ]
    types = {v.name: (str(v.type), str(v.server_type)) for v in typing.variables}
    assert types == {
        "spec": ("Deployment.spec", "dyn"),
        "containers": ("list(Deployment.spec.template.spec.containers.@idx)", "dyn"),
        "replicas": ("int", "dyn"),
    }


def test_cli_json_and_sarif_carry_the_related_definition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(DEPLOYMENTS + "    - expression: variables.spec.replicaz > 1\n")
    assert main(["check", "--format", "json", str(path)]) == 0  # a warning does not fail the check
    (d,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert d["code"] == "vap-lsp-type-check" and d["severity"] == "warning"
    (related,) = d["related"]
    assert related["range"] == {"start": {"line": 13, "character": 18}, "end": {"line": 13, "character": 29}}
    assert main(["check", "--format", "sarif", str(path)]) == 0
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    (location,) = result["relatedLocations"]
    assert location["physicalLocation"]["region"]["startLine"] == 14
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}:14:19: note: `variables.spec` is defined here" in out


KIND_DISPATCH = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: pod-specs
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["deployments"]
  variables:
    - name: podSpec
      expression: |
        object.kind == 'Pod'
          ? object.spec
          : object.kind in ['Deployment', 'ReplicaSet'] ? object.spec.template.spec : {}
  validations:
"""


def test_a_kind_dispatching_variable_is_typed_per_kind() -> None:
    # No single kind types the conditional, but for each kind its value is one branch.
    text, diags = _check("- expression: '!variables.podSpec.hostPIDz'\n", KIND_DISPATCH)
    (d,) = diags
    assert (d.severity, d.code) == (Severity.WARNING, "vap-lsp-type-check")
    assert "undefined field 'hostPIDz'" in d.message
    assert "typed from /v1, Kind=Pod; apps/v1, Kind=Deployment" in d.message
    assert _check("- expression: '!variables.podSpec.hostPID'\n", KIND_DISPATCH)[1] == []
    _, objects = parse_text(text)
    (obj,) = objects
    typing = policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.34")
    pod, deployment = typing.kinds
    assert [str(t) for _, _, t in typing.precise(pod).variables] == ["Pod.spec"]
    assert [str(t) for _, _, t in typing.precise(deployment).variables] == ["Deployment.spec.template.spec"]


def test_kinds_alike_but_for_names_share_a_compile_and_each_shows_its_own_types() -> None:
    # `variables.podSpec` is a PodSpec for both kinds, named `Pod.spec` and
    # `Deployment.spec.template.spec`: an expression reading it compiles once for both
    # (`View._alike`), unless what it says names the kind's types (an issue, an object result).
    checks = [
        "- expression: variables.podSpec.containers.all(c, c.name != '')\n",
        "- expression: \"variables.podSpec.containers.all(c, c.namez != '')\"\n",
        "- expression: \"variables.podSpec.containers.exists(c, c.image == 'x')\"\n",
    ]
    text, diags = _check("".join(checks), KIND_DISPATCH)
    (d,) = diags  # the typo, for both kinds, each compiled on its own
    assert "undefined field 'namez'" in d.message
    assert "typed from /v1, Kind=Pod; apps/v1, Kind=Deployment" in d.message
    _, objects = parse_text(text)
    (obj,) = objects
    typing = policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.34")
    pod, deployment = typing.kinds
    first, typo, _ = [s for s in typing.sites if s.field.startswith("spec.validations")]
    assert typing.precise(pod).result(first) is typing.precise(deployment).result(first)
    assert typing.precise(pod).result(typo) is not typing.precise(deployment).result(typo)
    # what shows types to a user (hover, completion) takes the kind's own compile
    own = typing.precise(deployment).own_result(first)
    assert own.checked is not None and own.checked.output_type.name == "bool"
    names = {str(t) for t in own.checked.types.values()}
    assert "Deployment.spec.template.spec.containers.@idx" in names
    assert not any(n.startswith("Pod.") for n in names)


def test_the_servers_view_does_not_narrow_a_kind_dispatching_variable() -> None:
    # The server types a variable that fails to compile as dyn: comparing it with a string is
    # no server warning, though vap-lsp's own view types the Deployment branch as int.
    variable = "object.kind == 'Deployment' ? object.spec.replicas : object.spec.hostname"
    text = KIND_DISPATCH.replace(
        textwrap.indent(
            "object.kind == 'Pod'\n  ? object.spec\n  : object.kind in ['Deployment', 'ReplicaSet'] ? "
            "object.spec.template.spec : {}\n",
            "        ",
        ),
        f"        {variable}\n",
    ).replace("podSpec", "rep")
    assert variable in text
    _, objects = parse_text(text + "    - expression: \"variables.rep == 'x'\"\n")
    (obj,) = objects
    typing = policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.34")
    _, deployment = typing.kinds
    assert [str(t) for _, _, t in typing.type_check(deployment).variables] == ["None"]
    assert [str(t) for _, _, t in typing.precise(deployment).variables] == ["int"]
    found = analyse_text(text + "    - expression: \"variables.rep == 'x'\"\n").diagnostics
    assert [d.code for d in found if d.code == "cel-type-check"] == []


def test_untyped_resources_past_the_type_checkers_ten_kinds() -> None:
    # typesToCheck stops at the 10th kind of a rule: the rest of it and later rules get none.
    resources = ["configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes", "pods"]
    resources += ["secrets", "serviceaccounts", "services", "replicationcontrollers"]
    spec = {
        "matchConstraints": {
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "resources": resources},
                {"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]},
            ]
        }
    }
    untyped = [(str(u), u.reason) for u in untyped_resources(spec, "1.34", None)]
    assert untyped == [("v1 services", "over-limit"), ("apps/v1 deployments", "over-limit")]


@pytest.mark.parametrize(
    "expression",
    [
        # Generic at run time: the checker wants one T, evaluation does not care.
        "- expression: \"variables.spec.?replicas.orValue('none') != ''\"\n",
        '- expression: "(variables.spec.template.spec.containers.map(c, c.name) + [1]).size() > 0"\n',
    ],
)
def test_nothing_when_only_a_type_parameter_disagrees(expression: str) -> None:
    assert [d.code for d in _check(expression)[1] if d.code == "vap-lsp-type-check"] == []


def test_a_variable_holding_an_optional_result() -> None:
    template = DEPLOYMENTS.replace(
        "  validations:\n",
        "    - name: podSpec\n      expression: object.spec.?template.?spec\n  validations:\n",
    )
    _, diags = _check(
        '- expression: "variables.podSpec.?containerz.orValue([]).size() == 0"\n'
        '- expression: "variables.podSpec.hasValue() && variables.podSpec.value().hostPID == false"\n',
        template,
    )
    (d,) = diags
    assert d.code == "vap-lsp-type-check" and "undefined field 'containerz'" in d.message
    assert d.related[0].message == (
        "`variables.podSpec` is defined here; vap-lsp types it as "
        "`optional_type(Deployment.spec.template.spec)`"
    )
