"""Diagnostic codes and their documentation: the one source of `docs/rules/`, `vap-lsp rule`,
SARIF rule metadata and LSP `codeDescription`.

Every code the tool can emit has one `Rule` in `vap_lsp.codes.catalog` (adding a code is adding
one entry there); `tests/ecosystem/test_rule_pages.py` finds every code the analysis can emit
and fails when one has no entry, and runs each entry's example to prove it fails as described.
This package imports nothing else from vap_lsp, so any layer may use it.
"""

from __future__ import annotations

import functools
import textwrap
from dataclasses import dataclass

# Where `docs/rules/<code>.md` is published (SARIF `helpUri`, LSP `codeDescription.href`).
DOCS_URL = "https://github.com/vap-lsp/vap-lsp/blob/main/docs/rules/"


@dataclass(frozen=True)
class Rule:
    code: str
    title: str
    # The severity the code is reported with ("warning or hint" when it depends on the input).
    severity: str
    # What the API server does (or, for advice, why the tool says it): Markdown.
    server: str
    # YAML that gets this code; `checked` examples are run through the analysis by the tests.
    example: str
    # How to fix it: Markdown.
    fix: str
    # The example after the fix (checked not to get the code), or "".
    fixed: str = ""
    checked: bool = True
    # Where the code comes from, for grouping the index: yaml, decoding, validation, cel,
    # workspace, advice, run, static.
    group: str = "validation"
    # False for broken files, which neither comments nor configuration may hide
    # (`vap_lsp.analysis.suppress.UNSUPPRESSIBLE`; a test keeps the two equal).
    suppressible: bool = True


@functools.cache
def rules() -> dict[str, Rule]:
    """Every documented code, in catalog order."""
    from vap_lsp.codes.catalog import RULES

    table: dict[str, Rule] = {}
    for rule in RULES:
        if rule.code in table:
            raise ValueError(f"rule {rule.code} is documented twice")
        table[rule.code] = rule
    return table


def get_rule(code: str) -> Rule | None:
    return rules().get(code)


def help_uri(code: str) -> str | None:
    """The page of `code`, or None for a code without one."""
    return DOCS_URL + code + ".md" if code in rules() else None


def _yaml_block(text: str) -> str:
    return "```yaml\n" + text.strip("\n") + "\n```"


def render_markdown(rule: Rule) -> str:
    """The page of one rule, as written to `docs/rules/<code>.md` and SARIF `help.markdown`."""
    parts = [
        f"# `{rule.code}`: {rule.title}",
        "",
        f"Severity: **{rule.severity}**.",
        "",
        "## What the API server does",
        "",
        textwrap.dedent(rule.server).strip(),
        "",
        "## Example",
        "",
        _yaml_block(textwrap.dedent(rule.example)),
        "",
        "## Fix",
        "",
        textwrap.dedent(rule.fix).strip(),
    ]
    if rule.fixed:
        parts += ["", _yaml_block(textwrap.dedent(rule.fixed))]
    parts += ["", "## Suppressing it", ""]
    if rule.suppressible:
        parts.append(
            f"`# vap-lsp: ignore[{rule.code}]` at the end of the line, or on its own line above the YAML "
            f'entry or the object; `ignore = ["{rule.code}"]` or `severity = {{ {rule.code} = "warning" }}` '
            "in the configuration (see the README)."
        )
    else:
        parts.append("It cannot be suppressed or re-graded: a broken file never passes.")
    parts.append("")
    return "\n".join(parts)


def render_index() -> str:
    """`docs/rules/README.md`: every code with its severity and title, grouped."""
    out = [
        "# Diagnostic codes",
        "",
        "Generated from `vap_lsp/codes/catalog.py` by `python tools/generate_rule_docs.py`; "
        "`vap-lsp rule CODE` prints a page, `vap-lsp rule --all` lists them.",
        "",
    ]
    groups: dict[str, list[Rule]] = {}
    for rule in rules().values():
        groups.setdefault(rule.group, []).append(rule)
    for group, members in groups.items():
        out += [f"## {_GROUP_TITLES.get(group, group)}", "", "| code | severity | what |", "|---|---|---|"]
        out += [f"| [`{r.code}`]({r.code}.md) | {r.severity} | {r.title} |" for r in members]
        out.append("")
    return "\n".join(out)


_GROUP_TITLES = {
    "yaml": "YAML",
    "decoding": "Decoding (unknown fields, types)",
    "validation": "Validation on create/update (apimachinery field errors)",
    "cel": "CEL",
    "workspace": "Across files",
    "advice": "Advice",
    "run": "Run against samples (editor only)",
    "static": "Static manifests (what kube-apiserver loads at start-up, 1.36+)",
    "internal": "vap-lsp itself",
}


def render_list() -> str:
    """What `vap-lsp rule --all` prints: one line per code."""
    width = max(len(code) for code in rules())
    return "".join(f"{r.code:<{width}}  {r.severity:<11}  {r.title}\n" for r in rules().values())


__all__ = [
    "DOCS_URL",
    "Rule",
    "get_rule",
    "help_uri",
    "render_index",
    "render_list",
    "render_markdown",
    "rules",
]
