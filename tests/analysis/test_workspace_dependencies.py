"""What an analysis read from the workspace index, and which reads a change of the index answers
differently: the server re-analyses an open document exactly when the two meet."""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.engine import analyse_text, parse_text
from vap_lsp.analysis.model.workspace import Read, WorkspaceIndex, extract, recording
from vap_lsp.policy.kinds import PolicyKind

BINDING = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: b
    spec:
      policyName: replica-limit
      validationActions: [Deny]
    """
)


def _policy(name: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: {name}
        spec:
          paramKind: {{apiVersion: rules.example.com/v1, kind: ReplicaLimit}}
          matchConstraints:
            resourceRules:
              - {{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}}
          validations:
            - expression: "object.spec.replicas <= params.maxReplicas"
        """
    )


def _crd(field: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: replicalimits.rules.example.com
        spec:
          group: rules.example.com
          names: {{kind: ReplicaLimit, plural: replicalimits}}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    {field}: {{type: integer}}
        """
    )


def _index() -> tuple[WorkspaceIndex, list[tuple[str, frozenset[Read]]]]:
    index = WorkspaceIndex()
    index.complete = True
    changes: list[tuple[str, frozenset[Read]]] = []
    index.listeners.append(lambda uri, reads: changes.append((uri, reads)))
    return index, changes


def _analysed_reads(index: WorkspaceIndex, uri: str, text: str) -> set[Read]:
    with recording() as reads:
        analyse_text(text, workspace=index, uri=uri)
    return reads


def _update(index: WorkspaceIndex, uri: str, text: str) -> None:
    index.update(uri, parse_text(text)[1], text)


def test_a_binding_depends_on_the_policies_of_its_name_only() -> None:
    index, changes = _index()
    reads = _analysed_reads(index, "file:///b.yaml", BINDING)
    assert ("policies", PolicyKind.VAP, "replica-limit") in reads
    changes.clear()
    _update(index, "file:///other.yaml", _policy("something-else"))
    assert [uri for uri, changed in changes if changed & reads] == []
    _update(index, "file:///p.yaml", _policy("replica-limit"))
    assert [uri for uri, changed in changes if changed & reads] == ["file:///p.yaml"]


def test_an_edit_that_changes_nothing_the_index_says_is_no_change() -> None:
    index, changes = _index()
    _update(index, "file:///p.yaml", _policy("replica-limit"))
    changes.clear()
    edited = _policy("replica-limit").replace("<= params", "<=  params")
    _update(index, "file:///p.yaml", edited)
    assert changes == []


def test_a_policy_depends_on_the_crd_of_its_param_kind_even_from_the_cache() -> None:
    index, changes = _index()
    _update(index, "file:///crd.yaml", _crd("maxReplicas"))
    first = _analysed_reads(index, "file:///p.yaml", _policy("replica-limit"))
    # The second analysis takes the object's result and typing model from the caches.
    again = _analysed_reads(index, "file:///p.yaml", _policy("replica-limit"))
    assert ("gvk", "rules.example.com", "v1", "ReplicaLimit") in first
    assert again == first
    changes.clear()
    _update(index, "file:///crd.yaml", _crd("maxReplica"))
    assert [uri for uri, changed in changes if changed & again] == ["file:///crd.yaml"]
    changes.clear()
    other = _crd("x").replace("ReplicaLimit", "Other").replace("replicalimits", "others")
    _update(index, "file:///unrelated.yaml", other)
    assert [uri for uri, changed in changes if changed & again] == []


def test_removing_a_file_and_external_crds_are_changes_too() -> None:
    index, changes = _index()
    _update(index, "file:///p.yaml", _policy("replica-limit"))
    reads = _analysed_reads(index, "file:///b.yaml", BINDING)
    changes.clear()
    index.remove("file:///p.yaml")
    assert [uri for uri, changed in changes if changed & reads] == ["file:///p.yaml"]
    policy_reads = _analysed_reads(index, "file:///p.yaml", _policy("replica-limit"))
    changes.clear()
    crd = parse_text(_crd("maxReplicas"))[1][0]
    index.set_external_crds("vapLsp.crds", extract("", [crd], _crd("maxReplicas")).crds)
    assert [uri for uri, changed in changes if changed & policy_reads] == ["vapLsp.crds"]
