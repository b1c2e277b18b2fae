"""MutatingAdmissionPolicy mutations checked against the matched kinds' schemas.

The server accepts all of these at create time (mutations compile against a schemaless
`Object` type) and fails at admission, so they are warnings of vap-lsp's own
(`map-apply-configuration`, `map-json-patch`), placed on the offending sub-expression.
"""

from __future__ import annotations

import textwrap

import pytest

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text

CODES = ("map-apply-configuration", "map-json-patch")


def _map(mutations: str, *, resources: str = '["deployments"]', group: str = "apps") -> str:
    return textwrap.dedent(
        f"""\
            apiVersion: admissionregistration.k8s.io/v1beta1
            kind: MutatingAdmissionPolicy
            metadata:
              name: demo
            spec:
              matchConstraints:
                resourceRules:
                  - apiGroups: ["{group}"]
                    apiVersions: ["v1"]
                    operations: ["CREATE"]
                    resources: {resources}
              failurePolicy: Fail
              reinvocationPolicy: Never
              mutations:
            """
    ) + textwrap.indent(textwrap.dedent(mutations), "    ")


def _apply(expression: str, **kw: str) -> str:
    return _map(
        f"- patchType: ApplyConfiguration\n  applyConfiguration:\n    expression: >\n      {expression}\n",
        **kw,
    )


def _patch(expression: str, **kw: str) -> str:
    return _map(f"- patchType: JSONPatch\n  jsonPatch:\n    expression: >\n      {expression}\n", **kw)


def _findings(text: str) -> list[tuple[Severity, str, str, str]]:
    """(severity, code, covered text, message) of the mutation findings."""
    diagnostics: list[Diagnostic] = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    return [
        (d.severity, d.code, text[d.span.start : d.span.end], d.message)
        for d in diagnostics
        if d.code in CODES
    ]


def _errors(text: str) -> list[str]:
    return [
        d.message
        for d in analyse_text(text, AnalysisSettings("1.34")).diagnostics
        if d.severity is Severity.ERROR
    ]


APPLY = "spec.mutations[0].applyConfiguration.expression"
PATCH = "spec.mutations[0].jsonPatch.expression"
DEPLOYMENT = "apps/v1, Kind=Deployment"


# --- ApplyConfiguration ----------------------------------------------------------------------------


def test_nested_type_name_must_match_the_field_path() -> None:
    text = _apply("Object{spec: Object.specx{replicas: 1}}")
    assert _errors(text) == []  # the server accepts it at create time
    assert _findings(text) == [
        (
            Severity.WARNING,
            "map-apply-configuration",
            "Object.specx",
            f'{APPLY}: unexpected type name "Object.specx", expected "Object.spec", which matches '
            "field name path from root Object type (fails at admission)",
        )
    ]


def test_list_elements_use_the_list_fields_path_also_through_map() -> None:
    ok = _apply(
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        "containers: [Object.spec.template.spec.containers{name: 'a', image: 'b'}]}}}}"
    )
    assert _findings(ok) == []
    bad = _apply(
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        "containers: object.spec.template.spec.containers.map(c, "
        "Object.spec.template.spec.containerz{name: c.name})}}}}"
    )
    ((_, _, covered, message),) = _findings(bad)
    assert covered == "Object.spec.template.spec.containerz"
    assert 'expected "Object.spec.template.spec.containers"' in message


def test_undefined_field_with_did_you_mean() -> None:
    text = _apply("Object{spec: Object.spec{replicasx: 1}}")
    assert _findings(text) == [
        (
            Severity.WARNING,
            "map-apply-configuration",
            "replicasx",
            f"{APPLY}: undefined field 'replicasx' in spec of {DEPLOYMENT}; did you mean 'replicas'? "
            "(admission fails: field not declared in schema)",
        )
    ]


def test_value_type_against_schema_field_type() -> None:
    text = _apply("Object{spec: Object.spec{paused: 3, replicas: 'x', minReadySeconds: dyn('x')}}")
    findings = _findings(text)
    assert [(c, m.split(": ", 1)[1]) for _, _, c, m in findings] == [
        ("3", f"field 'spec.paused' of {DEPLOYMENT} is a bool but the value is 'int' (fails at admission)"),
        (
            "'x'",
            f"field 'spec.replicas' of {DEPLOYMENT} is a int but the value is 'string' (fails at admission)",
        ),
    ]


@pytest.mark.parametrize(
    "expression",
    [
        # a map-typed field built with an object type: the server accepts it (SOURCES.md)
        "Object{metadata: Object.metadata{labels: Object.metadata.labels{foo: 'bar'}}}",
        "Object{metadata: Object.metadata{annotations: {'a': dyn(1)}, labels: {'b': 'c'}}}",
        "Object{spec: Object.spec{replicas: object.spec.replicas + 1}}",
        "Object{spec: Object.spec{template: Object.spec.template{metadata: "
        "Object.spec.template.metadata{labels: {'a': 'b'}}}}}",
        # quantities take numbers as well as strings
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        "containers: [Object.spec.template.spec.containers{name: 'a', resources: "
        "Object.spec.template.spec.containers.resources{limits: {'cpu': 1}}}]}}}}",
    ],
)
def test_valid_apply_configurations_are_not_flagged(expression: str) -> None:
    assert _findings(_apply(expression)) == []


def test_field_missing_in_only_some_kinds_is_a_hint() -> None:
    text = _apply("Object{spec: Object.spec{replicas: 1}}", resources='["deployments", "daemonsets"]')
    ((severity, _, covered, message),) = _findings(text)
    assert severity is Severity.HINT
    assert covered == "replicas"
    assert "apps/v1, Kind=DaemonSet" in message and DEPLOYMENT not in message


def test_without_matched_kinds_only_type_names_are_checked() -> None:
    text = _apply("Object{spec: Object.specx{anything: 1}}", resources='["*"]')
    assert [c for _, _, c, _ in _findings(text)] == ["Object.specx"]


# --- JSONPatch -------------------------------------------------------------------------------------


def test_unknown_operation() -> None:
    text = _patch("[JSONPatch{op: 'ad', path: '/spec/replicas', value: 1}]")
    assert _findings(text) == [
        (
            Severity.WARNING,
            "map-json-patch",
            "'ad'",
            f"{PATCH}: unknown JSON Patch operation 'ad'; did you mean 'add'? (expected one of add, "
            "remove, replace, move, copy, test; fails at admission)",
        )
    ]


def test_pointer_syntax() -> None:
    text = _patch(
        "[JSONPatch{op: 'add', path: 'spec/replicas', value: 1}, "
        "JSONPatch{op: 'add', path: '/metadata/labels/a~2b', value: 'x'}, "
        "JSONPatch{op: 'add', path: '/metadata/labels/a~1b~0c', value: 'x'}]"
    )
    messages = [(c, m.split(": ", 1)[1]) for _, _, c, m in _findings(text)]
    assert messages == [
        (
            "'spec/replicas'",
            "JSON Patch path 'spec/replicas': a JSON Pointer must start with '/' (fails at admission)",
        ),
        (
            "'/metadata/labels/a~2b'",
            "JSON Patch path '/metadata/labels/a~2b': '~' must be followed by 0 or 1 in a JSON Pointer "
            "('~0' is '~', '~1' is '/')",
        ),
    ]


def test_path_segments_against_the_schema() -> None:
    text = _patch(
        "[JSONPatch{op: 'add', path: '/spec/replicaz', value: 1}, "
        "JSONPatch{op: 'add', path: '/spec/template/spec/containers/[name=a]/env/-', value: {}}, "
        "JSONPatch{op: 'replace', path: '/spec/template/spec/containers/-', value: {}}]"
    )
    messages = [m.split(": ", 1)[1] for _, _, _, m in _findings(text)]
    assert messages == [
        f"JSON Patch path '/spec/replicaz': no field 'replicaz' at /spec in {DEPLOYMENT}; "
        "did you mean 'replicas'? (fails at admission)",
        "JSON Patch path '/spec/template/spec/containers/[name=a]/env/-': /spec/template/spec/containers "
        f"is a list: '[name=a]' is not an index or '-' in {DEPLOYMENT} (fails at admission)",
        "JSON Patch path '/spec/template/spec/containers/-': '-' at /spec/template/spec/containers only "
        f"appends (as the last segment of add, move or copy) in {DEPLOYMENT} (fails at admission)",
    ]


def test_required_from_and_value() -> None:
    text = _patch(
        "[JSONPatch{op: 'add', path: '/spec/replicas'}, JSONPatch{op: 'copy', path: '/spec/paused'}]"
    )
    assert [(c, m.split(": ", 1)[1]) for _, _, c, m in _findings(text)] == [
        ("JSONPatch", "JSON Patch 'add' operation without 'value' (fails at admission)"),
        ("JSONPatch", "JSON Patch 'copy' operation without 'from' (fails at admission)"),
    ]


@pytest.mark.parametrize(
    "expression",
    [
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b'), value: 'x'}]",
        "[JSONPatch{op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'x'}]",
        "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/0/env/-', value: {'name': 'a'}}]",
        "[JSONPatch{op: 'remove', path: '/spec/template/spec/containers/1'}]",
        "[JSONPatch{op: 'move', from: '/spec/paused', path: '/spec/template/spec/containers/-'}]",
        "[JSONPatch{op: 'test', path: '', value: {}}]",
        "[JSONPatch{op: 'replace', path: '/spec/strategy/rollingUpdate/maxSurge', value: 1}]",
        "[JSONPatch{op: 'add', path: '/spec', value: Object.spec{replicas: 10}}]",
    ],
)
def test_valid_json_patches_are_not_flagged(expression: str) -> None:
    assert _findings(_patch(expression)) == []


def test_object_literal_names_inside_json_patch_values() -> None:
    text = _patch(
        "[JSONPatch{op: 'add', path: '/spec/template/spec/containers/-', value: "
        "Object.spec.template.spec.containers{name: 'x', ports: "
        "[Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]"
    )
    ((_, code, covered, message),) = _findings(text)
    assert code == "map-json-patch"
    assert covered == "Object.spec.template.spec.containers.portsZ"
    assert 'expected "Object.spec.template.spec.containers.ports"' in message


def test_plain_map_entries_in_a_json_patch_list_are_checked_too() -> None:
    # The server rejects the list of maps at create time; the path would fail even once fixed.
    text = _patch("[{'op': 'add', 'path': '/spec/replicaz', 'value': 1}]")
    assert _errors(text) != []
    assert [c for _, _, c, _ in _findings(text)] == ["'/spec/replicaz'"]


def test_findings_are_placed_in_block_scalars() -> None:
    text = _map(
        "- patchType: JSONPatch\n"
        "  jsonPatch:\n"
        "    expression: |\n"
        "      [\n"
        '        JSONPatch{op: "add", path: "/spec/replicaz", value: 1}\n'
        "      ]\n"
    )
    ((_, _, covered, _),) = _findings(text)
    assert covered == '"/spec/replicaz"'


def test_a_kind_every_request_of_which_is_excluded_is_not_checked_against() -> None:
    # policy/matching/matching.go: excludeResourceRules first; no DaemonSet reaches this policy.
    expression = "[JSONPatch{op: 'add', path: '/spec/replicas', value: 3}]"
    text = _patch(expression, resources='["deployments", "daemonsets"]')
    assert [covered for _, _, covered, _ in _findings(text)] == ["'/spec/replicas'"]  # for a DaemonSet
    excluded = text.replace(
        "  failurePolicy: Fail\n",
        "    excludeResourceRules:\n"
        '      - {apiGroups: [apps], apiVersions: [v1], operations: ["*"], resources: [daemonsets]}\n'
        "  failurePolicy: Fail\n",
    )
    assert "excludeResourceRules" in excluded
    assert _findings(excluded) == []


def test_a_literal_a_kind_never_reaches_is_not_checked_against_it() -> None:
    # For a DaemonSet the conditional picks `Object{}`: `replicas` is set on Deployments only,
    # and there it is certain (a warning, not a hint).
    kinds = '["deployments", "daemonsets"]'
    expression = "object.kind == 'Deployment' ? Object{spec: Object.spec{replicaz: 1}} : Object{}"
    ((severity, _, covered, message),) = _findings(_apply(expression, resources=kinds))
    assert (severity, covered) == (Severity.WARNING, "replicaz")
    assert DEPLOYMENT in message and "DaemonSet" not in message
    assert _findings(_apply(expression.replace("replicaz", "replicas"), resources=kinds)) == []
    patch = "object.kind == 'Deployment' ? [JSONPatch{op: 'add', path: '/spec/replicas', value: 3}] : []"
    assert _findings(_patch(patch, resources=kinds)) == []
    # A matchCondition that lets only Deployments through keeps DaemonSets out of every mutation.
    text = _apply("Object{spec: Object.spec{replicas: 1}}", resources=kinds).replace(
        "  failurePolicy: Fail\n",
        "  failurePolicy: Fail\n  matchConditions:\n"
        "    - name: deployments\n      expression: \"object.kind == 'Deployment'\"\n",
    )
    assert _findings(text) == []
