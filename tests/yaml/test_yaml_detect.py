"""Non-text input and Helm/Go templates get one file-level problem (vap_lsp.yaml.detect)."""

from __future__ import annotations

import codecs

import pytest

from vap_lsp.text import Span
from vap_lsp.yaml.detect import decode_bytes
from vap_lsp.yaml.model import ProblemKind
from vap_lsp.yaml.parse import parse_yaml

# ------------------------------------------------------------------------- decode_bytes


def test_utf8_with_and_without_bom() -> None:
    assert decode_bytes("a: é\n".encode()) == ("a: é\n", None)
    assert decode_bytes(codecs.BOM_UTF8 + b"a: 1\n") == ("a: 1\n", None)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_need_a_bom(encoding: str) -> None:
    bom = {
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
    }.get(encoding, b"")
    data = bom + "k: 日本 😀\n".encode(encoding)  # plain utf-16/utf-32 write their own BOM
    assert decode_bytes(data) == ("k: 日本 😀\n", None)


def test_invalid_utf8_names_the_byte_offset() -> None:
    data = b"a: 1\nb: \xff\xfe\n"
    text, problem = decode_bytes(data)
    assert text is None and problem is not None
    assert problem.kind is ProblemKind.NOT_TEXT
    assert problem.message == (
        "not UTF-8: invalid byte 0xff (at byte 8); YAML files are UTF-8, or UTF-16/32 with a byte order mark"
    )
    assert problem.span.start == 8  # `b: ` on line 2: the diagnostic sits on the bad byte


def test_nul_bytes_mean_binary() -> None:
    text, problem = decode_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert text is None and problem is not None
    assert problem.message == "not a text file: contains NUL bytes (first at byte 8)"


def test_utf16_without_bom_is_binary() -> None:
    _, problem = decode_bytes("a: 1\n".encode("utf-16-le"))
    assert problem is not None and "NUL" in problem.message


def test_nul_character_inside_utf16_text() -> None:
    _, problem = decode_bytes(codecs.BOM_UTF16_LE + "ab\0".encode("utf-16-le"))
    assert problem is not None and problem.message.endswith("(first at byte 6)")


# ------------------------------------------------------------------------------ templates

HELM = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {{ include "chart.fullname" . }}
  labels:
    {{- include "chart.labels" . | nindent 4 }}
spec:
  {{- if .Values.enabled }}
  failurePolicy: Fail
  {{- end }}
"""


def test_helm_chart_is_a_template() -> None:
    f = parse_yaml(HELM)
    assert f.documents == []
    (p,) = f.problems
    assert p.kind is ProblemKind.TEMPLATE
    start = HELM.index("{{")
    assert p.span == Span(start, HELM.index("}}") + 2)
    assert p.message == (
        "file is a Helm/Go template ({{ ... }} at line 4); render it first to check it: "
        "helm template CHART | vap-lsp check -"
    )


@pytest.mark.parametrize(
    "text,line",
    [
        ("{{- if .Values.enabled }}\nkind: X\n{{- end }}\n", 1),
        ("kind: X\nname: {{ .Values.name }}\n", 2),  # structure: scans as flow mappings
        ("kind: X\n# {{ in a comment }}\nbad: [\n{{ .Values.x }}\n", 4),  # broken YAML
        # Reported: the construct that is template syntax, never the one inside a string.
        ('a: "{{ quoted }}"\n{{ if x }}\n', 2),
    ],
)
def test_template_positives(text: str, line: int) -> None:
    f = parse_yaml(text)
    assert f.documents == []
    (p,) = f.problems
    assert p.kind is ProblemKind.TEMPLATE
    assert f"at line {line})" in p.message


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: demo  # {{ not a template: a comment }}
spec:
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "use {{ }} to interpolate"
    messageExpression: |
      'replicas {{ ' + string(object.spec.replicas) + ' }}'
  - expression: 'true'
    message: '{{ single quoted }}'
"""


def test_policy_with_braces_in_strings_is_not_a_template() -> None:
    f = parse_yaml(POLICY)
    assert f.problems == []
    assert len(f.documents) == 1 and not f.documents[0].problems


def test_broken_policy_with_braces_only_in_strings_shows_the_syntax_error() -> None:
    text = POLICY + "  broken: : :\n"
    f = parse_yaml(text)
    assert f.problems == []
    (doc,) = f.documents
    assert doc.problems[0].kind is ProblemKind.SYNTAX


def test_unparsed_block_scalar_with_braces_is_not_a_template() -> None:
    text = "a: b: c\nx:\n  m: |\n    {{ cel }}\n"
    f = parse_yaml(text)
    assert f.problems == []
    assert f.documents[0].problems[0].kind is ProblemKind.SYNTAX


def test_action_inside_a_plain_scalar_leaves_valid_yaml_with_a_marker() -> None:
    # A rendered bundle (KServe ships one) keeps `{{.Name}}` in values a controller fills in:
    # valid YAML, so the file is parsed and the first such marker noted, not the quoted one.
    text = 'kind: X\nmessage: "{{ quoted }}"\nimage: repo/app:{{ .Values.tag }}\n'
    f = parse_yaml(text)
    assert f.problems == []
    assert len(f.documents) == 1 and not f.documents[0].problems
    assert f.template_marker == Span(text.index("{{ .Values"), text.rindex("}}") + 2)


def test_no_marker_for_actions_in_strings_and_comments() -> None:
    assert parse_yaml(POLICY).template_marker is None
