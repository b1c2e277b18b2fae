"""`vap-lsp`: the console entry point.

Exit codes of `check`: 0 no error-severity diagnostic, 1 at least one, 2 usage or I/O error
(an unreadable or missing path; the readable files are still checked and reported).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from vap_lsp import __version__
from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_bytes
from vap_lsp.cli.report import FORMATTERS, FileReport, summary_line
from vap_lsp.schema.store import available_versions, default_version, normalize_version

YAML_SUFFIXES = (".yaml", ".yml")
# Files larger than this are reported, not parsed: no policy is anywhere near it.
MAX_FILE_BYTES = 16 * 1024 * 1024


def _walk(root: Path, errors: list[str]) -> Iterator[Path]:
    """YAML files below `root`, sorted, hidden folders skipped, symlinked folders not followed."""

    def onerror(exc: OSError) -> None:
        errors.append(f"{exc.filename}: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(YAML_SUFFIXES):
                yield Path(dirpath) / name


def collect_files(paths: Sequence[str], errors: list[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(_walk(path, errors))
        elif path.is_file():
            files.append(path)
        else:
            errors.append(f"{raw}: no such file or directory")
    return files


def _check(args: argparse.Namespace) -> int:
    try:
        settings = AnalysisSettings(
            normalize_version(args.kubernetes_version) if args.kubernetes_version else None
        )
    except ValueError as exc:
        print(f"vap-lsp: {exc}", file=sys.stderr)
        return 2
    io_errors: list[str] = []
    reports: list[FileReport] = []
    for path in collect_files(args.paths, io_errors):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                io_errors.append(f"{path}: skipped, larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
                continue
            data = path.read_bytes()
        except OSError as exc:
            io_errors.append(f"{path}: {exc.strerror or exc}")
            continue
        analysis = analyse_bytes(data, settings)
        reports.append(FileReport(str(path), analysis.lines, analysis.diagnostics))

    output = FORMATTERS[args.format](reports)
    sys.stdout.write(output)
    for message in io_errors:
        print(f"vap-lsp: {message}", file=sys.stderr)
    if args.format == "text":
        print(summary_line(reports), file=sys.stderr)
    if io_errors:
        return 2
    has_error = any(d.severity is Severity.ERROR for r in reports for d in r.diagnostics)
    return 1 if has_error else 0


def _serve(args: argparse.Namespace) -> int:
    from vap_lsp.server.app import run_server

    host: str | None = None
    port: int | None = None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not host or not port_text.isdigit():
            print("vap-lsp: --tcp expects HOST:PORT, e.g. 127.0.0.1:2087", file=sys.stderr)
            return 2
        port = int(port_text)
    run_server(host=host, port=port)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vap-lsp",
        description="Language server and checker for Kubernetes admission policy YAML.",
    )
    parser.add_argument("--version", action="version", version=f"vap-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="report what the API server would reject, per file and line")
    check.add_argument(
        "paths", nargs="+", metavar="PATH", help="files or folders (recursing into *.yaml, *.yml)"
    )
    check.add_argument("--format", choices=sorted(FORMATTERS), default="text")
    check.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"Kubernetes version to check against ({', '.join(available_versions())}; "
        f"default {default_version()})",
    )
    check.set_defaults(func=_check)

    serve = sub.add_parser("serve", help="run the language server (stdio unless --tcp)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")
    serve.set_defaults(func=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
