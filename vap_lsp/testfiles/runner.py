"""Running cases through `admit` and judging the result against the expectation.

Why decisions are derived from evaluations, not only from `allowed`: a case may name one
policy among many (only its verdict counts), and kaptest's `error`/`skip` are facts about the
evaluation (an expression failed, a match condition was false) that `allowed` hides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from vap_lsp.admission.api import (
    AdmissionRequestInput,
    AdmissionResult,
    Evaluation,
    PolicyInputs,
    admit,
    prepare,
)
from vap_lsp.defaulting import default_object
from vap_lsp.schema.store import default_version, get_schema_set, normalize_version
from vap_lsp.testfiles.common import match_everything
from vap_lsp.testfiles.model import CaseResult, Decision, Mode, TestCase, TestSuite

# Expressions whose failure is an evaluation error (kaptest `error`): match conditions,
# validations and mutations; message expressions and audit annotations never decide.
_DECIDING_FIELD = re.compile(
    r"^spec\.(matchConditions\[\d+\]|validations\[\d+\]|mutations\[\d+\])(\.|$)(?!.*messageExpression)"
)


def _deciding(field: str) -> bool:
    return bool(_DECIDING_FIELD.match(field)) and "messageExpression" not in field


def _relevant(result: AdmissionResult, policy: str | None) -> list[Evaluation]:
    return [e for e in result.evaluations if policy is None or e.policy == policy]


def errored(result: AdmissionResult, policy: str | None) -> list[str]:
    return [
        f"{x.field}: {x.error}"
        for e in _relevant(result, policy)
        for x in e.expressions
        if x.error and _deciding(x.field)
    ]


def observed_decision(
    result: AdmissionResult, request: AdmissionRequestInput, policy: str | None, mode: Mode = Mode.SERVER
) -> Decision:
    evaluations = _relevant(result, policy)
    matched = [e for e in evaluations if e.matched]
    if errored(result, policy):
        return Decision.ERROR
    if mode is Mode.KAPTEST:
        return _kaptest_decision(result, request, matched)
    if any(policy is None or d.policy == policy for d in result.denials):
        return Decision.DENY
    if not matched:
        return Decision.SKIP
    if result.patched is not None and _normal(result.patched) != _normal(request.object):
        return Decision.MUTATE
    return Decision.ADMIT


def _kaptest_decision(
    result: AdmissionResult, request: AdmissionRequestInput, matched: list[Evaluation]
) -> Decision:
    """kaptest's verdict is about expressions only: deny means a validation was false, and a
    denial for any other reason (a binding that cannot be configured) is an error."""
    if not matched:
        return Decision.ERROR if result.denials else Decision.SKIP
    false = [
        x
        for e in matched
        for x in e.expressions
        if x.result is False and re.match(r"^spec\.validations\[\d+\]\.expression$", x.field)
    ]
    if false:
        return Decision.DENY
    if result.denials:
        return Decision.ERROR
    if result.patched is not None and _normal(result.patched) != _normal(request.object):
        return Decision.MUTATE
    return Decision.ADMIT


def _as_stored(value: Any, kubernetes_version: str, namespace: Any) -> Any:
    """Defaulted, in the request's namespace: what the server would hold of an object written
    with or without defaults (`vap_lsp.defaulting.server.before_mutating`)."""
    if not isinstance(value, dict):
        return value
    out = default_object(value, kubernetes_version).object
    meta = out.get("metadata")
    if isinstance(namespace, str) and namespace and isinstance(meta, dict) and not meta.get("namespace"):
        meta["namespace"] = namespace
    return out


def _normal(value: Any) -> Any:
    """JSON data as the API server would store it (ints and floats compare as numbers)."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def _satisfies(expected: Decision, actual: Decision, result: AdmissionResult, policy: str | None) -> bool:
    if expected is actual:
        return True
    # An evaluation error under failurePolicy Fail is a denial, and the API server says so.
    if expected is Decision.DENY and actual is Decision.ERROR:
        return any(policy is None or d.policy == policy for d in result.denials)
    # A mutating policy that matched and left the object as it was admitted it.
    return expected is Decision.ADMIT and actual is Decision.MUTATE and result.patched is None


def run_case(case: TestCase, kubernetes_version: str, *, explain: bool = False) -> CaseResult:
    """The case's verdict against its expectation; with `explain`, the evaluations are traced
    and explained (`test --explain`, `--coverage`): the verdict is the same."""
    explanations = None
    try:
        if explain:
            from vap_lsp.admission.explain import explain_result

            prepared = prepare(
                case.inputs,
                kubernetes_version=kubernetes_version,
                builtin_admission=case.builtin_admission,
            )
            result = prepared.admit(case.request, explain=True)
            explanations = explain_result(result, prepared, case.request)
        else:
            result = admit(
                case.request,
                case.inputs,
                kubernetes_version=kubernetes_version,
                builtin_admission=case.builtin_admission,
            )
    except Exception as exc:  # admit must not raise; if it does, the case fails, others run
        return CaseResult(case, False, "crash", [f"admission raised {type(exc).__name__}: {exc}"])
    actual = observed_decision(result, case.request, case.policy, case.mode)
    failures: list[str] = []
    expect = case.expect
    if expect.decision is not None and not _satisfies(expect.decision, actual, result, case.policy):
        detail = _why(result, case.policy)
        failures.append(f"expected {expect.decision.value}, got {actual.value}{detail}")
    if expect.allowed is not None and result.allowed is not expect.allowed:
        failures.append(f"expected allowed={str(expect.allowed).lower()}, got {str(result.allowed).lower()}")
    messages = [d.message for d in result.denials if case.policy is None or d.policy == case.policy]
    for wanted in expect.messages:
        if not any(wanted in m for m in messages):
            failures.append(f"no denial message contains {wanted!r} (got {messages or 'none'})")
    for wanted in expect.warnings:
        if not any(wanted in w for w in result.warnings):
            failures.append(f"no warning contains {wanted!r} (got {result.warnings or 'none'})")
    for key, value in expect.audit_annotations.items():
        got = next(
            (v for k, v in result.audit_annotations.items() if k == key or k.endswith("/" + key)), None
        )
        if got != value:
            failures.append(f"audit annotation {key}: expected {value!r}, got {got!r}")
    if expect.patched is not None:
        patched = result.patched if result.patched is not None else case.request.object
        # Both as the server stores them: an expectation may be written with or without defaults.
        namespace = result.object.get("namespace")
        stored = _as_stored(patched, kubernetes_version, namespace)
        if _normal(stored) != _normal(_as_stored(expect.patched, kubernetes_version, namespace)):
            failures.append(
                "patched object differs from the expected one:\n" + _diff(expect.patched, patched)
            )
    notes = list(case.notes)
    if case.mode is Mode.KAPTEST and case.original_policy is not None:
        notes.extend(_server_would_match(case, kubernetes_version))
    passed = not failures
    return CaseResult(
        case,
        passed,
        actual.value,
        failures,
        result,
        notes,
        expected_difference=not passed and case.expected_difference is not None,
        explanations=explanations,
    )


def _why(result: AdmissionResult, policy: str | None) -> str:
    evaluations = _relevant(result, policy)
    reasons = [e.why_not for e in evaluations if not e.matched and e.why_not]
    errors = errored(result, policy)
    denials = [d.message for d in result.denials if policy is None or d.policy == policy]
    parts = [*(f"not matched: {r}" for r in reasons[:2]), *errors[:2], *(f"denied: {m}" for m in denials[:2])]
    if not evaluations:
        parts.append("no binding of the policy applies")
    return f" ({'; '.join(parts)})" if parts else ""


def _server_would_match(case: TestCase, kubernetes_version: str) -> list[str]:
    """kaptest never evaluates matchConstraints; say when the API server would not match."""
    policy = case.original_policy
    assert policy is not None
    spec = policy.get("spec")
    constraints = spec.get("matchConstraints") if isinstance(spec, dict) else None
    if match_everything(policy)["spec"]["matchConstraints"] == constraints:
        return []
    obj = case.request.object or case.request.old_object or {}
    if not _known_kind(obj, case.inputs.crds, kubernetes_version):
        return []  # no CRD: the resource name would be a guess, so would the verdict
    probe = dict(policy)
    probe["spec"] = dict(spec) if isinstance(spec, dict) else {}
    probe["spec"]["matchConditions"] = []
    inputs = PolicyInputs([probe], list(case.inputs.bindings), list(case.inputs.params),
                          list(case.inputs.namespaces), list(case.inputs.crds))  # fmt: skip
    try:
        result = admit(case.request, inputs, kubernetes_version=kubernetes_version)
    except Exception:
        return []
    if any(e.matched for e in result.evaluations):
        return []
    reasons = [e.why_not for e in result.evaluations if e.why_not]
    why = f": {reasons[0]}" if reasons else ""
    return [f"on an API server this policy's matchConstraints would not match this request{why}"]


def _known_kind(obj: dict[str, Any], crds: list[dict[str, Any]], kubernetes_version: str) -> bool:
    group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
    kind = obj.get("kind")
    if get_schema_set(kubernetes_version).resource_for_kind(group, version, str(kind)) is not None:
        return True
    for crd in crds:
        spec = crd.get("spec")
        if isinstance(spec, dict) and spec.get("group") == group:
            names = spec.get("names")
            if isinstance(names, dict) and names.get("kind") == kind:
                return True
    return False


def _diff(expected: Any, actual: Any) -> str:
    import difflib

    a = json.dumps(_normal(expected), indent=2, sort_keys=True).splitlines()
    b = json.dumps(_normal(actual), indent=2, sort_keys=True).splitlines()
    return "\n".join(difflib.unified_diff(a, b, "expected", "actual", lineterm="", n=2))


def suite_version(suite: TestSuite, override: str | None) -> str:
    if override:
        return normalize_version(override)
    if suite.kubernetes_version:
        try:
            return normalize_version(suite.kubernetes_version)
        except ValueError:
            suite.problems.append(
                f"{suite.path}: kubernetesVersion {suite.kubernetes_version!r} is not bundled"
            )
    return default_version()


def run_suite(
    suite: TestSuite,
    kubernetes_version: str | None = None,
    policy: str | None = None,
    *,
    explain: bool = False,
) -> list[CaseResult]:
    """Every case of the suite (only those about `policy` when given)."""
    version = suite_version(suite, kubernetes_version)
    return [run_case(c, version, explain=explain) for c in _cases(suite.cases, policy)]


def _cases(cases: Iterable[TestCase], policy: str | None) -> list[TestCase]:
    return [c for c in cases if policy is None or c.policy in (None, policy)]
