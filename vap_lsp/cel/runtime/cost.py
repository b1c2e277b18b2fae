"""Runtime cost of calls: cel-go `interpreter/runtimecost.go` defaults, the ext library trackers
(`ext/lists.go`, `ext/sets.go`, cel-go v0.26) and Kubernetes' `library/cost.go` `CallCost`.

Lookup order as in cel-go `costCall`: overload trackers, then the Kubernetes estimator (by
function name), then the built-in defaults (by overload id), else 1. Without the Kubernetes
estimator (`library=False`: a ValidatingAdmissionPolicy on Kubernetes 1.30–1.31, where
`StrictCostEnforcementForVAP` is off by default) the library's calls take cel-go's defaults.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from vap_lsp.cel.runtime.values import LibraryValue, Value, size_of

__all__ = ["call_cost", "is_unit_cost", "traversal_cost"]

STRING_FACTOR = 0.1
REGEX_FACTOR = 0.25
LIST_CREATE = 10
MAP_CREATE = 30
STRUCT_CREATE = 40


def _ceil(x: float) -> int:
    return math.ceil(x)


def traversal_cost(v: Value) -> int:
    """Kubernetes `traversalCost`: string/bytes length × 0.1 (truncated), summed over containers.
    A string's length is Go's `len`, its UTF-8 bytes (not `size()`'s code points)."""
    if isinstance(v, str):
        return int(_utf8_len(v) * STRING_FACTOR)
    if isinstance(v, bytes):
        return int(len(v) * STRING_FACTOR)
    if isinstance(v, (list, tuple)):
        return sum(traversal_cost(x) for x in v)
    if isinstance(v, dict):
        return sum(traversal_cost(k) + traversal_cost(x) for k, x in v.items())
    return 1


def _utf8_len(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


def _allocating(factor: float, size: int) -> int:
    return int(size * factor) + 1 + LIST_CREATE


def _self_compare(lst: Value) -> int:
    n = size_of(lst)
    factor = 2.0
    if n == 0:
        return _allocating(factor, 0)
    if isinstance(lst[0], (str, bytes)):
        factor += STRING_FACTOR
    return _allocating(factor, n * n)


Tracker = Callable[[Sequence[Value], Value], int]

_SORTABLE_IDS = ["int", "uint", "double", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp",
                 "string", "bytes"]  # fmt: skip

_TRACKERS: dict[str, Tracker] = {
    "list_sets_contains_list": lambda a, r: 1 + size_of(a[0]) * size_of(a[1]),
    "list_sets_intersects_list": lambda a, r: 1 + size_of(a[0]) * size_of(a[1]),
    "list_sets_equivalent_list": lambda a, r: 1 + int(size_of(a[0]) * size_of(a[1]) * 2.0),
    "list_slice": lambda a, r: _allocating(1, size_of(r)),
    "lists_range": lambda a, r: _allocating(1, size_of(r)),
    "list_reverse": lambda a, r: _allocating(1, size_of(r)),
    "list_flatten": lambda a, r: _allocating(1.0, size_of(a[0])),
    "list_flatten_int": lambda a, r: _allocating(float(a[1]), size_of(a[0])),
    "list_distinct": lambda a, r: _self_compare(a[0]),
    **{f"list_{t}_sort": (lambda a, r: _self_compare(a[0])) for t in _SORTABLE_IDS},
    **{f"list_{t}_sortByAssociatedKeys": (lambda a, r: _self_compare(a[1])) for t in _SORTABLE_IDS},
}


def _str_cost(v: Value, factor: float = STRING_FACTOR) -> int:
    return _ceil(size_of(v) * factor)


def _regex_cost(s: Value, pattern: Value) -> int:
    return _ceil((1.0 + size_of(s)) * STRING_FACTOR) * _ceil(size_of(pattern) * REGEX_FACTOR)


_ONE = frozenset(
    {
        "serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed",
        "reason", "error", "errored", "masked", "isMask", "prefixLength", "family", "isUnspecified",
        "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast", "format.named", "sign",
        "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo",
        "add", "sub", "major", "minor", "patch", "getScheme", "getHostname", "getHost", "getPort",
        "getEscapedPath", "getQuery",
    }
)  # fmt: skip
_TRAVERSAL = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"})
_STRING_ONE = frozenset(
    {"url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "cidr", "isIP",
     "isCIDR", "quantity", "isQuantity", "semver", "isSemver"}
)  # fmt: skip


def _kubernetes(function: str, overload_id: str, args: Sequence[Value], result: Value) -> int | None:
    """`library/cost.go` `CostEstimator.CallCost`."""
    if function == "check":
        return 350_000
    if function in _ONE:
        return 1
    if function in ("fieldSelector", "labelSelector"):
        if len(args) >= 2:
            n = size_of(args[1])
            parse = math.ceil(n * STRING_FACTOR)
            reqs = math.ceil(n * 0.5)
            return LIST_CREATE + parse + math.ceil(reqs * (LIST_CREATE + STRUCT_CREATE))
        return None
    if function in _TRAVERSAL:
        return traversal_cost(args[0]) if args else 0
    if function in _STRING_ONE:
        return _str_cost(args[0]) if args else None
    if function in ("replace", "split"):
        return _str_cost(args[0], 2 * STRING_FACTOR) if args else None
    if function == "join":
        return _str_cost(result, 2 * STRING_FACTOR) if args else None
    if function in ("find", "findAll"):
        return _regex_cost(args[0], args[1]) if len(args) >= 2 else None
    if function == "ip":
        if overload_id == "cidr_ip":
            return 1
        return _str_cost(args[0]) if args else None
    if function == "ip.isCanonical":
        return _str_cost(args[0], 2 * STRING_FACTOR) if args else None
    if function == "containsIP" and len(args) >= 2:
        c = size_of(args[0])
        cost = _ceil((c + c) * STRING_FACTOR)
        if overload_id == "cidr_contains_ip_string":
            cost += _str_cost(args[1])
        return cost
    if function == "containsCIDR" and len(args) >= 2:
        c = size_of(args[0])
        cost = _ceil((c + c) * STRING_FACTOR) + _ceil(c * STRING_FACTOR) + 1
        if overload_id == "cidr_contains_cidr_string":
            cost += _str_cost(args[1])
        return cost
    if function == "validate" and len(args) >= 2:
        regex_size = getattr(args[0], "max_regex_size", 0)
        return _ceil((1.0 + size_of(args[1])) * STRING_FACTOR) * _ceil(regex_size * REGEX_FACTOR)
    if function == "_==_" and args and isinstance(args[0], LibraryValue):
        return 1
    return None


_STRING_TRAVERSAL_IDS = frozenset({"string_to_bytes", "bytes_to_string", "strings_quote", "string_format"})
_AFFIX_IDS = frozenset({"starts_with_string", "ends_with_string"})
_MIN_SIZE_IDS = frozenset(
    {"less_string", "greater_string", "less_equals_string", "greater_equals_string", "less_bytes",
     "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals", "not_equals"}
)  # fmt: skip


def call_cost(
    function: str,
    overload_id: str,
    args: Sequence[Value],
    result: Value,
    *,
    library: bool = True,
    cel_go_029: bool = False,
) -> int:
    """The actual cost of one call (cel-go `CostTracker.costCall`); `library`: with Kubernetes'
    `library.CostEstimator` (`cel.CostTracking`), as every version since 1.32 programs have it.
    `cel_go_029`: cel-go v0.29's defaults (Kubernetes 1.37): `startsWith`/`endsWith` priced by the
    prefix or suffix, not the receiver, and the global `matches(s, re)` like the member form
    (before, only `matches_string` was priced: the global one cost 1)."""
    tracker = _TRACKERS.get(overload_id)
    if tracker is not None:
        return tracker(args, result)
    k8s = _kubernetes(function, overload_id, args, result) if library else None
    if k8s is not None:
        return k8s
    if overload_id in _AFFIX_IDS:
        return _str_cost(args[1] if cel_go_029 else args[0])
    if overload_id in _STRING_TRAVERSAL_IDS:
        return _str_cost(args[0])
    if overload_id == "in_list":
        return size_of(args[1])
    if overload_id in _MIN_SIZE_IDS:
        return _ceil(min(size_of(args[0]), size_of(args[1])) * STRING_FACTOR)
    if overload_id in ("add_string", "add_bytes"):
        return _ceil((size_of(args[0]) + size_of(args[1])) * STRING_FACTOR)
    if overload_id == "matches_string" or (cel_go_029 and overload_id == "matches"):
        return _regex_cost(args[0], args[1])
    if overload_id == "contains_string":
        return _str_cost(args[0]) * _str_cost(args[1])
    return 1


_K8S_FUNCTIONS = (
    _ONE
    | _TRAVERSAL
    | _STRING_ONE
    | {"check", "fieldSelector", "labelSelector", "replace", "split", "join", "find", "findAll", "ip",
       "ip.isCanonical", "containsIP", "containsCIDR", "validate", "_==_"}
)  # fmt: skip


def is_unit_cost(function: str, overload_id: str, *, library: bool = True) -> bool:
    """Whether `call_cost` is 1 whatever the arguments and the cel-go version (lets the
    interpreter skip it)."""
    return (
        overload_id not in _TRACKERS
        and (not library or function not in _K8S_FUNCTIONS)
        and overload_id not in _STRING_TRAVERSAL_IDS
        and overload_id not in _AFFIX_IDS
        and overload_id not in _MIN_SIZE_IDS
        and overload_id
        not in ("in_list", "add_string", "add_bytes", "matches_string", "matches", "contains_string")
    )
