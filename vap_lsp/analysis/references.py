"""Findings that need other files: a binding against the policy it names.

Both are advice the server cannot give at create time (a binding may legitimately be applied
before its policy), but at admission time they are certain failures, hence warnings.
"""

from __future__ import annotations

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.workspace import WorkspaceIndex

_FAMILY = {"VAPB": "ValidatingAdmissionPolicy", "MAPB": "MutatingAdmissionPolicy"}


def check_references(uri: str, workspace: WorkspaceIndex) -> list[Diagnostic]:
    if not workspace.complete:
        return []
    diagnostics: list[Diagnostic] = []
    for binding in workspace.bindings_in(uri):
        policy_kind = WorkspaceIndex.policy_kind_of(binding.kind)
        kind_name = _FAMILY[binding.kind.name]
        policies = workspace.policies(policy_kind, binding.policy_name)
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
        elif any(p.has_param_kind for p in policies) and not binding.has_param_ref:
            diagnostics.append(
                Diagnostic(
                    binding.span,
                    Severity.WARNING,
                    "param-ref-missing",
                    f'{kind_name} "{binding.policy_name}" declares spec.paramKind but this binding has no '
                    "spec.paramRef: every request it matches fails to evaluate "
                    "(failurePolicy decides the outcome)",
                    field="spec.paramRef",
                )
            )
    return diagnostics
