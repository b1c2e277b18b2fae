"""`vap-lsp`: the console entry point.

Exit codes of `check`: 0 no error-severity diagnostic (or `--exit-zero`), 1 at least one, 2 usage,
configuration or I/O error (an unreadable or missing path, a bad `.vap-lsp.yaml`; the readable
files are still checked and reported). Configuration: `vap_lsp.config`; what it hides and
re-grades is applied by the engine, so `check` only passes it on. What the report shows is the
CLI's own choice (`--min-severity`, `--show-notes`, `min-severity`; the text format leaves notes
out and counts them): it changes neither the analysis nor the exit status.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from vap_lsp import __version__, collector
from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.files import collect_files, read_file, read_stream
from vap_lsp.analysis.model.workspace import WorkspaceIndex
from vap_lsp.analysis.settings import AnalysisSettings
from vap_lsp.cli.crd_option import (
    add_config_options,
    add_crd_option,
    config_resolver,
    explicit_config_problems,
    given_version,
    load_config_crds,
    load_external_crds,
)
from vap_lsp.cli.report import (
    FORMATTERS,
    FileReport,
    default_min_severity,
    hidden_line,
    split_by_severity,
    statistics,
    summary_line,
)
from vap_lsp.config import (
    LEVELS,
    Config,
    Overrides,
    code_problems,
    configs_for,
    first_kubernetes_version,
    parse_severity_overrides,
    severity_level,
    split_codes,
)
from vap_lsp.schema.store import available_versions, default_version
from vap_lsp.suggest import did_you_mean
from vap_lsp.yaml.detect import decode_bytes

STDIN = "-"


def _stop(problems: Sequence[str]) -> int:
    """Usage and configuration mistakes: said before any file is checked, exit 2."""
    for problem in problems:
        print(f"vap-lsp: {problem}", file=sys.stderr)
    return 2


def _warn(warnings: Iterable[str]) -> None:
    for warning in warnings:
        print(f"vap-lsp: warning: {warning}", file=sys.stderr)


def _check(args: argparse.Namespace) -> int:
    problems: list[str] = []
    try:
        version = given_version(args)
    except ValueError as exc:
        problems.append(str(exc))
        version = None
    severity, bad = parse_severity_overrides(args.severity)
    problems.extend(bad)
    if args.paths.count(STDIN) > 1:
        problems.append("standard input (-) can be read once")
    if not args.paths and not args.static_manifests:
        problems.append("check: give a PATH or --static-manifests DIR")
    if args.plugin and not args.static_manifests:
        problems.append("--plugin needs --static-manifests DIR")
    for folder in args.static_manifests:
        if not Path(folder).is_dir():
            problems.append(f"--static-manifests {folder}: not a folder")
    problems.extend(explicit_config_problems(args))
    output: TextIO | None = None
    if args.output_file and not problems:
        try:  # opened now: a path that cannot be written stops the run before it starts
            output = open(args.output_file, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            problems.append(f"--output-file {args.output_file}: {exc.strerror or exc}")
    if problems:
        return _stop(problems)
    try:
        return _run_check(args, version, severity, output)
    finally:
        if output is not None:
            output.close()


def _run_check(
    args: argparse.Namespace,
    version: str | None,
    severity: Overrides,
    output: TextIO | None,
) -> int:
    from vap_lsp.analysis.engine import analyse_bytes, parse_text  # not for `serve`
    from vap_lsp.static_manifests.api import StaticFolder, analyse_file, declared_folders, family_of

    ignore = split_codes(args.ignore)
    _warn(f"--ignore: {p}" for p in code_problems(ignore))
    _warn(f"--severity: {p}" for p in code_problems({c for c, _ in severity.severity} | severity.off))
    overrides = Overrides(version, ignore, severity.severity, severity.off)
    configs = config_resolver(args)
    io_errors: list[str] = []
    named = {Path(p) for p in args.paths if p != STDIN and not Path(p).is_dir()}
    sources: list[tuple[Path, Config, bool]] = []  # (path, its configuration, read from stdin)
    for path in collect_files([p for p in args.paths if p != STDIN], io_errors):
        config = configs.for_path(path)
        if config.is_excluded(path):
            if path in named:  # named on the command line: say why nothing is reported for it
                _warn([f"{path}: not checked: excluded by `exclude` in {config.path}"])
            continue
        sources.append((path, config, False))
    stdin_name = Path(args.stdin_filename or "<stdin>")
    if STDIN in args.paths:
        sources.append((stdin_name, configs.for_path(Path.cwd() / stdin_name), True))
    config_errors = sorted({e for c in configs.loaded() for e in c.errors})
    if config_errors:
        return _stop(config_errors)
    _warn(sorted({w for c in configs.loaded() for w in c.warnings}))

    # Two passes: index every file (CRDs, policies, bindings), then analyse each with the index.
    workspace = WorkspaceIndex()
    load_external_crds(args.crd, io_errors, workspace)
    first_pass: list[tuple[Path, Config, AnalysisSettings, bytes, str | None, Any]] = []
    for path, config, from_stdin in sources:
        if from_stdin:
            data = read_stream(sys.stdin.buffer, "standard input", io_errors)
        else:
            data = read_file(path, io_errors)
        if data is None:
            continue
        settings = config.analysis_settings(path, overrides)
        text, _ = decode_bytes(data)
        parsed = parse_text(text) if text is not None else None
        if parsed is not None:  # a kustomize patch is merged into an object elsewhere: not indexed
            workspace.update(str(path), [] if settings.patch else parsed[1], parsed[0].text)
        first_pass.append((path, config, settings, data, text, parsed))
    # The configuration's `crds`, over every checked file's configuration; after `--crd` (set above).
    load_config_crds(configs_for(configs, [entry[0] for entry in first_pass]), io_errors, workspace)
    # Checking single files says nothing about the rest of the repository: cross-file findings
    # ("no policy named ...") only when a folder was given.
    workspace.complete = any(Path(p).is_dir() for p in args.paths if p != STDIN)

    # Folders kube-apiserver loads at start-up: given, configured, or named by an
    # AdmissionConfiguration among the files. Their files are checked as its loader reads them.
    static: dict[Path, StaticFolder] = {}
    given_family = family_of(args.plugin)
    for folder in args.static_manifests:
        static.setdefault(
            Path(folder).resolve(), StaticFolder(Path(folder), given_family, "--static-manifests")
        )
    for path, config, settings, _, text, _ in first_pass:
        in_config = config.static_folder(path)
        if in_config is not None:
            static.setdefault(
                in_config[0], StaticFolder(_shown(in_config[0]), family_of(in_config[1]), str(config.path))
            )
        for declared in declared_folders(text, path, settings) if text is not None else []:
            static.setdefault(
                declared.folder.resolve(),
                StaticFolder(_shown(declared.folder), declared.family, str(declared.source)),
            )

    # What the report shows: `--min-severity`/`--show-notes`, else the file's configuration, else
    # the format's own (text leaves notes out and counts them; the machine formats keep them).
    given_level = Severity.HINT if args.show_notes else severity_level(args.min_severity or "")
    reports: list[FileReport] = []
    hidden: list[Diagnostic] = []
    levels: list[Severity] = []
    has_error = False

    def add(report: FileReport, config: Config) -> None:
        nonlocal has_error
        has_error = has_error or any(d.severity is Severity.ERROR for d in report.diagnostics)
        level = given_level or config.min_severity or default_min_severity(args.format)
        shown, left_out = split_by_severity(report, level)
        reports.append(shown)
        hidden.extend(left_out)
        levels.append(level)

    summaries = [
        _check_static(entry, configs, overrides, workspace, add, io_errors) for entry in static.values()
    ]
    for path, config, settings, data, text, parsed in first_pass:
        if not path.name.startswith("<") and path.absolute().parent.resolve() in static:
            continue  # checked with its folder, as kube-apiserver loads it
        if text is None:
            analysis = analyse_bytes(data, settings)
        else:
            analysis, _ = analyse_file(
                text, settings, workspace=workspace, uri=str(path), parsed=parsed, path=path
            )
        add(FileReport(str(path), analysis.lines, analysis.diagnostics), config)

    report = FORMATTERS[args.format](reports)
    if output is not None:
        try:
            output.write(report)
        except OSError as exc:
            io_errors.append(f"{args.output_file}: {exc.strerror or exc}")
    elif not args.statistics:
        sys.stdout.write(report)
    if args.statistics:
        sys.stdout.write(statistics(reports))
    for message in io_errors:
        print(f"vap-lsp: {message}", file=sys.stderr)
    if args.format == "text" or args.output_file or args.statistics:
        print(summary_line(reports, max(levels, default=given_level or Severity.HINT)), file=sys.stderr)
        if (left_out_line := hidden_line(hidden, level_given=given_level is not None)) is not None:
            print(left_out_line, file=sys.stderr)
    for line in summaries:
        print(line, file=sys.stderr)
    if io_errors:
        return 2
    return 1 if has_error and not args.exit_zero else 0


def _shown(folder: Path) -> Path:
    """A folder as the user would write it: relative to the current folder when below it."""
    try:
        return folder.relative_to(Path.cwd())
    except ValueError:
        return folder


def _check_static(
    entry: Any,
    configs: Any,
    overrides: Overrides,
    workspace: WorkspaceIndex,
    add: Callable[[FileReport, Config], None],
    io_errors: list[str],
) -> str:
    """One static manifests folder: its files' reports (and one for the folder's own notes) to
    `add`, its I/O errors, and the summary line kube-apiserver's verdict is said in."""
    from vap_lsp.static_manifests.loader import check_folder
    from vap_lsp.text import LineIndex

    folder = entry.folder

    def settings_for(path: Path) -> AnalysisSettings:
        config: Config = configs.for_path(path)
        return config.analysis_settings(path, overrides)

    version = settings_for(folder / "_").resolved_version()
    result = check_folder(
        folder, version=version, family=entry.family, settings_for=settings_for, crds=workspace.crds()
    )
    io_errors.extend(result.io_errors)
    if result.notes:
        add(FileReport(str(folder), LineIndex(""), result.notes), configs.for_path(folder / "_"))
    for f in result.files:
        add(FileReport(str(f.path), f.lines, f.diagnostics), configs.for_path(f.path))
    return result.summary()


def _test(args: argparse.Namespace) -> int:
    from vap_lsp.testfiles.discover import discover
    from vap_lsp.testfiles.report import SuiteRun, counts, junit_report, text_report
    from vap_lsp.testfiles.runner import run_suite

    try:
        version = given_version(args)
    except ValueError as exc:
        print(f"vap-lsp: {exc}", file=sys.stderr)
        return 2
    if problems := explicit_config_problems(args):
        return _stop(problems)
    io_errors: list[str] = []
    wants_coverage = bool(args.coverage or args.coverage_lcov or args.coverage_xml)
    traced = args.explain or wants_coverage
    suites = discover(args.paths or ["."], io_errors)
    if args.policy:
        tested = {c.policy for s in suites for c in s.cases if c.policy} | {
            p for s in suites for p in s.policies
        }
        if args.policy not in tested:
            listed = ", ".join(sorted(tested)) or "none"
            return _stop(
                [
                    f"--policy {args.policy}: no test case is about this policy"
                    f"{did_you_mean(args.policy, tested)} (the test files test: {listed})"
                ]
            )
    resolver = config_resolver(args)
    extra = load_external_crds(args.crd, io_errors)
    runs: list[SuiteRun] = []
    seen: set[int] = set()
    # Each configuration's `crds`, read (and its problems reported) once for all its test files.
    config_crds: dict[Path | None, list[dict[str, Any]]] = {}
    for suite in suites:
        # The configuration of the test file: its `crds` after --crd, its `kubernetes-version`
        # under --kubernetes-version and the file's own kubernetesVersion.
        configs = configs_for(resolver, [Path(suite.path)])
        for config in configs:
            if config.path not in config_crds:
                config_crds[config.path] = load_config_crds([config], io_errors)
        given = extra + [crd for config in configs for crd in config_crds[config.path]]
        for case in suite.cases:
            if given and id(case.inputs) not in seen:  # cases may share their inputs
                seen.add(id(case.inputs))
                case.inputs.crds.extend(given)  # after the suite's own: those win
        suite_version = version or (None if suite.kubernetes_version else first_kubernetes_version(configs))
        runs.append(SuiteRun(suite, run_suite(suite, suite_version, args.policy, explain=traced)))
    config_errors = sorted({e for c in resolver.loaded() for e in c.errors})
    io_errors = config_errors + io_errors
    coverage = None
    if wants_coverage:
        from vap_lsp.testfiles.coverage import collect

        coverage = collect(
            (r.result for run in runs for r in run.results if r.result is not None),
            (source for run in runs for source in run.suite.policy_sources),
        )
    if args.format == "json":
        from vap_lsp.testfiles.report import json_report

        sys.stdout.write(json_report(runs, coverage))
    else:
        sys.stdout.write(text_report(runs, verbose=args.verbose, explain=args.explain))
        if coverage is not None and args.coverage:
            from vap_lsp.testfiles.coverage import table

            sys.stdout.write(table(coverage))
    if coverage is not None:
        from vap_lsp.testfiles.coverage import cobertura, lcov

        for target, render in ((args.coverage_lcov, lcov), (args.coverage_xml, cobertura)):
            if target:
                try:
                    Path(target).write_text(render(coverage), encoding="utf-8")
                except OSError as exc:
                    io_errors.append(f"{target}: {exc.strerror or exc}")
    if args.junit:
        try:
            Path(args.junit).write_text(junit_report(runs), encoding="utf-8")
        except OSError as exc:
            io_errors.append(f"{args.junit}: {exc.strerror or exc}")
    for message in io_errors:
        print(f"vap-lsp: {message}", file=sys.stderr)
    if not suites and not io_errors:
        print("vap-lsp: no test files found", file=sys.stderr)
        return 2
    if io_errors or any(s.problems for s in suites):
        return 2
    return 1 if counts(runs)[1] else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vap-lsp",
        description="Language server and checker for Kubernetes admission policy YAML.",
    )
    parser.add_argument("--version", action="version", version=f"vap-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="report what the API server would reject, per file and line")
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or folders (recursing into *.yaml, *.yml); - reads standard input "
        "(helm template ... | vap-lsp check -)",
    )
    check.add_argument(
        "--static-manifests",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder kube-apiserver loads policies from at start-up (staticManifestsDir, 1.36+): "
        "checked as its loader reads it (repeatable)",
    )
    check.add_argument(
        "--plugin",
        choices=("validating", "mutating"),
        help="the admission plugin whose staticManifestsDir --static-manifests is (default: said by "
        "the kinds the folder holds)",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name standard input is reported under and its configuration found for "
        "(default <stdin>, in the current folder)",
    )
    check.add_argument(
        "--format",
        choices=sorted(FORMATTERS),
        default="text",
        help="text (default), json, sarif (code scanning), github (workflow annotations), junit (XML)",
    )
    check.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of diagnostics per code (stdout), of those the report shows",
    )
    shown = check.add_mutually_exclusive_group()
    shown.add_argument(
        "--min-severity",
        choices=LEVELS,
        metavar="LEVEL",
        help="report diagnostics of LEVEL and above: error, warning, information or hint (default: "
        "warning for text, with one line counting the notes left out; hint for the other formats)",
    )
    shown.add_argument(
        "--show-notes",
        action="store_true",
        help="report notes (information and hint) in the text format too: --min-severity hint",
    )
    check.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even with errors (2 still means bad input)"
    )
    add_config_options(check)
    check.add_argument(
        "--ignore", action="append", default=[], metavar="CODE[,CODE]", help="hide these codes (repeatable)"
    )
    check.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="report CODE as error, warning, information or hint, or off (repeatable)",
    )
    check.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"Kubernetes version to check against ({', '.join(available_versions())}; "
        f"default {default_version()})",
    )
    add_crd_option(check)
    check.set_defaults(func=_check)

    test = sub.add_parser(
        "test",
        help="run admission test files (vap-lsp AdmissionTest, kaptest, kyverno-test.yaml)",
        description="Exit codes: 0 every case passed, 1 a case failed, 2 bad input.",
    )
    test.add_argument(
        "paths", nargs="*", metavar="PATH", help="test files, or folders to search (default: .)"
    )
    test.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    test.add_argument("--policy", metavar="NAME", help="only cases about this policy")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing cases too")
    test.add_argument(
        "--explain",
        action="store_true",
        help="explain every case's verdict (as `run --explain`): scope, failing sub-expressions "
        "with their values and elements, messages, costs",
    )
    test.add_argument("--format", choices=("text", "json"), default="text", help="report format (stdout)")
    test.add_argument(
        "--coverage",
        action="store_true",
        help="print per policy which expressions and branches the cases cover",
    )
    test.add_argument("--coverage-lcov", metavar="FILE", help="write the coverage as an LCOV tracefile")
    test.add_argument("--coverage-xml", metavar="FILE", help="write the coverage as Cobertura XML")
    test.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help="Kubernetes version to evaluate with (default: the file's kubernetesVersion, else "
        f"{default_version()})",
    )
    add_crd_option(test)
    add_config_options(test)
    test.set_defaults(func=_test)

    from vap_lsp.cli.run import add_parser as add_run_parser

    add_run_parser(sub)

    from vap_lsp.cli.impact import add_parser as add_impact_parser

    add_impact_parser(sub)

    from vap_lsp.cli.convert import add_parser as add_convert_parser

    add_convert_parser(sub)

    from vap_lsp.cli.cel import add_parser as add_cel_parser

    add_cel_parser(sub)

    from vap_lsp.cli.library import add_parser as add_library_parser

    add_library_parser(sub)

    from vap_lsp.cli.rule import add_parser as add_rule_parser

    add_rule_parser(sub)

    from vap_lsp.cli import serve

    serve.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "serve":
        collector.resume()  # loaded (`vap_lsp.cli.entry`); `serve` resumes in `run_server`
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
