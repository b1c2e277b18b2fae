"""CRD schemas from outside the checked files, typed as the API server's type checker types them,
and an information diagnostic wherever typing is lost."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.crds import load_crds
from vap_lsp.analysis.model.workspace import WorkspaceIndex

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "crds"
HTTPROUTE_CRD = FIXTURES / "httproute-crd.yaml"


def _policy(
    validations: str, *, resources: str = "[httproutes]", version: str = "v1", extra: str = ""
) -> str:
    return (
        textwrap.dedent(
            f"""\
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata:
              name: routes
            spec:
              matchConstraints:
                resourceRules:
                  - apiGroups: [gateway.networking.k8s.io]
                    apiVersions: [{version}]
                    operations: [CREATE, UPDATE]
                    resources: {resources}
            """
        )
        + textwrap.indent(textwrap.dedent(extra), "  ")
        + "  validations:\n"
        + textwrap.indent(textwrap.dedent(validations), "    ")
    )


def _check(text: str, *crd_paths: Path, workspace: WorkspaceIndex | None = None) -> list[Diagnostic]:
    workspace = workspace or WorkspaceIndex()
    if crd_paths:
        loaded = load_crds(list(crd_paths))
        assert loaded.problems == []
        workspace.set_external_crds("--crd", loaded.versions)
    found = analyse_text(text, AnalysisSettings("1.34"), workspace=workspace, uri="policy.yaml").diagnostics
    return [d for d in found if d.severity is not Severity.HINT]


def _messages(diags: list[Diagnostic]) -> list[str]:
    return [f"{d.severity.name.lower()} {d.code}: {d.message}" for d in diags]


# --- the case ---------------------------------------------------------------------------

HOSTNAMEZ = "- expression: \"object.spec.hostnamez.all(h, h.endsWith('.example.com'))\"\n"


def test_without_the_crd_typing_is_lost_and_said_once_on_the_rule() -> None:
    text = _policy(HOSTNAMEZ)
    (d,) = _check(text)
    assert d.severity is Severity.INFORMATION
    assert d.code == "typing-unavailable"
    assert d.message == (
        "spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for "
        "gateway.networking.k8s.io/v1 httproutes: no schema (not a built-in resource, and no CRD for it "
        "among the checked files); give its CRD with `--crd FILE` (CLI), the `vapLsp.crds` setting (editor) "
        "or `crds` in the configuration file (both)"
    )
    assert text[d.span.start : d.span.end] == "apiGroups"  # the rule's first line


def test_with_the_crd_the_typo_is_the_type_checkers_warning() -> None:
    assert _messages(_check(_policy(HOSTNAMEZ), HTTPROUTE_CRD)) == [
        "warning cel-type-check: spec.validations[0].expression: type checking against "
        "gateway.networking.k8s.io/v1, Kind=HTTPRoute: ERROR: <input>:1:12: undefined field 'hostnamez'"
    ]


def test_metadata_is_the_full_object_meta_the_server_publishes_for_a_crd() -> None:
    # The CRD schema says nothing of metadata; OpenAPI discovery serves it as ObjectMeta.
    text = _policy(
        """\
        - expression: "object.metadata.labels['team'] != '' && object.metadata.namespace != ''"
        - expression: "object.metadata.labelz.size() > 0"
        """
    )
    assert _messages(_check(text, HTTPROUTE_CRD)) == [
        "warning cel-type-check: spec.validations[1].expression: type checking against "
        "gateway.networking.k8s.io/v1, Kind=HTTPRoute: ERROR: <input>:1:16: undefined field 'labelz'"
    ]


# --- x-kubernetes-* extensions ------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        # x-kubernetes-int-or-string: dyn, both comparisons type-check
        "object.spec.rules.all(r, r.backendRefs.all(b, b.port == 80 || b.port == 'http'))",
        # x-kubernetes-list-type: map keeps list(T)
        "object.spec.parentRefs.exists(p, p.name == 'gw' && p.port == 443)",
        # format: duration
        "object.spec.rules.all(r, r.timeouts.request < duration('10s'))",
        # x-kubernetes-embedded-resource: apiVersion, kind and the full ObjectMeta
        "object.spec.template.kind == 'Pod' && object.spec.template.metadata.labels.size() > 0",
    ],
)
def test_extensions_type_as_the_server_types_them(expression: str) -> None:
    found = _check(_policy(f'- expression: "{expression}"\n'), HTTPROUTE_CRD)
    # The server's type checker accepts them all. A `format: duration` value is a string at
    # admission, though: `<` with a duration fails there, vap-lsp's own `string-at-admission`.
    expected = ["string-at-admission"] if "duration(" in expression else []
    assert [d.code for d in found] == expected


@pytest.mark.parametrize(
    ("expression", "undefined"),
    [
        # x-kubernetes-preserve-unknown-fields is ignored for typing: only declared properties exist
        ("object.spec.rules.all(r, r.filters.requestHeaderModifier == null)", "requestHeaderModifier"),
        ("object.spec.template.spec == null", "spec"),
        ("object.spec.parentRefs.exists(p, p.nam == 'gw')", "nam"),
    ],
)
def test_fields_outside_the_schema_are_undefined(expression: str, undefined: str) -> None:
    (d,) = _check(_policy(f'- expression: "{expression}"\n'), HTTPROUTE_CRD)
    assert d.code == "cel-type-check"
    assert d.message.endswith(f"undefined field '{undefined}'")


# --- served versions, precedence, sources -------------------------------------------------------


def test_a_version_the_crd_does_not_serve_is_untyped_and_names_the_served_one() -> None:
    (d,) = _check(_policy(HOSTNAMEZ, version="v1beta1"), HTTPROUTE_CRD)
    assert d.code == "typing-unavailable"
    assert d.message == (
        "spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for "
        "gateway.networking.k8s.io/v1beta1 httproutes: its CRD does not serve this version "
        "(httproutes is served in gateway.networking.k8s.io/v1)"
    )


def test_a_crd_in_the_checked_files_wins_over_one_given_with_crd(tmp_path: Path) -> None:
    workspace = WorkspaceIndex()
    own = HTTPROUTE_CRD.read_text().replace("hostnames:", "hostnamez:")
    analyse_text(own, AnalysisSettings("1.34"), workspace=workspace, uri="crd.yaml")
    assert _check(_policy(HOSTNAMEZ), HTTPROUTE_CRD, workspace=workspace) == []


def test_kubectl_list_output_and_folders_are_read(tmp_path: Path) -> None:
    crd = textwrap.indent(HTTPROUTE_CRD.read_text(), "    ").replace("    apiVersion:", "  - apiVersion:", 1)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "crds.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + crd)
    (tmp_path / "sub" / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    loaded = load_crds([tmp_path])
    assert loaded.problems == []
    assert [(c.group, c.version, c.kind, c.served) for c in loaded.versions] == [
        ("gateway.networking.k8s.io", "v1", "HTTPRoute", True),
        ("gateway.networking.k8s.io", "v1beta1", "HTTPRoute", False),
    ]


def test_globs_are_relative_to_the_root_and_missing_files_are_problems(tmp_path: Path) -> None:
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "a.yaml").write_text(HTTPROUTE_CRD.read_text())
    (tmp_path / "notes.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    loaded = load_crds(["crds/*.yaml", "missing.yaml", "notes.yaml"], root=tmp_path)
    assert len(loaded.documents) == 1
    assert loaded.problems == [
        "missing.yaml: no such file or directory",
        f"{tmp_path / 'notes.yaml'}: no CustomResourceDefinition in the file",
    ]


# --- where else typing is lost --------------------------------------------------------------------


def _builtin_policy(rules: str, *, extra: str = "") -> str:
    return (
        textwrap.dedent(
            """\
            apiVersion: admissionregistration.k8s.io/v1
            kind: ValidatingAdmissionPolicy
            metadata:
              name: demo
            spec:
            """
        )
        + textwrap.indent(textwrap.dedent(extra), "  ")
        + "  matchConstraints:\n    resourceRules:\n"
        + textwrap.indent(textwrap.dedent(rules), "      ")
        + "  validations:\n    - expression: \"object.metadata.name != ''\"\n"
    )


def test_wildcards_and_subresources_are_not_type_checked() -> None:
    text = _builtin_policy(
        """\
        - {apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: [pods]}
        - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments/scale, "*"]}
        - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
        """
    )
    assert [d.message for d in _check(text)] == [
        "spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for apiGroups [*] and "
        "apiVersions [*]: the API server does not type-check rules with `*` in apiGroups or apiVersions",
        "spec.matchConstraints.resourceRules[1]: object is untyped (dyn) for deployments/scale: subresource "
        "requests are not type-checked — *: `*` resources are not type-checked (list the resources to have "
        "them typed)",
    ]


def test_kinds_after_the_tenth_are_not_type_checked() -> None:
    resources = "[configmaps, endpoints, events, limitranges, namespaces, nodes, persistentvolumeclaims, " \
        "persistentvolumes, pods, podtemplates, secrets, services]"  # fmt: skip
    text = _builtin_policy(
        f'- {{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: {resources}}}\n'
    )
    (d,) = _check(text)
    assert d.message == (
        "spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for v1 secrets, v1 services: "
        "the type checker stops at the 10th kind of a rule and skips the rest"
    )


def test_params_without_a_schema_are_said_on_param_kind() -> None:
    text = _builtin_policy(
        '- {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n',
        extra="paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}\n",
    )
    (d,) = _check(text)
    assert d.field == "spec.paramKind"
    assert d.message.startswith(
        "spec.paramKind: params is untyped (dyn) for rules.example.com/v1 ReplicaLimit: no schema"
    )
    assert text[d.span.start : d.span.end] == "apiVersion"


def test_a_policy_without_expressions_says_nothing() -> None:
    text = _policy("[]\n").replace("  validations:\n    []\n", "")
    assert "validations" not in text
    assert [d.code for d in _check(text) if d.code == "typing-unavailable"] == []


def test_a_subresource_whose_object_is_the_typed_main_resource_says_nothing() -> None:
    # pods/ephemeralcontainers and deployments/status carry the Pod and the Deployment, typed
    # through pods and deployments; an Eviction or a Scale is another object, untyped.
    text = _builtin_policy(
        """\
        - apiGroups: [""]
          apiVersions: [v1]
          operations: [CREATE, UPDATE]
          resources: [pods, pods/ephemeralcontainers, pods/eviction]
        - apiGroups: [apps]
          apiVersions: [v1]
          operations: [UPDATE]
          resources: [deployments, deployments/status, deployments/scale]
        """
    )
    assert [d.message for d in _check(text)] == [
        "spec.matchConstraints.resourceRules[0]: object is untyped (dyn) for pods/eviction: subresource "
        "requests are not type-checked",
        "spec.matchConstraints.resourceRules[1]: object is untyped (dyn) for deployments/scale: subresource "
        "requests are not type-checked",
    ]
