"""`vap-lsp convert --verify`: the source's own tests replayed through the converted policies
with vap-lsp's offline admission (`admission.prepare`/`admit`), case by case.

- Gatekeeper suites (`suite.yaml`, open-policy-agent/gatekeeper `pkg/gator/verify`): each test's
  template and constraint, each case's object (`example_allowed.yaml`, `example_disallowed*.yaml`;
  an AdmissionReview as its request, an UPDATE without oldObject given its object as the old one;
  any other object as a CREATE), each assertion's `violations` (yes, no, a number) of those whose
  message matches `message` (a Go regular expression).
- Kyverno tests (`kyverno-test.yaml`, read by `testfiles.kyverno.read_test_files`): each result's
  policy and rule (its autogen rules included), kind and resources, `result` pass, fail, skip or
  error; resources in no namespace go to `default`, values set `request.operation`.

A violation is what the binding's actions make visible: a denial (Deny), a warning (Warn), an
entry of the `validation_failure` audit annotation (Audit). A case whose policy could not be
converted, or that tests something else than a decision (a constraint Gatekeeper must reject),
is not evaluable and says why; every other case agrees or not, and a disagreement can be
explained (`--explain`: the evaluation traced as `vap-lsp run --explain` shows it).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_lsp.admission.api import (
    AdmissionRequestInput,
    AdmissionResult,
    PolicyInputs,
    load_admission_review,
    prepare,
)
from vap_lsp.admission.engine import VALIDATION_FAILURE_KEY
from vap_lsp.analysis.files import expand_glob, read_text, unreadable
from vap_lsp.convert import gatekeeper, kyverno
from vap_lsp.convert.model import Converted, Options
from vap_lsp.golang import regexp as go_regexp
from vap_lsp.testfiles.common import in_default_namespace
from vap_lsp.testfiles.kyverno import find_targets, is_kyverno_test, read_test_files
from vap_lsp.testfiles.loader import SourceObject, TestDocument, load_objects, parse_test_document, resolve

if TYPE_CHECKING:
    from vap_lsp.admission.engine import PreparedInputs


_WARNING = re.compile(
    r"^Validation failed for ValidatingAdmissionPolicy '([^']*)' with binding '([^']*)': (.*)$", re.S
)
AGREE, DISAGREE, NOT_EVALUABLE = "agree", "disagree", "not evaluable"


@dataclass
class CaseResult:
    """One case: what the source's test expects, what the converted policy decided."""

    test_file: str
    line: int | None
    tool: str  # "gatekeeper" | "kyverno"
    name: str
    policy: str  # the source policy (template or Kyverno policy, with its rule)
    expected: str
    actual: str | None = None
    status: str = AGREE
    reason: str = ""  # why not evaluable, or what differs
    explanation: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.test_file,
            "line": self.line,
            "tool": self.tool,
            "case": self.name,
            "policy": self.policy,
            "expected": self.expected,
            "actual": self.actual,
            "status": self.status,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.explanation:
            out["explanation"] = self.explanation
        return out


@dataclass
class Verification:
    cases: list[CaseResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: int = 0

    def count(self, status: str) -> int:
        return sum(1 for c in self.cases if c.status == status)


# --- discovery -----------------------------------------------------------------------------------

_TEST_NAMES = ("suite.yaml", "kyverno-test.yaml", "kyverno-test.yml")


def find_tests(paths: Sequence[str | Path], problems: list[str]) -> list[Path]:
    """Gatekeeper `suite.yaml` and Kyverno `kyverno-test.yaml` files: given, or found in folders
    (also in Kyverno's hidden `.kyverno-test` folders)."""
    out: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for name in _TEST_NAMES:
                for pattern in (f"**/{name}", f"**/.kyverno-test/{name}"):
                    for found in expand_glob(str(path / pattern), problems):
                        out[found] = None
        elif (problem := unreadable(path)) is not None:
            problems.append(problem)
        else:
            out[path] = None
    return sorted(out)


def is_gatekeeper_suite(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and data.get("kind") == "Suite"
        and str(data.get("apiVersion", "")).startswith("test.gatekeeper.sh/")
    )


# --- what a case observed ------------------------------------------------------------------------


@dataclass
class Observed:
    violations: list[str]
    errors: list[str]
    matched: bool


def observe(result: AdmissionResult, policies: set[str]) -> Observed:
    """The violations the policies' bindings made visible (denials, warnings, audit entries),
    their evaluation errors, and whether any of them matched the request."""
    channels: dict[tuple[str, str], dict[str, list[str]]] = {}  # (policy, binding) → channel → messages

    def add(policy: str, binding: str, channel: str, message: str) -> None:
        if policy in policies:
            channels.setdefault((policy, binding), {}).setdefault(channel, []).append(message)

    for denial in result.denials:
        add(denial.policy, denial.binding, "deny", denial.detail)
    for warning in result.warnings:
        m = _WARNING.match(warning)
        if m is not None:
            add(m.group(1), m.group(2), "warn", m.group(3))
    audit = result.audit_annotations.get(VALIDATION_FAILURE_KEY)
    if audit:
        try:
            entries = json.loads(audit)
        except ValueError:
            entries = []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping):
                add(str(entry.get("policy")), str(entry.get("binding")), "audit", str(entry.get("message")))
    violations: list[str] = []
    for by_channel in channels.values():
        longest: list[str] = []
        for messages in by_channel.values():  # Warn and Audit both: one violation, two channels
            if len(messages) > len(longest):
                longest = messages
        violations.extend(longest)
    evaluations = [e for e in result.evaluations if e.policy in policies]
    errors = [f.message for e in evaluations for f in e.failures if f.error]
    return Observed(violations, errors, any(e.matched for e in evaluations))


def _explain(prepared: PreparedInputs, request: AdmissionRequestInput, policies: set[str]) -> list[str]:
    from vap_lsp.admission.explain import explain_result, render_text

    result = prepared.admit(request, explain=True)
    explanations = [e for e in explain_result(result, prepared, request) if e.policy in policies]
    return render_text(explanations, "  ")


# --- Gatekeeper ----------------------------------------------------------------------------------


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _same_file(a: str, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _find_conversion(conversions: list[Converted], path: Path, kind: str, name: str) -> Converted | None:
    same = [c for c in conversions if c.origin.kind == kind and c.origin.name == name]
    return next((c for c in same if _same_file(c.origin.path, path)), None)


def _unconvertible_reason(conversion: Converted, rule: str | None = None) -> str:
    items = [u for u in conversion.unconvertible if rule is None or u.origin.rule in (None, rule)]
    return "; ".join(f"{u.construct}: {u.reason}" for u in items[:3]) or "not converted"


def _request_for(obj: SourceObject, crds: list[dict[str, Any]], notes: list[str]) -> AdmissionRequestInput:
    data = obj.data
    if data.get("kind") == "AdmissionReview" and str(data.get("apiVersion", "")).startswith(
        "admission.k8s.io/"
    ):
        request = load_admission_review(data)
        for attr in ("object", "old_object"):
            value = getattr(request, attr)
            if isinstance(value, dict):
                setattr(request, attr, in_default_namespace(value, crds))
        if request.operation == "UPDATE" and request.old_object is None and request.object is not None:
            request.old_object = copy.deepcopy(request.object)
            notes.append("an UPDATE without oldObject: replayed with the object as its old version")
        if request.operation == "DELETE" and request.object is not None and request.old_object is None:
            request.old_object, request.object = request.object, None
        return request
    subject = in_default_namespace(copy.deepcopy(data), crds)
    meta = subject.get("metadata") if isinstance(subject.get("metadata"), dict) else {}
    assert isinstance(meta, dict)
    namespace = meta.get("namespace")
    return AdmissionRequestInput(
        "CREATE", subject, namespace=namespace if isinstance(namespace, str) else None
    )


def _expected_text(assertion: Mapping[str, Any]) -> str:
    violations = assertion.get("violations", "yes")
    if isinstance(violations, bool):  # YAML 1.1 reads yes/no as booleans
        violations = "yes" if violations else "no"
    message = assertion.get("message")
    text = f"violations: {violations}"
    return text + (f" matching /{message}/" if isinstance(message, str) else "")


def _assertion_holds(assertion: Mapping[str, Any], violations: list[str]) -> tuple[bool, str]:
    message = assertion.get("message")
    matching = violations
    if isinstance(message, str):
        try:
            compiled = go_regexp.compile(message)
        except ValueError as exc:
            return False, f"message {message!r}: {exc}"
        matching = [v for v in violations if compiled.search(v) is not None]
    want = assertion.get("violations", "yes")
    if isinstance(want, bool):  # YAML 1.1: yes/no read as booleans
        want = "yes" if want else "no"
    if isinstance(want, int):
        return len(matching) == want, ""
    if want == "yes":
        return len(matching) > 0, ""
    if want == "no":
        return len(matching) == 0, ""
    return False, f"violations {want!r} is not yes, no or a number"


def verify_gatekeeper(
    doc: TestDocument, conversions: list[Converted], options: Options, explain: bool
) -> tuple[list[CaseResult], list[str]]:
    problems: list[str] = []
    out: list[CaseResult] = []
    for ti, test in enumerate(_list(doc.data.get("tests"))):
        if isinstance(test, Mapping):
            out.extend(_verify_gatekeeper_test(doc, ti, test, conversions, options, explain, problems))
    return out, problems


def _verify_gatekeeper_test(
    doc: TestDocument,
    ti: int,
    test: Mapping[str, Any],
    conversions: list[Converted],
    options: Options,
    explain: bool,
    problems: list[str],
) -> list[CaseResult]:
    """One test of a suite: its template and constraint, each of its cases."""
    out: list[CaseResult] = []
    tname = str(test.get("name", f"test {ti}"))
    cases = [c for c in _list(test.get("cases")) if isinstance(c, Mapping)]

    def case_result(ci: int, case: Mapping[str, Any], policy: str, expected: str) -> CaseResult:
        return CaseResult(
            str(doc.path),
            doc.line_of("tests", ti, "cases", ci),
            "gatekeeper",
            f"{tname} / {case.get('name', ci)}",
            policy,
            expected,
        )

    def all_not_evaluable(policy: str, reason: str) -> list[CaseResult]:
        for ci, case in enumerate(cases):
            assertions = [a for a in _list(case.get("assertions")) if isinstance(a, Mapping)]
            result = case_result(ci, case, policy, "; ".join(_expected_text(a) for a in assertions))
            result.status, result.reason = NOT_EVALUABLE, reason
            out.append(result)
        return out

    template_path = resolve(doc.path, str(test.get("template", "")))
    templates = [o for o in load_objects(template_path, problems) if gatekeeper.is_template(o.data)]
    if not templates:
        problems.append(f"{doc.path}: test {tname}: no ConstraintTemplate in {template_path}")
        return out
    template = templates[0]
    label = f"ConstraintTemplate {template.name}"
    if test.get("skip"):
        return all_not_evaluable(label, "skipped by the suite (skip: true)")
    conversion = _find_conversion(conversions, template_path, "ConstraintTemplate", template.name)
    if conversion is None:
        conversion = gatekeeper.convert_template(template, [], options)
    if not conversion.converted:
        return all_not_evaluable(label, f"not converted: {_unconvertible_reason(conversion)}")
    if test.get("invalid"):
        return all_not_evaluable(
            label,
            "the test expects Gatekeeper to reject the constraint (invalid: true): not a policy decision",
        )
    constraint_path = resolve(doc.path, str(test.get("constraint", "")))
    constraints = [o for o in load_objects(constraint_path, problems) if gatekeeper.is_constraint(o.data)]
    if not constraints:
        problems.append(f"{doc.path}: test {tname}: no constraint in {constraint_path}")
        return out
    constraint = constraints[0]
    own = gatekeeper.convert_template(template, [constraint], options)
    label = f"{label} / {constraint.kind} {constraint.name}"
    if constraint.name not in own.bindings:
        return all_not_evaluable(label, f"constraint not converted: {_unconvertible_reason(own)}")
    policy = copy.deepcopy(conversion.policies[0])
    binding = next(e.data for e in own.objects if e.data.get("kind") == "ValidatingAdmissionPolicyBinding")
    inputs = PolicyInputs([policy], [binding], [own.params[constraint.name]], [], copy.deepcopy(own.crds))
    prepared = prepare(inputs, kubernetes_version=options.kubernetes_version, builtin_admission=False)
    policies = {policy["metadata"]["name"]}
    for ci, case in enumerate(cases):
        assertions = [a for a in _list(case.get("assertions")) if isinstance(a, Mapping)]
        result = case_result(ci, case, label, "; ".join(_expected_text(a) for a in assertions))
        out.append(result)
        if case.get("skip"):
            result.status, result.reason = NOT_EVALUABLE, "skipped by the suite (skip: true)"
            continue
        objects = load_objects(resolve(doc.path, str(case.get("object", ""))), problems)
        if len(objects) != 1:
            result.status = NOT_EVALUABLE
            result.reason = f"the case's object file holds {len(objects)} objects (gator requires one)"
            continue
        notes: list[str] = []
        request = _request_for(objects[0], inputs.crds, notes)
        if _list(case.get("inventory")):
            notes.append("inventory objects are not read: a ValidatingAdmissionPolicy has no inventory")
        seen = observe(prepared.admit(request), policies)
        result.actual = f"{len(seen.violations)} violation(s)" + (
            f": {'; '.join(seen.violations)}" if seen.violations else ""
        )
        checks = [_assertion_holds(a, seen.violations) for a in assertions]
        holds = all(ok for ok, _ in checks)
        problems.extend(f"{doc.path}: {result.name}: {why}" for _, why in checks if why)
        result.status = AGREE if holds else DISAGREE
        result.reason = "; ".join(notes)
        if not holds and explain:
            result.explanation = _explain(prepared, request, policies)
    return out


# --- Kyverno -------------------------------------------------------------------------------------

_RESULTS = ("pass", "fail", "skip", "error", "warn")
_OTHER_POLICY_FLAGS = ("isValidatingAdmissionPolicy", "isMutatingAdmissionPolicy")


def _rule_base(rule: str) -> str:
    for prefix in ("autogen-cronjob-", "autogen-"):
        if rule.startswith(prefix):
            return rule[len(prefix) :]
    return rule


def _kyverno_verdict(seen: Observed, expected: str) -> tuple[str, bool]:
    """The converted policy's verdict and whether it is the expected one. A violation is what
    the client or the audit log sees, an expression error under `failurePolicy: Fail` too: the
    server rejects (or warns, or audits) the request, as Kyverno's CEL rules do (they run the
    API server's validator: an error there is a `fail`)."""
    actual = "fail" if seen.violations else "pass" if seen.matched else "skip"
    if seen.errors:
        actual += f" (expression error: {seen.errors[0]})"
    if expected == "error":
        return actual, bool(seen.errors)
    want = "fail" if expected == "warn" else expected
    return actual, actual.split(" ")[0] == want


def verify_kyverno(
    doc: TestDocument, conversions: list[Converted], options: Options, explain: bool
) -> tuple[list[CaseResult], list[str]]:
    problems: list[str] = []
    out: list[CaseResult] = []
    files = read_test_files(doc, problems)
    sources = [o for o in files.policies if kyverno.is_kyverno_policy(o.data)]
    prepared_cache: dict[tuple[str, str], tuple[PreparedInputs, set[str]] | str] = {}

    def prepared_for(policy: SourceObject, rule: str) -> tuple[PreparedInputs, set[str]] | str:
        key = (policy.path, f"{policy.name}/{rule}")
        if key in prepared_cache:
            return prepared_cache[key]
        conversion = _find_conversion(conversions, Path(policy.path), policy.kind, policy.name)
        if conversion is None:
            conversion = kyverno.convert_kyverno(policy, options)
        names = conversion.rules.get(rule) or (conversion.rules.get("") if not rule else None)
        if not names:
            found: tuple[PreparedInputs, set[str]] | str = (
                f"not converted: {_unconvertible_reason(conversion, rule or None)}"
            )
        else:
            objects = [e.data for e in conversion.objects]
            vaps = [
                o
                for o in objects
                if o.get("kind") == "ValidatingAdmissionPolicy" and o["metadata"]["name"] in names
            ]
            bindings = [
                o
                for o in objects
                if o.get("kind") == "ValidatingAdmissionPolicyBinding" and o["spec"]["policyName"] in names
            ]
            inputs = PolicyInputs(
                copy.deepcopy(vaps),
                copy.deepcopy(bindings),
                copy.deepcopy(files.params),
                copy.deepcopy(files.namespaces),
                copy.deepcopy(files.base.crds),
            )
            found = (
                prepare(inputs, kubernetes_version=options.kubernetes_version, builtin_admission=False),
                set(names),
            )
        prepared_cache[key] = found
        return found

    for i, raw in enumerate(_list(doc.data.get("results"))):
        if not isinstance(raw, Mapping) or any(raw.get(flag) for flag in _OTHER_POLICY_FLAGS):
            continue
        line = doc.line_of("results", i)
        where = f"{doc.path}:{line}"
        policy_name = str(raw.get("policy", ""))
        rule = _rule_base(str(raw.get("rule", ""))) if raw.get("rule") else ""
        expected = str(raw.get("result", "")).strip()
        if expected not in _RESULTS:
            problems.append(f"{where}: result {expected!r} is not pass, fail, skip, error or warn")
            continue
        kind = raw.get("kind")
        names = [
            str(n)
            for n in (
                _list(raw.get("resources"))
                or ([raw["resource"]] if isinstance(raw.get("resource"), str) else [])
            )
        ]
        matching = [p for p in sources if p.name == policy_name]
        label = f"{matching[0].kind if matching else 'policy'} {policy_name}" + (
            f" rule {rule}" if rule else ""
        )
        targets: list[SourceObject | str] = []
        for name in names or [""]:
            missing: list[str] = []
            found_targets = find_targets(files.resources, kind, [name] if name else [], where, missing)
            targets.extend(found_targets or [f"{kind} {name}".strip()])
            problems.extend(missing)
        for target in targets:
            if isinstance(target, str):
                absent = CaseResult(
                    str(doc.path), line, "kyverno", target, label, expected, status=NOT_EVALUABLE
                )
                absent.reason = "no such resource in the test's resource files"
                out.append(absent)
                continue
            result = CaseResult(
                str(doc.path),
                line,
                "kyverno",
                f"{target.kind} {target.namespace + '/' if target.namespace else ''}{target.name}",
                label,
                expected,
            )
            out.append(result)
            if _list(doc.data.get("exceptions")):
                result.status = NOT_EVALUABLE
                result.reason = "the test applies PolicyExceptions: a ValidatingAdmissionPolicy has none"
                continue
            if not matching:
                result.status, result.reason = (
                    NOT_EVALUABLE,
                    f"no Kyverno policy named {policy_name!r} in the test's policies",
                )
                continue
            found = prepared_for(matching[0], rule)
            if isinstance(found, str):
                result.status, result.reason = NOT_EVALUABLE, found
                continue
            prepared, policies = found
            obj = in_default_namespace(copy.deepcopy(target.data), files.base.crds)
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            assert isinstance(meta, dict)
            values = files.values.get((policy_name, target.name), {})
            operation = str(values.get("request.operation", "CREATE")).upper()
            request = AdmissionRequestInput(
                operation,
                obj if operation != "DELETE" else None,
                old_object=copy.deepcopy(obj) if operation in ("UPDATE", "DELETE") else None,
                user=files.user,
                namespace=meta.get("namespace") if isinstance(meta.get("namespace"), str) else None,
            )
            if operation != "CREATE":
                result.reason = f"values: request.operation {operation} (the resource as its own old version)"
            seen = observe(prepared.admit(request), policies)
            result.actual, agree = _kyverno_verdict(seen, expected)
            result.status = AGREE if agree else DISAGREE
            if result.status == DISAGREE:
                if seen.violations and not seen.errors:
                    result.reason = "; ".join(filter(None, [result.reason, seen.violations[0]]))
                if explain:
                    result.explanation = _explain(prepared, request, policies)
    return out, problems


# --- the run -------------------------------------------------------------------------------------


def verify(
    paths: Sequence[str | Path], conversions: list[Converted], options: Options, *, explain: bool = False
) -> Verification:
    out = Verification()
    for path in find_tests(paths, out.problems):
        text = read_text(path, out.problems)
        if text is None:
            continue
        doc = parse_test_document(path, text, out.problems)
        if doc is None:
            continue
        if is_gatekeeper_suite(doc.data):
            cases, problems = verify_gatekeeper(doc, conversions, options, explain)
        elif is_kyverno_test(doc.data):
            cases, problems = verify_kyverno(doc, conversions, options, explain)
        else:
            out.problems.append(
                f"{path}: not a Gatekeeper suite (test.gatekeeper.sh Suite) or a Kyverno test "
                "(cli.kyverno.io Test)"
            )
            continue
        out.files += 1
        out.cases.extend(cases)
        out.problems.extend(problems)
    return out
