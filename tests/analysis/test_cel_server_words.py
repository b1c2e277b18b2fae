"""The server's words for a CEL expression it rejects: `convertCELErrorToValidationError` in
`pkg/apis/admissionregistration/validation/validation.go` makes an invalid expression
`field.Invalid(path, expression, detail)` — printed by apimachinery's `ErrorBody` as
`Invalid value: "<expression as strconv.Quote writes it>": <detail>` — and a failure to build
the program `field.InternalError(path, err)`, printed without the value."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text

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
        operations: ["CREATE"]
        resources: ["deployments"]
"""


def _errors(spec_tail: str, version: str = "1.34") -> list[str]:
    text = HEAD + textwrap.indent(textwrap.dedent(spec_tail), "  ")
    diagnostics = analyse_text(text, AnalysisSettings(version)).diagnostics
    return [d.message for d in diagnostics if d.severity is Severity.ERROR]


def test_the_expression_is_quoted_as_go_quotes_it() -> None:
    errors = _errors(
        """\
        validations:
          - expression: "'tab\\there é \\u00a0' == 1"
        """
    )
    assert errors == [
        "spec.validations[0].expression: Invalid value: \"'tab\\there é \\u00a0' == 1\": compilation failed: "
        "ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(string, int)'"
    ]


def test_an_unclosed_list_literal() -> None:
    """ANTLR's wording for cel-go's grammar since v0.17 (Kubernetes 1.29+), where a list may end
    with a comma (`'[' listInit? ','? ']'`): the parser syncs before the optional comma and finds
    neither `,` nor `]`. (Older grammars had no `','?`, and ANTLR's single-token insertion said
    `missing ']' at '<EOF>'`; no Kubernetes version vap-lsp supports pins one of those.)"""
    errors = _errors("validations:\n  - expression: '[1, 2'\n")
    assert errors == [
        'spec.validations[0].expression: Invalid value: "[1, 2": compilation failed: '
        "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}"
    ]


def test_message_expression_and_variables_show_the_text_as_written() -> None:
    """validateMessageExpression and validateVariable pass the untrimmed text to the compiler."""
    errors = _errors(
        """\
        variables:
          - name: v
            expression: " nope"
        validations:
          - expression: "true"
            messageExpression: " 1 + 'a'"
        """
    )
    assert errors == [
        'spec.variables[0].expression: Invalid value: " nope": compilation failed: '
        "ERROR: <input>:1:2: undeclared reference to 'nope' (in container '')",
        "spec.validations[0].messageExpression: Invalid value: \" 1 + 'a'\": compilation failed: "
        "ERROR: <input>:1:4: found no matching overload for '_+_' applied to '(int, string)'",
    ]


def test_audit_annotation_is_compiled_trimmed_but_shown_as_written() -> None:
    """validateAuditAnnotation compiles `trimmedValueExpression` and reports `v.ValueExpression`."""
    errors = _errors(
        """\
        validations:
          - expression: "true"
        auditAnnotations:
          - key: k
            valueExpression: "  nope"
        """
    )
    assert errors == [
        'spec.auditAnnotations[0].valueExpression: Invalid value: "  nope": compilation failed: '
        "ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')"
    ]


def test_a_constant_find_pattern_fails_when_the_program_is_built() -> None:
    """library/regex.go FindRegexOptimization compiles it in env.Program: compile.go answers
    `program instantiation failed: …` as an internal error."""
    errors = _errors(
        """\
        validations:
          - expression: "object.metadata.name.find('(a') == ''"
          - expression: "object.metadata.name.findAll('[', 2).size() == 0"
          - expression: "object.metadata.name.find(object.metadata.namespace) == ''"
        """
    )
    assert errors == [
        "spec.validations[0].expression: Internal error: program instantiation failed: "
        "error parsing regexp: missing closing ): `(a`",
        "spec.validations[1].expression: Internal error: program instantiation failed: "
        "error parsing regexp: missing closing ]: `[`",
    ]


def test_a_constant_conversion_that_fails_fails_when_the_program_is_built() -> None:
    """The base environment's `cel.EvalOptions(cel.OptOptimize)`: cel-go's `decOptimize` folds a
    type conversion of a constant while building the program (`maybeOptimizeConstUnary`) and an
    error there fails `env.Program`: compile.go's `program instantiation failed: …`, an internal
    error on create. The same conversion of a value read at admission is left to run."""
    errors = _errors(
        """\
        validations:
          - expression: "int('x') > 0"
          - expression: "object.metadata.name != string(b'\\\\xff')"
          - expression: "[uint(1), uint(-1)].size() == 2"
          - expression: "int(object.metadata.name) > 0"
        """
    )
    assert errors == [
        "spec.validations[0].expression: Internal error: program instantiation failed: "
        "type conversion error from 'string' to 'int'",
        "spec.validations[1].expression: Internal error: program instantiation failed: "
        "invalid UTF-8 in bytes, cannot convert to string",
        "spec.validations[2].expression: Internal error: program instantiation failed: "
        "unsigned integer overflow",
    ]


def test_every_cli_format_keeps_the_server_text(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(HEAD + "  validations:\n    - expression: 'object.spec.replicas'\n", encoding="utf-8")
    want = (
        'spec.validations[0].expression: Invalid value: "object.spec.replicas": '
        "must evaluate to bool but got dyn"
    )
    for fmt in ("text", "json", "sarif", "github"):
        out = subprocess.run(
            [sys.executable, "-m", "vap_lsp", "check", "--format", fmt, str(policy)],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        shown = out if fmt in ("text", "github") else json.dumps(json.loads(out), ensure_ascii=False)
        needle = want if fmt in ("text", "github") else json.dumps(want, ensure_ascii=False)[1:-1]
        assert needle in shown, (fmt, out[:800])
