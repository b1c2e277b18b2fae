"""A CustomResourceDefinition in a checked file as the API server answers its create: strict
decoding against the CustomResourceDefinition schema, then the create-time validation
(`model.crd_validation`), each error at its field."""

from __future__ import annotations

from collections.abc import Mapping

from vap_lsp.analysis.checks.check import Check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.crd_validation import validate_crd
from vap_lsp.analysis.model.object_context import Role
from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.policy.field_errors import ErrorType
from vap_lsp.schema.store import get_schema_set
from vap_lsp.schema.structure import STRUCTURAL_CODES, check_structure
from vap_lsp.text import LineIndex
from vap_lsp.yaml.model import ExpansionLimit


def check_crd_object(obj: K8sObject, lines: LineIndex, kubernetes_version: str) -> list[Diagnostic]:
    """Diagnostics for a CRD in a checked file: strict decoding against the
    CustomResourceDefinition schema (unknown fields, wrong types), then `validate_crd`."""
    group, _, version = obj.api_version.rpartition("/")
    schema_set = get_schema_set(kubernetes_version)
    definition = schema_set.definition_for_kind(group, version, obj.kind)
    diagnostics: list[Diagnostic] = []
    if definition is None:
        return diagnostics  # v1beta1: not served by any supported version; nothing typed from it either
    for issue in check_structure(obj.node, schema_set, definition):
        diagnostics.append(
            Diagnostic(issue.span, Severity.ERROR, issue.code, issue.message, field=issue.field)
        )
    try:
        data = object_data(obj.node)
    except ExpansionLimit as exc:
        diagnostics.append(Diagnostic(head_span(obj.node, lines), Severity.ERROR, "too-large", str(exc)))
        return diagnostics
    if not isinstance(data, Mapping):
        return diagnostics
    for crd_issue in validate_crd(data):
        error = crd_issue.error
        span = span_for_path(obj.node, error.path, lines, on_key=error.on_key)
        if crd_issue.server_error:
            diagnostics.append(
                Diagnostic(
                    span, Severity.ERROR, error.type.code, crd_issue.message(), field=crd_issue.field_text
                )
            )
        else:
            diagnostics.append(
                Diagnostic(
                    span,
                    Severity.INFORMATION,
                    "crd-not-served",
                    crd_issue.message(),
                    field=crd_issue.field_text,
                )
            )
    return diagnostics


CHECK = Check(
    "crd",
    (
        "too-large",
        "crd-not-served",
        *STRUCTURAL_CODES,
        *(
            e.code
            for e in (ErrorType.REQUIRED, ErrorType.INVALID, ErrorType.NOT_SUPPORTED, ErrorType.FORBIDDEN)
        ),
    ),
    Role.CRD,
    lambda ctx: check_crd_object(ctx.obj, ctx.lines, ctx.version) if ctx.lines is not None else [],
    "A CustomResourceDefinition as the server answers its create: strict decoding, then names, "
    "group, scope, versions and structural-schema rules.",
)
