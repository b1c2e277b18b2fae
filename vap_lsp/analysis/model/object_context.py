"""One object of a checked file as every check and editor feature reads it, computed once.

The checks (`analysis.checks`) are rows of one table run over this context by the engine; editor
features read the same context for the policy under the cursor. What it holds is computed on first
use and kept: the object's policy kind, the schema of the Kubernetes version that serves its
apiVersion (`served`), its plain data and the server's defaulting of it, and for a
ValidatingAdmissionPolicy or MutatingAdmissionPolicy its `PolicyContext` (`policy`): sites,
kinds, requests, guarantees, views.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from vap_lsp.analysis.model.context import PolicyContext, policy_context
from vap_lsp.analysis.model.kustomize import carries_directives
from vap_lsp.analysis.model.objects import K8sObject, object_data
from vap_lsp.analysis.model.served import ServedSchema, select_schema
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import POLICY_GROUP, PolicyKind, recognise
from vap_lsp.text import LineIndex
from vap_lsp.yaml.model import ExpansionLimit

__all__ = ["ObjectContext", "Role"]


class Role(Enum):
    """What an object of a checked file is to the checks."""

    PATCH = "patch"
    """A kustomize patch (named by a kustomization, or carrying strategic-merge directives): a
    partial object, never checked for what it may leave out."""
    CRD = "crd"
    POLICY = "policy"
    """One of the four admissionregistration kinds (VAP, VAPB, MAP, MAPB)."""
    OTHER = "other"


@dataclass
class ObjectContext:
    """An object to check: where it is, against which Kubernetes version, beside which workspace."""

    obj: K8sObject
    version: str
    """The selected Kubernetes version."""
    workspace: WorkspaceIndex | None = None
    lines: LineIndex | None = None
    """Of the file (for placing diagnostics); features that only read types need none."""
    patch: bool = False
    """The file is a kustomize patch."""

    @functools.cached_property
    def role(self) -> Role:
        if self.patch or carries_directives(self.obj.node):
            return Role.PATCH
        if self.obj.is_crd:
            return Role.CRD
        return Role.POLICY if self.recognised is not None else Role.OTHER

    @functools.cached_property
    def recognised(self) -> tuple[PolicyKind, str] | None:
        """The policy kind and the version of its apiVersion (None: not one of the four kinds)."""
        if self.obj.is_crd:
            return None
        return recognise(self.obj.api_version, self.obj.kind)

    @property
    def kind(self) -> PolicyKind | None:
        return self.recognised[0] if self.recognised is not None else None

    @functools.cached_property
    def _served(self) -> tuple[ServedSchema, list[str]]:
        assert self.recognised is not None
        return select_schema(self.version, POLICY_GROUP, self.recognised[1], self.obj.kind)

    @property
    def served(self) -> ServedSchema:
        """The schema the policy object is checked against (`served.select_schema`)."""
        return self._served[0]

    @property
    def serving(self) -> list[str]:
        """The Kubernetes versions that serve the object's apiVersion at all."""
        return self._served[1]

    @functools.cached_property
    def _data(self) -> tuple[Any, ExpansionLimit | None]:
        try:
            return object_data(self.obj.node), None
        except ExpansionLimit as exc:
            return None, exc

    @property
    def data(self) -> Any:
        """The object as plain data (None when it is too large to expand: `too_large`)."""
        return self._data[0]

    @property
    def too_large(self) -> ExpansionLimit | None:
        return self._data[1]

    @functools.cached_property
    def defaulted(self) -> dict[str, Any] | None:
        """A policy object after the server's defaulting (None: not a policy, or not a mapping)."""
        if self.recognised is None or not isinstance(self.data, dict):
            return None
        kind, version = self.recognised
        return apply_defaults(kind, version, self.data)

    @property
    def spec(self) -> Mapping[str, Any] | None:
        spec = self.defaulted.get("spec") if self.defaulted is not None else None
        return spec if isinstance(spec, dict) else None

    @functools.cached_property
    def policy(self) -> PolicyContext | None:
        """The context of a ValidatingAdmissionPolicy or MutatingAdmissionPolicy (None for the
        bindings and what is not a policy), typed with the schemas of the version serving it."""
        kind, spec = self.kind, self.spec
        if kind not in (PolicyKind.VAP, PolicyKind.MAP) or spec is None:
            return None
        return policy_context(self.obj.node, kind, spec, self.served.version, self.workspace)
