"""Helix's languages.toml, and the tree-sitter injection queries of Helix and Neovim.

The queries run with the `tree-sitter` package and its YAML grammar (the grammar Helix and
nvim-treesitter use) over the fixture the VS Code grammar test uses, and must capture exactly the
CEL of `expression`, `messageExpression` and `valueExpression`, in every scalar style.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ts = pytest.importorskip("tree_sitter", reason="the tree-sitter package is not installed (test extra)")
ts_yaml = pytest.importorskip("tree_sitter_yaml", reason="tree-sitter-yaml is not installed (test extra)")

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "editors" / "vscode" / "test" / "grammar" / "fixtures" / "styles.yaml"
HELIX = ROOT / "editors" / "helix"
NVIM_QUERY = ROOT / "editors" / "nvim" / "queries" / "yaml" / "injections.scm"
HELIX_QUERY = HELIX / "runtime" / "queries" / "yaml" / "injections.scm"

# (row of the key, the CEL text) for every expression of the fixture, as Neovim injects it
# (quotes and the block indicator cut off by #offset!).
NVIM_EXPECTED = [
    (8, "object.spec.replicas >= 2"),
    (9, "params.limit"),
    (12, "object.metadata.labels.all(k,\n        k.startsWith('team'))"),
    (15, "has(object.spec) && ''x'' == \"y\""),
    (17, "\n        object.spec.replicas <= 5 &&\n          variables.plain"),
    (21, "-\n        size(object.metadata.name) < 64"),
    (23, "'name ' + object.metadata.name + \\\"\\\\t\\\""),
    (25, "2-\n        true"),
    (29, "\n        string(1u) + r'raw\\n' + b\"bytes\""),
    (37, "true"),
]


# tree-sitter is pinned below 0.26 in the test extra: 0.26.1 crashes in Query() on #any-of? predicates.
LANGUAGE = ts.Language(ts_yaml.language())
PARSER = ts.Parser(LANGUAGE)


def injections(query_path: Path, source: bytes) -> list[tuple[int, str, str]]:
    """(row, injected language, text) of every injection, with Neovim's #offset! applied."""
    lang = LANGUAGE
    tree = PARSER.parse(source)
    text = query_path.read_text(encoding="utf-8")
    query = ts.Query(lang, text)
    offsets = offsets_by_pattern(text)
    lines = source.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    out = []
    for pattern, captures in ts.QueryCursor(query).matches(tree.root_node):
        language_name = query.pattern_settings(pattern).get("injection.language")
        for node in captures.get("injection.content", []):
            (sr, sc), (er, ec) = node.start_point, node.end_point
            if pattern in offsets:
                dsr, dsc, der, dec = offsets[pattern]
                sr, sc, er, ec = sr + dsr, sc + dsc, er + der, ec + dec
            out.append(
                (node.start_point.row, str(language_name), source[starts[sr] + sc : starts[er] + ec].decode())
            )
    return sorted(out)


def offsets_by_pattern(query_text: str) -> dict[int, tuple[int, int, int, int]]:
    """Neovim's `(#offset! @injection.content r c r c)` per pattern (tree-sitter leaves it to editors)."""
    out: dict[int, tuple[int, int, int, int]] = {}
    # Patterns are the top-level parenthesised forms, in order.
    depth, pattern, in_string, in_comment = 0, -1, False, False
    start = 0
    for i, ch in enumerate(query_text):
        if in_comment:
            in_comment = ch != "\n"
        elif in_string:
            in_string = ch != '"' or query_text[i - 1] == "\\"
        elif ch == ";":
            in_comment = True
        elif ch == '"':
            in_string = True
        elif ch == "(":
            if depth == 0:
                pattern += 1
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                m = re.search(
                    r"#offset!\s+@injection\.content\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)",
                    query_text[start:i],
                )
                if m:
                    out[pattern] = tuple(int(g) for g in m.groups())  # type: ignore[assignment]
    return out


def test_helix_languages_toml_runs_vap_lsp_beside_yaml_language_server() -> None:
    config = tomllib.loads((HELIX / "languages.toml").read_text(encoding="utf-8"))
    server = config["language-server"]["vap-lsp"]
    assert server["command"] == "vap-lsp"
    assert server["args"] == ["serve"]
    assert isinstance(server["config"]["vapLsp"], dict)
    (yaml,) = [lang for lang in config["language"] if lang["name"] == "yaml"]
    assert yaml["language-servers"] == ["yaml-language-server", "vap-lsp"]
    (cel,) = [lang for lang in config["language"] if lang["name"] == "cel"]
    assert re.search(cel["injection-regex"], "cel")
    (grammar,) = [g for g in config["grammar"] if g["name"] == "cel"]
    assert re.fullmatch(r"[0-9a-f]{40}", grammar["source"]["rev"])


def test_helix_cel_highlights_query_names_only_known_captures() -> None:
    text = (HELIX / "runtime" / "queries" / "cel" / "highlights.scm").read_text(encoding="utf-8")
    captures = set(re.findall(r"@([\w.]+)", text))
    helix_scopes = {
        "operator",
        "punctuation",
        "keyword",
        "function",
        "variable",
        "string",
        "constant",
        "comment",
    }
    assert captures and all(c.split(".")[0] in helix_scopes for c in captures), captures


def test_neovim_query_captures_the_cel_of_every_scalar_style() -> None:
    found = injections(NVIM_QUERY, FIXTURE.read_bytes())
    assert found == [(row, "cel", text) for row, text in NVIM_EXPECTED]


def test_helix_query_captures_plain_and_block_scalars_and_keeps_comments() -> None:
    found = injections(HELIX_QUERY, FIXTURE.read_bytes())
    cel = [(row, text) for row, lang, text in found if lang == "cel"]
    assert cel == [
        (8, "object.spec.replicas >= 2"),
        (9, "params.limit"),
        (12, "object.metadata.labels.all(k,\n        k.startsWith('team'))"),
        (17, "|\n        object.spec.replicas <= 5 &&\n          variables.plain"),
        (21, ">-\n        size(object.metadata.name) < 64"),
        (25, "|2-\n        true"),
        (29, ">\n        string(1u) + r'raw\\n' + b\"bytes\""),
    ]
    comments = [text for _, lang, text in found if lang == "comment"]
    assert '# expression: "not CEL, a comment"' in comments
    assert "# a comment" in comments


def test_queries_ignore_other_keys_and_comments() -> None:
    source = b"""\
# expression: "x"
spec:
  expressions: not.cel
  message: "not cel"
  matchConditions:
    - name: expression
      expression: object.ok
"""
    for query in (NVIM_QUERY, HELIX_QUERY):
        cel = [(row, text) for row, lang, text in injections(query, source) if lang == "cel"]
        assert cel == [(6, "object.ok")], query
