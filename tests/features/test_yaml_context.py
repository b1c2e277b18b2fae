"""The cursor's YAML path from broken text (indentation) and from the parsed tree."""

from __future__ import annotations

from yaml_feature_helpers import CURSOR

from vap_lsp.features.yaml_context import cursor_context, node_path_at, scan_flow, scan_line
from vap_lsp.yaml.parse import parse_yaml

HEAD = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"


def ctx(text: str):  # type: ignore[no-untyped-def]
    offset = text.index(CURSOR)
    return cursor_context(parse_yaml(text.replace(CURSOR, "", 1)), offset)


def test_empty_value_after_key() -> None:
    c = ctx(HEAD + "spec:\n  failurePolicy: " + CURSOR + "\n  matchConstraints: {}\n")
    assert (c.path, c.where, c.prefix, c.kind) == (
        ("spec", "failurePolicy"),
        "value",
        "",
        "ValidatingAdmissionPolicy",
    )


def test_half_typed_key_in_broken_yaml_sees_siblings() -> None:
    c = ctx(
        HEAD + "spec:\n  failurePolicy: Fail\n  matchC" + CURSOR + "\n  validations:\n  - expression: x\n"
    )
    assert (c.path, c.where, c.prefix) == (("spec",), "key", "matchC")
    assert c.existing_keys == {"failurePolicy", "validations"}


def test_new_list_item_under_zero_indented_sequence() -> None:
    c = ctx(HEAD + "spec:\n  validations:\n  - expression: x\n  - " + CURSOR + "\n")
    assert (c.path, c.where, c.dash_item) == (("spec", "validations", 1), "key", True)


def test_block_scalar_content_is_skipped() -> None:
    c = ctx(HEAD + "spec:\n  validations:\n  - expression: |\n      a: b\n    " + CURSOR + "\n")
    assert (c.path, c.where, c.existing_keys) == (("spec", "validations", 0), "key", {"expression"})


def test_flow_list_in_flow_mapping_knows_the_rule() -> None:
    rule = '      - {apiGroups: [apps], apiVersions: [v1], resources: ["dep' + CURSOR + '"]}\n'
    c = ctx(HEAD + "spec:\n  matchConstraints:\n    resourceRules:\n" + rule)
    assert c.path == ("spec", "matchConstraints", "resourceRules", 0, "resources", 0)
    assert (c.prefix, c.quoted, c.in_flow) == ("dep", True, True)
    assert c.siblings == {"apiGroups": ["apps"], "apiVersions": ["v1"]}


def test_block_rule_siblings_come_from_the_repaired_tree() -> None:
    rule = "    - apiGroups: [apps]\n      resources: [" + CURSOR + "]\n      apiVersions: [v1]\n"
    c = ctx(HEAD + "spec:\n  matchConstraints:\n    resourceRules:\n" + rule)
    assert c.siblings["apiGroups"] == ["apps"] and c.siblings["apiVersions"] == ["v1"]


def test_scan_line_and_flow() -> None:
    tokens = scan_line('  - "name": x # comment')
    assert (tokens.dashes, tokens.key, tokens.value) == ((2,), "name", "x")
    flow = scan_flow("{name: x, ")
    assert flow is not None and (flow.where, flow.keys) == ("key", frozenset({"name"}))


def test_node_path_at_key_and_value() -> None:
    text = "spec:\n  rules:\n  - ops: [CREATE]\n"
    root = parse_yaml(text).documents[0].root
    assert root is not None
    path, where, _ = node_path_at(root, text.index("ops") + 1) or ((), "", None)
    assert (path, where) == (("spec", "rules", 0, "ops"), "key")
    path, where, _ = node_path_at(root, text.index("CREATE") + 1) or ((), "", None)
    assert (path, where) == (("spec", "rules", 0, "ops", 0), "value")
