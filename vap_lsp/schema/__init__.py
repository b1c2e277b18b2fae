"""Kubernetes API schemas per version: REST mapping, type definitions and structural checking.

Importing this package reads no data; see `store` for the lazy loader.
"""

from vap_lsp.schema.store import (
    Resource,
    SchemaSet,
    Subresource,
    available_versions,
    default_version,
    get_schema_set,
    normalize_version,
)

__all__ = [
    "Resource",
    "SchemaSet",
    "Subresource",
    "available_versions",
    "default_version",
    "get_schema_set",
    "normalize_version",
]
