"""Scalar resolution exactly as kubectl sends it to the API server.

kubectl (and client-go) convert YAML to JSON with sigs.k8s.io/yaml, which decodes with go-yaml
v2 (its fork `sigs.k8s.io/yaml/goyaml.v2`). That is YAML 1.1 resolution, not ruamel's YAML 1.2,
so `on: yes` really becomes `{true: true}` in the cluster. This module mirrors go-yaml v2's
`resolve.go`:

* the lookup table: `y Y yes Yes YES true True TRUE on On ON` -> True, `n N no No NO false False
  FALSE off Off OFF` -> False (yes, v2 lists the single letters `y`/`n` too), `"" ~ null Null
  NULL` -> None, `.inf/.Inf/.INF` (optionally signed) and `.nan/.NaN/.NAN` -> float;
* otherwise, only when the first character is a digit or sign (or `.`): after removing every
  `_`, Go's `strconv.ParseInt(s, 0, 64)` (so `0x1F`, `0o17`, `017` octal, `0b101`, signs), then
  `ParseUint`, then a float matching `^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
  (a float that overflows is a parse error in Go, so it stays a string), then `0b`/`-0b`;
* timestamps are resolved by go-yaml but handed to `interface{}` as the original string, so
  they stay strings here;
* everything else is a string. Quoted and block scalars are strings unless explicitly tagged;
  explicit `!!str`, `!!int`, `!!bool`, `!!float`, `!!null` are honoured (an `!!int` that does not
  parse is left as the string, where go-yaml would fail the whole decode; an `!!float` of an
  integer becomes a float as in go-yaml); any other tag leaves the text as a string.
"""

from __future__ import annotations

import math
import re
from typing import Any

from vap_lsp.golang.strconv import parse_float, parse_int, parse_uint
from vap_lsp.yaml.model import ScalarNode, ScalarStyle

__all__ = ["canonical_tag", "resolve_plain", "resolve_scalar"]

_RESOLVE_MAP: dict[str, Any] = {}
for _v, _words in (
    (True, ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")),
    (False, ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")),
    (None, ("", "~", "null", "Null", "NULL")),
    (math.nan, (".nan", ".NaN", ".NAN")),
    (math.inf, (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")),
    (-math.inf, ("-.inf", "-.Inf", "-.INF")),
):
    for _w in _words:
        _RESOLVE_MAP[_w] = _v

# go-yaml's resolveTable hints by first character.
_HINT_MAP = set("yYnNtTfFoO~")
_HINT_NUMBER = set("+-0123456789")

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")


_CORE = "tag:yaml.org,2002:"


def canonical_tag(tag: str | None) -> str | None:
    """`!!int`, `!<tag:yaml.org,2002:int>` -> `tag:yaml.org,2002:int`; others unchanged."""
    if tag is None:
        return None
    if tag.startswith("!<") and tag.endswith(">"):
        return tag[2:-1]
    if tag.startswith("!!"):
        return _CORE + tag[2:]
    return tag


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar the way go-yaml v2 does (see module docstring)."""
    if value in _RESOLVE_MAP:
        return _RESOLVE_MAP[value]
    first = value[0]
    if first == ".":
        if _DOT_FLOAT.fullmatch(value):
            f = parse_float(value)
            if f is not None:
                return f
        return value
    if first not in _HINT_NUMBER:
        return value
    plain = value.replace("_", "")
    if not plain:
        return value
    i = parse_int(plain)
    if i is None:
        i = parse_uint(plain)
    if i is not None:
        return i
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        f = parse_float(plain)
        if f is not None:
            return f
    return value


def resolve_scalar(node: ScalarNode) -> Any:
    """The JSON value kubectl would send for this scalar (YAML 1.1 rules of go-yaml v2)."""
    tag = canonical_tag(node.tag)
    value = node.value
    if tag is None or tag == "!":
        if tag is None and node.style is ScalarStyle.PLAIN:
            return resolve_plain(value)
        return value
    if tag == _CORE + "str":
        return value
    if tag == _CORE + "null":
        return None
    if tag == _CORE + "bool":
        v = _RESOLVE_MAP.get(value)
        return v if isinstance(v, bool) else value
    if tag == _CORE + "int":
        r = resolve_plain(value) if value else value
        return r if isinstance(r, int) and not isinstance(r, bool) else value
    if tag == _CORE + "float":
        r = resolve_plain(value) if value else value
        if isinstance(r, bool):
            return value
        if isinstance(r, (int, float)):
            return float(r)
        return value
    return value
