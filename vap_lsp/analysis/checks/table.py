"""The table of checks: every row the engine runs, in the order the API server would find things.

A row is a check beside its code (`checks.check.Check`): the codes it reports, the objects it
applies to, one function over the object's context. Adding a check is adding its module and a
row here; the engine knows nothing of what any row does.
"""

from __future__ import annotations

from vap_lsp.analysis.checks import (
    cel_compile,
    cost,
    crd,
    kind_tests,
    message_templates,
    mutations,
    null_roots,
    optional_fields,
    patch,
    precise,
    references,
    runtime_shape,
    server_validation,
    type_check,
    typing_coverage,
)
from vap_lsp.analysis.checks.check import Check, FileCheck

__all__ = ["CHECKS", "FILE_CHECKS"]

FILE_CHECKS: tuple[FileCheck, ...] = (
    references.CHECK,
    patch.JSON6902_CHECK,
)
"""Run once per file, across its objects (and the workspace)."""

CHECKS: tuple[Check, ...] = (
    patch.CHECK,
    crd.CHECK,
    server_validation.CHECK,
    message_templates.CHECK,
    cel_compile.CHECK,
    null_roots.CHECK,
    kind_tests.CHECK,
    mutations.CHECK,
    type_check.CHECK,
    optional_fields.CHECK,
    precise.CHECK,
    runtime_shape.CHECK,
    cost.CHECK,
    typing_coverage.CHECK,
)
"""Run over each object of a file whose role is the row's."""
