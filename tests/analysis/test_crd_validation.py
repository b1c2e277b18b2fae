"""A CustomResourceDefinition in a checked file is judged as the API server judges it on create."""

from __future__ import annotations

import textwrap

from vap_lsp.analysis.diagnostics import Severity
from vap_lsp.analysis.engine import AnalysisSettings, analyse_text


def _diagnostics(text: str) -> list[str]:
    found = analyse_text(textwrap.dedent(text), AnalysisSettings("1.34")).diagnostics
    return [f"{d.severity.name.lower()} {d.code}: {d.message}" for d in found]


def test_a_valid_crd_has_no_findings() -> None:
    assert (
        _diagnostics(
            """\
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
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec:
                      type: object
                      x-kubernetes-preserve-unknown-fields: true
                    size: {x-kubernetes-int-or-string: true}
        """
        )
        == []
    )


def test_names_group_versions_and_schema_in_the_servers_words() -> None:
    assert _diagnostics(
        """\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example
          names: {kind: Widget, plural: widgets}
          scope: Global
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec:
                      properties:
                        sizes: {type: array}
            - name: V2
              served: true
              storage: true
        """
    ) == [
        'error FieldValueInvalid: metadata.name: Invalid value: "widgets.example.com": '
        'must be spec.names.plural+"."+spec.group',
        'error FieldValueInvalid: spec.group: Invalid value: "example": '
        "should be a domain with at least one dot",
        'error FieldValueNotSupported: spec.scope: Unsupported value: "Global": supported values: '
        '"Cluster", "Namespaced"',
        "error FieldValueInvalid: spec.versions: Invalid value: must have exactly one version marked as "
        "storage version",
        "error FieldValueRequired: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: "
        "Required value: must not be empty for specified object fields",
        "error FieldValueRequired: spec.versions[0].schema.openAPIV3Schema.properties[spec]"
        ".properties[sizes].items: Required value: must be specified",
        "error FieldValueRequired: spec.versions[1].schema.openAPIV3Schema: "
        "Required value: schemas are required",
        'error FieldValueInvalid: spec.versions[1].name: Invalid value: "V2": a DNS-1035 label must consist '
        "of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]


def test_unknown_fields_are_strict_decoding_errors_and_no_served_version_is_information() -> None:
    found = analyse_text(
        textwrap.dedent(
            """\
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata: {name: widgets.example.com}
            spec:
              group: example.com
              names: {kind: Widget, plural: widgets}
              scope: Namespaced
              versions:
                - name: v1
                  served: false
                  storage: true
                  schemas: {}
                  schema: {openAPIV3Schema: {type: object}}
            """
        ),
        AnalysisSettings("1.34"),
    ).diagnostics
    assert [(d.severity, d.code) for d in found] == [
        (Severity.INFORMATION, "crd-not-served"),
        (Severity.ERROR, "unknown-field"),
    ]
    assert found[0].message.startswith("no version of Widget is served")


def test_an_unknown_list_type_names_the_supported_values_in_the_servers_order() -> None:
    assert _diagnostics(
        """\
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
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    tags: {type: array, items: {type: string}, x-kubernetes-list-type: bag}
        """
    ) == [
        "error FieldValueNotSupported: spec.versions[0].schema.openAPIV3Schema.properties[tags]"
        '.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
    ]


def test_without_a_kind_the_defaulted_names_are_required_too() -> None:
    # singular and listKind default from kind: with none, all three are missing.
    found = _diagnostics(
        """\
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.example.com}
        spec:
          group: example.com
          names: {plural: widgets}
          scope: Namespaced
          versions:
            - name: v1
              served: true
              storage: true
              schema:
                openAPIV3Schema: {type: object}
        """
    )
    required = [f for f in found if "Required value" in f]
    assert sorted(f.split(": ", 1)[1] for f in required) == [  # (listed by position in the file)
        "spec.names.kind: Required value",
        "spec.names.listKind: Required value",
        "spec.names.singular: Required value",
    ]
