#!/usr/bin/env python3
"""Generate vap-lsp's compact per-version Kubernetes schemas (see schemas/README.md).

Inputs:
  * ``--openapi DIR``: kube-apiserver OpenAPI v3 documents, ``DIR/<major.minor>/api/v1.json`` and
    ``DIR/<major.minor>/apis/<group>/<version>.json`` (1.30 ... 1.35). These are the ground truth.
  * ``--release DIR`` (optional, repeatable): a ``k8s.io/kubernetes`` release as the Go module proxy
    serves it (``go mod download -json k8s.io/kubernetes@v1.38.0-beta.0`` prints its ``Dir``,
    ``.../k8s.io/kubernetes@v1.38.0-beta.0``): its ``api/openapi-spec/v3`` holds the OpenAPI v3
    documents of that release (the same documents kubectl-validate captured for 1.30-1.35: for 1.35
    they are byte-identical). The version is read from the folder's name; a pre-release (beta, rc)
    is marked as such in ``provenance`` and never becomes vap-lsp's default version.
  * ``--kubernetes-validate PATH`` (optional): the ``kubernetes-validate`` wheel (or an unpacked tree
    containing ``kubernetes-json-schema/``). Kubernetes versions the package has but the OpenAPI folder
    lacks (1.36, 1.37) are *derived*: types from the package's ``_definitions.json`` (carrying the
    richer 1.35 OpenAPI v3 form wherever the package shows a definition or property unchanged since
    1.35), REST mapping from the newest OpenAPI version plus the group-versions/kinds the package
    adds or drops.

Output (deterministic, idempotent):
  * ``OUT/<ver>/rest.json``: resources, kinds, groups, provenance.
  * ``OUT/<ver>/index.json``: definition name -> shard file name.
  * ``OUT/_shards/<key>-<hash>.json.gz``: content-addressed shards of definitions, shared by all
    versions whose shard content is identical.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import re
import sys
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

JSON = Any
Defs = dict[str, JSON]

FORMAT_VERSION = 1
SHARD_DIR = "_shards"
REF_PREFIX_V3 = "#/components/schemas/"
KEEP_KEYS = frozenset(
    {
        "type",
        "format",
        "description",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "enum",
        "default",
        "nullable",
        "oneOf",
        "anyOf",
        "allOf",
        "$ref",
    }
)
STANDARD_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
ACTION_VERBS = {
    "get": "get",
    "list": "list",
    "watch": "watch",
    "watchlist": "watch",
    "post": "create",
    "put": "update",
    "patch": "patch",
    "delete": "delete",
    "deletecollection": "deletecollection",
}
CONNECT_VERBS = {"get": "get", "post": "create", "put": "update", "patch": "patch", "delete": "delete"}


# --------------------------------------------------------------------------------------------
# Definition conversion
# --------------------------------------------------------------------------------------------


def _ref_name(ref: str) -> str:
    """Definition name from any of the $ref spellings we meet."""
    for marker in (REF_PREFIX_V3, "#/$defs/", "#/definitions/"):
        i = ref.find(marker)
        if i >= 0:
            return ref[i + len(marker) :]
    raise ValueError(f"unsupported $ref {ref!r}")


def convert_schema(node: JSON, *, drop_null_type: bool = False) -> JSON:
    """OpenAPI/JSON-schema node -> our compact form (whitelisted keys, short $refs, no allOf wrappers)."""
    if isinstance(node, list):
        return [convert_schema(x, drop_null_type=drop_null_type) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, JSON] = {}
    for key, value in node.items():
        if not (key in KEEP_KEYS or key.startswith("x-kubernetes-")):
            continue
        if key == "$ref":
            out["$ref"] = _ref_name(value)
        elif key == "properties":
            out["properties"] = {
                k: convert_schema(v, drop_null_type=drop_null_type) for k, v in value.items()
            }
        elif key == "type" and isinstance(value, list):
            types = [t for t in value if not (drop_null_type and t == "null")]
            out["type"] = types[0] if len(types) == 1 else types
        elif key in ("items", "additionalProperties", "oneOf", "anyOf", "allOf"):
            out[key] = convert_schema(value, drop_null_type=drop_null_type)
        else:
            out[key] = value
    allof = out.get("allOf")
    if isinstance(allof, list) and len(allof) == 1 and set(allof[0]) == {"$ref"} and "$ref" not in out:
        del out["allOf"]
        out["$ref"] = allof[0]["$ref"]
    return out


_SPEC_FILE = re.compile(r"(?:api__(v1)|apis__([^_]+(?:_[^_]+)*)__([a-z0-9]+))_openapi\.json")
_RELEASE_DIR = re.compile(r".*@v(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.]+)?")


def release_of(module_dir: Path) -> tuple[str, str]:
    """(`1.38`, `v1.38.0-beta.0`) of a `k8s.io/kubernetes@v1.38.0-beta.0` module folder."""
    m = _RELEASE_DIR.fullmatch(module_dir.name)
    if m is None:
        raise SystemExit(f"{module_dir}: expected a k8s.io/kubernetes@vX.Y.Z module folder")
    return f"{m.group(1)}.{m.group(2)}", "v" + module_dir.name.split("@v", 1)[1]


def load_release_spec(module_dir: Path) -> tuple[Defs, list[tuple[str, str, JSON]]]:
    """`load_openapi_version` of a release's `api/openapi-spec/v3` (one file per group-version,
    `apis__<group>__<version>_openapi.json`; the group and root discovery documents skipped)."""
    docs: list[tuple[str, str, JSON]] = []
    for f in sorted((module_dir / "api" / "openapi-spec" / "v3").glob("*_openapi.json")):
        m = _SPEC_FILE.fullmatch(f.name)
        if m is None:
            continue
        group, version = ("", "v1") if m.group(1) else (m.group(2), m.group(3))
        docs.append((group, version, json.loads(f.read_text())))
    docs.sort(key=lambda d: (d[0] != "", d[0], d[1]))
    raw: Defs = {}
    for _g, _v, doc in docs:
        for name, schema in doc.get("components", {}).get("schemas", {}).items():
            raw.setdefault(name, schema)
    return {n: convert_schema(s) for n, s in sorted(raw.items())}, docs


def load_openapi_version(vdir: Path) -> tuple[Defs, list[tuple[str, str, JSON]]]:
    """All definitions and (group, version, document) triples of one OpenAPI v3 version folder."""
    docs: list[tuple[str, str, JSON]] = []
    core = vdir / "api" / "v1.json"
    if core.exists():
        docs.append(("", "v1", json.loads(core.read_text())))
    apis = vdir / "apis"
    for f in sorted(apis.glob("*/*.json")):
        docs.append((f.parent.name, f.stem, json.loads(f.read_text())))
    raw: Defs = {}
    for _g, _v, doc in docs:
        for name, schema in doc.get("components", {}).get("schemas", {}).items():
            if name in raw and raw[name] != schema:
                # Same definition in two documents must agree; keep the first, but say so.
                print(f"warning: {vdir.name}: {name} differs between documents", file=sys.stderr)
                continue
            raw.setdefault(name, schema)
    return {n: convert_schema(s) for n, s in sorted(raw.items())}, docs


# --------------------------------------------------------------------------------------------
# REST mapping
# --------------------------------------------------------------------------------------------


def _version_key(v: str) -> tuple[int, int, int]:
    """Kube-aware version priority (GA > beta > alpha; higher numbers first) as a sort key."""
    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", v)
    if not m:
        return (3, 0, 0)  # non-kube-like versions sort last
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0))


def sort_versions(versions: Iterable[str]) -> list[str]:
    return sorted(set(versions), key=lambda v: (_version_key(v), v))


def rest_from_docs(docs: list[tuple[str, str, JSON]]) -> list[dict[str, JSON]]:
    """Resources served by each group-version, read from the operations' GVK and action extensions."""
    resources: dict[tuple[str, str, str], dict[str, JSON]] = {}
    for group, version, doc in docs:
        prefix = f"/api/{version}/" if group == "" else f"/apis/{group}/{version}/"
        for path, ops in sorted(doc.get("paths", {}).items()):
            if not path.startswith(prefix):
                continue
            segs = [s for s in path[len(prefix) :].split("/") if s]
            if not segs or segs[0] == "watch":
                watch = True
                segs = segs[1:]
            else:
                watch = False
            if not segs:
                continue
            namespaced = False
            if len(segs) >= 3 and segs[0] == "namespaces" and segs[1] == "{namespace}":
                namespaced = True
                segs = segs[2:]
            resource = segs[0]
            sub = segs[2] if len(segs) >= 3 and segs[1] == "{name}" else None
            if len(segs) == 2 and segs[1] != "{name}":
                continue
            for method, op in sorted(ops.items()):
                if not isinstance(op, dict):
                    continue
                gvk = op.get("x-kubernetes-group-version-kind")
                action = op.get("x-kubernetes-action")
                if not gvk or not action:
                    continue
                if action == "connect":
                    verb = CONNECT_VERBS.get(method)
                else:
                    verb = "watch" if watch else ACTION_VERBS.get(action)
                key = (group, version, resource)
                entry = resources.setdefault(
                    key,
                    {
                        "group": group,
                        "version": version,
                        "resource": resource,
                        "kind": None,
                        "namespaced": False,
                        "subresources": {},
                        "verbs": set(),
                    },
                )
                if namespaced:
                    entry["namespaced"] = True
                if sub is None:
                    entry["kind"] = gvk["kind"]
                    if verb:
                        entry["verbs"].add(verb)
                else:
                    s = entry["subresources"].setdefault(
                        sub,
                        {
                            "group": gvk["group"],
                            "version": gvk["version"],
                            "kind": gvk["kind"],
                            "verbs": set(),
                        },
                    )
                    if verb:
                        s["verbs"].add(verb)
    out = []
    for key in sorted(resources):
        e = resources[key]
        if e["kind"] is None:
            continue  # only subresource paths, no object of its own
        e["verbs"] = sorted(e["verbs"])
        for s in e["subresources"].values():
            s["verbs"] = sorted(s["verbs"])
        out.append(e)
    return out


def kinds_from_defs(defs: Defs, served: set[tuple[str, str]]) -> dict[str, str]:
    """'apiVersion/Kind' -> definition name for every GVK of a served group-version."""
    kinds: dict[str, str] = {}
    for name in sorted(defs):
        for gvk in defs[name].get("x-kubernetes-group-version-kind", []):
            if (gvk["group"], gvk["version"]) not in served:
                continue
            api_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            kinds.setdefault(f"{api_version}/{gvk['kind']}", name)
    return kinds


def groups_of(resources: list[dict[str, JSON]]) -> dict[str, list[str]]:
    gv: dict[str, set[str]] = {}
    for r in resources:
        gv.setdefault(r["group"], set()).add(r["version"])
    return {g: sort_versions(vs) for g, vs in sorted(gv.items())}


# --------------------------------------------------------------------------------------------
# kubernetes-validate (1.36+) derivation
# --------------------------------------------------------------------------------------------


class KubernetesValidate:
    """Read access to the kubernetes-validate wheel or an unpacked tree."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sha256: str | None = None
        self._zip: zipfile.ZipFile | None = None
        if path.is_file():
            data = path.read_bytes()
            self.sha256 = hashlib.sha256(data).hexdigest()
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            self._names = self._zip.namelist()
        else:
            self._names = [str(p.relative_to(path)) for p in path.rglob("_definitions.json")]
        self.package_version = self._detect_version()

    def _detect_version(self) -> str:
        for n in self._names:
            m = re.search(r"kubernetes_validate-([0-9.]+)\.dist-info/", n)
            if m:
                return m.group(1)
        return "unknown"

    def versions(self) -> list[str]:
        vs = set()
        for n in self._names:
            m = re.search(r"kubernetes-json-schema/v(\d+\.\d+)\.0-local/_definitions\.json$", n)
            if m:
                vs.add(m.group(1))
        return sorted(vs, key=lambda v: tuple(int(x) for x in v.split(".")))

    def definitions(self, version: str) -> Defs:
        suffix = f"kubernetes-json-schema/v{version}.0-local/_definitions.json"
        for n in self._names:
            if n.endswith(suffix):
                text = self._zip.read(n) if self._zip else (self.path / n).read_bytes()
                doc = json.loads(text)
                return dict(doc.get("$defs") or doc.get("definitions") or {})
        raise KeyError(version)


def convert_kv_definition(schema: JSON) -> JSON:
    """kubernetes-validate form -> ours: no ["x","null"] type unions, no generated apiVersion/kind enums."""
    out = convert_schema(schema, drop_null_type=True)
    for prop in ("apiVersion", "kind"):
        p = out.get("properties", {}).get(prop)
        if isinstance(p, dict) and "x-kubernetes-group-version-kind" in out:
            p.pop("enum", None)
    return out


def derive_types(base_v3: Defs, kv_base: Defs, kv_cur: Defs) -> tuple[Defs, dict[str, list[str]]]:
    """Types for a version only kubernetes-validate covers.

    A definition the package shows unchanged since the base version keeps the base OpenAPI v3 form
    (with defaults and descriptions the package's conversion dropped); a changed definition is
    converted from the package, carrying base properties that are unchanged.
    """
    out: Defs = {}
    stats: dict[str, list[str]] = {"carried": [], "merged": [], "converted": []}
    for name in sorted(kv_cur):
        if name in kv_base and name not in base_v3:
            continue  # discovery-only types the apiserver's OpenAPI does not publish
        cur = kv_cur[name]
        if name in base_v3 and kv_base.get(name) == cur:
            out[name] = base_v3[name]
            stats["carried"].append(name)
            continue
        conv = convert_kv_definition(cur)
        if name in base_v3 and name in kv_base:
            base_props = base_v3[name].get("properties", {})
            kv_base_props = kv_base[name].get("properties", {})
            for p, ps in cur.get("properties", {}).items():
                if p in base_props and kv_base_props.get(p) == ps:
                    conv["properties"][p] = base_props[p]
            stats["merged"].append(name)
        else:
            stats["converted"].append(name)
        out[name] = conv
    return out, stats


def _is_resource_kind(defs: Defs, name: str) -> bool:
    """A top-level object kind (has metadata and a matching List type) in the same package."""
    props = defs[name].get("properties", {})
    return "metadata" in props and (name + "List") in defs


def _guess_plural(kind: str) -> str:
    """apimachinery's UnsafeGuessKindToResource."""
    k = kind.lower()
    if k.endswith("s"):
        return k + "es"
    if k.endswith("y"):
        return k[:-1] + "ies"
    return k + "s"


def derive_rest(
    prev_resources: list[dict[str, JSON]], kv_prev: Defs, kv_cur: Defs, defs: Defs
) -> tuple[list[dict[str, JSON]], list[str]]:
    """Previous version's resources adjusted by the kinds the package adds or removes."""

    def kind_gvks(kv: Defs) -> dict[tuple[str, str, str], str]:
        res: dict[tuple[str, str, str], str] = {}
        for name, s in kv.items():
            if not name.startswith("io.k8s.") or ".apimachinery." in name:
                continue
            for g in s.get("x-kubernetes-group-version-kind", []):
                res[(g["group"], g["version"], g["kind"])] = name
        return res

    prev_k = kind_gvks(kv_prev)
    cur_k = kind_gvks(kv_cur)
    notes: list[str] = []
    out: list[dict[str, JSON]] = []
    have: set[tuple[str, str, str]] = set()
    for r in prev_resources:
        gvk = (r["group"], r["version"], r["kind"])
        if gvk in prev_k and gvk not in cur_k:
            notes.append(f"removed {r['group']}/{r['version']} {r['resource']} (kind {r['kind']} gone)")
            continue
        out.append(json.loads(json.dumps(r)))
        have.add(gvk)
    by_group_kind: dict[tuple[str, str], dict[str, JSON]] = {}
    for r in prev_resources:
        by_group_kind.setdefault((r["group"], r["kind"]), r)
    for gvk in sorted(set(cur_k) - set(prev_k)):
        g, v, k = gvk
        name = cur_k[gvk]
        if gvk in have or not _is_resource_kind(kv_cur, name):
            continue
        like = by_group_kind.get((g, k))
        if like is not None:
            subs = {}
            for sname, s in like["subresources"].items():
                s2 = dict(s)
                if (s["group"], s["version"], s["kind"]) == (like["group"], like["version"], like["kind"]):
                    s2["version"] = v
                subs[sname] = s2
            entry = {
                "group": g,
                "version": v,
                "resource": like["resource"],
                "kind": k,
                "namespaced": like["namespaced"],
                "subresources": subs,
                "verbs": list(like["verbs"]),
            }
            notes.append(
                f"added {g}/{v} {like['resource']} "
                f"(kind {k}; plural/scope/subresources from {like['version']})"
            )
        else:
            plural = _guess_plural(k)
            subs = {}
            if "status" in defs.get(name, {}).get("properties", {}):
                subs["status"] = {"group": g, "version": v, "kind": k, "verbs": ["get", "patch", "update"]}
            entry = {
                "group": g,
                "version": v,
                "resource": plural,
                "kind": k,
                "namespaced": True,
                "subresources": subs,
                "verbs": list(STANDARD_VERBS),
            }
            notes.append(
                f"added {g}/{v} {plural} (kind {k}; plural guessed, namespaced and subresources ASSUMED)"
            )
        out.append(entry)
    out.sort(key=lambda r: (r["group"], r["version"], r["resource"]))
    return out, notes


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def shard_key(name: str) -> str:
    """Which shard a definition lives in: API group + version, or 'apimachinery'."""
    pkg = name.rsplit(".", 1)[0]
    if pkg.startswith("io.k8s.api."):
        return pkg[len("io.k8s.api.") :]
    if pkg.startswith("io.k8s.apimachinery."):
        return "apimachinery"
    if ".pkg.apis." in pkg:
        return pkg.split(".pkg.apis.", 1)[1]
    return re.sub(r"[^A-Za-z0-9.]+", "_", pkg)


def dumps_compact(obj: JSON) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def dumps_pretty(obj: JSON) -> str:
    return json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def write_if_changed(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_gz_if_changed(path: Path, data: bytes) -> None:
    """Compressed output; untouched when the decompressed content is already equal (zlib builds differ)."""
    if path.exists():
        try:
            if gzip.decompress(path.read_bytes()) == data:
                return
        except OSError:
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def emit_version(
    out: Path, version: str, defs: Defs, resources: list[dict[str, JSON]], provenance: Mapping[str, JSON]
) -> set[str]:
    """Write one version; returns the shard files it references."""
    shards: dict[str, Defs] = {}
    for name, d in defs.items():
        shards.setdefault(shard_key(name), {})[name] = d
    index: dict[str, str] = {}
    used: set[str] = set()
    for key, content in sorted(shards.items()):
        data = dumps_compact(content)
        fname = f"{key}-{hashlib.sha256(data).hexdigest()[:16]}.json.gz"
        write_gz_if_changed(out / SHARD_DIR / fname, data)
        used.add(fname)
        for name in content:
            index[name] = fname
    served = {(r["group"], r["version"]) for r in resources}
    rest = {
        "format": FORMAT_VERSION,
        "kubernetes": version,
        "provenance": dict(provenance),
        "groups": groups_of(resources),
        "resources": resources,
        "kinds": kinds_from_defs(defs, served),
    }
    vdir = out / version
    write_if_changed(vdir / "rest.json", dumps_pretty(rest).encode())
    write_if_changed(
        vdir / "index.json", dumps_pretty({"format": FORMAT_VERSION, "definitions": index}).encode()
    )
    return used


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def generate(openapi: Path, out: Path, kv_path: Path | None, releases: Sequence[Path] = ()) -> list[str]:
    """Generate every version; returns the versions written. A release given with `releases`
    wins over the same version derived from kubernetes-validate."""
    versions = sorted((p.name for p in openapi.iterdir() if re.fullmatch(r"\d+\.\d+", p.name)), key=_vkey)
    if not versions:
        raise SystemExit(f"no <major.minor> folders under {openapi}")
    used: set[str] = set()
    written: list[str] = []
    v3: dict[str, tuple[Defs, list[dict[str, JSON]]]] = {}
    for v in versions:
        defs, docs = load_openapi_version(openapi / v)
        resources = rest_from_docs(docs)
        v3[v] = (defs, resources)
        prov = {
            "source": "kube-apiserver OpenAPI v3 (kubernetes-sigs/kubectl-validate "
            "pkg/openapiclient/builtins, commit a97ccfaca20b164819afdae780392496f6ed6bbd)",
            "derived": False,
        }
        used |= emit_version(out, v, defs, resources, prov)
        written.append(v)
    if kv_path is not None:
        kv = KubernetesValidate(kv_path)
        base = versions[-1]
        base_defs, base_res = v3[base]
        kv_base = kv.definitions(base)
        prev_kv, prev_res = kv_base, base_res
        released = {release_of(r)[0] for r in releases}
        for v in kv.versions():
            if _vkey(v) <= _vkey(base) or v in released:
                continue
            kv_cur = kv.definitions(v)
            defs, stats = derive_types(base_defs, kv_base, kv_cur)
            resources, notes = derive_rest(prev_res, prev_kv, kv_cur, defs)
            prov = {
                "source": f"kubernetes-validate {kv.package_version} (PyPI) "
                f"kubernetes-json-schema/v{v}.0-local/_definitions.json, "
                f"merged with kube-apiserver OpenAPI v3 {base}",
                "wheel_sha256": kv.sha256,
                "derived": True,
                "types": {
                    "carried_from_openapi": len(stats["carried"]),
                    "converted_with_unchanged_properties_carried": stats["merged"],
                    "converted_from_kubernetes_validate": stats["converted"],
                },
                "rest": f"derived from {written[-1]} plus the kind additions/removals "
                "evidenced by kubernetes-validate",
                "rest_changes": notes,
            }
            used |= emit_version(out, v, defs, resources, prov)
            written.append(v)
            prev_kv, prev_res = kv_cur, resources
    for module_dir in sorted(releases, key=lambda r: _vkey(release_of(r)[0])):
        v, tag = release_of(module_dir)
        defs, docs = load_release_spec(module_dir)
        prov = {
            "source": f"kube-apiserver OpenAPI v3 as released in k8s.io/kubernetes {tag} "
            "(api/openapi-spec/v3, from the Go module proxy)",
            "release": tag,
            "derived": False,
        }
        if "-" in tag:
            prov["prerelease"] = True
        used |= emit_version(out, v, defs, rest_from_docs(docs), prov)
        written.append(v)
    for vdir in sorted(out.iterdir()):
        # Versions not regenerated this run (e.g. no --kubernetes-validate) keep their shards.
        if vdir.name not in written and (vdir / "index.json").exists():
            print(f"note: kept {vdir.name} as committed (not regenerated)", file=sys.stderr)
            used |= set(json.loads((vdir / "index.json").read_text())["definitions"].values())
    shard_dir = out / SHARD_DIR
    for f in sorted(shard_dir.glob("*.json.gz")):
        if f.name not in used:
            f.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--openapi", type=Path, required=True, help="folder with <major.minor>/api, apis")
    ap.add_argument("--out", type=Path, required=True, help="output folder (schemas/)")
    ap.add_argument(
        "--kubernetes-validate",
        type=Path,
        default=None,
        help="kubernetes-validate wheel or unpacked tree, for versions newer than the OpenAPI folder",
    )
    ap.add_argument(
        "--release",
        type=Path,
        action="append",
        default=[],
        help="a k8s.io/kubernetes@vX.Y.Z module folder (go mod download): its api/openapi-spec/v3",
    )
    args = ap.parse_args(argv)
    written = generate(args.openapi, args.out, args.kubernetes_validate, args.release)
    print("wrote", ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
