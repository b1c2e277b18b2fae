"""CEL hover: roots, fields, functions, macros, variables, comprehension variables."""

from __future__ import annotations

from cel_feature_helpers import MAP, VAP, at, policy, snapshot

from vap_lsp.analysis.engine import AnalysisSettings
from vap_lsp.features.cel_hover import hover
from vap_lsp.features.snapshot import make_snapshot

EXPR = "|\n        variables.names.all(n, n.startsWith('x')) && object.spec.replicas <= 5"


def _hover(
    needle: str, delta: int = 0, expression_yaml: str = EXPR, template: str | None = None
) -> tuple[str, str]:
    text = policy(expression_yaml) if template is None else policy(expression_yaml, template)
    result = hover(snapshot(text), at(text, needle, delta))
    assert result is not None
    return text[result.span.start : result.span.end], result.markdown


def test_root_variable_names_the_matched_kinds() -> None:
    word, md = _hover("object.spec.replicas", 1)
    assert word == "object"
    assert "object: Deployment" in md
    assert "Matched kinds: apps/v1 Deployment, apps/v1 ReplicaSet" in md
    assert "validation expression" in md


def test_field_shows_type_and_schema_description() -> None:
    word, md = _hover("replicas <=", 2)
    assert word == "replicas"
    assert "replicas: int" in md and "Field of `Deployment.spec`" in md
    assert "Number of desired pods" in md


def test_function_shows_overloads_doc_and_version() -> None:
    word, md = _hover("startsWith", 4)
    assert word == "startsWith"
    assert "<string>.startsWith(string) -> bool" in md
    assert "Available in every supported Kubernetes version" in md


def test_function_introduced_later_names_its_version() -> None:
    _, md = _hover("isSemver", 2, "|\n        isSemver('1.0.0')")
    assert "Introduced in Kubernetes 1." in md


def test_macro() -> None:
    word, md = _hover("all(n", 1)
    assert word == "all"
    assert "Macro" in md and "<list|map>.all(x, predicate)" in md


def test_variables_x_shows_expression_and_type() -> None:
    word, md = _hover("names.all", 1)
    assert word == "names"
    assert "variables.names: list(string)" in md
    assert "object.spec.template.spec.containers.map(c, c.name)" in md


def test_comprehension_variable_type() -> None:
    word, md = _hover("n.startsWith", 0)
    assert word == "n"
    assert "n: string" in md and "Comprehension variable" in md
    word, md = _hover("c.name", 0)
    assert "containers.@idx" in md


def test_hover_in_a_double_quoted_scalar_maps_through_escapes() -> None:
    word, md = _hover("replicas", 2, '"\\"a\\" != \\"\\" && object.spec.replicas > 1"')
    assert word == "replicas" and "replicas: int" in md


def test_map_json_patch_kind() -> None:
    word, md = _hover(
        "object", 1, "|\n          [JSONPatch{op: 'add', path: '/x', value: object.metadata.name}]", MAP
    )
    assert word == "object" and "object: Pod" in md and "JSONPatch expression" in md


def test_outside_cel() -> None:
    text = policy(EXPR)
    assert hover(snapshot(text), at(text, "name: de", 2)) is None


def test_field_says_whether_it_is_there_at_admission_and_why() -> None:
    # analysis.guarantees: what the API server guarantees by the time the policy runs.
    expression = "|\n        object.kind == 'Deployment' && object.metadata.name != '' && object.spec.paused"
    _, md = _hover("kind ==", 1, expression)
    assert "**At admission**: always present (always set: every object at admission carries its kind)." in md
    _, md = _hover("name !=", 1, expression)
    assert "always present (always set: a name (or one generated from generateName) is required)" in md
    _, md = _hover("paused", 1, expression)
    assert "**At admission**: may be absent (optional in the schema); read it with `has()` or `.?`." in md
    _, md = _hover("strategy", 1, "|\n        object.spec.strategy != null")
    assert "always present (defaulted to {} (the schema's default, applied when the object is decoded))" in md


def test_field_of_a_comprehension_variable_and_of_a_mutating_policy() -> None:
    _, md = _hover(
        "name.start", 1, "|\n        object.spec.template.spec.containers.all(c, c.name.startsWith('x'))"
    )
    assert "always present (required: always serialized, and required by the server's validation)" in md
    _, md = _hover(
        "name}]", 1, "|\n          [JSONPatch{op: 'add', path: '/x', value: object.metadata.name}]", MAP
    )
    assert "may be absent (absent on CREATE when the object has metadata.generateName" in md


def test_a_root_says_where_admission_makes_it_null_for_this_policy() -> None:
    _, md = _hover(
        "oldObject", 1, "|\n        oldObject == null || object.spec.replicas >= oldObject.spec.replicas"
    )
    assert "**At admission**: null on CREATE, which this policy matches." in md
    _, md = _hover("object.spec", 1)
    assert "**At admission**" not in md  # the policy matches CREATE only: object is never null


def test_a_field_the_api_server_defaults_says_to_what_and_which_defaulter() -> None:
    _, md = _hover("replicas <=", 2)
    assert (
        "always present (defaulted to 1 by the API server (SetDefaults_Deployment (apps/v1)) for apps/v1 "
        "Deployment; defaulted to 1 by the API server (SetDefaults_ReplicaSet (apps/v1)) for apps/v1 "
        "ReplicaSet)"
    ) in md
    _, md = _hover(
        "imagePullPolicy",
        1,
        "|\n        object.spec.template.spec.containers.all(c, c.imagePullPolicy != '')",
    )
    assert "always present (defaulted to " in md and "SetDefaults_Container (core/v1)" in md


def test_a_field_says_why_for_each_kind_its_branch_can_run_for() -> None:
    # In a branch a guard narrows to ReplicaSet, only ReplicaSet's defaulter is the reason.
    _, md = _hover("replicas <=", 2, "|\n        object.kind == 'ReplicaSet' && object.spec.replicas <= 5")
    assert (
        "**At admission**: always present (defaulted to 1 by the API server "
        "(SetDefaults_ReplicaSet (apps/v1)))." in md
    )
    # generation: PrepareForCreate sets it for a Deployment; a Pod's only since 1.33.
    pods_and_deployments = VAP.replace('["apps"]', '["", "apps"]').replace(
        '["deployments", "replicasets"]', '["pods", "deployments"]'
    )
    text = policy("|\n        object.metadata.generation >= 1", pods_and_deployments)
    result = hover(
        make_snapshot("file:///t.yaml", text, 1, AnalysisSettings("1.32")), at(text, "generation", 1)
    )
    assert result is not None
    assert (
        "**At admission**: may be absent (optional in the schema for v1 Pod; always set: the registry sets "
        "it (1 on create) before this point for apps/v1 Deployment); read it with `has()` or `.?`."
    ) in result.markdown


def test_object_is_typed_as_a_kind_whose_requests_reach_the_policy() -> None:
    # excludeResourceRules take every Deployment request away: ReplicaSet is what object can be.
    excluding = VAP.replace(
        "  variables:\n",
        "    excludeResourceRules:\n"
        '      - {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [deployments]}\n'
        "  variables:\n",
    )
    _, md = _hover("object.spec.replicas", 1, template=excluding)
    assert "object: ReplicaSet" in md
    assert "(typed as ReplicaSet: no request of the first gets past the rules)" in md


def test_a_timestamp_field_says_it_is_a_string_at_admission() -> None:
    word, md = _hover(
        "creationTimestamp",
        2,
        "|\n        timestamp(object.metadata.creationTimestamp) > timestamp('2020-01-01T00:00:00Z')",
    )
    assert word == "creationTimestamp" and "creationTimestamp: timestamp" in md
    assert (
        "always present (always set by the API server before validating admission). "
        "It is an RFC 3339 string there, not a `timestamp`" in md
    )
    _, md = _hover("replicas <=", 2)
    assert "string there" not in md


def test_an_untyped_quantity_field_says_why_the_server_warns() -> None:
    word, md = _hover(
        "limits)", 2, "|\n        object.spec.template.spec.containers.all(c, 'cpu' in c.resources.limits)"
    )
    assert word == "limits"
    assert md.startswith("```cel\nlimits: untyped (Quantity)\n```")
    assert "warns `undefined field 'limits'`" in md and "`dyn(...)`" in md
