"""Static cost estimates of a policy's expressions (`analysis.cost_estimates`): sizes of `object`
from the matched kind's schema, the comprehension that dominates and the ranges no schema bound
limits, which the `cel-cost` diagnostic names."""

from __future__ import annotations

import gc
import textwrap
import weakref

from vap_lsp.analysis.engine import AnalysisSettings, analyse_text, parse_text
from vap_lsp.analysis.model.context import PolicyContext, clear_cache, policy_context
from vap_lsp.analysis.model.cost_estimates import estimate_policy, estimate_site
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel.cost_estimate import CostEstimate
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.yaml.model import to_python

LIMIT = 3 * 1024 * 1024 - 2


def _crd(bounds: str) -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {{name: teams.example.com}}
        spec:
          group: example.com
          names: {{kind: Team, plural: teams, singular: team, listKind: TeamList}}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec:
                      type: object
                      properties:
                        groups:
                          type: array
                          {bounds}
                          items:
                            type: object
                            properties:
                              members:
                                type: array
                                items: {{type: string, maxLength: 16}}
        """
    )


POLICY = textwrap.dedent(
    """\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: teams}
    spec:
      matchConstraints:
        resourceRules:
          - apiGroups: [example.com]
            apiVersions: [v1]
            operations: [CREATE]
            resources: [teams]
      variables:
        - name: groups
          expression: object.spec.groups
      validations:
        - expression: "object.spec.groups.all(g, g.members.all(m, m != ''))"
        - expression: "variables.groups.all(g, size(g.members) < 5)"
        - expression: "object.metadata.name != ''"
    """
)


def _typing(crd_bounds: str) -> PolicyContext:
    workspace = WorkspaceIndex()
    analyse_text(_crd(crd_bounds), AnalysisSettings("1.35"), workspace=workspace, uri="crd.yaml")
    (obj,) = parse_text(POLICY)[1]
    return policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.35", workspace)


def test_nested_comprehension_over_unbounded_lists_names_both_ranges() -> None:
    typing = _typing("x-kubernetes-list-type: atomic")
    estimates = estimate_policy(typing)
    assert [e.site.field for e in estimates] == [
        "spec.variables[0].expression",
        "spec.validations[0].expression",
        "spec.validations[1].expression",
        "spec.validations[2].expression",
    ]
    nested = estimates[1]
    items = LIMIT // 3  # `{}` or `""` and a comma
    assert nested.cost == CostEstimate(4, 4 + items * (3 + 3 + items * 4))
    dominant = nested.dominant
    assert dominant is not None and dominant.node.start == 0
    ranges = nested.unbounded()
    assert [(r.variable, r.field_path, r.suggested_keyword) for r in ranges] == [
        ("object", "spec.groups", "maxItems"),
        ("object", "spec.groups[*].members", "maxItems"),
    ]
    assert [r.comprehension.iterations.max for r in ranges] == [items, items]
    assert ranges[1].comprehension.total.max == items * ranges[1].comprehension.cost.max


def test_max_items_on_the_crd_bounds_the_outer_range() -> None:
    typing = _typing("maxItems: 10")
    nested = estimate_site(typing, typing.sites[1])
    assert nested is not None
    items = LIMIT // 3
    assert nested.cost == CostEstimate(4, 4 + 10 * (3 + 3 + items * 4))
    ranges = nested.ranges()
    assert [(r.field_path, r.bounded_by_schema) for r in ranges] == [
        ("spec.groups", True),
        ("spec.groups[*].members", False),
    ]
    assert ranges[0].bound is not None and (ranges[0].bound.keyword, ranges[0].bound.max) == ("maxItems", 10)


def test_a_variable_reading_a_field_keeps_its_bounds() -> None:
    """`variables.groups` is `object.spec.groups`: its range is that field, bounded by maxItems."""
    typing = _typing("maxItems: 10")
    through_variable = estimate_site(typing, typing.sites[2])
    assert through_variable is not None
    (r,) = through_variable.ranges()
    assert (r.variable, r.field_path, r.bounded_by_schema) == ("object", "spec.groups", True)
    # variables.groups (2), 10 × (loop 2 + `@result && size(g.members) < 5` 1..5), result 1
    assert through_variable.cost == CostEstimate(3, 3 + 10 * 7)


def test_no_comprehension_no_dominant() -> None:
    typing = _typing("maxItems: 10")
    plain = estimate_site(typing, typing.sites[3])
    assert plain is not None and plain.dominant is None and plain.unbounded() == ()


def test_the_largest_max_items_that_fits_the_per_call_limit() -> None:
    """With `members` bounded by 10 in the what-if, the outer list's bound is solved for: per group
    3 + (3 + 10 × 4) = 46, plus 4: 46 × n + 4 ≤ 1,000,000 → n = 21,739."""
    typing = _typing("x-kubernetes-list-type: atomic")
    nested = estimate_site(typing, typing.sites[1])
    assert nested is not None
    outer, inner = nested.unbounded()
    assert inner.path is not None and outer.path is not None
    assert nested.with_bound(inner.path, 10) == CostEstimate(4, 4 + (LIMIT // 3) * 46)
    # alone, only an empty outer list fits: each group costs over 4 million
    assert nested.largest_bound_within(outer, 1_000_000) == 0
    # the inner one alone: 1,048,575 groups of at least 6 already exceed it
    assert nested.largest_bound_within(inner, 1_000_000) is None
    bounded = estimate_site(_typing("maxItems: 10"), _typing("maxItems: 10").sites[1])
    assert bounded is not None
    (members,) = bounded.unbounded()
    # 10 groups: 4 + 10 × (3 + 3 + 4 m) ≤ 1,000,000 → m = 24,998
    assert bounded.largest_bound_within(members, 1_000_000) == 24_998
    assert (
        bounded.with_bound(members.path or (), 24_998).max
        <= 1_000_000
        < bounded.with_bound(members.path or (), 24_999).max
    )


def test_estimates_live_as_long_as_their_model() -> None:
    """Estimates are kept on the typing model, not in a cache of their own: once
    `policy_context`'s bounded cache lets a model go, nothing else keeps it (a cache keyed by the
    model kept 4,096 of them alive, ~75 MiB more in a long editing session: bench_memory.py)."""
    typing = _typing("maxItems: 10")
    first = estimate_site(typing, typing.sites[1])
    assert first is not None and estimate_site(typing, typing.sites[1]) is first
    assert estimate_policy(typing)
    model = weakref.ref(typing)
    del typing, first
    clear_cache()
    gc.collect()
    assert model() is None
