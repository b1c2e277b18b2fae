"""Go panics cel-go recovers as an expression's error (cel/program.go: `Eval`'s deferred
`recover` → `internal error: <panic>`), which no `||`, `&&` or macro absorbs.

ext.lists v3 (Kubernetes 1.34 on) tracks the runtime cost of `distinct()`, `sort()` and
`sortBy()` by asserting an argument is a list (ext/lists.go `trackListDistinct`,
`trackListSort`: the receiver; `trackListSortBy`: the keys), and of `flatten(depth)` by asserting
the depth is an int (`trackListFlatten`). The tracker runs on the values of the call's arguments
whatever the call returned, so an argument that failed or is of another type panics, in Go's
words: `interface conversion: <its Go type> is not traits.Lister: missing method <the first of
the interface's methods, by name, it lacks>`, `interface conversion: ref.Val is <its Go type>,
not types.Int`. Only where the checker resolved the call to that one overload (`dyn(x).sort()`
has eight candidates and no tracker).

Each case: an expression over a Pod (`object`, typed `dyn`, as a validation's) and the
evaluation error at 1.36 (JSON-shaped objects) and 1.37 (schemaless typed objects). Run by
tests/cel/test_cel_go_panics.py (vap-lsp at 1.34, 1.36, 1.37) and tests/oracle/test_go_panics.py
(beside the oracle, which links 1.37)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


def _panic(go_type: str, missing: str = "Add") -> str:
    return f"internal error: interface conversion: {go_type} is not traits.Lister: missing method {missing}"


ERR = _panic("*types.Err")


@dataclass(frozen=True)
class Case:
    name: str
    expression: str
    v136: str | None
    """The error at 1.34–1.36 (None: no error)."""
    v137: str | None


CASES = [
    Case("sort of a list literal holding an error", "[int(object.metadata.name)].sort()", ERR, ERR),
    Case("sort of a map() whose step fails", "object.spec.containers.map(x, string(x)).sort()", ERR, ERR),
    Case("distinct of a failed receiver", "dyn(1/0).distinct()", ERR, ERR),
    Case("sortBy with a failing key", "[1].sortBy(x, x / 0)", ERR, ERR),
    Case("the panic is not absorbed by ||", "[int(object.metadata.name)].sort() == [] || true", ERR, ERR),
    Case(
        "nor by a macro",  # exists() would absorb an error where another iteration is true
        "[1, 2].exists(i, i == 2 || [int(object.metadata.name)].distinct() == [])",
        ERR,
        ERR,
    ),
    Case(
        "distinct of an int",
        "dyn(1).distinct()",
        _panic("types.Int", "Contains"),
        _panic("types.Int", "Contains"),
    ),
    Case(
        "distinct of a string",
        "dyn(object.metadata.name).distinct()",
        _panic("types.String", "Contains"),
        _panic("types.String", "Contains"),
    ),
    Case("distinct of null", "dyn(null).distinct()", _panic("types.Null"), _panic("types.Null")),
    Case(
        "distinct of a map literal", "dyn({}).distinct()", _panic("*types.baseMap"), _panic("*types.baseMap")
    ),
    Case(
        "distinct of the object's metadata",
        "dyn(object.metadata).distinct()",
        _panic("*types.baseMap"),
        _panic("*common.reflectSchemalessTypedStruct"),
    ),
    Case(
        "distinct of the object's labels",
        "dyn(object.metadata.labels).distinct()",
        _panic("*types.baseMap"),
        _panic("*common.reflectSchemalessTypedMap"),
    ),
    Case(
        "distinct of a quantity",
        "dyn(quantity('1')).distinct()",
        _panic("cel.Quantity"),
        _panic("cel.Quantity"),
    ),
    Case(
        "distinct of a duration",
        "dyn(duration('1s')).distinct()",
        _panic("types.Duration", "Contains"),
        _panic("types.Duration", "Contains"),
    ),
    Case("distinct of a type", "dyn(int).distinct()", _panic("*types.Type"), _panic("*types.Type")),
    Case(
        "distinct of optional.none()",
        "dyn(optional.none()).distinct()",
        _panic("*types.Optional"),
        _panic("*types.Optional"),
    ),
    Case(
        "flatten with a depth that is a string",
        "[1].flatten(dyn('a'))",
        "internal error: interface conversion: ref.Val is types.String, not types.Int",
        "internal error: interface conversion: ref.Val is types.String, not types.Int",
    ),
    Case(
        "flatten with a depth that failed",
        "[[1]].flatten(dyn(1/0))",
        "internal error: interface conversion: ref.Val is *types.Err, not types.Int",
        "internal error: interface conversion: ref.Val is *types.Err, not types.Int",
    ),
    Case(
        "flatten with a double depth",
        "[[1]].flatten(dyn(1.0))",
        "internal error: interface conversion: ref.Val is types.Double, not types.Int",
        "internal error: interface conversion: ref.Val is types.Double, not types.Int",
    ),
    Case("flatten of a list that failed", "dyn(1/0).flatten(1)", "division by zero", "division by zero"),
    Case("flatten with an int depth", "[[1]].flatten(1) == [1]", None, None),
    # cel-go evaluates both operands of a binary call (evalBinary, evalEq) before it returns the
    # first's error: a panic on the right ends the evaluation. Not so for three arguments or
    # more (evalVarArgs) and list literals (evalList): the first error returns at once.
    Case("the right operand of == panics after the left failed", "object.nope == [1/0].sort()", ERR, ERR),
    Case(
        "the right operand of + panics after the left failed",
        "object.nope + dyn(1).distinct()",
        _panic("types.Int", "Contains"),
        _panic("types.Int", "Contains"),
    ),
    Case(
        "a later argument of three is not evaluated",
        "object.metadata.name.replace(object.nope, dyn(dyn(1).distinct()))",
        "no such key: nope",
        "no such key: nope",
    ),
    Case(
        "nor a later element of a list",
        "[dyn(object.nope), dyn(dyn(1).distinct())]",
        "no such key: nope",
        "no such key: nope",
    ),
    # Not tracked: several overloads for a dyn receiver or keys, or a list that is one.
    Case("sort of a dyn receiver that failed", "dyn(1/0).sort()", "division by zero", "division by zero"),
    Case("sort of a string", "dyn('a').sort()", "no such overload", "no such overload"),
    Case(
        "sortBy with a dyn key that fails",
        "[1].sortBy(x, dyn(x / 0))",
        "division by zero",
        "division by zero",
    ),
    Case(
        "reverse is not tracked",
        "[int(object.metadata.name)].reverse()",
        "type conversion error from 'string' to 'int'",
        "type conversion error from 'string' to 'int'",
    ),
    Case("distinct of a list", "[1, 2, 2].distinct() == [1, 2]", None, None),
]
