"""Admission evaluation (placeholder until the full engine lands)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs


def run_admission(request: AdmissionRequestInput, inputs: PolicyInputs, version: str) -> AdmissionResult:
    from vap_lsp.admission.api import AdmissionResult

    obj = request.object or request.old_object or {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    ident = {
        "apiVersion": obj.get("apiVersion"),
        "kind": obj.get("kind"),
        "namespace": request.namespace or meta.get("namespace"),
        "name": request.name or meta.get("name"),
    }
    return AdmissionResult(ident, True, [], [], {}, None, None, [])
