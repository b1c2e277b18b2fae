"""Writes syntaxes/cel-in-yaml.tmLanguage.json (the injection grammar); run after editing this file.

The injection matches a key that holds CEL (`expression`, `messageExpression`, `valueExpression`) at
the start of a line, optionally after a sequence dash, and scopes its value as `source.cel` in each
scalar style: literal and folded block scalars, double- and single-quoted, and plain scalars (which,
like block scalars, continue on the lines indented past the key).
"""

import json
from pathlib import Path

KEYS = r"(expression|messageExpression|valueExpression)"
CEL = "meta.embedded.expression.cel source.cel"
DQ = "string.quoted.double.yaml punctuation.definition.string"
SQ = "string.quoted.single.yaml punctuation.definition.string"
YAML_ESCAPE = r"\\(?:[0abtnvfre \"/\\N_LP\t]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|$)"
OUT = Path(__file__).resolve().parent.parent / "syntaxes" / "cel-in-yaml.tmLanguage.json"


def prefix(dash: bool) -> str:
    # group 1: indentation; with a dash, 2 = "-" and 3 = the spaces after it (empty otherwise).
    return r"^( *)(-)( +)" if dash else r"^( *)()()"


def more_indented(dash: bool) -> str:
    # A line indented past the key's column (the backreferences are the key line's prefix).
    return r"\1 \3 " if dash else r"\1 "


def caps(extra: dict[str, dict[str, str]] | None = None) -> dict[str, dict[str, str]]:
    c = {
        "2": {"name": "punctuation.definition.block.sequence.item.yaml"},
        "4": {"name": "entity.name.tag.yaml"},
        "5": {"name": "punctuation.separator.key-value.mapping.yaml"},
    }
    c.update(extra or {})
    return c


def rules() -> dict[str, object]:
    out: dict[str, object] = {}
    for dash in (False, True):
        sfx = "-item" if dash else ""
        head = prefix(dash) + KEYS + r"[ \t]*(:)[ \t]+"
        belongs = r"^(?!" + more_indented(dash) + r"|[ \t]*$)"
        out["block" + sfx] = {
            "comment": "literal (|) and folded (>) block scalars: every following line indented past the key",
            "begin": head + r"([|>])([1-9]?[-+]?|[-+][1-9]?)[ \t]*((#).*)?$",
            "beginCaptures": caps(
                {
                    "6": {"name": "keyword.control.flow.block-scalar.yaml"},
                    "7": {"name": "storage.modifier.chomping-indicator.yaml"},
                    "8": {"name": "comment.line.number-sign.yaml"},
                    "9": {"name": "punctuation.definition.comment.yaml"},
                }
            ),
            "end": belongs,
            "contentName": CEL,
            "patterns": [{"include": "source.cel"}],
        }
        out["double" + sfx] = {
            "comment": "double-quoted scalar (may span lines); YAML escapes are marked",
            "begin": head + r"(\")",
            "beginCaptures": caps({"6": {"name": DQ + ".begin.yaml"}}),
            "end": r"(\")",
            "endCaptures": {"1": {"name": DQ + ".end.yaml"}},
            "contentName": CEL,
            "patterns": [
                {
                    "comment": "a CEL string written with YAML-escaped quotes",
                    "match": r'(\\")((?:[^"\\]|\\\\[^"])*?)(\\")',
                    "name": "string.quoted.double.cel",
                    "captures": {
                        "1": {"name": "punctuation.definition.string.begin.cel"},
                        "2": {"patterns": [{"match": YAML_ESCAPE, "name": "constant.character.escape.yaml"}]},
                        "3": {"name": "punctuation.definition.string.end.cel"},
                    },
                },
                {
                    "match": YAML_ESCAPE,
                    "name": "constant.character.escape.yaml",
                },
                {"include": "source.cel"},
            ],
        }
        out["single" + sfx] = {
            "comment": "single-quoted scalar (may span lines); '' is a quote",
            "begin": head + r"(')",
            "beginCaptures": caps({"6": {"name": SQ + ".begin.yaml"}}),
            "end": r"(')(?!')",
            "endCaptures": {"1": {"name": SQ + ".end.yaml"}},
            "contentName": CEL,
            "patterns": [
                {"match": "''", "name": "constant.character.escape.single-quote.yaml"},
                {"include": "source.cel"},
            ],
        }
        out["plain" + sfx] = {
            "comment": "plain scalar: up to a comment, continued on lines indented past the key",
            "begin": head + r"(?=[^\s\"'|>#&*!%@`\[\]{},])",
            "beginCaptures": caps(),
            "end": r"(?=[ \t]+#)|" + belongs,
            "contentName": CEL,
            "patterns": [{"include": "source.cel"}],
        }
    return out


def grammar() -> dict[str, object]:
    patterns = []
    for style in ("block", "double", "single", "plain"):
        patterns += [{"include": "#" + style}, {"include": "#" + style + "-item"}]
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "CEL in Kubernetes admission policy YAML",
        "scopeName": "cel.injection.yaml",
        "comment": "Generated by scripts/generate-injection.py: edit that, then run it.",
        "injectionSelector": "R:source.yaml -comment -string -source.cel",
        "patterns": patterns,
        "repository": rules(),
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(grammar(), indent=2) + "\n", encoding="utf-8")
