"""The operations a policy runs for, at their edges (issue 39): a CONNECT-only policy (its
`object` is the connect options, never the kind; no `oldObject`, no CREATE and no DELETE),
`namespaceObject` inside matchConditions (always null there), and what admission guarantees per
operation.

Kubernetes: `staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating/plugin.go`
(`admission.NewHandler(Connect, Create, Delete, Update)`; a MutatingAdmissionPolicy's handler
has no Delete), `pkg/admission/plugin/webhook/matchconditions/matcher.go` (`Match` calls
`ForInput(..., nil /* namespace */, ...)`: `namespaceObject` is null in every matchCondition),
`pkg/admission/plugin/cel/activation.go` / `filter.go` (`oldObject` null on CREATE and CONNECT,
`object` null on DELETE), `registry/rest/create.go` (the name generated from `generateName`
before validation, after mutating admission).
"""

from __future__ import annotations

import textwrap

import pytest

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.guarantees import Point, matched_operations, policy_operations
from vap_lsp.analysis.model.matching import ALL_OPERATIONS
from vap_lsp.policy.kinds import PolicyKind


def _policy(
    ops: str,
    body: str,
    kind: str = "ValidatingAdmissionPolicy",
    api: str = "v1",
    resources: str = '"pods", "pods/exec"',
) -> str:
    return (
        f"apiVersion: admissionregistration.k8s.io/{api}\nkind: {kind}\nmetadata: {{name: p}}\nspec:\n"
        "  matchConstraints:\n    resourceRules:\n"
        f'    - {{apiGroups: [""], apiVersions: ["v1"], operations: [{ops}], resources: [{resources}]}}\n'
        + textwrap.indent(textwrap.dedent(body), "  ")
    )


NULL_CODES = ("old-object-on-create", "object-on-delete", "namespace-object-null")


def _codes(text: str, codes: tuple[str, ...] = NULL_CODES) -> list[tuple[str, str]]:
    diagnostics = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    return [(d.code, d.message) for d in diagnostics if d.code in codes]


def _validation(expression: str) -> str:
    return f'validations:\n- expression: "{expression}"\n'


# --------------------------------------------------------------------------- null roots


@pytest.mark.parametrize(
    ("ops", "expression", "expected"),
    [
        # CONNECT has no oldObject either, but it is no CREATE: the CREATE warning would lie.
        ("CONNECT", "oldObject.metadata.name == 'x'", []),
        ("CONNECT", "object.metadata.name == 'x'", []),
        (
            "CREATE, CONNECT",
            "oldObject.metadata.name == 'x'",
            [
                (
                    "old-object-on-create",
                    "spec.validations[0].expression: oldObject is null on CREATE, which this policy "
                    "matches; guard with `oldObject == null || ...` or `request.operation == 'UPDATE'`",
                )
            ],
        ),
        ("UPDATE", "oldObject.metadata.name == 'x'", []),
        (
            '"*"',
            "object.metadata.name == 'x'",
            [
                (
                    "object-on-delete",
                    "spec.validations[0].expression: object is null on DELETE, which this policy "
                    "matches; guard with `object == null || ...` or `request.operation != 'DELETE'`",
                )
            ],
        ),
        # A guard on the operation keeps the CREATE out.
        ("CREATE, UPDATE", "request.operation == 'UPDATE' && oldObject.metadata.name == 'x'", []),
        ("CREATE, CONNECT", "request.operation == 'CREATE' || oldObject.metadata.name == 'x'", []),
    ],
)
def test_null_roots_follow_the_matched_operations(
    ops: str, expression: str, expected: list[tuple[str, str]]
) -> None:
    assert _codes(_policy(ops, _validation(expression))) == expected


NS_IN_CONDITIONS = (
    "namespace-object-null",
    "spec.matchConditions[0].expression: namespaceObject is null in matchConditions (the server "
    "evaluates them without the namespace); guard with `namespaceObject == null || ...`",
)


@pytest.mark.parametrize("ops", ["CONNECT", "CREATE", "UPDATE", "DELETE", '"*"'])
def test_namespace_object_in_match_conditions_is_null_for_every_operation(ops: str) -> None:
    """matcher.go `Match`: `ForInput(..., nil, ...)`, whatever the request and the kind's scope."""
    body = (
        "matchConditions:\n- {name: ns, expression: \"namespaceObject.metadata.name == 'x'\"}\n"
        + _validation("true")
    )
    assert _codes(_policy(ops, body), ("namespace-object-null",)) == [NS_IN_CONDITIONS]


def test_namespace_object_in_a_match_condition_guarded_or_in_a_validation() -> None:
    guarded = (
        'matchConditions:\n- {name: ns, expression: "namespaceObject == null || '
        "namespaceObject.metadata.name == 'x'\"}\n" + _validation("true")
    )
    assert _codes(_policy("CREATE", guarded)) == []
    # In a validation of a namespaced kind it is the namespace: no warning.
    assert _codes(_policy("CREATE", _validation("namespaceObject.metadata.name == 'x'"))) == []
    # The second condition of two is concerned too.
    two = (
        "matchConditions:\n- {name: a, expression: 'true'}\n"
        '- {name: b, expression: "namespaceObject.metadata.labels.size() > 0"}\n' + _validation("true")
    )
    assert [m.split(":")[0] for _, m in _codes(_policy("CREATE", two))] == [
        "spec.matchConditions[1].expression"
    ]


# --------------------------------------------------------------------------- operations


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ([{"operations": ["CONNECT"]}], {"CONNECT"}),
        ([{"operations": ["*"]}], set(ALL_OPERATIONS)),
        ([{"operations": ["CREATE"]}, {"operations": ["CONNECT"]}], {"CREATE", "CONNECT"}),
        ([], set()),
    ],
)
def test_matched_operations(rules: list[dict[str, list[str]]], expected: set[str]) -> None:
    full = [
        {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods", "pods/exec"], **r} for r in rules
    ]
    assert matched_operations({"matchConstraints": {"resourceRules": full}}) == expected


def test_matched_operations_without_constraints() -> None:
    assert matched_operations({}) == frozenset()
    assert matched_operations({"matchConstraints": "junk"}) == frozenset()
    assert matched_operations({"matchConstraints": {"resourceRules": "junk"}}) == frozenset()


def test_a_mutating_policy_cannot_match_delete() -> None:
    """The MAP plugin's handler: Connect, Create, Update."""
    assert policy_operations(PolicyKind.MAP) == {"CREATE", "UPDATE", "CONNECT"}
    assert policy_operations(PolicyKind.VAP) == {"CREATE", "UPDATE", "DELETE", "CONNECT"}
    rules = [{"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": ["*"]}]
    spec = {"matchConstraints": {"resourceRules": rules}}
    assert matched_operations(spec, PolicyKind.MAP) == {"CREATE", "UPDATE", "CONNECT"}
    assert matched_operations(spec, PolicyKind.VAP) == set(ALL_OPERATIONS)


@pytest.mark.parametrize(
    ("operations", "writes"),
    [
        ({"CONNECT"}, set()),
        ({"DELETE"}, set()),
        ({"CREATE", "CONNECT"}, {"CREATE"}),
        ({"CREATE", "UPDATE", "DELETE", "CONNECT"}, {"CREATE", "UPDATE"}),
    ],
)
def test_the_operations_that_carry_the_object(operations: set[str], writes: set[str]) -> None:
    """CONNECT's object is its options (PodExecOptions...), DELETE's is null."""
    point = Point(PolicyKind.VAP, frozenset(operations))
    assert point.writes == writes
    assert not point.mutating
    assert Point(PolicyKind.MAP, frozenset(operations)).mutating


# --------------------------------------------------------------------------- guarantees per operation


def _hints(ops: str, expression: str, kind: str = "ValidatingAdmissionPolicy", api: str = "v1") -> list[str]:
    body = _validation(expression)
    if kind == "MutatingAdmissionPolicy":
        body = (
            "reinvocationPolicy: Never\nmutations:\n- patchType: JSONPatch\n  jsonPatch:\n"
            f"    expression: \"{expression} ? [JSONPatch{{op: 'add', path: '/metadata/labels/a', "
            "value: 'b'}] : []\"\n"
        )
    text = _policy(ops, body, kind, api, '"pods"')
    return [m for _, m in _codes(text, ("optional-field",))]


@pytest.mark.parametrize(
    ("kind", "api", "ops", "absent"),
    [
        # Validating admission runs after the name is generated: always set.
        ("ValidatingAdmissionPolicy", "v1", "CREATE", False),
        # Mutating admission on CREATE runs before it: absent with generateName.
        ("MutatingAdmissionPolicy", "v1beta1", "CREATE", True),
        ("MutatingAdmissionPolicy", "v1beta1", "UPDATE", False),
        # A CONNECT-only mutating policy writes no object of the kind: nothing to warn of.
        ("MutatingAdmissionPolicy", "v1beta1", "CONNECT", False),
    ],
)
def test_metadata_name_with_generate_name(kind: str, api: str, ops: str, absent: bool) -> None:
    hints = _hints(ops, "object.metadata.name == 'x'", kind, api)
    assert bool(hints) is absent, hints
    if absent:
        assert "absent on CREATE when the object has metadata.generateName" in hints[0]
