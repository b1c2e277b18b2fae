"""Admission as the API server runs it: MutatingAdmissionPolicies first, then
ValidatingAdmissionPolicies, each with its bindings and params.

Follows `pkg/admission/plugin/policy/{generic,matching,validating,mutating}` and
`pkg/admission/plugin/cel` (activation, budgets, error texts). Never raises on bad policy or
object data: problems become denials (as the server's failurePolicy decides) or `why_not`.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import io
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.admission import patching
from vap_lsp.admission.api import (
    AdmissionRequestInput,
    AdmissionResult,
    Denial,
    Evaluation,
    ExpressionEvaluation,
    Failure,
    MutationStep,
    PolicyInputs,
)
from vap_lsp.admission.authz import RulesAuthorizer
from vap_lsp.admission.matching import (
    GVR,
    GVKey,
    RequestAttrs,
    SelectorError,
    equivalents_for,
    match_resources,
    selector_matches,
)
from vap_lsp.admission.typed import NAMESPACE_DEFINITION, typed_object, typed_request, uses_typed_values
from vap_lsp.analysis.model.cost_budget import (
    MATCH_CONDITIONS_BUDGET,
    OUT_OF_BUDGET,
    PER_CALL_LIMIT,
    RUNTIME_BUDGET,
    BudgetUse,
    Meter,
)
from vap_lsp.analysis.model.crds import CRDVersion, crd_versions
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import CompileResult, compile_expression
from vap_lsp.cel.environment import Environment, ExpressionKind, build_environment, variable_field_type
from vap_lsp.cel.interpreter import EvalResult, LazyVariables, VariableDef, evaluate
from vap_lsp.cel.runtime import k8s
from vap_lsp.cel.runtime.k8s import StructValue
from vap_lsp.cel.runtime.values import to_python, type_name
from vap_lsp.cel.types import DYN, Type
from vap_lsp.defaulting import default_object
from vap_lsp.defaulting.builtin import minor
from vap_lsp.defaulting.plugins import ClusterObjects, PluginOutcome, admission_plugins, stored
from vap_lsp.defaulting.rules import copy_json
from vap_lsp.defaulting.server import before_mutating, before_validating, status_update, validating_name
from vap_lsp.defaulting.validation import builtin_errors, rejection
from vap_lsp.golang.jsonenc import marshal
from vap_lsp.golang.strings import trim_space
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.schema.store import SchemaSet, get_schema_set

MAX_MESSAGE_BYTES = 5 * 1024
MAX_AUDIT_VALUE = 10 * 1024
VALIDATION_FAILURE_KEY = "validation.policy.admission.k8s.io/validation_failure"

_CODES = {"Forbidden": 403, "Unauthorized": 401, "RequestEntityTooLarge": 413, "Invalid": 422}


def reason_code(reason: str) -> int:
    """reasonToCode: unknown reasons are 422 like Invalid."""
    return _CODES.get(reason, 422)


# --- compilation ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def runtime_environment(
    version: str, kind: ExpressionKind, has_params: bool, variables: tuple[tuple[str, Type], ...] | None
) -> Environment:
    """The environment the server compiles a policy's programs in (StoredExpressions: `object`,
    `oldObject` and `params` are dyn, over JSON-shaped objects), cached so compile results are
    reused; the CEL playground evaluates in it too."""
    return build_environment(
        version,
        kind,
        has_params=has_params,
        variables=None if variables is None else dict(variables),
        mode="stored",
    )


@dataclass
class _Expr:
    field: str
    text: str
    result: CompileResult
    env: Environment

    @property
    def compiled(self) -> CheckedExpr | None:
        return self.result.checked if self.result.ok else None

    def compile_error(self) -> str | None:
        if self.result.ok:
            return None
        return self.result.render() or "compilation failed"


@dataclass
class _Policy:
    obj: dict[str, Any]
    kind: PolicyKind
    name: str
    spec: dict[str, Any]
    has_params: bool
    match_conditions: list[tuple[str, _Expr]] = field(default_factory=list)
    variables: dict[str, VariableDef] = field(default_factory=dict)
    variable_exprs: dict[str, _Expr] = field(default_factory=dict)
    validations: list[tuple[dict[str, Any], _Expr, _Expr | None]] = field(default_factory=list)
    audit: list[tuple[str, _Expr]] = field(default_factory=list)
    mutations: list[tuple[str, _Expr | None]] = field(default_factory=list)


def _items(spec: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = spec.get(key)
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _compile(text: str, fld: str, env: Environment, kind: ExpressionKind) -> _Expr:
    trim = kind in (
        ExpressionKind.MATCH_CONDITION,
        ExpressionKind.AUDIT_ANNOTATION,
        ExpressionKind.MAP_APPLY_CONFIGURATION,
        ExpressionKind.MAP_JSON_PATCH,
    )
    return _Expr(fld, text, compile_expression(text, env, trim=trim), env)


def compile_policy(obj: dict[str, Any], kind: PolicyKind, api_version: str, version: str) -> _Policy:
    """Defaults, then every expression compiled in its runtime environment."""
    defaulted = apply_defaults(kind, api_version, obj)
    spec = defaulted.get("spec") if isinstance(defaulted.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    meta = defaulted.get("metadata") if isinstance(defaulted.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    has_params = isinstance(spec.get("paramKind"), Mapping)
    p = _Policy(defaulted, kind, _text(meta.get("name")), spec, has_params)
    for i, mc in enumerate(_items(spec, "matchConditions")):
        env = runtime_environment(version, ExpressionKind.MATCH_CONDITION, has_params, None)
        fld = f"spec.matchConditions[{i}].expression"
        p.match_conditions.append(
            (
                _text(mc.get("name")),
                _compile(_text(mc.get("expression")), fld, env, ExpressionKind.MATCH_CONDITION),
            )
        )
    var_types: list[tuple[str, Type]] = []
    for i, var in enumerate(_items(spec, "variables")):
        name = _text(var.get("name"))
        env = runtime_environment(version, ExpressionKind.VARIABLE, has_params, tuple(var_types))
        e = _compile(
            _text(var.get("expression")), f"spec.variables[{i}].expression", env, ExpressionKind.VARIABLE
        )
        out = e.result.output_type if e.result.ok else None
        var_types.append((name, variable_field_type(out) if out is not None else DYN))
        p.variables[name] = VariableDef(e.compiled, env, e.compile_error())
        p.variable_exprs[name] = e
    composited = kind is PolicyKind.MAP or bool(spec.get("variables"))
    all_vars = tuple(var_types) if composited else None

    def env_for(k: ExpressionKind) -> Environment:
        return runtime_environment(version, k, has_params, all_vars)

    if kind is PolicyKind.VAP:
        for i, v in enumerate(_items(spec, "validations")):
            base = f"spec.validations[{i}]"
            expr = _compile(
                _text(v.get("expression")),
                f"{base}.expression",
                env_for(ExpressionKind.VALIDATION),
                ExpressionKind.VALIDATION,
            )
            msg = None
            if _text(v.get("messageExpression")):
                msg = _compile(
                    v["messageExpression"],
                    f"{base}.messageExpression",
                    env_for(ExpressionKind.MESSAGE_EXPRESSION),
                    ExpressionKind.MESSAGE_EXPRESSION,
                )
            p.validations.append((v, expr, msg))
        for i, a in enumerate(_items(spec, "auditAnnotations")):
            p.audit.append(
                (
                    _text(a.get("key")),
                    _compile(
                        _text(a.get("valueExpression")),
                        f"spec.auditAnnotations[{i}].valueExpression",
                        env_for(ExpressionKind.AUDIT_ANNOTATION),
                        ExpressionKind.AUDIT_ANNOTATION,
                    ),
                )
            )
    else:
        for i, m in enumerate(_items(spec, "mutations")):
            ptype = _text(m.get("patchType"))
            if isinstance(m.get("applyConfiguration"), Mapping):
                k, sub = ExpressionKind.MAP_APPLY_CONFIGURATION, "applyConfiguration"
            elif isinstance(m.get("jsonPatch"), Mapping):
                k, sub = ExpressionKind.MAP_JSON_PATCH, "jsonPatch"
            else:
                p.mutations.append((ptype, None))
                continue
            fld = f"spec.mutations[{i}].{sub}.expression"
            p.mutations.append((sub, _compile(_text(m[sub].get("expression")), fld, env_for(k), k)))
    return p


# --- the request ---------------------------------------------------------------------------------


def _meta(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if isinstance(obj, Mapping) and isinstance(obj.get("metadata"), Mapping):
        m = obj["metadata"]
        assert isinstance(m, Mapping)
        return m
    return {}


def _split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


@dataclass
class RequestContext:
    """Everything about one request that does not depend on the policy."""

    request: AdmissionRequestInput
    prepared: PreparedInputs
    inputs: PolicyInputs
    version: str
    schema: SchemaSet
    crds: list[CRDVersion]
    attrs: RequestAttrs
    namespaced: bool
    namespace_object: dict[str, Any] | None
    authorizer: RulesAuthorizer
    identity: dict[str, Any]
    explain: bool = False
    """Trace every evaluation (`admit(..., explain=True)`, `vap_lsp.admission.explain`)."""
    typed_values: dict[int, tuple[object, object]] = field(default_factory=dict)
    """Objects wrapped as Kubernetes 1.37's schemaless typed values (`typed`), by identity."""

    def typed(self, obj: object) -> object:
        """`obj` as SchemalessTypedToVal wraps it from 1.37 (`vap_lsp.admission.typed`), once
        per request: a built-in kind's object typed, a custom resource's as it is."""
        if not isinstance(obj, dict):
            return obj
        hit = self.typed_values.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        group, ver = _split_api_version(_text(obj.get("apiVersion")))
        kind = GVKey(group, ver, _text(obj.get("kind")))
        custom = any((c.group, c.version, c.kind) == (group, ver, kind.kind) for c in self.crds)
        definition = None if custom else self.schema.definition_for_kind(group, ver, kind.kind)
        value = typed_object(self.schema, obj, definition)
        self.typed_values[id(obj)] = (obj, value)
        return value


def _crds(inputs: PolicyInputs) -> list[CRDVersion]:
    out: list[CRDVersion] = []
    for crd in inputs.crds:
        out.extend(crd_versions(crd))
    return out


def _resource_of(schema: SchemaSet, crds: list[CRDVersion], gvk: GVKey) -> tuple[GVR, bool | None]:
    r = schema.resource_for_kind(gvk.group, gvk.version, gvk.kind)
    if r is not None:
        return GVR(r.group, r.version, r.resource), r.namespaced
    for c in crds:
        if (c.group, c.version, c.kind) == (gvk.group, gvk.version, gvk.kind):
            return GVR(c.group, c.version, c.plural), c.namespaced
    # Unknown kind: the conventional plural; scope decided by the object's namespace.
    plural = gvk.kind.lower()
    plural = plural + ("es" if plural.endswith("s") else "s")
    return GVR(gvk.group, gvk.version, plural), None


def _namespace_manifest(inputs: PolicyInputs, name: str) -> Mapping[str, Any] | None:
    for ns in inputs.namespaces:
        if _meta(ns).get("name") == name:
            return ns
    return None


@dataclass
class PreparedInputs:
    """What every request against one `PolicyInputs` shares: the schema set, CRD versions,
    compiled policies, defaulted bindings by policy, namespace objects and Equivalent resources.

    Built once per policy set (`prepare`), so a stream of requests pays for none of it again.
    The caller must not change `inputs` afterwards (prepare again instead).
    """

    inputs: PolicyInputs
    version: str
    schema: SchemaSet
    crds: list[CRDVersion]
    mutating: list[_Policy]
    validating: list[_Policy]
    bindings: dict[tuple[bool, str], list[tuple[str, dict[str, Any]]]]
    report_values: bool = True
    """False: expressions' results are not converted for `ExpressionEvaluation.result` (None),
    for callers that count verdicts only (`vap-lsp impact`): a fifth of the time per request."""
    builtin_admission: bool = True
    """Run kube-apiserver's own admission steps: its default-enabled mutating plugins before
    mutating admission (`vap_lsp.defaulting.plugins`), and deny what its built-in validation
    rejects before validating admission."""
    cluster: ClusterObjects = field(default_factory=ClusterObjects)
    """What those plugins read of the cluster (PriorityClasses, ServiceAccounts, default classes)."""
    _namespaces: dict[str, dict[str, Any]] = field(default_factory=dict)
    _stored: dict[int, dict[str, Any]] = field(default_factory=dict)
    _equivalents: dict[tuple[GVR, GVKey, str], list[tuple[GVR, GVKey]]] = field(default_factory=dict)

    def namespace_object(self, name: str) -> dict[str, Any]:
        """CreateNamespaceObject of `name` (shared: evaluation never changes it)."""
        hit = self._namespaces.get(name)
        if hit is None:
            manifest = _namespace_manifest(self.inputs, name)
            if isinstance(manifest, dict):
                manifest = self.stored(manifest)
            hit = _strip_namespace(manifest, name)
            if len(self._namespaces) < 100_000:
                self._namespaces[name] = hit
        return hit

    def crd_schema(self, obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The served schema of `obj`'s custom resource version, when its CRD is known."""
        group, ver = _split_api_version(_text(obj.get("apiVersion")))
        kind = _text(obj.get("kind"))
        for c in self.crds:
            if (c.group, c.version, c.kind) == (group, ver, kind) and c.served:
                return c.schema
        return None

    def crd_status(self, gvk: tuple[str, str, str]) -> bool:
        """Whether the CRD of `gvk` enables the status subresource for that version."""
        group, ver, kind = gvk
        for crd in self.inputs.crds:
            spec = crd.get("spec")
            if not isinstance(spec, Mapping):
                continue
            names = spec.get("names")
            if not isinstance(names, Mapping) or (spec.get("group"), names.get("kind")) != (group, kind):
                continue
            for v in spec.get("versions") or []:
                if isinstance(v, Mapping) and v.get("name") == ver:
                    sub = v.get("subresources", spec.get("subresources"))
                    return isinstance(sub, Mapping) and "status" in sub
        return False

    def decoded(self, obj: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """`obj` as the server decodes it (a defaulted copy) and a note when nothing is known."""
        result = default_object(obj, self.version, self.crd_schema(obj))
        return result.object, result.note

    def stored(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A stored object (param, namespace) as the server reads it: defaulted, once per object."""
        hit = self._stored.get(id(obj))
        if hit is None:
            hit = self.decoded(obj)[0]
            self._stored[id(obj)] = hit
        return hit

    def equivalents(self, gvr: GVR, gvk: GVKey, sub_resource: str) -> list[tuple[GVR, GVKey]]:
        key = (gvr, gvk, sub_resource)
        hit = self._equivalents.get(key)
        if hit is None:
            hit = equivalents_for(self.schema, gvr, gvk, sub_resource)
            # A CRD's served versions serve one resource: the CRD handler registers each in its
            # EquivalentResourceRegistry (customresource_handler.go), so matchPolicy Equivalent
            # matches a rule for any of them (found by the oracle, issue 34).
            for c in self.crds:
                same = (c.group, c.plural, c.kind) == (gvr.group, gvr.resource, gvk.kind)
                if same and c.served and c.version != gvr.version:
                    hit.append((GVR(c.group, c.version, c.plural), GVKey(c.group, c.version, c.kind)))
            if len(self._equivalents) < 10_000:
                self._equivalents[key] = hit
        return list(hit)

    def admit(self, request: AdmissionRequestInput, *, explain: bool = False) -> AdmissionResult:
        """The verdict on `request`; with `explain`, every evaluation is traced and the result
        carries what `vap_lsp.admission.explain` reads (verdicts are the same either way)."""
        return _admit(request, self, explain)

    def request_attributes(self, request: AdmissionRequestInput) -> RequestAttrs:
        """What matching sees of `request` (namespace labels, resource, kind): for `--explain`."""
        return request_context(request, self).attrs


def prepare(
    inputs: PolicyInputs, version: str, *, report_values: bool = True, builtin_admission: bool = True
) -> PreparedInputs:
    return PreparedInputs(
        inputs,
        version,
        get_schema_set(version),
        _crds(inputs),
        _policies(inputs, True, version),
        _policies(inputs, False, version),
        _bindings_by_policy(inputs),
        report_values,
        builtin_admission,
        ClusterObjects.from_objects(inputs.params),
    )


def _strip_namespace(ns: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    """CreateNamespaceObject: only some metadata fields, spec and status, JSON-shaped."""
    meta = _meta(ns)
    out_meta: dict[str, Any] = {"name": name, "creationTimestamp": meta.get("creationTimestamp")}
    for key in (
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "annotations",
        "finalizers",
    ):
        if meta.get(key):
            out_meta[key] = copy.deepcopy(meta[key])
    labels = dict(meta.get("labels") or {}) if isinstance(meta.get("labels"), Mapping) else {}
    labels.setdefault("kubernetes.io/metadata.name", name)
    out_meta["labels"] = labels
    spec = ns.get("spec") if isinstance(ns, Mapping) and isinstance(ns.get("spec"), Mapping) else {}
    status = ns.get("status") if isinstance(ns, Mapping) and isinstance(ns.get("status"), Mapping) else {}
    return {"metadata": out_meta, "spec": copy.deepcopy(spec), "status": copy.deepcopy(status)}


def request_context(request: AdmissionRequestInput, prepared: PreparedInputs) -> RequestContext:
    """What one request binds (attributes, namespace object, params source); shared with the
    CEL playground (`admission.playground`) so `vap-lsp cel` binds inputs as `run` does."""
    inputs, schema, crds = prepared.inputs, prepared.schema, prepared.crds
    subject = request.object if request.object is not None else request.old_object
    subject = subject if isinstance(subject, Mapping) else {}
    group, ver = _split_api_version(_text(subject.get("apiVersion")))
    gvk = GVKey(group, ver, _text(subject.get("kind")))
    gvr, namespaced = _resource_of(schema, crds, gvk)
    meta = _meta(subject)
    if namespaced is None:
        namespaced = bool(meta.get("namespace")) or bool(request.namespace)
    name = request.name if request.name is not None else _text(meta.get("name"))
    is_namespace_kind = (gvk.group, gvk.version, gvk.kind) == ("", "v1", "Namespace")
    if request.namespace is not None:
        namespace = request.namespace
    elif is_namespace_kind:
        namespace = name  # the API server sets the namespace of a Namespace request to its name
    elif namespaced:
        namespace = _text(meta.get("namespace")) or "default"
    else:
        namespace = ""
    ns_object: dict[str, Any] | None = None
    ns_labels: Mapping[str, Any] | None = None
    # predicates/namespace/matcher.go `GetNamespaceLabels`: a Namespace's own create or update
    # is matched by the labels it is written with; a delete, or a request for a subresource
    # (status, finalize), by the stored Namespace's.
    writes_namespace = request.operation in ("CREATE", "UPDATE") and not request.sub_resource
    if is_namespace_kind and writes_namespace and request.object is not None:
        ns_labels = _meta(request.object).get("labels") or {}
    elif namespace:
        ns_labels = prepared.namespace_object(namespace)["metadata"]["labels"]
    if namespace and not is_namespace_kind:
        ns_object = prepared.namespace_object(namespace)
    attrs = RequestAttrs(
        operation=request.operation,
        kind=gvk,
        resource=gvr,
        sub_resource=request.sub_resource,
        namespace=namespace,
        name=name,
        object=request.object,
        old_object=request.old_object,
        namespace_labels=ns_labels,
        equivalents=prepared.equivalents(gvr, gvk, request.sub_resource),
    )
    authorizer = RulesAuthorizer(inputs.authorizer_rules, request.user.username, request.user.groups)
    identity = {
        "apiVersion": subject.get("apiVersion"),
        "kind": subject.get("kind"),
        "namespace": namespace or None,
        "name": name or None,
    }
    return RequestContext(
        request,
        prepared,
        inputs,
        prepared.version,
        schema,
        crds,
        attrs,
        namespaced,
        ns_object,
        authorizer,
        identity,
    )


_OPTIONS_KIND = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


def request_value(ctx: RequestContext, gvr: GVR, gvk: GVKey) -> dict[str, Any]:
    """CreateAdmissionRequest as JSON (omitempty fields absent when empty)."""
    r, a = ctx.request, ctx.attrs
    user: dict[str, Any] = {}
    if r.user.username:
        user["username"] = r.user.username
    if r.user.uid:
        user["uid"] = r.user.uid
    if r.user.groups:
        user["groups"] = list(r.user.groups)
    if r.user.extra:
        user["extra"] = {k: list(v) for k, v in r.user.extra.items()}
    out: dict[str, Any] = {
        "uid": "",
        "kind": {"group": gvk.group, "version": gvk.version, "kind": gvk.kind},
        "resource": {"group": gvr.group, "version": gvr.version, "resource": gvr.resource},
        "requestKind": {"group": a.kind.group, "version": a.kind.version, "kind": a.kind.kind},
        "requestResource": {
            "group": a.resource.group,
            "version": a.resource.version,
            "resource": a.resource.resource,
        },
        "operation": r.operation,
        "userInfo": user,
        "dryRun": r.dry_run,
    }
    if r.sub_resource:
        out["subResource"] = r.sub_resource
        out["requestSubResource"] = r.sub_resource
    if a.name:
        out["name"] = a.name
    if a.namespace:
        out["namespace"] = a.namespace
    if r.options is not None:
        out["options"] = r.options
    elif r.operation in _OPTIONS_KIND:
        out["options"] = {"kind": _OPTIONS_KIND[r.operation], "apiVersion": "meta.k8s.io/v1"}
    else:
        out["options"] = None
    return out


# --- params ----------------------------------------------------------------------------------------


class ConfigError(Exception):
    pass


def _param_kind_text(pk: Mapping[str, Any]) -> str:
    return f"&ParamKind{{APIVersion:{_text(pk.get('apiVersion'))},Kind:{_text(pk.get('kind'))},}}"


def collect_params(
    ctx: RequestContext, policy: _Policy, binding_spec: Mapping[str, Any]
) -> list[dict[str, Any] | None]:
    """generic.CollectParams over the param objects given; raises ConfigError with the server's text."""
    pk = policy.spec.get("paramKind")
    ref = binding_spec.get("paramRef")
    if not isinstance(pk, Mapping) or not isinstance(ref, Mapping):
        return [None]
    api_version, kind = _text(pk.get("apiVersion")), _text(pk.get("kind"))
    candidates = [
        p for p in ctx.inputs.params if p.get("apiVersion") == api_version and p.get("kind") == kind
    ]
    group, ver = _split_api_version(api_version)
    r = ctx.schema.resource_for_kind(group, ver, kind)
    namespaced: bool | None = r.namespaced if r is not None else None
    if namespaced is None:
        for c in ctx.crds:
            if (c.group, c.version, c.kind) == (group, ver, kind):
                namespaced = c.namespaced
    if namespaced is None:
        if not candidates:
            raise ConfigError(f"paramKind kind `{_param_kind_text(pk)}` not known")
        namespaced = any(_meta(p).get("namespace") for p in candidates)
    ref_ns = _text(ref.get("namespace"))
    if namespaced:
        params_ns = ref_ns or ctx.attrs.namespace
        if not params_ns:
            raise ConfigError(
                "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
            )
        candidates = [p for p in candidates if (_text(_meta(p).get("namespace")) or "default") == params_ns]
    elif ref_ns:
        raise ConfigError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    name = _text(ref.get("name"))
    selector = ref.get("selector")
    if name:
        if selector is not None:
            raise ConfigError("paramRef.name and paramRef.selector are mutually exclusive")
        found = [p for p in candidates if _meta(p).get("name") == name][:1]
    elif selector is not None:
        try:
            found = [p for p in candidates if selector_matches(selector, _labels(p))]
        except SelectorError as exc:
            raise ConfigError(str(exc)) from exc
        found.sort(key=lambda p: (_text(_meta(p).get("namespace")), _text(_meta(p).get("name"))))
    else:
        raise ConfigError("one of name or selector must be provided")
    if not found and ref.get("parameterNotFoundAction") == "Deny":
        raise ConfigError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return [ctx.prepared.stored(p) for p in found]


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    labels = _meta(obj).get("labels")
    return labels if isinstance(labels, Mapping) else {}


def _param_label(param: Mapping[str, Any] | None) -> str | None:
    if param is None:
        return None
    meta = _meta(param)
    ns, name = _text(meta.get("namespace")), _text(meta.get("name"))
    return f"{ns}/{name}" if ns else name


# --- evaluation ------------------------------------------------------------------------------------


class _Vars(LazyVariables):
    """LazyVariables that can tell which variables were evaluated (for the report)."""

    def evaluated(self) -> dict[str, EvalResult]:
        return dict(self._results)


def _custom_kind(ctx: RequestContext, kind: GVKey) -> bool:
    """A kind served by one of the CRDs given (not a built-in kind)."""
    return any(
        (c.group, c.version, c.kind) == (kind.group, kind.version, kind.kind) for c in ctx.prepared.crds
    )


class _Run:
    """One (policy, binding, param) evaluation: activation, variables, report."""

    def __init__(
        self,
        ctx: RequestContext,
        policy: _Policy,
        obj: dict[str, Any] | None,
        old: dict[str, Any] | None,
        param: dict[str, Any] | None,
        gvr: GVR,
        gvk: GVKey,
        *,
        mutating: bool = False,
    ) -> None:
        self.policy = policy
        self.report_values = ctx.prepared.report_values
        self.expressions: list[ExpressionEvaluation] = []
        self.failures: list[Failure] = []
        a = ctx.attrs
        if (gvk.group, gvk.version) != (a.kind.group, a.kind.version) and _custom_kind(ctx, a.kind):
            # Matched as another served version of the CRD (matchPolicy Equivalent): admission
            # converts the objects to it (admission.NewVersionedAttributes); a CRD's None
            # conversion changes only apiVersion (apiextensions conversion nopConverter).
            api_version = f"{gvk.group}/{gvk.version}"
            obj = {**obj, "apiVersion": api_version} if isinstance(obj, dict) else obj
            old = {**old, "apiVersion": api_version} if isinstance(old, dict) else old
        request = request_value(ctx, gvr, gvk)
        namespace: object = ctx.namespace_object
        self.condition_objects: dict[str, Any] = {"object": obj, "oldObject": old}
        """`object`/`oldObject` as condition.go `ForInput` binds them (matchConditions,
        validations); a MAP's mutations bind them as mutation.go does (`base`)."""
        if uses_typed_values(ctx.version):
            # activation.go newActivation: typed from 1.37 (vap_lsp.admission.typed)
            self.condition_objects = {"object": ctx.typed(obj), "oldObject": ctx.typed(old)}
            request = typed_request(request)
            namespace = typed_object(ctx.schema, namespace, NAMESPACE_DEFINITION)
            param_value: object = ctx.typed(param)
        else:
            param_value = param
        self.base: dict[str, Any] = {
            "object": obj,
            "oldObject": old,
            "request": request,
            "namespaceObject": namespace,
        }
        if not mutating:
            self.base.update(self.condition_objects)
        if policy.has_params:
            self.base["params"] = param_value
        self.authz: dict[str, Any] = {
            "authorizer": k8s.AuthorizerValue(ctx.authorizer),
            "authorizer.requestResource": k8s.resource_check(
                ctx.authorizer, gvr.group, gvr.resource, a.sub_resource, a.namespace, a.name
            ),
        }
        self.full = {**self.base, **self.authz}
        self.trace = ctx.explain
        self.budgets: list[BudgetUse] = []
        self._phases: list[_Vars] = []
        self.variables = self.phase_variables(self.full)
        """The validations' (MAP: the first mutation's) variables, kept for `--explain`."""
        self.full_with_vars = {**self.full, "variables": self.variables}

    def phase_variables(self, activation: Mapping[str, Any]) -> _Vars:
        """A fresh lazily evaluated `variables` map over `activation`: the server builds one
        per ForInput call (composition.go `Variables`), so each call charges the variables it
        reads again (cost_budget)."""
        variables = _Vars(self.policy.variables, activation, cost_limit=PER_CALL_LIMIT, trace=self.trace)
        self._phases.append(variables)
        return variables

    def meter(self, name: str, limit: int) -> Meter:
        """A budget of this evaluation, reported in `Evaluation.budgets`."""
        use = BudgetUse(name, limit)
        self.budgets.append(use)
        return Meter(use)

    def eval(self, e: _Expr, activation: Mapping[str, Any], *, report: bool = True) -> EvalResult:
        """One expression; errors worded as `condition.go`/`activation.go` words them. `report`:
        listed among the evaluation's expressions (a messageExpression only where its
        validation failed: the only place the server uses its value)."""
        err = e.compile_error()
        if err is not None:
            result = EvalResult(error=f"compilation error: {err}")
        elif e.compiled is None:
            result = EvalResult(error="unexpected internal error compiling expression")
        else:
            result = evaluate(e.compiled, activation, env=e.env, cost_limit=PER_CALL_LIMIT, trace=self.trace)
            if result.error is not None:
                result = EvalResult(
                    value=None,
                    error=f"expression '{e.text}' resulted in error: {result.error}",
                    cost=result.cost,
                    cost_limit_exceeded=result.cost_limit_exceeded,
                    trace=result.trace,
                    variables_cost=result.variables_cost,
                )
        if report:
            self.expressions.append(
                ExpressionEvaluation(
                    e.field,
                    e.text,
                    _report_value(result.value) if result.ok and self.report_values else None,
                    result.error,
                    cost=result.cost,
                    trace=result.trace,
                    variables_cost=result.variables_cost,
                )
            )
        return result

    def report_variables(self) -> None:
        """Every variable evaluation of every call (a variable read by two calls twice)."""
        for variables in self._phases:
            for name, r in variables.evaluated().items():
                e = self.policy.variable_exprs.get(name)
                if e is None:
                    continue
                self.expressions.append(
                    ExpressionEvaluation(
                        e.field,
                        e.text,
                        _report_value(r.value) if r.ok and self.report_values else None,
                        r.error,
                        r.cost,
                        r.trace,
                        variables_cost=r.variables_cost,
                    )
                )

    def match_conditions(self) -> tuple[bool, str | None, str | None]:
        """matchconditions.Matcher.Match: (matches, why not, error) before failurePolicy. Every
        condition is evaluated (one ForInput call, charged to its own budget) before the results
        are read: a false one after an expensive one does not save the budget."""
        if not self.policy.match_conditions:
            return True, None, None
        activation = {**self.full, **self.condition_objects, "namespaceObject": None}
        meter = self.meter("matchConditions", MATCH_CONDITIONS_BUDGET)
        results: list[tuple[str, EvalResult]] = []
        for name, e in self.policy.match_conditions:
            r = self.eval(e, activation)
            if not meter.charge(r.cost):
                return False, None, OUT_OF_BUDGET
            results.append((name, r))
        errors: list[str] = []
        for name, r in results:
            if r.error is not None:
                errors.append(r.error)
            elif r.value is False:
                return False, f"matchCondition '{name}' is false", None
        if errors:
            return False, None, errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        return True, None, None


def _report_value(v: object) -> object:
    try:
        return patching.to_json(v)
    except Exception:  # a value the report cannot show must not fail admission
        return str(v)


@dataclass
class _Decision:
    deny: bool
    message: str = ""
    reason: str = ""
    index: int = 0


def _fail(policy: _Policy) -> bool:
    return policy.spec.get("failurePolicy") != "Ignore"


_Audits = list[tuple[str, str | None, str | None]]


def _validate(run: _Run) -> tuple[list[_Decision], _Audits, str | None]:
    """validator.Validate: decisions for each validation, audit annotation results (key, value,
    error) and why the matchConditions excluded the request."""
    p = run.policy
    fail = _fail(p)
    ok, why, err = run.match_conditions()
    if err is not None:
        run.failures.append(Failure("spec.matchConditions", err, True))
        return ([_Decision(True, err)] if fail else []), [], None
    if not ok:
        return [], [], why
    meter = run.meter("validations and messageExpressions", RUNTIME_BUDGET)
    results: list[EvalResult] = []
    for _v, expr, _m in p.validations:
        r = run.eval(expr, run.full_with_vars)
        if not meter.charge(r.cost):
            run.failures.append(Failure(f"spec.validations[{len(results)}]", OUT_OF_BUDGET, True))
            return ([_Decision(True, OUT_OF_BUDGET)] if fail else []), [], None
        results.append(r)
    # messageExpressions: a second call, with what the validations left, no authorizer
    # (validator.go expressionOptionalVars) and variables of its own
    msg_activation: dict[str, Any] = {**run.base}
    msg_activation["variables"] = run.phase_variables(msg_activation)
    messages: list[EvalResult | None] = []
    msg_budget_error: str | None = None
    for (_v, _e, m), vr in zip(p.validations, results, strict=True):
        if m is None or msg_budget_error is not None:
            messages.append(None)
            continue
        r = run.eval(m, msg_activation, report=vr.error is None and vr.value is not True)
        if not meter.charge(r.cost):
            msg_budget_error = OUT_OF_BUDGET
            messages.append(None)
            continue
        messages.append(r)
    decisions: list[_Decision] = []
    for i, ((v, expr, _m), r) in enumerate(zip(p.validations, results, strict=True)):
        if r.error is not None:
            run.failures.append(Failure(f"spec.validations[{i}]", r.error, True))
            if fail:
                decisions.append(_Decision(True, r.error, index=i))
            continue
        if msg_budget_error is not None:
            text = f"failed messageExpression: {msg_budget_error}"
            run.failures.append(Failure(f"spec.validations[{i}]", text, True))
            if fail:
                decisions.append(_Decision(True, text, index=i))
            continue
        if r.value is True:
            continue
        reason = _text(v.get("reason")) or "Invalid"
        message = ""
        mr = messages[i]
        if mr is not None and mr.error is None and isinstance(mr.value, str):
            message = trim_space(mr.value)
            if len(message.encode()) > MAX_MESSAGE_BYTES or "\n" in message:
                message = ""
        if not message and trim_space(_text(v.get("message"))):
            message = trim_space(_text(v.get("message")))
        if not message:
            message = f"failed expression: {trim_space(expr.text)}"
        run.failures.append(Failure(f"spec.validations[{i}]", message))
        decisions.append(_Decision(True, message, reason, i))
    audits: list[tuple[str, str | None, str | None]] = []
    audit_meter = run.meter("auditAnnotations", RUNTIME_BUDGET) if p.audit else None
    audit_activation: dict[str, Any] = {**run.base}
    if p.audit:
        audit_activation["variables"] = run.phase_variables(audit_activation)
    for i, (key, e) in enumerate(p.audit):
        r = run.eval(e, audit_activation)
        if audit_meter is not None and not audit_meter.charge(r.cost):
            run.failures.append(Failure(f"spec.auditAnnotations[{i}]", OUT_OF_BUDGET, True))
            return ([_Decision(True, OUT_OF_BUDGET)] if fail else []), [], None
        if r.error is not None:
            run.failures.append(Failure(f"spec.auditAnnotations[{i}]", r.error, True))
            if fail:
                audits.append((key, None, r.error))
        elif isinstance(r.value, str):
            if trim_space(r.value):
                audits.append((key, trim_space(r.value)[:MAX_AUDIT_VALUE], None))
        elif r.value is not None:
            audits.append(
                (
                    key,
                    None,
                    f"valueExpression '{e.text}' resulted in unsupported return type: "
                    f"{type_name(r.value)}. "
                    "Return type must be either string or null.",
                )
            )
    return decisions, audits, None


# --- the admission chain ----------------------------------------------------------------------------


@dataclass
class _Outcome:
    denials: list[Denial] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    audit: dict[str, str] = field(default_factory=dict)
    evaluations: list[Evaluation] = field(default_factory=list)


_COMPILED: OrderedDict[tuple[str, str], Any] = OrderedDict()


def _cached(obj: dict[str, Any], version: str, build: Callable[[], Any]) -> Any:
    """Compiled policies and defaulted bindings, keyed by content (JSON text is much cheaper
    than defaulting and compiling again, and stays right if the caller edits the dict)."""
    try:
        key = (json.dumps(obj, sort_keys=True, default=str), version)
    except (TypeError, ValueError):
        return build()
    hit = _COMPILED.get(key)
    if hit is None:
        hit = build()
        _COMPILED[key] = hit
        if len(_COMPILED) > 512:
            _COMPILED.popitem(last=False)
    return hit


def _policies(inputs: PolicyInputs, mutating: bool, version: str) -> list[_Policy]:
    out: list[_Policy] = []
    for obj in inputs.policies:
        rec = recognise(obj.get("apiVersion"), obj.get("kind"))
        if rec is None or rec[0].is_mutating != mutating:
            continue
        kind, api_version = rec[0], _text(obj.get("apiVersion"))
        out.append(_cached(obj, version, functools.partial(compile_policy, obj, kind, api_version, version)))
    out.sort(key=lambda p: p.name)
    return out


def _bindings_by_policy(inputs: PolicyInputs) -> dict[tuple[bool, str], list[tuple[str, dict[str, Any]]]]:
    """(mutating, policy name) → its bindings' (name, defaulted spec), in name order."""
    out: dict[tuple[bool, str], list[tuple[str, dict[str, Any]]]] = {}
    for obj in inputs.bindings:
        rec = recognise(obj.get("apiVersion"), obj.get("kind"))
        if rec is None or rec[0] not in (PolicyKind.MAPB, PolicyKind.VAPB):
            continue
        kind, api_version = rec[0], _text(obj.get("apiVersion"))
        defaulted = _cached(obj, "", functools.partial(apply_defaults, kind, api_version, obj))
        spec = defaulted.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("policyName"), str):
            key = (kind is PolicyKind.MAPB, spec["policyName"])
            out.setdefault(key, []).append((_text(_meta(defaulted).get("name")), spec))
    for bindings in out.values():
        bindings.sort(key=lambda b: b[0])
    return out


def _bindings(ctx: RequestContext, policy: _Policy) -> list[tuple[str, dict[str, Any]]]:
    return ctx.prepared.bindings.get((policy.kind is PolicyKind.MAP, policy.name), [])


@dataclass
class _Invocation:
    policy: _Policy
    binding: str
    binding_spec: dict[str, Any]
    param: dict[str, Any] | None
    gvr: GVR
    gvk: GVKey
    evaluation: Evaluation


# generic/plugin.go `admissionResources`: requests for these are never seen by policies of the
# API (circular dependency); kubeapiserver/admission/exclusion/resources.go `excluded`: nor are
# these non-persisted reviews (plugin.go `isExcludedFromAPIHooks` / `isExcludedFromAllHooks`).
_EXEMPT_RESOURCES = frozenset(
    {
        ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies"),
        ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authentication.k8s.io", "tokenreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
    }
)


def exempt_from_policies(group: str, resource: str) -> bool:
    """Whether admission policies never see requests for this resource (any version): the
    admission configuration kinds themselves and the non-persisted reviews. Found by the oracle
    (issue 34): vap-lsp evaluated a policy on the policies' own updates."""
    return (group, resource) in _EXEMPT_RESOURCES


def _invocations(
    ctx: RequestContext, policies: list[_Policy], out: _Outcome, prefix: str
) -> list[_Invocation]:
    """Policy and binding matching and params: what the generic dispatcher hands to the plugin.
    Configuration errors are denials (failurePolicy Fail) right here."""
    invocations: list[_Invocation] = []
    if exempt_from_policies(ctx.attrs.resource.group, ctx.attrs.resource.resource):
        return invocations
    for p in policies:
        m = match_resources(p.spec.get("matchConstraints"), ctx.attrs)
        if m.error is not None:
            if _fail(p):
                msg = f"failed to configure policy: {m.error}"
                out.denials.append(_denial(prefix, p.name, "", msg))
            out.evaluations.append(
                Evaluation(p.name, None, None, False, m.error, [], [Failure("", m.error, True)])
            )
            continue
        if not m.matches:
            out.evaluations.append(
                Evaluation(p.name, None, None, False, f"matchConstraints: {m.why_not}", [])
            )
            continue
        bindings = _bindings(ctx, p)
        if not bindings:
            out.evaluations.append(
                Evaluation(p.name, None, None, False, "no binding references this policy", [])
            )
        for bname, bspec in bindings:
            bm = match_resources(bspec.get("matchResources"), ctx.attrs) if bspec.get("matchResources") else m
            error = bm.error
            if error is None and not bm.matches:
                why = f"binding matchResources: {bm.why_not}"
                out.evaluations.append(Evaluation(p.name, bname, None, False, why, []))
                continue
            params: list[dict[str, Any] | None] = []
            if error is None:
                try:
                    params = collect_params(ctx, p, bspec)
                except ConfigError as exc:
                    error = str(exc)
            if error is not None:
                msg = f"failed to configure binding: {error}"
                if _fail(p):
                    out.denials.append(_denial(prefix, p.name, bname, msg))
                out.evaluations.append(
                    Evaluation(p.name, bname, None, False, error, [], [Failure("", error, True)])
                )
                continue
            if not params:
                out.evaluations.append(
                    Evaluation(
                        p.name, bname, None, False, "no params found (parameterNotFoundAction: Allow)", []
                    )
                )
            for param in params:
                ev = Evaluation(p.name, bname, _param_label(param), True, None, [])
                out.evaluations.append(ev)
                invocations.append(_Invocation(p, bname, bspec, param, m.resource, m.kind, ev))
    return invocations


_VAP = "ValidatingAdmissionPolicy"


def _denial(prefix: str, policy: str, binding: str, message: str, reason: str = "") -> Denial:
    """The server's status message: `<Kind> '<p>' [with binding '<b>'] denied request: <msg>`
    (MAP: `policy '<p>' with binding '<b>' …`); an empty reason is Invalid.

    MAP errors come back through the generic dispatcher (generic/policy_dispatcher.go
    `Dispatch`): `admission.NewForbidden` (403) whose reason is the error's own when it has one
    (a mutation or match condition error: Invalid), else Forbidden; the code stays 403.
    Found by the oracle (issue 34)."""
    if prefix == "policy":
        reason = reason or "Forbidden"
        if binding:
            text = f"{prefix} '{policy}' with binding '{binding}' denied request: {message}"
        else:
            text = f'policy "{policy}" denied request: {message}'
        return Denial(policy, binding, text, reason, 403, message)
    reason = reason or "Invalid"
    if binding:
        text = f"{prefix} '{policy}' with binding '{binding}' denied request: {message}"
    elif prefix == "policy":
        text = f'policy "{policy}" denied request: {message}'
    else:
        text = f"{prefix} '{policy}' denied request: {message}"
    return Denial(policy, binding, text, reason, reason_code(reason), message)


def _validating_phase(ctx: RequestContext, obj: dict[str, Any] | None, out: _Outcome) -> None:
    policies = ctx.prepared.validating
    failures: list[dict[str, Any]] = []
    for p in policies:
        collected: dict[str, list[str]] = {}
        for inv in _invocations(ctx, [p], out, _VAP):
            run = _Run(ctx, p, obj, ctx.request.old_object, inv.param, inv.gvr, inv.gvk)
            if ctx.explain:
                inv.evaluation.variables = run.variables
            decisions, audits, why = _validate(run)
            inv.evaluation.budgets = run.budgets
            run.report_variables()
            inv.evaluation.expressions = run.expressions
            inv.evaluation.failures = run.failures
            if why is not None:
                inv.evaluation.matched = False
                inv.evaluation.why_not = why
            actions = inv.binding_spec.get("validationActions")
            actions = [a for a in actions if isinstance(a, str)] if isinstance(actions, list) else []
            for d in decisions:
                for action in actions:
                    if action == "Deny":
                        out.denials.append(_denial(_VAP, p.name, inv.binding, d.message, d.reason))
                    elif action == "Warn":
                        text = (
                            f"Validation failed for ValidatingAdmissionPolicy '{p.name}' with binding "
                            f"'{inv.binding}': {d.message}"
                        )
                        # The response's warning recorder keeps one of identical warnings
                        # (endpoints/filters/warning.go `recorder.AddWarning`; the oracle).
                        if text not in out.warnings:
                            out.warnings.append(text)
                    elif action == "Audit":
                        failures.append(
                            {
                                "message": d.message,
                                "policy": p.name,
                                "binding": inv.binding,
                                "expressionIndex": d.index,
                                "validationActions": actions,
                            }
                        )
            for key, value, error in audits:
                if error is not None:
                    out.denials.append(_denial(_VAP, p.name, inv.binding, error))
                elif value is not None:
                    values = collected.setdefault(key, [])
                    if value not in values:
                        values.append(value)
        for key, values in collected.items():
            out.audit[f"{p.name}/{key}"] = ", ".join(values)
    if failures:
        out.audit[VALIDATION_FAILURE_KEY] = marshal(failures[:50], sort_keys=False)


def _object_schema(
    ctx: RequestContext, obj: Mapping[str, Any]
) -> tuple[Mapping[str, Any] | None, patching.Resolve]:
    def identity(s: Mapping[str, Any]) -> Mapping[str, Any]:
        return s

    group, ver = _split_api_version(_text(obj.get("apiVersion")))
    kind = _text(obj.get("kind"))
    definition = ctx.schema.definition_for_kind(group, ver, kind)
    if definition is not None:
        schema_set = ctx.schema

        def resolve(s: Mapping[str, Any]) -> Mapping[str, Any]:
            return schema_set.resolve(dict(s))

        return {"$ref": definition}, resolve
    for c in ctx.crds:
        if (c.group, c.version, c.kind) == (group, ver, kind):
            return c.schema, identity
    return None, identity


def _mutate_once(
    ctx: RequestContext,
    run: _Run,
    kind: str,
    e: _Expr,
    obj: dict[str, Any],
    patches: list[Any] | None = None,
    *,
    first: bool = False,
) -> dict[str, Any]:
    """dispatchOne for one mutation; raises patching.PatchError with the server's text. The patch
    it applies is appended to `patches` (for `--explain`). `first`: the invocation's first
    mutation, whose variables are `run.variables` (over the object it started with)."""
    err = e.compile_error()
    if err is not None:
        run.expressions.append(ExpressionEvaluation(e.field, e.text, None, err))
        raise patching.PatchError(err)
    # one call per mutation (dispatchOne): its own budget and its own variables, which read the
    # object as mutated so far
    activation: dict[str, Any] = {**run.full, "object": obj}
    activation["variables"] = run.variables if first else run.phase_variables(activation)
    r = run.eval(e, activation)
    if not run.meter(e.field.rsplit(".", 2)[0], RUNTIME_BUDGET).charge(r.cost):
        raise patching.PatchError(OUT_OF_BUDGET)
    if r.error is not None:
        raise patching.PatchError(r.error)
    if kind == "applyConfiguration":
        if not isinstance(r.value, StructValue):
            raise patching.PatchError(
                f"unsupported return type from ApplyConfiguration expression: {r.value!r}"
            )
        patching.check_type_names(r.value)
        patch = patching.to_json(r.value)
        if patches is not None:
            patches.append(patch)
        schema, resolve = _object_schema(ctx, obj)
        result = patching.apply_configuration(obj, patch, schema, resolve)
        return result if isinstance(result, dict) else obj
    if not isinstance(r.value, list):
        raise patching.PatchError("type mismatch: JSONPatchType.expression should evaluate to array")
    ops: list[dict[str, Any]] = []
    for item in r.value:
        if not isinstance(item, StructValue):
            raise patching.PatchError(
                "type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch"
            )
        op: dict[str, Any] = {
            "op": to_python(item.fields.get("op", "")),
            "path": to_python(item.fields.get("path", "")),
        }
        if item.fields.get("from"):
            op["from"] = to_python(item.fields["from"])
        if "value" in item.fields:
            value = item.fields["value"]
            if isinstance(value, StructValue):
                errs = patching.type_name_errors(value, value.type_name)
                if errs:
                    raise patching.PatchError("type mismatch: " + "\n".join(errs))
            op["value"] = patching.to_json(value)
        ops.append(op)
    if patches is not None:
        patches.append(ops)
    result, _applied = patching.apply_json_patch(obj, ops)
    if not isinstance(result, dict):
        return obj
    group, ver = _split_api_version(_text(result.get("apiVersion")))
    if ctx.schema.definition_for_kind(group, ver, _text(result.get("kind"))) is not None:
        # dispatchOne converts a typed object's patched form back with the scheme, which
        # decodes strictly: an undeclared field fails the request (found by the oracle).
        schema, resolve = _object_schema(ctx, result)
        unknown = patching.unknown_fields(result, patching.shape_of(schema, resolve))
        if unknown:
            raise patching.InternalPatchError(
                "Internal error occurred: strict decoding error: "
                + ", ".join(f'unknown field "{u}"' for u in unknown)
            )
    return result


def _mutating_phase(ctx: RequestContext, out: _Outcome) -> dict[str, Any] | None:
    """The MAP dispatcher with one reinvocation round (reinvocationPolicy IfNeeded)."""
    policies = ctx.prepared.mutating
    if not policies:
        return ctx.request.object if isinstance(ctx.request.object, dict) else None
    obj = copy.deepcopy(ctx.request.object) if isinstance(ctx.request.object, dict) else None
    invocations = _invocations(ctx, policies, out, "policy")
    previously: list[int] = []
    reinvoke: set[int] = set()
    changed_any = False
    for round_ in (0, 1):
        if round_ == 1 and not changed_any:
            break
        for idx, inv in enumerate(invocations):
            if round_ == 1 and idx not in reinvoke:
                continue
            p = inv.policy
            run = _Run(ctx, p, obj, ctx.request.old_object, inv.param, inv.gvr, inv.gvk, mutating=True)
            ok, why, err = run.match_conditions()
            if err is not None or not ok:
                inv.evaluation.budgets.extend(run.budgets)
            if err is not None:
                _map_error(out, inv, err)
                inv.evaluation.expressions.extend(run.expressions)
                continue
            if not ok:
                inv.evaluation.matched = False
                inv.evaluation.why_not = why
                inv.evaluation.expressions.extend(run.expressions)
                continue
            before = copy.deepcopy(obj)
            if ctx.explain:
                inv.evaluation.variables = run.variables
            first = True
            for index, (kind, e) in enumerate(p.mutations):
                if obj is None or e is None:
                    continue
                patches: list[Any] | None = [] if ctx.explain else None
                step_from = copy.deepcopy(obj) if ctx.explain else None
                try:
                    obj = _mutate_once(ctx, run, kind, e, obj, patches, first=first)
                except patching.InternalPatchError as exc:
                    inv.evaluation.failures.append(Failure("spec.mutations", str(exc), True))
                    out.denials.append(Denial(p.name, inv.binding, str(exc), "InternalError", 500, str(exc)))
                    inv.evaluation.expressions.extend(run.expressions)
                    return obj
                except patching.PatchError as exc:
                    _map_error(out, inv, str(exc))
                first = False
                if patches is not None:
                    inv.evaluation.mutations.append(
                        MutationStep(
                            f"spec.mutations[{index}]",
                            round_,
                            patches[0] if patches else None,
                            copy.deepcopy(obj),
                            obj != step_from,
                        )
                    )
            run.report_variables()
            inv.evaluation.expressions.extend(run.expressions)
            inv.evaluation.budgets.extend(run.budgets)
            if obj != before:
                changed_any = True
                reinvoke.update(previously)
                previously = []
            if p.spec.get("reinvocationPolicy") == "IfNeeded" and round_ == 0:
                previously.append(idx)
        if round_ == 0 and changed_any:
            # The dispatch ends with `RequireReinvokingPreviouslyInvokedPlugins` when the object
            # was mutated (mutating/dispatcher.go, `lastVersionedAttr.Dirty`): every IfNeeded
            # policy invoked so far is reinvoked, the one that made the last change too (found by
            # the oracle, issue 34).
            reinvoke.update(previously)
    return obj


def _map_error(out: _Outcome, inv: _Invocation, error: str) -> None:
    inv.evaluation.failures.append(Failure("spec.mutations", error, True))
    if not _fail(inv.policy):
        return
    out.denials.append(_denial("policy", inv.policy.name, inv.binding, error, "Invalid"))


def _yaml(obj: Any) -> str:
    from ruamel.yaml import YAML

    y = YAML(typ="safe", pure=True)
    y.default_flow_style = False
    buf = io.StringIO()
    y.dump(obj, buf)
    return buf.getvalue()


def _decode(
    request: AdmissionRequestInput, prepared: PreparedInputs
) -> tuple[AdmissionRequestInput, list[str]]:
    """The request with its objects as the server decodes them (defaulted); old objects are
    stored objects, defaulted too."""
    notes: list[str] = []
    obj, old = request.object, request.old_object
    if isinstance(obj, dict):
        obj, note = prepared.decoded(obj)
        notes += [note] if note else []
    if isinstance(old, dict):
        old, note = prepared.decoded(old)
        notes += [note] if note and not notes else []
    return dataclasses.replace(request, object=obj, old_object=old), notes


def _registry_fill_in(
    obj: dict[str, Any], request: AdmissionRequestInput, ctx: RequestContext, prepared: PreparedInputs
) -> list[str]:
    """What the registry has filled into `obj` (in place) by the time validating admission runs;
    the notes name the placeholders. Kinds without a schema are left as written."""
    gvk = (ctx.attrs.kind.group, ctx.attrs.kind.version, ctx.attrs.kind.kind)
    builtin = prepared.schema.definition_for_kind(*gvk) is not None
    if not builtin and prepared.crd_schema(obj) is None:
        return []
    resource = prepared.schema.resource_for_kind(*gvk)
    status = "status" in resource.subresources if resource is not None else prepared.crd_status(gvk)
    if request.sub_resource == "status":
        if request.operation == "UPDATE" and isinstance(request.old_object, dict):
            status_update(obj, request.old_object, gvk, builtin=builtin)
        return []
    return before_validating(
        obj,
        request.old_object,
        request.operation,
        gvk,
        builtin=builtin,
        status_subresource=status,
        kubernetes_minor=minor(prepared.version),
    )


def _before_mutating_admission(
    request: AdmissionRequestInput, ctx: RequestContext, prepared: PreparedInputs
) -> PluginOutcome:
    """What the server has done to the request's objects (in place) by the time mutating
    admission policies see them. Stored objects went through the default-enabled mutating
    plugins when they were created: the old object, and the object of a subresource request (the
    stored one, changed). A written object of the main resource gets the request's namespace,
    then those plugins."""
    gvr = ctx.attrs.resource
    resource, namespace = (gvr.group, gvr.resource), ctx.attrs.namespace
    version = minor(prepared.version)
    if prepared.builtin_admission:
        if isinstance(request.old_object, dict):
            stored(request.old_object, resource, namespace, prepared.cluster, version)
        if isinstance(request.object, dict) and request.sub_resource:
            stored(request.object, resource, namespace, prepared.cluster, version)
    writes = request.operation in ("CREATE", "UPDATE") and not request.sub_resource
    if not isinstance(request.object, dict) or not writes:
        return PluginOutcome()
    before_mutating(request.object, namespace, ctx.namespaced, create=request.operation == "CREATE")
    if not prepared.builtin_admission:
        return PluginOutcome()
    return admission_plugins(
        request.object, request.old_object, request.operation, resource, namespace, prepared.cluster, version
    )


def _validating_context(ctx: RequestContext, obj: dict[str, Any] | None) -> RequestContext:
    """The request as validating admission gets it (`AdmissionToValidateObjectFunc`): with the
    name generated from `generateName` when the request named none. Mutating admission keeps
    `ctx`: it runs before the name exists. The function also hands validating admission the
    mutated object (`obj`), which matching reads too: the objectSelector of a validating policy
    sees the labels mutating admission left (found by the oracle, issue 34)."""
    name = validating_name(ctx.attrs.name, obj)
    if name == ctx.attrs.name and (obj is None or obj is ctx.attrs.object):
        return ctx
    attrs = dataclasses.replace(ctx.attrs, name=name, object=obj if obj is not None else ctx.attrs.object)
    return dataclasses.replace(ctx, attrs=attrs)


def validating_view(
    request: AdmissionRequestInput, prepared: PreparedInputs
) -> tuple[AdmissionRequestInput, RequestContext, list[str]]:
    """The request as a validating policy reads it when no mutating policy changes it: objects
    decoded, then filled in as the server does before validating admission (name from
    generateName, uid, a Service's allocations...). The CEL playground binds this, so
    `vap-lsp cel` sees what `run` evaluates."""
    request, notes = _decode(request, prepared)
    ctx = request_context(request, prepared)
    notes += _before_mutating_admission(request, ctx, prepared).notes
    if (
        isinstance(request.object, dict)
        and request.operation in ("CREATE", "UPDATE")
        and not request.sub_resource
    ):
        notes += _registry_fill_in(request.object, request, ctx, prepared)
        ctx = _validating_context(ctx, request.object)
    return request, ctx, notes


def _admit(
    request: AdmissionRequestInput, prepared: PreparedInputs, explain: bool = False
) -> AdmissionResult:
    written = request.object
    request, notes = _decode(request, prepared)
    ctx = request_context(request, prepared)
    ctx.explain = explain
    out = _Outcome()
    writes = request.operation in ("CREATE", "UPDATE") and not request.sub_resource
    plugins = _before_mutating_admission(request, ctx, prepared)
    notes += plugins.notes
    if plugins.forbidden is not None:
        out.denials.append(
            Denial("", "", plugins.forbidden, "Forbidden", reason_code("Forbidden"), plugins.forbidden)
        )
        notes.append("rejected by a built-in admission plugin before mutating admission")
        return AdmissionResult(ctx.identity, False, out.denials, [], {}, None, None, [], None, notes)
    patched = _mutating_phase(ctx, out)
    if patched is not None and patched is not request.object and patched != request.object:
        patched = prepared.decoded(patched)[0]  # a mutated object is defaulted again
    diff: str | None = None
    if patched is not None and patched != request.object:
        diff = "".join(
            difflib.unified_diff(
                _yaml(request.object).splitlines(keepends=True),
                _yaml(patched).splitlines(keepends=True),
                "original",
                "patched",
            )
        )
    mutated = patched if patched is not None and patched != request.object else None
    evaluated: dict[str, Any] | None = None
    if request.operation != "DELETE" and patched is not None:
        # The decoded object is the engine's own copy, nowhere else in the result when nothing
        # mutated it: validating admission reads it without a second copy.
        own = patched is request.object and patched is not written
        evaluated = patched if own else copy_json(patched)
    gvk = (ctx.attrs.kind.group, ctx.attrs.kind.version, ctx.attrs.kind.kind)
    builtin = prepared.schema.definition_for_kind(*gvk) is not None
    errors: list[str] = []
    status_write = request.operation == "UPDATE" and request.sub_resource == "status"
    if evaluated is not None and (writes or status_write):
        notes += _registry_fill_in(evaluated, request, ctx, prepared)
        if builtin and prepared.builtin_admission:
            errors = builtin_errors(evaluated, gvk, request.operation)
    if errors:
        message = rejection(evaluated or {}, gvk, errors)
        out.denials.append(Denial("", "", message, "Invalid", reason_code("Invalid"), message))
        notes.append("rejected by the built-in validation before validating admission")
    elif out.denials:
        # Mutating admission rejected the request: the admission chain stops there and
        # validating admission never runs (no warnings or audit annotations of its policies;
        # found by the oracle, issue 34).
        notes.append("rejected by mutating admission before validating admission")
    else:
        _validating_phase(_validating_context(ctx, evaluated), evaluated, out)
    return AdmissionResult(
        ctx.identity,
        not out.denials,
        out.denials,
        out.warnings,
        out.audit,
        mutated,
        diff,
        out.evaluations,
        evaluated,
        notes,
    )
