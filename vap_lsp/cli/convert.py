"""`vap-lsp convert`: Gatekeeper templates and Kyverno policies to ValidatingAdmissionPolicies.
Thin: arguments, files written, the report printed; the work is `vap_lsp.convert`.

Exit codes: 0 converted (and, with --verify, every evaluable case agrees), 1 a case disagrees
or the output has an error under `vap-lsp check`, 2 bad input (unreadable paths, nothing to
convert, no test file found).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vap_lsp.cli.crd_option import given_version
from vap_lsp.schema.store import available_versions, default_version


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "convert",
        help=(
            "convert Gatekeeper templates and Kyverno policies to ValidatingAdmissionPolicies, and verify "
            "them"
        ),
        description="Exit codes: 0 converted (with --verify: every evaluable case agrees), 1 a case "
        "disagrees or the output has an error under `vap-lsp check`, 2 bad input.",
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="ConstraintTemplates and their constraints, Kyverno ValidatingPolicies and ClusterPolicies "
        "(files or folders)",
    )
    p.add_argument(
        "-o", "--output", metavar="OUTDIR", help="write one file per source policy here (default: stdout)"
    )
    p.add_argument("--report", choices=("text", "json", "markdown"), default="text", help="report format")
    p.add_argument(
        "--verify",
        nargs="+",
        default=None,
        metavar="TESTS",
        help="replay these Gatekeeper suite.yaml and Kyverno kyverno-test.yaml files (or folders) "
        "through the converted policies",
    )
    p.add_argument("--explain", action="store_true", help="with --verify: explain every disagreement")
    p.add_argument(
        "--params",
        choices=("constraint", "configmap"),
        default="constraint",
        help="Gatekeeper params: the constraint itself (paramKind, as Gatekeeper generates) or a ConfigMap",
    )
    p.add_argument(
        "--params-namespace",
        default="gatekeeper-system",
        metavar="NAME",
        help="with --params configmap: the ConfigMaps' namespace (default gatekeeper-system)",
    )
    p.add_argument("--no-autogen", action="store_true", help="no Kyverno pod-controller variants")
    p.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"({', '.join(available_versions())}; default {default_version()})",
    )
    p.set_defaults(func=convert_command)


def convert_command(args: argparse.Namespace) -> int:
    from vap_lsp.convert.driver import convert_paths
    from vap_lsp.convert.model import Options
    from vap_lsp.convert.report import json_report, markdown_report, text_report

    try:
        version = given_version(args) or default_version()
    except ValueError as exc:
        print(f"vap-lsp: {exc}", file=sys.stderr)
        return 2
    options = Options(
        version, params=args.params, params_namespace=args.params_namespace, autogen=not args.no_autogen
    )
    run = convert_paths(args.sources, options)
    verification = None
    if args.verify is not None:
        from vap_lsp.convert.verify import verify

        verification = verify(args.verify, run.conversions, options, explain=args.explain)
    if args.output:
        outdir = Path(args.output)
        try:
            outdir.mkdir(parents=True, exist_ok=True)
            for name, text in {**run.texts, **run.crd_texts}.items():
                (outdir / name).parent.mkdir(parents=True, exist_ok=True)
                (outdir / name).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"vap-lsp: {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    elif run.texts:
        sys.stdout.write("---\n".join(run.texts.values()))
    if args.report == "json":
        report = json_report(run, verification)
    elif args.report == "markdown":
        report = markdown_report(run, verification)
    else:
        report = text_report(run, verification, outdir=args.output)
    # The YAML owns stdout when it is not written to files.
    (sys.stdout if args.output else sys.stderr).write(report)
    for problem in run.problems:
        print(f"vap-lsp: {problem}", file=sys.stderr)
    if verification is not None and verification.files == 0:
        print("vap-lsp: --verify: no Gatekeeper suite or Kyverno test found", file=sys.stderr)
        return 2
    if not run.conversions and run.problems:
        return 2
    disagree = verification is not None and any(c.status == "disagree" for c in verification.cases)
    errors = any(f.severity == "error" for f in run.findings)
    return 1 if disagree or errors else 0
