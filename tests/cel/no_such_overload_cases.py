"""What a call answers at admission when no overload fits its runtime arguments, as cel-go words
it, by how the function is bound. Each row: an expression over the ConfigMap below (its values are
runtime values the type checker cannot see through `dyn`), the first Kubernetes minor whose
environment has the function, and the error `vap-lsp cel` and `vap-oracle cel` print. The wording
is the same from cel-go v0.17.8 (Kubernetes 1.30) to v0.29.2 (1.37): common/decls/decls.go
(`MaybeNoSuchOverload`, the guards), interpreter/interpretable.go (`evalUnary`, `evalBinary`) and
the trait masks of common/types/types.go did not change in between; the ConfigMap is a JSON map up
to 1.36 and a schemaless typed value from 1.37, whose type name is `map` too
(apiserver pkg/cel/common/valuesschemalesstyped.go `Type()`: `types.MapType`).

Run by tests/cel/test_cel_eval_no_such_overload.py (vap-lsp at every version from the row's minor
to 1.37) and tests/oracle/test_no_such_overload.py (beside the oracle, which links 1.37)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CONFIG_MAP: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "default", "labels": {"app": "web"}},
    "data": {
        "s": "abc",
        "q": "1Gi",
        "ip": "10.0.0.1",
        "cidr": "10.0.0.0/8",
        "url": "https://example.com/a",
        "ts": "2020-01-01T00:00:00Z",
        "d": "90s",
    },
}

OLDEST = 30
NEWEST = 37


@dataclass(frozen=True)
class Case:
    expression: str
    error: str
    since: int = OLDEST
    """The first minor whose (stored) environment declares the function."""


PLAIN = "no such overload"
"""cel-go's `types.NoSuchOverloadErr`: what an implementation answers for arguments it does not take."""

CASES: list[tuple[str, list[Case]]] = [
    (
        # Bound per overload (UnaryBinding/BinaryBinding/FunctionBinding): decls.go guards each
        # overload with its runtime signature (`guardedUnaryOp`... for a call the checker resolved
        # to one overload, the dispatch `funcDispatch` over all of them for several) and answers
        # `MaybeNoSuchOverload(funcName, args...)`: the function and the arguments' type names.
        # The standard conversions and time accessors, and every Kubernetes library function.
        "per overload",
        [
            Case("string(dyn(object.metadata.labels))", "no such overload: string(map)"),
            Case("int(dyn(object.data.s == 'abc'))", "no such overload: int(bool)"),
            Case("duration(dyn(object.metadata.labels))", "no such overload: duration(map)"),
            Case("string(oldObject)", "no such overload: string(null_type)"),
            Case(
                "timestamp(object.data.ts).getFullYear(dyn(1))",
                "no such overload: getFullYear(google.protobuf.Timestamp, int)",
            ),
            Case("dyn(object.data.s).getHours()", "no such overload: getHours(string)"),
            Case("string(dyn(optional.of(1)))", "no such overload: string(optional_type)"),
            Case("dyn(object.data.s).value()", "no such overload: value(string)"),
            Case(
                "optional.unwrap(dyn(object.data.s))", "no such overload: optional.unwrap(string)", since=33
            ),
            Case("quantity(dyn(object.metadata.labels))", "no such overload: quantity(map)"),
            Case("string(dyn(quantity(object.data.q)))", "no such overload: string(kubernetes.Quantity)"),
            Case(
                "quantity(object.data.q).isGreaterThan(dyn(1))",
                "no such overload: isGreaterThan(kubernetes.Quantity, int)",
            ),
            Case(
                "dyn(semver('1.0.0')).isGreaterThan(dyn(quantity(object.data.q)))",
                "no such overload: isGreaterThan(kubernetes.Semver, kubernetes.Quantity)",
                since=33,
            ),
            Case("semver(dyn(1))", "no such overload: semver(int)", since=33),
            Case("url(dyn(1))", "no such overload: url(int)"),
            Case("dyn(object.data.s).getHost()", "no such overload: getHost(string)"),
            Case("string(dyn(url(object.data.url)))", "no such overload: string(kubernetes.URL)"),
            Case("ip(dyn(object.metadata.labels))", "no such overload: ip(map)"),
            Case("dyn(object.data.s).ip()", "no such overload: ip(string)"),
            Case("cidr(object.data.cidr).containsIP(dyn(1))", "no such overload: containsIP(net.CIDR, int)"),
            Case("format.named(dyn(1))", "no such overload: format.named(int)", since=31),
            Case("dyn(1).validate('a')", "no such overload: validate(int, string)", since=31),
            Case(
                "authorizer.path(dyn(1))", "no such overload: path(kubernetes.authorization.Authorizer, int)"
            ),
            # a non-constant pattern: no regex optimisation, the guard answers
            Case("dyn(1).find(object.data.s)", "no such overload: find(int, string)"),
            Case("dyn(1).findAll(object.data.s, 1)", "no such overload: findAll(int, string, int)"),
            # the guard of list(int) and list(string) looks at the first element
            # (common/types/types.go `defaultIsAssignableRuntimeType`)
            Case("dyn([object.data.s]).sum()", "no such overload: sum(list)"),
            Case("dyn({'a': 1}).isSorted()", "no such overload: isSorted(map)"),
            Case("dyn([1]).join()", "no such overload: join(list)"),
            Case("dyn(1).indexOf(1)", "no such overload: indexOf(int, int)"),
            Case("dyn(object.data.s).indexOf(dyn(1))", "no such overload: indexOf(string, int)"),
            Case("dyn(object.data.s).charAt(dyn('a'))", "no such overload: charAt(string, string)"),
            Case("strings.quote(dyn(1))", "no such overload: strings.quote(int)"),
            Case(
                "sets.contains(dyn(object.metadata.labels), [1])",
                "no such overload: sets.contains(map, list)",
            ),
            Case("dyn(object.data.s).slice(0, 1)", "no such overload: slice(string, int, int)", since=34),
            Case("lists.range(dyn(object.data.s))", "no such overload: lists.range(string)", since=34),
            Case("dyn(object.metadata.labels).reverse()", "no such overload: reverse(map)", since=34),
            # OptOptimize folds a conversion of a constant while the program is built
            # (interpreter/optimizations.go `maybeOptimizeConstUnary`): the same answer, then
            Case("string(dyn(type(1)))", "program instantiation failed: no such overload: string(type)"),
            Case("int(dyn([1]))", "program instantiation failed: no such overload: int(list)"),
        ],
    ),
    (
        # A singleton binding with an operand trait (standard.go: the arithmetic and ordering
        # operators, `size`, `matches`; ext/lists.go: `sort`, the sortBy macro's
        # `@sortByAssociatedKeys`): a first argument without the trait that is no receiver
        # (interpretable.go `evalUnary`/`evalBinary`) is `no such overload: <function>`.
        "singleton, first argument without its trait",
        [
            Case("dyn(object.metadata.labels) + 1", "no such overload: _+_"),
            Case("oldObject + 1", "no such overload: _+_"),
            Case("dyn(true) + 1", "no such overload: _+_"),
            Case("dyn(object.metadata.labels) - 2", "no such overload: _-_"),
            Case("dyn(object.metadata.labels) * 2", "no such overload: _*_"),
            Case("dyn(object.metadata.labels) / 2", "no such overload: _/_"),
            Case("dyn(object.metadata.labels) % 2", "no such overload: _%_"),
            Case("-dyn(object.metadata.labels)", "no such overload: -_"),
            Case("dyn(object.metadata.labels) < 1", "no such overload: _<_"),
            Case("dyn(quantity(object.data.q)) < 1", "no such overload: _<_"),
            Case("dyn(type(1)) <= 1", "no such overload: _<=_"),
            Case("size(dyn(1))", "no such overload: size"),
            Case("dyn(object.metadata.labels).matches(object.data.s)", "no such overload: matches"),
            Case("dyn(object.metadata.labels).sort()", "no such overload: sort", since=34),
            Case(
                "dyn(object.metadata.labels).sortBy(x, x)",
                "no such overload: @sortByAssociatedKeys",
                since=34,
            ),
        ],
    ),
    (
        # The implementation answers: a singleton whose first argument has the trait (`Int.Add`,
        # `String.Compare`... `MaybeNoSuchOverloadErr`), a receiver (string, timestamp and
        # duration `Receive` none of these functions), a singleton without a trait (`!_`,
        # `inAggregate`'s `ValOrErr`), and the conditional and logical operators.
        "the implementation, plain",
        [
            Case("dyn(object.data.s) + 1", PLAIN),
            Case("dyn(1) < object.data.s", PLAIN),
            Case("dyn(object.data.s) * 2", PLAIN),
            Case("dyn(timestamp(object.data.ts)) % 2", PLAIN),
            Case("size(dyn(timestamp(object.data.ts)))", PLAIN),
            Case("-dyn(true)", PLAIN),
            Case("dyn(object.data.s).sort()", PLAIN, since=34),
            Case("1 in dyn(object.data.s)", PLAIN),
            Case("!dyn(object.data.s)", PLAIN),
            Case("dyn(object.data.s) ? 1 : 2", PLAIN),
            Case("dyn(object.data.s) && true", PLAIN),
        ],
    ),
    (
        # Type guards disabled (`decls.DisableTypeGuards(true)`): standard.go's `contains`,
        # `endsWith`, `startsWith` (types.StringContains...: `MaybeNoSuchOverloadErr`) and
        # ext/lists.go's `flatten`, whose implementation names the `%v` of the argument types.
        "guards disabled",
        [
            Case("dyn(object.metadata.labels).contains('a')", PLAIN),
            Case("dyn(1).endsWith(object.data.s)", PLAIN),
            Case("dyn(object.data.s).startsWith(dyn(1))", PLAIN),
            Case("dyn(1).flatten()", "no such overload: int.flatten()", since=34),
            Case("oldObject.flatten()", "no such overload: null_type.flatten()", since=34),
            Case(
                "dyn(object.metadata.labels).flatten(1)",
                "no such overload: map(dyn, dyn).flatten(int)",
                since=34,
            ),
        ],
    ),
    (
        # A constant pattern: the program's regex optimisation replaces the call with one that
        # compiled the pattern and takes only a string (interpreter/optimizations.go
        # `MatchesRegexOptimization`; apiserver pkg/cel/library/regex.go `FindRegexOptimization`,
        # `FindAllRegexOptimization`).
        "constant regex",
        [
            Case("dyn(1).matches('a')", PLAIN),
            Case("dyn(1).find('[a-z]')", PLAIN),
            Case("dyn(1).findAll('a', 1)", PLAIN),
        ],
    ),
]

ALL: list[Case] = [case for _, cases in CASES for case in cases]
