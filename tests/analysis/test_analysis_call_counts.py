"""The work per policy grows with its CEL, not with its has() facts times its kinds.

A Pod-Security policy of 49 lines took 36–48 s to check because the requests the policy can see
were worked out again for every `has()` fact (`policy_requests`: 5,208 calls, ~9 ms each), a
checker issue's guard was found by walking the whole expression for each issue, and each
expression was parsed once per matched kind. These tests count those calls on a policy of that
shape, then on the same policy with twice the facts: the counts that must not grow stay put.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from vap_lsp.analysis.engine import analyse_text, clear_caches
from vap_lsp.analysis.model import context, narrowing
from vap_lsp.cel import compile as cel_compile

HEADER = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: run-as-non-root.example.com
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods", "replicationcontrollers", "podtemplates"]
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments", "replicasets", "daemonsets", "statefulsets"]
    - apiGroups: ["batch"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["jobs", "cronjobs"]
  validations:
"""
KINDS = 9
ROOTS = {
    "Pod": "object.spec",
    "Deployment": "object.spec.template.spec",
    "CronJob": "object.spec.jobTemplate.spec.template.spec",
    "PodTemplate": "object.template.spec",
}
FIELDS = ("runAsNonRoot", "privileged", "allowPrivilegeEscalation", "readOnlyRootFilesystem")


def policy(fields: int) -> str:
    """One validation per kind root, each a chain of has() tests on `fields` fields."""
    out = [HEADER]
    for kind, root in ROOTS.items():
        sc = f"{root}.securityContext"
        chain = " &&\n        ".join(
            f"(!has({sc}) || !has({sc}.{f}) || {sc}.{f} != false) && "
            f"{root}.containers.all(c, !has(c.securityContext) || !has(c.securityContext.{f}) || "
            f"c.securityContext.{f} != false)"
            for f in (FIELDS * 8)[:fields]
        )
        out.append(f"    - expression: >-\n        object.kind != '{kind}' ||\n        {chain}\n")
    return "".join(out)


@contextmanager
def counting(*targets: tuple[Any, str]) -> Iterator[Counter[str]]:
    calls: Counter[str] = Counter()
    with pytest.MonkeyPatch.context() as patch:
        for owner, name in targets:
            real: Callable[..., Any] = getattr(owner, name)

            def counted(*args: Any, _real: Callable[..., Any] = real, _name: str = name, **kw: Any) -> Any:
                calls[_name] += 1
                return _real(*args, **kw)

            patch.setattr(owner, name, counted)
        yield calls


def _counts(text: str) -> Counter[str]:
    clear_caches()
    with counting(
        (context, "policy_requests"),
        (context, "operations_reaching"),
        (context, "field_guarantee"),
        (cel_compile, "parse"),
        (narrowing.ParsedExpr, "walk"),
    ) as calls:
        diagnostics = analyse_text(text).diagnostics
    assert not [d for d in diagnostics if d.severity.name == "ERROR"]
    return calls


def test_the_requests_a_policy_can_see_are_worked_out_once_per_kind() -> None:
    calls = _counts(policy(4))
    assert calls["policy_requests"] == KINDS  # one class of requests per matched kind
    assert calls["operations_reaching"] <= 1  # the point of admission: once per policy


def test_twice_the_has_facts_adds_no_request_work_and_no_guarantee_per_fact() -> None:
    small, large = _counts(policy(4)), _counts(policy(8))
    assert large["policy_requests"] == small["policy_requests"]
    assert large["operations_reaching"] == small["operations_reaching"]
    # a field's guarantee is decided once per kind and field path: the repeated chains of the
    # larger policy read the same four fields again
    assert large["field_guarantee"] == small["field_guarantee"]


def test_each_expression_is_parsed_once_whatever_the_number_of_kinds() -> None:
    calls = _counts(policy(4))
    assert calls["parse"] == len(ROOTS)  # not once per view and matched kind (4 x 20)


def test_an_issue_is_placed_without_walking_the_expression_again() -> None:
    # Each validation fails to type-check for the kinds its guard rules out (hundreds of
    # issues): finding their guards must not walk the AST once per issue.
    calls = _counts(policy(8))
    assert calls["walk"] <= 3 * len(ROOTS)  # was hundreds: one walk per issue


VARIABLES = """\
  variables:
    - name: spec
      expression: >-
        object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ?
        object.spec.jobTemplate.spec.template.spec : object.kind == 'PodTemplate' ?
        object.template.spec : object.spec.template.spec
    - name: v0
      expression: >-
        variables.spec.containers.all(c, !has(c.securityContext) || c.securityContext.privileged != true)
"""


def chained(variables: int) -> str:
    """A kind-dispatching variable (a type-check issue for every kind: `undefined field
    'template'` on a Pod), then `variables` chained variables each reading the one before."""
    chain = "".join(
        f"    - name: v{i}\n      expression: >-\n        variables.v{i - 1} && "
        "variables.spec.containers.all(c, !has(c.securityContext) || c.securityContext.runAsUser != 0)\n"
        for i in range(1, variables)
    )
    validation = f"  validations:\n    - expression: variables.v{variables - 1}\n"
    return HEADER.removesuffix("  validations:\n") + VARIABLES + chain + validation


def test_a_chain_of_variables_is_not_walked_per_link_to_place_the_first_ones_issue() -> None:
    # Whether `spec` runs for a kind (lazily evaluated: only when a read of it can run) used to
    # take each reader's whole narrowing, which took its readers', down the chain: a walk of
    # every variable for every kind and view. A read that can run settles it on its path alone.
    def walks(text: str) -> int:
        clear_caches()
        with counting((context, "reachability"), (narrowing, "reachability")) as calls:
            diagnostics = analyse_text(text).diagnostics
        assert [d.code for d in diagnostics if d.severity.name in ("ERROR", "WARNING")] == []
        return calls["reachability"]

    short, long = walks(chained(5)), walks(chained(20))
    assert long == short  # was 15 more per kind and view


def test_a_variable_reading_alike_typed_variables_is_compiled_once_for_all_kinds() -> None:
    # Each chained variable reads `variables.spec`, a PodSpec for all nine kinds (named
    # `Pod.spec`, `Deployment.spec.template.spec`, ...): one compile at create time, one for the
    # type-check views (it names no kind-typed root) and one for the precise views, whatever the
    # number of kinds. It was one precise compile per kind (9).
    def compiles(text: str) -> int:
        clear_caches()
        with counting((cel_compile, "check")) as calls:
            analyse_text(text)
        return calls["check"]

    assert compiles(chained(20)) - compiles(chained(5)) == 3 * 15
