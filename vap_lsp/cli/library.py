"""`vap-lsp library pss`: generated policy libraries. Thin: options in, YAML out; the work is
`vap_lsp.library`.

Exit codes: 0 written, 2 bad options or a folder that cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vap_lsp.schema.store import available_versions, default_version


def add_parser(sub: Any) -> None:
    library = sub.add_parser(
        "library",
        help="generate a policy library (pss: the Pod Security Standards as ValidatingAdmissionPolicies)",
        description="Exit codes: 0 written, 2 bad options or an output folder that cannot be written.",
    )
    libraries = library.add_subparsers(dest="library", required=True)
    pss = libraries.add_parser(
        "pss",
        help="the Pod Security Standards (baseline, restricted) as Pod Security Admission checks them",
        description="A ValidatingAdmissionPolicy and its binding per place a pod spec sits (Pods; "
        "workload templates), one validation per Pod Security Admission check, proven on PSA's own "
        "fixtures. Exit codes: 0 written, 2 bad options or an output folder that cannot be written.",
    )
    pss.add_argument(
        "--level",
        choices=("baseline", "restricted", "privileged"),
        help="the level (required unless --namespace-labels; then the level of unlabelled "
        "namespaces, default privileged)",
    )
    pss.add_argument(
        "--version",
        default="latest",
        metavar="v1.N|latest",
        help="the policy version (default latest, v1.37); with --namespace-labels that of unlabelled "
        "namespaces",
    )
    pss.add_argument("-o", "--output", metavar="DIR", help="write one file per object into DIR")
    pss.add_argument(
        "--workloads",
        choices=("deny", "warn", "off"),
        default="warn",
        help="pod templates of Deployments, Jobs, CronJobs, ...: warn (as PSA, default), deny, or not at all",
    )
    pss.add_argument(
        "--exemptions",
        choices=("none", "params"),
        default="none",
        help="params: exempt namespaces, usernames, runtimeClassNames and container images listed "
        "in a ConfigMap (kube-system/pss-exemptions, written too)",
    )
    pss.add_argument(
        "--namespace-labels",
        action="store_true",
        help="take the level and version from each namespace's pod-security.kubernetes.io/enforce "
        "and enforce-version labels (warn and warn-version for workloads in warn mode), as PSA",
    )
    pss.add_argument(
        "--kubernetes-version",
        default=default_version(),
        metavar="X.Y",
        help=f"the Kubernetes version the policies are typed for ({', '.join(available_versions())}; "
        f"default {default_version()}): which fields and subresources exist",
    )
    pss.add_argument(
        "--cost",
        action="store_true",
        help="print the static cost estimate of each validation against the server's limits instead of "
        "the YAML",
    )
    pss.set_defaults(func=_pss)


def _pss(args: argparse.Namespace) -> int:
    from vap_lsp.library.pss import Options, OptionsError, generate

    options = Options(
        level=args.level,
        version=args.version,
        workloads=args.workloads,
        exemptions=args.exemptions == "params",
        namespace_labels=args.namespace_labels,
        kubernetes_version=args.kubernetes_version,
    )
    try:
        generated = generate(options)
    except OptionsError as exc:
        print(f"vap-lsp: library pss: {exc}", file=sys.stderr)
        return 2
    if args.cost:
        from vap_lsp.library.cost import estimate, render

        sys.stdout.write(render(estimate(generated.text(), options.kubernetes_version)))
        return 0
    if not args.output:
        sys.stdout.write(generated.text())
        return 0
    folder = Path(args.output)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in generated.files().items():
            (folder / name).write_text(text, encoding="utf-8")
            print(f"wrote {folder / name}", file=sys.stderr)
    except OSError as exc:
        print(f"vap-lsp: library pss: {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0
