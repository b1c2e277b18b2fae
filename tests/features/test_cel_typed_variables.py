"""Editor features see the type each variable's expression infers, not the server's `dyn`.

The API server reads object types as `dyn` through `variables`; completion, hover, signature
help, inlay hints and semantic tokens use the policy's typing model (`analysis.typing`), so
`variables.spec.` on a Deployment policy offers `replicas`, `template`, `selector`…, and
definition on a field of a workspace CRD goes to its property in the schema.
"""

from __future__ import annotations

from cel_feature_helpers import at, snapshot
from yaml_feature_helpers import index_of, snap

from vap_lsp.features.cel_completion import complete
from vap_lsp.features.cel_hover import hover
from vap_lsp.features.cel_signature import signature_help
from vap_lsp.features.inlay_hints import inlay_hints
from vap_lsp.features.navigation import definition
from vap_lsp.features.results import CompletionEntry
from vap_lsp.features.semantic_tokens import semantic_tokens

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
      expression: object.spec.containers + object.spec.initContainers
    - name: podContainers
      expression: object.spec.template.spec.containers + object.spec.template.spec.initContainers
  validations:
    - expression: EXPR
"""


def _text(expression_yaml: str) -> str:
    return DEPLOYMENTS.replace("EXPR", expression_yaml)


def _items(expression_yaml: str, needle: str) -> dict[str, CompletionEntry]:
    text = _text(expression_yaml)
    result = complete(snapshot(text), at(text, needle))
    assert result is not None
    return {i.label: i for i in result.items}


def test_fields_after_a_variable_holding_an_object() -> None:
    items = _items("|\n        variables.spec.", "variables.spec.")
    assert {"replicas", "template", "selector", "strategy"} <= set(items)
    assert items["replicas"].detail == "int" and items["replicas"].kind == "field"
    assert "getFullYear" not in items and "startsWith" not in items


def test_comprehension_over_a_concatenated_list_variable_knows_the_container() -> None:
    items = _items("|\n        variables.podContainers.all(c, c.", "all(c, c.")
    assert {"image", "name", "securityContext", "resources"} <= set(items)
    assert items["image"].detail == "string"


def test_a_receiver_of_unknown_type_gets_the_macros_only_ranked_last() -> None:
    # `object.spec.containers` does not exist on a Deployment: `variables.containers` is dyn.
    items = _items("|\n        variables.containers.", "variables.containers.")
    assert "getFullYear" not in items and "startsWith" not in items and "size" not in items
    assert {"all(x, predicate)", "exists(x, predicate)", "map(x, expr)", "filter(x, predicate)"} <= set(items)
    assert all((i.sort_text or "").startswith("3_") for i in items.values())


def test_a_typed_map_gets_its_macros_not_every_method() -> None:
    items = _items("|\n        variables.spec.template.metadata.labels.", "labels.")
    assert "all(x, predicate)" in items  # a map: the macros apply
    assert "getFullYear" not in items


def test_hover_shows_the_inferred_type_and_the_servers() -> None:
    text = _text("variables.spec.replicas > 1")
    variable = hover(snapshot(text), at(text, "variables.spec.r", len("variables.s")))
    assert variable is not None
    assert "variables.spec: Deployment.spec" in variable.markdown
    assert "The API server reads it as `dyn`" in variable.markdown
    field = hover(snapshot(text), at(text, "replicas > 1", 2))
    assert field is not None
    assert "replicas: int" in field.markdown and "Field of `Deployment.spec`" in field.markdown


def test_signature_help_filters_by_the_receiver_typed_through_the_variable() -> None:
    text = _text("|\n        variables.spec.template.metadata.name.indexOf(")
    result = signature_help(snapshot(text), at(text, "indexOf("))
    assert result is not None
    assert [s.label for s in result.signatures] == [
        "<string>.indexOf(string) -> int",
        "<string>.indexOf(string, int) -> int",
    ]


def test_inlay_hints_show_the_inferred_type_and_say_what_the_server_sees() -> None:
    text = _text("'true'")
    hints = {h.label: h for h in inlay_hints(snapshot(text))}
    # `containers` does not compile against a Deployment (no hint: its type is unknown).
    assert set(hints) == {": Deployment.spec", ": list(Deployment.spec.template.spec.containers.@idx)"}
    tooltip = hints[": Deployment.spec"].tooltip or ""
    assert "the API server reads it as `dyn`" in tooltip


def test_semantic_tokens_mark_fields_read_through_a_variable_as_properties() -> None:
    text = _text("variables.spec.replicas > 1")
    snap = snapshot(text)
    start = at(text, "variables.spec.replicas", 0)
    tokens = [(text[t.start : t.end], t.type) for t in semantic_tokens(snap) if t.start >= start]
    assert tokens[:3] == [("variables", "variable"), ("spec", "variable"), ("replicas", "property")]


WITH_CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: replicalimits.rules.example.com
spec:
  group: rules.example.com
  names: {kind: ReplicaLimit, plural: replicalimits}
  scope: Namespaced
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
                maxReplicas: {type: integer}
                rules:
                  type: array
                  items:
                    type: object
                    properties:
                      max-count: {type: integer}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["deployments"]
  variables:
    - name: limits
      expression: params.spec
  validations:
    - expression: "variables.limits.rules.all(r, r.max__dash__count > 0) && object.spec.replicas <= variables.limits.maxReplicas"
"""  # noqa: E501


def test_definition_of_a_field_read_through_a_variable_is_the_crd_property() -> None:
    uri = "file:///ws/policy.yaml"
    snapshot = snap(WITH_CRD, index_of({uri: WITH_CRD}), uri=uri)
    (found,) = definition(snapshot, at(WITH_CRD, "variables.limits.maxReplicas", len("variables.limits.max")))
    assert (found.uri, WITH_CRD[found.span.start : found.span.end]) == (uri, "maxReplicas")
    assert WITH_CRD.index("maxReplicas: {type") == found.span.start
    (found,) = definition(snapshot, at(WITH_CRD, "r.max__dash__count", 3))  # comprehension variable
    assert WITH_CRD[found.span.start : found.span.end] == "max-count"
    assert definition(snapshot, at(WITH_CRD, "object.spec.replicas", len("object.spec.re"))) == []  # built-in


def test_a_kind_dispatching_variable_completes_the_pod_spec() -> None:
    text = DEPLOYMENTS.replace(
        "      expression: object.spec\n",
        "      expression: \"object.kind == 'Pod' ? object.spec : object.spec.template.spec\"\n",
        1,
    ).replace("EXPR", "|\n        variables.spec.")
    result = complete(snapshot(text), at(text, "variables.spec."))
    assert result is not None
    labels = {i.label for i in result.items}
    assert {"containers", "hostPID", "securityContext"} <= labels
