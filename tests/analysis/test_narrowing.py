"""Narrowing by guards: a branch that cannot run for a matched kind is not a problem of that kind.

The API server's type-check controller (`plugin/policy/validating/typechecking.go`,
`TypeChecker.CheckExpression`) compiles each validation and messageExpression once per matched
kind and warns about every issue, in branches the kind can never reach too. vap-lsp keeps those
warnings faithful but labels the ones that lie only in unreachable branches
(`cel-type-check-guarded`, information, with the guard); a problem that can run stays a
`cel-type-check` warning for the kinds it can run for. vap-lsp's own checks
(`cel-type-check-extra`, `vap-lsp-type-check`, `optional-field`) are silent where a guard rules
the branch out.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.suppress import CodeRules

WORKLOADS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: workloads
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["pods"]
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
      - apiGroups: ["batch"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["cronjobs"]
"""

POD = "/v1, Kind=Pod"
DEPLOYMENT = "apps/v1, Kind=Deployment"
CRONJOB = "batch/v1, Kind=CronJob"


def _findings(spec_tail: str, head: str = WORKLOADS, *, codes: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(code, message) of every CEL type finding, in order, for `head` + the indented tail; a
    guarded branch's note as one finding per server warning it folds (`unfold`)."""
    text = head + textwrap.indent(textwrap.dedent(spec_tail), "  ")
    wanted = codes or (
        "cel-type-check",
        "cel-type-check-guarded",
        "cel-type-check-extra",
        "vap-lsp-type-check",
    )
    diagnostics: list[Diagnostic] = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    return [found for d in diagnostics if d.code in wanted for found in unfold(d)]


_UNREACHABLE = re.compile(r"unreachable for (.+?): guarded by (.+?)(?=; unreachable for |; the API server)")


def unfold(d: Diagnostic) -> list[tuple[str, str]]:
    """A `cel-type-check-guarded` note as the findings it folds, one per server warning in the
    branch and guard: `<field>: type checking against <kinds>: ERROR: …; unreachable for <kinds>:
    guarded by <guard>` (what the note's message and related information say together)."""
    if d.code != "cel-type-check-guarded":
        return [(d.code, d.message)]
    field = d.message.split(": ", 1)[0]
    guards = [(kinds.split("; "), guard) for kinds, guard in _UNREACHABLE.findall(d.message)]
    out: list[tuple[str, str]] = []
    for related in d.related:
        kinds_text, problem = related.message.removeprefix("type checking against ").split(": ERROR: ", 1)
        kinds = kinds_text.split("; ")
        for guarded, guard in guards:
            here = "; ".join(k for k in kinds if k in guarded)
            if here:
                finding = f"{field}: type checking against {here}: ERROR: {problem}"
                out.append((d.code, f"{finding}; unreachable for {here}: guarded by {guard}"))
    return out


def _col(expression: str, needle: str) -> int:
    """The 1-based column cel-go reports an issue at: the first `needle` (`.field`, `+`)."""
    return expression.index(needle) + 1


def _guarded(field: str, kinds: str, column: int, message: str, guard: str) -> tuple[str, str]:
    return (
        "cel-type-check-guarded",
        f"{field}: type checking against {kinds}: ERROR: <input>:1:{column}: {message}; "
        f"unreachable for {kinds}: guarded by {guard}",
    )


def _warning(field: str, kinds: str, column: int, message: str) -> tuple[str, str]:
    return ("cel-type-check", f"{field}: type checking against {kinds}: ERROR: <input>:1:{column}: {message}")


V0 = "spec.validations[0].expression"


# --- each guard form --------------------------------------------------------------------------


def _one(expression: str) -> str:
    return f'validations:\n  - expression: "{expression}"\n'


def test_kind_inequality_or_guards_the_branch_for_the_other_kinds() -> None:
    # The kubescape cel-admission-library pattern (C-0044 and most controls).
    e = "object.kind != 'Pod' || object.spec.containers.all(c, c.name != '')"
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "object.kind != 'Pod' || …",
        )
    ]  # fmt: skip


def test_kind_equality_and_guards_the_branch() -> None:
    e = "!(object.kind == 'CronJob' && object.spec.jobTemplate.spec.suspend == true)"
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{POD}; {DEPLOYMENT}", _col(e, ".jobTemplate"), "undefined field 'jobTemplate'",
            "object.kind == 'CronJob' && …",
        )
    ]  # fmt: skip


def test_a_list_of_kinds_through_all_guards_the_branch() -> None:
    # kubescape C-0044: ['Deployment', ...].all(kind, object.kind != kind) || …
    e = "['Deployment','Job'].all(k, object.kind != k) || object.spec.template.spec.hostPID != true"
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{POD}; {CRONJOB}", _col(e, ".template"), "undefined field 'template'",
            "['Deployment','Job'].all(k, object.kind != k) || …",
        )
    ]  # fmt: skip


def test_kind_in_a_list_and_the_conditional_operator() -> None:
    e = (
        "object.kind in ['Deployment'] ? object.spec.template.spec.hostNetwork != true"
        " : object.kind == 'Pod' ? object.spec.hostNetwork != true : true"
    )
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{POD}; {CRONJOB}", _col(e, ".template"), "undefined field 'template'",
            "object.kind in ['Deployment'] ? … : …",
        ),
        # One problem, two guards: the outer condition for a Deployment, the inner for a CronJob.
        _guarded(
            V0, DEPLOYMENT, _col(e, "object.spec.hostNetwork") + 11, "undefined field 'hostNetwork'",
            "object.kind in ['Deployment'] ? … : …",
        ),
        _guarded(
            V0, CRONJOB, _col(e, "object.spec.hostNetwork") + 11, "undefined field 'hostNetwork'",
            "object.kind == 'Pod' ? … : …",
        ),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "guard",
    [
        "object.apiVersion != 'v1'",
        "request.kind.kind != 'Pod'",
        "request.kind.group != ''",
        "request.resource.resource != 'pods'",
        # `oldObject.kind` decides only where oldObject is never null: see below.
        "!object.apiVersion.startsWith('v')",
        "object.?kind.orValue('') != 'Pod'",  # through an optional
        "!(object.?apiVersion.value() == 'v1')",
    ],
)
def test_other_kind_facts_guard_the_branch(guard: str) -> None:
    e = f"{guard} || object.spec.hostPID != true"
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPID"), "undefined field 'hostPID'", f"{guard} || …"
        )
    ]  # fmt: skip


def test_an_operation_the_rules_never_match_guards_the_branch() -> None:
    # The rules match CREATE and UPDATE only: a DELETE branch never runs, for any kind.
    e = "request.operation != 'DELETE' || object.spec.replicaz > 0"
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{POD}; {DEPLOYMENT}; {CRONJOB}", _col(e, ".replicaz"), "undefined field 'replicaz'",
            "request.operation != 'DELETE' || …",
        )
    ]  # fmt: skip


def test_has_of_a_field_the_kind_lacks_guards_the_rest_but_is_still_the_servers_warning() -> None:
    # has(object.spec.jobTemplate) is itself a type-check issue for a Pod (the server warns), and
    # false at run time: what it guards is unreachable for a Pod.
    e = "has(object.spec.jobTemplate) && object.spec.jobTemplate.spec.suspend == true"
    assert _findings(_one(e)) == [
        _warning(V0, f"{POD}; {DEPLOYMENT}", _col(e, "("), "undefined field 'jobTemplate'"),
        _guarded(
            V0, f"{POD}; {DEPLOYMENT}", _col(e, "spec.jobTemplate.spec") + 4, "undefined field 'jobTemplate'",
            "has(object.spec.jobTemplate) && …",
        ),
    ]  # fmt: skip


def test_a_variable_holding_a_kind_test_guards_the_branch() -> None:
    e = "!variables.isPod || object.spec.hostPID != true"
    tail = "variables:\n  - name: isPod\n    expression: \"object.kind == 'Pod'\"\n" + _one(e)
    assert _findings(tail) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPID"), "undefined field 'hostPID'",
            "!variables.isPod || … (variables.isPod: object.kind == 'Pod')",
        )
    ]  # fmt: skip


def test_a_kind_dispatching_variable_has_no_finding_for_any_kind() -> None:
    # kubescape C-0194: the variable's other branches are unreachable for each kind, and the
    # validation reads the one that runs.
    assert _findings("""\
        variables:
          - name: podSpec
            expression: >-
              object.kind == 'Pod' ? object.spec
              : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec
              : object.spec.template.spec
        validations:
          - expression: "!has(variables.podSpec.hostPID) || variables.podSpec.hostPID == false"
          - expression: "variables.podSpec.hostPIDz == false"
        """) == [
        (
            "vap-lsp-type-check",
            "spec.validations[1].expression: undefined field 'hostPIDz' (vap-lsp's own type check through "
            f"`variables.podSpec`, typed from {POD}; {DEPLOYMENT}; {CRONJOB}; the API server reads object "
            "types as dyn through variables and does not report this)",
        )
    ]


def test_a_kind_dispatching_variable_is_typed_for_the_kind_on_delete_too() -> None:
    """Matched on DELETE as well, `object` is null there: the variable's conditions fail (the
    `object.kind` read) before deciding anything, so the requests that can type it as the kind
    are CREATE and UPDATE (`narrowing.decide`'s default, the kind's type) and the variable is
    still typed per kind: the typo stays reported."""
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["CREATE", "UPDATE", "DELETE"]')
    assert _findings(
        """\
        variables:
          - name: podSpec
            expression: >-
              object.kind == 'Pod' ? object.spec
              : object.kind == 'CronJob' ? object.spec.jobTemplate.spec.template.spec
              : object.spec.template.spec
        validations:
          - expression: "variables.podSpec.hostPIDz == false"
        """,
        head,
    ) == [
        (
            "vap-lsp-type-check",
            "spec.validations[0].expression: undefined field 'hostPIDz' (vap-lsp's own type check through "
            f"`variables.podSpec`, typed from {POD}; {DEPLOYMENT}; {CRONJOB}; the API server reads object "
            "types as dyn through variables and does not report this)",
        )
    ]


# --- what still runs is still reported ---------------------------------------------------------


def test_a_problem_in_the_branch_that_runs_stays_a_warning() -> None:
    # kubescape C-0199: the concatenation does not type-check for the Pod, whose branch runs.
    e = "object.kind != 'Pod' || (object.spec.containers + object.spec.initContainers).all(c, c.name != '')"
    # The branch's note (where the branch starts) folds both guarded problems.
    assert _findings(_one(e)) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "object.kind != 'Pod' || …",
        ),
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".initContainers"), "undefined field 'initContainers'",
            "object.kind != 'Pod' || …",
        ),
        _warning(
            V0, POD, _col(e, "+"),
            "found no matching overload for '_+_' applied to '(list(Pod.spec.containers.@idx), "
            "list(Pod.spec.initContainers.@idx))'",
        ),
    ]  # fmt: skip


def test_and_is_not_or_a_kind_test_in_the_wrong_polarity_guards_nothing() -> None:
    # `object.kind == 'Pod' || …` runs the right side exactly for the other kinds.
    e = "object.kind == 'Pod' || object.spec.hostPID != true"
    assert _findings(_one(e)) == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPID"), "undefined field 'hostPID'")
    ]
    e = "object.kind != 'Pod' && object.spec.hostPID != true"
    assert _findings(_one(e)) == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPID"), "undefined field 'hostPID'")
    ]


@pytest.mark.parametrize(
    "guard",
    [
        "object.metadata.name != 'Pod'",  # not the kind
        "params.kind != 'Pod'",  # another root
        "[object].all(object, object.kind != 'Pod')",  # `object` is the comprehension's variable
        "true",  # a literal is no guard
        "request.operation != 'UPDATE'",  # an operation the rules match
        "has(object.metadata.labels)",  # a field every kind may have
    ],
)
def test_a_guard_that_does_not_decide_guards_nothing(guard: str) -> None:
    e = f"{guard} || object.spec.hostPIDz != true"
    assert _findings(_one(e)) == [
        _warning(V0, f"{POD}; {DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPIDz"), "undefined field 'hostPIDz'")
    ]


def test_a_variable_that_is_not_a_plain_test_guards_nothing() -> None:
    e = "!variables.isPod || object.spec.hostPIDz != true"
    test = "object.kind == 'Pod' || object.metadata.name == 'x'"
    tail = f'variables:\n  - name: isPod\n    expression: "{test}"\n'
    assert _findings(tail + _one(e)) == [
        _warning(V0, f"{POD}; {DEPLOYMENT}; {CRONJOB}", _col(e, ".hostPIDz"), "undefined field 'hostPIDz'")
    ]


def test_a_wildcard_rule_may_match_any_operation() -> None:
    head = WORKLOADS + '      - apiGroups: ["*"]\n        apiVersions: ["*"]\n'
    head += '        operations: ["DELETE"]\n        resources: ["*"]\n'
    e = "request.operation != 'DELETE' || object.spec.replicaz > 0"
    assert _findings(_one(e), head) == [
        _warning(V0, f"{POD}; {DEPLOYMENT}; {CRONJOB}", _col(e, ".replicaz"), "undefined field 'replicaz'")
    ]


# --- vap-lsp's own checks -----------------------------------------------------------------------


def test_own_check_of_a_match_condition_is_silent_in_a_guarded_branch() -> None:
    assert _findings("""\
        matchConditions:
          - name: spec
            expression: "object.kind != 'Pod' || object.spec.containers.size() > 0"
          - name: typo
            expression: "object.kind != 'Pod' || object.spec.containerz.size() > 0"
        validations:
          - expression: "true"
        """) == [
        (
            "cel-type-check-extra",
            f"spec.matchConditions[1].expression: type checking against {POD} (vap-lsp's own check: the API "
            "server does not type-check this expression): ERROR: <input>:1:36: undefined field 'containerz'",
        )
    ]


def test_optional_field_hints_only_in_the_branch_that_runs() -> None:
    found = _findings(
        """\
        validations:
          - expression: "object.kind != 'Deployment' || object.spec.minReadySeconds > 0"
        """,
        codes=("optional-field",),
    )
    assert [m for _, m in found if "minReadySeconds" in m] == [
        f"{V0}: object.spec.minReadySeconds is optional in the schema; without has() or `.?` the expression "
        "fails when it is absent"
    ]


def test_optional_field_guarded_by_a_field_admission_guarantees() -> None:
    """Where `minReadySeconds` is absent, `has(object.spec.minReadySeconds)` is false and, for a
    Deployment, `!has(object.spec.template)` is false too (`template` is required in apps/v1
    DeploymentSpec: always there at admission, `analysis.guarantees`): the read never runs
    absent, so no hint. Pods and CronJobs have no such field (a type error, not this hint)."""
    e = "(has(object.spec.minReadySeconds) || !has(object.spec.template)) && object.spec.minReadySeconds > 0"
    assert _findings(_one(e), codes=("optional-field",)) == []
    # Without the guaranteed field in the guard the read can run absent.
    e = "(has(object.spec.minReadySeconds) || has(object.spec.paused)) && object.spec.minReadySeconds > 0"
    assert [m for _, m in _findings(_one(e), codes=("optional-field",))] == [
        f"{V0}: object.spec.minReadySeconds is optional in the schema; without has() or `.?` the expression "
        "fails when it is absent"
    ]


def test_the_guarded_code_can_be_regraded_like_any_other() -> None:
    text = WORKLOADS + textwrap.indent(
        textwrap.dedent("""\
        validations:
          - expression: "object.kind != 'Pod' || object.spec.containers.all(c, c.name != '')"
        """),
        "  ",
    )
    regraded = AnalysisSettings("1.34", CodeRules(severity=(("cel-type-check-guarded", Severity.WARNING),)))
    assert [
        (d.code, d.severity) for d in analyse_text(text, regraded).diagnostics if d.code.startswith("cel-")
    ] == [("cel-type-check-guarded", Severity.WARNING)]
    ignored = AnalysisSettings("1.34", CodeRules(ignore=frozenset({"cel-type-check-guarded"})))
    assert [d.code for d in analyse_text(text, ignored).diagnostics if d.code.startswith("cel-")] == []


def test_old_object_is_null_when_every_matched_operation_is_create() -> None:
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["CREATE"]')
    e = "oldObject != null && oldObject.spec.replicaz != object.spec.replicas"
    found = _findings(_one(e), head, codes=("cel-type-check", "cel-type-check-guarded"))
    assert [(code, m.split("; unreachable")[-1]) for code, m in found if "replicaz" in m] == [
        ("cel-type-check-guarded", f" for {POD}; {DEPLOYMENT}; {CRONJOB}: guarded by oldObject != null && …")
    ]
    # With UPDATE matched too, oldObject may be there: the problem can run.
    found = _findings(_one(e), codes=("cel-type-check", "cel-type-check-guarded"))
    assert [code for code, m in found if "replicaz" in m] == ["cel-type-check"]


def test_a_variable_read_only_in_guarded_branches_is_not_checked_for_that_kind() -> None:
    # kubescape C-0296: variables are evaluated lazily (composition.go), so for a CronJob the
    # variable reading `spec.template` never runs; for the others its guard is undecided.
    assert (
        _findings("""\
        variables:
          - name: templateLabels
            expression: "has(object.spec.template) ? object.spec.template.metadata.labels : {}"
        validations:
          - expression: "object.kind == 'CronJob' || variables.templateLabels.size() > 0"
        """)
        == []
    )
    # Read where a CronJob runs too, and read without has(): vap-lsp's own check of the variable
    # reports it for the kinds that lack the field (a hint: not every kind fails).
    found = _findings("""\
        variables:
          - name: templateLabels
            expression: "object.spec.template.metadata.labels"
        validations:
          - expression: "variables.templateLabels.size() > 0"
        """)
    assert [(code, m.split(" (vap-lsp")[0]) for code, m in found] == [
        ("cel-type-check-extra", f"spec.variables[0].expression: type checking against {POD}; {CRONJOB}")
    ]


def test_has_of_a_field_always_present_at_admission_is_true() -> None:
    # AverageMarcus/common-admission-policies block-latest-tag: `!has(object.spec.template) && …`
    # is the Pod branch. A Deployment's spec.template is required (always serialized), so for a
    # Deployment that branch cannot run; for a CronJob `has()` is false (no such field): the
    # branch runs, and its problem is real.
    e = "!has(object.spec.template) && object.spec.containers.all(c, c.name != '')"
    found = _findings(_one(e))
    assert [(code, m.split("; unreachable for ")[-1]) for code, m in found if "'containers'" in m] == [
        ("cel-type-check-guarded", f"{DEPLOYMENT}: guarded by !has(object.spec.template) && …"),
        ("cel-type-check", _warning(V0, CRONJOB, _col(e, ".containers"), "undefined field 'containers'")[1]),
    ]
    # On DELETE `object` is null: has() is an error there, which decides nothing.
    head = WORKLOADS.replace(
        '["CREATE", "UPDATE"]\n        resources: ["deployments"]',
        '["DELETE"]\n        resources: ["deployments"]',
    )
    found = _findings(_one(e), head)
    assert [m for code, m in found if "'containers'" in m] == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'")[1]
    ]


def test_has_of_a_field_always_present_on_the_old_object_is_true_on_update() -> None:
    """The same guard on `oldObject`, matched on UPDATE and DELETE only: `oldObject` is the
    stored object in every request (`activation.go`), whose required `spec.template` is there,
    so for a Deployment the Pod branch cannot run."""
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["UPDATE", "DELETE"]')
    e = "!has(oldObject.spec.template) && oldObject.spec.containers.all(c, c.name != '')"
    assert [f for f in _findings(_one(e), head) if "'containers'" in f[1]] == [
        _guarded(
            V0, DEPLOYMENT, _col(e, ".containers"), "undefined field 'containers'",
            "!has(oldObject.spec.template) && …",
        ),
        _warning(V0, CRONJOB, _col(e, ".containers"), "undefined field 'containers'"),
    ]  # fmt: skip


# --- a kind test on a root that can be null ------------------------------------------------------


def test_a_kind_test_on_old_object_decides_nothing_on_create() -> None:
    # On CREATE `oldObject` is null: `oldObject.kind` is an error, which `||` absorbs, so the
    # right side runs for a Deployment and a CronJob and fails there (no such key: containers).
    e = "oldObject.kind != 'Pod' || object.spec.containers.size() > 0"
    found = _findings(_one(e))
    assert found == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'")
    ]
    # Matched on UPDATE only, `oldObject` is the stored object: its kind is the kind.
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["UPDATE"]')
    assert _findings(_one(e), head) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "oldObject.kind != 'Pod' || …",
        )
    ]  # fmt: skip


def test_a_kind_test_on_object_decides_nothing_on_delete() -> None:
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["UPDATE", "DELETE"]')
    # On DELETE `object.kind` is an error and the right side, reading the stored oldObject, runs.
    e = "object.kind != 'Pod' || oldObject.spec.containers.size() > 0"
    assert _findings(_one(e), head) == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'")
    ]
    # A side that reads `object` fails at the null object first: on DELETE it never reaches
    # `containers` (object-on-delete says what fails there), on UPDATE the guard decides.
    e = "object.kind != 'Pod' || object.spec.containers.size() > 0"
    assert _findings(_one(e), head) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "object.kind != 'Pod' || … (on DELETE object is null: it fails there first)",
        )
    ]  # fmt: skip
    # An operation test that lets the side run on DELETE is no guard there.
    e = "request.operation == 'UPDATE' || object.spec.containers.size() > 0"
    assert _findings(_one(e), head) == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'")
    ]


# --- matchConditions ----------------------------------------------------------------------------


def test_a_match_condition_false_for_a_kind_rules_out_every_validation_for_it() -> None:
    # The validations run only for requests every matchCondition lets through
    # (`matchconditions/matcher.go`): for a Deployment and a CronJob, never.
    e = "object.spec.containers.all(c, c.name != '')"
    condition = "matchConditions:\n  - name: pods\n    expression: \"object.kind == 'Pod'\"\n"
    found = _findings(condition + _one(e))
    assert found == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "spec.matchConditions[0].expression (object.kind == 'Pod'), false in every request of this kind",
        )
    ]  # fmt: skip


def test_a_match_condition_that_does_not_decide_rules_out_nothing() -> None:
    e = "object.spec.containers.all(c, c.name != '')"
    condition = "matchConditions:\n  - name: named\n    expression: \"object.metadata.name != 'x'\"\n"
    found = _findings(condition + _one(e))
    assert found == [
        _warning(V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'")
    ]


def test_a_match_condition_on_the_operation_narrows_the_operations_of_the_validations() -> None:
    head = WORKLOADS.replace('["CREATE", "UPDATE"]', '["UPDATE", "DELETE"]')
    # Without the condition, on DELETE `object.kind` is an error and the right side runs.
    e = "object.kind != 'Pod' || oldObject.spec.containers.size() > 0"
    condition = "matchConditions:\n  - name: not-delete\n    expression: \"request.operation != 'DELETE'\"\n"
    assert _findings(condition + _one(e), head) == [
        _guarded(
            V0, f"{DEPLOYMENT}; {CRONJOB}", _col(e, ".containers"), "undefined field 'containers'",
            "object.kind != 'Pod' || …",
        )
    ]  # fmt: skip
    e = "request.operation == 'DELETE' ? object.spec.replicaz > 0 : true"
    assert _findings(condition + _one(e), head) == [
        _guarded(
            V0, f"{POD}; {DEPLOYMENT}; {CRONJOB}", _col(e, ".replicaz"), "undefined field 'replicaz'",
            "request.operation == 'DELETE' ? … : …",
        )
    ]  # fmt: skip


def test_the_guard_is_quoted_with_its_parentheses() -> None:
    e = "(object.kind == 'Pod' || object.kind == 'CronJob') ? true : object.spec.template.spec.hostPIDz"
    found = _findings(_one(e))
    assert [m.split("guarded by ")[-1] for code, m in found if code == "cel-type-check-guarded"] == [
        "(object.kind == 'Pod' || object.kind == 'CronJob') ? … : …"
    ]
    e = "(object.kind == 'Pod' || object.kind == 'CronJob') && object.spec.hostPIDz"
    found = _findings(_one(e))
    assert [m.split("guarded by ")[-1] for code, m in found if code == "cel-type-check-guarded"] == [
        "(object.kind == 'Pod' || object.kind == 'CronJob') && …"
    ]
    e = "((object.kind == 'Pod') ? true : false) && object.spec.hostPIDz"
    found = _findings(_one(e))
    assert [m.split("guarded by ")[-1] for code, m in found if code == "cel-type-check-guarded"] == [
        "((object.kind == 'Pod') ? true : false) && …"
    ]


def test_a_kind_test_no_matched_kind_passes_is_a_warning_beside_the_guarded_problems() -> None:
    # `'pod'` is no kind: the test is true for every request, the right side never runs, and
    # its problems are only guarded notes. The test itself is the mistake.
    e = "object.kind != 'pod' || object.spec.containers.all(c, c.image != '')"
    found = _findings(_one(e), codes=("kind-never-matched", "cel-type-check", "cel-type-check-guarded"))
    assert found[0] == (
        "kind-never-matched",
        f"{V0}: object.kind is never 'pod' (did you mean 'Pod'?): this policy matches CronJob, "
        "Deployment, Pod, so the test has the same value for every request and what it guards never "
        "runs (or always does)",
    )
    assert [code for code, _ in found[1:]] == ["cel-type-check-guarded"]
    # A list with one matched kind, another root's kind test, an untyped rule: nothing to say.
    for e in [
        "object.kind in ['Pod', 'Job'] || true",
        "params.kind == 'pod'",
        "request.kind.kind != 'Pod' || true",
    ]:
        assert _findings(_one(e), codes=("kind-never-matched",)) == [], e
    head = WORKLOADS + '      - apiGroups: ["*"]\n        apiVersions: ["*"]\n'
    head += '        operations: ["CREATE"]\n        resources: ["*"]\n'
    assert _findings(_one("object.kind == 'Widget'"), head, codes=("kind-never-matched",)) == []
    # Kinds that exist but are not matched: harmless dead code, faded; one no schema has: a typo.
    codes = ("kind-never-matched", "kind-test-dead")
    assert _findings(_one("request.kind.kind in ['Job', 'ReplicaSet']"), codes=codes) == [
        (
            "kind-test-dead",
            f"{V0}: request.kind.kind is never 'Job', 'ReplicaSet': this policy matches CronJob, Deployment, "
            "Pod, so the test has the same value for every request and what it guards never runs (or "
            "always does): dead code, unless the policy should match that kind too",
        )
    ]
    assert [
        code for code, _ in _findings(_one("request.kind.kind in ['Job', 'Replicaset']"), codes=codes)
    ] == ["kind-never-matched"]


def test_a_dead_kind_test_is_information_tagged_unnecessary() -> None:
    # A Deployment-only policy testing for a Pod: the Pod branch never runs.
    head = WORKLOADS.split('      - apiGroups: [""]')[0] + (
        '      - apiGroups: ["apps"]\n        apiVersions: ["v1"]\n        operations: ["CREATE"]\n'
        '        resources: ["deployments"]\n'
    )
    text = head + textwrap.indent(_one("object.kind == 'Pod' ? true : object.spec.replicas < 10"), "  ")
    (dead,) = [
        d for d in analyse_text(text, AnalysisSettings("1.34")).diagnostics if d.code == "kind-test-dead"
    ]
    assert dead.severity is Severity.INFORMATION and dead.unnecessary
    assert text[dead.span.start : dead.span.end] == "object.kind == 'Pod'"


# --- one note per unreachable branch -----------------------------------------------------------


def _notes(expression: str) -> list[Diagnostic]:
    text = WORKLOADS + textwrap.indent(_one(expression), "  ")
    found = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    return [d for d in found if d.code == "cel-type-check-guarded"]


def test_a_branch_is_one_note_however_many_warnings_it_holds() -> None:
    # A Pod Security chain: the server warns for every field of the Pod branch, per kind.
    e = (
        "object.kind != 'Pod' || (!has(object.spec.securityContext) || "
        "object.spec.securityContext.runAsNonRoot == true) && object.spec.containers.all(c, c.name != '') "
        "&& object.spec.hostPID != true"
    )
    (note,) = _notes(e)
    branch = e.split(" || ", 1)[1]
    text = WORKLOADS + textwrap.indent(_one(e), "  ")
    assert text[note.span.start : note.span.end] == branch
    assert note.message.startswith(
        f"{V0}: unreachable for {DEPLOYMENT}; {CRONJOB}: guarded by object.kind != 'Pod' || …; "
        "the API server's type checker reports 4 problems here for them"
    )
    # The server's four warnings for those kinds, each at its field, folded into the one note.
    assert sorted(r.message.rsplit(": ", 1)[1] for r in note.related) == [
        "undefined field 'containers'",
        "undefined field 'hostPID'",
        "undefined field 'securityContext'",
        "undefined field 'securityContext'",
    ]
    assert all(
        f"type checking against {DEPLOYMENT}; {CRONJOB}: ERROR: <input>:1:" in r.message for r in note.related
    )
    assert not note.unnecessary  # a Pod runs it: live code, not faded


def test_a_branch_no_kind_can_run_is_dead_code() -> None:
    # No matched kind is a Secret: the branch never runs, whatever the request.
    (note,) = _notes("object.kind != 'Secret' || object.data.size() > 0")
    assert note.unnecessary
    assert f"unreachable for {POD}; {DEPLOYMENT}; {CRONJOB}" in note.message
