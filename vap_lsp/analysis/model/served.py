"""Which Kubernetes version's schema a policy object is checked and typed against.

The selected version may not serve the object's apiVersion (a `v1beta1` policy on a version
that dropped it): then the nearest version that serves it stands in, and the server-validation
check says so (`not-served`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from vap_lsp.schema.store import SchemaSet, available_versions, get_schema_set

__all__ = ["ServedSchema", "select_schema"]


@dataclass(frozen=True)
class ServedSchema:
    schema_set: SchemaSet
    # The Kubernetes version whose schema is used; differs from the selected one when the
    # selected version does not serve the object's apiVersion.
    version: str


def _serves(schema_set: SchemaSet, group: str, version: str, kind: str) -> bool:
    return schema_set.definition_for_kind(group, version, kind) is not None


@functools.lru_cache(maxsize=256)
def select_schema(selected: str, group: str, version: str, kind: str) -> tuple[ServedSchema, list[str]]:
    """The schema to check against and the Kubernetes versions that serve this kind at all."""
    schema_set = get_schema_set(selected)
    serving = [v for v in available_versions() if _serves(get_schema_set(v), group, version, kind)]
    if selected in serving or not serving:
        return ServedSchema(schema_set, selected), serving
    # Nearest serving version: the newest older one, else the oldest newer one.
    older = [v for v in serving if _vkey(v) < _vkey(selected)]
    nearest = older[-1] if older else serving[0]
    return ServedSchema(get_schema_set(nearest), nearest), serving


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))
