"""The converted objects as YAML a person would write: keys in the usual order, CEL in literal
blocks (long lines broken where CEL allows), long messages folded, a comment above each object
naming its source. The text is read back and compared with the data before it is returned:
what is written is exactly what was converted."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, FoldedScalarString, LiteralScalarString

from vap_lsp.convert.cel_text import reflow
from vap_lsp.convert.model import Emitted

# The CEL fields of a ValidatingAdmissionPolicy (`admissionregistration/v1` types).
_CEL_KEYS = frozenset({"expression", "messageExpression", "valueExpression"})
_FOLD_KEYS = frozenset({"message", "description"})
_WIDTH = 96
# Keys first in this order (as `kubectl` and the Kubernetes docs write them), the rest after.
_ORDER = (
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "spec",
    "data",
    "policyName",
    "paramKind",
    "paramRef",
    "failurePolicy",
    "validationActions",
    "matchConstraints",
    "matchResources",
    "matchConditions",
    "variables",
    "validations",
    "auditAnnotations",
    "apiGroups",
    "apiVersions",
    "operations",
    "resources",
    "resourceNames",
    "group",
    "names",
    "scope",
    "versions",
    "key",
    "operator",
    "values",
    "expression",
    "message",
    "messageExpression",
    "reason",
)


def _sorted_keys(data: Mapping[str, Any]) -> list[str]:
    rank = {k: i for i, k in enumerate(_ORDER)}
    return sorted(data, key=lambda k: (rank.get(k, len(_ORDER)), 0))


def _fold(text: str) -> str | FoldedScalarString:
    """A long one-line message folded at single spaces (YAML folding reads them back as spaces)."""
    if len(text) <= _WIDTH or "\n" in text or text != text.strip() or "  " in text:
        return text
    positions: list[int] = []
    start = 0
    last = -1
    for i, c in enumerate(text):
        if c != " ":
            continue
        if i - start > _WIDTH and last > start:
            positions.append(last)
            start = last + 1
        last = i
    if len(text) - start > _WIDTH and last > start:
        positions.append(last)
    if not positions:
        return text
    folded: FoldedScalarString = FoldedScalarString(text)
    setattr(folded, "fold_pos", positions)  # noqa: B010 - ruamel reads this attribute, undeclared
    return folded


def _styled(value: Any, key: str | None = None) -> Any:
    if isinstance(value, Mapping):
        out = CommentedMap()
        for k in _sorted_keys(value):
            out[k] = _styled(value[k], k)
        return out
    if isinstance(value, Sequence) and not isinstance(value, str):
        seq = CommentedSeq(_styled(v) for v in value)
        if value and all(isinstance(v, str) and len(v) < 40 for v in value) and len(value) <= 6:
            seq.fa.set_flow_style()  # short lists of names, as `[CREATE, UPDATE]`
        return seq
    if isinstance(value, str) and key in _CEL_KEYS:
        text = reflow(value, _WIDTH)
        return LiteralScalarString(text) if text.strip() else value
    if isinstance(value, str) and key in _FOLD_KEYS:
        return _fold(value)
    if isinstance(value, str) and (value == "" or value.startswith("*")):
        return DoubleQuotedScalarString(value)  # `[""]`, `["*"]`, as Kubernetes' docs write them
    return value


def _yaml() -> YAML:
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    return yaml


def _same(a: Any, b: Any) -> bool:
    """Equal as data; a reflowed CEL expression equals its source up to spaces and line breaks."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a == b or a.split() == b.split()
    return bool(a == b) and type(a) is type(b)


def render(objects: Sequence[Emitted]) -> str:
    """One YAML stream with every object, each under its comment."""
    documents = []
    for emitted in objects:
        doc = _styled(emitted.data)
        doc.yaml_set_start_comment(emitted.comment)
        documents.append(doc)
    buffer = io.StringIO()
    _yaml().dump_all(documents, buffer)
    text = buffer.getvalue()
    read_back = list(YAML(typ="safe", pure=True).load_all(text))
    expected = [e.data for e in objects]
    if not _same(read_back, expected):  # never expected: write the plain data rather than guess
        buffer = io.StringIO()
        plain = []
        for emitted in objects:
            doc = CommentedMap(emitted.data)
            doc.yaml_set_start_comment(emitted.comment)
            plain.append(doc)
        _yaml().dump_all(plain, buffer)
        text = buffer.getvalue()
    return text
