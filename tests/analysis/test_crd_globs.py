"""`**` in `crds` (and `--crd`) globs: what `glob.glob(recursive=True)` matches, except that
symlinked folders are not descended into and the walk is capped, so a hostile checkout (link
loops, a FIFO, a link to /dev/zero) is read at once and completely."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from vap_lsp.analysis import files
from vap_lsp.analysis.files import expand_glob
from vap_lsp.analysis.model.crds import expand_paths, load_crds

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object}}
"""


def _tree(root: Path) -> None:
    for name in (
        "a.yaml",
        "sub/b.yaml",
        "sub/deeper/c.yml",
        "sub/notes.txt",
        ".hidden/d.yaml",
        "sub/.e.yaml",
    ):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CRD)


@pytest.mark.parametrize(
    "pattern", ["**/*.yaml", "**", "sub/**/*.y*ml", "*/b.yaml", "s?b/*", "sub/[bc]*", "**/deeper/*", "a.yaml"]
)
def test_without_symlinks_the_matches_are_globs(tmp_path: Path, pattern: str) -> None:
    _tree(tmp_path)
    expected = sorted(Path(p) for p in glob.glob(str(tmp_path / pattern), recursive=True))
    assert expand_glob(tmp_path / pattern, []) == expected


def test_symlinked_folders_are_not_descended_into_by_double_star(tmp_path: Path) -> None:
    _tree(tmp_path)
    os.symlink(".", tmp_path / "sub" / "loop-a")  # vendor/a -> . twice: unbounded for glob.glob
    os.symlink(".", tmp_path / "sub" / "loop-b")
    errors: list[str] = []
    found = expand_glob(tmp_path / "**" / "*.yaml", errors)
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.yaml", "sub/b.yaml"]
    assert errors == []


def test_a_huge_tree_is_cut_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_GLOB_PATHS", 3)
    for i in range(6):
        (tmp_path / f"{i}.yaml").write_text("a: 1\n")
    errors: list[str] = []
    assert len(expand_glob(tmp_path / "**" / "*.yaml", errors)) == 3
    (error,) = errors
    assert error.startswith(f"{tmp_path / '**' / '*.yaml'}: stopped after 3 paths and ")


def test_a_hostile_crd_folder_is_read_without_blocking(tmp_path: Path) -> None:
    crds = tmp_path / "crds"
    crds.mkdir()
    (crds / "widget.yaml").write_text(CRD)
    os.mkfifo(crds / "fifo.yaml")
    os.symlink("/dev/zero", crds / "zero.yaml")
    os.symlink("..", crds / "vendor-a")
    os.symlink("..", crds / "vendor-b")
    loaded = load_crds(["crds/**/*.yaml"], root=tmp_path)
    assert [v.kind for v in loaded.versions] == ["Widget"]
    assert sorted(p.split(": ", 1)[1] for p in loaded.problems) == [
        "skipped, a character device is not a regular file",
        "skipped, a named pipe (FIFO) is not a regular file",
    ]


def test_a_plain_path_that_does_not_exist_is_a_problem_and_a_glob_is_not(tmp_path: Path) -> None:
    assert expand_paths(["missing.yaml", "none/**/*.yaml"], tmp_path) == (
        [],
        ["missing.yaml: no such file or directory"],
    )
