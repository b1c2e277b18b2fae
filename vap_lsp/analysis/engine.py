"""The one function from document text to diagnostics, shared by the CLI and the server.

It runs the table of checks (`checks.table`) over each file and each of its objects: the file's
rows once, then every row whose role is the object's over the object's context
(`model.object_context.ObjectContext`), which computes what a policy is once for all of them.

Invariant: `analyse_text` never raises for any input text. A bug in one check becomes an
`internal-error` diagnostic on that object, so one bad rule cannot hide the others' findings
or take the server down.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

from vap_lsp import collector
from vap_lsp.analysis.checks.check import FileContext
from vap_lsp.analysis.checks.table import CHECKS, FILE_CHECKS
from vap_lsp.analysis.diagnostics import Diagnostic, Related, Severity
from vap_lsp.analysis.model.context import clear_cache as clear_typing_cache
from vap_lsp.analysis.model.object_context import ObjectContext
from vap_lsp.analysis.model.objects import K8sObject, find_objects, own_text
from vap_lsp.analysis.model.placement import head_span
from vap_lsp.analysis.model.workspace import Read, WorkspaceIndex, recording, replay
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.analysis.suppress import apply_code_rules
from vap_lsp.cancel import checkpoint
from vap_lsp.cel.compile import clear_cache as clear_cel_cache
from vap_lsp.lru import LruCache
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.text import LineIndex, Span
from vap_lsp.yaml.detect import decode_bytes, lossy_text, template_marker_note, template_problem
from vap_lsp.yaml.model import ProblemKind, YamlFile, YamlProblem
from vap_lsp.yaml.parse import clear_cache as clear_yaml_cache
from vap_lsp.yaml.parse import parse_yaml


@dataclass
class FileAnalysis:
    yaml: YamlFile
    objects: list[K8sObject]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def lines(self) -> LineIndex:
        return self.yaml.lines


_PROBLEM_SEVERITY = {
    ProblemKind.SYNTAX: Severity.ERROR,
    ProblemKind.NOT_TEXT: Severity.ERROR,
    ProblemKind.TOO_LARGE: Severity.ERROR,
    ProblemKind.DUPLICATE_KEY: Severity.ERROR,
    # A template is not broken YAML; it is not a manifest yet. Say so once, calmly.
    ProblemKind.TEMPLATE: Severity.INFORMATION,
}


def _problem_diagnostic(
    problem: YamlProblem, lines: LineIndex | None = None, chart: str | None = None
) -> Diagnostic:
    if problem.kind is ProblemKind.TEMPLATE and chart is not None and lines is not None:
        problem = template_problem(lines, problem.span, chart)  # the fix names the chart
    return Diagnostic(problem.span, _PROBLEM_SEVERITY[problem.kind], problem.kind.value, problem.message)


def _templated(yaml_file: YamlFile, chart: str | None) -> list[Span]:
    """The values a template renders: every scalar holding an action in a chart's template or in
    a file that has one in a plain scalar (then it is templated), else none (a quoted `{{ }}` in
    a CEL message of a plain file is text)."""
    values = yaml_file.template_values
    if chart is not None or yaml_file.template_marker is not None:
        return [span for span, _ in values]
    return []


def _inside(span: Span, regions: list[Span]) -> bool:
    return any((span.start < r.end and r.start < span.end) or span.start == r.start for r in regions)


def parse_text(text: str) -> tuple[YamlFile, list[K8sObject]]:
    """The cheap first pass: what a workspace index needs from a file."""
    with collector.held():
        yaml_file = parse_yaml(text)
        return yaml_file, find_objects(yaml_file)


def analyse_text(
    text: str,
    settings: AnalysisSettings | None = None,
    *,
    workspace: WorkspaceIndex | None = None,
    uri: str | None = None,
    parsed: tuple[YamlFile, list[K8sObject]] | None = None,
) -> FileAnalysis:
    """Diagnostics for one file.

    With a `workspace` and this file's `uri`, the index is first updated with this text, so
    CRDs and policies of this very file count; `parsed` reuses a first pass's result.
    """
    with collector.held():
        return _analyse(text, settings, workspace, uri, parsed)


def _analyse(
    text: str,
    settings: AnalysisSettings | None,
    workspace: WorkspaceIndex | None,
    uri: str | None,
    parsed: tuple[YamlFile, list[K8sObject]] | None,
) -> FileAnalysis:
    settings = settings or AnalysisSettings()
    version = settings.resolved_version()
    yaml_file, objects = parsed if parsed is not None else parse_text(text)
    diagnostics = [_problem_diagnostic(p, yaml_file.lines, settings.chart) for p in yaml_file.problems]
    unknown = _templated(yaml_file, settings.chart)
    if unknown:
        marker = yaml_file.template_marker or unknown[0]
        note = template_marker_note(yaml_file.lines, marker, settings.chart)
        diagnostics.append(Diagnostic(marker, Severity.INFORMATION, "template-marker", note))
    for doc in yaml_file.documents:
        diagnostics.extend(_problem_diagnostic(p) for p in doc.problems)
    patch = settings.patch
    if workspace is not None and uri is not None:
        workspace.update(uri, [] if patch is not None else objects, yaml_file.text)
    generation = workspace.crd_generation if workspace is not None else -1
    whole = FileContext(
        yaml_file,
        objects,
        version,
        uri,
        workspace,
        patch.target if patch is not None else None,
        patch is not None,
    )
    for file_check in FILE_CHECKS:
        diagnostics.extend(file_check.run(whole))
    for obj in objects:
        checkpoint()  # a cancelled request or superseded analysis stops here
        try:
            diagnostics.extend(
                _checked_object(
                    obj, yaml_file, version, workspace, generation, len(objects), patch is not None
                )
            )
        except Exception as exc:  # pragma: no cover - a safety net, exercised by fuzzing
            where = traceback.extract_tb(exc.__traceback__)[-1]
            diagnostics.append(
                Diagnostic(
                    head_span(obj.node, yaml_file.lines),
                    Severity.WARNING,
                    "internal-error",
                    f"vap-lsp could not finish analysing this object ({type(exc).__name__}: {exc} "
                    f"at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please report it",
                )
            )
    if unknown:
        # What a value holding a template action says is unknown until it is rendered.
        diagnostics = [d for d in diagnostics if d.code == "template-marker" or not _inside(d.span, unknown)]
    diagnostics = apply_code_rules(diagnostics, yaml_file, objects, settings.rules)
    diagnostics.sort(key=lambda d: (d.span.start, d.span.end, d.severity, d.message))
    return FileAnalysis(yaml_file, objects, diagnostics)


# Per-object results, keyed by everything they depend on, stored relative to the object's
# start: an edit re-checks only the objects whose text changed. Bounded LRU: 4,096 entries and
# objects of 16 million characters in all, beyond the objects of the file being analysed, which
# always fit (a result is a few hundred bytes; its key, the object's text, weighs the most).
# The reads of the index the check made are kept with its result and replayed on a hit, so the
# server still knows what the document depends on (`workspace.recording`).
_OBJECT_CACHE: LruCache[
    tuple[str, int, str, int, int, bool, tuple[str, ...] | None],
    tuple[tuple[Diagnostic, ...], frozenset[Read]],
] = LruCache(4096, weigh=lambda key, _: len(key[0]), max_weight=16_000_000)


def _policy_of(obj: K8sObject) -> tuple[PolicyKind, str | None]:
    """The policy kind and name whose bindings narrow what `obj` sees (none for other objects)."""
    recognised = recognise(obj.api_version, obj.kind) if not obj.is_crd else None
    kind = recognised[0] if recognised is not None else None
    if kind in (PolicyKind.VAP, PolicyKind.MAP):
        return kind, obj.name
    return PolicyKind.VAP, None


def _checked_object(
    obj: K8sObject,
    yaml_file: YamlFile,
    version: str,
    workspace: WorkspaceIndex | None,
    generation: int,
    file_objects: int,
    patch: bool,
) -> list[Diagnostic]:
    own = own_text(obj, yaml_file.text)
    if own is None:
        return _check(obj, yaml_file, version, workspace, patch)
    start = obj.node.span.start
    column = start - yaml_file.lines.line_start(yaml_file.lines.line_of(start))
    scopes = workspace.binding_scopes(*_policy_of(obj)) if workspace is not None and not patch else None
    key = (own, column, version, generation, id(workspace), patch, scopes)
    hit = _OBJECT_CACHE.get(key)
    if hit is not None:
        replay(hit[1])
        return [_shift(d, start) for d in hit[0]]
    with recording() as reads:
        found = _check(obj, yaml_file, version, workspace, patch)
    _OBJECT_CACHE.put(key, (tuple(_shift(d, -start) for d in found), frozenset(reads)), extra=file_objects)
    return found


def _check(
    obj: K8sObject, yaml_file: YamlFile, version: str, workspace: WorkspaceIndex | None, patch: bool
) -> list[Diagnostic]:
    """Every row of the table whose role is the object's, over one context."""
    ctx = ObjectContext(obj, version, workspace, yaml_file.lines, patch)
    role = ctx.role
    found: list[Diagnostic] = []
    for check in CHECKS:
        if check.role is role:
            found.extend(check.run(ctx))
    return found


def clear_caches() -> None:
    """Forget every result cached across calls (parsed pieces, compiled CEL, policy contexts, object
    results), so a benchmark can measure a cold pass; nothing else needs to call it."""
    clear_cel_cache()
    clear_typing_cache()
    clear_yaml_cache()
    _OBJECT_CACHE.clear()


def _shift(d: Diagnostic, delta: int) -> Diagnostic:
    # Built directly: `dataclasses.replace` cost a third of placing an unchanged file's results.
    related = tuple(Related(Span(r.span.start + delta, r.span.end + delta), r.message) for r in d.related)
    span = Span(d.span.start + delta, d.span.end + delta)
    return Diagnostic(span, d.severity, d.code, d.message, d.field, d.source, related, d.unnecessary)


def analyse_bytes(
    data: bytes,
    settings: AnalysisSettings | None = None,
    *,
    workspace: WorkspaceIndex | None = None,
    uri: str | None = None,
) -> FileAnalysis:
    text, problem = decode_bytes(data)
    if text is None:
        assert problem is not None
        shown = lossy_text(data)  # to place the problem at the bad byte's line and column
        empty = YamlFile(shown, LineIndex(shown), [], [problem])
        return FileAnalysis(empty, [], [_problem_diagnostic(problem)])
    return analyse_text(text, settings, workspace=workspace, uri=uri)


def diagnose(text: str, settings: AnalysisSettings | None = None) -> list[Diagnostic]:
    return analyse_text(text, settings).diagnostics


__all__ = [
    "AnalysisSettings",
    "FileAnalysis",
    "Span",
    "WorkspaceIndex",
    "analyse_bytes",
    "analyse_text",
    "clear_caches",
    "diagnose",
    "parse_text",
]
