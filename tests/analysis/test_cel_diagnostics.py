"""CEL in policies, as the API server judges it: create-time errors and type-check warnings,
each placed on the offending sub-expression inside whatever YAML scalar style holds it."""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.diagnostics import Diagnostic, Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text


def _vap(
    validations: str, *, extra: str = "", version: str = "1.34", hints: bool = False
) -> tuple[str, list[Diagnostic]]:
    text = (
        textwrap.dedent(
            """\
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
        )
        + textwrap.indent(textwrap.dedent(extra), "  ")
        + "  validations:\n"
        + textwrap.indent(textwrap.dedent(validations), "    ")
    )
    diagnostics = analyse_text(text, AnalysisSettings(version)).diagnostics
    return text, [d for d in diagnostics if hints or d.severity is not Severity.HINT]


def _at(text: str, d: Diagnostic) -> str:
    return text[d.span.start : d.span.end]


def test_undefined_field_is_a_type_check_warning_on_the_field() -> None:
    text, diags = _vap('- expression: "object.replicas > 1"\n')
    (d,) = diags
    assert d.severity is Severity.WARNING
    assert d.message == (
        "spec.validations[0].expression: type checking against apps/v1, Kind=Deployment: "
        "ERROR: <input>:1:7: undefined field 'replicas'"
    )
    assert _at(text, d) == ".replicas"  # the column is cel-go's (the dot); the range covers the field
    assert d.field == "spec.validations[0].expression"


def test_dyn_result_is_an_error_because_object_is_dyn_at_create_time() -> None:
    text, diags = _vap("- expression: object.spec.paused\n")
    (d,) = diags
    assert d.severity is Severity.ERROR
    assert d.message == (
        'spec.validations[0].expression: Invalid value: "object.spec.paused": '
        "must evaluate to bool but got dyn"
    )
    assert _at(text, d) == "object.spec.paused"


def test_overload_error_in_a_folded_scalar_is_placed_on_its_source_line() -> None:
    text, diags = _vap(
        """\
        - expression: >-
            object.spec.replicas > 1 &&
            'a' + 1 == 'a1'
        """
    )
    (d,) = diags
    assert d.severity is Severity.ERROR
    assert d.message == (
        "spec.validations[0].expression: Invalid value: \"object.spec.replicas > 1 && 'a' + 1 == 'a1'\": "
        "compilation failed: ERROR: <input>:1:33: "
        "found no matching overload for '_+_' applied to '(string, int)'"
    )
    line = text.count("\n", 0, d.span.start)
    assert text.splitlines()[line].strip() == "'a' + 1 == 'a1'"
    assert _at(text, d) == "+ 1"  # from the operator, where cel-go reports it, to the end of the call


def test_syntax_error_in_a_double_quoted_scalar_with_escapes() -> None:
    text, diags = _vap('- expression: "\\"é\\" == object.metadata.name &&"\n')
    (d,) = diags
    assert d.code == "cel-syntax"
    assert d.message.startswith(
        'spec.validations[0].expression: Invalid value: "\\"é\\" == object.metadata.name &&": '
        "compilation failed: ERROR: <input>:1:31: Syntax error: mismatched input '<EOF>'"
    )
    # Decoded column 31 is past the content: in the file, the closing quote after `&&`.
    assert text[d.span.start - 2 : d.span.start + 1] == '&&"'


def test_message_expression_has_no_authorizer() -> None:
    _, diags = _vap(
        "- expression: 'true'\n  messageExpression: \"string(authorizer.path('/').check('get').allowed())\"\n"
    )
    messages = [d.message for d in diags if d.severity is Severity.ERROR]
    assert any("undeclared reference to 'authorizer' (in container '')" in m for m in messages), messages


def test_params_only_with_param_kind() -> None:
    _, diags = _vap('- expression: "params.max > 1"\n')
    assert [d.message for d in diags] == [
        'spec.validations[0].expression: Invalid value: "params.max > 1": '
        "compilation failed: ERROR: <input>:1:1: "
        "undeclared reference to 'params' (in container '')"
    ]
    _, diags = _vap(
        '- expression: "object.spec.replicas <= int(params.data.max)"\n',
        extra="paramKind:\n  apiVersion: v1\n  kind: ConfigMap\n",
    )
    assert diags == []


def test_variables_see_only_earlier_variables_and_are_typed() -> None:
    extra = """\
    variables:
      - name: replicas
        expression: "object.spec.replicas"
      - name: early
        expression: "variables.late"
      - name: late
        expression: "1"
    """
    _, diags = _vap('- expression: "variables.replicas > 1 && variables.late + 1 > 2"\n', extra=extra)
    assert [d.message for d in diags] == [
        'spec.variables[1].expression: Invalid value: "variables.late": '
        "compilation failed: ERROR: <input>:1:10: "
        "undefined field 'late'"
    ]


def test_match_conditions_are_trimmed_and_have_no_variables() -> None:
    extra = """\
    variables:
      - name: x
        expression: "true"
    matchConditions:
      - name: uses-variables
        expression: "  variables.x"
    """
    text, diags = _vap("- expression: 'true'\n", extra=extra)
    (d,) = diags
    # Columns count from the trimmed text, as the server compiles it, and it shows that text
    # (validation.go validateMatchCondition passes the trimmed expression to the compiler).
    assert d.message == (
        'spec.matchConditions[0].expression: Invalid value: "variables.x": '
        "compilation failed: ERROR: <input>:1:1: "
        "undeclared reference to 'variables' (in container '')"
    )
    assert _at(text, d) == "variables"


def test_function_missing_in_the_selected_version_names_the_version_that_has_it() -> None:
    _, old = _vap("- expression: \"isCIDR('10.0.0.0/8')\"\n", version="1.30")
    (d,) = old
    assert d.severity is Severity.ERROR
    assert "1.31" in d.message
    _, new = _vap("- expression: \"isCIDR('10.0.0.0/8')\"\n", version="1.31")
    assert new == []


def test_bad_regex_literal_is_an_error() -> None:
    _, diags = _vap("- expression: \"object.metadata.name.matches('(?=x)')\"\n")
    (d,) = diags
    assert d.code == "cel-validator"
    assert d.severity is Severity.ERROR


def test_mutating_policy_result_types() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: admissionregistration.k8s.io/v1beta1
        kind: MutatingAdmissionPolicy
        metadata:
          name: demo
        spec:
          matchConstraints:
            resourceRules:
              - apiGroups: [""]
                apiVersions: ["v1"]
                operations: ["CREATE"]
                resources: ["pods"]
          reinvocationPolicy: Never
          mutations:
            - patchType: ApplyConfiguration
              applyConfiguration:
                expression: "Object{metadata: Object.metadata{labels: {'a': 'b'}}}"
            - patchType: JSONPatch
              jsonPatch:
                expression: "[JSONPatch{op: 'add', path: '/metadata/labels/a', value: 'b'}]"
            - patchType: ApplyConfiguration
              applyConfiguration:
                expression: "'not an object'"
        """
    )
    diags = analyse_text(text, AnalysisSettings("1.34")).diagnostics
    # v1beta1 at 1.34 is also noted as off by default (`api-off-by-default`, information).
    assert [d.message for d in diags if d.code != "api-off-by-default"] == [
        "spec.mutations[2].applyConfiguration.expression: Invalid value: \"'not an object'\": "
        "must evaluate to Object but got string"
    ]


def test_optional_field_without_guard_is_a_hint_and_has_guards_it() -> None:
    text, diags = _vap('- expression: "object.spec.paused == true"\n', hints=True)
    (d,) = diags
    assert d.severity is Severity.HINT
    assert d.code == "optional-field"
    assert _at(text, d) == "paused"
    _, guarded = _vap('- expression: "has(object.spec.paused) && object.spec.paused"\n', hints=True)
    assert guarded == []


def test_old_object_read_on_create_without_guard_is_a_warning() -> None:
    text, diags = _vap('- expression: "object.spec.replicas >= oldObject.spec.replicas"\n')
    (d,) = diags
    assert (d.severity, d.code) == (Severity.WARNING, "old-object-on-create")
    assert _at(text, d) == "oldObject"
    _, guarded = _vap(
        '- expression: "oldObject == null || object.spec.replicas >= oldObject.spec.replicas"\n'
    )
    assert guarded == []


def test_template_in_message_is_information() -> None:
    _, diags = _vap('- expression: "true"\n  message: "{{ object.metadata.name }} is not allowed"\n')
    (d,) = diags
    assert (d.severity, d.code) == (Severity.INFORMATION, "message-not-cel")


def test_match_conditions_are_type_checked_by_vap_lsp_too() -> None:
    extra = """\
    matchConditions:
      - name: typo
        expression: "object.spec.replica > 0"
    """
    _, diags = _vap("- expression: 'true'\n", extra=extra)
    (d,) = diags
    assert (d.severity, d.code) == (Severity.WARNING, "cel-type-check-extra")
    assert "undefined field 'replica'" in d.message
