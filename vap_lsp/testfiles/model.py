"""The one case model every test-file format is read into, and the outcome of running a case.

Why one model: the runner, the reports (text, JUnit) and the editor need not know which tool's
file a case came from; only `mode` keeps the one semantic difference (kaptest ignores
`matchConstraints` and `failurePolicy`, see `kaptest`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs

if TYPE_CHECKING:
    from vap_lsp.admission.explain import EvaluationExplanation


class Decision(enum.Enum):
    """What a case expects of the policy it names (or of the request, when it names none)."""

    ADMIT = "admit"  # matched and not denied
    DENY = "deny"  # denied
    SKIP = "skip"  # not matched (match rules, selectors, bindings or matchConditions)
    ERROR = "error"  # an expression could not be evaluated
    MUTATE = "mutate"  # matched and the object changed


class Mode(enum.Enum):
    SERVER = "server"  # as the API server: bindings, matchConstraints, failurePolicy
    KAPTEST = "kaptest"  # the named policy's expressions only, as pfnet/kaptest evaluates them


@dataclass(frozen=True)
class Expectation:
    decision: Decision | None = None
    allowed: bool | None = None
    # Each must occur in (be a substring of) some denial message.
    messages: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    audit_annotations: dict[str, str] = field(default_factory=dict)
    # The whole object after mutation (compared exactly, as JSON data).
    patched: dict[str, Any] | None = None


@dataclass
class TestCase:
    __test__ = False  # not a pytest class

    name: str
    request: AdmissionRequestInput
    inputs: PolicyInputs
    expect: Expectation
    policy: str | None = None  # only this policy's verdict counts
    mode: Mode = Mode.SERVER
    line: int | None = None  # 1-based line of the case in its file
    notes: tuple[str, ...] = ()  # said with the result (e.g. a synthesized binding)
    # A difference from the file's tool that is known and explained: the case is reported as
    # an expected difference instead of a failure when it fails.
    expected_difference: str | None = None
    # kaptest: the policy as written (the case runs a rewritten copy), to tell whether the API
    # server would have matched the request at all.
    original_policy: dict[str, Any] | None = None
    # The server's own admission steps (its default-enabled mutating plugins, its built-in
    # validation, which rejects an incomplete object before validating admission); kaptest and
    # the Kyverno CLI skip them, and their suites are written for that.
    builtin_admission: bool = True


@dataclass
class TestSuite:
    __test__ = False  # not a pytest class

    path: str
    format: str  # "vap-lsp", "kaptest", "kyverno"
    cases: list[TestCase] = field(default_factory=list)
    # Bad input (unreadable file, wrong shape, missing reference): `vap-lsp test` exits 2.
    problems: list[str] = field(default_factory=list)
    kubernetes_version: str | None = None
    policies: tuple[str, ...] = ()  # names of the policies the file tests (for the editor)
    # The policies' objects with the file each is written in (coverage reports name the files).
    policy_sources: list[tuple[dict[str, Any], str]] = field(default_factory=list)


@dataclass
class CaseResult:
    case: TestCase
    passed: bool
    actual: str  # the observed decision, e.g. "deny", "admit", "skip"
    failures: list[str] = field(default_factory=list)
    result: AdmissionResult | None = None
    notes: list[str] = field(default_factory=list)
    # The case failed but names an explained difference (`TestCase.expected_difference`).
    expected_difference: bool = False
    explanations: list[EvaluationExplanation] | None = None  # with `run_case(..., explain=True)`
