"""`vap-lsp impact`: what policies would deny over a cluster snapshot or an audit log, and what a
policy change would change. Thin: arguments, progress and output; the work is `vap_lsp.impact`.

Exit codes: 0 nothing denied (with `--base`: nothing newly denied), 1 something is, 2 bad input.
`--base-pss` compares with Pod Security Admission as `vap_lsp.impact.pss` emulates it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from vap_lsp.cli.crd_option import add_config_options, add_crd_option
from vap_lsp.cli.run import SetupError, _fail, policy_setup
from vap_lsp.schema.store import available_versions, default_version

FORMATS = ("text", "json", "markdown", "sarif", "html")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "impact",
        help="what policies would deny over a cluster snapshot or an audit log (and what a change changes)",
        description="Exit codes: 0 nothing denied (with --base: nothing newly denied), 1 something is, "
        "2 bad input.",
    )
    p.add_argument(
        "paths", nargs="*", metavar="POLICY_PATH", help="policies, bindings, params, namespaces, CRDs"
    )
    p.add_argument(
        "--objects",
        nargs="+",
        action="extend",
        default=[],
        metavar="PATH",
        help="snapshots: kubectl get -o yaml|json Lists, manifests, folders, .gz; paths, URLs "
        "(file://, s3://, gs://, az://…) and globs",
    )
    p.add_argument(
        "--audit-log",
        nargs="+",
        action="extend",
        default=[],
        metavar="PATH",
        help="audit.k8s.io/v1 Event JSON lines (.gz too; paths, URLs, globs); --objects then only adds "
        "Namespaces and params",
    )
    p.add_argument(
        "--cluster",
        action="store_true",
        help="read the objects from a live cluster (read-only; kubeconfig context or in-cluster)",
    )
    p.add_argument("--context", metavar="NAME", help="with --cluster: the kubeconfig context")
    p.add_argument("--kubeconfig", metavar="FILE", help="with --cluster: the kubeconfig file")
    p.add_argument(
        "--installed",
        action="store_true",
        help="with --cluster: compare with the policies and bindings installed in the cluster (or "
        "evaluate those when no POLICY_PATH is given)",
    )
    p.add_argument(
        "--static-manifests",
        action="append",
        default=[],
        metavar="DIR",
        help="also the policies kube-apiserver loads from this staticManifestsDir at start-up "
        "(no snapshot holds them; repeatable)",
    )
    p.add_argument("--base", metavar="GIT_REF", help="compare with the policies at this git ref")
    p.add_argument(
        "--base-pss",
        action="store_true",
        help="compare with Pod Security Admission (emulated by `vap-lsp library pss --namespace-labels`) "
        "over the snapshot's namespace labels: what replacing PSA with the policies would change",
    )
    p.add_argument(
        "--pss-config",
        metavar="FILE",
        help="with --base-pss: the cluster's PodSecurityConfiguration (or AdmissionConfiguration): "
        "defaults of unlabelled namespaces and exemptions",
    )
    p.add_argument(
        "--operation", default="CREATE", type=str.upper, choices=("CREATE", "UPDATE"), help="for snapshots"
    )
    p.add_argument("--user", default="system:anonymous", metavar="NAME", help="for snapshots")
    p.add_argument("--group", action="append", default=[], metavar="NAME", help="for snapshots")
    p.add_argument("--authorizer-rules", metavar="FILE", help="who may do what (see `vap-lsp run`)")
    p.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"({', '.join(available_versions())}; default {default_version()})",
    )
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes of a local Dask cluster (vap-lsp[scale]; default 1: this process)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on an existing Dask cluster, tcp://HOST:PORT (default: $DASK_SCHEDULER_ADDRESS)",
    )
    p.add_argument("--shard", metavar="K/N", help="only the K-th of N shares of the requests")
    p.add_argument(
        "--merge", nargs="+", default=None, metavar="RESULT", help="sum --format json results of shards"
    )
    p.add_argument(
        "--max-objects",
        type=int,
        default=1000,
        metavar="N",
        help="objects listed per binding and per change, the first by namespace/kind/name (0: all; "
        "default 1000); the others are counted",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress line on a terminal")
    add_crd_option(p)
    add_config_options(p)
    p.set_defaults(func=impact_command)


class _Progress:
    """`impact: N requests, R/s` on stderr, at most 5 times a second, only on a terminal."""

    def __init__(self) -> None:
        self.start = self.last = time.monotonic()
        self.shown = False

    def __call__(self, done: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        rate = done / max(now - self.start, 1e-9)
        sys.stderr.write(f"\rimpact: {done:,} requests, {rate:,.0f}/s ")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _say(text: str) -> None:
    sys.stderr.write(f"impact: {text}\n")
    sys.stderr.flush()


def _usage_problem(args: argparse.Namespace) -> str | None:
    if not args.objects and not args.audit_log and not args.cluster:
        return "nothing to evaluate: give --objects PATH, --audit-log PATH or --cluster"
    if args.cluster and args.audit_log:
        return "--cluster reads objects from the cluster: it does not replay --audit-log"
    if not args.cluster and (args.context or args.kubeconfig or args.installed):
        return "--context, --kubeconfig and --installed go with --cluster"
    if args.installed and args.base:
        return "--installed compares with the cluster's policies: give --base or --installed, not both"
    if args.jobs is not None and args.jobs < 1:
        return "--jobs must be at least 1"
    if args.max_objects < 0:
        return "--max-objects must be 0 (all) or more"
    if args.base_pss and (args.base or args.installed):
        return "--base-pss and --base (or --installed): compare with one base"
    if args.pss_config and not args.base_pss:
        return "--pss-config needs --base-pss"
    return None


def impact_command(args: argparse.Namespace) -> int:
    from vap_lsp.admission.api import UserInfo
    from vap_lsp.admission.load import InputError
    from vap_lsp.impact.base import BaseError, base_inputs
    from vap_lsp.impact.driver import EngineError, ImpactOptions, LiveOptions, SnapshotError, impact
    from vap_lsp.impact.live import ClusterError
    from vap_lsp.impact.pss import PssConfig, pss_base, read_config
    from vap_lsp.impact.render import RENDERERS
    from vap_lsp.impact.report import Impact, MergeError, merge
    from vap_lsp.impact.sources import Shard

    if args.merge is not None:
        try:
            result = merge(Impact.from_json(_read_json(Path(f))) for f in args.merge)
        except (MergeError, OSError, ValueError) as exc:
            return _fail(str(exc))
    else:
        if problem := _usage_problem(args):
            return _fail(problem)
        if args.static_manifests:
            from vap_lsp.static_manifests.api import manifest_files

            listed: list[str] = []
            for folder in args.static_manifests:
                problems: list[str] = []
                listed.extend(str(p) for p in manifest_files(Path(folder), problems))
                if problems:
                    return _fail(f"--static-manifests {problems[0]}")
            args.paths = [*args.paths, *listed]
        try:
            shard = Shard.parse(args.shard) if args.shard else Shard()
            inputs, version = policy_setup(args)
            base = base_inputs(args.paths, args.base) if args.base else None
            notes: list[str] = []
            if args.base_pss:
                config = read_config(args.pss_config) if args.pss_config else PssConfig()
                base, notes = pss_base(config, version)
        except (SetupError, ValueError, BaseError, InputError) as exc:
            return _fail(str(exc))
        if base is not None:
            base.crds.extend(c for c in inputs.crds if c not in base.crds)
            base.authorizer_rules = inputs.authorizer_rules
        progress = _Progress() if sys.stderr.isatty() and not args.no_progress else None
        options = ImpactOptions(
            inputs,
            version,
            objects=args.objects,
            audit_logs=args.audit_log,
            base=base,
            operation=args.operation,
            user=UserInfo(username=args.user, groups=tuple(args.group)),
            jobs=args.jobs,
            scheduler=args.scheduler,
            live=LiveOptions(args.kubeconfig, args.context, args.installed) if args.cluster else None,
            shard=shard,
            progress=progress,
            say=_say,
            limit=args.max_objects,
        )
        try:
            result = impact(options)
        except (SnapshotError, EngineError, ClusterError) as exc:
            return _fail(str(exc))
        finally:
            if progress is not None:
                progress.close()
        for note in notes:
            result.note(note)
    output = RENDERERS[args.format](result)
    if args.output_file:
        try:
            Path(args.output_file).write_text(output, encoding="utf-8")
        except OSError as exc:
            return _fail(f"{args.output_file}: {exc.strerror or exc}")
    else:
        sys.stdout.write(output)
    if result.changes is not None:
        newly = result.changes.get("newlyDenied")
        return 1 if newly is not None and newly.total else 0
    return 1 if result.verdicts.get("denied") else 0


def _read_json(path: Path) -> Any:
    """A result to merge (no size limit: `--max-objects 0` results may be large); a FIFO or a
    device is refused before it is opened."""
    from vap_lsp.analysis.files import unreadable

    problem = unreadable(path)
    if problem is not None:
        raise ValueError(problem)
    with open(path, encoding="utf-8") as f:
        return json.load(f)
