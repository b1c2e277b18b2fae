"""One `vap-lsp convert` run: sources read, converted, rendered, checked by vap-lsp's own engine
(the output must be clean under `vap-lsp check`) and, with tests, verified."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vap_lsp.convert import gatekeeper, kyverno
from vap_lsp.convert.emit import render
from vap_lsp.convert.model import Converted, Emitted, Options, Origin, Unconvertible
from vap_lsp.convert.sources import Sources, read_sources
from vap_lsp.testfiles.loader import SourceObject


@dataclass(frozen=True)
class Finding:
    """A diagnostic `vap-lsp check` gives on an output file."""

    file: str
    line: int
    severity: str
    code: str
    message: str


@dataclass
class Run:
    conversions: list[Converted] = field(default_factory=list)
    unconvertible: list[Unconvertible] = field(default_factory=list)
    """Everything unconvertible: of the conversions and of objects without one (a constraint
    whose template was not given, Gatekeeper's Config)."""
    texts: dict[str, str] = field(default_factory=dict)
    """Output file name → its YAML."""
    crd_texts: dict[str, str] = field(default_factory=dict)
    """`crds/<name>.yaml` → the constraint CRD a policy's params need (Gatekeeper owns it while it
    runs; written with `-o` only, for when Gatekeeper is removed)."""
    findings: list[Finding] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Bad input: unreadable paths, YAML errors, nothing to convert."""
    notes: list[str] = field(default_factory=list)
    """About the run as a whole."""
    sources: Sources | None = None


def convert_sources(sources: Sources, options: Options) -> Run:
    run = Run(sources=sources)
    run.problems.extend(sources.problems)
    by_kind: dict[str, list[SourceObject]] = {}
    for constraint in sources.constraints:
        by_kind.setdefault(constraint.kind, []).append(constraint)
    kinds = set()
    for template in sources.templates:
        kind = gatekeeper.kind_of_template(template.data)
        kinds.add(kind)
        run.conversions.append(gatekeeper.convert_template(template, by_kind.get(kind, []), options))
    for kind, constraints in sorted(by_kind.items()):
        if kind in kinds:
            continue
        for c in constraints:
            run.unconvertible.append(
                Unconvertible(
                    Origin(c.path, c.line, c.kind, c.name),
                    "constraint without its template",
                    f"no ConstraintTemplate of kind {kind} among the sources",
                )
            )
    for config in sources.configs:
        run.unconvertible.extend(gatekeeper.config_exemptions(config))
    if sources.templates:
        run.notes.append(
            "Gatekeeper's exemptions outside templates and constraints are cluster configuration, not "
            "carried over: the webhook's namespaceSelector (label admission.gatekeeper.sh/ignore), "
            "--exempt-namespace flags, and Config's excludedNamespaces (listed when a Config is given)"
        )
    for policy in sources.kyverno:
        run.conversions.append(kyverno.convert_kyverno(policy, options))
    _unique_file_names(run.conversions)
    for conversion in run.conversions:
        run.unconvertible.extend(conversion.unconvertible)
        if conversion.objects:
            run.texts[conversion.file_name] = render(conversion.objects)
        for crd in conversion.crds:
            name = str(crd["metadata"]["name"])
            comment = (
                f"The CRD of the params of {conversion.file_name} (the {crd['spec']['names']['kind']} "
                "constraints), as Gatekeeper creates it from the template.\nGatekeeper owns it while it "
                "runs: apply it when Gatekeeper is removed, so the constraints stay."
            )
            run.crd_texts[f"crds/{name}.yaml"] = render([Emitted(crd, conversion.origin, comment)])
    if sources.empty and not run.problems:
        run.problems.append(
            "no Gatekeeper ConstraintTemplate or constraint and no Kyverno policy in the sources"
        )
    return run


def _unique_file_names(conversions: list[Converted]) -> None:
    seen: dict[str, int] = {}
    for c in conversions:
        if not c.objects:
            continue
        count = seen.get(c.file_name, 0)
        seen[c.file_name] = count + 1
        if count:
            stem = c.file_name.removesuffix(".yaml")
            c.file_name = f"{stem}-{count + 1}.yaml"


def check_outputs(run: Run, kubernetes_version: str) -> None:
    """`vap-lsp check` on every output file, with the CRDs the output needs in the index."""
    from vap_lsp.analysis.engine import analyse_text, parse_text
    from vap_lsp.analysis.model.workspace import WorkspaceIndex
    from vap_lsp.analysis.settings import AnalysisSettings

    workspace = WorkspaceIndex()
    for name, text in run.crd_texts.items():
        yaml_file, objects = parse_text(text)
        workspace.update(name, objects, yaml_file.text)
    parsed = {}
    for name, text in run.texts.items():
        parsed[name] = parse_text(text)
        workspace.update(name, parsed[name][1], text)
    workspace.complete = True
    settings = AnalysisSettings(kubernetes_version=kubernetes_version)
    for name, text in run.texts.items():
        analysis = analyse_text(text, settings, workspace=workspace, uri=name, parsed=parsed[name])
        for d in analysis.diagnostics:
            run.findings.append(
                Finding(
                    name, analysis.lines.line_of(d.span.start) + 1, d.severity.name.lower(), d.code, d.message
                )
            )


def convert_paths(paths: Sequence[str | Path], options: Options, *, check: bool = True) -> Run:
    run = convert_sources(read_sources(paths), options)
    if check:
        check_outputs(run, options.kubernetes_version)
    return run
