"""kustomize patches: which files are patches, and what a patch can get wrong.

A patch is not an object the API server receives: kustomize merges it into one. A
kubebuilder tree (`config/crd/patches/webhook_in_*.yaml`, `cainjection_in_*.yaml`) holds CRD
patches that lack `spec.group`, `names`, `versions`; checked as objects they were dozens of
required-field errors. So a patch is checked as a partial object: unknown fields and wrong
types (what survives the merge and the server then rejects), never required fields or the
create-time rules; and a JSON 6902 patch's paths are resolved in the target kind's schema.

A file is a patch when a `kustomization.yaml` in its folder or above refers to it from
`patches`, `patchesStrategicMerge` or `patchesJson6902` (also a commented-out entry there, as
kubebuilder scaffolds them to be uncommented), or when it sits in a `patches` folder below a
kustomization. An object is a patch wherever it carries strategic-merge directives (`$patch`,
`$retainKeys`, `$setElementOrder/...`, `$deleteFromPrimitiveList/...`).
"""

from __future__ import annotations

import os.path
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from vap_lsp.analysis.files import read_text
from vap_lsp.yaml.model import AliasNode, MappingNode, Node, ScalarNode, SequenceNode, deref

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_PATCH_KEYS = ("patches", "patchesStrategicMerge", "patchesJson6902")
# How far up a kustomization may sit above a patch (kubebuilder: config/crd/patches/x.yaml).
_LEVELS = 4


@dataclass(frozen=True)
class PatchTarget:
    """A patch's `target` in the kustomization (JSON 6902 patches name the kind they patch)."""

    group: str = ""
    version: str = ""
    kind: str = ""


@dataclass(frozen=True)
class PatchFile:
    """How the file is used: `kustomization` refers to it (or its folder is `patches`)."""

    kustomization: str
    target: PatchTarget | None = None


def is_directive(key: str) -> bool:
    """A strategic-merge-patch directive key (never a field of the patched type)."""
    return key.startswith(("$patch", "$retainKeys", "$setElementOrder/", "$deleteFromPrimitiveList/"))


def carries_directives(node: Node | None, budget: int = 20_000) -> bool:
    """Whether a strategic-merge directive key is anywhere in `node` (an explicit stack, bounded)."""
    stack = [node]
    while stack and budget > 0:
        budget -= 1
        n = stack.pop()
        if isinstance(n, AliasNode):
            continue  # its anchor is walked where it stands
        if isinstance(n, MappingNode):
            for k, v in n.items:
                if isinstance(k, ScalarNode) and is_directive(k.value):
                    return True
                stack.append(v)
        elif isinstance(n, SequenceNode):
            stack.extend(n.items)
    return False


# ------------------------------------------------------------------------------ kustomizations

# Every top-level key of a Kustomization (kustomize api/types/kustomization.go).
_KUSTOMIZATION_KEYS = frozenset(
    {
        *_PATCH_KEYS,
        "apiVersion", "kind", "resources", "bases", "components", "crds", "namespace",
        "namePrefix", "nameSuffix", "labels", "commonLabels", "commonAnnotations", "images",
        "replicas", "replacements", "vars", "configurations", "configMapGenerator",
        "secretGenerator", "generatorOptions", "generators", "transformers", "helmCharts",
        "helmGlobals", "openapi", "sortOptions", "buildMetadata", "validators",
    }
)  # fmt: skip
_TOP_KEY = re.compile(r"^#?\s{0,1}([A-Za-z][A-Za-z0-9]*):")
_COMMENTED_PATH = re.compile(r"^\s*#+\s*-?\s*(?:path:\s*)?([^\s#'\"]+\.ya?ml)\s*$")


def _target(value: Any) -> PatchTarget | None:
    if not isinstance(value, dict):
        return None
    return PatchTarget(
        str(value.get("group") or ""), str(value.get("version") or ""), str(value.get("kind") or "")
    )


def _references(text: str) -> Iterator[tuple[str, PatchTarget | None]]:
    """(relative path, target) of every patch file a kustomization names, commented-out ones too."""
    try:
        data = YAML(typ="safe", pure=True).load(text)
    except YAMLError:
        data = None
    if isinstance(data, dict):
        for key in _PATCH_KEYS:
            entries = data.get(key)
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, str) and "\n" not in entry and entry.strip().endswith((".yaml", ".yml")):
                    yield entry.strip(), None
                elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    yield entry["path"], _target(entry.get("target"))
    # kubebuilder scaffolds patch entries commented out, to be enabled by uncommenting.
    block = False
    for line in text.splitlines():
        top = _TOP_KEY.match(line)
        # A key at column 0 starts a section; a commented one only if it is a kustomization key
        # (`#replacements:`), not prose such as `# Note: ...` inside the patches section.
        if top is not None and (not line.startswith("#") or top.group(1) in _KUSTOMIZATION_KEYS):
            block = top.group(1) in _PATCH_KEYS
            continue
        if block and line.lstrip().startswith("#"):
            m = _COMMENTED_PATH.match(line)
            if m is not None:
                yield m.group(1), None


@dataclass(frozen=True)
class _Kustomization:
    stamp: tuple[int, int]
    patches: dict[Path, PatchFile]


_CACHE: dict[Path, _Kustomization] = {}
_LOCK = threading.Lock()


def _read(path: Path) -> dict[Path, PatchFile]:
    """The patch files one kustomization names (absolute), cached by modification time."""
    try:
        info = path.stat()
    except OSError:
        return {}
    stamp = (info.st_mtime_ns, info.st_size)
    with _LOCK:
        hit = _CACHE.get(path)
    if hit is not None and hit.stamp == stamp:
        return hit.patches
    text = read_text(path, [])
    patches: dict[Path, PatchFile] = {}
    for relative, target in _references(text or ""):
        resolved = Path(_normal(path.parent / relative))
        if resolved not in patches or target is not None:
            patches[resolved] = PatchFile(str(path), target)
    with _LOCK:
        _CACHE[path] = _Kustomization(stamp, patches)
    return patches


def _normal(path: Path) -> str:
    return os.path.normpath(path)


def patch_file(path: Path) -> PatchFile | None:
    """How `path` is used as a kustomize patch, or None when it is not one."""
    absolute = Path(_normal(path if path.is_absolute() else Path.cwd() / path))
    if absolute.name in KUSTOMIZATION_FILES:
        return None
    folder = absolute.parent
    for level in range(_LEVELS):
        for name in KUSTOMIZATION_FILES:
            candidate = folder / name
            if not candidate.is_file():
                continue
            found = _read(candidate).get(absolute)
            if found is not None:
                return found
            if level >= 1 and "patches" in absolute.relative_to(folder).parts[:-1]:
                return PatchFile(str(candidate))
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


# ------------------------------------------------------------------------------- JSON 6902

JSON6902_OPS = ("add", "remove", "replace", "move", "copy", "test")


def is_json6902(node: Node | None) -> bool:
    """A YAML sequence of mappings with `op`: a JSON 6902 patch document."""
    node = deref(node)
    if not isinstance(node, SequenceNode) or not node.items:
        return False
    return all(isinstance(deref(i), MappingNode) and deref(i).get("op") is not None for i in node.items)  # type: ignore[union-attr]
