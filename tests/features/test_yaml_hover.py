"""Hover on YAML keys and values: description, type, required, allowed values, default."""

from __future__ import annotations

from yaml_feature_helpers import CURSOR, at_cursor

from vap_lsp.features.yaml_hover import hover

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: p
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [apps]
        operations: [CREATE]
  validations:
    - expression: "true"
"""


def _hover(text: str) -> tuple[str, str]:
    snapshot, offset = at_cursor(text)
    result = hover(snapshot, offset)
    assert result is not None
    return snapshot.text[result.span.start : result.span.end], result.markdown


def test_key_shows_description_type_allowed_values_and_default() -> None:
    word, markdown = _hover(POLICY.replace("failurePolicy", "failure" + CURSOR + "Policy"))
    assert word == "failurePolicy"
    assert markdown.startswith("**spec.failurePolicy** · `string` · optional\n\nfailurePolicy defines how")
    assert markdown.endswith("Allowed values: `Fail`, `Ignore`  \nDefault: `Fail`")


def test_list_value_describes_its_field() -> None:
    word, markdown = _hover(POLICY.replace("[CREATE]", "[CRE" + CURSOR + "ATE]"))
    assert word == "CREATE"
    assert markdown.startswith(
        "**spec.matchConstraints.resourceRules[0].operations** · `[]string` · required"
    )
    assert "Allowed values: `*`, `CONNECT`, `CREATE`, `DELETE`, `UPDATE`" in markdown


def test_required_field_and_kind() -> None:
    _, markdown = _hover(POLICY.replace("- expression", "- expr" + CURSOR + "ession"))
    assert markdown.startswith("**spec.validations[0].expression** · `string` · required")
    _, markdown = _hover(POLICY.replace("kind: Validating", "kind: Valid" + CURSOR + "ating"))
    assert markdown.startswith("**ValidatingAdmissionPolicy** (Kubernetes 1.34)")


def test_broken_yaml_falls_back_to_indentation() -> None:
    text = POLICY.replace("  validations:", "  valid\n  validations:")
    word, markdown = _hover(text.replace("failurePolicy", "fail" + CURSOR + "urePolicy"))
    assert word == "failurePolicy" and markdown.startswith("**spec.failurePolicy**")


def test_nothing_for_unknown_kinds_and_fields() -> None:
    snapshot, offset = at_cursor("apiVersion: v1\nkind: Nope\nspec:\n  fo" + CURSOR + "o: 1\n")
    assert hover(snapshot, offset) is None
    snapshot, offset = at_cursor(POLICY.replace("failurePolicy", "fail" + CURSOR + "urPolicy"))
    assert hover(snapshot, offset) is None


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
"""


def test_a_field_of_a_built_in_object_shows_what_the_api_server_defaults_it_to() -> None:
    # vap_lsp.defaulting: the Go defaulters run when the object is decoded, before admission.
    _, markdown = _hover(DEPLOYMENT.replace("replicas", "repl" + CURSOR + "icas"))
    assert markdown.endswith(
        "Default: `1` (set by the API server before admission: SetDefaults_Deployment (apps/v1))"
    )
    _, markdown = _hover(DEPLOYMENT.replace("image:", "ima" + CURSOR + "ge:"))
    assert "Default:" not in markdown  # image has no default
    _, markdown = _hover(DEPLOYMENT.replace("labels: {app: web}", "labels: {ap" + CURSOR + "p: web}"))
    assert "Default:" not in markdown
