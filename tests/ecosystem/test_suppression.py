"""Inline suppression: `# vap-lsp: ignore[code]` at the end of a line, on its own line above a YAML
entry or above an object; never for YAML syntax errors, never from inside a string."""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text
from vap_lsp.analysis.suppress import CodeRules

HEAD = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo
spec:
  matchConstraints:
    resourceRules:
      - apiGroups: ["apps"]
        apiVersions: ["v1"]
        operations: ["CREATE", "UPDATE"]
        resources: ["deployments"]
"""


def _found(text: str, rules: CodeRules | None = None) -> list[str]:
    """'line code' for each diagnostic (1-based lines)."""
    text = textwrap.dedent(text)
    analysis = analyse_text(text, AnalysisSettings(rules=rules or CodeRules()))
    return [f"{analysis.lines.line_of(d.span.start) + 1} {d.code}" for d in analysis.diagnostics]


def test_without_comments_both_findings_are_reported() -> None:
    assert _found(
        HEAD
        + """\
  failurePolicy: Never
  validations:
    - expression: "object.spec.replica <= 5"
"""
    ) == ["12 FieldValueNotSupported", "14 cel-type-check"]


def test_end_of_line_comment_hides_that_code_on_that_line() -> None:
    assert _found(
        HEAD
        + """\
  failurePolicy: Never  # vap-lsp: ignore[FieldValueNotSupported]
  validations:
    - expression: "object.spec.replica <= 5"  # vap-lsp: ignore[FieldValueNotSupported]
"""
    ) == ["14 cel-type-check"]  # the second comment names another code


def test_bare_ignore_hides_every_code_on_the_line() -> None:
    assert _found(
        HEAD
        + """\
  failurePolicy: Never # vap-lsp: ignore
  validations:
    - expression: "object.spec.replica <= 5"
"""
    ) == ["14 cel-type-check"]


def test_own_line_comment_covers_the_next_entry_with_everything_under_it() -> None:
    assert _found(
        HEAD
        + """\
  validations:
    # vap-lsp: ignore[cel-type-check]
    - expression: >
        object.spec.replica <= 5
    - expression: "object.spec.replica <= 6"
"""
    ) == ["16 cel-type-check"]  # only the first item is covered


def test_comment_above_the_object_covers_the_whole_object() -> None:
    text = (
        "# vap-lsp: ignore[cel-type-check, FieldValueNotSupported]\n"
        + HEAD
        + """\
  failurePolicy: Never
  validations:
    - expression: "object.spec.replica <= 5"
---
"""
        + HEAD.replace("name: demo", "name: other")
        + """\
  validations:
    - expression: "object.spec.replica <= 5"
"""
    )
    assert _found(text) == ["29 cel-type-check"]  # the second object is not covered


def test_comment_between_separator_and_object_covers_the_object() -> None:
    text = (
        "---\n# vap-lsp: ignore[cel-type-check]\n\n"
        + HEAD
        + '  validations:\n    - expression: "object.x == 1"\n'
    )
    assert _found(text) == []
    assert _found(text.replace("vap-lsp: ignore", "a comment")) == ["16 cel-type-check"]


def test_syntax_errors_are_never_hidden() -> None:
    assert _found("# vap-lsp: ignore[yaml-syntax]\na: [  # vap-lsp: ignore\n") == ["3 yaml-syntax"]
    assert _found("a: [\n", CodeRules(ignore=frozenset({"yaml-syntax"}))) == ["2 yaml-syntax"]


def test_a_comment_marker_inside_a_string_is_not_a_comment() -> None:
    assert _found(
        HEAD
        + """\
  validations:
    - expression: "object.spec.replica <= 5 || '# vap-lsp: ignore' == ''"
    - expression: |
        object.spec.replica <= 6 || object.metadata.name == " # vap-lsp: ignore"
"""
    ) == ["13 cel-type-check", "15 cel-type-check"]


def test_configured_rules_ignore_and_regrade() -> None:
    text = HEAD + '  failurePolicy: Never\n  validations:\n    - expression: "object.spec.replica <= 5"\n'
    rules = CodeRules(
        ignore=frozenset({"FieldValueNotSupported"}), severity=(("cel-type-check", Severity.ERROR),)
    )
    analysis = analyse_text(text, AnalysisSettings(rules=rules))
    assert [(d.code, d.severity) for d in analysis.diagnostics] == [("cel-type-check", Severity.ERROR)]
