"""Runtime cost of Kubernetes' CEL libraries, from Kubernetes' own expectations
(`staging/src/k8s.io/apiserver/pkg/cel/library/cost_test.go`, the `expectRuntimeCost` column).

Evaluated as `vap-lsp cel` evaluates (`vap_lsp.admission.playground`: the admission environment,
`authorizer` bound). One deliberate difference: `testCost` builds its program with
`cel.CostTracking` only, while admission programs are built with `OptOptimize`, which folds
constant list literals (and conversions of constants such as `uint(1)`) into constants that cost 0.
So an expression on a constant list costs here Kubernetes' figure minus the literal's creation
(10 for a five-element list: `TestListsCost`'s "10 cost for the list declaration") and minus the
folded conversions. Not translated: TestSetsCost's mixed-type literals (`[1.0, 1]`: a compile
error under the admission environment's HomogeneousAggregateLiterals). `jsonpatch.escapeKey` is
declared only in a MutatingAdmissionPolicy's JSONPatch environment: evaluated there. The
estimated-cost column of the same cases is in `test_cel_cost_estimate_k8s_library.py`.
"""

from __future__ import annotations

import pytest

from vap_lsp.admission.playground import PlaygroundInputs, evaluate_expression
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import evaluate

V4, V6 = "ip('192.168.0.1')", "ip('2001:db8:3333:4444:5555:6666:7777:8888')"
C4, C6 = "cidr('192.168.0.0/16')", "cidr('2001:db8::/32')"
URL = "url('https:://kubernetes.io/')"
STR = "'abc 123 def 123'"
RES = (
    "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')"
)
SEL = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com"

RUNTIME_COSTS: list[tuple[str, str, int]] = [
    # TestURLsCost
    *[("TestURLsCost", URL + op, 4) for op in (".getScheme()", ".getHostname()", ".getHost()", ".getPort()")],
    *[("TestURLsCost", URL + op, 4) for op in (".getEscapedPath()", ".getQuery()")],
    ("TestURLsCost", f"{URL} == url('https:://kubernetes.io/')", 7),
    ("TestURLsCost", f"{URL} == url('http://x.b')", 5),
    # TestIPCost: base 2 (IPv4) / 4 (IPv6); most operations +1; == adds the other side's base + 1
    ("TestIPCost", V4, 2),
    ("TestIPCost", V6, 4),
    *[
        ("TestIPCost", ip + op, base + 1)
        for ip, base in ((V4, 2), (V6, 4))
        for op in (
            ".family()",
            ".isUnspecified()",
            ".isLoopback()",
            ".isLinkLocalMulticast()",
            ".isLinkLocalUnicast()",
            ".isGlobalUnicast()",
        )
    ],
    ("TestIPCost", f"{V4} == ip('192.168.0.1')", 5),
    ("TestIPCost", f"{V6} == ip('192.168.0.1')", 7),
    # TestIPIsCanonicalCost
    ("TestIPIsCanonicalCost", "ip.isCanonical('192.168.0.1')", 3),
    ("TestIPIsCanonicalCost", "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8),
    ("TestIPIsCanonicalCost", "ip.isCanonical('2001:db8::abcd')", 3),
    # TestCIDRCost: base 2
    *[("TestCIDRCost", c, 2) for c in (C4, C6)],
    *[("TestCIDRCost", c + op, 3) for c in (C4, C6) for op in (".ip()", ".prefixLength()", ".masked()")],
    *[("TestCIDRCost", f"{c} == cidr('2001:db8::/32')", 5) for c in (C4, C6)],
    *[
        ("TestCIDRCost", C4 + f".containsCIDR({arg})", 7)
        for arg in ("cidr('192.0.0.0/30')", "cidr('192.168.0.0/16')", "'192.0.0.0/30'", "'192.168.0.0/16'")
    ],
    ("TestCIDRCost", C4 + ".containsIP(ip('192.0.0.1'))", 4),
    ("TestCIDRCost", C4 + ".containsIP(ip('192.169.0.1'))", 5),
    ("TestCIDRCost", C4 + ".containsIP(ip('192.169.169.250'))", 5),
    ("TestCIDRCost", C4 + ".containsIP('192.0.0.1')", 4),
    ("TestCIDRCost", C4 + ".containsIP('192.169.0.1')", 5),
    *[
        ("TestCIDRCost", C6 + f".containsCIDR({arg})", 7)
        for arg in ("cidr('2001:db8::/126')", "cidr('2001:db8::/32')", "'2001:db8::/126'", "'2001:db8::/32'")
    ],
    ("TestCIDRCost", C6 + ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 7),
    ("TestCIDRCost", C6 + ".containsIP(ip('2001:db8::1'))", 5),
    ("TestCIDRCost", C6 + ".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 7),
    ("TestCIDRCost", C6 + ".containsIP('2001:db8::1')", 5),
    # TestStringLibrary
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3),
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", 9),
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.upperAscii()", 3),
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", 9),
    ("TestStringLibrary", "strings.quote('ABCDEFGHIJ abcdefghij')", 3),
    (
        "TestStringLibrary",
        "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
        9,
    ),
    *[
        ("TestStringLibrary", STR + op, 3)
        for op in (
            ".replace('123', '456')",
            ".replace('', 'x')",
            ".replace('123', '')",
            ".replace('123', '456', 1)",
            ".split(' ')",
            ".split(' ', 1)",
        )
    ],
    *[("TestStringLibrary", STR + op, 2) for op in (".substring(5)", ".substring(5, 8)")],
    ("TestStringLibrary", "'  abc 123 def 123  '.trim()", 2),
    *[("TestStringLibrary", STR + op, 2) for op in (".find('123')", ".findAll('123')", ".findAll('123', 1)")],
    # join: Kubernetes 15 and 13, less 10 for the folded ten-element literal
    ("TestStringLibrary", "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", 15 - 10),
    ("TestStringLibrary", "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13 - 10),
    # TestAuthzLibrary
    ("TestAuthzLibrary", "authorizer.path('/healthz')", 2),
    ("TestAuthzLibrary", RES, 6),
    ("TestAuthzLibrary", f"authorizer.group('').resource('pods').fieldSelector('{SEL}')", 1821),
    ("TestAuthzLibrary", f"authorizer.group('').resource('pods').labelSelector('{SEL}')", 1821),
    ("TestAuthzLibrary", "authorizer.path('/healthz').check('get').allowed()", 350003),
    *[
        ("TestAuthzLibrary", f"{RES}.check('create'){op}", 350007)
        for op in (".allowed()", ".errored()", ".error()")
    ],
    # TestQuantityCost
    ("TestQuantityCost", 'quantity("12Mi")', 1),
    ("TestQuantityCost", 'isQuantity("20")', 1),
    ("TestQuantityCost", 'isQuantity("20M")', 1),
    ("TestQuantityCost", 'quantity("200M") == quantity("200M")', 3),
    ("TestQuantityCost", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', 6),
    (
        "TestQuantityCost",
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
        '&& quantity("0.002G") == quantity("2000k")',
        9,
    ),
    ("TestQuantityCost", 'quantity("50M").isLessThan(quantity("50Mi"))', 3),
    ("TestQuantityCost", 'quantity("50Mi").isGreaterThan(quantity("50M"))', 3),
    ("TestQuantityCost", 'quantity("200M").compareTo(quantity("0.2G")) > 0', 4),
    ("TestQuantityCost", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', 5),
    ("TestQuantityCost", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', 5),
    ("TestQuantityCost", 'quantity("50k").sub(20) == quantity("49980")', 4),
    ("TestQuantityCost", 'quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', 6),
    ("TestQuantityCost", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', 7),
    ("TestQuantityCost", 'quantity("50k").asInteger() > 0', 3),
    ("TestQuantityCost", 'quantity("50").isInteger()', 2),
    ("TestQuantityCost", 'quantity("50.703k").asApproximateFloat() > 0.0', 3),
    # TestNameFormatCost
    ("TestNameFormatCost", 'format.named("dns1123subdomain")', 1),
    ("TestNameFormatCost", 'format.named("dns1123Subdomain").value().validate("my-name")', 17),
    ("TestNameFormatCost", 'format.named("dns1123Label").value().validate("my-name")', 10),
    ("TestNameFormatCost", 'format.named("dns1123Label").value() == format.named("dns1123Label").value()', 5),
]

# TestSetsCost (the cases whose literals are homogeneous: Kubernetes' admission environment has
# HomogeneousAggregateLiterals, so `[1.0, 1]` does not compile there, though `testCost`'s does).
# Kubernetes' figure counts 10 per list literal, folded at admission: 10 * the number of `[`.
SETS_K8S: list[tuple[str, int]] = [
    ("sets.contains([], [])", 21),
    ("sets.contains([1], [])", 21),
    ("sets.contains([1], [1])", 22),
    ("sets.contains([1], [1, 1])", 23),
    ("sets.contains([1, 1], [1])", 23),
    ("sets.contains([2, 1], [1])", 23),
    ("sets.contains([1, 2, 3, 4], [2, 3])", 29),
    ("!sets.contains([1], [2])", 23),
    ("!sets.contains([1], [1, 2])", 24),
    ("sets.equivalent([], [])", 21),
    ("sets.equivalent([1], [1])", 23),
    ("sets.equivalent([1], [1, 1])", 25),
    ("sets.equivalent([1, 1], [1])", 25),
    ("!sets.equivalent([2, 1], [1])", 26),
    ("!sets.equivalent([1], [1, 2])", 26),
    ("sets.intersects([1], [1])", 22),
    ("sets.intersects([1], [1, 1])", 23),
    ("sets.intersects([1, 1], [1])", 23),
    ("sets.intersects([2, 1], [1])", 23),
    ("sets.intersects([1], [1, 2])", 23),
    ("!sets.intersects([], [])", 22),
    ("!sets.intersects([1], [])", 22),
    ("!sets.intersects([1], [2])", 23),
]
RUNTIME_COSTS += [("TestSetsCost", expr, k8s - 10 * expr.count("[")) for expr, k8s in SETS_K8S]

# TestSemverCost
RUNTIME_COSTS += [
    ("TestSemverCost", 'semver("1.0.0")', 1),
    ("TestSemverCost", 'semver("1234.56789012345.67890123456789")', 4),
    ("TestSemverCost", 'isSemver("1.0.0")', 1),
    ("TestSemverCost", 'isSemver("1234.56789012345.67890123456789")', 4),
    *[("TestSemverCost", f'semver("1.2.3").{op}()', 2) for op in ("major", "minor", "patch")],
    ("TestSemverCost", 'semver("1.0.0").isLessThan(semver("1.1.0"))', 3),
    ("TestSemverCost", 'semver("1.1.0").isGreaterThan(semver("1.0.0"))', 3),
    ("TestSemverCost", 'semver("1.0.0").compareTo(semver("1.2.3"))', 3),
]

# TestTwoVariableComprehensionCost: Kubernetes' figure less the folded literal (a two-entry map
# literal costs 30, a list literal 10) and, for the transform* macros, their empty accumulator
# (`{}` 30, `[]` 10), a constant literal OptOptimize folds too (decorators.go maybeBuildListLiteral,
# maybeBuildMapLiteral; test_cel_eval_cost.py derives them step by step).
RUNTIME_COSTS += [
    ("TestTwoVariableComprehensionCost", "[1, 2].transformList(i, v, v + 1)", 49 - 20),
    ("TestTwoVariableComprehensionCost", "[1, 2].transformList(i, v, v < 5, v + 1)", 53 - 20),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71 - 60),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 75 - 60),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", 131 - 60),
    (
        "TestTwoVariableComprehensionCost",
        "{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})",
        135 - 60,
    ),
]
RUNTIME_COSTS += [
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.all(k, v, v > 0)", 41 - 30),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.exists(k, v, v > 0)", 40 - 30),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 40 - 30),
    ("TestTwoVariableComprehensionCost", "[1, 2].all(i, v, v > 0)", 21 - 10),
    ("TestTwoVariableComprehensionCost", "[1, 2].exists(i, v, v > 0)", 20 - 10),
    ("TestTwoVariableComprehensionCost", "[1, 2].existsOne(i, v, v > 0)", 20 - 10),
]

LISTS = {
    "int": ("[1, 2, 3, 4, 5]", "3"),
    "uint": ("[uint(1), uint(2), uint(3), uint(4), uint(5)]", "uint(3)"),
    "double": ("[1.0, 2.0, 3.0, 4.0, 5.0]", "3.0"),
    "bool": ("[false, true, false, true, false]", "true"),
    "string": ("['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']", "'x'"),
    "bytes": (
        "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
        "bytes('012345678901')]",
        "bytes('x')",
    ),
    "duration": (
        "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]",
        "duration('3s')",
    ),
    "timestamp": (
        "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), "
        "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), "
        "timestamp('2011-01-05T00:00:00.000+01:00')]",
        "timestamp('2011-01-03T00:00:00.000+01:00')",
    ),
}

# TestListsCost / TestIndexOfCost: Kubernetes expects 15 (int, double, bool, string), 20 (uint,
# duration, timestamp: +5 casts), 25 (bytes: +10 casts) and one more for a cast argument of
# indexOf; all of it but the call itself (one per element: 5) is the literal and its constant
# conversions, which OptOptimize folds. So every one of them costs 5 at admission.
LIST_COSTS: list[tuple[str, str, int]] = [
    *[("TestListsCost", LISTS[k][0] + ".sum()", 5) for k in ("int", "uint", "double", "duration")],
    *[
        ("TestListsCost", lit + op, 5)
        for lit, _ in LISTS.values()
        for op in (".isSorted()", ".max()", ".min()")
    ],
    *[
        ("TestIndexOfCost", f"{lit}.{op}({arg})", 5)
        for lit, arg in LISTS.values()
        for op in ("indexOf", "lastIndexOf")
    ],
    *[
        ("TestIndexOfCost", f"'01234567890123456789012345678901234567890123456789'.{op}('123')", 5)
        for op in ("indexOf", "lastIndexOf")
    ],
]


@pytest.mark.parametrize(("k8s_test", "expr", "cost"), RUNTIME_COSTS + LIST_COSTS)
def test_runtime_cost_as_kubernetes_counts_it(k8s_test: str, expr: str, cost: int) -> None:
    result = evaluate_expression(expr, PlaygroundInputs("1.35"))
    assert result.compile_error is None, (k8s_test, result.compile_error)
    assert result.error is None, (k8s_test, result.error)
    assert result.cost_actual == cost, k8s_test


def test_a_list_that_is_not_constant_costs_its_creation() -> None:
    """The other side of the folding: a list built from a variable is created at run time (10 for
    five elements, as in `TestListsCost`), so Kubernetes' 15 for `.sum()` holds."""
    inputs = PlaygroundInputs("1.35", object={"n": 1})
    # Every element read from `object` (HomogeneousAggregateLiterals: no mixing dyn and int).
    result = evaluate_expression("[object.n, object.n, object.n, object.n, object.n].sum()", inputs)
    assert result.error is None
    assert result.cost_actual == 15 + 5 * 2  # each `object.n`: the variable (1), the selection (1)


def test_traversal_cost_counts_the_bytes_of_a_string() -> None:
    """`library/cost.go` `traversalCost` prices a string at `len(string(vt))` × 0.1: Go's `len` is
    its UTF-8 bytes, where `size()` (and `actualSize`) count code points. Ten `é` are 20 bytes: 2."""
    for expr, cost in (
        ("['éééééééééé'].max()", 2),
        ("['eeeeeeeeee'].max()", 1),
        ("['日本語日本語日本'].indexOf('x')", 2),  # 24 bytes, 8 code points
    ):
        result = evaluate_expression(expr, PlaygroundInputs("1.35"))
        assert result.error is None, result.error
        assert result.cost_actual == cost, expr


# Kubernetes 1.30 and 1.31 count a ValidatingAdmissionPolicy's library calls at cel-go's default
# of 1: their base environment adds `cel.CostTracking(&library.CostEstimator{})` only under the
# feature gate StrictCostEnforcementForVAP (`environment.StrictCostOpt`, `MustBaseEnvSet(ver,
# strictCost)`; beta and off by default in 1.30 from 1.30.3 and in 1.31, absent from 1.30.0; GA
# and locked on from 1.32). cel-go's own trackers (ext.Sets) and defaults (strings, lists) stay.
STRICT_COST: list[tuple[str, int, int]] = [
    (f"{RES}.check('create').allowed()", 8, 350007),
    ("authorizer.path('/healthz').check('get').allowed()", 4, 350003),
    ("[1, 2, 3, 4, 5].sum()", 1, 5),
    ("'ABCDEFGHIJ abcdefghij'.lowerAscii()", 1, 3),
    (f"{V6}.family()", 2, 5),
    ('quantity("50k").asInteger() > 0', 3, 3),
    ("sets.contains([1], [1])", 2, 2),  # ext.Sets' own tracker
    ("'ABCDEFGHIJ abcdefghij' + 'abcdefghij ABCDEFGHIJ'", 5, 5),  # cel-go's default for strings
]


@pytest.mark.parametrize(("expr", "before_1_32", "from_1_32"), STRICT_COST)
def test_library_calls_cost_one_before_strict_cost_enforcement(
    expr: str, before_1_32: int, from_1_32: int
) -> None:
    for version, cost in (
        ("1.30", before_1_32),
        ("1.31", before_1_32),
        ("1.32", from_1_32),
        ("1.37", from_1_32),
    ):
        result = evaluate_expression(expr, PlaygroundInputs(version))
        assert result.error is None, result.error
        assert result.cost_actual == cost, version


def test_jsonpatch_escape_key_runtime_cost() -> None:
    """TestStringLibrary "jsonpatch.escapeKey": 2 (a traversal of its 18 characters)."""
    env = build_environment("1.35", ExpressionKind.MAP_JSON_PATCH, has_params=False, mode="stored")
    compiled = compile_expression("jsonpatch.escapeKey('abc/def~ abc/def~')", env)
    # (a patch expression must be a list of JSONPatch: the call itself type-checks, which is enough)
    assert compiled.checked is not None and not compiled.cel_issues, compiled.render()
    result = evaluate(compiled.checked, {}, env=env)
    assert (result.value, result.cost) == ("abc~1def~0 abc~1def~0", 2)
