"""Finding test files under paths and reading one in whichever format it is.

A file is a test file by name (`*.vaptest.yaml`, `vap-lsp-test.yaml`, `kaptest.yaml`,
`kyverno-test.yaml`) or by content (our `kind: AdmissionTest`, a kaptest manifest's
`*TestSuites`, Kyverno's `kind: Test`); content is checked with a cheap text probe first so a
large repository is not parsed twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from vap_lsp.analysis.files import read_text, unreadable, walk_yaml
from vap_lsp.testfiles.kaptest import is_kaptest, kaptest_path_hint, read_kaptest
from vap_lsp.testfiles.kyverno import is_kyverno_test, kyverno_path_hint, read_kyverno
from vap_lsp.testfiles.loader import parse_test_document
from vap_lsp.testfiles.model import TestSuite
from vap_lsp.testfiles.native import is_native, native_path_hint, read_native

_PROBE = re.compile(
    r"^(kind:\s*[\"']?(AdmissionTest|Test)\b|(vapTestSuites|mapTestSuites|testSuites):)", re.MULTILINE
)


def named_like_test(path: Path) -> bool:
    return native_path_hint(path) or kaptest_path_hint(path) or kyverno_path_hint(path)


def looks_like_test(text: str) -> bool:
    return _PROBE.search(text) is not None


def read_suite(path: Path, text: str | None = None) -> TestSuite | None:
    """The suite in `path`, or None when the file is not a test file of a known format."""
    problems: list[str] = []
    if text is None:
        text = read_text(path, problems)
    if text is None:
        return TestSuite(str(path), "unknown", problems=problems)
    doc = parse_test_document(path, text, problems)
    if doc is None:
        return TestSuite(str(path), "unknown", problems=problems) if named_like_test(path) else None
    if is_native(doc.data):
        suite = read_native(doc)
    elif is_kyverno_test(doc.data):
        suite = read_kyverno(doc)
    elif is_kaptest(doc.data):
        suite = read_kaptest(doc)
    elif named_like_test(path):
        problems.append(
            f"{path}: not a test file of a known format (vap-lsp AdmissionTest, kaptest, Kyverno Test)"
        )
        return TestSuite(str(path), "unknown", problems=problems)
    else:
        return None
    suite.problems[:0] = problems
    return suite


def discover(paths: Sequence[str], errors: list[str]) -> list[TestSuite]:
    """Suites under `paths`: a file given explicitly must be a test file; folders are searched."""
    suites: list[TestSuite] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            suite = read_suite(path)
            if suite is None:
                errors.append(f"{raw}: not a test file (vap-lsp AdmissionTest, kaptest or Kyverno Test)")
            else:
                suites.append(suite)
        elif path.is_dir():
            for file in walk_yaml(path, errors):
                text = read_text(file, errors)
                if text is None or not (named_like_test(file) or looks_like_test(text)):
                    continue
                suite = read_suite(file, text)
                if suite is not None:
                    suites.append(suite)
        else:
            errors.append(unreadable(raw) or f"{raw}: not a test file")
    return suites
