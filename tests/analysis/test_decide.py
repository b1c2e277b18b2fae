"""`narrowing.decide`: the value of a guard for one class of admission requests, when it is the
same in every request of the class (issue 39: the narrowing evaluator was tested only through
whole policies, and a CONNECT-only policy, cluster-scoped kinds, absent fields and variables were
left at the edges).

What a request holds (kubernetes `staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/
activation.go`, `policy/validating/dispatcher.go`): `oldObject` null on CREATE and CONNECT,
`object` null on DELETE and the connect options (`PodExecOptions`...) on CONNECT, `request.kind`
the options' kind on CONNECT, `namespaceObject` null for a cluster-scoped kind (a Namespace's own
requests carry its name as `request.namespace`), `params` null without a `paramKind`; CEL's
heterogeneous equality (`'1' == 1` is false), `&&`/`||` absorbing errors.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from vap_lsp.analysis.model.matching import GVK
from vap_lsp.analysis.model.narrowing import Facts, decide, guarded, params_unguarded, reachability
from vap_lsp.analysis.model.sites import ExpressionSite, expression_sites
from vap_lsp.cel.ast import ParsedExpr, subtree
from vap_lsp.cel.compile import parse_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import MappingNode, to_python
from vap_lsp.yaml.parse import parse_yaml

ENV = build_environment("1.35", ExpressionKind.VALIDATION, has_params=True, mode="stored")
POD = GVK("", "v1", "Pod")
NODE = GVK("", "v1", "Node")
NAMESPACE = GVK("", "v1", "Namespace")


def _parse(text: str) -> ParsedExpr:
    parsed = parse_expression(text, ENV)
    assert parsed.ast is not None, text
    return parsed


def _facts(ops: str = "CREATE", gvk: GVK | None = POD, **extra: object) -> Facts:
    return Facts(gvk, frozenset({"pods"}), frozenset(ops.split(",")), **extra)  # type: ignore[arg-type]


def _decide(
    text: str,
    facts: Facts,
    variables: Mapping[str, str] | None = None,
    *,
    for_kind: bool = True,
) -> bool | None:
    parsed = {name: _parse(v) for name, v in (variables or {}).items()}
    ast = _parse(text).ast
    assert ast is not None
    return decide(ast, facts, parsed, for_kind=for_kind)


@pytest.mark.parametrize(
    ("text", "ops", "expected"),
    [
        ("request.operation == 'CREATE'", "CREATE", True),
        ("request.operation == 'CREATE'", "UPDATE", False),
        ("request.operation == 'CREATE'", "CREATE,UPDATE", None),
        ("request.operation in ['CREATE', 'UPDATE']", "CREATE,UPDATE", True),
        ("request.operation in ['CREATE']", "CREATE,UPDATE", None),
        ("request.operation != 'DELETE'", "CREATE,UPDATE", True),
        ("oldObject == null", "CREATE", True),
        ("oldObject == null", "CONNECT", True),
        ("oldObject == null", "CREATE,CONNECT", True),
        ("oldObject == null", "UPDATE", False),
        ("oldObject == null", "UPDATE,DELETE", False),
        ("oldObject == null", "CREATE,UPDATE", None),
        ("object == null", "DELETE", True),
        ("object == null", "CREATE,UPDATE", False),
        ("object == null", "CREATE,DELETE", None),
        # heterogeneous equality: values of different types are never equal
        ("request.operation == 1", "CREATE", False),
        ("request.operation == true", "CREATE", False),
        ("oldObject == 'x'", "CREATE", False),
    ],
)
def test_operations(text: str, ops: str, expected: bool | None) -> None:
    assert _decide(text, _facts(ops)) is expected


@pytest.mark.parametrize(
    ("text", "ops", "for_kind", "expected"),
    [
        # object is of the kind on CREATE; on CONNECT it is the connect options
        ("object.kind == 'Pod'", "CREATE", True, True),
        ("object.kind == 'Deployment'", "CREATE", True, False),
        ("object.kind == 'Pod'", "CONNECT", True, None),
        # for the kind's type, a CONNECT beside other operations is left out ...
        ("object.kind == 'Pod'", "CREATE,CONNECT", True, True),
        # ... but not when every request counts
        ("object.kind == 'Pod'", "CREATE,CONNECT", False, None),
        # request.kind is the options' kind on CONNECT
        ("request.kind.kind == 'Pod'", "CREATE,UPDATE", True, True),
        ("request.kind.kind == 'Pod'", "CONNECT", True, None),
        ("request.kind.group == ''", "CREATE", True, True),
        ("request.kind.version == 'v1'", "CREATE", True, True),
        ("request.resource.resource == 'pods'", "CREATE", True, True),
        ("request.resource.resource == 'pods'", "CONNECT", True, True),
        ("request.resource.group == 'apps'", "CREATE", True, False),
        ("request.resource.version == 'v1'", "CREATE", True, True),
        # oldObject.kind: the kind on UPDATE, an error on CREATE (left out for the kind's type)
        ("oldObject.kind == 'Pod'", "UPDATE", True, True),
        ("oldObject.kind == 'Pod'", "CREATE,UPDATE", True, True),
        ("oldObject.kind == 'Pod'", "CREATE,UPDATE", False, None),
    ],
)
def test_kinds_and_connect(text: str, ops: str, for_kind: bool, expected: bool | None) -> None:
    assert _decide(text, _facts(ops), for_kind=for_kind) is expected


@pytest.mark.parametrize(
    ("text", "gvk", "namespaced", "expected"),
    [
        ("namespaceObject == null", NODE, False, True),
        ("namespaceObject == null", POD, True, None),
        ("request.namespace == ''", NODE, False, True),
        # a Namespace's own requests carry its name as the namespace
        ("request.namespace == ''", NAMESPACE, False, None),
        ("namespaceObject == null", NAMESPACE, False, True),
        ("request.namespace == ''", POD, None, None),
    ],
)
def test_scope(text: str, gvk: GVK, namespaced: bool | None, expected: bool | None) -> None:
    assert _decide(text, _facts("CREATE", gvk, namespaced=namespaced)) is expected


def test_params_and_null_roots() -> None:
    assert _decide("params == null", _facts(has_params=False)) is True
    assert _decide("params == null", _facts(has_params=True)) is None
    assert _decide("params == null", _facts(null_roots=frozenset({"params"}))) is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("has(object.spec.hostNetwork)", False),
        ("!has(object.spec.hostNetwork)", True),
        ("has(object.spec.hostPID)", None),
        # only the field written from the root is absent, not a deeper one of another path
        ("has(object.metadata.hostNetwork)", None),
        # has() on a null root is false; one level deeper it fails (nothing decided)
        ("has(oldObject.spec)", False),
        ("has(oldObject.spec.hostNetwork)", None),
    ],
)
def test_absent_fields_and_presence(text: str, expected: bool | None) -> None:
    facts = _facts("CREATE", absent=frozenset({"object.spec.hostNetwork"}))
    assert _decide(text, facts) is expected


def test_a_shadowed_root_is_not_the_root() -> None:
    """A comprehension variable named like a root is that variable, not the root."""
    facts = _facts("CREATE", absent=frozenset({"object.spec.hostNetwork"}))
    assert _decide("[{'spec': {}}].all(object, has(object.spec.hostNetwork))", facts) is None


@pytest.mark.parametrize(
    "text",
    [
        # a comprehension variable named `request` is that variable: its `kind` is the map's
        "[{'kind': {'kind': 'Secret'}}].all(request, request.kind.kind == 'Pod')",
        "[{'resource': {'group': 'x'}}].all(request, request.resource.group == '')",
        # `kind.kind` / `resource.group` of another root or variable is not the request's
        "[{'kind': {'kind': 'Secret'}}].all(r, r.kind.kind == 'Pod')",
        "params.kind.kind == 'Pod'",
        "object.resource.version == 'v1'",
    ],
)
def test_only_the_request_has_the_request_kind(text: str) -> None:
    """`request.kind.kind` and `request.resource.group` are facts of the request only."""
    assert _decide(text, _facts("CREATE")) in (False, None)


def test_variables_carry_facts() -> None:
    variables = {
        "isCreate": "request.operation == 'CREATE'",
        "k": "object.kind",
        "alias": "variables.isCreate",
    }
    assert _decide("variables.isCreate", _facts("CREATE"), variables) is True
    assert _decide("variables.alias", _facts("UPDATE"), variables) is False
    assert _decide("variables.k == 'Pod'", _facts("CREATE"), variables) is True
    assert _decide("variables.unknown", _facts("CREATE"), variables) is None
    # a variable cycle decides nothing
    cycle = {"a": "variables.b", "b": "variables.a"}
    assert _decide("variables.a", _facts("CREATE"), cycle) is None


def test_decide_is_for_the_kinds_type_by_default() -> None:
    """Left unsaid, `for_kind` is the kind's type (what `PolicyContext` asks of a kind-dispatching
    variable and of a matchCondition): a CONNECT's requests, whose `object` is the options, are
    left out beside other operations."""
    ast = _parse("object.kind == 'Pod'").ast
    assert ast is not None
    assert decide(ast, _facts("CREATE,CONNECT"), {}) is True
    assert decide(ast, _facts("CREATE,CONNECT"), {}, for_kind=False) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # `object.?kind` on a Pod is `optional.of('Pod')` (cel-go's optional select, `.?`)
        ("object.?kind.hasValue()", True),
        ("!object.?kind.hasValue()", False),
        ("object.?kind.value() == 'Pod'", True),
        ("object.?kind.orValue('') == 'Deployment'", False),
        ("object.?apiVersion.orValue('') == 'v1'", True),
        # labels may be absent: nothing decided
        ("object.?metadata.?labels.hasValue()", None),
    ],
)
def test_optionals(text: str, expected: bool | None) -> None:
    assert _decide(text, _facts("CREATE")) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("request.operation.startsWith('CRE')", True),
        ("request.operation.startsWith('UPD')", False),
        ("request.operation.endsWith('ATE')", True),
        ("request.operation.endsWith('CRE')", False),
        ("request.operation.contains('EAT')", True),
        ("request.operation.contains('DEL')", False),
        ("object.apiVersion.startsWith('v')", True),
        # an unknown receiver or argument decides nothing (and the other side of `||` still does)
        ("object.metadata.name.startsWith('kube-')", None),
        ("request.operation.startsWith(object.metadata.name)", None),
        ("object.metadata.name.contains('x') || request.operation == 'CREATE'", True),
        ("request.operation.endsWith(object.metadata.name) && request.operation == 'UPDATE'", False),
    ],
)
def test_string_tests(text: str, expected: bool | None) -> None:
    """`startsWith`, `endsWith` and `contains` of two known strings (cel-go `strings` overloads)."""
    assert _decide(text, _facts("CREATE")) is expected


@pytest.mark.parametrize(
    "text",
    [
        # CREATE matches the pattern (RE2, unanchored search as cel-go's `matches`) ...
        "request.operation.matches('^C.*E$')",
        # ... and its `E` is at index 2 (`indexOf`, Kubernetes' strings library)
        "request.operation.indexOf('E') == 2",
    ],
)
def test_other_string_functions_are_never_decided_false(text: str) -> None:
    """Only the three string tests above are evaluated: another function of one string argument
    is not a substring test (true, or not decided; never false)."""
    assert _decide(text, _facts("CREATE")) in (True, None)


def test_logic() -> None:
    facts = _facts("CREATE")
    assert _decide("request.operation == 'CREATE' && oldObject == null", facts) is True
    assert _decide("request.operation == 'UPDATE' || oldObject == null", facts) is True
    assert _decide("request.operation == 'UPDATE' && object.spec.x == 1", facts) is False
    assert _decide("request.operation == 'CREATE' ? true : false", facts) is True
    assert _decide("!(request.operation == 'CREATE')", facts) is False


def test_reachability_names_the_guard() -> None:
    """A branch the kind never takes is unreachable, with the guard that rules it out."""
    parsed = _parse("object.kind == 'Deployment' ? object.spec.replicas > 1 : true")
    reach = reachability(parsed, _facts("CREATE"), {})
    assert reach.narrowed
    assert parsed.ast is not None
    branch = parsed.ast.args[1]  # type: ignore[attr-defined]
    guard = reach.guard_of(branch)
    assert guard is not None and str(guard) == "object.kind == 'Deployment' ? … : …"
    # for a CONNECT-only policy nothing is decided: object is the connect options
    assert not reachability(parsed, _facts("CONNECT"), {}).narrowed


# --- params without a paramRef: null in every request (NullFlow over the policy's sites) ---------


def _sites(spec: str) -> list[ExpressionSite]:
    text = (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata: {name: p}\nspec:\n  paramKind: {apiVersion: v1, kind: ConfigMap}\n" + spec
    )
    root = parse_yaml(text).documents[0].root
    assert isinstance(root, MappingNode)
    data = to_python(root)
    assert isinstance(data, dict)
    return expression_sites(root, PolicyKind.VAP, data["spec"])


@pytest.mark.parametrize(
    ("spec", "unguarded"),
    [
        ("  validations:\n  - expression: \"params.data.x == '1'\"\n", True),
        ("  validations:\n  - expression: \"params == null || params.data.x == '1'\"\n", False),
        ("  validations:\n  - expression: \"params != null && params.data.x == '1'\"\n", False),
        # dyn() of params is params
        ("  validations:\n  - expression: \"dyn(params).data.x == '1'\"\n", True),
        # a conditional's branch that can run
        ("  validations:\n  - expression: \"(true ? params : params).data.x == '1'\"\n", True),
        (
            "  validations:\n  - expression: \"(params == null ? {'data': {}} : params).data.x == '1'\"\n",
            False,
        ),
        # through a variable holding params, read where it can be null
        (
            "  variables:\n  - {name: p, expression: params}\n"
            "  validations:\n  - expression: \"variables.p.data.x == '1'\"\n",
            True,
        ),
        (
            "  variables:\n  - {name: p, expression: params}\n"
            "  validations:\n  - expression: \"params == null || variables.p.data.x == '1'\"\n",
            False,
        ),
        # a variable holding a variable holding params
        (
            "  variables:\n  - {name: p, expression: params}\n  - {name: q, expression: variables.p}\n"
            "  validations:\n  - expression: \"variables.q.data.x == '1'\"\n",
            True,
        ),
        # a variable that reads params, never read by an expression: evaluated nowhere
        (
            '  variables:\n  - {name: x, expression: "params.data.x"}\n'
            '  validations:\n  - expression: "true"\n',
            False,
        ),
        (
            '  variables:\n  - {name: x, expression: "params.data.x"}\n'
            "  validations:\n  - expression: \"variables.x == '1'\"\n",
            True,
        ),
        # a matchCondition guards every expression
        (
            "  matchConditions:\n  - {name: has-params, expression: 'params != null'}\n"
            "  validations:\n  - expression: \"params.data.x == '1'\"\n",
            False,
        ),
        # a messageExpression that fails falls back to message
        (
            '  validations:\n  - expression: "true"\n    messageExpression: "params.data.x"\n',
            False,
        ),
    ],
)
def test_params_unguarded(spec: str, unguarded: bool) -> None:
    """A binding without `paramRef` runs the policy with null params (`CollectParams`: "Validate
    with nil params"); `references` warns on such a binding when this says the policy reads
    params unguarded."""
    assert params_unguarded(_sites(spec)) is unguarded


def test_a_conditional_failing_at_a_null_root_is_left_out_for_the_kind() -> None:
    """`oldObject.kind == 'Pod' ? a : b` fails on CREATE (its condition reads a null root): for
    the kind's type only UPDATE counts, where it is the Pod."""
    facts = _facts("CREATE,UPDATE")
    assert _decide("oldObject.kind == 'Pod' ? true : false", facts, for_kind=True) is True
    assert _decide("oldObject.kind == 'Pod' ? true : false", facts, for_kind=False) is None
    # a failure in a branch is not the conditional's
    assert _decide("request.operation == 'UPDATE' ? oldObject.kind == 'Pod' : true", facts) is True


def test_several_resources_of_one_kind() -> None:
    """`request.resource.resource` is one of the kind's resources: decided only when all agree."""
    facts = Facts(POD, frozenset({"pods", "pods-legacy"}), frozenset({"CREATE"}))
    assert _decide("request.resource.resource == 'pods'", facts) is None
    assert _decide("request.resource.resource == 'nodes'", facts) is False
    assert _decide("request.resource.resource in ['pods', 'pods-legacy']", facts) is True
    assert _decide("request.resource.resource in ['pods']", facts) is None
    assert _decide("request.resource.resource == 1", facts) is None


GUARDED_EXPRESSIONS = [
    "object.kind == 'Deployment' ? object.spec.replicas > 1 : object.spec.containers.size() > 0",
    "request.operation == 'UPDATE' && oldObject.metadata.name == object.metadata.name",
    "oldObject == null || oldObject.metadata.name == 'x'",
    "has(object.spec.hostNetwork) && object.spec.hostNetwork",
    "variables.isUpdate ? oldObject.metadata.name == 'x' : true",
    "object.spec.containers.all(c, object.kind == 'Pod' || c.image == 'x')",
]


@pytest.mark.parametrize("ops", ["CREATE", "CREATE,UPDATE", "UPDATE,DELETE", "CREATE,CONNECT"])
@pytest.mark.parametrize("text", GUARDED_EXPRESSIONS)
def test_guarded_agrees_with_the_whole_walk(text: str, ops: str) -> None:
    """`guarded(…, node)` decides only the conditions on the way to `node`: it must agree with
    `reachability(…).guard_of(node)` for every node."""
    facts = _facts(ops, absent=frozenset({"object.spec.hostNetwork"}))
    variables = {"isUpdate": _parse("request.operation == 'UPDATE'")}
    parsed = _parse(text)
    assert parsed.ast is not None
    reach = reachability(parsed, facts, variables)
    for node in subtree(parsed.ast):
        assert guarded(parsed, facts, variables, node) is (reach.guard_of(node) is not None), text[
            node.start : node.end
        ]
