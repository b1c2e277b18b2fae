"""What the API server says on create/update of one of the four policy kinds.

Order mirrors the server: the version that serves the apiVersion, decode strictly against the
schema (unknown and duplicate fields, wrong types), apply defaults, then run the
admissionregistration validation rules. The CEL of the policy is checked by the rows after this
one, over the same context.
"""

from __future__ import annotations

from collections.abc import Iterable

from vap_lsp.analysis.checks.check import Check
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.model.object_context import ObjectContext, Role
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.analysis.model.served import ServedSchema
from vap_lsp.policy.field_errors import ErrorType
from vap_lsp.policy.kinds import POLICY_GROUP, PolicyKind
from vap_lsp.policy.rules import validate
from vap_lsp.schema.structure import STRUCTURAL_CODES, check_structure
from vap_lsp.text import LineIndex


def _range_text(versions: list[str]) -> str:
    if len(versions) == 1:
        return versions[0]
    return f"{versions[0]}–{versions[-1]}"


def check_policy_object(ctx: ObjectContext) -> Iterable[Diagnostic]:
    """The server's verdict on create of one policy object."""
    assert ctx.recognised is not None and ctx.lines is not None
    obj, lines, kubernetes_version = ctx.obj, ctx.lines, ctx.version
    kind, version = ctx.recognised
    diagnostics: list[Diagnostic] = []
    served, serving = ctx.served, ctx.serving
    api_version_node = obj.node.get("apiVersion")
    if served.version != kubernetes_version:
        span = api_version_node.span if api_version_node is not None else head_span(obj.node, lines)
        diagnostics.append(
            Diagnostic(
                span,
                Severity.ERROR,
                "not-served",
                f'no matches for kind "{obj.kind}" in version "{obj.api_version}": '
                f"Kubernetes {kubernetes_version} does not serve it (served by {_range_text(serving)}); "
                f"checked against the {served.version} schema",
                field="apiVersion",
            )
        )

    else:
        diagnostics.extend(_off_by_default(obj, kind, version, served, lines))

    definition = served.schema_set.definition_for_kind(POLICY_GROUP, version, obj.kind)
    if definition is not None:
        for issue in check_structure(obj.node, served.schema_set, definition):
            diagnostics.append(
                Diagnostic(issue.span, Severity.ERROR, issue.code, issue.message, field=issue.field)
            )

    if ctx.too_large is not None:
        diagnostics.append(
            Diagnostic(head_span(obj.node, lines), Severity.ERROR, "too-large", str(ctx.too_large))
        )
        return diagnostics
    defaulted = ctx.defaulted
    if defaulted is None:
        return diagnostics
    diagnostics.extend(_namespace_ignored(ctx, lines))
    for error in validate(kind, version, defaulted, served.version):
        span = span_for_path(obj.node, error.path, lines, on_key=error.on_key)
        severity = Severity.ERROR if error.server_error else Severity.WARNING
        diagnostics.append(
            Diagnostic(span, severity, error.type.code, error.message(), field=error.field or None)
        )
    return diagnostics


def _namespace_ignored(ctx: ObjectContext, lines: LineIndex) -> list[Diagnostic]:
    """The four kinds are cluster-scoped: the server clears a namespace given in the object
    (`rest.BeforeCreate` → `EnsureObjectNamespaceMatchesRequestNamespace`, "cluster-scoped, clear
    namespace"), so it is accepted and ignored."""
    metadata = ctx.data.get("metadata") if isinstance(ctx.data, dict) else None
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    if not isinstance(namespace, str) or not namespace:
        return []
    span = span_for_path(ctx.obj.node, ("metadata", "namespace"), lines)
    return [
        Diagnostic(
            span,
            Severity.HINT,
            "namespace-ignored",
            f"metadata.namespace: {ctx.obj.kind} is cluster-scoped: the API server clears the namespace "
            f"({namespace!r} is ignored)",
            field="metadata.namespace",
        )
    ]


# The feature gate of each policy kind's API while it was not GA (kube_features.go:
# ValidatingAdmissionPolicy alpha 1.26, beta 1.28, GA 1.30; MutatingAdmissionPolicy alpha 1.32,
# beta 1.34, both off by default before GA, when the kind is served as v1).
_FEATURE_GATE = {PolicyKind.VAP: "ValidatingAdmissionPolicy", PolicyKind.MAP: "MutatingAdmissionPolicy"}


def _off_by_default(
    obj: K8sObject, kind: PolicyKind, version: str, served: ServedSchema, lines: LineIndex
) -> list[Diagnostic]:
    """An alpha or beta API the version serves, but not by default: the controlplane lists
    admissionregistration.k8s.io/v1alpha1 and v1beta1 among the group versions disabled by
    default (`alphaAPIGroupVersionsDisabledByDefault`, `betaAPIGroupVersionsDisabledByDefault`),
    so a cluster serves them only with `--runtime-config`, and the kind's feature gate on
    while it is not GA. Information: a cluster set up that way accepts the object."""
    if version not in ("v1alpha1", "v1beta1"):
        return []
    policy_kind = PolicyKind.MAP if kind.is_mutating else PolicyKind.VAP
    ga = served.schema_set.definition_for_kind(POLICY_GROUP, "v1", obj.kind) is not None
    needs = f"--runtime-config={POLICY_GROUP}/{version}=true"
    if ga:
        advice = f"; {POLICY_GROUP}/v1 is served by default"
    else:
        beta = served.schema_set.definition_for_kind(POLICY_GROUP, "v1beta1", obj.kind) is not None
        stage = "beta" if beta else "alpha"  # the gate's stage in this Kubernetes version
        needs += f" and the feature gate {_FEATURE_GATE[policy_kind]}=true ({stage}, off by default)"
        advice = ""
    node = obj.node.get("apiVersion")
    return [
        Diagnostic(
            node.span if node is not None else head_span(obj.node, lines),
            Severity.INFORMATION,
            "api-off-by-default",
            f"{obj.kind} {obj.api_version} is off by default in Kubernetes {served.version}: the API "
            f"server serves it only with {needs}{advice}",
            field="apiVersion",
        )
    ]


CHECK = Check(
    "server-validation",
    (
        "not-served",
        "api-off-by-default",
        "too-large",
        "namespace-ignored",
        *STRUCTURAL_CODES,
        *(
            e.code
            for e in (ErrorType.REQUIRED, ErrorType.INVALID, ErrorType.NOT_SUPPORTED, ErrorType.FORBIDDEN)
        ),
        *(e.code for e in (ErrorType.DUPLICATE, ErrorType.TOO_LONG, ErrorType.TOO_MANY)),
    ),
    Role.POLICY,
    check_policy_object,
    "The API server's create/update verdict: served version, strict decoding, defaulting, then "
    "the admissionregistration validation rules.",
)
