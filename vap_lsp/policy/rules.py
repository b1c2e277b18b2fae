"""The API server's static validation of VAP, VAPB, MAP and MAPB on create.

Re-implements kubernetes/kubernetes `pkg/apis/admissionregistration/validation/validation.go`
(`ValidateValidatingAdmissionPolicy`, `ValidateValidatingAdmissionPolicyBinding`,
`ValidateMutatingAdmissionPolicy`, `ValidateMutatingAdmissionPolicyBinding`) plus the ObjectMeta
checks of `k8s.io/apimachinery/pkg/api/validation` (`ValidateObjectMeta`). CEL compilation is not
done here (a separate layer compiles expressions); everything else is, in the server's order.

The input is plain data after defaulting. Fields of the wrong type are skipped silently (the
structural layer reports them; the server would have failed to decode the object at all).

Version-dependent texts (`k8s_version` "1.N"):

* ≤1.33: bad values of named types / slices print with Go `%#v`; ≥1.34 as JSON
  (apimachinery v0.34 `ErrorBody`).
* ≤1.33: `name is not a valid CEL identifier`, `message must be non-empty if specified`,
  `message must not contain line breaks`; ≥1.34: `must be a valid CEL identifier`,
  `must be non-empty if specified`, `must not contain line breaks` (kubernetes PR #132513,
  "Remove field name from invalid field detail message", merged 2025-07 for 1.34 — inferred
  from the PR date, the 1.35 source has the new texts).
* ≤1.31: the binding's matchResources errors print as `spec.matchResouces` (typo in the 1.30/1.31
  source); fixed by 1.35 — assumed fixed from 1.32, when MAP validation (which spells it right)
  was added. Best inference, not verified against a 1.32 tag.
* ≥1.35: label key/value texts from apimachinery's `content` package (see names.py).
* ≤1.31: `metadata.annotations: Too long: must have at most 262144 bytes`; ≥1.32
  `may not be more than 262144 bytes`.
* ≥1.36: names ending in `.static.k8s.io` are reserved for static manifests (k8s.io/kubernetes
  `pkg/apis/admissionregistration/validation/static_suffix.go`), checked by the registry
  strategies (`pkg/registry/admissionregistration/*/strategy.go`), not by the validation the
  static manifest loader runs: with the `ManifestBasedAdmissionControlConfig` gate on, `Validate`
  appends `ValidateStaticSuffix`'s error after all the others; with it off, `WarningsOnCreate`
  warns (`WarningsForStaticSuffix`). The gate is alpha and off in 1.36 (v1.36.3: a warning),
  beta and on from 1.37 (v1.37.2, v1.38.0-beta.0: an error).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from vap_lsp.apimachinery.names import (
    is_cel_identifier,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_path_segment_name,
    is_qualified_name,
    name_is_dns_subdomain,
)
from vap_lsp.golang.strings import trim_space as go_trim_space
from vap_lsp.policy.field_errors import (
    ErrorType,
    FieldError,
    GoNamed,
    GoSlice,
    GoStructSlice,
    ValueStyle,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_many,
)
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.policy.labels import validate_label_selector, validate_labels
from vap_lsp.yaml.model import Path

LATEST_MINOR = 37

SUPPORTED_FAILURE_POLICIES = ("Fail", "Ignore")
SUPPORTED_MATCH_POLICIES = ("Equivalent", "Exact")
SUPPORTED_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
SUPPORTED_MUTATING_OPERATIONS = ("*", "CONNECT", "CREATE", "UPDATE")
SUPPORTED_SCOPES = ("*", "Cluster", "Namespaced")
SUPPORTED_VALIDATION_ACTIONS = ("Audit", "Deny", "Warn")
SUPPORTED_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge")
SUPPORTED_REINVOCATION_POLICIES = ("IfNeeded", "Never")
SUPPORTED_PATCH_TYPES = ("ApplyConfiguration", "JSONPatch")
PARAMETER_NOT_FOUND_ACTIONS = ("Deny", "Allow")  # a literal list in the source, not a set

MAX_MATCH_CONDITIONS = 64
MAX_AUDIT_ANNOTATIONS = 20
MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
STATIC_CONFIG_SUFFIX = ".static.k8s.io"
RESERVED_NAME_DETAIL = (
    f'names ending with "{STATIC_CONFIG_SUFFIX}" are reserved for static manifest-based configurations '
    "and cannot be managed via the API"
)

_NEWLINES = re.compile(r"[\n\r]+")


def parse_minor(k8s_version: str) -> int:
    """`"1.33"`, `"v1.33.2"` → 33; anything else → the newest minor known."""
    m = re.match(r"v?1\.(\d+)", k8s_version.strip()) if isinstance(k8s_version, str) else None
    return int(m.group(1)) if m else LATEST_MINOR


@dataclasses.dataclass(frozen=True)
class _Ctx:
    minor: int

    @property
    def new_texts(self) -> bool:
        return self.minor >= 34


def _str_list(value: Any) -> list[str] | None:
    """A list of strings, [] for null/missing, None when the value has the wrong type."""
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _opt_str(value: Any) -> str | None:
    """The string, "" for null/missing, None for the wrong type."""
    if value is None:
        return ""
    return value if isinstance(value, str) else None


def _dict_list(value: Any) -> list[Any] | None:
    if value is None:
        return []
    return value if isinstance(value, list) else None


# ---------------------------------------------------------------- ObjectMeta


def _validate_object_meta(obj: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """`ValidateObjectMeta(meta, false, NameIsDNSSubdomain, "metadata")`.

    On create the server generates `name` from `generateName` before validating; the generated
    suffix is random, so only `generateName` is checked here in that case.
    """
    errs: list[FieldError] = []
    meta = obj.get("metadata")
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return errs
    name = _opt_str(meta.get("name"))
    generate_name = _opt_str(meta.get("generateName"))
    if name is None or generate_name is None:
        return errs
    if generate_name:
        errs.extend(
            invalid(("metadata", "generateName"), generate_name, msg)
            for msg in name_is_dns_subdomain(generate_name, True)
        )
    if not name:
        if not generate_name:
            errs.append(required(("metadata", "name"), "name or generateName is required"))
    else:
        errs.extend(invalid(("metadata", "name"), name, msg) for msg in name_is_dns_subdomain(name, False))
    errs.extend(validate_labels(meta.get("labels"), ("metadata", "labels"), ctx.minor))
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        size = 0
        for key, value in annotations.items():
            if not isinstance(key, str):
                continue
            # QualifiedName, except that case does not matter.
            errs.extend(
                invalid(("metadata", "annotations"), key, msg)
                for msg in is_qualified_name(key.lower(), ctx.minor)
            )
            size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
        if size > TOTAL_ANNOTATION_SIZE_LIMIT:
            detail = (
                f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"
                if ctx.minor >= 32
                else f"must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"
            )
            errs.append(FieldError(ErrorType.TOO_LONG, ("metadata", "annotations"), "", detail, on_key=True))
    errs.extend(_validate_owner_references(meta.get("ownerReferences")))
    errs.extend(_validate_finalizers(meta.get("finalizers"), ctx))
    return errs


def _reserved_name(obj: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """The registry strategies' `ValidateStaticSuffix` (gate on, 1.37+) or `WarningsForStaticSuffix`
    (gate off, 1.36): see the module docstring."""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if ctx.minor < 36 or not isinstance(name, str) or not name.endswith(STATIC_CONFIG_SUFFIX):
        return []
    error = invalid(("metadata", "name"), name, RESERVED_NAME_DETAIL)
    if ctx.minor >= 37:
        return [error]
    return [dataclasses.replace(error, server_error=False, warning=f"metadata.name: {RESERVED_NAME_DETAIL}")]


def _validate_owner_references(refs: Any) -> list[FieldError]:
    """apimachinery `ValidateOwnerReferences` / `validateOwnerReference` (objectmeta.go): each
    reference needs apiVersion (`<group>/<version>` or `<version>`), kind, name and uid. (The
    banned owner kind and the several-controllers check print Go structs and are not reported.)"""
    errs: list[FieldError] = []
    if not isinstance(refs, list):
        return errs
    for i, ref in enumerate(refs):
        if not isinstance(ref, dict):
            continue
        path = ("metadata", "ownerReferences", i)
        api_version = _opt_str(ref.get("apiVersion"))
        if api_version == "":
            errs.append(required((*path, "apiVersion"), "must not be empty"))
        elif api_version is not None:
            # schema.ParseGroupVersion: at most one "/", and a version after it.
            _group, slash, version = api_version.partition("/")
            if api_version.count("/") > 1 or (slash and not version):
                errs.append(
                    invalid((*path, "apiVersion"), api_version, "must be <group>/<version> or <version>")
                )
        for key in ("kind", "name", "uid"):
            if _opt_str(ref.get(key)) == "":
                errs.append(required((*path, key), "must not be empty"))
    return errs


def _validate_finalizers(finalizers: Any, ctx: _Ctx) -> list[FieldError]:
    """apimachinery `ValidateFinalizers`: every name a qualified name (`ValidateFinalizerName`).
    (Both orphan and foregroundDeletion set is reported with a Go slice: not reported.)"""
    names = _str_list(finalizers)
    return [
        invalid(("metadata", "finalizers"), name, msg)
        for name in names or []
        for msg in is_qualified_name(name, ctx.minor)
    ]


def _effective_name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return ""
    name = meta.get("name")
    if isinstance(name, str) and name:
        return name
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        return generate_name + "xxxxx"  # stands in for the random suffix
    return ""


# ---------------------------------------------------------------- shared pieces


def _validate_param_kind(pk: dict[str, Any], path: Path) -> list[FieldError]:
    """`validateParamKind`."""
    errs: list[FieldError] = []
    api_version = _opt_str(pk.get("apiVersion"))
    kind = _opt_str(pk.get("kind"))
    av_path = (*path, "apiVersion")
    if api_version is None:
        pass
    elif not api_version:
        errs.append(required(av_path))
    elif api_version.count("/") > 1:
        errs.append(invalid(av_path, api_version, f"unexpected GroupVersion string: {api_version}"))
    else:
        if api_version == "/":
            group, version = "", ""
        elif "/" in api_version:
            group, _, version = api_version.partition("/")
        else:
            group, version = "", api_version
        if group:
            msgs = is_dns1123_subdomain(group)
            if msgs:
                errs.append(invalid(av_path, group, ",".join(msgs)))
        if not version:
            errs.append(invalid(av_path, api_version, "version must be specified"))
        else:
            msgs = is_dns1035_label(version)
            if msgs:
                errs.append(invalid(av_path, version, ",".join(msgs)))
    if kind is None:
        pass
    elif not kind:
        errs.append(required((*path, "kind")))
    else:
        msgs = is_dns1035_label(kind.lower())
        if msgs:
            errs.append(
                invalid(
                    (*path, "kind"),
                    kind,
                    "may have mixed case, but should otherwise match: " + ",".join(msgs),
                )
            )
    return errs


def _validate_resources(resources: list[str], path: Path) -> list[FieldError]:
    """`validateResources` (subresources allowed), including its quirk that only the last
    plain entry decides whether a resource without subresource accompanies `*`."""
    errs: list[FieldError] = []
    if not resources:
        errs.append(required(path))
    with_wildcard_sub: set[str] = set()  # x/*
    sub_with_wildcard_res: set[str] = set()  # */x
    has_double_wildcard = False
    has_single_wildcard = False
    has_plain = False
    for i, res_sub in enumerate(resources):
        if res_sub == "":
            errs.append(required((*path, i)))
            continue
        if res_sub == "*/*":
            has_double_wildcard = True
        if res_sub == "*":
            has_single_wildcard = True
        if "/" not in res_sub:
            has_plain = res_sub != "*"
            continue
        res, _, sub = res_sub.partition("/")
        if res in with_wildcard_sub:
            errs.append(invalid((*path, i), res_sub, f"if '{res}/*' is present, must not specify {res_sub}"))
        if sub in sub_with_wildcard_res:
            errs.append(invalid((*path, i), res_sub, f"if '*/{sub}' is present, must not specify {res_sub}"))
        if sub == "*":
            with_wildcard_sub.add(res)
        if res == "*":
            sub_with_wildcard_res.add(sub)
    value = GoSlice("string", tuple(resources))
    if len(resources) > 1 and has_double_wildcard:
        errs.append(invalid(path, value, "if '*/*' is present, must not specify other resources"))
    if has_single_wildcard and has_plain:
        errs.append(
            invalid(path, value, "if '*' is present, must not specify other resources without subresources")
        )
    return errs


def _validate_rule_with_operations(rule: dict[str, Any], path: Path) -> list[FieldError]:
    """`validateRuleWithOperations` + `validateRule(allowSubResource=true)`."""
    errs: list[FieldError] = []
    operations = _str_list(rule.get("operations"))
    if operations is not None:
        if not operations:
            errs.append(required((*path, "operations")))
        if len(operations) > 1 and "*" in operations:
            errs.append(
                invalid(
                    (*path, "operations"),
                    GoSlice("admissionregistration.OperationType", tuple(operations)),
                    "if '*' is present, must not specify other operations",
                )
            )
        for i, op in enumerate(operations):
            if op not in SUPPORTED_OPERATIONS:
                errs.append(not_supported((*path, "operations", i), GoNamed(op), SUPPORTED_OPERATIONS))
    groups = _str_list(rule.get("apiGroups"))
    if groups is not None:
        if not groups:
            errs.append(required((*path, "apiGroups")))
        if len(groups) > 1 and "*" in groups:
            errs.append(
                invalid(
                    (*path, "apiGroups"),
                    GoSlice("string", tuple(groups)),
                    "if '*' is present, must not specify other API groups",
                )
            )
    versions = _str_list(rule.get("apiVersions"))
    if versions is not None:
        if not versions:
            errs.append(required((*path, "apiVersions")))
        if len(versions) > 1 and "*" in versions:
            errs.append(
                invalid(
                    (*path, "apiVersions"),
                    GoSlice("string", tuple(versions)),
                    "if '*' is present, must not specify other API versions",
                )
            )
        for i, version in enumerate(versions):
            if version == "":
                errs.append(required((*path, "apiVersions", i)))
    resources = _str_list(rule.get("resources"))
    if resources is not None:
        errs.extend(_validate_resources(resources, (*path, "resources")))
    scope = rule.get("scope")
    if isinstance(scope, str) and scope not in SUPPORTED_SCOPES:
        errs.append(not_supported((*path, "scope"), GoNamed(scope), SUPPORTED_SCOPES))
    return errs


def _validate_named_rule(rule: Any, path: Path) -> list[FieldError]:
    """`validateNamedRuleWithOperations`."""
    errs: list[FieldError] = []
    if not isinstance(rule, dict):
        return errs
    names = _str_list(rule.get("resourceNames"))
    seen: set[str] = set()
    for i, name in enumerate(names or []):
        errs.extend(invalid((*path, "resourceNames", i), name, msg) for msg in is_path_segment_name(name))
        if name in seen:
            errs.append(duplicate((*path, "resourceNames", i), name))
        else:
            seen.add(name)
    errs.extend(_validate_rule_with_operations(rule, path))
    return errs


def _validate_match_resources(
    mr: dict[str, Any], path: Path, ctx: _Ctx, rendered: Path | None = None
) -> list[FieldError]:
    """`validateMatchResources`."""
    errs: list[FieldError] = []
    policy = mr.get("matchPolicy")
    if policy is None:
        errs.append(required((*path, "matchPolicy")))
    elif isinstance(policy, str) and policy not in SUPPORTED_MATCH_POLICIES:
        errs.append(not_supported((*path, "matchPolicy"), GoNamed(policy), SUPPORTED_MATCH_POLICIES))
    for key in ("namespaceSelector", "objectSelector"):
        selector = mr.get(key)
        if selector is None:
            errs.append(required((*path, key)))
        else:
            errs.extend(validate_label_selector(selector, (*path, key), ctx.minor))
    for key in ("resourceRules", "excludeResourceRules"):
        rules = _dict_list(mr.get(key))
        for i, rule in enumerate(rules or []):
            errs.extend(_validate_named_rule(rule, (*path, key, i)))
    if rendered is not None:
        n = len(path)
        errs = [dataclasses.replace(e, rendered_path=(*rendered, *e.path[n:])) for e in errs]
    return errs


def _validate_mutating_operations(mr: dict[str, Any], path: Path) -> list[FieldError]:
    """MAP/MAPB: only CREATE/UPDATE/CONNECT can be mutated; the server's path has no index."""
    errs: list[FieldError] = []
    for rule in _dict_list(mr.get("resourceRules")) or []:
        if not isinstance(rule, dict):
            continue
        for op in _str_list(rule.get("operations")) or []:
            if op not in SUPPORTED_MUTATING_OPERATIONS:
                errs.append(
                    not_supported(
                        (*path, "resourceRules", "operations"), GoNamed(op), SUPPORTED_MUTATING_OPERATIONS
                    )
                )
    return errs


def _validate_match_constraints(
    spec: dict[str, Any], path: Path, ctx: _Ctx, mutating: bool
) -> list[FieldError]:
    errs: list[FieldError] = []
    mc = spec.get("matchConstraints")
    mc_path = (*path, "matchConstraints")
    if mc is None:
        errs.append(required(mc_path))
        return errs
    if not isinstance(mc, dict):
        return errs
    errs.extend(_validate_match_resources(mc, mc_path, ctx))
    rules = _dict_list(mc.get("resourceRules"))
    if rules is not None and not rules:
        # at least one resourceRule must be defined to provide type information
        errs.append(required((*mc_path, "resourceRules")))
    if mutating:
        errs.extend(_validate_mutating_operations(mc, mc_path))
    return errs


def _validate_failure_policy(spec: dict[str, Any], path: Path) -> list[FieldError]:
    fp = spec.get("failurePolicy")
    if fp is None:
        return [required((*path, "failurePolicy"))]
    if isinstance(fp, str) and fp not in SUPPORTED_FAILURE_POLICIES:
        return [not_supported((*path, "failurePolicy"), GoNamed(fp), SUPPORTED_FAILURE_POLICIES)]
    return []


def _validate_match_conditions(spec: dict[str, Any], path: Path, ctx: _Ctx) -> list[FieldError]:
    """`validateMatchConditions` (without expression compilation)."""
    errs: list[FieldError] = []
    conditions = _dict_list(spec.get("matchConditions"))
    if conditions is None:
        return errs
    mc_path = (*path, "matchConditions")
    if len(conditions) > MAX_MATCH_CONDITIONS:
        errs.append(too_many(mc_path, len(conditions), MAX_MATCH_CONDITIONS))
    seen: set[str] = set()
    for i, cond in enumerate(conditions):
        if not isinstance(cond, dict):
            continue
        expression = _opt_str(cond.get("expression"))
        name = _opt_str(cond.get("name"))
        if expression is not None and not go_trim_space(expression):
            errs.append(required((*mc_path, i, "expression")))
        if name is not None:
            if not name:
                errs.append(required((*mc_path, i, "name")))
            else:
                errs.extend(
                    invalid((*mc_path, i, "name"), name, msg) for msg in is_qualified_name(name, ctx.minor)
                )
        if name:
            if name in seen:
                errs.append(duplicate((*mc_path, i, "name"), name))
            else:
                seen.add(name)
    return errs


def _validate_variables(spec: dict[str, Any], path: Path, ctx: _Ctx) -> list[FieldError]:
    """`validateVariable` for each variable, plus a duplicate-name check the server lacks."""
    errs: list[FieldError] = []
    variables = _dict_list(spec.get("variables"))
    seen: set[str] = set()
    for i, var in enumerate(variables or []):
        if not isinstance(var, dict):
            continue
        v_path = (*path, "variables", i)
        name = _opt_str(var.get("name"))
        expression = _opt_str(var.get("expression"))
        if name is not None:
            if not go_trim_space(name):
                errs.append(required((*v_path, "name"), "name is not specified"))
            elif not is_cel_identifier(name):
                detail = (
                    "must be a valid CEL identifier"
                    if ctx.new_texts
                    else "name is not a valid CEL identifier"
                )
                errs.append(invalid((*v_path, "name"), name, detail))
        if expression is not None and not go_trim_space(expression):
            errs.append(required((*v_path, "expression"), "expression is not specified"))
        if name:
            if name in seen:
                # The API declares variables as a map list keyed by name, but validation.go has no
                # uniqueness check; the later entry silently wins. Not a server error.
                errs.append(duplicate((*v_path, "name"), name, server_error=False))
            else:
                seen.add(name)
    return errs


def _validate_validation(v: Any, path: Path, ctx: _Ctx) -> list[FieldError]:
    """`validateValidation` (without compilation)."""
    errs: list[FieldError] = []
    if not isinstance(v, dict):
        return errs
    expression = _opt_str(v.get("expression"))
    message = _opt_str(v.get("message"))
    message_expression = _opt_str(v.get("messageExpression"))
    if expression is not None and not go_trim_space(expression):
        errs.append(required((*path, "expression"), "expression is not specified"))
    if message_expression and not go_trim_space(message_expression):
        errs.append(
            invalid((*path, "messageExpression"), message_expression, "must be non-empty if specified")
        )
    if message is not None:
        trimmed = go_trim_space(message)
        if message and not trimmed:
            detail = (
                "must be non-empty if specified"
                if ctx.new_texts
                else "message must be non-empty if specified"
            )
            errs.append(invalid((*path, "message"), message, detail))
        elif _NEWLINES.search(trimmed):
            detail = (
                "must not contain line breaks" if ctx.new_texts else "message must not contain line breaks"
            )
            errs.append(invalid((*path, "message"), message, detail))
    reason = v.get("reason")
    if isinstance(reason, str) and reason not in SUPPORTED_REASONS:
        errs.append(not_supported((*path, "reason"), GoNamed(reason), SUPPORTED_REASONS))
    return errs


def _validate_audit_annotation(
    a: dict[str, Any], policy_name: str, path: Path, ctx: _Ctx
) -> list[FieldError]:
    """`validateAuditAnnotation` (without compilation)."""
    errs: list[FieldError] = []
    key = _opt_str(a.get("key"))
    if key is not None:
        if policy_name:
            full = policy_name + "/" + key
            errs.extend(invalid((*path, "key"), full, msg) for msg in is_qualified_name(full, ctx.minor))
        else:
            errs.append(invalid((*path, "key"), key, "requires metadata.name be non-empty"))
    value_expression = _opt_str(a.get("valueExpression"))
    if value_expression is not None:
        trimmed = go_trim_space(value_expression)
        if not trimmed:
            errs.append(required((*path, "valueExpression"), "valueExpression is not specified"))
        elif len(trimmed.encode()) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH:
            # Required, not TooLong: that is what the server returns.
            errs.append(
                required(
                    (*path, "valueExpression"),
                    f"must not exceed {MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length",
                    on_key=False,
                )
            )
    return errs


def _audit_annotations_value(items: list[Any]) -> GoStructSlice:
    rows = []
    for a in items:
        a = a if isinstance(a, dict) else {}
        key = a.get("key")
        ve = a.get("valueExpression")
        rows.append((key if isinstance(key, str) else "", ve if isinstance(ve, str) else ""))
    return GoStructSlice("admissionregistration.AuditAnnotation", ("Key", "ValueExpression"), tuple(rows))


def _validate_param_ref(pr: Any, path: Path, ctx: _Ctx) -> list[FieldError]:
    """`validateParamRef`."""
    errs: list[FieldError] = []
    if not isinstance(pr, dict):
        return errs
    name = _opt_str(pr.get("name"))
    if name is None:
        return errs
    selector = pr.get("selector")
    if name:
        errs.extend(invalid((*path, "name"), name, msg) for msg in is_path_segment_name(name))
        if selector is not None:
            errs.append(forbidden((*path, "name"), "name and selector are mutually exclusive"))
    if selector is not None:
        errs.extend(validate_label_selector(selector, (*path, "selector"), ctx.minor))
        if name:
            errs.append(forbidden((*path, "selector"), "name and selector are mutually exclusive"))
    if not name and selector is None:
        errs.append(required(path, "one of name or selector must be specified"))
    action = pr.get("parameterNotFoundAction")
    if action is None or action == "":
        errs.append(required((*path, "parameterNotFoundAction")))
    elif isinstance(action, str) and action not in PARAMETER_NOT_FOUND_ACTIONS:
        errs.append(
            not_supported((*path, "parameterNotFoundAction"), GoNamed(action), PARAMETER_NOT_FOUND_ACTIONS)
        )
    return errs


def _validate_policy_name(spec: dict[str, Any], path: Path) -> list[FieldError]:
    name = _opt_str(spec.get("policyName"))
    if name is None:
        return []
    if not name:
        return [required((*path, "policyName"))]
    return [invalid((*path, "policyName"), name, msg) for msg in name_is_dns_subdomain(name, False)]


def _validate_validation_actions(spec: dict[str, Any], path: Path, ctx: _Ctx) -> list[FieldError]:
    """`validateValidationActions`."""
    errs: list[FieldError] = []
    actions = _str_list(spec.get("validationActions"))
    if actions is None:
        return errs
    va_path = (*path, "validationActions")
    seen: set[str] = set()
    for i, action in enumerate(actions):
        if action not in SUPPORTED_VALIDATION_ACTIONS:
            errs.append(not_supported((*va_path, i), GoNamed(action), SUPPORTED_VALIDATION_ACTIONS))
        if action in seen:
            errs.append(duplicate((*va_path, i), GoNamed(action)))
        seen.add(action)
    if "Deny" in seen and "Warn" in seen:
        errs.append(
            invalid(
                va_path,
                GoSlice("admissionregistration.ValidationAction", tuple(actions)),
                "must not contain both Deny and Warn (repeating the same validation failure "
                "information in the API response and headers serves no purpose)",
            )
        )
    if not seen:
        # From 1.37 the declarative validation of the field answers (the handwritten error is
        # `MarkCoveredByDeclarative`): `Required value` without the handwritten detail.
        errs.append(
            required(va_path, "" if ctx.minor >= 37 else "at least one validation action is required")
        )
    return errs


def _validate_mutation(m: Any, path: Path) -> list[FieldError]:
    """`validateMutation` (without compilation)."""
    errs: list[FieldError] = []
    if not isinstance(m, dict):
        return errs
    patch_type = _opt_str(m.get("patchType"))
    if patch_type is None:
        return errs
    json_patch = m.get("jsonPatch")
    apply_config = m.get("applyConfiguration")

    def expression_required(block: Any, block_path: Path) -> list[FieldError]:
        if not isinstance(block, dict):
            return []
        expr = _opt_str(block.get("expression"))
        if expr is not None and not go_trim_space(expr):
            return [required((*block_path, "expression"))]
        return []

    if not patch_type:
        errs.append(required((*path, "patchType")))
    elif patch_type == "JSONPatch":
        if json_patch is None:
            errs.append(required((*path, "jsonPatch"), "must be specified when patchType is JSONPatch"))
        else:
            errs.extend(expression_required(json_patch, (*path, "jsonPatch")))
        if apply_config is not None:
            errs.append(
                invalid(
                    (*path, "applyConfiguration"),
                    "{applyConfiguration}",
                    "must not be specified when patchType is JSONPatch",
                    on_key=True,
                )
            )
    elif patch_type == "ApplyConfiguration":
        if apply_config is None:
            errs.append(
                required(
                    (*path, "applyConfiguration"), "must be specified when patchType is ApplyConfiguration"
                )
            )
        else:
            errs.extend(expression_required(apply_config, (*path, "applyConfiguration")))
        if json_patch is not None:
            errs.append(
                invalid(
                    (*path, "jsonPatch"),
                    "{jsonPatch}",
                    "must not be specified when patchType is ApplyConfiguration",
                    on_key=True,
                )
            )
    else:
        errs.append(not_supported((*path, "patchType"), GoNamed(patch_type), SUPPORTED_PATCH_TYPES))
    return errs


# ---------------------------------------------------------------- the four kinds


def _validate_vap_spec(obj: dict[str, Any], spec: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """`validateValidatingAdmissionPolicySpec`."""
    path: Path = ("spec",)
    errs = _validate_failure_policy(spec, path)
    pk = spec.get("paramKind")
    if isinstance(pk, dict):
        errs.extend(_validate_param_kind(pk, (*path, "paramKind")))
    errs.extend(_validate_match_constraints(spec, path, ctx, mutating=False))
    errs.extend(_validate_match_conditions(spec, path, ctx))
    errs.extend(_validate_variables(spec, path, ctx))
    validations = _dict_list(spec.get("validations"))
    audit_annotations = _dict_list(spec.get("auditAnnotations"))
    if validations is None or audit_annotations is None:
        # wrong type: only validate the well-typed list
        for i, v in enumerate(validations or []):
            errs.extend(_validate_validation(v, (*path, "validations", i), ctx))
        return errs
    if not validations and not audit_annotations:
        detail = "validations or auditAnnotations must contain at least one item"
        errs.append(required((*path, "validations"), detail))
        errs.append(required((*path, "auditAnnotations"), detail))
        return errs
    for i, v in enumerate(validations):
        errs.extend(_validate_validation(v, (*path, "validations", i), ctx))
    if audit_annotations:
        aa_path = (*path, "auditAnnotations")
        if len(audit_annotations) > MAX_AUDIT_ANNOTATIONS:
            errs.append(
                invalid(
                    aa_path,
                    _audit_annotations_value(audit_annotations),
                    f"must not have more than {MAX_AUDIT_ANNOTATIONS} auditAnnotations",
                    on_key=True,
                )
            )
        policy_name = _effective_name(obj)
        keys: set[str] = set()
        for i, a in enumerate(audit_annotations):
            if not isinstance(a, dict):
                continue
            errs.extend(_validate_audit_annotation(a, policy_name, (*aa_path, i), ctx))
            key = a.get("key")
            key = key if isinstance(key, str) else ""
            if key in keys:
                errs.append(duplicate((*aa_path, i, "key"), key))
            keys.add(key)
    return errs


def _validate_vapb_spec(spec: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """`validateValidatingAdmissionPolicyBindingSpec`."""
    path: Path = ("spec",)
    errs = _validate_policy_name(spec, path)
    errs.extend(_validate_param_ref(spec.get("paramRef"), (*path, "paramRef"), ctx))
    mr = spec.get("matchResources")
    if isinstance(mr, dict):
        rendered = ("spec", "matchResouces") if ctx.minor <= 31 else None
        errs.extend(_validate_match_resources(mr, (*path, "matchResources"), ctx, rendered))
    errs.extend(_validate_validation_actions(spec, path, ctx))
    return errs


def _validate_map_spec(spec: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """`validateMutatingAdmissionPolicySpec`."""
    path: Path = ("spec",)
    errs = _validate_failure_policy(spec, path)
    pk = spec.get("paramKind")
    if isinstance(pk, dict):
        errs.extend(_validate_param_kind(pk, (*path, "paramKind")))
    errs.extend(_validate_match_constraints(spec, path, ctx, mutating=True))
    errs.extend(_validate_match_conditions(spec, path, ctx))
    errs.extend(_validate_variables(spec, path, ctx))
    mutations = _dict_list(spec.get("mutations"))
    if mutations is not None:
        if not mutations:
            errs.append(required((*path, "mutations"), "mutations must contain at least one item"))
        for i, m in enumerate(mutations):
            errs.extend(_validate_mutation(m, (*path, "mutations", i)))
    policy = _opt_str(spec.get("reinvocationPolicy"))
    if policy is not None:
        if not policy:
            errs.append(required((*path, "reinvocationPolicy")))
        elif policy not in SUPPORTED_REINVOCATION_POLICIES:
            errs.append(
                not_supported((*path, "reinvocationPolicy"), GoNamed(policy), SUPPORTED_REINVOCATION_POLICIES)
            )
    return errs


def _validate_mapb_spec(spec: dict[str, Any], ctx: _Ctx) -> list[FieldError]:
    """`validateMutatingAdmissionPolicyBindingSpec`."""
    path: Path = ("spec",)
    errs = _validate_policy_name(spec, path)
    errs.extend(_validate_param_ref(spec.get("paramRef"), (*path, "paramRef"), ctx))
    mr = spec.get("matchResources")
    if isinstance(mr, dict):
        errs.extend(_validate_match_resources(mr, (*path, "matchResources"), ctx))
        errs.extend(_validate_mutating_operations(mr, (*path, "matchResources")))
    return errs


def validate(kind: PolicyKind, api_version: str, obj: dict[str, Any], k8s_version: str) -> list[FieldError]:
    """Errors the API server returns when creating `obj` (already defaulted), in its order.

    Identical messages are reported once, as `ErrorList.ToAggregate` does.
    """
    if not isinstance(obj, dict):
        return []
    ctx = _Ctx(parse_minor(k8s_version))
    errs = _validate_object_meta(obj, ctx)
    spec = obj.get("spec")
    if spec is None:
        spec = {}
    if isinstance(spec, dict):
        if kind is PolicyKind.VAP:
            errs.extend(_validate_vap_spec(obj, spec, ctx))
        elif kind is PolicyKind.VAPB:
            errs.extend(_validate_vapb_spec(spec, ctx))
        elif kind is PolicyKind.MAP:
            errs.extend(_validate_map_spec(spec, ctx))
        else:
            errs.extend(_validate_mapb_spec(spec, ctx))
    errs.extend(_reserved_name(obj, ctx))
    style = ValueStyle.JSON if ctx.minor >= 34 else ValueStyle.GO_SYNTAX
    out: list[FieldError] = []
    seen: set[str] = set()
    for e in errs:
        e = dataclasses.replace(e, value_style=style)
        msg = e.message()
        if msg in seen:
            continue
        seen.add(msg)
        out.append(e)
    return out
