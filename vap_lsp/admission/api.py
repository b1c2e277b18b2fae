"""The stable entry point of offline admission (`vap-lsp run`, `vap-lsp test`, the editor).

Why a separate module: other features build on these types; the evaluation itself lives in
`vap_lsp.admission.engine` and may change freely behind `admit`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_lsp.policy.kinds import recognise

if TYPE_CHECKING:
    from vap_lsp.admission.engine import PreparedInputs
    from vap_lsp.analysis.model.cost_budget import BudgetUse
    from vap_lsp.cel.interpreter import LazyVariables
    from vap_lsp.cel.trace import Trace

__all__ = [
    "AdmissionRequestInput",
    "AdmissionResult",
    "Denial",
    "Evaluation",
    "ExpressionEvaluation",
    "Failure",
    "MutationStep",
    "PolicyInputs",
    "UserInfo",
    "admit",
    "load_admission_review",
    "prepare",
]

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")


@dataclass(frozen=True)
class UserInfo:
    """Who sends the request (`authentication/v1 UserInfo`)."""

    username: str = "system:anonymous"
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class AdmissionRequestInput:
    """One request under admission; `namespace`/`name` default to the object's metadata."""

    operation: str
    object: dict[str, Any] | None
    old_object: dict[str, Any] | None = None
    user: UserInfo = field(default_factory=UserInfo)
    sub_resource: str = ""
    dry_run: bool = False
    options: dict[str, Any] | None = None
    namespace: str | None = None
    name: str | None = None


@dataclass
class PolicyInputs:
    """Everything besides the request: policies, bindings, params, namespaces, CRDs, authz rules."""

    policies: list[dict[str, Any]]
    bindings: list[dict[str, Any]]
    params: list[dict[str, Any]]
    namespaces: list[dict[str, Any]]
    crds: list[dict[str, Any]]
    authorizer_rules: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_objects(cls, objects: Iterable[dict[str, Any]]) -> PolicyInputs:
        """Sort documents by kind; anything that is not a policy, binding, Namespace or CRD may
        be a param (params are looked up by the policy's paramKind)."""
        out = cls([], [], [], [], [])
        for obj in objects:
            if not isinstance(obj, dict):
                continue
            api_version, kind = obj.get("apiVersion"), obj.get("kind")
            recognised = recognise(api_version, kind)
            if recognised is not None:
                (out.bindings if recognised[0].is_binding else out.policies).append(obj)
            elif kind == "Namespace" and api_version == "v1":
                out.namespaces.append(obj)
                out.params.append(obj)
            elif (
                kind == "CustomResourceDefinition"
                and isinstance(api_version, str)
                and (api_version.startswith("apiextensions.k8s.io/"))
            ):
                out.crds.append(obj)
            elif isinstance(api_version, str) and isinstance(kind, str):
                out.params.append(obj)
        return out

    def add_namespaces(self, objects: Iterable[Any]) -> None:
        """Namespaces among the objects under admission exist for the others too (a sample file
        that creates a labelled Namespace and a Deployment in it sees the labels through
        namespaceSelector and `namespaceObject`, as on a cluster); given Namespaces win."""
        known = {_metadata_name(ns) for ns in self.namespaces}
        for obj in objects:
            if isinstance(obj, dict) and obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1":
                name = _metadata_name(obj)
                if name and name not in known:
                    known.add(name)
                    self.namespaces.append(obj)


def _metadata_name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    return _str(meta.get("name")) if isinstance(meta, dict) else ""


@dataclass
class Denial:
    policy: str
    binding: str
    message: str
    reason: str
    code: int
    detail: str = ""
    """The decision's own message, without the `… denied request: ` prefix."""

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "binding": self.binding,
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }


@dataclass
class ExpressionEvaluation:
    """One expression's outcome: `field` is its path in the policy (`spec.validations[0].expression`)."""

    field: str
    expression: str
    result: object
    error: str | None
    cost: int = 0
    trace: Trace | None = dataclasses.field(default=None, repr=False, compare=False)
    """Every evaluated node's value (only with `admit(..., explain=True)`)."""
    variables_cost: int = 0
    """Of `cost`, the variables this expression evaluated (charged with it, not part of its
    per-call limit)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "expression": self.expression,
            "result": self.result,
            "error": self.error,
        }


@dataclass
class MutationStep:
    """One mutation as dispatched (`--explain`): its patch (the applyConfiguration object or the
    JSON Patch operations; None when it failed), the object after it, and whether it changed it.
    `round` 1 is the reinvocation (reinvocationPolicy IfNeeded)."""

    field: str
    round: int
    patch: Any
    object: dict[str, Any] | None
    changed: bool


@dataclass
class Failure:
    """A validation that did not pass, or an error (`error`: an expression, budget or
    configuration error), before the binding's validationActions and the policy's failurePolicy
    act on it: what `vap-lsp impact` counts per binding. `field` is where in the policy."""

    field: str
    message: str
    error: bool = False


@dataclass
class Evaluation:
    """One (policy, binding, param) considered for the request; `why_not` when it did not match."""

    policy: str
    binding: str | None
    param: str | None
    matched: bool
    why_not: str | None
    expressions: list[ExpressionEvaluation]
    failures: list[Failure] = field(default_factory=list)
    variables: LazyVariables | None = field(default=None, repr=False, compare=False)
    """With `explain=True`: the policy's variables, with the traces of those that were read."""
    mutations: list[MutationStep] = field(default_factory=list)
    """With `explain=True` (MAP): each mutation applied, in order, both rounds."""
    budgets: list[BudgetUse] = field(default_factory=list)
    """What the evaluation spent of each budget it used, in the order it used them
    (`vap_lsp.analysis.model.cost_budget`); a MAP reinvocation adds its own."""

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "binding": self.binding,
            "param": self.param,
            "matched": self.matched,
            "whyNot": self.why_not,
            "expressions": [e.to_json() for e in self.expressions],
        }


@dataclass
class AdmissionResult:
    object: dict[str, Any]
    """apiVersion, kind, namespace, name of the object under admission."""
    allowed: bool
    denials: list[Denial]
    warnings: list[str]
    audit_annotations: dict[str, str]
    patched: dict[str, Any] | None
    patch_diff: str | None
    evaluations: list[Evaluation]
    evaluated: dict[str, Any] | None = None
    """The object as validating admission saw it: decoded and defaulted, mutated, with what the
    server fills in before (`vap_lsp.defaulting.server`); None on DELETE."""
    notes: list[str] = field(default_factory=list)
    """What the user should know about the evaluation (a kind without schema: not defaulted)."""

    def to_json(self) -> dict[str, Any]:
        out = {
            "object": dict(self.object),
            "allowed": self.allowed,
            "denials": [d.to_json() for d in self.denials],
            "warnings": list(self.warnings),
            "auditAnnotations": dict(self.audit_annotations),
            "patched": self.patched,
            "evaluations": [e.to_json() for e in self.evaluations],
        }
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def admit(
    request: AdmissionRequestInput,
    inputs: PolicyInputs,
    *,
    kubernetes_version: str,
    builtin_admission: bool = True,
) -> AdmissionResult:
    """Run every policy/binding of `inputs` against `request` as the API server would (never raises
    on bad policy or object data: problems become denials, warnings or `why_not`).

    Objects are decoded as the server decodes them (defaulted, `vap_lsp.defaulting`); with
    `builtin_admission`, the server's own admission steps run too: its default-enabled mutating
    plugins before mutating admission (reading the PriorityClasses, ServiceAccounts and default
    classes among `inputs`), and its built-in validation, whose rejection is a denial with its
    message before validating admission (off only for suites of tools that skip them, and for
    objects the server has already stored)."""
    return prepare(inputs, kubernetes_version=kubernetes_version, builtin_admission=builtin_admission).admit(
        request
    )


def prepare(
    inputs: PolicyInputs,
    *,
    kubernetes_version: str,
    report_values: bool = True,
    builtin_admission: bool = True,
) -> PreparedInputs:
    """The policy set compiled once for many requests: `prepare(...).admit(request)` gives what
    `admit(request, inputs, ...)` gives, without compiling, defaulting and indexing again.
    `inputs` must not change afterwards. `report_values=False`: every expression's `result` is
    None (verdicts, messages, failures and errors are the same), for callers that only count."""
    from vap_lsp.admission.engine import prepare as prepare_inputs

    return prepare_inputs(
        inputs, kubernetes_version, report_values=report_values, builtin_admission=builtin_admission
    )


def _str(v: object) -> str:
    return v if isinstance(v, str) else ""


def load_admission_review(data: dict[str, Any]) -> AdmissionRequestInput:
    """An `admission.k8s.io/v1 AdmissionReview` (its `request`) as an admission input.

    Raises ValueError when `data` is not an AdmissionReview with a request.
    """
    if not isinstance(data, dict) or data.get("kind") != "AdmissionReview":
        raise ValueError("not an AdmissionReview")
    req = data.get("request")
    if not isinstance(req, dict):
        raise ValueError("AdmissionReview has no request")
    operation = _str(req.get("operation")).upper() or "CREATE"
    if operation not in OPERATIONS:
        raise ValueError(f"unknown operation {operation!r}")
    user = req.get("userInfo") if isinstance(req.get("userInfo"), dict) else {}
    assert isinstance(user, dict)
    extra_in = user.get("extra") if isinstance(user.get("extra"), dict) else {}
    assert isinstance(extra_in, dict)
    extra = {str(k): tuple(str(x) for x in v) for k, v in extra_in.items() if isinstance(v, list)}
    groups = user.get("groups")
    obj = req.get("object")
    old = req.get("oldObject")
    options = req.get("options")
    return AdmissionRequestInput(
        operation=operation,
        object=obj if isinstance(obj, dict) else None,
        old_object=old if isinstance(old, dict) else None,
        user=UserInfo(
            username=_str(user.get("username")) or "system:anonymous",
            uid=_str(user.get("uid")),
            groups=tuple(str(g) for g in groups) if isinstance(groups, list) else (),
            extra=extra,
        ),
        sub_resource=_str(req.get("subResource")),
        dry_run=bool(req.get("dryRun")),
        options=options if isinstance(options, dict) else None,
        namespace=req["namespace"] if isinstance(req.get("namespace"), str) else None,
        name=req["name"] if isinstance(req.get("name"), str) else None,
    )
