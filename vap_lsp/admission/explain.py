"""Why each policy decided as it did (`vap-lsp run --explain`, `test --explain`, the editor).

Read from an `admit(..., explain=True)` result: the scope first (the matchConstraints rule that
matched, the selectors with the labels they saw, matchConditions, the binding's paramRef and
params, validationActions), then every validation with its result and, when false or failing,
its minimal failing sub-expressions (`vap_lsp.cel.explain`), the message the server uses and why
(messageExpression, or its error and the fallback), audit annotations, variables (read or not)
and costs (each expression's, and what each budget of the evaluation spent and has left, as the
server accounts them: `vap_lsp.analysis.model.cost_budget`); for a MutatingAdmissionPolicy each
mutation's patch and the object after it.
Everything here is derived from the traces: the verdicts are the engine's, unchanged.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, Evaluation, ExpressionEvaluation
from vap_lsp.admission.engine import PreparedInputs
from vap_lsp.admission.matching import RequestAttrs, matching_rule
from vap_lsp.analysis.model.cost_budget import BudgetUse
from vap_lsp.cel import explain as cel_explain
from vap_lsp.cel.explain import Failure, compact

__all__ = [
    "EvaluationExplanation",
    "ExpressionExplanation",
    "ValidationExplanation",
    "explain_result",
    "render_text",
]

_MAX_MESSAGE_BYTES = 5 * 1024


@dataclass
class ExpressionExplanation:
    """One evaluated expression: its value or error, cost, failing sub-expressions and the
    operands `&&`/`||`/`?:` did not evaluate."""

    field: str
    expression: str
    value: object
    error: str | None
    cost: int
    failures: list[Failure] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)
    variables_cost: int = 0
    """Of `cost`, the variables it evaluated (programs of their own, charged with it)."""

    @property
    def cost_text(self) -> str:
        """`[cost 22: 19 + 3 for variables]`: the expression's own cost is what the per-call
        limit applies to."""
        if not self.variables_cost:
            return f"[cost {self.cost}]"
        return f"[cost {self.cost}: {self.cost - self.variables_cost} + {self.variables_cost} for variables]"

    @property
    def outcome(self) -> str:
        return f"error: {self.error}" if self.error is not None else compact(self.value)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"field": self.field, "expression": self.expression, "cost": self.cost}
        if self.variables_cost:
            out["variablesCost"] = self.variables_cost
        if self.error is not None:
            out["error"] = self.error
        else:
            out["value"] = self.value
        out["failures"] = [f.to_json() for f in self.failures]
        if self.skipped:
            out["notEvaluated"] = self.skipped
        return out


@dataclass
class ValidationExplanation:
    index: int
    outcome: str
    """pass, fail or error."""
    expression: ExpressionExplanation | None
    message: str | None = None
    """The message the server gives a failing validation."""
    message_source: str | None = None
    """messageExpression, message or expression (the `failed expression: …` fallback)."""
    message_expression: ExpressionExplanation | None = None
    fallback_reason: str | None = None
    """Why a messageExpression's value was not used."""
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.index,
            "outcome": self.outcome,
            "expression": self.expression.to_json() if self.expression else None,
        }
        if self.outcome != "pass":
            out.update(
                {
                    "message": self.message,
                    "messageSource": self.message_source,
                    "messageExpression": self.message_expression.to_json()
                    if self.message_expression
                    else None,
                    "fallbackReason": self.fallback_reason,
                    "reason": self.reason,
                }
            )
        return out


@dataclass
class EvaluationExplanation:
    """One (policy, binding, param): scope, expressions by role, mutations, total cost."""

    policy: str
    binding: str | None
    param: str | None
    matched: bool
    why_not: str | None
    scope: list[tuple[str, str]] = field(default_factory=list)
    match_conditions: list[ExpressionExplanation] = field(default_factory=list)
    variables: list[tuple[str, ExpressionExplanation | None]] = field(default_factory=list)
    validations: list[ValidationExplanation] = field(default_factory=list)
    audit_annotations: list[tuple[str, ExpressionExplanation]] = field(default_factory=list)
    mutations: list[tuple[ExpressionExplanation | None, dict[str, Any]]] = field(default_factory=list)
    budgets: list[BudgetUse] = field(default_factory=list)
    cost: int = 0
    """What the server charged to the evaluation's budgets (a variable once per call reading it)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "binding": self.binding,
            "param": self.param,
            "matched": self.matched,
            "whyNot": self.why_not,
            "scope": [{"what": k, "detail": v} for k, v in self.scope],
            "matchConditions": [e.to_json() for e in self.match_conditions],
            "variables": [
                {"name": n, "read": e is not None, **(e.to_json() if e is not None else {})}
                for n, e in self.variables
            ],
            "validations": [v.to_json() for v in self.validations],
            "auditAnnotations": [{"key": k, **e.to_json()} for k, e in self.audit_annotations],
            "mutations": [
                {**step, "expression": e.to_json() if e is not None else None} for e, step in self.mutations
            ],
            "cost": self.cost,
            "budgets": [b.to_json() for b in self.budgets],
        }


# --- building -------------------------------------------------------------------------------------


def _expression(x: ExpressionEvaluation, ev: Evaluation) -> ExpressionExplanation:
    failures: list[Failure] = []
    skipped: list[str] = []
    if x.trace is not None:
        failures = cel_explain.explain(x.trace, ev.variables)
        source = x.trace.parsed.source
        skipped = [source[s:e] for s, e in cel_explain.skipped(x.trace)]
    return ExpressionExplanation(
        x.field, x.expression, x.result, x.error, x.cost, failures, skipped, x.variables_cost
    )


def _labels(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    labels = meta.get("labels") if isinstance(meta, Mapping) else None
    return labels if isinstance(labels, Mapping) else {}


_EMPTY = '""'  # the core group


def _rule_text(rule: Any) -> str:
    if not isinstance(rule, Mapping):
        return compact(rule)
    parts = [
        f"{k}={','.join(str(x) or _EMPTY for x in v)}"
        for k in ("operations", "apiGroups", "apiVersions", "resources", "resourceNames")
        if isinstance(v := rule.get(k), list) and v
    ]
    if rule.get("scope"):
        parts.append(f"scope={rule['scope']}")
    return " ".join(parts)


def _match_scope(where: str, mr: Any, attrs: RequestAttrs) -> list[tuple[str, str]]:
    """The rule that matched and the selectors with the labels they were matched against."""
    if not isinstance(mr, Mapping):
        return []
    out: list[tuple[str, str]] = []
    rules = mr.get("resourceRules") or []
    if isinstance(rules, list) and rules:
        index, gvr, _gvk = matching_rule(rules, mr.get("matchPolicy"), attrs)
        res = "/".join(p for p in (gvr.group, gvr.version, gvr.resource) if p)
        if index is not None:
            out.append(
                (
                    f"{where}.resourceRules[{index}]",
                    f"matches {attrs.operation} {res}: {_rule_text(rules[index])}",
                )
            )
        else:
            out.append((f"{where}.resourceRules", f"no rule matches {attrs.operation} {res}"))
    for key, labels in (
        ("namespaceSelector", attrs.namespace_labels),
        ("objectSelector", _labels(attrs.object if attrs.object is not None else attrs.old_object)),
    ):
        selector = mr.get(key)
        if isinstance(selector, Mapping) and selector:
            seen = compact(dict(labels or {}), 100)
            out.append((f"{where}.{key}", f"{compact(dict(selector))} against labels {seen}"))
    return out


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _fallback_reason(message: ExpressionExplanation | None) -> str | None:
    """Why the server does not use a messageExpression's value (validator.go)."""
    if message is None:
        return None
    if message.error is not None:
        return f"messageExpression failed: {message.error}"
    value = message.value
    if not isinstance(value, str):
        return f"messageExpression returned {compact(value)}, not a string"
    text = value.strip()
    if not text:
        return "messageExpression returned an empty string"
    if len(text.encode()) > _MAX_MESSAGE_BYTES:
        return "messageExpression's message is longer than 5 KiB"
    if "\n" in text:
        return "messageExpression's message has a line break"
    return None


def _validations(
    ev: Evaluation, spec: Mapping[str, Any], by_field: Mapping[str, ExpressionExplanation]
) -> list[ValidationExplanation]:
    out: list[ValidationExplanation] = []
    validations = spec.get("validations")
    if not isinstance(validations, list):
        return out
    failures = {f.field: f for f in ev.failures}
    for i, v in enumerate(validations):
        v = v if isinstance(v, Mapping) else {}
        e = by_field.get(f"spec.validations[{i}].expression")
        failure = failures.get(f"spec.validations[{i}]")
        if e is None and failure is None:
            continue  # not evaluated (matchConditions excluded the request, or out of budget)
        outcome = "error" if (failure is not None and failure.error) else "fail" if failure else "pass"
        item = ValidationExplanation(i, outcome, e)
        if failure is not None:
            item.message = failure.message
            m = by_field.get(f"spec.validations[{i}].messageExpression")
            item.message_expression = m
            if failure.error:
                item.message_source = None
            elif (
                m is not None
                and m.error is None
                and isinstance(m.value, str)
                and m.value.strip() == failure.message
            ):
                item.message_source = "messageExpression"
            else:
                item.fallback_reason = _fallback_reason(m)
                item.message_source = (
                    "message" if str(v.get("message") or "").strip() == failure.message else "expression"
                )
            item.reason = str(v.get("reason") or "Invalid") if not failure.error else None
        out.append(item)
    return out


def explain_evaluation(
    ev: Evaluation, prepared: PreparedInputs, attrs: RequestAttrs
) -> EvaluationExplanation:
    mutating = bool(ev.mutations) or any(p.name == ev.policy for p in prepared.mutating)
    policies = prepared.mutating if mutating else prepared.validating
    policy = next((p for p in policies if p.name == ev.policy), None)
    out = EvaluationExplanation(ev.policy, ev.binding, ev.param, ev.matched, ev.why_not)
    spec: Mapping[str, Any] = policy.spec if policy is not None else {}
    out.scope.extend(_match_scope("matchConstraints", spec.get("matchConstraints"), attrs))
    binding_spec: Mapping[str, Any] = {}
    for name, bspec in prepared.bindings.get((mutating, ev.policy), []):
        if name == ev.binding:
            binding_spec = bspec
    if binding_spec:
        out.scope.extend(_match_scope("binding.matchResources", binding_spec.get("matchResources"), attrs))
        if isinstance(binding_spec.get("paramRef"), Mapping):
            found = ev.param or "none"
            out.scope.append(
                ("binding.paramRef", f"{compact(dict(binding_spec['paramRef']))} → params {found}")
            )
        if not mutating:
            actions = binding_spec.get("validationActions")
            out.scope.append(
                ("binding.validationActions", ", ".join(actions) if isinstance(actions, list) else "-")
            )
    out.scope.append(("failurePolicy", str(spec.get("failurePolicy") or "Fail")))
    if mutating:
        out.scope.append(("reinvocationPolicy", str(spec.get("reinvocationPolicy") or "Never")))
    by_field: dict[str, ExpressionExplanation] = {}
    for x in ev.expressions:
        if x.field not in by_field:  # a MAP reinvocation evaluates again: the first round is shown
            by_field[x.field] = _expression(x, ev)
    out.budgets = list(ev.budgets)
    out.cost = sum(b.spent for b in ev.budgets)
    out.match_conditions = [e for f, e in by_field.items() if f.startswith("spec.matchConditions[")]
    variables = spec.get("variables")
    if isinstance(variables, list):
        for i, v in enumerate(variables):
            name = str(v.get("name")) if isinstance(v, Mapping) else f"[{i}]"
            out.variables.append((name, by_field.get(f"spec.variables[{i}].expression")))
    out.validations = _validations(ev, spec, by_field)
    audits = spec.get("auditAnnotations")
    if isinstance(audits, list):
        for i, a in enumerate(audits):
            e = by_field.get(f"spec.auditAnnotations[{i}].valueExpression")
            if e is not None:
                out.audit_annotations.append((str(a.get("key")) if isinstance(a, Mapping) else "", e))
    for step in ev.mutations:
        expr = next((e for f, e in by_field.items() if f.startswith(step.field + ".")), None)
        out.mutations.append(
            (
                expr,
                {
                    "field": step.field,
                    "round": step.round,
                    "patch": step.patch,
                    "changed": step.changed,
                    "object": step.object,
                },
            )
        )
    return out


def explain_result(
    result: AdmissionResult, prepared: PreparedInputs, request: AdmissionRequestInput
) -> list[EvaluationExplanation]:
    """One explanation per evaluation of `result` (from `prepared.admit(request, explain=True)`)."""
    attrs = prepared.request_attributes(request)
    return [explain_evaluation(ev, prepared, attrs) for ev in result.evaluations]


# --- text -------------------------------------------------------------------------------------------


def _failure_lines(f: Failure, indent: str, whole: str = "") -> list[str]:
    """One failing sub-expression; the line naming it is left out when it is the whole
    expression (`whole`), already shown with its outcome above."""
    lines: list[str] = []
    for w in f.via:
        where = w.path or f"element {json.dumps(w.key)}"
        lines.append(f"{indent}{w.macro}() element {where} = {compact(w.value)}")
    inside = f" (in variables.{f.variable})" if f.variable else ""
    if f.via or f.variable or f.text.strip() != whole:
        lines.append(f"{indent}{f.text} → {f.outcome}{inside}")
    if f.note:
        lines.append(f"{indent}  {f.note}")
    for o in f.operands:
        if o.text and not _literal(o.text):
            lines.append(f"{indent}  {o.render()}")
    for w in f.witnesses:
        where = w.path or f"element {json.dumps(w.key)}"
        lines.append(f"{indent}  {w.macro}() selected {where} = {compact(w.value)}")
    return lines


def _literal(text: str) -> bool:
    t = text.strip()
    return bool(t) and (t[0] in "'\"" or t[0].isdigit() or t in ("true", "false", "null"))


def _expression_lines(e: ExpressionExplanation, label: str, indent: str) -> list[str]:
    lines = [f"{indent}{label}: {e.outcome}   {e.cost_text}", f"{indent}  {e.expression.strip()}"]
    for f in e.failures:
        lines.extend(_failure_lines(f, indent + "    ", e.expression.strip()))
    if e.skipped and e.failures:
        lines.append(f"{indent}  not evaluated: {'; '.join(s.strip() for s in e.skipped)}")
    return lines


def render_text(explanations: list[EvaluationExplanation], indent: str = "  ") -> list[str]:
    """The explanations as indented text lines (`run --explain`, `test --explain`)."""
    lines: list[str] = []
    for ex in explanations:
        who = (
            ex.policy
            + (f" / binding {ex.binding}" if ex.binding else "")
            + (f" / param {ex.param}" if ex.param else "")
        )
        lines.append(f"{indent}{who}: " + ("matched" if ex.matched else f"not matched ({ex.why_not})"))
        inner = indent + "  "
        for what, detail in ex.scope:
            lines.append(f"{inner}{what}: {detail}")
        for i, mc in enumerate(ex.match_conditions):
            lines.extend(_expression_lines(mc, f"matchConditions[{i}]", inner))
        for name, var in ex.variables:
            if var is None:
                if ex.matched:
                    lines.append(f"{inner}variables.{name}: not read")
            else:
                lines.append(f"{inner}variables.{name} = {var.outcome}   {var.cost_text}")
        for v in ex.validations:
            if v.expression is not None:
                lines.extend(_expression_lines(v.expression, f"validations[{v.index}] {v.outcome}", inner))
            else:
                lines.append(f"{inner}validations[{v.index}] {v.outcome}")
            if v.outcome == "pass":
                continue
            deeper = inner + "  "
            if v.message_expression is not None:
                lines.append(f"{deeper}messageExpression = {v.message_expression.outcome}")
            if v.fallback_reason:
                lines.append(f"{deeper}{v.fallback_reason}; the server falls back to the {v.message_source}")
            lines.append(f"{deeper}message: {v.message}" + (f" (reason {v.reason})" if v.reason else ""))
        for key, a in ex.audit_annotations:
            lines.append(f"{inner}auditAnnotations {key} = {a.outcome}   {a.cost_text}")
            for f in a.failures:
                lines.extend(_failure_lines(f, inner + "    "))
        for expr, step in ex.mutations:
            round_ = " (reinvocation)" if step["round"] else ""
            lines.append(
                f"{inner}{step['field']}{round_}: "
                + ("changed the object" if step["changed"] else "no change")
            )
            if expr is not None and expr.error is not None:
                lines.extend(_expression_lines(expr, "expression", inner + "  "))
            if step["patch"] is not None:
                lines.append(f"{inner}  patch: {compact(step['patch'], 100)}")
        if ex.matched or ex.budgets:
            lines.append(f"{inner}cost: {ex.cost}")
            lines.extend(f"{inner}  {budget_text(b)}" for b in ex.budgets)
    return lines


def budget_text(use: BudgetUse) -> str:
    """`validations and messageExpressions: 120 of 10,000,000 (9,999,880 left)`."""
    text = f"{use.name}: {use.spent:,} of {use.limit:,} ({use.left:,} left)"
    if use.exhausted:
        text += "; the next expression cost more than what was left: out of budget"
    return text
