# ruff: noqa: E501
"""Kubernetes CEL libraries at run time: quantity, url, ip, cidr, semver, format, lists, sets,
ext.Lists, regex, authz, jsonpatch, MAP struct values, lazily evaluated variables."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from cel_eval_support import env, error, run, value

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import LazyVariables, VariableDef, evaluate
from vap_lsp.cel.runtime.k8s import AuthzRequest, Decision, StructValue, resource_check
from vap_lsp.cel.runtime.values import Optional, to_python

VALUES: list[tuple[str, object]] = [
    # quantity
    ("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", True),
    ("quantity('500m').asApproximateFloat()", 0.5),
    ("quantity('2k').asInteger()", 2000),
    ("quantity('1.5').isInteger()", False),
    ("quantity('1e3').compareTo(quantity('1k'))", 0),
    ("sign(quantity('-1'))", -1),
    ("quantity('1Gi').add(quantity('1Gi')).asInteger()", 2 * 1024**3),
    ("quantity('1').sub(3).asInteger()", -2),
    ("quantity('100Mi').isLessThan(quantity('1Gi'))", True),
    ("isQuantity('1.5Gi') && !isQuantity('1.5GB')", True),
    ("quantity('1Ki') == quantity('1024')", True),
    # url
    ("url('https://user@example.com:8443/a/b?x=1&x=2&y').getHost()", "example.com:8443"),
    ("url('https://example.com:8443/a').getHostname()", "example.com"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('https://example.com:8443/a').getPort()", "8443"),
    ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
    ("url('https://example.com/?x=1&x=2&y').getQuery()", {"x": ["1", "2"], "y": [""]}),
    ("url('/just/a/path').getScheme()", ""),
    ("isURL('https://example.com') && !isURL('example.com') && !isURL('')", True),
    # ip / cidr
    ("ip('192.168.0.1').family()", 4),
    ("ip('2001:db8::1').family()", 6),
    ("ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified()", True),
    ("ip('224.0.0.1').isLinkLocalMulticast() && ip('169.254.1.1').isLinkLocalUnicast()", True),
    ("ip('10.0.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()", True),
    ("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", True),
    ("isIP('1.2.3.4') && !isIP('1.2.3') && !isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0')", True),
    ("string(ip('2001:0db8:0000::1'))", "2001:db8::1"),
    ("cidr('10.0.0.0/8').containsIP('10.1.2.3')", True),
    ("cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", False),
    ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", True),
    ("cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", False),
    ("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", True),
    ("string(cidr('10.1.2.3/8').ip())", "10.1.2.3"),
    ("cidr('::1/128').prefixLength()", 128),
    ("isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0/33')", True),
    ("string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"),
    # semver
    ("semver('1.2.3').isLessThan(semver('1.10.0'))", True),
    ("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", True),
    ("semver('1.0.0-alpha.1').compareTo(semver('1.0.0-alpha.beta'))", -1),
    ("semver('2.3.4').major() + semver('2.3.4').minor() + semver('2.3.4').patch()", 9),
    ("semver('v1.2', true) == semver('1.2.0')", True),
    ("semver('01.02.03', true).minor()", 2),
    ("isSemver('1.2.3') && !isSemver('1.2') && isSemver('1.2', true) && !isSemver('01.2.3')", True),
    # format
    ("format.dns1123Label().validate('my-name').hasValue()", False),
    ("format.dns1123Label().validate('a.b').value()", ["must not contain dots"]),
    ("format.named('uuid').value().validate('not-a-uuid').value()", ["does not match the UUID format"]),
    ("format.named('nope').hasValue()", False),
    ("format.byte().validate('aGk=').hasValue() || format.date().validate('2023-02-30').hasValue()", True),
    ("format.datetime().validate('2023-01-01T00:00:00Z').hasValue()", False),
    ("format.uri().validate('https://x').hasValue()", False),
    ("format.labelValue().validate('ok_value').hasValue()", False),
    ("format.qualifiedName().validate('example.com/name').hasValue()", False),
    ("format.dns1123SubdomainPrefix().validate('my-name-').hasValue()", False),
    # kubernetes lists
    ("[1, 2, 3].isSorted() && !['b', 'a'].isSorted()", True),
    ("[1, 2, 3].sum()", 6),
    ("[1.5, 2.5].sum()", 4.0),
    ("[duration('1s'), duration('2s')].sum() == duration('3s')", True),
    ("[3, 1, 2].min()", 1),
    ("['b', 'c', 'a'].max()", "c"),
    ("[1, 2, 1].indexOf(1) + [1, 2, 1].lastIndexOf(1)", 2),
    ("[1, 2].indexOf(3)", -1),
    # sets and ext.Lists
    ("sets.contains([1, 2, 3], [3, 1])", True),
    ("sets.equivalent([1, 1, 2], [2, 1])", True),
    ("sets.intersects([1, 2], [3, 2])", True),
    ("[1, 2, 3, 4].slice(1, 3)", [2, 3]),
    ("[[dyn(1)], [dyn(2), dyn([3])]].flatten()", [1, 2, [3]]),
    ("[[dyn(1)], [dyn(2), dyn([3])]].flatten(2)", [1, 2, 3]),
    ("[1, 2, 1, 3].distinct()", [1, 2, 3]),
    ("lists.range(4)", [0, 1, 2, 3]),
    ("[1, 2, 3].reverse()", [3, 2, 1]),
    ("[3, 1, 2].sort()", [1, 2, 3]),
    ("['bb', 'a', 'ccc'].sortBy(s, s.size())", ["a", "bb", "ccc"]),
    ("object.spec.template.spec.containers.sortBy(c, c.name).map(c, c.name)", ["nginx", "sidecar"]),
    # misc
    ("object.spec.template.spec.containers.exists(c, c.image.endsWith(':latest'))", True),
    ("quantity(object.spec.template.spec.containers[0].resources.limits.memory).asInteger()", 512 * 1024**2),
]


@pytest.mark.parametrize(("expr", "expected"), VALUES)
def test_value(expr: str, expected: object) -> None:
    got = value(expr)
    if isinstance(got, Optional):
        got = to_python(got)
    assert got == expected


ERRORS: list[tuple[str, str]] = [
    (
        "quantity(dyn('1.5GB'))",
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ),
    ("quantity('1.5').asInteger()", "cannot convert value to integer"),
    (
        "url(dyn('example.com'))",
        'URL parse error during conversion from string: parse "example.com": invalid URI for request',
    ),
    ("ip(dyn('::ffff:1.2.3.4'))", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'),
    ("ip(dyn('fe80::1%eth0'))", 'IP address "fe80::1%eth0" with zone value is not allowed'),
    ("semver(dyn('1.2'))", "No Major.Minor.Patch elements found"),
    ("semver(dyn('1.2-rc'), true)", "short version cannot contain PreRelease/Build meta data"),
    ("dyn([]).min()", "min called on empty list"),
    ("[1, 2].slice(1, 3)", "cannot slice(1, 3), list is length 2"),
    ("[1, 2].slice(2, 1)", "cannot slice(2, 1), start index must be less than or equal to end index"),
    ("[dyn(1), dyn('a')].sort()", "list elements must have the same type"),
]


@pytest.mark.parametrize(("expr", "message"), ERRORS)
def test_error(expr: str, message: str) -> None:
    assert error(expr) == message


@dataclass
class FakeAuthorizer:
    allow: set[tuple[str, str]] = field(default_factory=set)
    seen: list[AuthzRequest] = field(default_factory=list)

    def authorize(self, request: AuthzRequest) -> Decision:
        self.seen.append(request)
        allowed = (request.verb, request.resource or request.path) in self.allow
        return Decision(allowed, "rbac" if allowed else "no rule")


def test_authorizer_checks_and_cost() -> None:
    authz = FakeAuthorizer({("get", "pods"), ("get", "/healthz")})
    act = {"authorizer": authz}
    e = build_environment("1.34", ExpressionKind.VARIABLE, has_params=False, mode="stored")
    r = run(
        "authorizer.group('').resource('pods').namespace('ns').name('p').check('get').allowed()",
        act,
        environment=e,
    )
    assert r.value is True
    assert authz.seen[-1] == AuthzRequest(verb="get", resource="pods", namespace="ns", name="p")
    assert r.cost > 350_000
    r = run("authorizer.path('/healthz').check('get').reason()", act, environment=e)
    assert r.value == "rbac"
    r = run(
        "authorizer.serviceAccount('ns', 'sa').group('apps').resource('deployments').check('create').allowed()",
        act,
        environment=e,
    )
    assert r.value is False and authz.seen[-1].service_account == ("ns", "sa")
    r = run(
        "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list').errored()",
        act,
        environment=e,
    )
    assert r.value is False and authz.seen[-1].field_selector == "spec.nodeName=n"
    assert (
        run("authorizer.path('').check('get').allowed()", act, environment=e).error
        == "path must not be empty"
    )
    # three checks exceed the per-call limit of 1,000,000
    three = " && ".join(["authorizer.path('/x').check('get').errored() == false"] * 3)
    assert run(three, act, environment=e).error == "operation cancelled: actual cost limit exceeded"


def test_request_resource_authorizer() -> None:
    authz = FakeAuthorizer({("update", "deployments")})
    e = build_environment("1.34", ExpressionKind.VALIDATION, has_params=False, mode="stored")
    rc = resource_check(authz, "apps", "deployments", namespace="prod", name="web")
    r = run(
        "authorizer.requestResource.check('update').allowed()",
        {"authorizer": authz, "authorizer.requestResource": rc},
        environment=e,
    )
    assert r.value is True
    assert authz.seen[-1].group == "apps" and authz.seen[-1].namespace == "prod"


def test_map_struct_values() -> None:
    e = build_environment(
        "1.34", ExpressionKind.MAP_APPLY_CONFIGURATION, has_params=False, variables={}, mode="stored"
    )
    r = run("Object{spec: Object.spec{replicas: 2}}", environment=e)
    assert isinstance(r.value, StructValue) and r.value.type_name == "Object"
    assert to_python(r.value) != {}
    e2 = build_environment(
        "1.34", ExpressionKind.MAP_JSON_PATCH, has_params=False, variables={}, mode="stored"
    )
    r = run(
        "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('a/b~c'), value: 'x'}]",
        environment=e2,
    )
    assert r.error is None
    patch = r.value[0]
    assert patch.get_field("path") == "/metadata/labels/a~1b~0c"


def test_lazy_variables_memoised_with_cost_and_errors() -> None:
    e = build_environment("1.34", ExpressionKind.VARIABLE, has_params=False, variables={}, mode="stored")
    from vap_lsp.cel import types as t

    calls = compile_expression("object.spec.replicas * 2", e)
    bad = compile_expression("object.spec.missing", e)
    ev = build_environment(
        "1.34",
        ExpressionKind.VALIDATION,
        has_params=False,
        variables={"double": t.INT, "bad": t.DYN},
        mode="stored",
    )
    base = {"object": {"spec": {"replicas": 3}}}
    lazy = LazyVariables({"double": VariableDef(calls.checked, e), "bad": VariableDef(bad.checked, e)}, base)
    act = {**base, "variables": lazy}
    first = compile_expression("variables.double == 6", ev)
    assert first.checked is not None
    r1 = evaluate(first.checked, act, env=ev)
    assert r1.value is True
    r2 = evaluate(first.checked, act, env=ev)
    assert r2.value is True and r2.cost < r1.cost  # memoised: the variable's cost is charged once
    bad_use = compile_expression("variables.bad == 1", ev)
    assert bad_use.checked is not None
    r3 = evaluate(bad_use.checked, act, env=ev)
    assert r3.error == 'composited variable "bad" fails to evaluate: no such key: missing'
    absorbed = compile_expression("false && variables.bad == 1", ev)
    assert absorbed.checked is not None
    assert evaluate(absorbed.checked, act, env=ev).value is False
    _ = env()
