"""Findings that need other files: a binding against the policy it names.

Both are advice the server cannot give at create time (a binding may legitimately be applied
before its policy), but at admission time they are certain failures, hence warnings. A binding
without `paramRef` is where `params` is null (`analysis.guarantees`): it is reported only when
its policy reads `params` without a null guard.
"""

from __future__ import annotations

from vap_lsp.analysis.checks.check import FileCheck, FileContext
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.helm import name_pattern
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.policy.kinds import PolicyKind

CODES = ("policy-not-found", "param-ref-missing")

_FAMILY = {"VAPB": "ValidatingAdmissionPolicy", "MAPB": "MutatingAdmissionPolicy"}


def check_references(uri: str, workspace: WorkspaceIndex) -> list[Diagnostic]:
    if not workspace.complete:
        return []
    diagnostics: list[Diagnostic] = []
    for binding in workspace.bindings_in(uri):
        policy_kind = WorkspaceIndex.policy_kind_of(binding.kind)
        kind_name = _FAMILY[binding.kind.name]
        policies = workspace.policies(policy_kind, binding.policy_name)
        if not policies and _templated_match(workspace, policy_kind, binding.policy_name):
            continue  # a chart's policy whose name is rendered from a template may be it
        if not policies:
            diagnostics.append(
                Diagnostic(
                    binding.span,
                    Severity.WARNING,
                    "policy-not-found",
                    f'spec.policyName: no {kind_name} named "{binding.policy_name}" in the workspace; '
                    "the binding has no effect until that policy exists",
                    field="spec.policyName",
                )
            )
        elif any(p.has_param_kind and p.params_unguarded for p in policies) and not binding.has_param_ref:
            # Without paramRef the server evaluates the policy with params null (CollectParams:
            # "Validate with nil params"): only reads of params without a guard fail.
            diagnostics.append(
                Diagnostic(
                    binding.span,
                    Severity.WARNING,
                    "param-ref-missing",
                    f'{kind_name} "{binding.policy_name}" declares spec.paramKind but this binding has no '
                    "spec.paramRef: params is null for every request it matches, and the policy reads "
                    "params without a null guard, so it fails to evaluate (failurePolicy decides the "
                    "outcome)",
                    field="spec.paramRef",
                )
            )
    return diagnostics


def _templated_match(workspace: WorkspaceIndex, kind: PolicyKind, name: str) -> bool:
    """Whether a policy whose name holds a template action (`replicas-{{ .Release.Name }}`), or the
    binding's own templated `policyName`, can be the one named: unknown until rendered."""
    if name_pattern(name) is not None:
        return True
    for policy in workspace.templated_policies(kind):
        pattern = name_pattern(policy.name)
        if pattern is not None and pattern.fullmatch(name):
            return True
    return False


def references(ctx: FileContext) -> list[Diagnostic]:
    if ctx.workspace is None or ctx.uri is None:
        return []
    return check_references(ctx.uri, ctx.workspace)


CHECK = FileCheck(
    "references",
    CODES,
    references,
    "A binding against the policy it names, across the workspace: a missing policy, a missing "
    "paramRef where the policy reads params without a guard.",
)
