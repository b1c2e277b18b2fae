"""CEL as text: what an expression names that a ValidatingAdmissionPolicy lacks (a Kyverno
library, an unknown function), long lines broken where CEL allows it, string literals."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from vap_lsp.cel.ast import Call, Comprehension, Expr, Ident, Select, children
from vap_lsp.cel.compile import parse_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment
from vap_lsp.golang.strconv import quote

# The roots an admission policy expression may name (apiserver `pkg/admission/plugin/cel`
# `composition.go` / `validating/validator.go`): what the server declares.
VAP_ROOTS = frozenset(
    {"object", "oldObject", "request", "params", "namespaceObject", "authorizer", "variables"}
)

# Kyverno's CEL libraries (github.com/kyverno/sdk `extensions/cel/libs/*/lib.go`, each a
# `cel.Variable` or functions of its own), and why the API server has no counterpart.
KYVERNO_LIBRARIES: dict[str, tuple[str, str]] = {
    "resource": (
        "resource.Get/List",
        "Kyverno's resource library reads other objects of the cluster at admission time; a "
        "ValidatingAdmissionPolicy sees only the request, its namespace and its params",
    ),
    "http": ("http", "Kyverno's http library calls a web service; the API server makes no calls from CEL"),
    "globalContext": (
        "globalContext",
        "Kyverno's globalContext caches cluster or API data in Kyverno; the API server has no such cache",
    ),
    "image": (
        "image data",
        "Kyverno's image library reads image metadata from a registry; the API server reads no registry",
    ),
    "imagedata": (
        "image data",
        "Kyverno's image library reads image metadata from a registry; the API server reads no registry",
    ),
    "generator": ("generator", "Kyverno's generator library creates objects; admission policies cannot"),
    "json": ("json", "Kyverno's json library (json.unmarshal) is not in the API server's CEL"),
    "yaml": ("yaml", "Kyverno's yaml library (yaml.parse) is not in the API server's CEL"),
    "x509": ("x509", "Kyverno's x509 library (x509.decode) is not in the API server's CEL"),
    "gzip": ("gzip", "Kyverno's gzip library is not in the API server's CEL"),
    "hash": ("hash", "Kyverno's hash library is not in the API server's CEL"),
    "random": ("random", "Kyverno's random library is not in the API server's CEL"),
    "time": ("time", "Kyverno's time library (time.now, time.toCron) is not in the API server's CEL"),
    "user": ("user", "Kyverno's user library (user.parseServiceAccount) is not in the API server's CEL"),
    "transform": ("transform", "Kyverno's transform library is not in the API server's CEL"),
    "exceptions": (
        "PolicyException allowances",
        "`exceptions.*` is filled by Kyverno from CEL PolicyExceptions; the API server has no exceptions",
    ),
}
# Global functions of those libraries without a namespace (sdk `extensions/cel/libs/*/lib.go`).
_KYVERNO_FUNCTIONS = {
    "md5": "hash",
    "sha1": "hash",
    "sha256": "hash",
    "random": "random",
    "parseServiceAccount": "user",
    "listObjToMap": "transform",
    "image": "image",
}


@dataclass(frozen=True)
class Missing:
    """Something an expression names that the API server does not declare."""

    name: str
    construct: str
    reason: str


@cache
def _environment(kubernetes_version: str) -> Environment:
    return build_environment(kubernetes_version, ExpressionKind.VALIDATION, has_params=True, variables={})


def _free_idents(node: Expr, bound: frozenset[str]) -> Iterator[Ident]:
    if isinstance(node, Ident):
        if node.name not in bound:
            yield node
        return
    if isinstance(node, Comprehension):
        yield from _free_idents(node.iter_range, bound)
        yield from _free_idents(node.accu_init, bound)
        inner = bound | {node.iter_var, node.accu_var} | ({node.iter_var2} if node.iter_var2 else set())
        for part in (node.loop_condition, node.loop_step, node.result):
            yield from _free_idents(part, inner)
        return
    for child in children(node):
        yield from _free_idents(child, bound)


def _calls(node: Expr) -> Iterator[Call]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Call):
            yield current
        stack.extend(children(current))


def _idents(node: Expr | None) -> Iterator[Ident]:
    while isinstance(node, Select):
        node = node.operand
    if isinstance(node, Ident):
        yield node


def _qualified(node: Expr | None) -> str | None:
    """`a.b.c` as a dotted name when it is a chain of selects on an identifier."""
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, Select) and not node.test_only and not node.optional:
        base = _qualified(node.operand)
        return None if base is None else f"{base}.{node.field}"
    return None


def missing_names(text: str, kubernetes_version: str) -> list[Missing]:
    """What `text` names that a ValidatingAdmissionPolicy of `kubernetes_version` lacks: roots
    other than the server's (`resource`, `http`, `globalContext`... of Kyverno) and functions its
    CEL environment does not declare. Syntax errors are not reported here (the check is)."""
    env = _environment(kubernetes_version)
    parsed = parse_expression(text, env)
    if parsed.ast is None:
        return []
    out: dict[str, Missing] = {}
    namespaces: set[int] = set()  # identifiers that start a namespaced function's name
    for call in _calls(parsed.ast):
        qualified = _qualified(call.target)
        if qualified is not None and env.find_function(f"{qualified}.{call.function}") is not None:
            namespaces.update(id(n) for n in _idents(call.target))
    for ident in _free_idents(parsed.ast, frozenset()):
        name = ident.name
        if id(ident) in namespaces:
            continue
        if name in VAP_ROOTS or env.find_variable(name) is not None or env.find_type_identifier(name):
            continue
        construct, reason = KYVERNO_LIBRARIES.get(
            name, (name, f"`{name}` is not a variable of a ValidatingAdmissionPolicy")
        )
        out.setdefault(name, Missing(name, construct, reason))
    for call in _calls(parsed.ast):
        name = call.function
        qualified = _qualified(call.target)
        if qualified is not None and qualified.split(".")[0] not in VAP_ROOTS:
            full = f"{qualified}.{name}"
            if env.find_function(full) is not None or qualified.split(".")[0] in out:
                continue
        if env.find_function(name) is not None or env.find_function(name, nested_scope=True) is not None:
            continue
        library = _KYVERNO_FUNCTIONS.get(name)
        if library is not None:
            construct, reason = KYVERNO_LIBRARIES[library]
        else:
            construct = f"{name}()"
            reason = (
                f"the function `{name}` is not in the CEL environment of a ValidatingAdmissionPolicy "
                f"(Kubernetes {env.kubernetes_version})"
            )
        out.setdefault(f"{name}()", Missing(name, construct, reason))
    return list(out.values())


def string_literal(value: str) -> str:
    """A CEL string literal for `value` (Go's `strconv.Quote`: CEL accepts its escapes)."""
    return quote(value)


def list_literal(values: list[str]) -> str:
    return "[" + ", ".join(string_literal(v) for v in values) + "]"


def _break_points(text: str) -> list[int]:
    """Offsets of spaces outside string literals (single, double, triple quoted, raw or not)."""
    points: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            raw = i > 0 and text[i - 1] in "rR"
            triple = text[i : i + 3] == c * 3
            end = c * 3 if triple else c
            j = i + len(end)
            while j < n and not text.startswith(end, j):
                if text[j] == "\\" and not raw:
                    j += 1
                elif text[j] == "\n" and not triple:
                    break
                j += 1
            i = j + len(end)
            continue
        if c == " ":
            points.append(i)
        i += 1
    return points


def reflow(text: str, width: int = 96) -> str:
    """A long one-line expression broken into lines at spaces outside string literals (CEL
    reads a line break as a space), continuation lines indented; anything else as it is."""
    if "\n" in text.strip() or len(text) <= width:
        return text
    lines: list[str] = []
    start = 0
    last = -1
    for point in _break_points(text):
        limit = width - (2 if lines else 0)
        if point - start > limit and last > start:
            lines.append(text[start:last])
            start = last + 1
        last = point
    if len(text) - start > width - (2 if lines else 0) and last > start:
        lines.append(text[start:last])
        start = last + 1
    lines.append(text[start:])
    if len(lines) == 1:
        return text
    lines = [line.strip(" ") for line in lines]  # spaces at a break are outside strings too
    return "\n".join([lines[0], *("  " + line for line in lines[1:])])
