"""An edit inside one expression reuses the policy's context: only that expression is compiled,
narrowed and estimated again, and the diagnostics are those of a fresh analysis.

The contexts of a policy of one shape (the policy without the expressions no other reads:
validations, messageExpressions, auditAnnotations, mutations) share what they compute alike
(`model.context._Shape`). These tests edit policies the ways a user does and compare each
analysis, caches warm, with a cold one of the same text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, clear_caches, parse_text
from vap_lsp.analysis.model.object_context import ObjectContext
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel import compile as cel_compile

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "tests" / "fixtures" / "libraries" / "kubescape-cel-admission-library"
CORPUS = ROOT.parent / "shared" / "corpus"

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: workloads.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["", "apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods", "deployments"]
  matchConditions:
  - name: not-system
    expression: "!object.metadata.namespace.startsWith('kube-')"
  variables:
  - name: spec
    expression: "object.kind == 'Pod' ? object.spec : object.spec.template.spec"
  - name: privileged
    expression: >-
      variables.spec.containers.exists(c, has(c.securityContext) && c.securityContext.privileged == true)
  - name: hostNetwork
    expression: "object.spec.hostNetwork"
  validations:
  - expression: "!variables.privileged"
    messageExpression: "'privileged: ' + object.metadata.name"
  - expression: "object.kind != 'Pod' || object.spec.hostNetwork != true"
  - expression: "object.kind != 'Pod' || variables.hostNetwork != true"
  - expression: "object.kind != 'Deployment' || object.spec.replicas <= 10"
  auditAnnotations:
  - key: replicas
    valueExpression: "string(object.spec.replicas)"
"""

EDITS = [
    # The variable was read only where a Pod is: its problem for a Deployment was unreachable.
    (
        "a validation that reads a variable",
        "object.kind != 'Pod' || variables.hostNetwork",
        "variables.hostNetwork",
    ),
    ("a validation", "object.spec.replicas <= 10", "object.spec.replicas <= 12"),
    (
        "a validation, a field the kind lacks",
        "object.spec.hostNetwork != true",
        "object.spec.hostNetwrk != true",
    ),
    (
        "a messageExpression",
        "'privileged: ' + object.metadata.name",
        "'privileged: ' + oldObject.metadata.name",
    ),
    ("an audit annotation", "string(object.spec.replicas)", "string(object.spec.replicas + 1)"),
    ("a variable", "c.securityContext.privileged == true", "c.securityContext.runAsNonRoot == false"),
    ("a matchCondition", "startsWith('kube-')", "startsWith('openshift-')"),
    ("matchConstraints", '["CREATE", "UPDATE"]', '["CREATE", "DELETE"]'),
]


def _diagnostics(text: str, workspace: WorkspaceIndex) -> list[tuple[object, ...]]:
    found = analyse_text(text, AnalysisSettings(), workspace=workspace, uri="file:///p.yaml").diagnostics
    return [(d.span, d.severity, d.code, d.message, d.related) for d in found]


def _cold(text: str) -> list[tuple[object, ...]]:
    clear_caches()
    return _diagnostics(text, WorkspaceIndex())


def _narrowing(text: str, workspace: WorkspaceIndex) -> dict[tuple[object, ...], str]:
    """Every guard of the policy's context: (view, kind, expression, node) → the guard's text."""
    yaml_file, objects = parse_text(text)
    context = ObjectContext(objects[0], "1.37", workspace, yaml_file.lines).policy
    assert context is not None
    out: dict[tuple[object, ...], str] = {}
    for kind in context.kinds:
        for view in (context.type_check(kind), context.precise(kind)):
            for site in context.sites:
                reach = view.reachability(site)
                for node in view.result(site).parsed.walk():
                    guard = reach.guard_of(node)  # type: ignore[arg-type]
                    if guard is not None:
                        out[(view.name, kind.gvk, site.path, node.id)] = guard.text
    return out


def test_every_edit_gives_what_a_fresh_analysis_gives() -> None:
    workspace = WorkspaceIndex()
    _diagnostics(POLICY, workspace)
    text = POLICY
    for what, old, new in EDITS:
        assert old in text, what
        text = text.replace(old, new)
        warm = _diagnostics(text, workspace), _narrowing(text, workspace)
        assert warm == (_cold(text), _narrowing(text, WorkspaceIndex())), what
        _diagnostics(POLICY, workspace)  # the caches of the original stay warm too
        assert _diagnostics(POLICY, workspace) == _cold(POLICY), what


def test_an_edit_of_a_validation_compiles_only_that_expression(monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = WorkspaceIndex()
    clear_caches()
    _diagnostics(POLICY, workspace)
    compiled: list[str] = []
    real = cel_compile._compile

    def counted(text: str, *args: object, **kw: object) -> object:
        compiled.append(text)
        return real(text, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cel_compile, "_compile", counted)
    _diagnostics(POLICY.replace("replicas <= 10", "replicas <= 11"), workspace)
    assert compiled and set(compiled) == {"object.kind != 'Deployment' || object.spec.replicas <= 11"}


def _edited(text: str) -> Iterator[str]:
    """The text with its first validation's expression changed, and with its first variable's."""
    for key in ("    - expression: ", "  - expression: ", "expression: "):
        match = re.search(rf"(?m)^{re.escape(key)}(['\"]?)(.+?)\1$", text)
        if match:
            start, end = match.span(2)
            yield text[:start] + "(" + text[start:end] + ") && true" + text[end:]
            return


def _policies(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.yaml") if "ValidatingAdmissionPolicy\n" in p.read_text("utf-8"))


def _check_folder(folder: Path) -> int:
    checked = 0
    for path in _policies(folder):
        text = path.read_text("utf-8")
        workspace = WorkspaceIndex()
        _diagnostics(text, workspace)
        for edited in _edited(text):
            assert _diagnostics(edited, workspace) == _cold(edited), path
            checked += 1
    return checked


def test_edits_of_a_real_library_give_what_a_fresh_analysis_gives() -> None:
    assert _check_folder(LIBRARY) > 40


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the policy corpus (../shared/corpus) is not here")
def test_edits_of_the_corpus_give_what_a_fresh_analysis_gives() -> None:
    assert _check_folder(CORPUS) > 150
