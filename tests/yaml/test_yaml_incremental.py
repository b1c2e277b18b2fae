"""Incremental parsing: a stream is parsed piece by piece between `---` lines, each piece cached
by its text, and the result must be exactly what one pass over the whole stream gives.

The one tolerated difference: one pass lets ruamel re-read the document *before* a document that
libyaml rejects, and ruamel rejects a tab inside a plain scalar that libyaml (like the Go YAML
library the API server uses) accepts. Piece by piece, that earlier document keeps libyaml's
verdict, as it does in one pass whenever the next document is well formed.
"""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from yaml_helpers import fingerprint

from vap_lsp.text import Span
from vap_lsp.yaml import parse as parse_mod
from vap_lsp.yaml.markers import DOCUMENT_START
from vap_lsp.yaml.model import AliasNode, MappingNode, ScalarNode, YamlFile
from vap_lsp.yaml.parse import parse_yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").rglob("*.yaml"))
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
CORPUS_FILES = (
    sorted(p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml")) if CORPUS.is_dir() else []
)

# What an editing user types or deletes: quotes, brackets, markers, indentation, tabs, CRLF.
SNIPPETS = [
    "\n", "---\n", "\n---\n", "'", '"', "[", "]", "{", "}", ":", "- ", "  ", "|", ">-\n", "#",
    "&a ", "*a", "\t", "...\n", "---", "\n--- |\n", "\n--- >\n  x\n", "\r\n", "\n---\tx\n", "é",
]  # fmt: skip
_TAB_ERROR = "found character '\\t' that cannot start any token"


def _clear_cache() -> None:
    parse_mod.clear_cache()


def _tolerated(one_pass: YamlFile, pieces: YamlFile) -> bool:
    """True when the only differences are ruamel's tab verdicts on a document it re-read because
    libyaml rejected the document after it (see the module docstring)."""
    if len(one_pass.documents) != len(pieces.documents):
        return False
    for a, b in zip(one_pass.documents, pieces.documents, strict=True):
        if a.problems == b.problems:
            continue
        if not (b.problems == [] and len(a.problems) == 1 and _TAB_ERROR in a.problems[0].message):
            return False
    return True


def assert_same(text: str) -> YamlFile:
    one_pass = parse_yaml(text, incremental=False)
    pieces = parse_yaml(text)
    if fingerprint(one_pass) != fingerprint(pieces):
        assert _tolerated(one_pass, pieces), text
    return pieces


def _edit(rng: random.Random, text: str) -> str:
    """A few edits inside one document, as a user types in one place."""
    starts = [0, *(m.start() for m in re.finditer(r"(?m)^---", text)), len(text)]
    j = rng.randrange(len(starts) - 1)
    lo, hi = starts[j], starts[j + 1]
    for _ in range(rng.randint(1, 4)):
        i = rng.randint(lo, hi)
        if rng.random() < 0.5:
            text = text[:i] + rng.choice(SNIPPETS) + text[i:]
        else:
            text = text[:i] + text[i + rng.randint(1, 20) :]
        hi = min(hi, len(text))
    return text


def _random_texts(sources: list[str], seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = "\n---\n".join(rng.choice(sources) for _ in range(rng.randint(1, 4)))
        out.append(_edit(rng, text))
    return out


def test_examples_with_random_edits() -> None:
    sources = [p.read_text(encoding="utf-8") for p in EXAMPLES]
    for n, text in enumerate(_random_texts(sources, seed=7, count=400)):
        if n % 5 == 0:
            _clear_cache()
        assert_same(text)


@pytest.mark.skipif(
    not CORPUS_FILES, reason=f"no YAML corpus at {CORPUS} (shared/corpus next to the project)"
)
def test_corpus_with_random_edits() -> None:
    sources = [p.read_bytes().decode("utf-8", "replace") for p in CORPUS_FILES]
    for n, text in enumerate(_random_texts(sources, seed=11, count=600)):
        if n % 5 == 0:
            _clear_cache()
        assert_same(text)


POLICIES = "".join(
    p.read_text(encoding="utf-8") + "---\n" for p in sorted((ROOT / "examples" / "valid").glob("*.yaml"))
)


def test_typing_in_one_document_reuses_the_others() -> None:
    """Character by character, as an editor sends changes: every step equals one pass, the
    documents before the edit are the very same objects, and the ones after are moved copies."""
    _clear_cache()
    text = POLICIES
    at = text.index("validations:")  # in the second document or later
    edited_doc = sum(1 for m in re.finditer(r"(?m)^---", text[:at]))
    before = parse_yaml(text)
    for ch in "  # a comment\n":
        text = text[:at] + ch + text[at:]
        at += 1
        after = assert_same(text)
        for i in range(edited_doc):
            assert after.documents[i].root is before.documents[i].root
        moved = len(ch)
        for i in range(edited_doc + 1, len(after.documents)):
            old, new = before.documents[i], after.documents[i]
            assert new is not old and (new.root is None or new.root is not old.root)
            assert new.span == Span(old.span.start + moved, old.span.end + moved)
        before = after


def test_moved_documents_keep_their_aliases_and_indices() -> None:
    _clear_cache()
    tail = "---\nbase: &b {x: 1}\nuse: *b\nlist: [&s 'a', *s]\n"
    first = parse_yaml("a: 1\n" + tail)
    second = parse_yaml("a: 12345\n---\nextra: doc\n" + tail)  # the tail moves and is renumbered
    assert [d.index for d in second.documents] == [0, 1, 2]
    one_pass = parse_yaml("a: 12345\n---\nextra: doc\n" + tail, incremental=False)
    assert fingerprint(second) == fingerprint(one_pass)
    old_root, new_root = first.documents[1].root, second.documents[2].root
    assert isinstance(old_root, MappingNode) and isinstance(new_root, MappingNode)
    use = new_root.get("use")
    assert isinstance(use, AliasNode) and use.target is new_root.get("base")  # the moved anchor
    old_use = old_root.get("use")
    assert isinstance(old_use, AliasNode) and old_use.target is old_root.get("base")  # untouched
    value = new_root.get("base")
    assert isinstance(value, MappingNode)
    x = value.get("x")
    assert isinstance(x, ScalarNode) and second.text[x.offsets[0]] == "1"


def test_copies_of_unread_copies_equal_one_pass_and_leave_older_snapshots_alone() -> None:
    """Moved documents are copied as they are read (`yaml.moved`): a file edited above its
    documents fifty times, none of them read, still reads exactly as one pass, and so does any
    snapshot in between, while the first snapshot, read before, stays as it was."""
    _clear_cache()
    first = parse_yaml(POLICIES)
    first_print = fingerprint(first)
    snapshots = []
    text = POLICIES
    for i in range(50):
        text = f"# edit {i}\n" + text
        snapshots.append((text, parse_yaml(text)))
    for text, snapshot in (snapshots[-1], snapshots[20], snapshots[0]):
        assert fingerprint(snapshot) == fingerprint(parse_yaml(text, incremental=False))
    assert fingerprint(first) == first_print


def test_a_moved_node_is_copied_once_whoever_reads_it() -> None:
    """Language services read nodes from other threads than the analysis that built them: every
    reader must get the very same children, and a node once read is a plain model node."""
    _clear_cache()
    parse_yaml(POLICIES)
    moved = parse_yaml("# moved\n" + POLICIES)
    roots = [d.root for d in moved.documents if isinstance(d.root, MappingNode)]
    seen: list[list[int]] = []
    barrier = threading.Barrier(8)

    def read() -> None:
        barrier.wait()
        seen.append([id(v) for root in roots for _, v in root.items])

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(ids == seen[0] for ids in seen)
    assert all(type(root) is MappingNode for root in roots)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x: 1\n--- |\n---\na: 1\n---\nb: 2\n", id="top-level block scalar across ---"),
        pytest.param("%YAML 1.2\n---\na: 1\n---\nb: 2\n", id="directive"),
        pytest.param("\ufeffa: 1\n---\nb: 2\n", id="byte order mark"),
        pytest.param("a: [1,\n---\nb: 2\n", id="flow collection cut by ---"),
        pytest.param("a: 'open\n---\nb: 2\n", id="quoted scalar cut by ---"),
        pytest.param("a: 1\n---\nb: \u0007\n---\nc: 3\n", id="forbidden character"),
        pytest.param("a: 1\r\n---\r\nb: 2\r\n", id="CRLF"),
        pytest.param("a: 1\n---\n---\n...\n---\nb: 2", id="empty documents, no final newline"),
        pytest.param("a: {{ .Values.x }}\n---\nb: 2\n", id="template"),
    ],
)
def test_edge_cases_equal_one_pass(text: str) -> None:
    _clear_cache()
    assert_same(text)
    assert_same(text)  # warm: every piece from the cache


def test_cache_is_bounded() -> None:
    _clear_cache()
    doc = "k: " + "v" * 1000 + "\n---\n"
    for i in range(3000):
        text = f"n: {i}\n---\n" + doc
        parse_yaml(text)
    # Other texts' pieces are bounded; the pieces of the text just parsed always stay.
    assert parse_mod._pieces_chars <= parse_mod._PIECES_CHARS + len(text)
    total: Any = sum(len(key[0]) for key in parse_mod._PIECES)
    assert total == parse_mod._pieces_chars


def test_a_file_larger_than_the_cache_still_reuses_its_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit at the end of a large file re-parses one piece, however small the cache bound."""
    _clear_cache()
    monkeypatch.setattr(parse_mod, "_PIECES_CHARS", 2_000)
    text = "".join(f"---\nname: doc{i}\nvalue: {'v' * 1000}\n" for i in range(50))  # ~51,000 chars
    before = parse_yaml(text)
    after = parse_yaml(text + "extra: 1\n")
    assert [a.root is b.root for a, b in zip(after.documents[:-1], before.documents[:-1], strict=True)] == [
        True
    ] * 49
    assert after.documents[-1].root is not before.documents[-1].root


def test_the_fast_scans_find_what_the_regular_expressions_find() -> None:
    """Every parse finds its `---` lines and forbidden characters with str.find and
    bytes.translate (C speed on a 10 MB file); they must agree with the patterns they replace."""
    rng = random.Random(5)
    alphabet = ["-", "---", "\n", "\r", " ", "\t", "a", "\n---", "%", "é", "\x07", "\x7f", "\x85", "😀"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert parse_mod._doc_starts(text) == [m.start() for m in DOCUMENT_START.finditer(text, 1)]
        assert parse_mod._forbidden(text) == [m.start() for m in parse_mod._NON_PRINTABLE.finditer(text)]
