"""The typing model says where each kind's schema comes from and what each rule leaves `dyn`;
the `typing-unavailable` diagnostic, its hover note and quick fix read the same model.

Through variables, vap-lsp's own check (`vap-lsp-type-check`) stays silent wherever the data
is open at run time: `x-kubernetes-preserve-unknown-fields` objects (with or without declared
properties: the stored object keeps any field) and `x-kubernetes-int-or-string` (`dyn`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text
from vap_lsp.analysis.model.context import PolicyContext, policy_context
from vap_lsp.analysis.model.crds import load_crds
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.features.cel_hover import hover
from vap_lsp.features.snapshot import make_snapshot
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import to_python

HTTPROUTE_CRD = Path(__file__).resolve().parents[1] / "fixtures" / "crds" / "httproute-crd.yaml"


def _external() -> WorkspaceIndex:
    """The fixture's HTTPRoute CRD given as with `--crd` (not among the checked files)."""
    workspace = WorkspaceIndex()
    workspace.set_external_crds("--crd", load_crds([HTTPROUTE_CRD]).versions)
    return workspace


def _in_files() -> WorkspaceIndex:
    """The same CRD as a checked file."""
    workspace = WorkspaceIndex()
    analyse_text(HTTPROUTE_CRD.read_text(), AnalysisSettings("1.34"), workspace=workspace, uri="crd.yaml")
    return workspace


def _routes(rules: str, body: str = "  validations:\n    - expression: 'true'\n") -> str:
    return (
        textwrap.dedent(
            """\
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata:
              name: routes
            spec:
              matchConstraints:
                resourceRules:
            """
        )
        + textwrap.indent(textwrap.dedent(rules), "      ")
        + body
    )


GATEWAY_V1 = """\
- apiGroups: [gateway.networking.k8s.io]
  apiVersions: [v1]
  operations: [CREATE]
  resources: [httproutes]
"""


def _typing(text: str, workspace: WorkspaceIndex | None) -> PolicyContext:
    (obj,) = parse_text(text)[1]
    return policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.34", workspace)


# --- schema sources -----------------------------------------------------------------------------


def test_a_crd_given_from_outside_is_an_external_source() -> None:
    text = _routes(GATEWAY_V1)
    assert [(str(k.gvk), k.source) for k in _typing(text, _external()).kinds] == [
        ("gateway.networking.k8s.io/v1, Kind=HTTPRoute", "external")
    ]
    assert [k.source for k in _typing(text, _in_files()).kinds] == ["workspace"]
    assert [k.source for k in _typing(text, None).kinds] == []  # the resource resolves to no kind


def test_the_checked_files_crd_wins_over_the_external_one() -> None:
    workspace = _in_files()
    workspace.set_external_crds("--crd", load_crds([HTTPROUTE_CRD]).versions)
    assert [k.source for k in _typing(_routes(GATEWAY_V1), workspace).kinds] == ["workspace"]


def test_hover_on_object_names_the_schema_source() -> None:
    text = _routes(GATEWAY_V1, "  validations:\n    - expression: object.spec.hostnames.size() < 10\n")
    offset = text.index("object.spec") + 2

    def markdown(workspace: WorkspaceIndex) -> str:
        snapshot = make_snapshot("file:///ws/p.yaml", text, 1, AnalysisSettings("1.34"), workspace)
        result = hover(snapshot, offset)
        assert result is not None
        return result.markdown

    assert markdown(_external()).endswith(
        "Schema: gateway.networking.k8s.io/v1 HTTPRoute from its CRD given from outside the checked "
        "files (`--crd`, `vapLsp.crds`, configuration)."
    )
    assert markdown(_in_files()).endswith(
        "Schema: gateway.networking.k8s.io/v1 HTTPRoute from its CRD in the checked files."
    )


# --- what the model leaves untyped ----------------------------------------------------------------


def test_a_subresource_whose_object_is_the_typed_main_resource_is_not_lost() -> None:
    # pods/ephemeralcontainers and pods/status carry a Pod, which the rule types; pods/binding
    # carries a Binding, which no rule types; deployments/scale a Scale.
    text = _routes(
        """\
        - apiGroups: [""]
          apiVersions: [v1]
          operations: [UPDATE]
          resources: [pods, pods/ephemeralcontainers, pods/status, pods/binding]
        - apiGroups: [apps]
          apiVersions: [v1]
          operations: [UPDATE]
          resources: [deployments, deployments/scale]
        """
    )
    typing = _typing(text, None)
    assert [(str(u), u.reason, u.rule) for u in typing.untyped_resources()] == [
        ("v1 pods/binding", "subresource", 0),
        ("apps/v1 deployments/scale", "subresource", 1),
    ]
    assert [str(g) for r in typing.rules for g in r.typed] == ["/v1, Kind=Pod", "apps/v1, Kind=Deployment"]


def test_a_version_the_crd_does_not_serve_and_where_it_is_served() -> None:
    text = _routes(GATEWAY_V1.replace("[v1]", "[v1beta1]"))
    (untyped,) = _typing(text, _external()).untyped_resources()
    assert (str(untyped), untyped.reason) == ("gateway.networking.k8s.io/v1beta1 httproutes", "not-served")
    assert [(c.version, c.kind) for c in untyped.elsewhere] == [("v1", "HTTPRoute")]


def test_param_kind_without_a_schema() -> None:
    body = "  paramKind: {apiVersion: example.com/v1, kind: Limits}\n"
    body += "  validations:\n    - expression: 'true'\n"
    typing = _typing(_routes(GATEWAY_V1, body), None)
    assert typing.params_kind is not None and typing.params_kind.source == "none"
    assert typing.params_untyped is not None
    assert (str(typing.params_untyped), typing.params_untyped.reason) == ("example.com/v1 Limits", "unknown")
    # The diagnostic reads the same model.
    found = analyse_text(_routes(GATEWAY_V1, body), AnalysisSettings("1.34")).diagnostics
    assert [d.field for d in found if d.code == "typing-unavailable"] == [
        "spec.matchConstraints.resourceRules[0]",
        "spec.paramKind",
    ]


# --- vap-lsp's check through variables on open CRD data --------------------------------------------

OPEN_DATA = """\
  variables:
    - name: route
      expression: object.spec
    - name: rules
      expression: object.spec.rules
  validations:
    - expression: "!has(variables.route.template.spec) || variables.route.template.spec.replicas > 0"
    - expression: "variables.rules.all(r, !has(r.filters.requestHeaderModifier))"
    - expression: "variables.rules.all(r, r.backendRefs.all(b, b.port > 0 || b.port.size() > 0))"
    - expression: "variables.route.hostnamez.size() < 10"
"""


def test_no_advisory_finding_where_the_crds_data_is_open() -> None:
    # template: embedded resource preserving unknown fields (declared: apiVersion, kind, metadata);
    # filters: preserve-unknown-fields without properties; port: int-or-string (dyn). Only the
    # misspelt `hostnamez` is a field no HTTPRoute can have.
    for workspace in (_external(), _in_files()):
        text = _routes(GATEWAY_V1, OPEN_DATA)
        analysis = analyse_text(text, AnalysisSettings("1.34"), workspace=workspace, uri="p.yaml")
        found = [d for d in analysis.diagnostics if d.severity is not Severity.HINT]  # optional-field advice
        assert [(d.severity, d.code, d.field) for d in found] == [
            (Severity.WARNING, "vap-lsp-type-check", "spec.validations[3].expression")
        ]
        assert "undefined field 'hostnamez'" in found[0].message


def test_no_finding_of_vap_lsps_own_check_where_the_crds_data_is_open() -> None:
    # matchConditions: the API server does not type-check them (`cel-type-check-extra` is
    # vap-lsp's own check), and an object preserving unknown fields may hold any field.
    body = (
        "  matchConditions:\n"
        "    - name: open\n"
        '      expression: "object.spec.template.spec.replicas > 0"\n'
        "    - name: typo\n"
        '      expression: "object.spec.hostnamez.size() > 0"\n'
        "  validations:\n"
        "    - expression: 'true'\n"
    )
    for workspace in (_external(), _in_files()):
        analysis = analyse_text(
            _routes(GATEWAY_V1, body), AnalysisSettings("1.34"), workspace=workspace, uri="p.yaml"
        )
        found = [(d.code, d.field) for d in analysis.diagnostics if d.severity is not Severity.HINT]
        assert found == [("cel-type-check-extra", "spec.matchConditions[1].expression")]
