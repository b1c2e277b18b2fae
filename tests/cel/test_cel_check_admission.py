# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""Type checking in the admission-policy environments: expression → type, or exact error text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from vap_lsp.cel import types as t
from vap_lsp.cel.ast import Comprehension, Expr, Ident
from vap_lsp.cel.checker import CheckedExpr, check
from vap_lsp.cel.compile import parse_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment, schema_to_type

K = ExpressionKind


def _env(version: str = "1.34", kind: ExpressionKind = K.VALIDATION, **kw: Any) -> Environment:
    kw.setdefault("has_params", False)
    return build_environment(version, kind, **kw)


def _check(text: str, env: Environment) -> CheckedExpr:
    parsed = parse_expression(text, env)
    assert parsed.ok, [e.message for e in parsed.errors]
    return check(parsed, env)


def _type(text: str, env: Environment | None = None) -> str:
    checked = _check(text, env or _env())
    assert [i.message for i in checked.issues] == []
    return t.format_cel_type(checked.output_type)


def _errors(text: str, env: Environment | None = None) -> list[str]:
    checked = _check(text, env or _env())
    return [i.message for i in checked.issues]


def _located(text: str, env: Environment | None = None) -> list[tuple[str, int, int]]:
    checked = _check(text, env or _env())
    return [(i.message, i.start, i.end) for i in checked.issues]


# --- operators ----------------------------------------------------------------------------------

OPERATORS = [
    # arithmetic
    ("1 + 2 - 3 * 4 / 5 % 6", "int"),
    ("1u + 2u", "uint"),
    ("1.5 * 2.0", "double"),
    ("-1", "int"),
    ("-1.5", "double"),
    ("'a' + 'b'", "string"),
    ("b'a' + b'b'", "bytes"),
    ("[1] + [2]", "list(int)"),
    ("duration('1s') + duration('2s')", "duration"),
    ("timestamp('2024-01-01T00:00:00Z') + duration('1h')", "timestamp"),
    ("timestamp('2024-01-01T00:00:00Z') - timestamp('2023-01-01T00:00:00Z')", "duration"),
    ("object.x + 1", "int"),
    ("'a' + object.x", "string"),
    ("object.x + object.y", "dyn"),
    # comparisons, incl. cross-type numeric (compat 1.28)
    ("1 < 2 && 1 <= 2 && 2 > 1 && 2 >= 1", "bool"),
    ("1 < 1.5 && 2u > 1", "bool"),
    ("'a' < 'b'", "bool"),
    ("object.spec.replicas > 1", "bool"),
    ("1 == 1 && 'a' != 'b'", "bool"),
    ("object.spec == null", "bool"),
    ("null == object.spec", "bool"),
    # logic
    ("!true || false && true", "bool"),
    ("object.a || object.b", "bool"),
    ("true ? 1 : 2", "int"),
    ("true ? 1 : object.x", "dyn"),
    ("object.x ? 'a' : 'b'", "string"),
    # membership and indexing
    ("1 in [1, 2]", "bool"),
    ("'a' in {'a': 1}", "bool"),
    ("'a' in object.metadata.labels", "bool"),
    ("[1, 2][0]", "int"),
    ("{'a': 1}['a']", "int"),
    ("object.metadata.labels['app']", "dyn"),
    ("request.userInfo.extra['k']", "list(string)"),
    ("request.userInfo.groups[0]", "string"),
    # conversions and type values
    ("int('1') + int(1.5) + int(object.x)", "int"),
    ("string(1) + string(object.x)", "string"),
    ("double(1)", "double"),
    ("type(1) == int", "bool"),
    ("type(object) == map", "bool"),
    ("dyn(1)", "dyn"),
    ("size('abc') + 'abc'.size() + size([1]) + size({'a': 1})", "int"),
]


@pytest.mark.parametrize(("text", "expected"), OPERATORS)
def test_operator_types(text: str, expected: str) -> None:
    assert _type(text) == expected


OPERATOR_ERRORS = [
    ("1 + 'a'", ["found no matching overload for '_+_' applied to '(int, string)'"]),
    ("1 + 1u", ["found no matching overload for '_+_' applied to '(int, uint)'"]),
    ("'a' - 'b'", ["found no matching overload for '_-_' applied to '(string, string)'"]),
    ("-'a'", ["found no matching overload for '-_' applied to '(string)'"]),
    ("!1", ["found no matching overload for '!_' applied to '(int)'"]),
    ("1 && true", ["expected type 'bool' but found 'int'"]),
    ("1 ? 2 : 3", ["found no matching overload for '_?_:_' applied to '(int, int, int)'"]),
    ("true ? 1 : 'a'", ["found no matching overload for '_?_:_' applied to '(bool, int, string)'"]),
    ("'a' < 1", ["found no matching overload for '_<_' applied to '(string, int)'"]),
    ("1 == 'a'", ["found no matching overload for '_==_' applied to '(int, string)'"]),
    ("[1][1u]", ["found no matching overload for '_[_]' applied to '(list(int), uint)'"]),
    ("{'a': 1}[1]", ["found no matching overload for '_[_]' applied to '(map(string, int), int)'"]),
    ("1 in 'abc'", ["found no matching overload for '@in' applied to '(int, string)'"]),
    (
        "namespaceObject.metadata.name == null",
        ["found no matching overload for '_==_' applied to '(string, null)'"],
    ),
    ("'abc'.size(1)", ["found no matching overload for 'size' applied to 'string.(int)'"]),
    ("size(1)", ["found no matching overload for 'size' applied to '(int)'"]),
    ("'a'.startsWith(1)", ["found no matching overload for 'startsWith' applied to 'string.(int)'"]),
    ("1.contains('a')", ["found no matching overload for 'contains' applied to 'int.(string)'"]),
    ("int([])", ["found no matching overload for 'int' applied to '(list(dyn))'"]),
]


@pytest.mark.parametrize(("text", "expected"), OPERATOR_ERRORS)
def test_operator_errors(text: str, expected: list[str]) -> None:
    assert _errors(text) == expected


def test_member_call_matches_only_member_overloads() -> None:
    # `sign` is declared global-style only (the doc comment's `<Quantity>.sign()` is wrong).
    assert _type("sign(quantity('1'))") == "int"
    assert _errors("quantity('1').sign()") == [
        "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'"
    ]
    assert _errors("matches('a', 'b') && 'a'.matches('b') && size('a') == 1") == []


def test_error_locations_follow_cel_go() -> None:
    # operator token, '(' of a call, '.' of a selection, the identifier itself
    assert _located("1 + 'a'") == [("found no matching overload for '_+_' applied to '(int, string)'", 2, 7)]
    assert _located("foo(1)")[0][1:] == (3, 6)
    assert _located("request.uid") == [("undefined field 'uid'", 7, 11)]
    assert _located("a") == [("undeclared reference to 'a' (in container '')", 0, 1)]


# --- identifiers and fields -----------------------------------------------------------------------


def test_admission_variables() -> None:
    assert _type("object") == "dyn"
    assert _type("oldObject.metadata.name") == "dyn"
    assert _type("request") == "kubernetes.AdmissionRequest"
    assert _type("request.kind.group") == "string"
    assert _type("request.userInfo") == "kubernetes.UserInfo"
    assert _type("request.dryRun") == "bool"
    assert _type("request.options") == "dyn"
    assert _type("namespaceObject.metadata.UID") == "string"
    assert _type("namespaceObject.metadata.creationTimestamp") == "timestamp"
    assert _type("namespaceObject.status.conditions[0].lastTransitionTime") == "timestamp"
    assert _type("namespaceObject.metadata.labels") == "map(string, string)"


def test_undefined_fields_of_hand_built_types() -> None:
    assert _errors("request.uid") == ["undefined field 'uid'"]
    assert _errors("request.object") == ["undefined field 'object'"]
    assert _errors("namespaceObject.metadata.uid") == ["undefined field 'uid'"]
    assert _errors("has(request.uid)") == ["undefined field 'uid'"]
    assert _type("has(request.namespace)") == "bool"


def test_field_selection_on_scalars_and_lists() -> None:
    assert _errors("request.name.length") == ["type 'string' does not support field selection"]
    assert _errors("request.userInfo.groups.x") == ["type 'list(string)' does not support field selection"]
    assert _errors("1.x") == ["type 'int' does not support field selection"]


def test_undeclared_references() -> None:
    assert _errors("x") == ["undeclared reference to 'x' (in container '')"]
    assert _errors("foo(1)") == ["undeclared reference to 'foo' (in container '')"]
    assert _errors("object.foo()") == ["undeclared reference to 'foo' (in container '')"]
    assert _errors("object.spec.startWith('a')") == ["undeclared reference to 'startWith' (in container '')"]


def test_params_only_with_param_kind() -> None:
    assert _errors("params.x") == ["undeclared reference to 'params' (in container '')"]
    assert _type("params.x == 1", _env(has_params=True)) == "bool"


def test_authorizer_per_expression_kind() -> None:
    text = "authorizer.group('apps').resource('deployments').namespace('ns').name('n').check('get').allowed()"
    assert _type(text) == "bool"
    assert _type("authorizer.requestResource.check('get').reason()") == "string"
    assert _type("authorizer.serviceAccount('ns', 'sa').path('/x').check('get').errored()") == "bool"
    message = _env(kind=K.MESSAGE_EXPRESSION, variables={})
    assert _errors("authorizer.path('/').check('get').allowed() ? 'a' : 'b'", message) == [
        "undeclared reference to 'authorizer' (in container '')"
    ]
    assert _errors("authorizer.requestResource.check('get').reason()", message) == [
        "undeclared reference to 'authorizer' (in container '')"
    ]
    # The type-check controller does not declare `authorizer.requestResource` (reference §4.5).
    controller = _env(mode="stored", declare_request_resource_authorizer=False)
    assert _errors("authorizer.requestResource.check('get').allowed()", controller) == [
        "undefined field 'requestResource'"
    ]


def test_qualified_variable_names_resolve_through_select_chains() -> None:
    checked = _check("authorizer.requestResource", _env())
    root = checked.parsed.ast
    assert root is not None
    ref = checked.references[root.id]
    assert (ref.kind, ref.name) == ("variable", "authorizer.requestResource")
    assert t.format_cel_type(checked.output_type) == "kubernetes.authorization.ResourceCheck"
    assert _type(".authorizer.requestResource.check('x').allowed()") == "bool"


def test_variables_composition() -> None:
    env = _env(variables={"replicas": t.INT, "names": t.list_of(t.STRING), "q": t.DYN})
    assert _type("variables.replicas > 1", env) == "bool"
    assert _type("variables.names[0]", env) == "string"
    assert _errors("variables.missing", env) == ["undefined field 'missing'"]
    assert _errors("variables.x", _env(variables={})) == ["undefined field 'x'"]
    # stateless compiler: no `variables` at all
    assert _errors("variables.x") == ["undeclared reference to 'variables' (in container '')"]
    match = _env(kind=K.MATCH_CONDITION, variables={"a": t.INT})
    assert _errors("variables.a == 1", match) == ["undeclared reference to 'variables' (in container '')"]


# --- schema-typed objects (type-check controller) ----------------------------------------------------

_DEPLOYMENT: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "generateName": {"type": "string"},
                "namespace": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "creationTimestamp": {"type": "string", "format": "date-time"},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer"},
                "paused": {"type": "boolean"},
                "template": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "containers": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "name": {"type": "string"},
                                            "image": {"type": "string"},
                                            "x-port": {"type": "integer"},
                                        },
                                    },
                                }
                            },
                        }
                    },
                },
            },
        },
    },
}


def _typed_env(version: str = "1.34", mode: str = "stored") -> Environment:
    obj = schema_to_type(_DEPLOYMENT, lambda s: s, "Deployment1")
    assert obj is not None
    return build_environment(version, K.VALIDATION, has_params=False, object_type=obj, mode=mode)  # type: ignore[arg-type]


def test_typed_object() -> None:
    env = _typed_env()
    assert _type("object.spec.replicas > 1", env) == "bool"
    assert _type("object.spec.replicas", env) == "int"
    assert _type("object", env) == "Deployment1"
    assert (
        _type("object.spec.template.spec.containers", env)
        == "list(Deployment1.spec.template.spec.containers.@idx)"
    )
    assert _type("object.spec.template.spec.containers.all(c, c.image.startsWith('r/'))", env) == "bool"
    assert _type("object.metadata.creationTimestamp", env) == "timestamp"
    assert _type("object.spec.template.spec.containers[0].x__dash__port", env) == "int"
    assert _type("oldObject.spec.paused", env) == "bool"
    assert _type("object.spec == null", env) == "bool"


def test_typed_object_errors() -> None:
    env = _typed_env()
    assert _located("object.replicas > 1", env) == [("undefined field 'replicas'", 6, 15)]
    assert _errors("object.spec.replicas == 'a'", env) == [
        "found no matching overload for '_==_' applied to '(int, string)'"
    ]
    assert _errors("object.spec.template.spec.containers.exists(c, c.imag == 'x')", env) == [
        "undefined field 'imag'"
    ]
    assert _errors("object.metadata.labels.app == 'x' && object.metadata.name == null", env) == [
        "found no matching overload for '_==_' applied to '(string, null)'"
    ]


def test_keywords_as_field_names_from_compat_1_31() -> None:
    assert _type("object.metadata.namespace", _typed_env("1.31", "stored")) == "string"
    assert _type("object.metadata.namespace", _typed_env("1.32", "new")) == "string"
    assert _errors("object.metadata.namespace", _typed_env("1.31", "new")) == ["undefined field 'namespace'"]
    assert _type("object.metadata.__namespace__", _typed_env("1.30", "stored")) == "string"


# --- macros ----------------------------------------------------------------------------------------

MACROS = [
    ("[1, 2].all(x, x > 0)", "bool"),
    ("[1, 2].exists(x, x > 0)", "bool"),
    ("[1, 2].exists_one(x, x > 0)", "bool"),
    ("[1, 2].map(x, x * 2)", "list(int)"),
    ("[1, 2].map(x, x > 1, string(x))", "list(string)"),
    ("[1, 2].filter(x, x > 1)", "list(int)"),
    ("{'a': 1}.all(k, k != '')", "bool"),
    ("{'a': 1}.map(k, k)", "list(string)"),
    ("object.spec.containers.map(c, c.name)", "list(dyn)"),
    ("has(object.spec)", "bool"),
    ("has(request.namespace)", "bool"),
    # two-variable comprehensions (compat 1.32 → new expressions from 1.33)
    ("[1, 2].all(i, v, i < v)", "bool"),
    ("[1, 2].exists(i, v, i == 0 && v == 1)", "bool"),
    ("[1, 2].existsOne(i, v, v == 1)", "bool"),
    ("[1, 2].exists_one(i, v, v == 1)", "bool"),
    ("['a'].transformList(i, v, i)", "list(int)"),
    ("['a'].transformList(i, v, i > 0, v + 'x')", "list(string)"),
    ("{'a': 1}.transformMap(k, v, v * 2)", "map(string, int)"),
    ("{'a': 1}.transformMap(k, v, v > 0, string(v))", "map(string, string)"),
    ("{'a': 1}.transformMapEntry(k, v, {v: k})", "map(int, string)"),
    ("{'a': 1}.all(k, v, k.size() == v)", "bool"),
    # optional macros
    ("optional.of(1).optMap(x, x + 1)", "optional_type(int)"),
    ("optional.of(1).optFlatMap(x, optional.of(string(x)))", "optional_type(string)"),
    ("object.?spec.optMap(s, s.replicas)", "optional_type(dyn)"),
]


@pytest.mark.parametrize(("text", "expected"), MACROS)
def test_macro_types(text: str, expected: str) -> None:
    assert _type(text) == expected


def test_comprehension_errors() -> None:
    assert _errors("1.all(x, x)") == [
        "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"
    ]
    assert _errors("[1].all(x, x)") == ["expected type 'bool' but found 'int'"]
    assert _errors("[1].exists(x, y)") == ["undeclared reference to 'y' (in container '')"]
    assert _errors("[1].map(x, x) + ['a']") == [
        "found no matching overload for '_+_' applied to '(list(int), list(string))'"
    ]


def test_comprehension_variables_are_recorded() -> None:
    checked = _check("{'a': [1]}.all(k, v, v.all(x, x > size(k)))", _env())
    root = checked.parsed.ast
    assert isinstance(root, Comprehension)
    scope = {n: t.format_cel_type(v) for n, v in checked.scopes[root.id].items()}
    assert scope == {"k": "string", "v": "list(int)", "@result": "bool"}


def test_local_variables_shadow_declared_ones() -> None:
    assert _type("[1].all(object, object > 0)") == "bool"
    assert _errors("['a'].all(request, request.uid == 'x')") == [
        "type 'string' does not support field selection"
    ]
    assert _errors("['a'].all(request, request == 1)") == [
        "found no matching overload for '_==_' applied to '(string, int)'"
    ]


# --- optional syntax -------------------------------------------------------------------------------

OPTIONALS = [
    ("object.?spec", "optional_type(dyn)"),
    ("object.?spec.?replicas", "optional_type(dyn)"),
    ("object.?spec.replicas", "optional_type(dyn)"),
    ("object.?spec.orValue(1)", "dyn"),
    ("object.?spec.replicas.orValue(1) > 0", "bool"),
    ("object.?spec.hasValue()", "bool"),
    ("object.?spec.value()", "dyn"),
    ("request.?namespace", "optional_type(string)"),
    ("request.?namespace.orValue('')", "string"),
    ("namespaceObject.metadata.labels[?'app']", "optional_type(string)"),
    ("[1, 2][?0]", "optional_type(int)"),
    ("[1][?0].or(optional.of(2))", "optional_type(int)"),
    ("{'a': 1}[?'a'].orValue(0)", "int"),
    ("[?optional.of(1), 2]", "list(int)"),
    ("{?'a': optional.of(1)}", "map(string, int)"),
    ("{?'a': object.?x}", "map(string, dyn)"),
    ("optional.ofNonZeroValue('')", "optional_type(string)"),
    ("optional.none().orValue(1)", "int"),
    ("[optional.of(1)].unwrapOpt()", "list(int)"),
    ("optional.unwrap([optional.of(1)])", "list(int)"),
    ("[1].first()", "optional_type(int)"),
]


@pytest.mark.parametrize(("text", "expected"), OPTIONALS)
def test_optional_types(text: str, expected: str) -> None:
    assert _type(text) == expected


def test_optional_errors() -> None:
    assert _errors("{?'a': 1}") == ["expected type 'optional_type(int)' but found 'int'"]
    assert _errors("[?1]") == ["expected type 'optional_type(int)' but found 'int'"]
    assert _errors("request.?uid") == ["undefined field 'uid'"]
    assert _errors("optional.of(1).orValue('a')") == [
        "found no matching overload for 'orValue' applied to 'optional_type(int).(string)'"
    ]


# --- namespaced and library functions -----------------------------------------------------------------

LIBRARY = [
    ("sets.contains([1], [1])", "bool"),
    ("sets.intersects(['a'], ['b'])", "bool"),
    ("ip.isCanonical('1.2.3.4')", "bool"),
    ("ip('1.2.3.4').family()", "int"),
    ("cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))", "bool"),
    ("string(ip('1.2.3.4'))", "string"),
    ("format.dns1123Label().validate('a')", "optional_type(list(string))"),
    ("format.named('uuid')", "optional_type(kubernetes.NamedFormat)"),
    ("lists.range(3)", "list(int)"),
    ("[3, 1].sort()", "list(int)"),
    ("[[1], [2]].flatten()", "list(int)"),
    ("[1, 1].distinct()", "list(int)"),
    ("url('https://x').getHost()", "string"),
    ("quantity('1Gi').isGreaterThan(quantity('1Mi'))", "bool"),
    ("semver('1.0.0').major()", "int"),
    ("'a,b'.split(',')", "list(string)"),
    ("['a'].join('-')", "string"),
    ("'%s: %d'.format(['a', 1])", "string"),
    ("strings.quote('a')", "string"),
    ("'abc'.find('b')", "string"),
    ("[1, 2].isSorted() && [1].sum() == 1", "bool"),
    ("[1, 2].indexOf(1)", "int"),
    ("[1, 2].max()", "int"),
]


@pytest.mark.parametrize(("text", "expected"), LIBRARY)
def test_library_types(text: str, expected: str) -> None:
    assert _type(text, _env("1.35")) == expected


def test_namespaced_call_references() -> None:
    checked = _check("sets.contains([1], [2])", _env())
    root = checked.parsed.ast
    assert root is not None
    assert checked.references[root.id].name == "sets.contains"
    assert checked.references[root.id].overload_ids == ("list_sets_contains_list",)
    target = getattr(root, "target", None)
    assert isinstance(target, Ident)
    assert checked.references[target.id].kind == "namespace"


# --- version gating -------------------------------------------------------------------------------------


def test_version_gated_functions_name_the_first_version() -> None:
    assert _errors("ip('1.2.3.4').family() == 4", _env("1.30")) == [
        "undeclared reference to 'ip' (in container ''); 'ip' is available from Kubernetes 1.31",
        "undeclared reference to 'family' (in container ''); 'family' is available from Kubernetes 1.31",
    ]
    assert _errors("ip('1.2.3.4').family() == 4", _env("1.31")) == []
    # the stored-expressions env of a 1.30 server already has it
    assert _errors("ip('1.2.3.4').family() == 4", _env("1.30", mode="stored")) == []
    checked = _check("ip('1.2.3.4')", _env("1.30"))
    # the server's own text, without the hint
    assert checked.issues[0].render("ip('1.2.3.4')").splitlines()[0] == (
        "ERROR: <input>:1:3: undeclared reference to 'ip' (in container '')"
    )


def test_version_gated_namespaced_and_member_functions() -> None:
    assert _errors("lists.range(3)", _env("1.34")) == [
        "undeclared reference to 'lists' (in container ''); 'lists.range' is available from Kubernetes 1.35",
        "undeclared reference to 'range' (in container ''); 'lists.range' is available from Kubernetes 1.35",
    ]
    assert _errors("[1, 1].distinct()", _env("1.34")) == [
        "undeclared reference to 'distinct' (in container ''); 'distinct' is available from Kubernetes 1.35"
    ]
    # `contains` exists as `<string>.contains(string)`, so cel-go reports the overload.
    assert _errors("sets.contains([1], [1])", _env("1.29")) == [
        "undeclared reference to 'sets' (in container ''); 'sets.contains' is available from Kubernetes 1.30",
        "found no matching overload for 'contains' applied to '!error!.(list(int), list(int))'; 'sets.contains' is available from Kubernetes 1.30",
    ]


def test_version_gated_macros() -> None:
    # Before two-variable comprehensions, `all(i, v, p)` is a plain (undeclared) member call.
    errors = _errors("[1].all(i, v, v > 0)", _env("1.32"))
    assert errors[-1] == (
        "undeclared reference to 'all' (in container ''); 'all' with 3 arguments is available from Kubernetes 1.33"
    )
    assert errors[0].startswith("undeclared reference to 'i' (in container '')")
    assert _errors("[1].all(i, v, v > 0)", _env("1.33")) == []


def test_overload_hints() -> None:
    assert _errors("duration(1)", _env("1.37")) == [
        "found no matching overload for 'duration' applied to '(int)'; 'duration(int) -> duration' was removed in Kubernetes 1.37"
    ]
    assert _errors("2 < 2.5", _env("1.28")) == [
        "found no matching overload for '_<_' applied to '(int, double)'; '_<_(int, double) -> bool' is available from Kubernetes 1.29"
    ]


# --- MAP patch types ---------------------------------------------------------------------------------


def test_map_object_types() -> None:
    env = _env(kind=K.MAP_APPLY_CONFIGURATION)
    assert _type("Object{spec: Object.spec{replicas: 1}}", env) == "Object"
    assert _type("Object.spec.template{}", env) == "Object.spec.template"
    assert _type("Object.metadata.labels{foo: 'bar'}", env) == "Object.metadata.labels"
    assert _type("Object{spec: Object.spec{anything: [1, 2], other: {'a': 'b'}}}.spec", env) == "dyn"
    assert _type("Object", env) == "type(Object)"
    assert _type("Object.spec.replicas", env) == "type(Object.spec.replicas)"
    # Not available outside mutations
    assert _errors("Object{}", _env(kind=K.VARIABLE)) == [
        "undeclared reference to 'Object' (in container '')"
    ]


def test_jsonpatch_type() -> None:
    env = _env(kind=K.MAP_JSON_PATCH)
    text = "[JSONPatch{op: 'add', path: '/spec/x', value: 1}, JSONPatch{op: 'copy', from: '/a', path: '/b'}]"
    assert _type(text, env) == "list(JSONPatch)"
    assert _type("jsonpatch.escapeKey('a/b')", env) == "string"
    assert _located("JSONPatch{op: 1}", env) == [
        ("expected type of field 'op' is 'string' but provided type is 'int'", 12, 15)
    ]
    # Unknown names are "found" without a type: any non-dyn value is rejected.
    assert _errors("JSONPatch{x: 1}", env) == ["expected type of field 'x' is '' but provided type is 'int'"]
    assert _errors("JSONPatch{x: dyn(1)}", env) == []
    assert _errors("jsonpatch.escapeKey('a')", _env()) == [
        "undeclared reference to 'jsonpatch' (in container '')",
        "undeclared reference to 'escapeKey' (in container '')",
    ]


def test_struct_creation_errors() -> None:
    env = _env(kind=K.MAP_APPLY_CONFIGURATION)
    assert _errors("Foo{a: 1}", env) == ["undeclared reference to 'Foo' (in container '')"]
    assert _errors("object{}", env) == ["'dyn' is not a type"]
    assert _errors("int{}", env) == ["'int' is not a message type"]
    assert _errors("kubernetes.AdmissionRequest{uid: 'x'}", env) == ["undefined field 'uid'"]
    assert _errors("kubernetes.AdmissionRequest{name: 1}", env) == [
        "expected type of field 'name' is 'string' but provided type is 'int'"
    ]


# --- invariants --------------------------------------------------------------------------------------


def _untyped(checked: CheckedExpr) -> list[Expr]:
    nodes: list[Expr] = [n for n in checked.parsed.walk() if isinstance(n, Expr)]
    for call in checked.parsed.macro_calls.values():
        nodes.append(call)
        nodes.extend(call.args)
        if call.target is not None:
            nodes.append(call.target)
    return [
        n
        for n in nodes
        if n.id not in checked.types
        and not (n.id in checked.references and checked.references[n.id].kind == "namespace")
    ]


EVERY_NODE = [
    "object.spec.containers.all(c, c.image.startsWith('x') && has(c.name))",
    "[1, 2].transformMap(i, v, v > 0, i * v)",
    "sets.contains(object.a, ['b']) || authorizer.requestResource.check('get').allowed()",
    "object.?spec.optMap(s, s.replicas).orValue(0) > 0",
    "undeclared.x + [].y",
    "Foo{a: bar}",
]


@pytest.mark.parametrize("text", EVERY_NODE)
def test_every_node_gets_a_type(text: str) -> None:
    checked = _check(text, _env())
    assert _untyped(checked) == []
    for typ in checked.types.values():
        assert not t.type_params_of([typ]), typ


PARTIAL = [
    "object.spec.replicas > ",
    "object.spec.",
    "object.spec.containers.all(c, c.",
    "has(object.",
    "[1, 2].map(x, ",
    "f(1,",
    "{'a': ",
    "Object{spec: ",
    "request.userInfo.username.startsWith(",
    "a ? b : ",
    ")",
    "",
]


@pytest.mark.parametrize("text", PARTIAL)
def test_partial_expressions_are_typed_without_check_errors_for_error_nodes(text: str) -> None:
    env = _env(kind=K.MAP_APPLY_CONFIGURATION)
    parsed = parse_expression(text, env)
    checked = check(parsed, env)
    if parsed.ast is not None:
        assert parsed.ast.id in checked.types
    assert not any("''" in i.message and "undefined field" in i.message for i in checked.issues)


def test_partial_expression_keeps_types_for_completion() -> None:
    env = _env()
    parsed = parse_expression("request.userInfo.", env)
    checked = check(parsed, env)
    root = parsed.ast
    assert root is not None
    operand = getattr(root, "operand", None)
    assert operand is not None
    assert t.format_cel_type(checked.types[operand.id]) == "kubernetes.UserInfo"
    assert checked.issues == []


def test_prefixes_of_real_expressions_never_raise() -> None:
    env = _env(kind=K.MAP_APPLY_CONFIGURATION, has_params=True)
    texts = [
        "object.spec.template.spec.containers.all(c, c.image.startsWith('registry/') && has(c.resources.limits))",
        "Object{metadata: Object.metadata{labels: {'a': params.b}}, spec: Object.spec{replicas: 3}}",
        "{?'a': object.?x, 'b': [1, 2].map(i, v, i + v)}[?'a'].orValue(0)",
    ]
    for text in texts:
        for end in range(len(text) + 1):
            parsed = parse_expression(text[:end], env)
            checked = check(parsed, env)
            if parsed.ast is not None:
                assert _untyped(checked) == [], text[:end]


def test_references() -> None:
    checked = _check("object.spec.x > 1 && request.name == 'a'", _env())
    refs = {(r.kind, r.name) for r in checked.references.values()}
    assert ("variable", "object") in refs
    assert ("variable", "request") in refs
    assert ("field", "name") in refs
    assert ("function", "_&&_") in refs
    gt = next(r for r in checked.references.values() if r.name == "_>_")
    # dyn > int matches every overload whose right operand accepts an int
    assert gt.overload_ids == ("greater_int64", "greater_uint64_int64", "greater_double_int64")
