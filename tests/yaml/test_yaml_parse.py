"""parse_yaml: structure, spans, documents, aliases, errors and limits (vap_lsp.yaml.parse)."""

from __future__ import annotations

import pytest
from yaml_helpers import at, scalar, walk

from vap_lsp.text import Span
from vap_lsp.yaml.model import (
    AliasNode,
    ExpansionLimit,
    MappingNode,
    ProblemKind,
    ScalarNode,
    ScalarStyle,
    SequenceNode,
    to_python,
)
from vap_lsp.yaml.parse import MAX_DEPTH, parse_yaml

BOTH = pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "ruamel"])


@BOTH
def test_spans_of_keys_values_and_collections(fast: bool) -> None:
    text = "spec:\n  rules:\n  - a: 1\n    b: [x, z]\n"
    f = parse_yaml(text, use_libyaml=fast)
    root = f.documents[0].root
    assert isinstance(root, MappingNode) and not root.flow
    assert root.span == Span(0, len(text) - 1)
    key, _ = root.get_item("spec")  # type: ignore[misc]
    assert text[key.span.start : key.span.end] == "spec"
    seq = at(f, "spec", "rules")
    assert isinstance(seq, SequenceNode) and not seq.flow
    flow = at(f, "spec", "rules", 0, "b")
    assert isinstance(flow, SequenceNode) and flow.flow
    assert text[flow.span.start : flow.span.end] == "[x, z]"
    assert to_python(root) == {"spec": {"rules": [{"a": 1, "b": ["x", "z"]}]}}


@BOTH
def test_multi_document_spans_and_indices(fast: bool) -> None:
    text = "a: 1\n---\nb: 2\n...\n--- |\n  text\n---\n"
    f = parse_yaml(text, use_libyaml=fast)
    assert [d.index for d in f.documents] == [0, 1, 2, 3]
    d0, d1, d2, d3 = f.documents
    assert d0.span.start == 0 and text[d1.span.start : d1.span.start + 3] == "---"
    assert text[d1.span.end - 3 : d1.span.end] == "..."  # explicit end included
    assert isinstance(d2.root, ScalarNode) and d2.root.value == "text\n"
    assert d3.root is None  # an empty document
    assert all(not d.problems for d in f.documents)


def test_empty_file_and_comment_only_file_have_no_documents() -> None:
    assert parse_yaml("").documents == []
    assert parse_yaml("# just a comment\n").documents == []


@BOTH
def test_duplicate_keys_are_preserved_in_order(fast: bool) -> None:
    text = "a: 1\nb: 2\na: 3\n"
    root = parse_yaml(text, use_libyaml=fast).documents[0].root
    assert isinstance(root, MappingNode)
    assert list(root.keys()) == ["a", "b", "a"]
    assert root.get("a").value == "1"  # type: ignore[union-attr]
    assert [v.value for _, v in root.items] == ["1", "2", "3"]  # type: ignore[attr-defined]


@BOTH
def test_alias_keeps_its_own_span_and_points_at_the_anchor(fast: bool) -> None:
    text = "base: &b {x: 1}\nuse: *b\nmissing: *nope\n<<: *b\n"
    f = parse_yaml(text, use_libyaml=fast)
    base = at(f, "base")
    assert base.anchor == "b" and isinstance(base, MappingNode)
    alias = at(f, "use")
    assert isinstance(alias, AliasNode) and alias.name == "b" and alias.target is base
    assert text[alias.span.start : alias.span.end] == "*b"
    missing = at(f, "missing")
    assert isinstance(missing, AliasNode) and missing.target is None
    root = f.documents[0].root
    assert isinstance(root, MappingNode) and list(root.keys())[-1] == "<<"  # merge key kept as is


@BOTH
def test_alias_inside_its_own_anchor_cannot_form_a_cycle(fast: bool) -> None:
    f = parse_yaml("a: &x [1, *x]\n", use_libyaml=fast)
    inner = at(f, "a", 1)
    assert isinstance(inner, AliasNode) and inner.target is None


def test_billion_laughs_is_not_expanded() -> None:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        refs = ",".join([f"*l{i - 1}"] * 9)
        lines.append(f"l{i}: &l{i} [{refs}]")
    text = "\n".join(lines) + "\n"
    f = parse_yaml(text)
    nodes = list(walk(f.documents[0].root))
    assert len(nodes) < 200  # 9**12 after expansion
    with pytest.raises(ExpansionLimit):
        to_python(f.documents[0].root)


@BOTH
def test_explicit_tags_are_kept_as_written_and_implicit_ones_are_none(fast: bool) -> None:
    text = "a: !!str 5\nb: 5\nc: !custom {x: 1}\nd: &anc !!int '7'\ne: !<tag:yaml.org,2002:str> x\nf: ! 9\n"
    f = parse_yaml(text, use_libyaml=fast)
    assert scalar(f, "a").tag == "!!str" and scalar(f, "a").value == "5"
    assert scalar(f, "b").tag is None
    assert at(f, "c").tag == "!custom"
    d = scalar(f, "d")
    assert d.tag == "!!int" and d.anchor == "anc" and d.style is ScalarStyle.SINGLE
    assert text[d.span.start : d.span.end] == "&anc !!int '7'"  # span includes properties
    assert d.content_start == text.index("'7'") + 1
    assert scalar(f, "e").tag == "!<tag:yaml.org,2002:str>"
    assert scalar(f, "f").tag == "!"
    assert to_python(f.documents[0].root) == {
        "a": "5",
        "b": 5,
        "c": {"x": 1},
        "d": 7,
        "e": "x",
        "f": "9",
    }


@BOTH
def test_empty_value_sits_right_after_its_colon(fast: bool) -> None:
    text = "spec:\n  # nothing yet\nnext:\n  - name:\n    image: x\n"
    f = parse_yaml(text, use_libyaml=fast)
    spec = scalar(f, "spec")
    assert spec.value == "" and spec.span == Span(5, 5) and spec.is_null
    name = scalar(f, "next", 0, "name")
    assert name.span.start == text.index("name:") + 5


# --------------------------------------------------------------------------------- errors


@BOTH
def test_syntax_error_position_and_message(fast: bool) -> None:
    text = "a: 1\nb: c: d\n"
    f = parse_yaml(text, use_libyaml=fast)
    (doc,) = f.documents
    assert doc.root is None
    (p,) = doc.problems
    assert p.kind is ProblemKind.SYNTAX
    assert p.message == "YAML syntax error: mapping values are not allowed here"
    assert p.span == Span(9, 10)  # the second ':'


@pytest.mark.parametrize(
    "text,message,offset",
    [
        ("a:\tb\n\tc: 1\n", "found character '\\t' that cannot start any token", 2),
        ("key: value\nother\nx: 1\n", "could not find expected ':'", 17),
        ('a: "unclosed\n', "found unexpected end of stream", 13),
    ],
)
def test_ruamel_problem_texts(text: str, message: str, offset: int) -> None:
    (doc,) = parse_yaml(text).documents
    (p,) = doc.problems
    assert p.message == "YAML syntax error: " + message
    assert p.span.start == offset


@BOTH
def test_error_keeps_earlier_documents_and_recovers_later_ones(fast: bool) -> None:
    text = "a: 1\n---\nb: [1, 2\nc: 3\n---\nd: 4\n---\ne: : :\n---\nf: 6\n"
    f = parse_yaml(text, use_libyaml=fast)
    assert [d.index for d in f.documents] == [0, 1, 2, 3, 4]
    good = [to_python(d.root) for d in f.documents if not d.problems]
    assert good == [{"a": 1}, {"d": 4}, {"f": 6}]
    broken = [d for d in f.documents if d.problems]
    assert [len(d.problems) for d in broken] == [1, 1]  # one problem per document, no cascade
    assert all(d.root is None for d in broken)
    assert broken[0].span == Span(text.index("---"), text.index("---\nd"))
    assert not f.problems
    # offsets of recovered documents are file-absolute
    d = scalar(f, "d", doc=2)
    assert text[d.offsets[0]] == "4"


def test_error_in_last_document_without_recovery_point() -> None:
    f = parse_yaml("ok: 1\n---\nbad: [\n")
    assert len(f.documents) == 2
    assert f.documents[1].problems[0].span.start == len("ok: 1\n---\nbad: [\n")


@BOTH
def test_forbidden_character_fails_only_its_document(fast: bool) -> None:
    text = "a: 1\n---\nb: x\x07y\n---\nc: 3\n"
    f = parse_yaml(text, use_libyaml=fast)
    assert [bool(d.problems) for d in f.documents] == [False, True, False]
    (p,) = f.documents[1].problems
    assert p.span == Span(text.index("\x07"), text.index("\x07") + 1)
    assert "unacceptable character #x0007" in p.message


def test_nul_character_makes_the_text_not_text() -> None:
    f = parse_yaml("a: 1\n\0\0\0")
    assert f.documents == []
    (p,) = f.problems
    assert p.kind is ProblemKind.NOT_TEXT and "offset 5" in p.message


@pytest.mark.parametrize(
    "text", ["[" * 10_000, "[" * 10_000 + "]" * 10_000, "- " * 10_000 + "x\n", "{a: " * 5000]
)
def test_deep_nesting_is_reported_not_a_crash(text: str) -> None:
    f = parse_yaml(text)
    (doc,) = f.documents
    (p,) = doc.problems
    assert p.kind is ProblemKind.TOO_LARGE and "nesting too deep" in p.message
    assert doc.root is None


def test_nesting_up_to_the_limit_is_fine() -> None:
    depth = MAX_DEPTH
    f = parse_yaml("[" * depth + "]" * depth)
    assert not f.documents[0].problems


def test_large_file_is_parsed_whole() -> None:
    policy = (
        "apiVersion: admissionregistration.k8s.io/v1\n"
        "kind: ValidatingAdmissionPolicy\n"
        "metadata:\n  name: p{n}\n"
        "spec:\n  validations:\n"
        '  - expression: "object.spec.replicas <= 5"\n'
        "    message: |\n      too many\n      replicas\n"
        "    reason: Invalid\n---\n"
    )
    text = "".join(policy.format(n=i) for i in range(834))  # 10,008 lines
    assert text.count("\n") >= 10_000
    f = parse_yaml(text)
    assert len(f.documents) == 835  # the last `---` opens an empty document
    assert not any(d.problems for d in f.documents)


def test_ten_megabytes_do_not_blow_up() -> None:
    text = ("- " + "x" * 1000 + "\n") * 10_000  # 10 MB
    f = parse_yaml(text)
    assert len(f.documents) == 1
    root = f.documents[0].root
    assert isinstance(root, SequenceNode) and len(root.items) == 10_000


def test_parse_yaml_never_raises_on_garbage() -> None:
    for text in [
        "\ud800",
        "%YAML 9.9\n---\n",
        "!<\n",
        "&\n",
        "*\n",
        "? ? ? ?\n",
        "---\n- |0\n",
        "\ufeffa: 1\n",
    ]:
        f = parse_yaml(text)
        assert f.text == text
