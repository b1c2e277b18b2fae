"""What the API server says on create/update of one of the four policy kinds.

Order mirrors the server: decode strictly against the schema (unknown and duplicate fields,
wrong types), apply defaults, then run the admissionregistration validation rules. CEL
compilation is a separate pass (vap_lsp.analysis.cel_checks) that reads the same objects.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from vap_lsp.analysis.cel_checks import check_cel
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.objects import K8sObject, object_data
from vap_lsp.analysis.placement import head_span, span_for_path
from vap_lsp.analysis.typing_coverage import check_typing_coverage
from vap_lsp.analysis.workspace import WorkspaceIndex
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import POLICY_GROUP, PolicyKind, recognise
from vap_lsp.policy.rules import validate
from vap_lsp.schema.store import SchemaSet, available_versions, get_schema_set
from vap_lsp.schema.structure import check_structure
from vap_lsp.text import LineIndex
from vap_lsp.yaml.model import ExpansionLimit


@dataclass(frozen=True)
class ServedSchema:
    schema_set: SchemaSet
    # The Kubernetes version whose schema is used; differs from the selected one when the
    # selected version does not serve the object's apiVersion.
    version: str


def _serves(schema_set: SchemaSet, group: str, version: str, kind: str) -> bool:
    return schema_set.definition_for_kind(group, version, kind) is not None


@functools.lru_cache(maxsize=256)
def select_schema(selected: str, group: str, version: str, kind: str) -> tuple[ServedSchema, list[str]]:
    """The schema to check against and the Kubernetes versions that serve this kind at all."""
    schema_set = get_schema_set(selected)
    serving = [v for v in available_versions() if _serves(get_schema_set(v), group, version, kind)]
    if selected in serving or not serving:
        return ServedSchema(schema_set, selected), serving
    # Nearest serving version: the newest older one, else the oldest newer one.
    older = [v for v in serving if _vkey(v) < _vkey(selected)]
    nearest = older[-1] if older else serving[0]
    return ServedSchema(get_schema_set(nearest), nearest), serving


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))


def _range_text(versions: list[str]) -> str:
    if len(versions) == 1:
        return versions[0]
    return f"{versions[0]}–{versions[-1]}"


def check_policy(
    obj: K8sObject, lines: LineIndex, kubernetes_version: str, workspace: WorkspaceIndex | None = None
) -> list[Diagnostic]:
    recognised = recognise(obj.api_version, obj.kind)
    if recognised is None:
        return []
    kind, version = recognised
    diagnostics: list[Diagnostic] = []
    served, serving = select_schema(kubernetes_version, POLICY_GROUP, version, obj.kind)
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

    try:
        data = object_data(obj.node)
    except ExpansionLimit as exc:
        diagnostics.append(Diagnostic(head_span(obj.node, lines), Severity.ERROR, "too-large", str(exc)))
        return diagnostics
    if not isinstance(data, dict):
        return diagnostics
    defaulted = apply_defaults(kind, version, data)
    for error in validate(kind, version, defaulted, served.version):
        span = span_for_path(obj.node, error.path, lines, on_key=error.on_key)
        severity = Severity.ERROR if error.server_error else Severity.WARNING
        diagnostics.append(
            Diagnostic(span, severity, error.type.code, error.message(), field=error.field or None)
        )
    spec = defaulted.get("spec")
    if isinstance(spec, dict):
        diagnostics.extend(check_cel(obj.node, kind, spec, served.version, workspace))
        diagnostics.extend(check_typing_coverage(obj.node, kind, spec, served.version, workspace, lines))
    return diagnostics


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


def is_policy(obj: K8sObject) -> bool:
    return recognise(obj.api_version, obj.kind) is not None


__all__ = ["PolicyKind", "check_policy", "is_policy", "select_schema"]
