"""Per-object results are cached across edits; a change in the workspace's CRDs (the only part of
the index an object's own analysis reads) re-checks them, other index changes do not."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from vap_lsp.analysis import engine
from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.model.workspace import WorkspaceIndex

CRD = textwrap.dedent(
    """\
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata:
      name: replicalimits.rules.example.com
    spec:
      group: rules.example.com
      names: {kind: ReplicaLimit, plural: replicalimits}
      scope: Namespaced
      versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                FIELD: {type: integer}
    """
)

POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: NAME
    spec:
      paramKind: {apiVersion: rules.example.com/v1, kind: ReplicaLimit}
      matchConstraints:
        resourceRules:
          - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
      validations:
        - expression: "object.spec.replicas <= params.maxReplicas"
    """
)

SETTINGS = AnalysisSettings(kubernetes_version="1.33")


def _messages(text: str, index: WorkspaceIndex) -> list[str]:
    """Errors and warnings (the optional-field hints are beside the point here)."""
    analysis = analyse_text(text, SETTINGS, workspace=index, uri="file:///p.yaml")
    return [d.message for d in analysis.diagnostics if d.severity <= Severity.WARNING]


def test_editing_a_crd_re_checks_the_policies_typed_by_it() -> None:
    index = WorkspaceIndex()
    analyse_text(CRD.replace("FIELD", "maxReplicas"), SETTINGS, workspace=index, uri="file:///crd.yaml")
    policy = POLICY.replace("NAME", "replica-limit")
    assert _messages(policy, index) == []
    analyse_text(CRD.replace("FIELD", "limit"), SETTINGS, workspace=index, uri="file:///crd.yaml")
    assert _messages(policy, index) == [  # the same policy text, now typed by the edited CRD
        "spec.validations[0].expression: type checking against apps/v1, Kind=Deployment: "
        "ERROR: <input>:1:31: undefined field 'maxReplicas'"
    ]


def test_renaming_a_policy_keeps_the_crd_generation() -> None:
    index = WorkspaceIndex()
    analyse_text(CRD.replace("FIELD", "maxReplicas"), SETTINGS, workspace=index, uri="file:///crd.yaml")
    _messages(POLICY.replace("NAME", "a"), index)
    generation, crd_generation = index.generation, index.crd_generation
    _messages(POLICY.replace("NAME", "b"), index)
    assert index.generation == generation + 1  # bindings must look again for their policy
    assert index.crd_generation == crd_generation  # but no object's own analysis changed
    analyse_text("", SETTINGS, workspace=index, uri="file:///crd.yaml")
    assert index.crd_generation == crd_generation + 1


def test_every_object_of_a_large_file_stays_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file with more objects than the cache bound is not re-checked whole after each edit."""
    monkeypatch.setattr(engine._OBJECT_CACHE, "size", 1)
    checked: list[str] = []
    real = engine._check

    def counting(obj: Any, *args: Any) -> Any:
        checked.append(obj.name)
        return real(obj, *args)

    monkeypatch.setattr(engine, "_check", counting)
    engine.clear_caches()
    text = "---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n" for i in range(5))
    analyse_text(text)
    assert len(checked) == 5
    checked.clear()
    analyse_text(text + "data: {a: b}\n")  # only the last object changed
    assert checked == ["c4"]


BINDING = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: replica-limit-binding
    spec:
      policyName: replica-limit
      validationActions: [Deny]
    """
)


def test_index_entries_of_an_unchanged_object_follow_it_to_its_new_place_and_file() -> None:
    """An object's index entries are reused by its text: placed at the object's new offset,
    under the URI of the file that now holds it."""
    index = WorkspaceIndex()
    text = POLICY.replace("NAME", "replica-limit") + "---\n" + BINDING
    analyse_text(text, SETTINGS, workspace=index, uri="file:///a.yaml")
    moved = "# a comment that moves everything\n" + text
    analyse_text(moved, SETTINGS, workspace=index, uri="file:///b.yaml")
    for uri, source in (("file:///a.yaml", text), ("file:///b.yaml", moved)):
        (policy,) = [p for p in index.policies(name="replica-limit") if p.uri == uri]
        assert policy.uri == uri
        assert source[policy.span.start : policy.span.end].startswith("name: replica-limit")
        (binding,) = [b for b in index.bindings() if b.uri == uri]
        assert source[binding.span.start : binding.span.end] == "replica-limit"
        names = {o.name: o for o in index.objects() if o.uri == uri}
        entry = names["replica-limit-binding"]
        assert source[entry.span.start : entry.span.end] == "replica-limit-binding"
        assert source[entry.object_span.start : entry.object_span.end] == BINDING.rstrip("\n")


def test_items_of_a_list_are_read_again_as_their_aliases_may_point_outside_them() -> None:
    index = WorkspaceIndex()
    template = textwrap.dedent(
        """\
        apiVersion: v1
        kind: List
        items:
        - {apiVersion: v1, kind: ConfigMap, metadata: {name: &n NAME}}
        - {apiVersion: v1, kind: Secret, metadata: {name: *n}}
        """
    )
    for name in ("first", "second"):
        analyse_text(template.replace("NAME", name), SETTINGS, workspace=index, uri="file:///l.yaml")
        assert sorted(o.name for o in index.objects()) == [name, name]
