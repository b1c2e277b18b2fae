"""`vap-lsp cel`: a CEL playground with the server's admission environment.

Thin: arguments, files and output; compiling and evaluating is `vap_lsp.admission.playground`.
Exit codes: 0 a value (or an expression that compiles but reads an object nobody gave: compiled
and estimated, not evaluated), 1 an evaluation error, 2 a compile error or bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vap_lsp.cli.crd_option import add_crd_option, given_version, load_external_crds
from vap_lsp.schema.store import available_versions, default_version


def add_parser(sub: Any) -> None:
    cel = sub.add_parser(
        "cel",
        help="compile and evaluate one CEL expression as a policy validation (a playground)",
        description="Compile EXPRESSION in the admission environment of a Kubernetes version "
        "(object/oldObject typed from --kind, else dyn), evaluate it with the given inputs "
        "(objects defaulted as `run` defaults them) and print its value, type, runtime cost and "
        "static cost estimate (min..max, as the API server estimates a CRD rule; lists and strings "
        "without maxItems/maxLength in the kind's schema as large as a 3 MiB request allows). "
        "Without an object (--object, --old-object), an expression that reads one is compiled and "
        "estimated but not evaluated. "
        "Exit codes: 0 a value (or not evaluated), 1 an evaluation error, 2 a compile error or bad usage.",
    )
    cel.add_argument("expression", metavar="EXPRESSION")
    cel.add_argument(
        "--kind",
        metavar="GROUP/VERSION/KIND",
        help="type object/oldObject as this kind (v1/Pod, apps/v1/Deployment, a CRD's kind with --crd)",
    )
    add_crd_option(cel)
    cel.add_argument(
        "--object",
        metavar="FILE",
        help="the object (defaulted as the server decodes it); a file of several objects, as `run` "
        "reads them, gives its first (or --object-index's); an AdmissionReview gives its request "
        "and objects",
    )
    cel.add_argument(
        "--object-index",
        type=int,
        metavar="N",
        help="which object of the --object file (0 is the first)",
    )
    cel.add_argument(
        "--old-object", metavar="FILE", help="the old object (UPDATE with --object, else DELETE)"
    )
    cel.add_argument("--params", metavar="FILE", help="the param object (declares `params`)")
    cel.add_argument("--namespace-object", metavar="FILE", help="the Namespace bound as namespaceObject")
    cel.add_argument("--request", metavar="FILE", help="bind this AdmissionRequest as `request`")
    cel.add_argument(
        "--authorizer-rules",
        metavar="FILE",
        help="who may do what, answering `authorizer` checks (as `run`; default: nothing allowed)",
    )
    cel.add_argument(
        "--kubernetes-version",
        metavar="X.Y",
        help=f"({', '.join(available_versions())}; default {default_version()})",
    )
    cel.add_argument("--format", choices=("text", "json"), default="text")
    cel.set_defaults(func=cel_command)


def _fail(message: str) -> int:
    print(f"vap-lsp: {message}", file=sys.stderr)
    return 2


def _one(path: str, option: str) -> dict[str, Any]:
    from vap_lsp.admission.load import InputError, documents, read_text

    docs = [d for d in documents(read_text(Path(path)), path) if d is not None]
    if len(docs) != 1:
        raise InputError(f"{option} {path}: expected one mapping (an object), found {len(docs)} documents")
    return _mapping(docs[0], f"{option} {path}")


def _mapping(doc: Any, where: str) -> dict[str, Any]:
    from vap_lsp.admission.load import InputError

    if not isinstance(doc, dict):
        found = "a list" if isinstance(doc, list) else "a scalar"
        raise InputError(f"{where}: expected a mapping (an object), found {found}")
    return doc


def _picked(path: str, option: str, index: int | None, notes: list[str]) -> dict[str, Any]:
    """One object of a file `run` would read as several requests: the `index`th, else the
    first, with a note saying so."""
    from vap_lsp.admission.load import InputError, objects

    found = [d for d in objects(Path(path)) if d is not None]
    if not found:
        raise InputError(f"{option} {path}: no object in the file")
    if index is not None and not 0 <= index < len(found):
        raise InputError(f"--object-index {index}: {path} holds {len(found)} objects (0 to {len(found) - 1})")
    if index is None and len(found) > 1:
        which = "--object-index N picks another" if option == "--object" else "give a file of one"
        notes.append(f"{option} {path} holds {len(found)} objects: evaluated with the first ({which})")
    where = f"{option} {path}" + (f" (object {index})" if index else "")
    return _mapping(found[index or 0], where)


def _request(path: str) -> dict[str, Any]:
    from vap_lsp.admission.load import InputError
    from vap_lsp.admission.playground import request_shape_error

    request = _one(path, "--request")
    error = request_shape_error(request)
    if error is not None:
        raise InputError(f"--request {path}: {error}")
    return request


def cel_command(args: argparse.Namespace) -> int:
    from vap_lsp.admission.load import InputError, load_authorizer_rules
    from vap_lsp.admission.playground import (
        PlaygroundError,
        PlaygroundInputs,
        evaluate_expression,
        parse_kind,
        request_shape_error,
    )

    try:
        version = given_version(args) or default_version()
    except ValueError as exc:
        return _fail(str(exc))
    io_errors: list[str] = []
    crds = load_external_crds(args.crd, io_errors)
    if io_errors:
        return _fail(io_errors[0])
    if args.object_index is not None and not args.object:
        return _fail("--object-index picks one object of an --object file: give --object")
    notes: list[str] = []
    try:
        obj = _picked(args.object, "--object", args.object_index, notes) if args.object else None
        old = _picked(args.old_object, "--old-object", None, notes) if args.old_object else None
        request = _request(args.request) if args.request else None
        if obj is not None and obj.get("kind") == "AdmissionReview":  # as `run` reads one
            if old is not None or request is not None:
                return _fail("--object is an AdmissionReview: it gives the request and its objects")
            review = obj.get("request")
            if not isinstance(review, dict) or (error := request_shape_error(review)) is not None:
                why = "no request" if not isinstance(review, dict) else error
                return _fail(f"--object {args.object}: an AdmissionReview with {why}")
            request = review
            obj = review.get("object") if isinstance(review.get("object"), dict) else None
            old = review.get("oldObject") if isinstance(review.get("oldObject"), dict) else None
        inputs = PlaygroundInputs(
            version,
            kind=parse_kind(args.kind) if args.kind else None,
            crds=crds,
            object=obj,
            old_object=old,
            params=_one(args.params, "--params") if args.params else None,
            namespace_object=_one(args.namespace_object, "--namespace-object")
            if args.namespace_object
            else None,
            request=request,
            authorizer_rules=load_authorizer_rules(Path(args.authorizer_rules))
            if args.authorizer_rules
            else None,
        )
        result = evaluate_expression(args.expression, inputs)
    except (InputError, PlaygroundError) as exc:
        return _fail(str(exc))
    notes += result.notes
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False, allow_nan=False))
    elif result.compile_error is not None:
        print(result.compile_error, file=sys.stderr)
    else:
        estimate = result.cost_estimate
        shown = f"{estimate.min}..{estimate.max}" if estimate is not None else "none"
        if result.not_evaluated is not None:
            print(f"not evaluated: {result.not_evaluated}")
        elif result.error is not None:
            print(f"error: {result.error}")
        else:
            print(json.dumps(result.value, ensure_ascii=False, allow_nan=False))
        print(f"type: {result.type}")
        if result.not_evaluated is not None:
            print(f"cost: estimate {shown}")
        else:
            print(f"cost: {result.cost_actual} (runtime; estimate {shown})")
    if result.compile_error is None:
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    if result.compile_error is not None:
        return 2
    return 1 if result.error is not None else 0
