"""`vap-lsp rule CODE` / `vap-lsp rule --all`: the documentation of diagnostic codes.

Thin: the pages come from `vap_lsp.codes` (the source of docs/rules/ too).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from vap_lsp.codes import get_rule, help_uri, render_list, render_markdown, rules


def add_parser(sub: Any) -> None:
    rule = sub.add_parser(
        "rule",
        help="explain a diagnostic code (what the API server does, an example, the fix)",
        description="Exit codes: 0 printed, 2 unknown code or no code given.",
    )
    rule.add_argument("code", nargs="?", metavar="CODE", help="e.g. FieldValueForbidden, cel-type-check")
    rule.add_argument("--all", action="store_true", help="list every code with its severity and title")
    rule.add_argument("--format", choices=("text", "json"), default="text")
    rule.set_defaults(func=_rule)


def _as_json(code: str) -> dict[str, Any]:
    r = rules()[code]
    return {"code": r.code, "title": r.title, "severity": r.severity, "group": r.group, "url": help_uri(code)}


def _rule(args: argparse.Namespace) -> int:
    if args.all:
        if args.format == "json":
            sys.stdout.write(json.dumps([_as_json(c) for c in rules()], indent=2) + "\n")
        else:
            sys.stdout.write(render_list())
        return 0
    if not args.code:
        print("vap-lsp: rule: give a CODE or --all", file=sys.stderr)
        return 2
    rule = get_rule(args.code)
    if rule is None:
        known = {c.lower(): c for c in rules()}
        hint = known.get(args.code.lower())
        print(
            f"vap-lsp: no rule {args.code!r}"
            + (f"; did you mean {hint!r}?" if hint else "")
            + " (vap-lsp rule --all lists them)",
            file=sys.stderr,
        )
        return 2
    if args.format == "json":
        sys.stdout.write(
            json.dumps({**_as_json(rule.code), "markdown": render_markdown(rule)}, indent=2) + "\n"
        )
    else:
        sys.stdout.write(render_markdown(rule))  # Markdown reads well in a terminal
    return 0
