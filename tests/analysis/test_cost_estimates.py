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


# --- edges the mutation runs found (issue 39) ------------------------------------------------------


def _context(spec_tail: str, crd_bounds: str = "maxItems: 10", param_kind: bool = False) -> PolicyContext:
    """A policy over the CRD's Team (CREATE and UPDATE), with `spec_tail` (variables, validations)."""
    workspace = WorkspaceIndex()
    analyse_text(_crd(crd_bounds), AnalysisSettings("1.35"), workspace=workspace, uri="crd.yaml")
    params = "  paramKind: {apiVersion: example.com/v1, kind: Team}\n" if param_kind else ""
    text = (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
        "metadata: {name: teams}\nspec:\n" + params + "  matchConstraints:\n    resourceRules:\n"
        "      - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE, UPDATE],\n"
        "         resources: [teams]}\n" + textwrap.indent(textwrap.dedent(spec_tail), "  ")
    )
    (obj,) = parse_text(text)[1]
    return policy_context(obj.node, PolicyKind.VAP, to_python(obj.node)["spec"], "1.35", workspace)


def _all_cost(root: str, bounds: str = "maxItems: 10", param_kind: bool = False) -> CostEstimate:
    context = _context(
        f'validations:\n- expression: "{root}.spec.groups.all(g, size(g.members) < 5)"\n', bounds, param_kind
    )
    found = estimate_site(context, context.sites[0])
    assert found is not None
    return found.cost


def test_old_object_and_params_are_sized_by_their_schemas() -> None:
    """`oldObject` has the matched kind's schema, `params` the paramKind's (maxItems 10 each)."""
    bounded = _all_cost("object")
    assert bounded.max < 1000
    assert _all_cost("oldObject") == bounded
    assert _all_cost("params", param_kind=True) == bounded
    # without the bound, each is the 3 MiB worst case
    assert _all_cost("oldObject", "x-kubernetes-list-type: atomic").max > 1_000_000


def test_a_bound_on_a_field_read_through_a_variable() -> None:
    """`with_bound` on the field a variable aliases changes the estimate of an expression that
    reads the variable: the override is keyed by the field, not by `variables.<name>`."""
    context = _context(
        "variables:\n- {name: groups, expression: object.spec.groups}\n"
        'validations:\n- expression: "variables.groups.all(g, size(g.members) < 5)"\n',
        "x-kubernetes-list-type: atomic",
    )
    found = estimate_site(context, context.sites[1])
    assert found is not None
    (r,) = found.unbounded()
    assert r.path == ("object", "spec", "groups")
    assert found.with_bound(r.path, 1).max < found.cost.max
    assert found.with_bound(r.path, 1) == CostEstimate(3, 3 + 1 * 7)


def test_a_variable_that_does_not_compile_leaves_its_readers_estimated() -> None:
    context = _context(
        'variables:\n- {name: bad, expression: "object.spec.nope"}\n'
        'validations:\n- expression: "variables.bad == 1"\n- expression: "object.spec.groups.size() < 3"\n'
    )
    assert estimate_site(context, context.sites[0]) is None  # the variable's type error
    assert estimate_site(context, context.sites[2]) is not None
    fields = [e.site.field for e in estimate_policy(context)]  # the policy as a whole does not fail
    assert "spec.validations[1].expression" in fields


def test_a_site_with_a_type_error_has_no_estimate() -> None:
    context = _context('validations:\n- expression: "object.spec.groups.nope == 1"\n')
    assert estimate_site(context, context.sites[0]) is None
    assert estimate_policy(context) == []


def test_an_estimate_shared_between_models_names_each_models_site() -> None:
    """Two models with the same expression text share the estimate, each with its own site."""
    spec = 'validations:\n- expression: "object.spec.groups.all(g, true)"\n'
    first, second = _context(spec), _context(spec)
    a, b = estimate_site(first, first.sites[0]), estimate_site(second, second.sites[0])
    assert a is not None and b is not None
    assert a.site is first.sites[0] and b.site is second.sites[0]
    assert a.cost == b.cost


def test_no_bound_to_solve_for_a_computed_range() -> None:
    context = _context('validations:\n- expression: "[1, 2, 3].all(i, object.spec.groups.all(g, i > 0))"\n')
    found = estimate_site(context, context.sites[0])
    assert found is not None
    outer, _inner = found.ranges()
    assert outer.path is None and outer.bound is None
    assert found.largest_bound_within(outer, 1_000_000) is None


def test_a_variable_reading_an_earlier_variable_keeps_its_bounds() -> None:
    """A variable's estimate sees the variables before it (`variables.groups`, bounded by maxItems
    10 through its alias), never itself or a later one."""
    context = _context(
        "variables:\n- {name: groups, expression: object.spec.groups}\n"
        '- {name: small, expression: "variables.groups.all(g, size(g.members) < 5)"}\n'
        'validations:\n- expression: "variables.small"\n'
    )
    found = estimate_site(context, context.sites[1])
    assert found is not None
    assert found.cost == CostEstimate(3, 3 + 10 * 7)


def test_no_bound_to_solve_for_a_range_outside_the_schemas() -> None:
    """`request`'s lists have a path but no schema: no keyword bounds them."""
    context = _context("validations:\n- expression: \"request.userInfo.groups.all(g, g != '')\"\n")
    found = estimate_site(context, context.sites[0])
    assert found is not None
    (r,) = found.ranges()
    assert r.path is not None and r.bound is None
    assert found.largest_bound_within(r, 1_000_000) is None
