# ruff: noqa: E501  (input YAML and expected CEL read best unbroken)
"""The output as a person writes it: a comment naming the source, keys in the usual order, CEL
in literal blocks (long lines broken only where CEL reads a space), long messages folded, short
lists in flow style — and read back, the same data."""

from __future__ import annotations

import textwrap

from ruamel.yaml import YAML

from vap_lsp.convert.cel_text import reflow
from vap_lsp.convert.emit import render
from vap_lsp.convert.model import Emitted, Origin

ORIGIN = Origin("policies/p.yaml", 1, "ValidatingPolicy", "p")


def test_a_policy_as_written() -> None:
    policy = {
        "spec": {
            "validations": [
                {
                    "message": "Containers must not run privileged: set securityContext.privileged to false or "
                    "leave it out, in every container",
                    "expression": "object.spec.containers.all(c, !c.?securityContext.?privileged.orValue(false))",
                }
            ],
            "matchConstraints": {
                "resourceRules": [
                    {
                        "resources": ["pods"],
                        "operations": ["CREATE", "UPDATE"],
                        "apiVersions": ["v1"],
                        "apiGroups": [""],
                    }
                ]
            },
        },
        "metadata": {"name": "p"},
        "kind": "ValidatingAdmissionPolicy",
        "apiVersion": "admissionregistration.k8s.io/v1",
    }
    text = render(
        [Emitted(policy, ORIGIN, "Converted by vap-lsp from policies/p.yaml (ValidatingPolicy p).")]
    )
    assert text == textwrap.dedent(
        """\
        # Converted by vap-lsp from policies/p.yaml (ValidatingPolicy p).
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: p
        spec:
          matchConstraints:
            resourceRules:
              - apiGroups: [""]
                apiVersions: [v1]
                operations: [CREATE, UPDATE]
                resources: [pods]
          validations:
            - expression: |-
                object.spec.containers.all(c, !c.?securityContext.?privileged.orValue(false))
              message: >-
                Containers must not run privileged: set securityContext.privileged to false or leave it out, in
                every container
        """
    )
    assert YAML(typ="safe", pure=True).load(text) == policy


def test_long_cel_lines_break_outside_string_literals_only() -> None:
    text = (
        "object.metadata.name.startsWith('a very long prefix with spaces that must not be broken apart') && "
        'object.spec.containers.all(c, c.image.startsWith("registry.example.com/ with spaces ")) && true'
    )
    flowed = reflow(text, width=60)
    assert flowed.split("\n") == [
        "object.metadata.name.startsWith('a very long prefix with spaces that must not be broken apart')",
        "  && object.spec.containers.all(c,",
        '  c.image.startsWith("registry.example.com/ with spaces "))',
        "  && true",
    ]
    assert flowed.split() == text.split()  # only spaces became line breaks
    assert reflow("a\n  && b", width=3) == "a\n  && b"  # written on several lines: left as it is


def test_several_objects_in_one_stream() -> None:
    text = render(
        [
            Emitted({"kind": "A", "metadata": {"name": "a"}}, ORIGIN, "first"),
            Emitted({"kind": "B", "spec": {"values": ["*"]}}, ORIGIN, "second"),
        ]
    )
    assert text == '# first\nkind: A\nmetadata:\n  name: a\n---\n# second\nkind: B\nspec:\n  values: ["*"]\n'
