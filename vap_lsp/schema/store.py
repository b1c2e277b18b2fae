"""Loader for the generated per-version Kubernetes schemas (see schemas/README.md).

Everything is lazy: importing this module reads nothing; a `SchemaSet` reads its small `rest.json`
when asked about REST mapping and kinds, its `index.json` on the first definition lookup, and then
only the gzip shard (one API group-version) that holds the requested definition. Shards are
content-addressed and shared between versions, so they are cached once per process.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

JsonDict = dict[str, Any]

_ENV_DIR = "VAP_LSP_SCHEMA_DIR"
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$")
_SHARD_DIR = "_shards"


@dataclass(frozen=True)
class Subresource:
    """A subresource and the kind it serves (deployments/scale serves autoscaling/v1 Scale)."""

    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resource:
    """One REST resource of a served group-version, as the RESTMapper knows it."""

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ()
    subresources: Mapping[str, Subresource] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _data_root() -> Traversable:
    """Installed wheel: vap_lsp/_schemas; editable/dev checkout: <repo>/schemas."""
    env = os.environ.get(_ENV_DIR)
    if env:
        return Path(env)
    try:
        packaged = files("vap_lsp") / "_schemas"
        if packaged.is_dir():
            return packaged
    except (ModuleNotFoundError, FileNotFoundError):  # pragma: no cover - defensive
        pass
    import vap_lsp

    return Path(vap_lsp.__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=1)
def _root() -> Traversable:
    return _data_root()


def _vkey(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


@lru_cache(maxsize=1)
def _versions() -> tuple[str, ...]:
    root = _root()
    found = [
        p.name
        for p in root.iterdir()
        if re.fullmatch(r"\d+\.\d+", p.name) and p.is_dir() and p.joinpath("rest.json").is_file()
    ]
    return tuple(sorted(found, key=_vkey))


def available_versions() -> list[str]:
    """Kubernetes minor versions with schemas, oldest first ("1.30" ... "1.38")."""
    return list(_versions())


@lru_cache(maxsize=64)
def prerelease(version: str) -> str | None:
    """The pre-release a version's schema comes from (`v1.38.0-beta.0`), None for a release."""
    provenance = get_schema_set(version).provenance
    return str(provenance["release"]) if provenance.get("prerelease") else None


def default_version() -> str:
    """The newest version whose schema comes from a release (a beta is only used when asked for)."""
    versions = _versions()
    if not versions:
        raise RuntimeError(f"no Kubernetes schemas found under {_root()}")
    released = [v for v in versions if prerelease(v) is None]
    return (released or list(versions))[-1]


def normalize_version(s: str) -> str:
    """ "1.33", "v1.33", "1.33.2" -> "1.33"; ValueError naming the available versions otherwise."""
    m = _VERSION_RE.match(s.strip())
    available = _versions()
    if m:
        v = f"{int(m.group(1))}.{int(m.group(2))}"
        if v in available:
            return v
    raise ValueError(
        f"unsupported Kubernetes version {s!r}; available versions: {', '.join(available) or '(none)'}"
    )


_shard_lock = threading.Lock()
_shards: dict[str, JsonDict] = {}


def _load_shard(fname: str) -> JsonDict:
    with _shard_lock:
        shard = _shards.get(fname)
        if shard is None:
            data = _root().joinpath(_SHARD_DIR, fname).read_bytes()
            shard = cast(JsonDict, json.loads(gzip.decompress(data)))
            _shards[fname] = shard
        return shard


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


class SchemaSet:
    """The schemas of one Kubernetes minor version. Returned dicts are shared: do not mutate them."""

    def __init__(self, version: str) -> None:
        self.version = version
        self._lock = threading.Lock()
        self._rest: JsonDict | None = None
        self._index: dict[str, str] | None = None
        self._resources: list[Resource] | None = None

    # ---- lazy files -------------------------------------------------------------------------

    def _rest_data(self) -> JsonDict:
        with self._lock:
            if self._rest is None:
                text = _root().joinpath(self.version, "rest.json").read_text(encoding="utf-8")
                self._rest = cast(JsonDict, json.loads(text))
            return self._rest

    def _index_data(self) -> dict[str, str]:
        with self._lock:
            if self._index is None:
                text = _root().joinpath(self.version, "index.json").read_text(encoding="utf-8")
                self._index = cast(dict[str, str], json.loads(text)["definitions"])
            return self._index

    @property
    def provenance(self) -> JsonDict:
        """Where this version's data came from (derived versions say what was inferred)."""
        return cast(JsonDict, self._rest_data().get("provenance", {}))

    # ---- definitions --------------------------------------------------------------------------

    def definition_names(self) -> list[str]:
        return sorted(self._index_data())

    def definition(self, name: str) -> JsonDict | None:
        """A definition by its OpenAPI name (io.k8s.api.admissionregistration.v1.Validation)."""
        fname = self._index_data().get(name)
        if fname is None:
            return None
        d = _load_shard(fname).get(name)
        return cast(JsonDict, d) if isinstance(d, dict) else None

    def resolve(self, schema: JsonDict) -> JsonDict:
        """Follow `$ref`s; siblings of a `$ref` (field description, default) override the target's.

        Safe on cycles and on unknown names (returns what it has).
        """
        seen: set[str] = set()
        result = schema
        while isinstance(result.get("$ref"), str):
            ref = cast(str, result["$ref"])
            if ref in seen:
                break
            seen.add(ref)
            target = self.definition(ref)
            if target is None:
                break
            siblings = {k: v for k, v in result.items() if k != "$ref"}
            if siblings:
                merged = dict(target)
                merged.update(siblings)
                result = merged
            else:
                result = target
        return result

    def definition_for_kind(self, group: str, version: str, kind: str) -> str | None:
        """Definition name for a group/version/kind served by this version ("" is the core group)."""
        kinds = cast(dict[str, str], self._rest_data()["kinds"])
        return kinds.get(f"{_api_version(group, version)}/{kind}")

    # ---- REST mapping ---------------------------------------------------------------------------

    def _all_resources(self) -> list[Resource]:
        if self._resources is None:
            out: list[Resource] = []
            for r in self._rest_data()["resources"]:
                subs = {
                    name: Subresource(name, s["group"], s["version"], s["kind"], tuple(s.get("verbs", ())))
                    for name, s in sorted(r.get("subresources", {}).items())
                }
                out.append(
                    Resource(
                        group=r["group"],
                        version=r["version"],
                        resource=r["resource"],
                        kind=r["kind"],
                        namespaced=bool(r["namespaced"]),
                        verbs=tuple(r.get("verbs", ())),
                        subresources=MappingProxyType(subs),
                    )
                )
            self._resources = out
        return self._resources

    def resources(self, group: str | None = None) -> list[Resource]:
        """All resources, or those of one group ("" is core), sorted by group, version, resource."""
        return [r for r in self._all_resources() if group is None or r.group == group]

    def groups(self) -> dict[str, list[str]]:
        """Served group -> versions, preferred (kube-aware highest priority) first."""
        return {g: list(vs) for g, vs in self._rest_data()["groups"].items()}

    def served_kinds(self) -> set[tuple[str, str, str]]:
        """(group, version, kind) of every top-level resource (subresource-only kinds excluded)."""
        return {(r.group, r.version, r.kind) for r in self._all_resources()}

    def kinds_for(self, group: str, version: str, resource: str) -> list[tuple[str, str, str]]:
        """RESTMapper.KindsFor: kinds for group/version/resource; "*" matches any group or version.

        `resource` may be "resource/subresource", which yields the subresource's kind (deployments/scale
        -> autoscaling/v1 Scale). Matching is case-insensitive on the resource, like the RESTMapper.
        Results follow group order, then version preference.
        """
        res, _, sub = resource.lower().partition("/")
        prefs = self.groups()
        order = {g: i for i, g in enumerate(prefs)}
        found: list[tuple[tuple[int, int], tuple[str, str, str]]] = []
        for r in self._all_resources():
            if (group != "*" and r.group != group) or (version != "*" and r.version != version):
                continue
            if r.resource != res:
                continue
            if sub:
                s = r.subresources.get(sub)
                if s is None:
                    continue
                gvk = (s.group, s.version, s.kind)
            else:
                gvk = (r.group, r.version, r.kind)
            vs = prefs.get(r.group, [])
            rank = (order.get(r.group, len(order)), vs.index(r.version) if r.version in vs else len(vs))
            found.append((rank, gvk))
        out: list[tuple[str, str, str]] = []
        for _, gvk in sorted(found, key=lambda x: x[0]):
            if gvk not in out:
                out.append(gvk)
        return out

    def resource_for_kind(self, group: str, version: str, kind: str) -> Resource | None:
        """RESTMapping: the (first) resource serving exactly this group/version/kind."""
        for r in self._all_resources():
            if (r.group, r.version, r.kind) == (group, version, kind):
                return r
        return None


_sets_lock = threading.Lock()
_sets: dict[str, SchemaSet] = {}


def get_schema_set(version: str) -> SchemaSet:
    """The (cached) SchemaSet of a version; `version` is normalized ("v1.33.2" -> "1.33")."""
    v = normalize_version(version)
    with _sets_lock:
        s = _sets.get(v)
        if s is None:
            s = SchemaSet(v)
            _sets[v] = s
        return s
