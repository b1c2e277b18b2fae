"""Server-side defaulting of the four kinds, applied before validation on create/update.

Mirrors kubernetes/kubernetes `pkg/apis/admissionregistration/{v1,v1beta1,v1alpha1}/defaults.go`
and the generated `zz_generated.defaults.go` that calls them:

* `SetDefaults_ValidatingAdmissionPolicySpec` / `SetDefaults_MutatingAdmissionPolicySpec`:
  `failurePolicy` → `Fail`;
* `SetDefaults_MatchResources` (policy `matchConstraints`, binding `matchResources`):
  `matchPolicy` → `Equivalent`, `namespaceSelector`/`objectSelector` → `{}`;
* `SetDefaults_Rule` (every resource rule, included and excluded): `scope` → `*`;
* v1alpha1 only: `SetDefaults_ParamRef`: `parameterNotFoundAction` → `Deny`
  (v1beta1 and v1 do not default it).

MAP `reinvocationPolicy` is not defaulted. Only present mappings are defaulted (a nil pointer
stays nil) — except a policy's `spec`, a struct value in Go, which is defaulted even when absent
or null; values of the wrong type are left alone.
"""

from __future__ import annotations

import copy
from typing import Any

from vap_lsp.policy.kinds import PolicyKind


def _default_match_resources(mr: Any) -> None:
    if not isinstance(mr, dict):
        return
    if mr.get("matchPolicy") is None:
        mr["matchPolicy"] = "Equivalent"
    if mr.get("namespaceSelector") is None:
        mr["namespaceSelector"] = {}
    if mr.get("objectSelector") is None:
        mr["objectSelector"] = {}
    for key in ("resourceRules", "excludeResourceRules"):
        rules = mr.get(key)
        if not isinstance(rules, list):
            continue
        for rule in rules:
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"


def apply_defaults(kind: PolicyKind, api_version: str, obj: dict[str, Any]) -> dict[str, Any]:
    """A defaulted deep copy of `obj` (plain data as decoded from YAML/JSON)."""
    out = copy.deepcopy(obj)
    if not isinstance(out, dict):
        return out
    if out.get("spec") is None and kind in (PolicyKind.VAP, PolicyKind.MAP):
        # `Spec` is a struct value, not a pointer: the generated defaulter runs
        # SetDefaults_…PolicySpec on it even when the object has no (or a null) `spec`.
        out["spec"] = {}
    spec = out.get("spec")
    if not isinstance(spec, dict):
        return out
    if kind in (PolicyKind.VAP, PolicyKind.MAP):
        if spec.get("failurePolicy") is None:
            spec["failurePolicy"] = "Fail"
        _default_match_resources(spec.get("matchConstraints"))
    else:
        _default_match_resources(spec.get("matchResources"))
        param_ref = spec.get("paramRef")
        if (
            api_version.rpartition("/")[2] == "v1alpha1"
            and isinstance(param_ref, dict)
            and param_ref.get("parameterNotFoundAction") is None
        ):
            param_ref["parameterNotFoundAction"] = "Deny"
    return out
