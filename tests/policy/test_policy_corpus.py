# ruff: noqa: E501  (expected server messages are long and kept on one line each)
"""Defaults + validation over every policy document of the shared corpus.

The corpus (../shared/corpus relative to the project root) holds real-world manifests. Most are
accepted by the API server; the files in KNOWN_BAD are rejected by it for the reason given, so
they must produce exactly those errors. Every other file must produce no server errors.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from vap_lsp.policy.defaults import apply_defaults
from vap_lsp.policy.kinds import recognise
from vap_lsp.policy.rules import validate

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"

_NO_ACTIONS = "spec.validationActions: Required value: at least one validation action is required"
_KYVERNO_PARTIAL_VAP = [
    "spec.matchConstraints: Required value",
    "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
    "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
]
_KYVERNO_PARTIAL_VAPB = ["spec.policyName: Required value", _NO_ACTIONS]
_CHAINSAW = (
    "kyverno__kyverno/test/conformance/chainsaw/generate-validating-admission-policy/validatingpolicy/"
)

# file → the server errors it must produce (first 120 characters of each message).
KNOWN_BAD: dict[str, list[str]] = {
    # Bindings written for v1alpha1 of Kubernetes 1.26, before validationActions (1.27) became required.
    **{
        f"jpbetz__validation-admission-policy-examples/{d}/vapb.yaml": [_NO_ACTIONS]
        for d in (
            "brokenbinding",
            "complex",
            "crd",
            "failclosed",
            "failopen",
            "immutability",
            "matching",
            "metadata",
            "noparams",
            "pods",
            "policyvalidationerrors",
            "request",
            "scale",
        )
    },
    "jpbetz__validation-admission-policy-examples/configmap/vapb-configmap.yaml": [_NO_ACTIONS],
    "jpbetz__validation-admission-policy-examples/multicrd/setup/vapb.yaml": [_NO_ACTIONS],
    **{
        f"douglasmakey__k8s-validating-admission-policy/{f}.yaml": [_NO_ACTIONS]
        for f in (
            "force-ha-for-all",
            "force-ha-object-binding",
            "force-ha-policy",
            "latest-policy",
            "prod-ready-policy",
        )
    },
    "kubescape__cel-admission-library/docs/validating-admission-policies/"
    "deny-pods-without-app-label-policy-binding.yaml": [_NO_ACTIONS],
    # kyverno CLI test inputs: a binding without validationActions / parameterNotFoundAction, a rule
    # without operations.
    "kyverno__kyverno/test/cli/test-validating-admission-policy/with-params/policy.yaml": [
        "spec.paramRef.parameterNotFoundAction: Required value",
        _NO_ACTIONS,
    ],
    "kyverno__kyverno/test/cli/test-validating-admission-policy/match-namespaces/policy.yaml": [
        "spec.matchConstraints.resourceRules[0].operations: Required value"
    ],
    # chainsaw assertion fragments (partial objects matched against generated ones), not manifests.
    **{
        f"{_CHAINSAW}{d}/validatingadmissionpolicy.yaml": _KYVERNO_PARTIAL_VAP
        for d in ("autogen-enabled", "generation-config/default", "generation-config/disabled")
    },
    **{
        f"{_CHAINSAW}{d}/validatingadmissionpolicybinding.yaml": _KYVERNO_PARTIAL_VAPB
        for d in ("autogen-enabled", "generation-config/default", "generation-config/disabled")
    },
    # celtest inputs: compiled directly by a test, never created through the API (no name, no matchConstraints).
    "kubernetes__kubernetes/staging/src/k8s.io/apiserver/pkg/admission/testing/celtest/testdata/"
    "mutating-admission-policy.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.matchConstraints: Required value",
        "spec.reinvocationPolicy: Required value",
    ],
    "kubernetes__kubernetes/staging/src/k8s.io/apiserver/pkg/admission/testing/celtest/testdata/"
    "validating-admission-policy.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.matchConstraints: Required value",
        'spec.auditAnnotations[0].key: Invalid value: "pod-name": requires metadata.name be non-empty',
    ],
    # Listed in SOURCES.md: paramKind written with group/version instead of apiVersion.
    "kubernetes__website/content/en/examples/access/deployment-replicas-policy.yaml": [
        "spec.paramKind.apiVersion: Required value"
    ],
    # v1 binding with a paramRef but no parameterNotFoundAction (required since v1beta1).
    "kubernetes__website/content/en/examples/validatingadmissionpolicy/binding-with-param-prod.yaml": [
        "spec.paramRef.parameterNotFoundAction: Required value"
    ],
    # Listed in SOURCES.md: a fragment containing `...`, not a complete manifest.
    "kubernetes__website/content/en/examples/validatingadmissionpolicy/failure-policy-ignore.yaml": [
        "metadata.name: Required value: name or generateName is required",
        "spec.failurePolicy: Required value",
        "spec.matchConstraints: Required value",
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item",
    ],
    # Upper-case letters in metadata.name.
    "pfnet__kaptest/internal/tester/testdata/vap-standard-resources.yaml": [
        'metadata.name: Invalid value: "deployment-replicas-with-matchCondition": a lowercase RFC 1123 subdomain'
    ],
}


def _documents(path: Path) -> list[Any]:
    try:
        docs = list(YAML(typ="safe").load_all(path.read_text(encoding="utf-8")))
    except Exception:  # unparseable files are covered by the YAML layer
        return []
    out: list[Any] = []
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            out.extend(doc["items"])
        else:
            out.append(doc)
    return out


@functools.cache
def _policy_documents() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(CORPUS.rglob("*")):
        if not path.is_file() or path.suffix not in (".yaml", ".yml", ".json"):
            continue
        rel = path.relative_to(CORPUS).as_posix()
        for doc in _documents(path):
            if isinstance(doc, dict) and recognise(doc.get("apiVersion"), doc.get("kind")) is not None:
                out.append((rel, doc))
    return out


def _run(k8s: str) -> tuple[int, dict[str, list[str]]]:
    checked = 0
    found: dict[str, list[str]] = {}
    for rel, doc in _policy_documents():
        recognised = recognise(doc.get("apiVersion"), doc.get("kind"))
        if recognised is not None:
            kind, version = recognised
            checked += 1
            for err in validate(kind, version, apply_defaults(kind, version, doc), k8s):
                if err.server_error:
                    found.setdefault(rel, []).append(err.message())
    return checked, found


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"shared corpus not found at {CORPUS}")
@pytest.mark.parametrize("k8s", ["1.31", "1.34", "1.36"])
def test_corpus(k8s: str) -> None:
    checked, found = _run(k8s)
    print(f"\n{checked} policy documents checked with Kubernetes {k8s}")
    for rel, messages in found.items():
        for m in messages:
            print(f"  {rel}: {m}")
    assert checked > 1000
    unexpected = {rel: m for rel, m in found.items() if rel not in KNOWN_BAD}
    assert unexpected == {}
    for rel, expected in KNOWN_BAD.items():
        got = found.get(rel, [])
        assert len(got) == len(expected), (rel, got)
        for g, e in zip(got, expected, strict=True):
            assert g.startswith(e), (rel, g, e)
