"""Every file a user's input can name is read through `vap_lsp.analysis.files` (regular files
only, bounded, `**` without symlinked folders): the source is searched for any other way of
opening, reading, globbing or walking files, and each one found must be in `ALLOWED` with the
reason it is safe. A new `Path.read_text` in a feature, or a `glob.glob(recursive=True)` like the
one "Run against samples" had (two links back to the root made it run for ever), fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "vap_lsp"

# Methods and functions that open, read or list files (`walk` only as `os.walk`: CEL and YAML
# trees have `walk` methods of their own).
READERS = {"open", "read_text", "read_bytes", "glob", "rglob", "iterdir", "scandir", "listdir", "fdopen"}

ALLOWED = {
    # vap-lsp's own data, shipped in the package: never a user's path.
    ("schema/store.py", "root.iterdir"): "the packaged schema folders",
    ("schema/store.py", "_root().joinpath(_SHARD_DIR, fname).read_bytes"): "a packaged schema shard",
    ("schema/store.py", "_root().joinpath(self.version, 'rest.json').read_text"): "packaged",
    ("schema/store.py", "_root().joinpath(self.version, 'index.json').read_text"): "packaged",
    (
        "defaulting/omitempty.py",
        "files('vap_lsp.defaulting').joinpath('omitempty.json').read_text",
    ): "packaged",
    # The server's own cache of compiled lsprotocol methods, in the user's cache folder.
    ("server/preload.py", "directory.glob"): "its own cache folder, one level",
    ("server/startup_analyser.py", "os.fdopen"): "the helper process's own stdout",
    ("cli/entry.py", "os.open"): "/dev/null, written over stdout once its reader has left",
    # Written, not read.
    ("cli/main.py", "open"): "--output-file, written",
    # `vap-lsp impact`: snapshots and audit logs are streamed (no size limit: a cluster's snapshot
    # is large), each local path checked by `files.unreadable` first (`locations.expand`,
    # `Location.open_raw`, `_read_json`): a FIFO or a device is refused before it is opened. URLs
    # and globs go through fsspec (object storage; local matches keep the local checks).
    ("impact/locations.py", "open"): "a snapshot or audit log checked by files.unreadable, streamed",
    ("impact/locations.py", "fs.open"): "a URL through fsspec (s3://, gs://…), streamed",
    ("impact/locations.py", "fs.glob"): "a glob the user gave as an input: the files it matches",
    ("cli/impact.py", "open"): "a result file checked by files.unreadable",
}


def _file_reads(package: Path = PACKAGE) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name == "analysis/files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            function = node.func
            if isinstance(function, ast.Name) and function.id == "open":
                found.add((name, "open"))
            elif isinstance(function, ast.Attribute):
                base = ast.unparse(function.value)
                if base == "files":  # `from vap_lsp.analysis import files`
                    continue
                if function.attr in READERS or (function.attr == "walk" and base == "os"):
                    found.add((name, f"{base}.{function.attr}"))
    return found


def test_files_are_read_only_through_analysis_files() -> None:
    unexpected = sorted(_file_reads() - ALLOWED.keys())
    assert unexpected == [], "read these through vap_lsp.analysis.files (or allow them, saying why)"


def test_every_allowed_read_is_still_there() -> None:
    """A stale entry would silently allow a new read of the same shape."""
    assert sorted(ALLOWED.keys() - _file_reads()) == []


def test_the_search_finds_what_run_against_samples_once_did(tmp_path: Path) -> None:
    """The search itself, on the code "Run against samples" had before it read through
    `analysis.files`; `files.read_text` and CEL's `walk` are not file reads."""
    (tmp_path / "features").mkdir()
    (tmp_path / "features" / "run_samples.py").write_text(
        "import glob\n"
        "from pathlib import Path\n"
        "from vap_lsp.analysis import files\n\n"
        "def sample_paths(full: str) -> list[str]:\n"
        "    for match in glob.glob(full, recursive=True):\n"
        "        for child in Path(match).rglob('*'):\n"
        "            child.read_text()\n"
        "    files.read_text(full, [])\n"
        "    parsed.walk()\n"
        "    return []\n"
    )
    assert _file_reads(tmp_path) == {
        ("features/run_samples.py", "glob.glob"),
        ("features/run_samples.py", "Path(match).rglob"),
        ("features/run_samples.py", "child.read_text"),
    }
