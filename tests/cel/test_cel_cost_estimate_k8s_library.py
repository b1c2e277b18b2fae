"""Static cost estimates of Kubernetes' CEL libraries, from Kubernetes' own expectations
(kubernetes/apiserver v0.35 `pkg/cel/library/cost_test.go`, the `expectEstimatedCost` /
`expectedEstimatedCost` column of the same cases as `test_cel_cost_k8s_library.py`'s runtime column),
and its TestSize (the result sizes `replace` estimates).

`testCost` estimates with `CostEstimator{SizeEstimator: &testCostEstimator{}}`, whose only sizes
are 0..12 for every string and bytes value; `KubernetesTestSizes` is that estimator. Estimates are
on the checked AST, so constant list literals and conversions count in full (no `OptOptimize`
folding, unlike the runtime table). Not translated: TestSetsCost's mixed-type literals
(`[1.0, 1]`, rejected by the admission environment's HomogeneousAggregateLiterals), and the
cases Kubernetes' test environment compiles but the admission one does not.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.cost_estimate import CostEstimate, Estimate, Path, SizeEstimate, estimate_cost
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.types import STRING, Kind, Type


class KubernetesTestSizes:
    """`cost_test.go` `testCostEstimator.EstimateSize`: strings and bytes are 0..12, nothing else."""

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None:
        if type_.kind in (Kind.STRING, Kind.BYTES):
            return SizeEstimate(0, 12)
        return None


def estimate(expr: str, version: str = "1.35", kind: ExpressionKind = ExpressionKind.VARIABLE) -> Estimate:
    env = build_environment(version, kind, has_params=False, variables={}, mode="stored")
    compiled = compile_expression(expr, env)
    assert compiled.checked is not None and not compiled.checked.issues, compiled.render()
    return estimate_cost(compiled.checked, KubernetesTestSizes(), kubernetes_version=version)


V4, V6 = "ip('192.168.0.1')", "ip('2001:db8:3333:4444:5555:6666:7777:8888')"
C4, C6 = "cidr('192.168.0.0/16')", "cidr('2001:db8::/32')"
URL = "url('https:://kubernetes.io/')"
STR = "'abc 123 def 123'"
RES = (
    "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')"
)
SEL = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com"

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
# TestListsCost: `.isSorted()`, `.max()`, `.min()` per element type (and `.sum()` for the numeric ones).
SORTED = {
    "int": (15, 15), "uint": (20, 20), "double": (15, 15), "bool": (15, 15), "string": (15, 25),
    "bytes": (25, 35), "duration": (20, 20), "timestamp": (20, 20),
}  # fmt: skip
# TestIndexOfCost: `.indexOf(x)`, `.lastIndexOf(x)`.
INDEX_OF = {
    "int": (15, 15), "uint": (21, 21), "double": (15, 15), "bool": (15, 15), "string": (15, 25),
    "bytes": (26, 36), "duration": (21, 21), "timestamp": (21, 21),
}  # fmt: skip

ESTIMATES: list[tuple[str, str, tuple[int, int]]] = [
    *[("TestListsCost", LISTS[k][0] + ".sum()", SORTED[k]) for k in ("int", "uint", "double", "duration")],
    *[
        ("TestListsCost", LISTS[k][0] + op, SORTED[k])
        for k in LISTS
        for op in (".isSorted()", ".max()", ".min()")
    ],
    *[
        ("TestIndexOfCost", f"{LISTS[k][0]}.{op}({LISTS[k][1]})", INDEX_OF[k])
        for k in LISTS
        for op in ("indexOf", "lastIndexOf")
    ],
    *[
        ("TestIndexOfCost", f"'01234567890123456789012345678901234567890123456789'.{op}('123')", (5, 5))
        for op in ("indexOf", "lastIndexOf")
    ],
    # TestURLsCost
    *[
        ("TestURLsCost", URL + op, (4, 4))
        for op in (
            ".getScheme()",
            ".getHostname()",
            ".getHost()",
            ".getPort()",
            ".getEscapedPath()",
            ".getQuery()",
        )
    ],
    ("TestURLsCost", f"{URL} == url('https:://kubernetes.io/')", (7, 9)),
    ("TestURLsCost", f"{URL} == url('http://x.b')", (5, 5)),
    # TestIPCost: base 2 (IPv4) / 4 (IPv6); accessors +1; == adds the other side's base and 1
    ("TestIPCost", V4, (2, 2)),
    ("TestIPCost", V6, (4, 4)),
    *[
        ("TestIPCost", ip + op, (base + 1, base + 1))
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
    ("TestIPCost", f"{V4} == ip('192.168.0.1')", (5, 5)),
    ("TestIPCost", f"{V6} == ip('192.168.0.1')", (7, 7)),
    # TestIPIsCanonicalCost
    ("TestIPIsCanonicalCost", "ip.isCanonical('192.168.0.1')", (3, 3)),
    ("TestIPIsCanonicalCost", "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", (8, 8)),
    ("TestIPIsCanonicalCost", "ip.isCanonical('2001:db8::abcd')", (3, 3)),
    # TestCIDRCost: base 2 for both
    *[("TestCIDRCost", c, (2, 2)) for c in (C4, C6)],
    *[("TestCIDRCost", c + op, (3, 3)) for c in (C4, C6) for op in (".ip()", ".prefixLength()", ".masked()")],
    *[("TestCIDRCost", f"{c} == cidr('2001:db8::/32')", (5, 5)) for c in (C4, C6)],
    *[
        ("TestCIDRCost", C4 + f".containsCIDR({arg})", (7, 11))
        for arg in ("cidr('192.0.0.0/30')", "cidr('192.168.0.0/16')", "'192.0.0.0/30'", "'192.168.0.0/16'")
    ],
    ("TestCIDRCost", C4 + ".containsIP(ip('192.0.0.1'))", (4, 7)),
    ("TestCIDRCost", C4 + ".containsIP(ip('192.169.0.1'))", (5, 8)),
    ("TestCIDRCost", C4 + ".containsIP(ip('192.169.169.250'))", (5, 8)),
    ("TestCIDRCost", C4 + ".containsIP('192.0.0.1')", (4, 7)),
    ("TestCIDRCost", C4 + ".containsIP('192.169.0.1')", (5, 8)),
    *[
        ("TestCIDRCost", C6 + f".containsCIDR({arg})", (7, 11))
        for arg in ("cidr('2001:db8::/126')", "cidr('2001:db8::/32')", "'2001:db8::/126'", "'2001:db8::/32'")
    ],
    ("TestCIDRCost", C6 + ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", (7, 10)),
    ("TestCIDRCost", C6 + ".containsIP(ip('2001:db8::1'))", (5, 8)),
    ("TestCIDRCost", C6 + ".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", (7, 10)),
    ("TestCIDRCost", C6 + ".containsIP('2001:db8::1')", (5, 8)),
    # TestStringLibrary
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.lowerAscii()", (3, 3)),
    (
        "TestStringLibrary",
        "'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()",
        (7, 9),
    ),
    ("TestStringLibrary", "'ABCDEFGHIJ abcdefghij'.upperAscii()", (3, 3)),
    (
        "TestStringLibrary",
        "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()",
        (7, 9),
    ),
    ("TestStringLibrary", "strings.quote('ABCDEFGHIJ abcdefghij')", (3, 3)),
    (
        "TestStringLibrary",
        "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
        (7, 11),
    ),
    *[
        ("TestStringLibrary", STR + op, (3, 3))
        for op in (
            ".replace('123', '456')",
            ".replace('', 'x')",
            ".replace('123', '')",
            ".replace('123', '456', 1)",
            ".split(' ')",
            ".split(' ', 1)",
        )
    ],
    *[("TestStringLibrary", STR + op, (2, 2)) for op in (".substring(5)", ".substring(5, 8)")],
    ("TestStringLibrary", "'  abc 123 def 123  '.trim()", (2, 2)),
    ("TestStringLibrary", "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", (11, 23)),
    ("TestStringLibrary", "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", (10, 22)),
    *[
        ("TestStringLibrary", STR + op, (2, 2))
        for op in (".find('123')", ".findAll('123')", ".findAll('123', 1)")
    ],
    # TestAuthzLibrary
    ("TestAuthzLibrary", "authorizer.path('/healthz')", (2, 2)),
    ("TestAuthzLibrary", RES, (6, 6)),
    ("TestAuthzLibrary", f"authorizer.group('').resource('pods').fieldSelector('{SEL}')", (1821, 1821)),
    ("TestAuthzLibrary", f"authorizer.group('').resource('pods').labelSelector('{SEL}')", (1821, 1821)),
    ("TestAuthzLibrary", "authorizer.path('/healthz').check('get').allowed()", (350003, 350003)),
    *[
        ("TestAuthzLibrary", f"{RES}.check('create'){op}", (350007, 350007))
        for op in (".allowed()", ".errored()", ".error()")
    ],
    # TestQuantityCost
    ("TestQuantityCost", 'quantity("12Mi")', (1, 1)),
    ("TestQuantityCost", 'isQuantity("20")', (1, 1)),
    ("TestQuantityCost", 'isQuantity("20M")', (1, 1)),
    ("TestQuantityCost", 'quantity("200M") == quantity("200M")', (3, 3)),
    (
        "TestQuantityCost",
        'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
        (3, 6),
    ),
    (
        "TestQuantityCost",
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
        '&& quantity("0.002G") == quantity("2000k")',
        (3, 9),
    ),
    ("TestQuantityCost", 'quantity("50M").isLessThan(quantity("50Mi"))', (3, 3)),
    ("TestQuantityCost", 'quantity("50Mi").isGreaterThan(quantity("50M"))', (3, 3)),
    ("TestQuantityCost", 'quantity("200M").compareTo(quantity("0.2G")) > 0', (4, 4)),
    ("TestQuantityCost", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', (5, 5)),
    ("TestQuantityCost", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', (5, 5)),
    ("TestQuantityCost", 'quantity("50k").sub(20) == quantity("49980")', (4, 4)),
    ("TestQuantityCost", 'quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', (6, 6)),
    ("TestQuantityCost", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0', (7, 7)),
    ("TestQuantityCost", 'quantity("50k").asInteger() > 0', (3, 3)),
    ("TestQuantityCost", 'quantity("50").isInteger()', (2, 2)),
    ("TestQuantityCost", 'quantity("50.703k").asApproximateFloat() > 0.0', (3, 3)),
    # TestNameFormatCost: the estimate assumes the longest format regex (MaxNameFormatRegexSize)
    ("TestNameFormatCost", 'format.named("dns1123subdomain")', (1, 1)),
    ("TestNameFormatCost", 'format.named("dns1123Subdomain").value().validate("my-name")', (34, 34)),
    ("TestNameFormatCost", 'format.named("dns1123Label").value().validate("my-name")', (34, 34)),
    (
        "TestNameFormatCost",
        'format.named("dns1123Label").value() == format.named("dns1123Label").value()',
        (5, 11),
    ),
    # TestSemverCost
    ("TestSemverCost", 'semver("1.0.0")', (1, 1)),
    ("TestSemverCost", 'semver("1234.56789012345.67890123456789")', (4, 4)),
    ("TestSemverCost", 'isSemver("1.0.0")', (1, 1)),
    ("TestSemverCost", 'isSemver("1234.56789012345.67890123456789")', (4, 4)),
    *[("TestSemverCost", f'semver("1.2.3").{op}()', (2, 2)) for op in ("major", "minor", "patch")],
    ("TestSemverCost", 'semver("1.0.0").isLessThan(semver("1.1.0"))', (3, 3)),
    ("TestSemverCost", 'semver("1.1.0").isGreaterThan(semver("1.0.0"))', (3, 3)),
    ("TestSemverCost", 'semver("1.0.0").compareTo(semver("1.2.3"))', (3, 3)),
    # TestTwoVariableComprehensionCost
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.all(k, v, v > 0)", (37, 41)),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.exists(k, v, v > 0)", (39, 43)),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", (38, 40)),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", (71, 71)),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", (67, 75)),
    ("TestTwoVariableComprehensionCost", "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})", (131, 131)),
    (
        "TestTwoVariableComprehensionCost",
        "{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})",
        (67, 135),
    ),
    ("TestTwoVariableComprehensionCost", "[1, 2].all(i, v, v > 0)", (17, 21)),
    ("TestTwoVariableComprehensionCost", "[1, 2].exists(i, v, v > 0)", (19, 23)),
    ("TestTwoVariableComprehensionCost", "[1, 2].existsOne(i, v, v > 0)", (18, 20)),
    ("TestTwoVariableComprehensionCost", "[1, 2].transformList(i, v, v + 1)", (49, 49)),
    ("TestTwoVariableComprehensionCost", "[1, 2].transformList(i, v, v < 5, v + 1)", (27, 53)),
]

# TestSetsCost, the homogeneous cases: Kubernetes estimates exactly its runtime figure.
SETS: list[tuple[str, int]] = [
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
ESTIMATES += [("TestSetsCost", expr, (k8s, k8s)) for expr, k8s in SETS]


@pytest.mark.parametrize(("k8s_test", "expr", "expected"), ESTIMATES)
def test_estimate_as_kubernetes_estimates_it(k8s_test: str, expr: str, expected: tuple[int, int]) -> None:
    assert estimate(expr).cost == CostEstimate(*expected), k8s_test


# TestIncludesCost (kubernetes/apiserver master, for 1.37: `lists.includes`): as indexOf, except a
# string target, which `includes(dyn)` takes as a list of unit comparisons: 50, not 5.
INCLUDES = [(f"{LISTS[k][0]}.includes({LISTS[k][1]})", INDEX_OF[k]) for k in LISTS] + [
    ("'01234567890123456789012345678901234567890123456789'.includes('123')", (50, 50))
]


@pytest.mark.parametrize(("expr", "expected"), INCLUDES)
def test_includes_as_kubernetes_1_37_estimates_it(expr: str, expected: tuple[int, int]) -> None:
    assert estimate(expr, "1.37").cost == CostEstimate(*expected)


def test_jsonpatch_escape_key_is_a_string_traversal() -> None:
    """TestStringLibrary "escapeKey": 2..2; declared only in a MutatingAdmissionPolicy's JSONPatch
    expressions."""
    found = estimate("jsonpatch.escapeKey('abc/def~ abc/def~')", kind=ExpressionKind.MAP_JSON_PATCH)
    assert found.cost == CostEstimate(2, 2)


# apiserver v0.31 (Kubernetes 1.31) `cost_test.go` TestQuantityCost: `cost.go` had no `_==_` case
# yet, so cel-go's default compares by the smaller size, and a Quantity has none: at most
# (2^64 - 1) × 0.1 per comparison. From 1.32 ("Add equality cost checking") it is 1.
EQUALITY_1_31: list[tuple[str, tuple[int, int], tuple[int, int]]] = [
    ('quantity("200M") == quantity("200M")', (3, 1844674407370955266), (3, 3)),
    (
        'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
        (3, 3689348814741910532),
        (3, 6),
    ),
    (
        'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
        '&& quantity("0.002G") == quantity("2000k")',
        (3, 5534023222112865798),
        (3, 9),
    ),
    ('quantity("50k").add(quantity("20")) == quantity("50.02k")', (5, 1844674407370955268), (5, 5)),
    ('quantity("50k").sub(quantity("20")) == quantity("49.98k")', (5, 1844674407370955268), (5, 5)),
    ('quantity("50k").sub(20) == quantity("49980")', (4, 1844674407370955267), (4, 4)),
]


@pytest.mark.parametrize(("expr", "in_1_31", "from_1_32"), EQUALITY_1_31)
def test_equality_of_kubernetes_types_is_unit_cost_from_1_32(
    expr: str, in_1_31: tuple[int, int], from_1_32: tuple[int, int]
) -> None:
    assert estimate(expr, "1.31").cost == CostEstimate(*in_1_31)
    assert estimate(expr, "1.32").cost == CostEstimate(*from_1_32)


class ExactSizes:
    """Strings `s`, `a`, `b` of the given size ranges (`cost_test.go` TestSize's `testNode`s)."""

    def __init__(self, **sizes: tuple[int, int]) -> None:
        self.sizes = sizes

    def estimate_size(self, path: Path | None, type_: Type) -> SizeEstimate | None:
        found = self.sizes.get(".".join(path or ()))
        return SizeEstimate(*found) if found is not None else None


# TestSize: the result size `replace` estimates, from the target's and both arguments' sizes.
REPLACE_SIZES: list[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]] = [
    ("replace empty with char", (3, 3), (0, 0), (1, 1), (7, 7)),  # _a_b_c_
    ("maybe replace char with empty", (3, 3), (1, 1), (0, 0), (0, 3)),
    ("maybe replace repeated", (4, 4), (2, 2), (4, 4), (4, 8)),
    ("maybe replace empty", (4, 4), (0, 1), (0, 2), (0, 14)),  # __a__a__a__a__
    ("replace non-empty size range, maybe larger", (4, 4), (1, 1), (1, 2), (4, 8)),
    ("replace non-empty size range, maybe smaller", (4, 4), (1, 2), (1, 1), (2, 4)),
]


@pytest.mark.parametrize(
    ("name", "target", "old", "new", "expected"), REPLACE_SIZES, ids=[c[0] for c in REPLACE_SIZES]
)
def test_replace_result_size_as_kubernetes_estimates_it(
    name: str,
    target: tuple[int, int],
    old: tuple[int, int],
    new: tuple[int, int],
    expected: tuple[int, int],
) -> None:
    env = build_environment("1.35", ExpressionKind.VARIABLE, has_params=False, variables={}, mode="stored")
    env = replace(env, variables={**env.variables, "s": STRING, "a": STRING, "b": STRING})
    compiled = compile_expression("s.replace(a, b)", env)
    assert compiled.checked is not None and not compiled.checked.issues, compiled.render()
    found = estimate_cost(compiled.checked, ExactSizes(s=target, a=old, b=new), kubernetes_version="1.35")
    assert found.result_size == SizeEstimate(*expected), name
