"""`vap-lsp run`: admit sample objects against policies offline and print the verdicts.

Thin: argument handling and formatting; the evaluation is `vap_lsp.admission`.
Exit codes: 0 all admitted, 1 any denied, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vap_lsp.cli.crd_option import (
    add_config_options,
    add_crd_option,
    config_resolver,
    explicit_config_problems,
    given_version,
    load_config_crds,
    load_external_crds,
)
from vap_lsp.config import configs_for, first_kubernetes_version
from vap_lsp.schema.store import available_versions, default_version

if TYPE_CHECKING:
    from vap_lsp.admission.api import AdmissionResult, PolicyInputs
    from vap_lsp.admission.explain import EvaluationExplanation


def add_parser(sub: Any) -> None:
    run = sub.add_parser(
        "run",
        help="admit sample objects against policies and bindings offline (as the API server would)",
        description="Exit codes: 0 all admitted, 1 any denied, 2 bad input.",
    )
    run.add_argument("paths", nargs="*", metavar="PATH", help="policies, bindings, params, namespaces, CRDs")
    run.add_argument(
        "--object",
        action="append",
        required=True,
        metavar="FILE",
        help="the object(s) under admission (required; repeatable; a file may hold several "
        "objects or an AdmissionReview)",
    )
    run.add_argument("--old-object", metavar="FILE", help="the old object (UPDATE, DELETE)")
    run.add_argument("--operation", default=None, help="CREATE (default), UPDATE, DELETE or CONNECT")
    run.add_argument(
        "--user",
        default="system:anonymous",
        metavar="NAME",
        help="the requesting user: request.userInfo.username, and the subject of `authorizer` "
        "checks (default system:anonymous)",
    )
    run.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="NAME",
        help="a group of the requesting user: request.userInfo.groups (repeatable)",
    )
    run.add_argument(
        "--authorizer-rules",
        metavar="FILE",
        help="who may do what, answering `authorizer` checks: a YAML list of rules (see README); "
        "an unknown key is an error",
    )
    run.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"({', '.join(available_versions())}; default {default_version()})",
    )
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.add_argument(
        "--explain",
        action="store_true",
        help="explain every verdict: scope, each validation's failing sub-expressions with their "
        "values and elements, messages, audit annotations, costs, mutations",
    )
    run.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also list every policy and binding that did not match each object, and why (by "
        "default one line counts them; --format json always lists them)",
    )
    run.add_argument(
        "--show-defaulted",
        action="store_true",
        help="show each object as validating admission saw it: defaulted and converted as the API "
        "server decodes it, changed by its default-enabled admission plugins (a Pod's service "
        "account token, priority, tolerations, ...), mutated, with the fields the server fills in "
        "on create (uid, name from generateName, a Service's cluster IP and node ports as noted "
        "placeholders, ...)",
    )
    add_crd_option(run)
    add_config_options(run)
    run.set_defaults(func=run_command)


def _fail(message: str) -> int:
    print(f"vap-lsp: {message}", file=sys.stderr)
    return 2


class SetupError(Exception):
    """Bad configuration, version or policy input (exit code 2)."""


def policy_setup(args: argparse.Namespace) -> tuple[PolicyInputs, str]:
    """The policy inputs of `args.paths` (with `--crd`, the configuration's `crds` and
    `--authorizer-rules`) and the Kubernetes version (`--kubernetes-version`, else the
    configuration's, else the default): shared by `run` and `impact`. Raises SetupError."""
    from vap_lsp.admission.load import InputError, load_authorizer_rules, load_policy_inputs

    # The configuration of the policy paths (or of the current folder): `kubernetes-version` and
    # `crds`, under --kubernetes-version and after --crd.
    if problems := explicit_config_problems(args):
        raise SetupError(problems[0])
    configs = configs_for(config_resolver(args), [Path(p) for p in args.paths] or [Path.cwd()])
    for config in configs:
        if config.errors:
            raise SetupError(config.errors[0])
    try:
        version = given_version(args) or first_kubernetes_version(configs) or default_version()
    except ValueError as exc:
        raise SetupError(str(exc)) from exc
    try:
        inputs = load_policy_inputs(args.paths)
        io_errors: list[str] = []
        inputs.crds.extend(load_external_crds(args.crd, io_errors))
        inputs.crds.extend(load_config_crds(configs, io_errors))
        if io_errors:
            raise SetupError(io_errors[0])
        if args.authorizer_rules:
            inputs.authorizer_rules = load_authorizer_rules(Path(args.authorizer_rules))
    except InputError as exc:
        raise SetupError(str(exc)) from exc
    return inputs, version


def run_command(args: argparse.Namespace) -> int:
    # Imported here: every command builds this parser, and `serve` needs neither.
    from vap_lsp.admission.api import OPERATIONS, UserInfo, prepare
    from vap_lsp.admission.load import InputError, load_requests

    try:
        inputs, version = policy_setup(args)
    except SetupError as exc:
        return _fail(str(exc))
    operation = (args.operation or ("UPDATE" if args.old_object else "CREATE")).upper()
    if operation not in OPERATIONS:
        return _fail(f"unknown operation {args.operation!r} (expected one of {', '.join(OPERATIONS)})")
    try:
        old: dict[str, Any] | None = None
        if args.old_object:
            olds = load_requests(Path(args.old_object), operation="CREATE", user=UserInfo())
            old = olds[0].object
        user = UserInfo(username=args.user, groups=tuple(args.group))
        requests = [
            r
            for f in args.object
            for r in load_requests(Path(f), operation=operation, user=user, old_object=old)
        ]
    except InputError as exc:
        return _fail(str(exc))
    inputs.add_namespaces(r.object for r in requests)
    prepared = prepare(inputs, kubernetes_version=version)
    results = [prepared.admit(r, explain=args.explain) for r in requests]
    if not args.explain:
        if args.format == "json":
            payload = [_with_evaluated(r.to_json(), r, args.show_defaulted) for r in results]
            sys.stdout.write(json.dumps({"results": payload}, indent=2) + "\n")
        else:
            sys.stdout.write(
                "".join(
                    format_text(r, show_defaulted=args.show_defaulted, verbose=args.verbose) for r in results
                )
            )
        return 0 if all(r.allowed for r in results) else 1
    from vap_lsp.admission.explain import explain_result

    explained = [explain_result(res, prepared, req) for res, req in zip(results, requests, strict=True)]
    if args.format == "json":
        payload = [
            {**_with_evaluated(res.to_json(), res, args.show_defaulted), "explain": [e.to_json() for e in ex]}
            for res, ex in zip(results, explained, strict=True)
        ]
        sys.stdout.write(json.dumps({"results": payload}, indent=2, default=str) + "\n")
    else:
        sys.stdout.write(
            "".join(
                format_text(res, show_defaulted=args.show_defaulted, explanations=ex, verbose=args.verbose)
                for res, ex in zip(results, explained, strict=True)
            )
        )
    return 0 if all(r.allowed for r in results) else 1


def _with_evaluated(out: dict[str, Any], result: AdmissionResult, show: bool) -> dict[str, Any]:
    if show:
        out["evaluatedObject"] = result.evaluated
    return out


def _value(v: object) -> str:
    return json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else json.dumps(v)


def _not_matched(policies: set[str], bindings: set[tuple[str, str]]) -> str:
    """`  not matched: 3 policies, 1 binding (--verbose says why)`."""
    counted = []
    if policies:
        counted.append(f"{len(policies)} {'policy' if len(policies) == 1 else 'policies'}")
    if bindings:
        counted.append(f"{len(bindings)} binding{'' if len(bindings) == 1 else 's'}")
    return f"  not matched: {', '.join(counted)} (--verbose says why)"


def format_text(
    result: AdmissionResult,
    *,
    show_defaulted: bool = False,
    explanations: list[EvaluationExplanation] | None = None,
    verbose: bool = False,
) -> str:
    """One object's verdict; with `explanations` (`--explain`) their text in place of the
    expression results. The policies and bindings that did not match are counted on one line,
    listed with why only when `verbose`: with a library of policies they would bury the verdict."""
    o = result.object
    where = f"{o.get('namespace')}/" if o.get("namespace") else ""
    name = o.get("name")
    if not name and result.evaluated is not None:  # created with generateName: the registry named it
        generated = (result.evaluated.get("metadata") or {}).get("name")
        name = f"{generated} (generated)" if generated else None
    lines = [f"{o.get('apiVersion')} {o.get('kind')} {where}{name or '<no name>'}"]
    considered = result.evaluations if explanations is None else explanations
    # An evaluation without a binding is a policy that matched nothing before its bindings.
    policies = {e.policy for e in considered if not e.matched and e.binding is None}
    bindings = {(e.policy, e.binding) for e in considered if not e.matched and e.binding is not None}
    if explanations is not None:
        from vap_lsp.admission.explain import render_text

        lines.extend(render_text([e for e in explanations if verbose or e.matched]))
    for ev in result.evaluations if explanations is None else []:
        if not (verbose or ev.matched):
            continue
        who = (
            ev.policy
            + (f" / binding {ev.binding}" if ev.binding else "")
            + (f" / param {ev.param}" if ev.param else "")
        )
        lines.append(f"  {who}: " + ("matched" if ev.matched else f"not matched ({ev.why_not})"))
        for x in ev.expressions:
            shown = f"error: {x.error}" if x.error else _value(x.result)
            lines.append(f"    {x.field}: {shown}")
    if not verbose and (policies or bindings):
        lines.append(_not_matched(policies, bindings))
    for note in result.notes:
        lines.append(f"  note: {note}")
    for w in result.warnings:
        lines.append(f"  warning: {w}")
    for key, value in result.audit_annotations.items():
        lines.append(f"  audit annotation {key}: {value}")
    if result.patch_diff:
        lines.append("  mutated:")
        lines.extend("    " + line.rstrip("\n") for line in result.patch_diff.splitlines())
    if show_defaulted and result.evaluated is not None:
        lines.append("  evaluated object:")
        lines.extend("    " + line for line in json.dumps(result.evaluated, indent=2).splitlines())
    if result.allowed:
        lines.append("  => admitted")
    else:
        for d in result.denials:
            lines.append(f"  => denied ({d.reason}, {d.code}): {d.message}")
    return "\n".join(lines) + "\n"
