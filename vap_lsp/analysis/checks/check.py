"""What a check is: one row of the table the engine runs over each object (`checks.table`).

A check is a unit beside its code (as ruff keeps a rule beside its check): the codes it can
report, the objects it applies to, and one function from the object's context to diagnostics.
Checks read the context (`analysis.model`) and never each other: what one needs of another's
work (the issues the create-time compile already reported, say) is a fact of the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from vap_lsp.analysis.diagnostics import Diagnostic
from vap_lsp.analysis.model.context import PolicyContext
from vap_lsp.analysis.model.kustomize import PatchTarget
from vap_lsp.analysis.model.object_context import ObjectContext, Role
from vap_lsp.analysis.model.objects import K8sObject
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import YamlFile

__all__ = ["Check", "FileCheck", "FileContext", "policy_check"]

Run = Callable[[ObjectContext], Iterable[Diagnostic]]


@dataclass(frozen=True)
class Check:
    """One row: `run` over every object whose role is `role`."""

    name: str
    codes: tuple[str, ...]
    """Every code `run` can report (the rule pages and the catalog are checked against them)."""
    role: Role
    run: Run
    summary: str


def policy_check(
    name: str,
    codes: tuple[str, ...],
    summary: str,
    kinds: frozenset[PolicyKind] = frozenset({PolicyKind.VAP, PolicyKind.MAP}),
    *,
    needs_sites: bool = True,
) -> Callable[[Callable[[PolicyContext], Iterable[Diagnostic]]], Check]:
    """A check of a policy's CEL: `run` over the `PolicyContext` of each VAP/MAP of `kinds` (with
    expressions, unless `needs_sites` is off)."""

    def row(run: Callable[[PolicyContext], Iterable[Diagnostic]]) -> Check:
        def over_object(ctx: ObjectContext) -> Iterable[Diagnostic]:
            policy = ctx.policy
            if policy is None or policy.policy not in kinds or (needs_sites and not policy.sites):
                return ()
            return run(policy)

        return Check(name, codes, Role.POLICY, over_object, summary)

    return row


@dataclass(frozen=True)
class FileContext:
    """A checked file as a whole: what the checks that look across its objects read."""

    yaml_file: YamlFile
    objects: list[K8sObject]
    version: str
    uri: str | None
    workspace: WorkspaceIndex | None
    patch: PatchTarget | None
    """The target of the kustomize patch the file is (None: not a patch)."""
    is_patch: bool = False


@dataclass(frozen=True)
class FileCheck:
    """One row run once per file (before its objects)."""

    name: str
    codes: tuple[str, ...]
    run: Callable[[FileContext], Iterable[Diagnostic]]
    summary: str
