"""CEL completion on unfinished text, in every scalar style."""

from __future__ import annotations

import pytest
from cel_feature_helpers import MAP, at, policy, snapshot

from vap_lsp.features.cel_completion import complete
from vap_lsp.features.edits import encode_fragment
from vap_lsp.features.results import CompletionEntry
from vap_lsp.yaml.model import ScalarStyle


def _items(expression_yaml: str, needle: str, template: str | None = None) -> dict[str, CompletionEntry]:
    text = policy(expression_yaml) if template is None else policy(expression_yaml, template)
    result = complete(snapshot(text), at(text, needle))
    assert result is not None
    return {i.label: i for i in result.items}


@pytest.mark.parametrize(
    "expression_yaml",
    [
        "|\n        object.spec.",
        ">-\n        object.spec.",
        "object.spec.",
        '"object.spec."',
        "'object.spec.'",
    ],
)
def test_fields_of_the_typed_object_in_every_scalar_style(expression_yaml: str) -> None:
    items = _items(expression_yaml, "object.spec.")
    assert items["replicas"].detail == "int"
    assert items["replicas"].kind == "field"
    assert "Number of desired pods" in (items["replicas"].documentation or "")


def test_unfinished_comprehension_knows_its_variable() -> None:
    items = _items("|\n        object.spec.template.spec.containers.all(c, c.", "all(c, c.")
    assert items["image"].detail == "string"
    assert "name" in items


def test_iteration_variables_with_element_types_including_two_variable_forms() -> None:
    items = _items("|\n        object.metadata.labels.all(k, v, ", "all(k, v, ")
    assert items["k"].detail == "string" and items["v"].detail == "string"
    items = _items("|\n        object.spec.template.spec.containers.exists(c, ", "exists(c, ")
    assert items["c"].kind == "variable"
    assert items["c"].detail is not None and "containers.@idx" in items["c"].detail
    assert items["object"].sort_text is not None and items["c"].sort_text is not None
    assert items["c"].sort_text < items["object"].sort_text


def test_variables_dot_lists_the_visible_variables_with_types() -> None:
    items = _items("|\n        variables.", "variables.")
    assert set(items) == {"names"}
    assert items["names"].detail == "list(string)"
    assert "containers.map" in (items["names"].documentation or "")


def test_roots_functions_macros_and_keywords() -> None:
    items = _items("|\n        x", "|\n        ")
    assert {"object", "oldObject", "request", "variables", "authorizer"} <= set(items)
    assert "params" not in items  # no paramKind
    assert items["has(x.field)"].insert_is_snippet
    assert items["has(x.field)"].insert_text == "has(${1:x.field})"
    assert items["size"].kind == "function"
    assert items["true"].kind == "keyword"


def test_has_offers_root_variables_only() -> None:
    items = _items("|\n        has(", "has(")
    assert "object" in items and "size" not in items


def test_methods_match_the_receiver_type_after_the_fields() -> None:
    items = _items("|\n        object.metadata.name.", "name.")
    assert {"startsWith", "matches", "size"} <= set(items)
    assert "all(x, predicate)" not in items  # strings are no ranges
    assert "getHours" not in items
    items = _items("|\n        object.spec.template.spec.containers.", "containers.")
    assert "all(x, predicate)" in items and "all(i, v, predicate)" in items
    assert items["all(x, predicate)"].insert_text == "all(${1:x}, ${2:predicate})"


def test_optional_selection_offers_fields_only() -> None:
    items = _items("|\n        object.?spec.", "?spec.")
    assert "replicas" in items and "size" not in items


def test_namespaces_and_dotted_variables() -> None:
    assert set(_items("|\n        sets.", "sets.")) == {"contains", "equivalent", "intersects"}
    items = _items("|\n        authorizer.", "authorizer.")
    assert items["requestResource"].kind == "variable"
    assert items["group"].kind == "method"


def test_no_completion_inside_string_literals_or_after_an_operand() -> None:
    assert _items("|\n        'abc.", "abc.") == {}
    assert _items("|\n        object.spec.replicas ", "replicas ") == {}


def test_replace_span_covers_the_typed_prefix_in_a_double_quoted_scalar() -> None:
    text = policy('"\\"x\\" != \\"\\" && object.spec.rep"')
    result = complete(snapshot(text), at(text, "object.spec.rep"))
    assert result is not None
    item = next(i for i in result.items if i.label == "replicas")
    assert item.replace_span is not None
    assert text[item.replace_span.start : item.replace_span.end] == "rep"


def test_snippets_with_quotes_are_escaped_for_the_scalar_style() -> None:
    double = _items('"JSON"', "JSON", MAP)["JSONPatch{…}"]
    assert double.insert_text is not None and '\\\\"${1:add}\\\\"' in double.insert_text
    single = _items("'JSON'", "JSON", MAP)["JSONPatch{…}"]
    assert single.insert_text == 'JSONPatch{op: "${1:add}", path: "${2:/metadata/labels}", value: $3}'


def test_completion_text_is_escaped_for_its_scalar() -> None:
    """Completions insert through the one scalar escaper (`edits.encode_fragment`)."""
    assert encode_fragment(ScalarStyle.DOUBLE, 'a"b\\c') == 'a\\"b\\\\c'
    assert encode_fragment(ScalarStyle.SINGLE, "it's") == "it''s"
    assert encode_fragment(ScalarStyle.LITERAL, 'it\'s "x"') == 'it\'s "x"'


@pytest.mark.parametrize("expression_yaml", ["|\n        ", '""', "''", ""])
def test_an_empty_expression_offers_roots_at_the_cursor(expression_yaml: str) -> None:
    text = policy(expression_yaml)
    offset = at(
        text,
        "expression: " + expression_yaml,
        len("expression: ") + (1 if expression_yaml in ('""', "''") else len(expression_yaml)),
    )
    result = complete(snapshot(text), offset)
    assert result is not None
    item = next(i for i in result.items if i.label == "object")
    assert item.replace_span is not None and item.replace_span.start == offset


def test_outside_cel_the_service_declines() -> None:
    text = policy("object.spec.replicas > 1")
    assert complete(snapshot(text), at(text, "name: de")) is None


def test_quantity_maps_are_offered_with_the_dyn_spelling() -> None:
    # `resources.limits` is a map of Quantity, which has no type: not in the type, so the server
    # warns on `c.resources.limits`; completion still offers it and says how to write it.
    items = _items("|\n        object.spec.template.spec.containers.all(c, c.resources.", "c.resources.")
    assert items["limits"].detail == "untyped (Quantity)"
    assert "`dyn(c.resources).limits`" in (items["limits"].documentation or "")
    assert items["claims"].detail is not None and items["claims"].detail.startswith("list(")
