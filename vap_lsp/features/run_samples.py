""" "Run against samples": one policy evaluated, as the API server would, against sample
objects, with the verdicts placed where the user reads them (no LSP types here).

Samples are (1) test files of the workspace that name the policy, (2) workspace documents
whose kind the policy matches, (3) files from the `vapLsp.samples` setting. The result is
diagnostics per URI (on each sample and on each failing expression of the policy) and a
readable Markdown report; the server adapter publishes and shows them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, prepare
from vap_lsp.admission.explain import budget_text
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import parse_text
from vap_lsp.analysis.files import expand_glob, unreadable, walk_yaml
from vap_lsp.analysis.model.objects import object_data
from vap_lsp.analysis.model.placement import head_span, span_for_path
from vap_lsp.analysis.model.sites import ExpressionSite, expression_sites
from vap_lsp.analysis.model.typing import matched_kinds
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.cel import explain as cel_explain
from vap_lsp.features.inlay_hints import InlayHint
from vap_lsp.features.snapshot import DocumentSnapshot
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.testfiles.common import bindings_of, synthesized_binding
from vap_lsp.testfiles.discover import looks_like_test, named_like_test, read_suite
from vap_lsp.testfiles.runner import run_suite
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.model import ExpansionLimit, MappingNode, ScalarNode
from vap_lsp.yaml.model import Path as FieldPath

SOURCE = "vap-lsp run"


@dataclass(frozen=True)
class PolicyLens:
    """Where "Run against samples" is offered: one per VAP/MAP of the document."""

    span: Span
    name: str
    kind: PolicyKind


def policy_lenses(snapshot: DocumentSnapshot) -> list[PolicyLens]:
    out: list[PolicyLens] = []
    for obj in snapshot.objects:
        recognised = recognise(obj.api_version, obj.kind)
        if recognised is None or recognised[0] not in (PolicyKind.VAP, PolicyKind.MAP) or not obj.name:
            continue
        out.append(PolicyLens(head_span(obj.node, snapshot.lines), obj.name, recognised[0]))
    return out


@dataclass(frozen=True)
class Source:
    """One file's text as the run saw it (`version` of an open document, None from disk)."""

    uri: str
    path: str | None
    text: str
    version: int | None = None


@dataclass
class _Object:
    source: Source
    node: MappingNode
    data: dict[str, Any]
    lines: LineIndex

    @property
    def label(self) -> str:
        meta = self.data.get("metadata") if isinstance(self.data.get("metadata"), dict) else {}
        assert isinstance(meta, dict)
        ns = meta.get("namespace")
        return (
            f"{self.data.get('kind')} {ns + '/' if isinstance(ns, str) and ns else ''}{meta.get('name', '?')}"
        )


@dataclass(frozen=True)
class RunValue:
    """A value a failing validation's sub-expression had for one sample: `span` in the policy's
    document, `label` what an inlay hint shows after it (`= "docker.io/…"`, `→ false`),
    `detail` the hover's line; the element a comprehension decided on is `witness`, a span of
    `witness_uri` (the sample's file)."""

    span: Span
    sample: str
    label: str
    detail: str
    inline: bool = True
    witness: str | None = None
    witness_uri: str | None = None
    witness_span: Span | None = None


@dataclass
class RunOutcome:
    policy: str
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)  # the text each URI's spans refer to
    report: str = ""
    summary: str = ""
    values: dict[str, list[RunValue]] = field(default_factory=dict)
    """Per policy URI: the sub-expression values of its failing validations (`value_hints`,
    `value_hover`)."""


def sample_paths(patterns: Sequence[str], roots: Sequence[str], errors: list[str]) -> list[Path]:
    """Files named by `vapLsp.samples` (globs or paths, relative to each workspace folder; a
    folder stands for its YAML files). Globs and folders are expanded by `analysis.files`, so
    symlinked folders are not followed and a huge tree is cut; what is not a readable regular
    file (a FIFO, a dangling link) is said in `errors`, not listed."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        bases = [""] if Path(pattern).is_absolute() else list(roots)
        for base in bases:
            full = Path(base) / pattern if base else Path(pattern)
            for match in expand_glob(full, errors):
                candidates = walk_yaml(match, errors) if match.is_dir() else [match]
                for path in candidates:
                    if path in found:
                        continue
                    problem = unreadable(path)
                    if problem is None:
                        found[path] = None
                    elif problem not in errors:
                        errors.append(problem)
    return list(found)


def _objects(source: Source) -> list[_Object]:
    yaml_file, objects = parse_text(source.text)
    out: list[_Object] = []
    for obj in objects:
        try:
            data = copy.deepcopy(object_data(obj.node))  # admitted: may be changed
        except ExpansionLimit:
            continue
        if isinstance(data, dict):
            out.append(_Object(source, obj.node, data, yaml_file.lines))
    return out


def _field_path(field_name: str) -> FieldPath:
    """`spec.validations[0].expression` → ("spec", "validations", 0, "expression")."""
    out: list[str | int] = []
    for part in field_name.split("."):
        name, _, rest = part.partition("[")
        if name:
            out.append(name)
        while rest:
            index, _, rest = rest.partition("]")
            if index.isdigit():
                out.append(int(index))
            rest = rest.lstrip("[")
    return tuple(out)


def run_against_samples(
    policy_uri: str,
    policy: str,
    workspace_sources: Iterable[Source],
    extra_samples: Iterable[Source],
    kubernetes_version: str,
    index: WorkspaceIndex | None = None,
) -> RunOutcome:
    outcome = RunOutcome(policy)
    sources = {s.uri: s for s in workspace_sources}
    extras = [s for s in extra_samples if s.uri not in sources]
    all_objects = [o for s in [*sources.values(), *extras] for o in _objects(s)]
    inputs = PolicyInputs.from_objects(o.data for o in all_objects)
    policy_object = next(
        (
            o
            for o in all_objects
            if o.source.uri == policy_uri
            and (r := recognise(o.data.get("apiVersion"), o.data.get("kind"))) is not None
            and r[0] in (PolicyKind.VAP, PolicyKind.MAP)
            and isinstance(o.data.get("metadata"), dict)
            and o.data["metadata"].get("name") == policy
        ),
        None,
    )
    if policy_object is None:
        outcome.summary = f"no policy named {policy} in {policy_uri}"
        outcome.report = f"# Run against samples: {policy}\n\n{outcome.summary}\n"
        return outcome
    notes: list[str] = []
    bindings = bindings_of(inputs, policy)
    if not bindings:
        bindings = [synthesized_binding(policy_object.data)]
        notes.append(
            "No binding of this policy in the workspace: evaluated with a synthesized binding "
            "(the API server applies a policy only through a binding)."
        )
    run_inputs = PolicyInputs([policy_object.data], bindings, inputs.params, inputs.namespaces, inputs.crds)
    spec = policy_object.data.get("spec") if isinstance(policy_object.data.get("spec"), dict) else {}
    assert isinstance(spec, dict)
    kinds = {(g.api_version, g.kind) for g in matched_kinds(spec, kubernetes_version, index)}
    extra_uris = {s.uri for s in extras}
    candidates = [
        o
        for o in all_objects
        if recognise(o.data.get("apiVersion"), o.data.get("kind")) is None
        and o.data.get("kind") != "CustomResourceDefinition"
        and (o.source.uri in extra_uris or (str(o.data.get("apiVersion")), str(o.data.get("kind"))) in kinds)
    ]
    sections: list[str] = []
    failing: dict[str, list[str]] = {}
    counts = {"denied": 0, "admitted": 0, "not matched": 0, "mutated": 0}
    prepared = prepare(run_inputs, kubernetes_version=kubernetes_version)
    sites = _sites(policy_object)
    inlined: set[str] = set()
    for sample in candidates:
        request = AdmissionRequestInput("CREATE", copy.deepcopy(sample.data))
        try:
            result = prepared.admit(request, explain=True)
        except Exception as exc:  # admit never raises by contract; keep the editor alive if it does
            sections.append(f"## {sample.label}\n\nadmission failed: {exc}\n")
            continue
        verdict = _verdict(result, request)
        counts[verdict] += 1
        _sample_diagnostics(outcome, sample, result, policy, verdict)
        _values(outcome, policy_object, sites, sample, result, inlined)
        for evaluation in result.evaluations:
            for x in evaluation.expressions:
                if x.error or x.result is False:
                    what = f"error: {x.error}" if x.error else "false"
                    failing.setdefault(x.field, []).append(f"{sample.label} ({what})")
        sections.append(_section(sample.label, sample.source, sample.node, sample.lines, result, verdict))
    test_lines = _run_tests(outcome, sources.values(), policy, kubernetes_version)
    _expression_diagnostics(outcome, policy_object, failing)
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no sample matched"
    if test_lines:
        summary += f"; tests: {test_lines[0]}"
    outcome.summary = f"{policy}: {summary}"
    outcome.report = "\n".join(
        [
            f"# Run against samples: {policy}",
            "",
            f"Kubernetes {kubernetes_version}; {len(candidates)} sample object(s); {summary}.",
            "",
            *(f"> {n}" for n in notes),
            "",
            *sections,
            *(["## Test files", "", *test_lines[1:], ""] if test_lines else []),
        ]
    )
    return outcome


def _sites(policy: _Object) -> dict[str, ExpressionSite]:
    """The policy's expressions by field, and variables also by `variables.<name>`."""
    rec = recognise(policy.data.get("apiVersion"), policy.data.get("kind"))
    spec = policy.data.get("spec")
    if rec is None or not isinstance(spec, dict):
        return {}
    out: dict[str, ExpressionSite] = {}
    for site in expression_sites(policy.node, rec[0], spec):
        out[site.field] = site
        if site.name is not None:
            out[f"variables.{site.name}"] = site
    return out


def _values(
    outcome: RunOutcome,
    policy: _Object,
    sites: dict[str, ExpressionSite],
    sample: _Object,
    result: AdmissionResult,
    inlined: set[str],
) -> None:
    """The values of the failing validations' sub-expressions for `sample`, placed in the
    policy's text; inline (inlay hints) only for the first sample that fails each validation."""
    values = outcome.values.setdefault(policy.source.uri, [])
    outcome.sources.setdefault(policy.source.uri, policy.source)
    for evaluation in result.evaluations:
        for x in evaluation.expressions:
            failed = x.error is not None or x.result is False
            if x.trace is None or not failed or not _VALIDATION.match(x.field):
                continue
            inline = x.field not in inlined
            inlined.add(x.field)
            for failure in cel_explain.explain(x.trace, evaluation.variables):
                source = x.trace.parsed.source
                site = sites.get(x.field)
                if failure.variable is not None:
                    site = sites.get(f"variables.{failure.variable}")
                    var = evaluation.variables.result(failure.variable) if evaluation.variables else None
                    if var is not None and var.trace is not None:
                        source = var.trace.parsed.source
                if site is not None:
                    values.extend(_failure_values(failure, site.node, source, sample, inline))


_VALIDATION = re.compile(r"spec\.validations\[\d+\]\.expression\Z")


def _failure_values(
    failure: cel_explain.Failure, node: ScalarNode, source: str, sample: _Object, inline: bool
) -> list[RunValue]:
    lead = max(0, node.value.find(source)) if source else 0

    def span(start: int, end: int) -> Span:
        return Span(node.source_offset(lead + start), node.source_offset(lead + end))

    witness = failure.via[-1] if failure.via else None
    if witness is None and failure.witnesses:
        witness = failure.witnesses[0]
    where: Span | None = None
    said: str | None = None
    if witness is not None:
        said = f"{witness.macro}() element {witness.path or witness.key}"
        if witness.path is not None and witness.path.startswith("object"):
            where = span_for_path(sample.node, _field_path(witness.path)[1:], sample.lines)
    uri = sample.source.uri if where is not None else None
    out = [
        RunValue(
            span(failure.start, failure.end),
            sample.label,
            f"→ {_short(failure.outcome)}",
            f"`{failure.text}` → {failure.outcome}",
            inline,
            said,
            uri,
            where,
        )
    ]
    for o in failure.operands:
        literal = o.text.strip()[:1] in ("'", '"') or o.text.strip().isdigit()
        if not o.evaluated or o.end <= o.start or literal:
            continue
        shown = f"error: {o.error}" if o.error is not None else cel_explain.compact(o.value, 60)
        named = f"`{o.path}`" if o.path and o.path != o.text else f"`{o.text}`"
        out.append(
            RunValue(
                span(o.start, o.end),
                sample.label,
                f"= {_short(shown)}",
                f"{named} = {shown}",
                inline,
                said,
                uri,
                where,
            )
        )
    return out


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def value_hints(values: Iterable[RunValue], within: Span | None = None) -> list[InlayHint]:
    """Inlay hints after each failing sub-expression and operand (the first failing sample)."""
    out = [
        InlayHint(
            v.span.end, f" {v.label}", f"{v.sample}: {v.detail}" + (f" ({v.witness})" if v.witness else "")
        )
        for v in values
        if v.inline and (within is None or within.start <= v.span.end <= within.end)
    ]
    out.sort(key=lambda h: h.offset)
    return out


def value_hover(values: Iterable[RunValue], offset: int) -> tuple[Span, str] | None:
    """Hover text at `offset`: the value of the sub-expression under it, per sample, and the
    element a comprehension decided on as a link into the sample file."""
    hits = [v for v in values if v.span.start <= offset <= v.span.end]
    if not hits:
        return None
    innermost = min(hits, key=lambda v: v.span.end - v.span.start)
    shown = [v for v in hits if v.span == innermost.span]
    lines = ["**Run against samples**", ""]
    for v in shown:
        line = f"- {v.sample}: {v.detail}"
        if v.witness is not None:
            line += f" — {v.witness}"
            if v.witness_uri is not None and v.witness_span is not None:
                line += f" ([in the sample]({v.witness_uri}))"
        lines.append(line)
    return innermost.span, "\n".join(lines)


def _verdict(result: AdmissionResult, request: AdmissionRequestInput) -> str:
    if result.denials:
        return "denied"
    if not any(e.matched for e in result.evaluations):
        return "not matched"
    if result.patched is not None and result.patched != request.object:
        return "mutated"
    return "admitted"


def _add(outcome: RunOutcome, source: Source, diagnostic: Diagnostic) -> None:
    outcome.sources.setdefault(source.uri, source)
    outcome.diagnostics.setdefault(source.uri, []).append(diagnostic)


_SERVER_PREFIX = re.compile(
    r"^(Validating|Mutating)AdmissionPolicy '[^']*' with binding '[^']*' denied request: "
)


def short_message(message: str) -> str:
    """The policy's own words: the server's "<Kind> 'p' with binding 'b' denied request: "
    prefix is said by the diagnostic already ("denied by p: ...")."""
    return _SERVER_PREFIX.sub("", message, count=1)


def _sample_diagnostics(
    outcome: RunOutcome, sample: _Object, result: AdmissionResult, policy: str, verdict: str
) -> None:
    span = head_span(sample.node, sample.lines)
    for denial in result.denials:
        _add(
            outcome,
            sample.source,
            Diagnostic(
                span,
                Severity.ERROR,
                "denied",
                f"denied by {policy}: {short_message(denial.message)}"
                if denial.policy
                else f"rejected by the API server's built-in validation: {denial.message}",
                source=SOURCE,
            ),
        )
    for warning in result.warnings:
        _add(
            outcome,
            sample.source,
            Diagnostic(
                span,
                Severity.WARNING,
                "admission-warning",
                f"warning from {policy}: {warning}",
                source=SOURCE,
            ),
        )
    if verdict == "mutated":
        _add(
            outcome,
            sample.source,
            Diagnostic(
                span,
                Severity.INFORMATION,
                "mutated",
                f"mutated by {policy} (see the report for the patched object)",
                source=SOURCE,
            ),
        )
    elif verdict == "admitted":
        _add(
            outcome,
            sample.source,
            Diagnostic(span, Severity.HINT, "admitted", f"admitted by {policy}", source=SOURCE),
        )


def _expression_diagnostics(outcome: RunOutcome, policy: _Object, failing: dict[str, list[str]]) -> None:
    for field_name, samples in sorted(failing.items()):
        path = _field_path(field_name)
        span = span_for_path(policy.node, path, policy.lines)
        shown = ", ".join(samples[:3]) + (f" and {len(samples) - 3} more" if len(samples) > 3 else "")
        message = f"fails for {len(samples)} sample(s): {shown}"
        _add(
            outcome,
            policy.source,
            Diagnostic(span, Severity.WARNING, "fails-on-samples", message, field_name, SOURCE),
        )


def _section(
    label: str, source: Source, node: MappingNode, lines: LineIndex, result: AdmissionResult, verdict: str
) -> str:
    line = lines.line_of(node.span.start) + 1
    out = [f"## {label}: {verdict}", "", f"{source.path or source.uri}:{line}", ""]
    out.extend(f"- denied: {d.message} (reason {d.reason}, code {d.code})" for d in result.denials)
    out.extend(f"- warning: {w}" for w in result.warnings)
    out.extend(f"- note: {n}" for n in result.notes)
    out.extend(f"- audit annotation {k}: {v}" for k, v in sorted(result.audit_annotations.items()))
    for evaluation in result.evaluations:
        if not evaluation.matched and evaluation.why_not:
            out.append(f"- not matched (binding {evaluation.binding}): {evaluation.why_not}")
        for x in evaluation.expressions:
            if x.error or x.result is False:
                out.append(f"- `{x.field}`: {'error: ' + x.error if x.error else 'false'}")
        if evaluation.budgets:
            spent = "; ".join(budget_text(b) for b in evaluation.budgets)
            out.append(f"- cost (binding {evaluation.binding}): {spent}")
    if result.patched is not None and verdict == "mutated":
        if result.patch_diff:
            out += ["", "```diff", result.patch_diff.rstrip("\n"), "```"]
        out += ["", "Patched object:", "", "```json", json.dumps(result.patched, indent=2), "```"]
    out.append("")
    return "\n".join(out)


def _run_tests(
    outcome: RunOutcome, sources: Iterable[Source], policy: str, kubernetes_version: str
) -> list[str]:
    """Cases about `policy` in the workspace's test files; failures become diagnostics there."""
    passed = failed = 0
    lines: list[str] = []
    for source in sources:
        if source.path is None:
            continue
        path = Path(source.path)
        if not (named_like_test(path) or looks_like_test(source.text)):
            continue
        suite = read_suite(path, source.text)
        if suite is None or policy not in suite.policies:
            continue
        text_lines = LineIndex(source.text)
        for problem in suite.problems:
            _add(
                outcome,
                source,
                Diagnostic(Span(0, 0), Severity.ERROR, "bad-test-file", problem, source=SOURCE),
            )
        for r in run_suite(suite, kubernetes_version, policy):
            start = text_lines.line_start(max(0, (r.case.line or 1) - 1))
            span = Span(start, text_lines.line_end(text_lines.line_of(start)))
            if r.passed:
                passed += 1
                _add(
                    outcome,
                    source,
                    Diagnostic(span, Severity.HINT, "test-passed", f"passed: {r.case.name}", source=SOURCE),
                )
                lines.append(f"- PASS {r.case.name} ({source.path}:{r.case.line})")
            else:
                failed += 1
                message = f"test case failed: {r.case.name}: " + "; ".join(r.failures)
                _add(outcome, source, Diagnostic(span, Severity.ERROR, "test-failed", message, source=SOURCE))
                lines.append(f"- FAIL {r.case.name} ({source.path}:{r.case.line}): " + "; ".join(r.failures))
    if not passed and not failed:
        return []
    return [f"{passed} passed, {failed} failed", *lines]
