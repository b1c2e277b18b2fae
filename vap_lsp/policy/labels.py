"""Label and label-selector validation (apimachinery `pkg/apis/meta/v1/validation/validation.go`).

Admission policies validate selectors strictly: `ValidateLabelSelector` with empty
`LabelSelectorValidationOptions` (no invalid label values, no unknown operators).
Values of the wrong type are skipped: the structural layer reports them.
"""

from __future__ import annotations

from typing import Any

from vap_lsp.apimachinery.names import is_qualified_name, is_valid_label_value
from vap_lsp.policy.field_errors import FieldError, GoNamed, forbidden, invalid, required
from vap_lsp.yaml.model import Path


def validate_label_name(name: str, path: Path, minor: int) -> list[FieldError]:
    """`ValidateLabelName`: one Invalid per message of IsQualifiedName."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name, minor)]


def validate_labels(labels: Any, path: Path, minor: int) -> list[FieldError]:
    """`ValidateLabels`: errors sit on the map itself (the server's path has no key)."""
    errs: list[FieldError] = []
    if not isinstance(labels, dict):
        return errs
    for key, value in labels.items():
        if isinstance(key, str):
            errs.extend(validate_label_name(key, path, minor))
        if isinstance(value, str):
            errs.extend(invalid(path, value, msg) for msg in is_valid_label_value(value, minor))
    return errs


def validate_label_selector_requirement(req: Any, path: Path, minor: int) -> list[FieldError]:
    """`ValidateLabelSelectorRequirement` with strict options."""
    errs: list[FieldError] = []
    if not isinstance(req, dict):
        return errs
    operator = req.get("operator")
    values = req.get("values")
    key = req.get("key")
    if operator is None:
        operator = ""
    if values is not None and not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
        return errs  # wrong type: reported structurally
    if not isinstance(operator, str) or (key is not None and not isinstance(key, str)):
        return errs
    n_values = len(values) if values else 0
    if operator in ("In", "NotIn"):
        if n_values == 0:
            errs.append(required((*path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if n_values > 0:
            errs.append(
                forbidden(
                    (*path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            )
    else:
        errs.append(invalid((*path, "operator"), GoNamed(operator), "not a valid selector operator"))
    errs.extend(validate_label_name(key or "", (*path, "key"), minor))
    for i, value in enumerate(values or []):
        errs.extend(invalid((*path, "values", i), value, msg) for msg in is_valid_label_value(value, minor))
    return errs


def validate_label_selector(selector: Any, path: Path, minor: int) -> list[FieldError]:
    """`ValidateLabelSelector(ps, LabelSelectorValidationOptions{}, path)`."""
    errs: list[FieldError] = []
    if not isinstance(selector, dict):
        return errs
    errs.extend(validate_labels(selector.get("matchLabels"), (*path, "matchLabels"), minor))
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        for i, req in enumerate(expressions):
            errs.extend(validate_label_selector_requirement(req, (*path, "matchExpressions", i), minor))
    return errs
