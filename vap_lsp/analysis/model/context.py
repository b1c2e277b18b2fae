"""One context per policy, computed once and shared by every check and editor feature.

`PolicyContext` is what a VAP or MAP is to every analysis: its expression sites, the kinds its
`object` can be and their schemas (`model.typing`), the requests it can see per kind (kinds ×
operations × subresources past `matchConstraints`, `excludeResourceRules`, the bindings'
`matchResources` and the matchConditions: `facts`), where its expressions run (`point`), what
admission guarantees there (`guaranteed`, memoised by field path), and each expression compiled in
three views (reference §1.3, §1.4, §4):

- **create-time** (the server's `validation.go`): `object`, `oldObject`, `params` are `dyn`,
  NewExpressions environment; its issues are errors;
- **type-check** (the server's `typechecking.go`), one per matched kind: `object` typed from
  the kind's schema, `params` from `paramKind`, StoredExpressions, no
  `authorizer.requestResource`; variables converted by the composited compiler's rule (object
  types read as `dyn` through `variables`);
- **precise** (vap-lsp's own), one per matched kind: typed as the type-check view, but each
  variable keeps the type its expression infers, so `variables.spec.replicas` is an `int` and
  `variables.containers.all(c, c.` knows `c` is a container. Editor features read this view
  (of the first kind with a schema); the checks report what only this view finds as vap-lsp's
  advisory check, never as the server's verdict.

Each view keeps every expression's compile result and its narrowing (`View.reachability`): the
checks read them, never recompute them. The context is built once per policy node and cached
(`policy_context`); views are computed on first use.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from vap_lsp.analysis.model.guarantees import (
    KindGuarantee,
    NullCase,
    Point,
    Subject,
    field_decl,
    field_guarantee,
    matched_operations,
    null_cases,
    policy_operations,
    subject,
    type_path,
)
from vap_lsp.analysis.model.matching import (
    ANY,
    GVK,
    RuleRequest,
    equivalent_resources,
    operations_reaching,
    policy_requests,
    requests_past,
)
from vap_lsp.analysis.model.narrowing import (
    Facts,
    Guard,
    Reachability,
    VariableAsts,
    decide,
    everything_reachable,
    guarded,
    reachability,
)
from vap_lsp.analysis.model.sites import TRIMMED, ExpressionSite, expression_sites
from vap_lsp.analysis.model.typing import (
    KindTyping,
    RuleTyping,
    UntypedResource,
    VariableTyping,
    ViewName,
    params_kind,
    params_untyped,
    spec_name,
    variable_index,
    walk_rules,
)
from vap_lsp.analysis.model.workspace import Read, WorkspaceIndex, recording, replay
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.ast import Call, Expr, Ident, ParsedExpr, Select
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileIssue, CompileResult, compile_expression, parse_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, Mode, build_environment, variable_field_type
from vap_lsp.cel.types import DYN, Kind, ObjectType, Type, shape_of
from vap_lsp.golang.strings import trim_space_offset
from vap_lsp.lru import LruCache
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.schema.store import get_schema_set
from vap_lsp.yaml.model import MappingNode, Path

T = TypeVar("T")

__all__ = [
    "SERVER_TYPE_CHECKED",
    "IssueKey",
    "PolicyContext",
    "View",
    "clear_cache",
    "issue_key",
    "policy_context",
]


@functools.lru_cache(maxsize=1024)
def _environment(
    version: str,
    kind: ExpressionKind,
    has_params: bool,
    object_t: Type,
    params_t: Type,
    variables: tuple[tuple[str, Type], ...] | None,
    mode: Mode,
    type_check: bool,
    precise: bool,
    type_ids: tuple[int, int],
) -> Environment:
    """Environments are cached so the compile cache (keyed by environment identity) hits.

    CEL types compare by name, so two versions of a workspace CRD give equal `ReplicaLimit`
    types: `type_ids` (the identities of `object_t` and `params_t`, kept alive by the key)
    tell them apart, or an edited CRD would keep context with its old fields."""
    return build_environment(
        version,
        kind,
        has_params=has_params,
        object_type=object_t,
        params_type=params_t,
        variables=None if variables is None else dict(variables),
        mode=mode,
        declare_request_resource_authorizer=not type_check,
        precise_variables=precise,
    )


SiteKey = tuple[Hashable, ...]


def _site_key(site: ExpressionSite) -> SiteKey:
    return (site.kind, site.path, site.name, site.text)


@dataclass
class _SiteCache:
    """A view's results by expression (kind, place, variable name and text): what a policy's next
    context reuses when only expressions of its own changed (`_Shape`)."""

    results: dict[SiteKey, CompileResult] = field(default_factory=dict)
    reach: dict[SiteKey, Reachability] = field(default_factory=dict)
    absent: dict[tuple[SiteKey, int, str, frozenset[str] | None], bool] = field(default_factory=dict)
    unread: dict[SiteKey, Guard | None] = field(default_factory=dict)

    def size(self) -> int:
        return len(self.results) + len(self.reach) + len(self.absent) + len(self.unread)


@dataclass
class View:
    """The policy's expressions compiled in one view (for one kind, or none)."""

    name: ViewName
    kind: KindTyping | None
    object_type: Type
    params_type: Type
    context: PolicyContext
    variables: list[tuple[ExpressionSite, str, Type | None]] = field(default_factory=list)
    """Each named variable's site, name and inferred type in this view (None: does not compile)."""
    _cache: _SiteCache = field(default_factory=_SiteCache)
    _declared: list[tuple[int, str, Type]] = field(default_factory=list)
    """`variables` as declared to the expressions after them (index, name, `declared` type),
    converted once each."""

    def _narrowing_key(self, site: ExpressionSite) -> SiteKey:
        """A variable's narrowing depends on where the other expressions read it (`_unread`):
        kept for this context only. Every other expression's depends on itself and the shape."""
        key = _site_key(site)
        return (self.context.token, *key) if site.kind is ExpressionKind.VARIABLE else key

    @property
    def mode(self) -> Mode:
        return "stored" if self.name == "type-check" else "new"

    def declared(self, inferred: Type | None) -> Type:
        if inferred is None:
            return DYN
        return inferred if self.name == "precise" else variable_field_type(inferred)

    def environment(self, site: ExpressionSite) -> Environment:
        """The environment of `site` (a variable sees the earlier variables, others all)."""
        pt = self.context
        visible = self._visible(site)
        return _environment(
            pt.version, site.kind, pt.has_params, self.object_type, self.params_type, visible, self.mode,
            self.name == "type-check", self.name == "precise", (id(self.object_type), id(self.params_type)),
        )  # fmt: skip

    def _visible(self, site: ExpressionSite) -> tuple[tuple[str, Type], ...] | None:
        """The variables `site` sees, as declared to it (a variable: the earlier ones); None when
        the policy has none."""
        declared = self._declared
        for s, name, t in self.variables[len(declared) :]:
            declared.append((variable_index(s), name, self.declared(t)))
        if site.kind is ExpressionKind.VARIABLE:
            index = variable_index(site)
            return tuple((n, t) for i, n, t in declared if i < index)
        return tuple((n, t) for _, n, t in declared) if self.context.has_variables else None

    def result(self, site: ExpressionSite) -> CompileResult:
        """The compile result of `site` in this view (cached here and in the compile cache)."""
        key = _site_key(site)
        hit = self._cache.results.get(key)
        if hit is not None:
            return hit
        checkpoint()  # a newer edit's analysis does not wait for this one's expressions
        env = self.environment(site)
        trim = site.kind in TRIMMED
        compile_here = functools.partial(compile_expression, site.text, env, trim=trim)
        shared = self._kind_free(site, env, trim)
        if shared is not None:
            result = self.context.derived(shared, compile_here)
        else:
            alike = self._alike(site, env, trim)
            result = self.context.derived(alike, compile_here) if alike is not None else compile_here()
            if alike is not None and not _names_no_kind(result):
                result = compile_here()
        return self._cache.results.setdefault(key, result)

    def own_result(self, site: ExpressionSite) -> CompileResult:
        """`site` compiled in this view's own environment: its types named for this view's kind,
        for what shows them (`result` may be another kind's compile, alike but for names)."""
        if self.name != "precise":
            return self.result(site)
        return compile_expression(site.text, self.environment(site), trim=site.kind in TRIMMED)

    def _kind_free(self, site: ExpressionSite, env: Environment, trim: bool) -> Hashable | None:
        """In the type-check views, an expression that names no kind-typed root (`object`,
        `oldObject`, the kind's type) compiles alike for every kind: its environments differ only
        in the type of `object`, the variables it sees are declared as the server declares them
        (object types read as `dyn`), so the kinds share one result (a key for it). None otherwise."""
        if self.name != "type-check" or self._without_kind_roots(site, env, trim) is None:
            return None
        return ("kind-free-compile", _site_key(site), trim, self._visible(site), id(self.params_type))

    def _alike(self, site: ExpressionSite, env: Environment, trim: bool) -> Hashable | None:
        """In the precise views, an expression that names no kind-typed root compiles alike, but
        for type names, for the kinds whose variables it reads have types of the same shapes
        (`variables.containers` of a Pod and of a Deployment are both lists of `Container`): a
        key for them to share one compile, or None. What names the kind's types is not shared
        (`_names_no_kind`)."""
        parsed = self._without_kind_roots(site, env, trim) if self.name == "precise" else None
        if parsed is None:
            return None
        visible = self._visible(site) or ()
        read = parsed.selections("variables")
        whole = parsed.reads_whole("variables")
        shapes = tuple((n, shape_of(t)) for n, t in visible if whole or n in read)
        return ("alike-compile", _site_key(site), trim, shapes, id(self.params_type))

    def _without_kind_roots(self, site: ExpressionSite, env: Environment, trim: bool) -> ParsedExpr | None:
        """`site` parsed, when this view types `object` as a kind and the expression names no
        kind-typed root (`object`, `oldObject`, the kind's type); None otherwise."""
        if self.kind is None or not isinstance(self.object_type, ObjectType):
            return None
        parsed = parse_expression(trim_space_offset(site.text)[0] if trim else site.text, env)
        names = parsed.identifiers()
        if "object" in names or "oldObject" in names or self.object_type.name in names:
            return None
        return parsed

    def reachability(self, site: ExpressionSite) -> Reachability:
        """Which nodes of `site`'s compile result in this view can run for the view's kind
        (`narrowing`); everything, without a kind. Cached."""
        key = self._narrowing_key(site)
        hit = self._cache.reach.get(key)
        if hit is not None:
            return hit
        checkpoint()
        result = self.result(site)
        if self.kind is None:
            found = everything_reachable(result.parsed)
        else:
            checked = result.checked
            found = reachability(
                result.parsed,
                self.context.site_facts(self.kind, site),
                self.context.variable_asts(site),
                checked.type_of if checked is not None else None,
                functools.partial(self.context.guaranteed, self.kind, checked)
                if checked is not None
                else None,
            )
            unread = self._unread(site) if site.kind is ExpressionKind.VARIABLE else None
            if unread is not None:
                found = found.all_guarded(unread)
            unmatched = self.context.site_unmatched(self.kind, site)
            if unmatched is not None and result.parsed.ast is not None:
                found = found.all_guarded(Guard(result.parsed.ast, unmatched))
        return self._cache.reach.setdefault(key, found)

    def absent_guarded(
        self, site: ExpressionSite, path: str, node: Expr, operations: frozenset[str] | None = None
    ) -> bool:
        """Whether `node` of `site` cannot run for the view's kind in the requests where the field
        `path` (as written: `object.spec.hostNetwork`) is absent, `has()` of it false: a read of
        it ruled out there is guarded (`has(x.f) && x.f`), one that runs fails. `operations`:
        those where it can be absent (`metadata.name` in a mutating policy: CREATE). Decided on
        the way to `node` only (`narrowing.guarded`), once per node, field and operations."""
        key = (self._narrowing_key(site), node.id, path, operations)
        hit = self._cache.absent.get(key)
        if hit is not None:
            return hit
        return self._cache.absent.setdefault(key, self._absent_guarded(site, path, node, operations))

    def _absent_guarded(
        self, site: ExpressionSite, path: str, node: Expr, operations: frozenset[str] | None
    ) -> bool:
        base = self.reachability(site)
        result = self.result(site)
        if self.kind is None or result.parsed.ast is None:
            return base.guard_of(node) is not None
        if base.guard_of(result.parsed.ast) is not None:
            return True  # the whole site never runs for this kind
        checked = result.checked
        facts = self.context.site_facts(self.kind, site)
        if operations is not None:
            if not facts.operations & operations:
                return True  # present in every request of this kind
            facts = replace(facts, operations=facts.operations & operations)
        if site.kind is not ExpressionKind.MATCH_CONDITION and self.context.conditions_rule_out(
            self.kind, path, facts.operations
        ):
            return True  # a matchCondition is false where the field is absent: `site` never runs
        return guarded(
            result.parsed,
            replace(facts, absent=facts.absent | {path}),
            self.context.variable_asts(site),
            node,
            checked.type_of if checked is not None else None,
            functools.partial(self.context.guaranteed, self.kind, checked) if checked is not None else None,
        )

    def _unread(self, site: ExpressionSite) -> Guard | None:
        """Variables are evaluated lazily (on first read): one read only in branches a guard rules
        out for this kind never runs for it. The guard of its first read, or None when some read
        can run, it is never read, or its name is defined twice. Cached: a chain of variables
        asks it of each reader in turn."""
        key = self._narrowing_key(site)
        if key in self._cache.unread:
            return self._cache.unread[key]
        return self._cache.unread.setdefault(key, self._first_read_guard(site))

    def _first_read_guard(self, site: ExpressionSite) -> Guard | None:
        name = site.name
        sites = self.context.sites
        if name is None or sum(1 for s in sites if s.kind is ExpressionKind.VARIABLE and s.name == name) > 1:
            return None
        reads: list[tuple[ExpressionSite, list[Select]]] = []
        for reader in self.context.variable_readers().get(name, ()):
            if reader is site:
                continue
            if reader.kind is ExpressionKind.VARIABLE and variable_index(reader) < variable_index(site):
                continue
            nodes = self.result(reader).parsed.selections("variables").get(name)
            if nodes:
                reads.append((reader, nodes))
        # A read that can run settles it without the readers' whole narrowing (a walk of each
        # reader, and of each of theirs down a chain of variables): its path and whether the
        # reader runs.
        if any(self._can_run(reader, node) for reader, nodes in reads for node in nodes):
            return None
        first: Guard | None = None
        for reader, nodes in reads:
            reach = self.reachability(reader)
            for node in nodes:
                guard = reach.guard_of(node)
                if guard is None:
                    return None
                first = first or guard
        if first is None:
            return None
        return Guard(first.condition, f"{first.text}, where variables.{name} is read")

    def _can_run(self, site: ExpressionSite, node: Expr) -> bool:
        """`self.reachability(site).guard_of(node) is None`, deciding only the conditions on the
        way to `node` (`narrowing.guarded`) once `site` itself runs for the view's kind."""
        if self.kind is None:
            return True
        if self.context.site_unmatched(self.kind, site) is not None:
            return False
        if site.kind is ExpressionKind.VARIABLE and self._unread(site) is not None:
            return False
        result = self.result(site)
        checked = result.checked
        return not guarded(
            result.parsed,
            self.context.site_facts(self.kind, site),
            self.context.variable_asts(site),
            node,
            checked.type_of if checked is not None else None,
            functools.partial(self.context.guaranteed, self.kind, checked) if checked is not None else None,
        )

    def guard(self, site: ExpressionSite, node: Expr) -> Guard | None:
        """The guard that keeps `node` (of `site`'s compile result in this view) from running
        for this view's kind, or None when it can run. What a check skips for this kind."""
        return self.reachability(site).guard_of(node)

    def results(self) -> list[tuple[ExpressionSite, CompileResult]]:
        """Every site with its result: variables first (in order), then the others."""
        variables = [s for s in self.context.sites if s.kind is ExpressionKind.VARIABLE]
        others = [s for s in self.context.sites if s.kind is not ExpressionKind.VARIABLE]
        return [(s, self.result(s)) for s in variables + others]


_VARIABLE_READ = re.compile(r"\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)")
"""`variables.<name>` in an expression's text (CEL allows spaces around the dot)."""


def _names_no_kind(result: CompileResult) -> bool:
    """Whether a compile says nothing in the names of a kind's types: no issue (its message may
    name them) and a result type without object types of a kind's schema."""
    return not result.issues and result.checked is not None and not _kind_typed(result.checked.output_type)


def _kind_typed(typ: Type) -> bool:
    if isinstance(typ, ObjectType):
        return typ.from_schema
    return any(_kind_typed(p) for p in typ.params)


def _same_shape(a: Type, b: Type) -> bool:
    """Two types admission's JSON values cannot tell apart: equal, or object types with the same
    field names (`containers` and `initContainers` items are both `Container`)."""
    if a == b:
        return True
    if isinstance(a, ObjectType) and isinstance(b, ObjectType):
        return set(a.fields) == set(b.fields)
    if a.kind is b.kind and a.kind in (Kind.LIST, Kind.MAP) and len(a.params) == len(b.params):
        return all(_same_shape(x, y) for x, y in zip(a.params, b.params, strict=True))
    return False


def _server_variable_type(server: View, site: ExpressionSite) -> Type | None:
    """What the server's compiler types a variable as (None: it fails there too): the precise
    view never knows less than the server (`existing + [{'name': …}]` concatenates a typed list
    and map literals, which only the precise view rejects)."""
    found = next((t for s, _, t in server.variables if s is site), None)
    return server.declared(found) if found is not None else None


def _unified(result: CompileResult) -> Type | None:
    """The type of a variable the typed checker rejects only because two object types of the same
    shape have different names (`object.spec.containers + object.spec.initContainers`, a
    conditional choosing between them): the first operand's. None otherwise.

    A typed checker rejects these (the server's would, in a validation); evaluation sees JSON
    maps and concatenates them fine, so vap-lsp keeps context through the variable."""
    checked, ast = result.checked, result.parsed.ast
    if checked is None or not isinstance(ast, Call) or result.parsed.errors:
        return None
    if ast.function == "_+_" and len(ast.args) == 2:
        operands = ast.args
    elif ast.function == "_?_:_" and len(ast.args) == 3:
        operands = ast.args[1:]
    else:
        return None
    types = [checked.type_of(a) for a in operands]
    if any(t is None or t.kind in (Kind.ERROR, Kind.DYN) for t in types):
        return None
    first, second = types
    assert first is not None and second is not None
    if ast.function == "_+_" and first.kind is not Kind.LIST:
        return None
    if not _same_shape(first, second):
        return None
    # Only the root may fail: an issue anywhere else leaves the variable untyped.
    loc = result.parsed.location(ast) + result.offset
    return first if all(i.start == loc for i in result.issues) else None


def _equivalents(version: str, kind: str, request: RuleRequest) -> list[RuleRequest]:
    """The class `request` of a kind's requests as the other group/versions serving its resource
    (`matching.equivalent_resources`; a class of any subresource as the main resource)."""
    if ANY in (request.group, request.version, request.resource):
        return []
    sub = "" if request.subresource == ANY else request.subresource
    found = equivalent_resources(
        get_schema_set(version), request.group, request.version, request.resource, kind, sub
    )
    return [replace(request, group=g, version=v) for (g, v, _), _ in found]


def _rules(scope: str) -> Mapping[str, Any] | None:
    """A binding's resource rules from `BindingEntry.match_rules` ("": none)."""
    if not scope:
        return None
    loaded = json.loads(scope)
    return loaded if isinstance(loaded, Mapping) else None


def _namespaced(version: str, gvk: GVK) -> bool | None:
    """The scope of a kind without a schema (a built-in kind's REST mapping; None: unknown)."""
    resource = get_schema_set(version).resource_for_kind(gvk.group, gvk.version, gvk.kind)
    return resource.namespaced if resource is not None else None


IssueKey = tuple[Path, int, int, str]
"""One compile issue of one site: the same problem in two views is reported once."""


def issue_key(site: ExpressionSite, issue: CompileIssue) -> IssueKey:
    return (site.path, issue.start, issue.end, issue.cel_message)


# What the server's type-check controller covers; every other expression is vap-lsp's own typed check.
SERVER_TYPE_CHECKED = frozenset({ExpressionKind.VALIDATION, ExpressionKind.MESSAGE_EXPRESSION})


@dataclass
class _Shape:
    """What every context of a policy of one shape computes alike: its shape is the policy without
    the expressions only they themselves read (validations, messageExpressions,
    auditAnnotations, mutations), with the Kubernetes version, workspace and CRD generation and
    the bindings' scopes. An edit inside such an expression makes a new context that takes these
    over, so only the edited expression is compiled, narrowed and estimated again."""

    facts: dict[GVK, Facts] = field(default_factory=dict)
    conditions: dict[GVK, tuple[Facts, str | None]] = field(default_factory=dict)
    present: dict[tuple[GVK, str, tuple[str, ...]], bool] = field(default_factory=dict)
    views: dict[tuple[ViewName, GVK | None], _SiteCache] = field(default_factory=dict)
    estimates: dict[tuple[GVK | None, SiteKey], Any] = field(default_factory=dict)
    variable_values: list[dict[tuple[Facts, bool, int], Any] | None] = field(default_factory=list)
    """The one store of variable values shared by every map of the shape (`PolicyContext.
    variable_asts`), once worked out (empty list: not yet; [None]: each map keeps its own)."""

    def site_cache(self, key: tuple[ViewName, GVK | None], bound: int) -> _SiteCache:
        """A view's site cache; emptied once it holds `bound` entries (old texts of edited
        expressions pile up over a session)."""
        cache = self.views.setdefault(key, _SiteCache())
        if cache.size() > bound:
            cache.results.clear()
            cache.reach.clear()
            cache.absent.clear()
        return cache


_OWN_EXPRESSIONS = {
    "validations": ("expression", "messageExpression"),
    "auditAnnotations": ("valueExpression",),
}


def shape_key(spec: Mapping[str, Any]) -> str:
    """The spec without the expressions no other expression reads (`_Shape`), as canonical JSON."""
    shape = dict(spec)
    for field_name, keys in _OWN_EXPRESSIONS.items():
        items = shape.get(field_name)
        if isinstance(items, list):
            shape[field_name] = [
                {k: v for k, v in item.items() if k not in keys} if isinstance(item, Mapping) else item
                for item in items
            ]
    mutations = shape.get("mutations")
    if isinstance(mutations, list):
        shape["mutations"] = [
            {k: ({**v, "expression": None} if isinstance(v, Mapping) else v) for k, v in m.items()}
            if isinstance(m, Mapping)
            else m
            for m in mutations
        ]
    return json.dumps(shape, sort_keys=True, default=str)


_TOKENS = itertools.count()


class PolicyContext:
    """The policy context of one VAP or MAP (see the module docstring)."""

    def __init__(
        self,
        root: MappingNode,
        policy: PolicyKind,
        spec: Mapping[str, Any],
        version: str,
        workspace: WorkspaceIndex | None,
        binding_scopes: tuple[str, ...] | None = None,
        shape: _Shape | None = None,
    ) -> None:
        self.token = next(_TOKENS)
        """Tells this context's own entries apart in caches it shares (`View._narrowing_key`)."""
        self.root = root
        self.policy = policy
        self.binding_scopes = binding_scopes
        """The resource rules of the policy's bindings (`WorkspaceIndex.binding_scopes`; None:
        not known, no narrowing by them)."""
        self.spec = spec
        self.version = version
        self.workspace = workspace
        self.sites: list[ExpressionSite] = expression_sites(root, policy, spec)
        self.has_params = isinstance(spec.get("paramKind"), Mapping)
        self.has_variables = policy is PolicyKind.MAP or bool(spec.get("variables"))
        rules, kinds = walk_rules(spec, version, workspace)
        self.rules: tuple[RuleTyping, ...] = tuple(rules)
        """Each resource rule: what it types and what it leaves `dyn`."""
        self.kinds: tuple[KindTyping, ...] = tuple(kinds)
        self.params_kind: KindTyping | None = (
            params_kind(version, spec, workspace) if self.has_params else None
        )
        """`paramKind` with its schema source (None without a usable paramKind)."""
        self.params_untyped: UntypedResource | None = params_untyped(self.params_kind, workspace)
        """`paramKind` when its kind has no schema (`params` is `dyn`), with why."""
        self.params_type: Type = self.params_kind.object_type if self.params_kind is not None else DYN
        self._views: dict[tuple[ViewName, GVK | None], View] = {}
        self._shape = shape if shape is not None else _Shape()
        self._facts = self._shape.facts
        self._past_conditions = self._shape.conditions
        self._lock = threading.Lock()
        self._variables: list[VariableTyping] | None = None
        self._derived: dict[Hashable, Any] = {}
        self._present = self._shape.present
        self.point = Point(policy, matched_operations(spec, policy))
        """Where the policy's expressions run: mutating or validating admission, for the operations
        some request its rules match has (`guarantees.matched_operations`)."""

    def derived(self, key: Hashable, compute: Callable[[], T]) -> T:
        """What another analysis derives from this model (cost estimates, schema sizes), kept as
        long as the model is: a cache of its own keyed by the model would keep models alive
        beyond `policy_context`'s bound."""
        with self._lock:
            if key in self._derived:
                return cast(T, self._derived[key])
        value = compute()
        with self._lock:
            return cast(T, self._derived.setdefault(key, value))

    def shared_estimate(self, gvk: GVK | None, site: ExpressionSite, compute: Callable[[], T]) -> T:
        """A site's cost estimate for a kind, shared by the contexts of this shape (the caller
        rebinds it to `site`)."""
        key = (gvk, _site_key(site))
        if key in self._shape.estimates:
            return cast(T, self._shape.estimates[key])
        return cast(T, self._shape.estimates.setdefault(key, compute()))

    # --- what admission guarantees ------------------------------------------------------------

    def guaranteed(self, kind: KindTyping, checked: CheckedExpr, node: Select) -> bool:
        """Whether every field of the chain `node` selects (`object.spec.template`) is present at
        admission whenever `object`/`oldObject` is, when it is of `kind`
        (`guarantees.field_guarantee`; decided once per kind and field path)."""
        held = self.subject(kind)
        if held is None:
            return False
        chain: list[Select] = []
        current: Expr = node
        while isinstance(current, Select):
            chain.append(current)
            current = current.operand
        if not isinstance(current, Ident):
            return False
        for select in reversed(chain):
            ref = checked.references.get(select.id)
            if ref is None or ref.field is None:
                return False
            path = type_path(ref.owner, select.field, held.type_name)
            if path is None:
                return False
            key = (kind.gvk, current.name, path)
            present = self._present.get(key)
            if present is None:
                found = field_guarantee(current.name, path, ref.field, held, self.point, self.version)
                present = self._present.setdefault(key, found.present)
            if not present:
                return False
        return True

    def subject(self, kind: KindTyping) -> Subject | None:
        """What the guarantees need to know of a matched (or param) kind (`guarantees.subject`)."""
        return subject(kind, self.version, self.workspace)

    def root_subjects(self, kind: Subject | None) -> dict[str, Subject | None]:
        """The kind each schema-typed root holds when `object` is `kind`."""
        params = self.params_kind
        return {
            "object": kind,
            "oldObject": kind,
            "params": self.subject(params) if params is not None else None,
        }

    def kind_guarantees(
        self, root: str, path: tuple[str, ...], kinds: Iterable[KindTyping]
    ) -> list[KindGuarantee]:
        """`field_guarantee` of `<root>.<path>` for each of `kinds` that has the field (`object` and
        `oldObject` hold the kind; `params` its paramKind), at the point of admission of that kind's
        requests (the operations its rules let through)."""
        out: list[KindGuarantee] = []
        params = self.root_subjects(None)["params"] if root == "params" else None
        for kind in kinds:
            held = self.subject(kind)
            owner = params if root == "params" else held
            if held is None or owner is None:
                continue
            root_type = self.params_type if root == "params" else kind.object_type
            decl = field_decl(root_type, path)
            if decl is None:
                continue
            point = Point(self.policy, self.facts(kind).operations)
            out.append(KindGuarantee(kind.gvk, field_guarantee(root, path, decl, owner, point, self.version)))
        return out

    # --- null roots ---------------------------------------------------------------------------

    def requests(self, operation: str | None = None) -> list[Facts]:
        """The classes of requests the policy sees (with `operation` only): one per matched kind
        whose rules let requests with it through, and one of any kind when some rule matches
        resources the model cannot type (wildcards, unknown resources)."""
        out: list[Facts] = []
        for kind in self.kinds:
            facts = self.facts(kind)
            if operation is None:
                out.append(facts)
            elif operation in facts.operations:
                out.append(replace(facts, operations=frozenset({operation})))
        if not self.kinds or self.untyped_resources():
            ops = self.point.operations
            if operation is None or operation in ops:
                out.append(
                    Facts(
                        None,
                        operations=frozenset({operation}) if operation else ops,
                        has_params=self.has_params,
                    )
                )
        return out

    def null_cases(self) -> list[NullCase]:
        """The roots that can be null where this policy's expressions run."""
        return self.derived("null-cases", functools.partial(null_cases, self.policy, self.requests))

    # --- what is typed ------------------------------------------------------------------------

    @property
    def primary(self) -> KindTyping | None:
        """The kind editor features type `object` as: the first matched kind with a schema whose
        requests reach the policy (else the first with a schema)."""
        typed = [k for k in self.kinds if k.has_schema]
        return next((k for k in typed if self.unmatched(k) is None), typed[0] if typed else None)

    @property
    def reaching_kinds(self) -> tuple[KindTyping, ...]:
        """The matched kinds some request of which gets past the rules and exclusions (`facts`):
        what vap-lsp's own checks check against (the server type-checks every matched kind)."""
        return tuple(k for k in self.kinds if self.unmatched(k) is None)

    @property
    def kinds_without_schema(self) -> tuple[GVK, ...]:
        """Matched kinds the server's type checker (and vap-lsp) type as `dyn`: no schema known."""
        return tuple(k.gvk for k in self.kinds if not k.has_schema)

    def untyped_resources(self) -> list[UntypedResource]:
        """Rule entries whose objects are `dyn`, with why (see `UntypedResource`)."""
        return [u for rule in self.rules for u in rule.untyped]

    @property
    def kinds_text(self) -> str:
        """`apps/v1 Deployment, apps/v1 ReplicaSet` (what hover says `object` can be)."""
        return ", ".join(f"{k.gvk.api_version} {k.gvk.kind}" for k in self.kinds)

    # --- views --------------------------------------------------------------------------------

    def view(self, name: ViewName, kind: KindTyping | None = None) -> View:
        """A view, built on first use: `kind` None types `object` as `dyn` (create-time always)."""
        if name == "create-time":
            kind = None
        key = (name, kind.gvk if kind is not None else None)
        with self._lock:
            hit = self._views.get(key)
        if hit is not None:
            return hit
        typed = name != "create-time"
        built = View(
            name,
            kind,
            kind.object_type if kind is not None else DYN,
            self.params_type if typed else DYN,
            self,
            _cache=self._shape.site_cache(key, 16 * len(self.sites) + 64),
        )
        server = self.server_view(kind) if name == "precise" else None
        for site in self.sites:
            if site.kind is not ExpressionKind.VARIABLE or site.name is None:
                continue
            if server is not None and "variables" not in site.text:
                # Reads no variable: the server's compile infers the same type (not converted yet).
                result = server.result(site)
                if result.ok:
                    built.variables.append((site, site.name, result.output_type))
                    continue
            result = built.result(site)
            inferred = result.output_type if result.ok else None
            if inferred is None and kind is not None and server is not None:
                # vap-lsp's own narrowing: the server types a variable that fails to compile
                # as `dyn`, so the type-check view never narrows.
                inferred = self._narrowed(built, site, result, kind)
            if inferred is None and server is not None:
                inferred = _unified(result) or _server_variable_type(server, site)
            built.variables.append((site, site.name, inferred))
        with self._lock:
            return self._views.setdefault(key, built)

    def _narrowed(
        self, view: View, site: ExpressionSite, result: CompileResult, kind: KindTyping
    ) -> Type | None:
        """The type of a kind-dispatching variable for this kind: `object.kind == 'Pod' ?
        object.spec : object.spec.template.spec` fails to type-check against any one kind, but
        for a Deployment its value is the second branch, so the branch is typed alone."""
        ast = result.parsed.ast
        node = ast
        facts, variables = self.facts(kind), self.variable_asts(site)
        while isinstance(node, Call) and node.function == "_?_:_" and len(node.args) == 3:
            verdict = decide(node.args[0], facts, variables)
            if verdict is None:
                return None
            node = node.args[1] if verdict else node.args[2]
        if node is None or node is ast:
            return None
        branch = compile_expression(result.compiled_text[node.start : node.end], view.environment(site))
        return branch.output_type if branch.ok else None

    def create_time(self) -> View:
        return self.view("create-time")

    # --- narrowing by guards ------------------------------------------------------------------

    def facts(self, kind: KindTyping) -> Facts:
        """What a request whose `object` is of `kind` is known to be (`narrowing.Facts`): the
        resources the rules type as that kind, its scope, and the operations of its requests
        that `resourceRules` match and `excludeResourceRules` do not exclude
        (`matching.operations_reaching`; empty: no request of this kind reaches the policy)."""
        with self._lock:
            hit = self._facts.get(kind.gvk)
        if hit is not None:
            return hit
        gvk = kind.gvk
        resources: set[str] = set()
        for rule in self.rules:
            resources.update(r for r, g in zip(rule.typed_resources, rule.typed, strict=False) if g == gvk)
        held = subject(kind, self.version, self.workspace)
        namespaced = held.namespaced if held is not None else _namespaced(self.version, gvk)
        constraints = self.spec.get("matchConstraints")
        kind_resources = [(gvk.group, gvk.version, r) for r in sorted(resources)]
        equivalents = functools.partial(_equivalents, self.version, gvk.kind)
        requests = policy_requests(
            constraints if isinstance(constraints, Mapping) else None,
            policy_operations(self.policy),
            kind_resources,
            namespaced,
            equivalents,
        )
        if self.binding_scopes:
            # A request is evaluated for each binding whose matchResources match it too
            # (`matching.go`): the requests some binding lets through.
            requests = [
                r
                for r in requests
                if any(requests_past(_rules(s), [r], equivalents) for s in self.binding_scopes)
            ]
        operations = frozenset(r.operation for r in requests)
        built = Facts(gvk, frozenset(resources), operations, self.has_params, namespaced)
        with self._lock:
            return self._facts.setdefault(gvk, built)

    def site_facts(self, kind: KindTyping, site: ExpressionSite) -> Facts:
        """The facts of the requests `site` runs for: a matchCondition runs for every request past
        the rules (`facts`), every other expression only for those the matchConditions let
        through (`conditions_facts`)."""
        if site.kind is ExpressionKind.MATCH_CONDITION:
            return self.facts(kind)
        return self.conditions_facts(kind)

    def conditions_facts(self, kind: KindTyping) -> Facts:
        """`facts` less the operations for which a matchCondition is false for `kind`: every
        matchCondition must be true for the validations, variables and mutations to run
        (`matchconditions/matcher.go`). A matchCondition that is an error (`object.kind` on
        DELETE) or that narrowing cannot decide keeps the operation."""
        return self._conditions(kind)[0]

    def site_unmatched(self, kind: KindTyping, site: ExpressionSite) -> str | None:
        """Why `site` runs for no request of `kind` (the guard text), or None: no request of the
        kind reaches the policy (`unmatched`), or, for all but matchConditions, the
        matchConditions let none through (`conditions_exclude`)."""
        unmatched = self.unmatched(kind)
        if unmatched is None and site.kind is not ExpressionKind.MATCH_CONDITION:
            unmatched = self.conditions_exclude(kind)
        return unmatched

    def conditions_exclude(self, kind: KindTyping) -> str | None:
        """Why the matchConditions let no request of `kind` through (the guard text: which
        conditions are false), or None when some can get through."""
        return self._conditions(kind)[1]

    def _conditions(self, kind: KindTyping) -> tuple[Facts, str | None]:
        with self._lock:
            hit = self._past_conditions.get(kind.gvk)
        if hit is not None:
            return hit
        facts = self.facts(kind)
        kept: set[str] = set()
        false: dict[str, None] = {}
        for op in sorted(facts.operations):
            site = self._false_condition(kind, facts, op)
            if site is None:
                kept.add(op)
            else:
                false.setdefault(f"{site.field} ({' '.join(site.text.split())[:120]})")
        of_kind = facts.operations - {"CONNECT"}
        excluded: str | None = None
        if of_kind and not kept - {"CONNECT"}:
            excluded = " and ".join(false) + ", false in every request of this kind"
        built = (replace(facts, operations=frozenset(kept)), excluded)
        with self._lock:
            return self._past_conditions.setdefault(kind.gvk, built)

    def conditions_rule_out(self, kind: KindTyping, path: str, operations: frozenset[str]) -> bool:
        """Whether a matchCondition is false in every request of `kind` with `operations` where the
        field `path` (as written: `object.spec.securityContext`) is absent, so the validations,
        variables and mutations never run there (`matchconditions/matcher.go`: all must be true):
        `has(object.spec.securityContext)` as a matchCondition guards every read of it. A
        condition narrowing cannot decide, or that is an error there, rules nothing out."""
        if not self._match_conditions() or not operations:
            return False
        key = ("conditions-rule-out", kind.gvk, path, operations)
        return self.derived(key, functools.partial(self._conditions_rule_out, kind, path, operations))

    def _conditions_rule_out(self, kind: KindTyping, path: str, operations: frozenset[str]) -> bool:
        facts = self.facts(kind)
        absent = replace(facts, absent=facts.absent | {path})
        return all(self._false_condition(kind, absent, op) is not None for op in operations)

    def _match_conditions(self) -> list[ExpressionSite]:
        return [s for s in self.sites if s.kind is ExpressionKind.MATCH_CONDITION]

    def _false_condition(self, kind: KindTyping, facts: Facts, operation: str) -> ExpressionSite | None:
        """The first matchCondition narrowing decides false for `kind`'s requests with `operation`
        (and `facts`' other knowledge), or None. `namespaceObject` is null there: matchConditions
        run without the namespace (`matchconditions/matcher.go`)."""
        conditions = self._match_conditions()
        if not conditions:
            return None
        single = replace(
            facts, operations=frozenset({operation}), null_roots=facts.null_roots | {"namespaceObject"}
        )
        view = self.type_check(kind)
        for site in conditions:
            result = view.result(site)
            checked = result.checked
            if result.parsed.ast is not None and (
                decide(
                    result.parsed.ast,
                    single,
                    {},
                    type_of=checked.type_of if checked is not None else None,
                    present=functools.partial(self.guaranteed, kind, checked)
                    if checked is not None
                    else None,
                )
                is False
            ):
                return site
        return None

    def unmatched(self, kind: KindTyping) -> str | None:
        """Why no request of `kind` reaches the policy although the type checker checks it
        (`typesToCheck` reads `resourceRules` only), or None when some does."""
        if self.facts(kind).operations:
            return None
        constraints = self.spec.get("matchConstraints")
        facts = self.facts(kind)
        resources = [(kind.gvk.group, kind.gvk.version, r) for r in sorted(facts.resources)]
        ops = policy_operations(self.policy)
        constraints = constraints if isinstance(constraints, Mapping) else {}
        included = {k: v for k, v in constraints.items() if k != "excludeResourceRules"}
        if not operations_reaching(included, ops, resources, facts.namespaced):
            return "the scope of spec.matchConstraints.resourceRules (no request of this kind has it)"
        equivalents = functools.partial(_equivalents, self.version, kind.gvk.kind)
        if not operations_reaching(constraints, ops, resources, facts.namespaced, equivalents):
            return "spec.matchConstraints.excludeResourceRules (every request of this kind is excluded)"
        return (
            "the spec.matchResources of every binding of the policy (no request of this kind gets past them)"
        )

    def variable_readers(self) -> dict[str, list[ExpressionSite]]:
        """The sites whose text reads `variables.<name>`, by name (a text search, once per policy:
        what a variable's lazy evaluation asks of every other site in every view)."""
        return self.derived("variable-readers", self._variable_readers)

    def variables_read(self, site: ExpressionSite) -> frozenset[str] | None:
        """The variables `site`'s text selects (`variables.<name>`); None when it may read one
        another way (`variables[...]`, `variables` alone), so every visible one counts."""
        found = _VARIABLE_READ.findall(site.text)
        return frozenset(found) if site.text.count("variables") == len(found) else None

    def _variable_readers(self) -> dict[str, list[ExpressionSite]]:
        readers: dict[str, list[ExpressionSite]] = {}
        for site in self.sites:
            for name in dict.fromkeys(_VARIABLE_READ.findall(site.text)):
                readers.setdefault(name, []).append(site)
        return readers

    def variable_asts(self, site: ExpressionSite) -> VariableAsts:
        """The parsed expression of each variable `site` may read (by name; a later one wins),
        one map per position among the variables, its values evaluated once per class of
        requests (`narrowing.VariableAsts`)."""
        limit = variable_index(site) if site.kind is ExpressionKind.VARIABLE else 1 << 30
        return self.derived(("variable-asts", limit), functools.partial(self._variable_asts, limit))

    def _variable_asts(self, limit: int) -> VariableAsts:
        create_time = self.create_time()
        asts: dict[str, ParsedExpr] = {}
        for s in self.sites:
            if s.kind is ExpressionKind.VARIABLE and s.name is not None and variable_index(s) < limit:
                asts[s.name] = create_time.result(s).parsed
        known = self._shape.variable_values
        if not known:
            known.append(self._shared_variable_values())
        return VariableAsts(asts, known[0])

    def _shared_variable_values(self) -> dict[tuple[Facts, bool, int], Any] | None:
        """One store of variable values for every map when each name resolves to the same
        expression in all of them: names are unique and no variable reads itself or a later one
        (which the server rejects); otherwise each map keeps its own (None)."""
        variables = [s for s in self.sites if s.kind is ExpressionKind.VARIABLE and s.name is not None]
        names = [s.name for s in variables]
        if len(set(names)) != len(names):
            return None
        create_time = self.create_time()
        for i, site in enumerate(variables):
            later = set(names[i:])
            for node in create_time.result(site).parsed.walk():
                if (
                    isinstance(node, Select)
                    and node.field in later
                    and isinstance(node.operand, Ident)
                    and node.operand.name == "variables"
                ):
                    return None
        return {}

    def reachability(self, kind: KindTyping | None, site: ExpressionSite) -> Reachability:
        """Which nodes of `site` can run for `kind`, in its type-check view (`View.reachability`)."""
        return self.server_view(kind).reachability(site)

    def create_time_reachability(self, site: ExpressionSite, parsed: ParsedExpr, gvk: GVK) -> Reachability:
        """Which nodes of `parsed` (a create-time compile of `site`) can run when `object` is of
        `gvk`: none when the matchConditions keep the kind out."""
        kind = next(k for k in self.kinds if k.gvk == gvk)
        excluded = self.conditions_exclude(kind) if site.kind is not ExpressionKind.MATCH_CONDITION else None
        found = reachability(parsed, self.site_facts(kind, site), self.variable_asts(site))
        if excluded is not None and parsed.ast is not None:
            return found.all_guarded(Guard(parsed.ast, excluded))
        return found

    def kind_at(self, site: ExpressionSite, parsed: ParsedExpr, offset: int) -> KindTyping | None:
        """The kind editor features type `object` as at `offset` of `parsed` (an expression of
        `site`, maybe repaired text being typed): the first kind with a schema for which the
        node there can run (`object.kind != 'Pod' || object.spec.te|` types a Deployment), else
        the primary kind."""
        kinds = self.kinds_at(site, parsed, offset)
        return kinds[0] if kinds else self.primary

    def kinds_at(self, site: ExpressionSite, parsed: ParsedExpr, offset: int) -> list[KindTyping]:
        """The kinds with a schema for which the node at `offset` of `parsed` can run (requests
        of the kind reach the policy and get past its matchConditions, a variable is read where
        it can run, no guard rules the node out); all of them without a node."""
        path = parsed.node_at(offset)
        variables = self.variable_asts(site)
        return [
            kind
            for kind in self.kinds
            if kind.has_schema
            and self.site_unmatched(kind, site) is None
            and not (site.kind is ExpressionKind.VARIABLE and self._never_runs(kind, site))
            and (
                not path
                or reachability(parsed, self.site_facts(kind, site), variables).guard_of(path[-1]) is None
            )
        ]

    def _never_runs(self, kind: KindTyping, site: ExpressionSite) -> bool:
        """Whether `site` never runs for `kind` as a whole (a variable read only in branches a
        guard rules out for it: variables are evaluated lazily, `View._unread`)."""
        reach = self.reachability(kind, site)
        ast = reach.parsed.ast if reach.parsed is not None else None
        return ast is not None and reach.guard_of(ast) is not None

    def server_view(self, kind: KindTyping | None) -> View:
        """What the server's compiler sees for `kind`: its type check, or create time without one."""
        return self.type_check(kind) if kind is not None else self.create_time()

    def variables_for(self, kind: KindTyping | None) -> list[VariableTyping]:
        """Each variable with vap-lsp's type for `kind` and the server's."""
        server = self.server_view(kind)
        server_types = {id(s): server.declared(t) for s, _, t in server.variables}
        return [
            VariableTyping(name, site, inferred, server_types.get(id(site), DYN))
            for site, name, inferred in self.view("precise", kind).variables
        ]

    def type_check(self, kind: KindTyping) -> View:
        return self.view("type-check", kind)

    def precise(self, kind: KindTyping | None = None) -> View:
        """vap-lsp's view for `kind` (default: the primary kind, or `dyn` when none is typed)."""
        return self.view("precise", kind if kind is not None else self.primary)

    # --- what the server reports --------------------------------------------------------------

    def create_time_keys(self) -> frozenset[IssueKey]:
        """Every issue of the create-time compile: the server rejects the policy for them, so no
        other view reports them again."""
        return self.derived(
            "create-time-keys",
            lambda: frozenset(issue_key(s, i) for s, r in self.create_time().results() for i in r.issues),
        )

    def typed_keys(self, gvk: GVK) -> frozenset[IssueKey]:
        """Every issue (but result types) of the type-check view of the kind `gvk`, reported or not."""

        def keys() -> frozenset[IssueKey]:
            kind = next((k for k in self.kinds if k.gvk == gvk), None)
            if kind is None or not kind.has_schema:
                return frozenset()
            return frozenset(
                issue_key(s, i)
                for s, r in self.type_check(kind).results()
                for i in r.issues
                if i.phase != "result"
            )

        return self.derived(("typed-keys", gvk), keys)

    # --- what editor features read ------------------------------------------------------------

    @property
    def variables(self) -> list[VariableTyping]:
        """Each variable with vap-lsp's type and the server's (for the primary kind)."""
        if self._variables is None:
            self._variables = self.variables_for(self.primary)
        return self._variables

    def variable(self, name: str) -> VariableTyping | None:
        """The variable `variables.<name>` reads (the later one when a name is repeated)."""
        return next((v for v in reversed(self.variables) if v.name == name), None)

    def environment(self, site: ExpressionSite) -> Environment:
        """The precise environment of `site` (which may be a blank site being typed)."""
        return self.precise().environment(site)

    def compile(self, site: ExpressionSite) -> CompileResult:
        """The precise compile result of `site`, its types named for the primary kind (cached)."""
        return self.precise().own_result(site)


# With the reads of the index the model made (replayed on a hit: `workspace.recording`). An entry
# keeps its parsed policy (~27 bytes a character) and its model alive (~125 bytes a character in
# all for a policy that is mostly expressions, its checked ASTs included): 256 models, of policies
# of 2 million characters in all.
_CACHE: LruCache[
    tuple[int, str, int, int, tuple[str, ...] | None], tuple[MappingNode, PolicyContext, frozenset[Read]]
] = LruCache(256, weigh=lambda _, entry: entry[0].span.end - entry[0].span.start, max_weight=2_000_000)


def policy_context(
    root: MappingNode,
    policy: PolicyKind,
    spec: Mapping[str, Any],
    version: str,
    workspace: WorkspaceIndex | None = None,
) -> PolicyContext:
    """The policy's policy context, cached per parsed node (kept alive by the entry), Kubernetes
    version and workspace CRD generation: built once per analysis, read by checks and features."""
    generation = workspace.crd_generation if workspace is not None else -1
    name = spec_name(root)
    scopes = workspace.binding_scopes(policy, name) if workspace is not None else None
    key = (id(root), version, id(workspace), generation, scopes)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is root:
        replay(hit[2])
        return hit[1]
    shape_of = (policy, version, id(workspace), generation, scopes, shape_key(spec))
    shape = _SHAPES.get(shape_of)
    if shape is None:
        shape = _Shape()
        _SHAPES.put(shape_of, shape)
    with recording() as reads:
        built = PolicyContext(root, policy, spec, version, workspace, scopes, shape)
    _CACHE.put(key, (root, built, frozenset(reads)))
    return built


# What the contexts of one policy shape share (`_Shape`): 32 shapes, the policies being edited.
_SHAPES: LruCache[tuple[Any, ...], _Shape] = LruCache(32)


def clear_cache() -> None:
    """Forget every cached model (for benchmarks measuring a cold pass)."""
    _CACHE.clear()
    _SHAPES.clear()
