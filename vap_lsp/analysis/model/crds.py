"""CRDs from outside the checked files, and a CRD schema as the API server publishes it.

`load_crds` reads `--crd` paths and the `vapLsp.crds` setting (files, folders, globs,
`kubectl get crd -o yaml` List output) into plain CRD objects and their versions; the CLI, the
server and the admission runner hand its result to a `WorkspaceIndex` (`set_external_crds`) or
to admission inputs. Precedence (README "CRD schemas"): built-in kinds, then CRDs in the checked
files / workspace, then these, in the order given.

`published_schema` is what the type checker really types `object` from: it resolves CRDs through
OpenAPI v3 discovery, whose documents the apiextensions builder makes from the CRD schema by
setting `metadata` to the full ObjectMeta and adding `apiVersion`/`kind` at the root and in every
`x-kubernetes-embedded-resource` (`controller/openapi/builder/builder.go` `buildKubeNative`,
`addEmbeddedProperties`). Typing the raw schema instead would hide `metadata.labels`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vap_lsp.analysis.files import GLOB_CHARS, collect_files, expand_glob, read_text
from vap_lsp.analysis.model.crd_validation import validate_crd
from vap_lsp.analysis.model.objects import CRD_API_GROUP
from vap_lsp.lru import LruCache
from vap_lsp.yaml.model import ExpansionLimit, to_python

V1 = CRD_API_GROUP + "/v1"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_OBJECT_META_REF: Mapping[str, Any] = {
    "$ref": OBJECT_META,
    "description": "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
}
_API_VERSION: Mapping[str, Any] = {
    "type": "string",
    "description": "APIVersion defines the versioned schema of this representation of an object.",
}
_KIND: Mapping[str, Any] = {
    "type": "string",
    "description": "Kind is a string value representing the REST resource this object represents.",
}


@dataclass(frozen=True)
class CRDVersion:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    schema: Mapping[str, Any] | None
    # Only served versions are in the server's REST mapping and OpenAPI discovery, so only they
    # type `object`/`params`; the others still help to say "this CRD exists under another version".
    served: bool = True


def crd_versions(data: Mapping[str, Any]) -> list[CRDVersion]:
    """Each version of a CRD given as plain data (v1, or v1beta1's top-level validation)."""
    spec = data.get("spec")
    if not isinstance(spec, Mapping):
        return []
    group, names = spec.get("group"), spec.get("names")
    if not isinstance(group, str) or not isinstance(names, Mapping):
        return []
    kind, plural = names.get("kind"), names.get("plural")
    if not isinstance(kind, str) or not isinstance(plural, str):
        return []
    namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    out: list[CRDVersion] = []
    versions = spec.get("versions")
    for v in versions if isinstance(versions, list) else []:
        if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
            continue
        schema = v.get("schema")
        # v1beta1 CRDs keep one schema under spec.validation.
        if not isinstance(schema, Mapping):
            schema = spec.get("validation")
        open_api = schema.get("openAPIV3Schema") if isinstance(schema, Mapping) else None
        out.append(
            CRDVersion(
                group,
                v["name"],
                kind,
                plural.lower(),
                namespaced,
                open_api if isinstance(open_api, Mapping) else None,
                v.get("served") is not False,
            )
        )
    return out


def _with_type_meta(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = dict(schema.get("properties") or {})
    props["apiVersion"] = _API_VERSION
    props["kind"] = _KIND
    props["metadata"] = _OBJECT_META_REF
    return {**schema, "properties": props}


def _embedded(schema: Any) -> Any:
    """`addEmbeddedProperties`: recurse through properties, items and additionalProperties."""
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    props = schema.get("properties")
    if isinstance(props, Mapping):
        out["properties"] = {k: _embedded(v) for k, v in props.items()}
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), Mapping):
            out[key] = _embedded(schema[key])
    if schema.get("x-kubernetes-embedded-resource") is True:
        out = _with_type_meta(out)
    return out


def published_schema(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The CRD version's schema as OpenAPI v3 discovery serves it (root and embedded resources
    get `apiVersion`, `kind` and the full ObjectMeta)."""
    return _with_type_meta(_embedded(schema))


@dataclass
class LoadedCRDs:
    """CRDs read from files given outside the checked set."""

    documents: list[dict[str, Any]] = field(default_factory=list)
    """The CRD objects as plain data (what admission inputs take)."""
    versions: list[CRDVersion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """`path: message` for what cannot be used: missing or unreadable paths, broken YAML, a file
    named explicitly that holds no CRD."""
    findings: list[str] = field(default_factory=list)
    """What the API server would say about a CRD read (`path: CustomResourceDefinition name:
    error: …`); the schema is used anyway."""
    files: list[Path] = field(default_factory=list)


def expand_paths(patterns: Iterable[str], root: Path | None = None) -> tuple[list[Path], list[str]]:
    """Paths and globs (`**` recursive), relative ones against `root`; a pattern that matches
    nothing is a problem when it is a plain path (a glob may legitimately match nothing yet)."""
    out: list[Path] = []
    problems: list[str] = []
    for pattern in patterns:
        path = Path(pattern).expanduser()
        if root is not None and not path.is_absolute():
            path = root / path
        if GLOB_CHARS & set(pattern):
            out.extend(expand_glob(path, problems))
        elif path.exists():
            out.append(path)
        else:
            problems.append(f"{pattern}: no such file or directory")
    return out, problems


def list_items(data: Any, depth: int = 0) -> list[Any]:
    """`kind: List` / `CustomResourceDefinitionList` (kubectl get -o yaml) → its items; an item of
    a typed list without apiVersion and kind is of the list's item kind (apimachinery's
    `decodeToList`, as `objects.find_objects` reads it)."""
    if isinstance(data, dict) and str(data.get("kind", "")).endswith("List") and depth < 4:
        items = data.get("items")
        if isinstance(items, list):
            item_kind = str(data.get("kind")).removesuffix("List")
            implied = {"apiVersion": data.get("apiVersion"), "kind": item_kind} if item_kind else None
            return [x for item in items for x in list_items(_typed(item, implied), depth + 1)]
    return [data]


def _typed(item: Any, implied: dict[str, Any] | None) -> Any:
    if implied is None or not isinstance(item, dict) or "apiVersion" in item or "kind" in item:
        return item
    return {**implied, **item}


def is_crd(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and data.get("kind") == "CustomResourceDefinition"
        and str(data.get("apiVersion", "")).startswith(CRD_API_GROUP + "/")
    )


def _read_documents(path: Path, problems: list[str]) -> list[Any]:
    text = read_text(path, problems)
    if text is None:
        return []
    # Imported here: the server creates its index (which holds CRDVersions) before it parses YAML.
    from vap_lsp.yaml.parse import parse_yaml

    parsed = parse_yaml(text)
    out: list[Any] = []
    for doc in parsed.documents:
        if doc.root is None:
            continue
        try:
            out.append(to_python(doc.root, budget=1_000_000))
        except ExpansionLimit as exc:
            problems.append(f"{path}: document {doc.index + 1}: {exc}")
    if parsed.problems and not out:
        problems.append(f"{path}: {parsed.problems[0].message}")
    return out


@dataclass(frozen=True)
class _FileCRDs:
    documents: tuple[dict[str, Any], ...]
    versions: tuple[CRDVersion, ...]
    findings: tuple[str, ...]
    problems: tuple[str, ...]


# Re-reading after one file changed (the server's watchers) parses only that file again; the
# unchanged ones keep their CRDVersion objects, so their CEL types stay cached too.
_FILE_CACHE: LruCache[tuple[str, int, int], _FileCRDs] = LruCache(512)


def _load_file(path: Path) -> _FileCRDs:
    try:
        stat = path.stat()
        key: tuple[str, int, int] | None = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except OSError:
        key = None
    hit = _FILE_CACHE.get(key) if key is not None else None
    if hit is not None:
        return hit
    problems: list[str] = []
    documents: list[dict[str, Any]] = []
    versions: list[CRDVersion] = []
    findings: list[str] = []
    for doc in _read_documents(path, problems):
        for item in list_items(doc):
            if not is_crd(item):
                continue
            documents.append(item)
            versions.extend(crd_versions(item))
            name = (
                (item.get("metadata") or {}).get("name") if isinstance(item.get("metadata"), dict) else None
            )
            # v1beta1 (not served since 1.22) had other rules: its schema is used, unjudged.
            issues = validate_crd(item) if item.get("apiVersion") == V1 else []
            for error in issues:
                findings.append(
                    f"{path}: CustomResourceDefinition {name}: {error.severity}: {error.message()}"
                )
    loaded = _FileCRDs(tuple(documents), tuple(versions), tuple(findings), tuple(problems))
    if key is not None and not problems:
        _FILE_CACHE.put(key, loaded)
    return loaded


def load_crds(paths: Sequence[str | Path], *, root: Path | None = None) -> LoadedCRDs:
    """CRDs from files, folders (recursing into *.yaml/*.yml), globs, and List documents.

    Other objects in those files are ignored; a file named explicitly that holds no CRD is a
    problem. Each CRD is validated as the API server would on create (`crd_validation`); its
    schema is used anyway, since the user says it is what the cluster serves.
    """
    result = LoadedCRDs()
    given, result.problems = expand_paths([str(p) for p in paths], root)
    for base in given:
        explicit = base.is_file()
        for path in collect_files([str(base)], result.problems):
            if path in result.files:
                continue
            result.files.append(path)
            loaded = _load_file(path)
            result.documents.extend(loaded.documents)
            result.versions.extend(loaded.versions)
            result.findings.extend(loaded.findings)
            result.problems.extend(loaded.problems)
            if explicit and not loaded.documents and not loaded.problems:
                result.problems.append(f"{path}: no CustomResourceDefinition in the file")
    return result
