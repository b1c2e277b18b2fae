"""What the CEL editor features know at a cursor: the expression, its environment, its types.

Every CEL feature (hover, completion, signature help, semantic tokens, inlay hints) starts
from the same facts: which expression site of which policy the offset is in, the decoded index
inside the scalar, the *typed* environment (object typed from the first matched kind, params
from paramKind, the variables visible there) and the compile result in it. Computing those per
request would redo `to_python` and the variable compilations, so a policy's facts are cached
per parsed YAML node (a new text version parses new nodes, so staleness is impossible).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.object_context import ObjectContext
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.sites import ExpressionSite
from vap_lsp.analysis.model.typing import KindTyping, VariableTyping
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel.ast import Call, Comprehension, Expr, Ident, ParsedExpr, Select
from vap_lsp.cel.checker import CheckedExpr, check, qualified_name
from vap_lsp.cel.compile import CompileResult, parse_expression
from vap_lsp.cel.environment import Environment, ExpressionKind
from vap_lsp.cel.types import Type
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.lru import LruCache
from vap_lsp.text import Span
from vap_lsp.yaml.markers import DOCUMENT_MARKER
from vap_lsp.yaml.model import (
    MappingNode,
    Path,
    ScalarNode,
    ScalarStyle,
    SequenceNode,
    deref,
    lookup,
)
from vap_lsp.yaml.offsets import OffsetMap

__all__ = [
    "CelContext",
    "PolicyCel",
    "Repaired",
    "cel_context_at",
    "policy_cel",
    "policy_cels",
    "repair",
    "scan",
]


@dataclass(frozen=True)
class PolicyCel:
    """A VAP/MAP of the document and its policy context (`vap_lsp.analysis.model.context`), which the
    diagnostics read too: features never compile on their own."""

    obj: K8sObject
    context: PolicyContext

    @property
    def sites(self) -> list[ExpressionSite]:
        return self.context.sites

    @property
    def kinds(self) -> tuple[KindTyping, ...]:
        return self.context.kinds

    @property
    def kinds_text(self) -> str:
        return self.context.kinds_text

    @property
    def has_params(self) -> bool:
        return self.context.has_params

    @property
    def variables(self) -> list[VariableTyping]:
        return self.context.variables

    def variable(self, name: str) -> VariableTyping | None:
        return self.context.variable(name)

    def environment(self, site: ExpressionSite) -> Environment:
        """The precise environment: object typed from the first kind with a schema, params from
        paramKind, each variable with its inferred type."""
        return self.context.environment(site)

    def compile(self, site: ExpressionSite) -> CompileResult:
        return self.context.compile(site)


def _build(obj: K8sObject, version: str, workspace: WorkspaceIndex | None) -> PolicyCel | None:
    """The policy context the diagnostics were computed from (`model.object_context`): the
    defaulted spec, the schemas of the Kubernetes version that serves the policy's apiVersion."""
    policy = ObjectContext(obj, version, workspace).policy
    return PolicyCel(obj, policy) if policy is not None else None


# An entry keeps its policy's node and policy context alive: 256 policies, of 2 million characters
# in all (as `context.policy_context`'s own cache; usually the same contexts).
CACHE_WEIGHT = 2_000_000
_CACHE: LruCache[tuple[int, str, int, int], tuple[K8sObject, PolicyCel | None]] = LruCache(
    256, weigh=lambda _, entry: entry[0].node.span.end - entry[0].node.span.start, max_weight=CACHE_WEIGHT
)


def policy_cel(snapshot: DocumentSnapshot, obj: K8sObject) -> PolicyCel | None:
    """The policy's CEL facts, cached per parsed node (kept alive by the entry), so a request
    neither re-reads the policy (`to_python`) nor rebuilds its policy context."""
    workspace = snapshot.workspace
    version = snapshot.kubernetes_version
    key = (id(obj.node), version, id(workspace), workspace.crd_generation if workspace is not None else -1)
    hit = _CACHE.get(key)
    if hit is not None and hit[0].node is obj.node:
        return hit[1]
    built = _build(obj, version, workspace)
    _CACHE.put(key, (obj, built))
    return built


def policy_cels(snapshot: DocumentSnapshot) -> list[PolicyCel]:
    """Every VAP/MAP of the document with its CEL facts (semantic tokens, inlay hints)."""
    out: list[PolicyCel] = []
    for obj in snapshot.objects:
        pc = policy_cel(snapshot, obj)
        if pc is not None:
            out.append(pc)
    return out


@dataclass
class CelContext:
    """The expression at a cursor: `index` is the decoded index into `site.text`."""

    policy: PolicyCel
    site: ExpressionSite
    index: int
    env: Environment
    result: CompileResult
    kind: KindTyping | None = None
    """The kind `object` is typed as here: the primary one, or inside a branch a guard rules out
    for it (`object.kind != 'Pod' || …`), the first kind the branch can run for."""

    def for_kind(self, kind: KindTyping | None) -> CelContext:
        """This context typed as `kind` (its precise view)."""
        if kind is None or kind is self.kind:
            return self
        view = self.policy.context.precise(kind)
        return CelContext(
            self.policy, self.site, self.index, view.environment(self.site), view.own_result(self.site), kind
        )

    def narrowed(self, parsed: ParsedExpr, offset: int) -> CelContext:
        """This context typed as the kind that can run the node at `offset` of `parsed` (the
        expression as written, or repaired text being typed; `PolicyContext.kind_at`)."""
        return self.for_kind(self.policy.context.kind_at(self.site, parsed, offset))

    @property
    def node(self) -> ScalarNode:
        return self.site.node

    @property
    def text(self) -> str:
        return self.site.text

    @property
    def checked(self) -> CheckedExpr | None:
        return self.result.checked

    def node_path(self) -> list[Expr]:
        """The AST path at the cursor (outermost first), in the compile result's coordinates."""
        return self.result.parsed.node_at(self.index - self.result.offset)

    def source_span(self, start: int, end: int) -> Span:
        """A decoded range of the expression text (not the trimmed one) as a file span."""
        return self.node.source_span(start, end)


def cel_context_at(snapshot: DocumentSnapshot, offset: int) -> CelContext | None:
    """The CEL expression containing `offset`, or None when the offset is not in one."""
    obj = snapshot.object_at(offset)
    if obj is None:
        # Trailing spaces after an object's last (empty) value are outside its span.
        line = snapshot.lines.line_of(offset)
        ends = [o for o in snapshot.objects if snapshot.lines.line_of(o.node.span.end) == line]
        obj = ends[-1] if ends else None
    if obj is None:
        return None
    pc = policy_cel(snapshot, obj)
    if pc is None:
        return None
    for site in pc.sites:
        span = site.node.span
        if not span.start <= offset <= span.end:
            continue
        index = site.node.decoded_index(offset)
        if index is None:
            continue
        result = pc.compile(site)
        ctx = CelContext(pc, site, index, pc.environment(site), result, pc.context.primary)
        return ctx.narrowed(result.parsed, index - result.offset)
    blank = _blank_site(pc, offset, snapshot)
    if blank is not None:
        return CelContext(pc, blank, 0, pc.environment(blank), pc.compile(blank), pc.context.primary)
    return None


def _expression_paths(pc: PolicyCel) -> list[tuple[ExpressionKind, Path, str | None]]:
    """Where expressions may be written (as `expression_sites`, blank ones included)."""
    spec = deref(pc.obj.node.get("spec"))
    out: list[tuple[ExpressionKind, Path, str | None]] = []

    def items(key: str) -> list[tuple[int, MappingNode]]:
        seq = deref(spec.get(key)) if isinstance(spec, MappingNode) else None
        if not isinstance(seq, SequenceNode):
            return []
        return [(i, n) for i, n in enumerate(map(deref, seq.items)) if isinstance(n, MappingNode)]

    for i, _ in items("matchConditions"):
        out.append((ExpressionKind.MATCH_CONDITION, ("spec", "matchConditions", i, "expression"), None))
    for i, var in items("variables"):
        name = deref(var.get("name"))
        var_name = name.value if isinstance(name, ScalarNode) else None
        out.append((ExpressionKind.VARIABLE, ("spec", "variables", i, "expression"), var_name))
    for i, _ in items("validations"):
        out.append((ExpressionKind.VALIDATION, ("spec", "validations", i, "expression"), None))
        out.append((ExpressionKind.MESSAGE_EXPRESSION, ("spec", "validations", i, "messageExpression"), None))
    for i, _ in items("auditAnnotations"):
        out.append(
            (ExpressionKind.AUDIT_ANNOTATION, ("spec", "auditAnnotations", i, "valueExpression"), None)
        )
    for i, _ in items("mutations"):
        base: Path = ("spec", "mutations", i)
        out.append(
            (ExpressionKind.MAP_APPLY_CONFIGURATION, (*base, "applyConfiguration", "expression"), None)
        )
        out.append((ExpressionKind.MAP_JSON_PATCH, (*base, "jsonPatch", "expression"), None))
    return out


def _blank_site(pc: PolicyCel, offset: int, snapshot: DocumentSnapshot) -> ExpressionSite | None:
    """An empty expression the cursor is in: completion must offer the roots there.

    The site gets a one-point scalar at the cursor, so insertions land where the user is
    (an empty plain scalar's own span sits before the space after the colon).
    """
    lines = snapshot.lines
    for kind, path, name in _expression_paths(pc):
        node, _, found = lookup(pc.obj.node, path)
        if len(found) != len(path) or not isinstance(node, ScalarNode) or node.value.strip():
            continue
        span = node.span
        if node.style in (ScalarStyle.LITERAL, ScalarStyle.FOLDED):
            inside = span.start <= offset <= span.end and lines.line_of(offset) > lines.line_of(span.start)
        elif node.style is ScalarStyle.PLAIN:
            inside = offset >= span.start and lines.line_of(offset) == lines.line_of(span.start)
            inside = inside and not snapshot.text[span.start : offset].strip()
        else:
            inside = span.start < offset < span.end
        if inside:
            point = ScalarNode(
                Span(offset, offset),
                style=node.style,
                offsets=OffsetMap.linear(offset, 1),
                content_start=offset,
            )
            return ExpressionSite(kind, path, point, name)
    return None


# --- text scanning on possibly incomplete expressions ---------------------------------------------


@dataclass
class Scan:
    """What the text before a cursor looks like, lexically."""

    in_string: bool
    open_brackets: list[tuple[str, int]]  # (bracket char, index), innermost last


_CLOSE = {"(": ")", "[": "]", "{": "}"}


def scan(text: str, end: int) -> Scan:
    """Brackets left open and whether `end` lies inside a string literal (quotes, raw, triple)."""
    stack: list[tuple[str, int]] = []
    i = 0
    n = min(end, len(text))
    while i < n:
        ch = text[i]
        if ch in "'\"":
            raw = (
                i > 0 and text[i - 1] in "rR" and (i < 2 or not (text[i - 2].isalnum() or text[i - 2] == "_"))
            )
            quote = text[i : i + 3] if text[i : i + 3] in ("'''", '"""') else ch
            j = i + len(quote)
            closed = False
            while j < n:
                if not raw and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += len(quote)
                    closed = True
                    break
                if len(quote) == 1 and text[j] in "\r\n":
                    break
                j += 1
            if not closed and j >= n:
                return Scan(True, stack)
            i = j
            continue
        if ch in "([{":
            stack.append((ch, i))
        elif ch in ")]}" and stack and _CLOSE[stack[-1][0]] == ch:
            stack.pop()
        i += 1
    return Scan(False, stack)


PLACEHOLDER = "vapLspCursor__"


@dataclass
class Repaired:
    """The text before the cursor made parseable: a placeholder identifier, brackets closed."""

    text: str
    placeholder_start: int
    parsed: ParsedExpr
    checked: CheckedExpr

    def placeholder_node(self) -> Expr | None:
        """The node the placeholder became: an Ident, the field of a Select, a Call's name."""
        start = self.placeholder_start
        for node in self.parsed.walk():
            if isinstance(node, Ident) and node.start == start and node.name == PLACEHOLDER:
                return node
            if isinstance(node, Select) and node.field_start == start:
                return node
            if isinstance(node, Call) and node.function_start == start and node.target is not None:
                return node
        for call in self.parsed.macro_calls.values():
            if call.function_start == start and call.target is not None:
                return call
        return None

    def scopes_at(self) -> dict[str, Type]:
        """Comprehension variables visible at the placeholder (innermost wins)."""
        out: dict[str, Type] = {}
        start = self.placeholder_start
        comps = [n for n in self.parsed.walk() if isinstance(n, Comprehension)]
        comps.sort(key=lambda c: c.start)
        for comp in comps:
            call = self.parsed.macro_calls.get(comp.id)
            if call is None:
                continue
            iter_vars = {comp.iter_var, comp.iter_var2}
            body_args = [a for a in call.args if not (isinstance(a, Ident) and a.name in iter_vars)]
            if not any(a.start <= start <= a.end for a in body_args):
                continue
            for name, typ in self.checked.scopes.get(comp.id, {}).items():
                if name != comp.accu_var and not name.startswith(("@", "#")) and name != "__result__":
                    out[name] = typ
        return out


def repair(text: str, prefix_start: int, env: Environment) -> Repaired:
    """Parse and check `text[:prefix_start]` + placeholder + closing brackets."""
    head = text[:prefix_start]
    closers = "".join(_CLOSE[b] for b, _ in reversed(scan(head, len(head)).open_brackets))
    repaired = head + PLACEHOLDER + closers
    parsed = parse_expression(repaired, env)
    return Repaired(repaired, prefix_start, parsed, check(parsed, env))


def receiver_of(node: Expr) -> Expr | None:
    if isinstance(node, Select):
        return node.operand
    if isinstance(node, Call):
        return node.target
    return None


def qualified(node: Expr | None) -> str | None:
    return qualified_name(node) if node is not None else None


_NOT_BREAK = re.compile(r"[^\r\n]+")


def document_local_text(text: str, offset: int) -> str:
    """`text` with every YAML document but the one at `offset` blanked (line breaks kept).

    Offsets and line numbers are unchanged, so a snapshot of this text answers hover and
    completion for that document at the cost of parsing one document, not the whole file
    (what context in a large multi-document file needs before diagnostics catch up).
    """
    starts = [0]
    starts.extend(m.start() for m in DOCUMENT_MARKER.finditer(text))
    starts.append(len(text))
    lo, hi = 0, len(text)
    for a, b in itertools.pairwise(starts):
        if a <= offset <= b:
            lo, hi = a, b
            break
    if lo == 0 and hi == len(text):
        return text

    def blank(part: str) -> str:
        return _NOT_BREAK.sub(lambda m: " " * len(m.group()), part)

    return blank(text[:lo]) + text[lo:hi] + blank(text[hi:])
