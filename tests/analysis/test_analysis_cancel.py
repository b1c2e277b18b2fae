"""A newer edit never waits for an old analysis, and an analysis stopped anywhere leaves the caches
as a finished one would.

The per-expression passes (compile, narrowing, the type check, optional fields, vap-lsp's own
checks, strings at admission, cost, null roots) check the cancel token for each expression. These
tests stop the analysis of a Pod-Security-shaped policy at every n-th checkpoint, then analyse it
to the end: the diagnostics are those of a cold analysis, whatever was cached before the stop.
"""

from __future__ import annotations

import pytest

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, clear_caches
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cancel import Cancelled, Token, scope

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: non-root.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["", "apps", "batch"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods", "deployments", "cronjobs"]
  variables:
  - name: spec
    expression: >-
      object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ?
      object.spec.jobTemplate.spec.template.spec : object.spec.template.spec
  validations:
  - expression: >-
      object.kind != 'Pod' || !has(object.spec.securityContext) ||
      !has(object.spec.securityContext.runAsNonRoot) || object.spec.securityContext.runAsNonRoot
  - expression: >-
      object.kind != 'Deployment' || object.spec.template.spec.containers.all(c,
      !has(c.securityContext) || c.securityContext.privileged != true)
  - expression: "variables.spec.containers.all(c, c.image.startsWith('registry.example.com/'))"
    messageExpression: "'image not allowed: ' + object.metadata.name"
  - expression: "object.kind != 'CronJob' || object.spec.jobTemplate.spec.template.spec.hostNetwork != true"
"""


class StopAt(Token):
    """A token that is cancelled from its `n`-th checkpoint on."""

    __slots__ = ("left",)

    def __init__(self, n: int) -> None:
        self.left = n
        self.superseded = False

    @property  # type: ignore[override]
    def cancelled(self) -> bool:
        self.left -= 1
        return self.left < 0

    @cancelled.setter
    def cancelled(self, value: bool) -> None:
        pass


def _diagnostics(text: str, workspace: WorkspaceIndex) -> list[tuple[object, ...]]:
    found = analyse_text(text, AnalysisSettings(), workspace=workspace, uri="file:///p.yaml").diagnostics
    return [(d.span, d.severity, d.code, d.message) for d in found]


def _checkpoints() -> int:
    clear_caches()
    token = StopAt(1 << 30)
    with scope(token):
        _diagnostics(POLICY, WorkspaceIndex())
    return (1 << 30) - token.left


def test_the_passes_check_the_token_for_every_expression() -> None:
    # 5 expressions × (create-time + 3 kinds × 2 views) compiles and as many narrowings, and the
    # rows' own loops: far more checkpoints than objects and compiles alone gave.
    assert _checkpoints() > 60


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.4, 0.6, 0.8, 0.95])
def test_an_analysis_stopped_anywhere_leaves_consistent_caches(fraction: float) -> None:
    total = _checkpoints()
    clear_caches()
    expected = _diagnostics(POLICY, WorkspaceIndex())
    clear_caches()
    workspace = WorkspaceIndex()
    with pytest.raises(Cancelled), scope(StopAt(int(total * fraction))):
        _diagnostics(POLICY, workspace)
    assert _diagnostics(POLICY, workspace) == expected
