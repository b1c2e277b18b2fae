"""One CEL expression compiled and evaluated as a validation of an admission policy (`vap-lsp cel`).

Why here: the inputs must be bound exactly as `admit` binds them (objects defaulted as the server
decodes them, `request` and `namespaceObject` built from the object, `authorizer` answering from
the rules file), so this reuses the engine's request context rather than a second copy of it.
Cost: `actual` is the interpreter's runtime cost (cel-go's `CostTracker` with Kubernetes' cost
functions, per-call limit as at admission); `estimate` is the static estimate of the checked
expression (`cel.cost_estimate`, as the server estimates a CRD rule) with `object`/`oldObject`
sized by the kind's schema (`cel.schema_sizes`): lists, maps and strings without `maxItems`,
`maxProperties`, `maxLength` are as large as a 3 MiB request allows; `dyn` values are unbounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.admission import patching
from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo
from vap_lsp.admission.engine import prepare, request_value, runtime_environment, validating_view
from vap_lsp.admission.typed import NAMESPACE_DEFINITION, typed_object, typed_request, uses_typed_values
from vap_lsp.analysis.model.cost_budget import PER_CALL_LIMIT
from vap_lsp.analysis.model.crds import crd_versions
from vap_lsp.analysis.model.matching import GVK, crd_schema_root, crd_type, object_schema_root, object_type
from vap_lsp.cel.checker import CheckedExpr
from vap_lsp.cel.compile import compile_expression
from vap_lsp.cel.cost_estimate import CostEstimate, estimate_cost
from vap_lsp.cel.environment import ExpressionKind, build_environment
from vap_lsp.cel.interpreter import evaluate
from vap_lsp.cel.runtime import k8s
from vap_lsp.cel.schema_sizes import SchemaRoot, SchemaSizes
from vap_lsp.cel.types import DYN, Type, type_string

__all__ = ["PlaygroundError", "PlaygroundInputs", "PlaygroundResult", "evaluate_expression", "parse_kind"]


class PlaygroundError(Exception):
    """Bad usage (an unknown kind): exit code 2."""


@dataclass
class PlaygroundInputs:
    """What `vap-lsp cel` binds; None means absent (the variable is null, as at admission)."""

    version: str
    kind: GVK | None = None
    crds: list[dict[str, Any]] | None = None
    object: dict[str, Any] | None = None
    old_object: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    namespace_object: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    authorizer_rules: list[dict[str, Any]] | None = None
    user: UserInfo | None = None
    builtin_admission: bool = True
    """Run the server's default-enabled admission plugins on the objects (as `run` does); off
    for objects as decoded and defaulted only (what the oracle of issue 34 compares)."""


@dataclass
class PlaygroundResult:
    compile_error: str | None
    """cel-go's compile issues (the expression was not evaluated)."""
    type: str | None
    """The checked output type, as cel-go names it."""
    value: Any = None
    """The value as JSON (None also when the expression errs)."""
    error: str | None = None
    cost_actual: int | None = None
    cost_limit_exceeded: bool = False
    cost_estimate: CostEstimate | None = None
    """The static estimate (None only when the expression does not compile)."""
    notes: list[str] = field(default_factory=list)
    """What binding the inputs assumed (placeholders the server allocates, a kind without schema)."""
    not_evaluated: str | None = None
    """Why the expression was compiled and estimated but not evaluated: it reads what only an
    object under admission gives, and none was given."""

    def to_json(self) -> dict[str, Any]:
        """The `--format json` shape of issue #27."""
        error = self.compile_error if self.compile_error is not None else self.error
        estimate = self.cost_estimate
        out: dict[str, Any] = {
            "value": self.value,
            "error": error,
            "type": self.type,
            "cost": {
                "actual": self.cost_actual,
                "estimate": None if estimate is None else {"min": estimate.min, "max": estimate.max},
            },
        }
        if self.not_evaluated is not None:
            out["notEvaluated"] = self.not_evaluated
        return out


_MAX_INT_JSON = (1 << 53) - 1
"""cel-go types/int.go `maxIntJSON`: the largest integer a JSON number (a double) holds exactly."""


def _finite(value: Any) -> Any:
    """JSON data as cel-go converts a value to a `google.protobuf.Value` and protojson writes it:
    a double's NaN and infinities as `"NaN"`, `"Infinity"`, `"-Infinity"` (not Python's bare
    `NaN`); an int or uint outside ±(2^53 − 1) as its decimal string (`Int.ConvertToNative` /
    `Uint.ConvertToNative` for `jsonValueType`: "Proto3 to JSON conversion requires
    string-formatted int64 values"), found by the oracle (issue 34)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and not -_MAX_INT_JSON <= value <= _MAX_INT_JSON
    ):
        return str(value)
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


_GVK_FIELDS = {"group": "string", "version": "string", "kind": "string"}
_GVR_FIELDS = {"group": "string", "version": "string", "resource": "string"}
_REQUEST_FIELDS: dict[str, Any] = {
    "kind": _GVK_FIELDS,
    "resource": _GVR_FIELDS,
    "subResource": "string",
    "requestKind": _GVK_FIELDS,
    "requestResource": _GVR_FIELDS,
    "requestSubResource": "string",
    "name": "string",
    "namespace": "string",
    "operation": "string",
    "userInfo": {"username": "string", "uid": "string", "groups": ["string"], "extra": {"*": ["string"]}},
    "dryRun": "boolean",
}
"""compile.go `BuildRequestType`: the typed fields of `request` (`options` is dyn; the DeclType
has no other field, so others are never read)."""


def request_shape_error(request: object) -> str | None:
    """Why a `--request` document is no `request` the server could bind (a field of another type
    than `BuildRequestType` declares), or None."""
    return _shape_error(request, _REQUEST_FIELDS, "")


def _shape_error(value: object, shape: Any, where: str) -> str | None:
    def found(kind: str) -> str:
        return f"{where or 'the request'}: expected {kind}, found {value!r}"

    if value is None:
        return None  # absent: null, as the server leaves unset fields
    if shape == "string":
        return None if isinstance(value, str) else found("a string")
    if shape == "boolean":
        return None if isinstance(value, bool) else found("a boolean")
    if isinstance(shape, list):
        if not isinstance(value, list):
            return found("a list")
        for i, item in enumerate(value):
            if (error := _shape_error(item, shape[0], f"{where}[{i}]")) is not None:
                return error
        return None
    if not isinstance(value, dict):
        return found("an object")
    for key, item in value.items():
        inner = shape.get("*", shape.get(key))
        if inner is not None and (
            error := _shape_error(item, inner, f"{where}.{key}" if where else str(key))
        ):
            return error
    return None


def parse_kind(text: str) -> GVK:
    """`v1/Pod`, `apps/v1/Deployment`, `example.com/v1/Widget` (the core group has no prefix)."""
    parts = text.split("/")
    if len(parts) == 2 and all(parts):
        return GVK("", parts[0], parts[1])
    if len(parts) == 3 and all(parts):
        return GVK(parts[0], parts[1], parts[2])
    raise PlaygroundError(
        f"--kind {text}: expected VERSION/KIND or GROUP/VERSION/KIND (v1/Pod, apps/v1/Deployment)"
    )


def _kind_type(inputs: PlaygroundInputs) -> tuple[Type, SchemaRoot | None]:
    """The type of `object` and the schema its sizes come from."""
    gvk = inputs.kind
    if gvk is None:
        return DYN, None
    for crd in inputs.crds or []:
        for v in crd_versions(crd):
            if (v.group, v.version, v.kind) == (gvk.group, gvk.version, gvk.kind):
                found = crd_type(inputs.version, v)
                return (DYN, None) if found is None else (found, crd_schema_root(inputs.version, v))
    t = object_type(inputs.version, gvk)
    if t is None:
        raise PlaygroundError(
            f"--kind {gvk.api_version}/{gvk.kind}: not a kind of Kubernetes {inputs.version} "
            "(a custom resource needs its CRD with --crd)"
        )
    return t, object_schema_root(inputs.version, gvk)


_FROM_THE_OBJECT = ("object", "oldObject", "request", "namespaceObject", "authorizer.requestResource")
"""The variables admission derives from the object under admission (and its request)."""


def _unbound(checked: CheckedExpr, inputs: PlaygroundInputs) -> list[str]:
    """The variables `checked` reads that no input gives: without `--object` or `--old-object`,
    `object`, `oldObject`, `namespaceObject` (unless given), `request` (unless given) and
    `authorizer.requestResource` would be made up of nothing (a null object, a CREATE of the
    kind, placeholders the registry would fill in), so their value would say nothing."""
    if inputs.object is not None or inputs.old_object is not None:
        return []
    given = {"request"} if inputs.request is not None else set()
    if inputs.namespace_object is not None:
        given.add("namespaceObject")
    read = {r.name for r in checked.references.values() if r.kind == "variable"}
    return [name for name in _FROM_THE_OBJECT if name in read and name not in given]


def evaluate_expression(text: str, inputs: PlaygroundInputs) -> PlaygroundResult:
    """Compile `text` as a policy variable's expression (any result type, as validations see
    `object` and `authorizer`; `object`/`oldObject` typed from the kind for its type and cost
    estimate, as the server's type checker types them, else dyn; `params` declared when params
    are given) and evaluate it against `inputs` as admission runs it: compiled with `object` as
    dyn, over the objects as validating admission sees them. Only what was given is evaluated:
    an expression that reads the object under admission, or what admission derives from it,
    when no object was given is compiled and estimated only (`not_evaluated` says why)."""
    has_params = inputs.params is not None
    if inputs.kind is not None:  # the server types `object` from the kind it is: never another
        for option, obj in (("--object", inputs.object), ("--old-object", inputs.old_object)):
            if obj is not None and (obj.get("apiVersion"), obj.get("kind")) != (
                inputs.kind.api_version,
                inputs.kind.kind,
            ):
                raise PlaygroundError(
                    f"{option} is {obj.get('apiVersion')} {obj.get('kind')}, not the --kind "
                    f"{inputs.kind.api_version}/{inputs.kind.kind}"
                )
    object_type, schema = _kind_type(inputs)
    env = build_environment(
        inputs.version,
        ExpressionKind.VARIABLE,  # any result type, `authorizer` declared
        has_params=has_params,
        object_type=object_type,
        variables={},
        mode="stored",
    )
    compiled = compile_expression(text, env)
    if compiled.cel_issues or compiled.checked is None:
        return PlaygroundResult(compile_error=compiled.render() or "compilation failed", type=None)
    # Type-checked: the type checker only checks (env.Compile), so an error building the program
    # (`program instantiation failed: …`, a bad regex constant) belongs to the program compiled
    # below, as admission compiles it; the type stays (the oracle, issue 34).
    output = compiled.output_type
    type_name = type_string(output) if output is not None else None
    roots = {"object": schema, "oldObject": schema} if schema is not None else {}
    sizes = SchemaSizes(roots, kubernetes_version=inputs.version)
    estimate = estimate_cost(compiled.checked, sizes, kubernetes_version=inputs.version).cost
    if unbound := _unbound(compiled.checked, inputs):
        return PlaygroundResult(
            compile_error=None,
            type=type_name,
            cost_estimate=estimate,
            not_evaluated=f"it reads {', '.join(unbound)}, and no object was given (--object, "
            "or --old-object for a DELETE)",
        )

    policy_inputs = PolicyInputs(
        [],
        [],
        [],
        [inputs.namespace_object] if inputs.namespace_object is not None else [],
        list(inputs.crds or []),
        list(inputs.authorizer_rules or []),
    )
    prepared = prepare(policy_inputs, inputs.version, builtin_admission=inputs.builtin_admission)
    subject = inputs.object if inputs.object is not None else inputs.old_object
    if subject is None and inputs.kind is not None:  # no object: the request is still about the kind
        subject = {"apiVersion": inputs.kind.api_version, "kind": inputs.kind.kind}
    operation = "UPDATE" if inputs.object is not None and inputs.old_object is not None else "CREATE"
    if inputs.object is None and inputs.old_object is not None:
        operation = "DELETE"
    request = AdmissionRequestInput(
        operation,
        subject if inputs.object is not None or inputs.old_object is None else None,
        inputs.old_object,
        user=inputs.user or UserInfo(),
    )
    request, ctx, notes = validating_view(request, prepared)
    obj = request.object if inputs.object is not None else None
    old = request.old_object
    activation: dict[str, Any] = {
        "object": obj,
        "oldObject": old,
        "request": inputs.request
        if inputs.request is not None
        else request_value(ctx, ctx.attrs.resource, ctx.attrs.kind),
        "namespaceObject": ctx.namespace_object,
        "variables": {},
    }
    if inputs.namespace_object is not None:  # given explicitly: bound whatever the object's namespace
        meta = inputs.namespace_object.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        activation["namespaceObject"] = prepared.namespace_object(name if isinstance(name, str) else "")
    if has_params:
        activation["params"] = prepared.decoded(inputs.params)[0] if inputs.params else inputs.params
    if uses_typed_values(ctx.version):
        # bound as condition.go ForInput binds them from 1.37 (vap_lsp.admission.typed)
        for name in ("object", "oldObject", "params"):
            if name in activation:
                activation[name] = ctx.typed(activation[name])
        namespace = activation["namespaceObject"]
        activation["namespaceObject"] = typed_object(ctx.schema, namespace, NAMESPACE_DEFINITION)
        activation["request"] = typed_request(activation["request"])
    a = ctx.attrs
    activation["authorizer"] = k8s.AuthorizerValue(ctx.authorizer)
    activation["authorizer.requestResource"] = k8s.resource_check(
        ctx.authorizer, a.resource.group, a.resource.resource, a.sub_resource, a.namespace, a.name
    )
    # The server types `object` from the kind only to warn (the type checker); the program it runs
    # is compiled with `object` as dyn, over JSON-shaped objects: a field typed timestamp is a
    # string there, and `timestamp(object.metadata.creationTimestamp)` converts it.
    runtime_env = runtime_environment(inputs.version, ExpressionKind.VARIABLE, has_params, ())
    program = compile_expression(text, runtime_env)
    if not program.ok or program.checked is None:
        return PlaygroundResult(compile_error=program.render() or "compilation failed", type=type_name)
    result = evaluate(program.checked, activation, env=runtime_env, cost_limit=PER_CALL_LIMIT)
    value = _finite(patching.to_json(result.value)) if result.ok else None
    return PlaygroundResult(
        compile_error=None,
        type=type_name,
        value=value,
        error=result.error,
        cost_actual=result.cost,
        cost_limit_exceeded=result.cost_limit_exceeded,
        cost_estimate=estimate,
        notes=notes,
    )
