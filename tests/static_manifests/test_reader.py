"""Which files kube-apiserver reads in a staticManifestsDir and how it cuts them into documents.

Translated from k8s.io/apiserver v0.37.2 `pkg/admission/plugin/manifest/loader_test.go`
(`Test_splitYAMLDocuments`, `TestLoadFiles`), the same in v0.36.3 and v0.38.0-beta.0.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.static_manifests.folders import loader_errors, run
from vap_lsp.static_manifests.reader import Document, SplitError, go_ext, is_read, split_documents

# Test_splitYAMLDocuments: (name, input, documents, each document contains)
SPLIT_CASES: list[tuple[str, str, int, list[str]]] = [
    ("empty input", "", 0, []),
    ("only whitespace", "   \n\n  \n", 0, []),
    (
        "single YAML webhook configuration",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n"
        "  name: test-webhook.static.k8s.io\nwebhooks:\n- name: test.example.com\n  clientConfig:\n"
        '    url: "https://example.com/validate"\n',
        1,
        ["ValidatingWebhookConfiguration"],
    ),
    (
        "multi-document YAML with policy and binding",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n"
        "  name: deny-privileged.static.k8s.io\nspec:\n  failurePolicy: Fail\n---\n"
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n"
        "  name: deny-privileged-binding.static.k8s.io\nspec:\n  policyName: deny-privileged.static.k8s.io\n",
        2,
        ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"],
    ),
    (
        "single JSON document",
        '{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",'
        '"metadata":{"name":"test.static.k8s.io"}}',
        1,
        ["ValidatingWebhookConfiguration"],
    ),
    ("empty document between separators is skipped", "a: 1\n---\n---\nb: 2\n", 2, []),
    ("leading separator", "---\napiVersion: v1\nkind: ConfigMap\n", 1, []),
    ("trailing separator", "apiVersion: v1\nkind: ConfigMap\n---\n", 1, []),
    ("three documents", "kind: A\n---\nkind: B\n---\nkind: C\n", 3, ["A", "B", "C"]),
]


@pytest.mark.parametrize(("name", "text", "count", "contains"), SPLIT_CASES, ids=[c[0] for c in SPLIT_CASES])
def test_split_yaml_documents(name: str, text: str, count: int, contains: list[str]) -> None:
    docs = split_documents(text)
    assert not isinstance(docs, SplitError)
    assert len(docs) == count
    assert all(d.text.strip() for d in docs)  # "Verify no empty documents were returned"
    for doc, want in zip(docs, contains, strict=False):
        assert want in doc.text


def test_what_the_split_keeps() -> None:
    """The separator that begins a document stays in it (`YAMLReader.Read` writes the line when
    nothing was read yet); the document is trimmed; offsets point into the file's text."""
    text = "a: 1\n---\n---\nb: 2\n"
    assert split_documents(text) == [Document(0, 4, "a: 1"), Document(9, 17, "---\nb: 2")]
    assert split_documents("---\n") == [Document(0, 3, "---")]  # kube-apiserver refuses this file
    assert split_documents("a\r\n---\r\nb\r\n") == [Document(0, 1, "a"), Document(8, 9, "b")]


@pytest.mark.parametrize(
    ("line", "error"),
    [("--- |", "invalid Yaml document separator: |"), ("---foo", "invalid Yaml document separator: foo")],
)
def test_only_a_comment_may_follow_a_separator(line: str, error: str) -> None:
    assert split_documents(f"a: 1\n{line}\nb: 2\n") == SplitError(5, error)
    assert not isinstance(split_documents("a: 1\n--- # the next one\nb: 2\n"), SplitError)


def test_the_extensions_read() -> None:
    """`filepath.Ext`, lower-cased, is .yaml, .yml or .json."""
    assert [
        n for n in ("a.yaml", "b.json", "c.yml", "d.txt", "E.YAML", ".yaml", "x.yaml.bak") if is_read(n)
    ] == [
        "a.yaml",
        "b.json",
        "c.yml",
        "E.YAML",
        ".yaml",
    ]
    assert go_ext("policy.yaml~") == ".yaml~"


# TestLoadFiles, through the loader (which files it reads, in which order).


def _read(tmp_path: Path, files: dict[str, str]) -> list[str]:
    result = run(tmp_path / "d", files, "validating")
    return [f.path.name for f in result.files]


def test_load_files_empty_dir(tmp_path: Path) -> None:
    assert _read(tmp_path, {}) == []


def test_load_files_reads_yaml_and_json_files(tmp_path: Path) -> None:
    files = {"a.yaml": "kind: A", "b.json": '{"kind":"B"}', "c.yml": "kind: C", "d.txt": "ignored"}
    assert _read(tmp_path, files) == ["a.yaml", "b.json", "c.yml"]


def test_load_files_splits_multi_document_yaml(tmp_path: Path) -> None:
    result = run(tmp_path / "d", {"multi.yaml": "a: 1\n---\nb: 2\n"}, "validating")
    assert [m.split(": ", 1)[1] for m in loader_errors(result)] == [
        "Object 'Kind' is missing in 'a: 1'",
        "Object 'Kind' is missing in 'b: 2'",
    ]


def test_load_files_alphabetical_order(tmp_path: Path) -> None:
    assert _read(tmp_path, {"02-second.yaml": "name: second", "01-first.yaml": "name: first"}) == [
        "01-first.yaml",
        "02-second.yaml",
    ]


def test_load_files_nonexistent_dir(tmp_path: Path) -> None:
    result = run(tmp_path / "missing")
    assert result.io_errors and "no such file or directory" in result.io_errors[0]


def test_load_files_skips_subdirectories(tmp_path: Path) -> None:
    (tmp_path / "d" / "subdir").mkdir(parents=True)
    (tmp_path / "d" / "subdir" / "b.yaml").write_text("kind: B")
    result = run(tmp_path / "d", {"a.yaml": "kind: A"}, "validating")
    assert [f.path.name for f in result.files] == ["a.yaml"]
    assert [n.message for n in result.notes] == [
        f"{tmp_path / 'd' / 'subdir'}: kube-apiserver does not read subfolders of a staticManifestsDir"
    ]


def test_load_files_skips_empty_files(tmp_path: Path) -> None:
    assert _read(tmp_path, {"empty.yaml": "", "valid.yaml": "kind: A"}) == ["valid.yaml"]


def test_an_unreadable_entry_stops_the_load(tmp_path: Path) -> None:
    """`os.ReadFile` fails on a dangling symlink (and on one to a folder): `failed to read file`."""
    folder = tmp_path / "d"
    folder.mkdir()
    os.symlink(tmp_path / "gone.yaml", folder / "old.yaml")
    result = run(folder, plugin="validating")
    assert [d.message for d in result.notes] == [
        f'failed to read file "{folder / "old.yaml"}": {folder / "old.yaml"}: broken symbolic link '
        f"(its target {tmp_path / 'gone.yaml'} does not exist)"
    ]
    assert result.errors == 1
