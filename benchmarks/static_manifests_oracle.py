#!/usr/bin/env python3
"""vap-lsp's static manifests check against kube-apiserver's own loaders, folder by folder.

Builds `benchmarks/static_manifests_oracle/` (a Go program around k8s.io/kubernetes v1.37.2
`LoadValidatingManifestsFromDirectory` and `LoadMutatingManifestsFromDirectory`; the first build
downloads k8s.io/kubernetes and its modules through the Go module proxy and takes minutes), then
runs every folder through it and through `vap_lsp.static_manifests.check_folder`:

* the rows of tests/static_manifests (kube-apiserver's loader test tables, the decoder cases, the
  integration test's manifests), the documentation's examples and examples/static;
* mutations of every folder that loads: each one mistake kube-apiserver refuses (a name without
  the suffix, a namespace, parameters, an unknown field, a duplicate key, a wrong type, an old
  apiVersion, a document that is only a comment, a file that is only `---`, a binding of a
  missing policy, the other plugin's kinds).

They agree when kube-apiserver loads the folder and vap-lsp finds no error (and the same counts),
or when kube-apiserver's one error is among vap-lsp's (`tests/static_manifests/folders.agrees`;
the scheme name is that of an official build, see `vap_lsp.static_manifests.gate`).

    .venv/bin/python benchmarks/static_manifests_oracle.py [--go go] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.static_manifests import test_decode, test_go_loader_tables, test_integration_manifests  # noqa: E402
from tests.static_manifests.folders import agrees, loader_errors, run  # noqa: E402
from vap_lsp.static_manifests.gate import scheme_name  # noqa: E402

SOURCE = ROOT / "benchmarks" / "static_manifests_oracle"
MODULE_CACHE_SCHEME = "pkg/runtime/scheme.go:111"  # what a build from the module cache calls it


def build(go: str, out: Path) -> Path:
    binary = out / "static-manifests-oracle"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN", "auto")}
    started = time.monotonic()
    subprocess.run([go, "build", "-trimpath", "-o", str(binary), "."], cwd=SOURCE, env=env, check=True)
    print(f"built the oracle in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return binary


Folder = tuple[str, str, dict[str, str]]  # (name, plugin, files)


def _cases() -> Iterator[Folder]:
    for table, case in test_go_loader_tables.ALL:
        yield f"{table}/{case.name}", case.plugin, case.files
    for name, text, _ in test_decode.ORACLE:
        yield f"decode/{name}", "validating", {"a.yaml": text}
    m = test_integration_manifests
    yield "integration/deny-labels", "validating", {"deny-labels.yaml": m.DENY_LABELS}
    yield "integration/add-label", "mutating", {"add-label.yaml": m.ADD_LABEL}
    yield (
        "integration/all",
        "validating",
        {"a.yaml": m.DENY_LABELS, "b.yaml": m.DENY_ANNOTATIONS, "c.yaml": m.PROTECT_VAPS},
    )
    for folder, plugin in (
        (ROOT / "tests" / "fixtures" / "kubernetes-website-static" / "validating-policies", "validating"),
        (ROOT / "examples" / "static" / "validating", "validating"),
        (ROOT / "examples" / "static" / "mutating", "mutating"),
    ):
        if folder.is_dir():
            files = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.is_file()}
            yield f"folder/{folder.relative_to(ROOT)}", plugin, files


def _first(files: dict[str, str], change: Callable[[str], str]) -> dict[str, str] | None:
    """The folder with the first file that `change` changes changed (None: nothing to change)."""
    for name in sorted(files):
        changed = change(files[name])
        if changed != files[name]:
            return {**files, name: changed}
    return None


MUTATIONS: dict[str, Callable[[dict[str, str], str], dict[str, str] | None]] = {
    "name without the suffix": lambda f, _: _first(f, lambda t: t.replace(".static.k8s.io\n", "\n", 1)),
    "a namespace": lambda f, _: _first(
        f, lambda t: t.replace("metadata:\n  name:", "metadata:\n  namespace: default\n  name:", 1)
    ),
    "paramKind": lambda f, _: _first(
        f,
        lambda t: (
            t.replace("\nspec:\n", "\nspec:\n  paramKind: {apiVersion: v1, kind: ConfigMap}\n", 1)
            if "Binding" not in t.split("\n---")[0]
            else t
        ),
    ),
    "paramRef": lambda f, _: _first(
        f,
        lambda t: t.replace(
            "  policyName:", "  paramRef: {name: x, parameterNotFoundAction: Deny}\n  policyName:", 1
        ),
    ),
    "unknown field": lambda f, _: _first(f, lambda t: t.replace("\nspec:\n", "\nspec:\n  colour: blue\n", 1)),
    "duplicate key": lambda f, _: _first(
        f, lambda t: t.replace("metadata:\n  name: ", "metadata:\n  name: x.static.k8s.io\n  name: ", 1)
    ),
    "wrong type": lambda f, _: _first(
        f,
        lambda t: t.replace("  policyName: ", "  policyName: 5\n  x-policyName: ", 1).replace(
            "x-policyName", "policyName2", 1
        ),
    ),
    "v1beta1": lambda f, _: _first(
        f,
        lambda t: t.replace("admissionregistration.k8s.io/v1\n", "admissionregistration.k8s.io/v1beta1\n", 1),
    ),
    "a comment as last document": lambda f, _: _first(f, lambda t: t.rstrip("\n") + "\n---\n# the end\n"),
    "a file of ---": lambda f, _: {**f, "zz-empty.yaml": "---\n"},
    "a binding of a missing policy": lambda f, p: {
        **f,
        "zz-orphan.yaml": (
            "apiVersion: admissionregistration.k8s.io/v1\n"
            f"kind: {'Validating' if p == 'validating' else 'Mutating'}AdmissionPolicyBinding\n"
            "metadata:\n  name: orphan.static.k8s.io\nspec:\n  policyName: nope.static.k8s.io\n"
            + ("  validationActions: [Deny]\n" if p == "validating" else "")
        ),
    },
    "the other plugin's kinds": lambda f, p: _first(
        f,
        lambda t: (
            t.replace("ValidatingAdmission", "MutatingAdmission")
            if p == "validating"
            else t.replace("MutatingAdmission", "ValidatingAdmission")
        ),
    ),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--go", default=shutil.which("go") or "go")
    ap.add_argument("--keep", type=Path, help="write the folders here (default: a temporary folder)")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="static-oracle-"))
    binary = build(args.go, work)
    folders: list[tuple[str, str, Path]] = []
    for i, (name, plugin, files) in enumerate(_cases()):
        base = work / f"{i:03d}"
        folders.append((name, plugin, _write(base / "case", files)))
        if not files:
            continue
        for j, (mutation, change) in enumerate(MUTATIONS.items()):
            changed = change(files, plugin)
            if changed is not None and changed != files:
                folders.append((f"{name} + {mutation}", plugin, _write(base / f"m{j:02d}", changed)))
    started = time.monotonic()
    stdin = "".join(f"{plugin} {folder}\n" for _, plugin, folder in folders)
    answers = [
        json.loads(line)
        for line in subprocess.run(
            [str(binary)], input=stdin, capture_output=True, text=True, check=True
        ).stdout.splitlines()
    ]
    go_seconds = time.monotonic() - started
    agree, refused, differ = 0, 0, []
    started = time.monotonic()
    for (name, plugin, folder), answer in zip(folders, answers, strict=True):
        result = run(folder, plugin=plugin)
        ours = loader_errors(result)
        error = answer.get("error")
        if error is None:
            ok = not ours and (result.policies, result.bindings) == (answer["policies"], answer["bindings"])
        else:
            refused += 1
            ok = agrees(error.replace(MODULE_CACHE_SCHEME, scheme_name(37)), ours)
            # Broken YAML: go-yaml and vap-lsp's parser word it differently; the same file must
            # be broken for both (`yaml-syntax`, never hidden).
            ok = ok or (": yaml: line " in error and any("YAML syntax error" in m for m in ours))
        if ok:
            agree += 1
        else:
            differ.append((name, error, ours))
    ours_seconds = time.monotonic() - started
    print(
        f"{len(folders)} folders ({refused} refused by kube-apiserver 1.37.2): "
        f"{agree} agree, {len(differ)} differ"
    )
    print(
        f"kube-apiserver's loaders {go_seconds:.2f} s, vap-lsp {ours_seconds:.2f} s (with every normal check)"
    )
    for name, error, ours in differ:
        print(f"\n{name}\n  kube-apiserver: {error}\n  vap-lsp: {ours}")
    return 1 if differ else 0


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_bytes(text.encode())
    return folder


if __name__ == "__main__":
    raise SystemExit(main())
