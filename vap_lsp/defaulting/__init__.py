"""Objects as admission sees them: what kube-apiserver fills in before a policy runs.

Placed below `analysis` and `admission` (imports `schema` and `policy` only) so both the static
checks and offline admission read one model.

Query API (for guarantees and hover)::

    defaulted_fields(("apps", "v1", "Deployment"), "1.35")
        -> Mapping[tuple[str, ...], DefaultedField]     # path -> value/description/source
    defaulted_paths(("", "v1", "Pod"), "1.35") -> frozenset[tuple[str, ...]]

A path is relative to the object (`("spec", "replicas")`); `ITEM` (`"[*]"`) stands for every item
of a list and `VALUE` (`"{*}"`) for every value of a map, so
`("spec", "containers", "[*]", "imagePullPolicy")` says: every container has an
imagePullPolicy after defaulting. A path is listed when the field is set whenever its parent
exists: check the prefixes for a chain (`("spec",)` is listed for a Deployment because the
OpenAPI default of `spec` is `{}`; `("spec", "strategy", "rollingUpdate")` is not, it depends on
the strategy type). `DefaultedField.value` is the JSON default (None when it depends on the
object, e.g. imagePullPolicy), `description` says it in words, `source` names the Go defaulter
(`SetDefaults_PodSpec (core/v1)`) or `OpenAPI default`. Unknown kinds give an empty mapping.
Custom resources: `crd_defaulted_fields(openapi_v3_schema)` (same shape).

Defaulting itself: `default_object(obj, version, crd_schema=None)` returns a `Defaulted` (a
defaulted deep copy and a note when nothing is known about the kind); it never raises, values
of the wrong type stay as written. A built-in object is also converted to its internal version
and back, as admission reads it (`conversion`: `serviceAccount` mirrors `serviceAccountName`, a
Secret's `stringData` is merged into `data`, …).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from vap_lsp.defaulting.builtin import ITEM, VALUE, DefaultedField, builtin_fields, default_builtin
from vap_lsp.defaulting.conversion import round_trip
from vap_lsp.defaulting.crd import crd_fields, default_custom
from vap_lsp.defaulting.omitempty import drop_empty_optional
from vap_lsp.defaulting.rules import copy_json
from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import recognise
from vap_lsp.schema import get_schema_set, normalize_version

__all__ = [
    "ITEM",
    "VALUE",
    "Defaulted",
    "DefaultedField",
    "crd_defaulted_fields",
    "default_object",
    "defaulted_fields",
    "defaulted_paths",
]

GVK = tuple[str, str, str]


@lru_cache(maxsize=1024)
def _definition(kubernetes_version: str, api_version: str, kind: str) -> tuple[str, str | None]:
    """(normalized version, definition of the kind): once per kind, admission defaults every object."""
    normalized = normalize_version(kubernetes_version)
    group, _, version = api_version.rpartition("/")
    return normalized, get_schema_set(normalized).definition_for_kind(group, version, kind)


def defaulted_fields(gvk: GVK, kubernetes_version: str) -> Mapping[tuple[str, ...], DefaultedField]:
    """Fields of a built-in kind set by the server's defaulting whenever their parent exists."""
    try:
        version = normalize_version(kubernetes_version)
    except ValueError:
        return {}
    definition = get_schema_set(version).definition_for_kind(*gvk)
    if definition is None:
        return {}
    return builtin_fields(definition, version)


def defaulted_paths(gvk: GVK, kubernetes_version: str) -> frozenset[tuple[str, ...]]:
    """The paths of `defaulted_fields`."""
    return frozenset(defaulted_fields(gvk, kubernetes_version))


def crd_defaulted_fields(schema: Mapping[str, Any]) -> Mapping[tuple[str, ...], DefaultedField]:
    """Fields of a custom resource (its version's `openAPIV3Schema`) set by a `default`."""
    return crd_fields(schema)


@dataclass(frozen=True)
class Defaulted:
    object: dict[str, Any]
    """A defaulted deep copy."""
    note: str | None = None
    """Why nothing was defaulted (no schema for the kind), for the user."""


def default_object(
    obj: dict[str, Any], kubernetes_version: str, crd_schema: Mapping[str, Any] | None = None
) -> Defaulted:
    """`obj` as kube-apiserver `kubernetes_version` decodes it: defaulted (built-in kinds), or
    pruned and defaulted by `crd_schema` (the served version's openAPIV3Schema of its CRD)."""
    out = copy_json(obj)
    api_version, kind = out.get("apiVersion"), out.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return Defaulted(out)
    normalized, definition = _definition(kubernetes_version, api_version, kind)
    if definition is not None:
        default_builtin(out, definition, normalized)
        round_trip(out, api_version.rpartition("/")[0], kind)
        drop_empty_optional(out, definition, normalized)
        recognised = recognise(api_version, kind)
        if recognised is not None:
            out = apply_defaults(recognised[0], api_version, out)
        return Defaulted(out)
    if crd_schema is not None:
        default_custom(out, crd_schema)
        return Defaulted(out)
    return Defaulted(out, f"no schema for {api_version} {kind}: evaluated as written, without defaulting")
