"""Reading admission inputs from files: policies, params, objects under admission, authz rules.

Why here and not in the CLI: `vap-lsp run`, `vap-lsp test` and the editor read the same
inputs the same way (kubectl's YAML 1.1 scalars, `kind: List` unwrapped).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo, load_admission_review
from vap_lsp.admission.authz import rule_problems
from vap_lsp.analysis import files
from vap_lsp.analysis.model.crds import list_items
from vap_lsp.yaml.model import ExpansionLimit, ProblemKind, to_python
from vap_lsp.yaml.parse import parse_yaml


class InputError(Exception):
    """A file that cannot be used: unreadable, not YAML, not an object."""


def documents(text: str, where: str) -> list[Any]:
    """Every non-empty YAML document of `text` as plain data; raises InputError on bad YAML."""
    parsed = parse_yaml(text)
    if parsed.problems:
        raise InputError(f"{where}: {parsed.problems[0].message}")
    out: list[Any] = []
    for doc in parsed.documents:
        errors = [p for p in doc.problems if p.kind is not ProblemKind.DUPLICATE_KEY]
        if errors:
            raise InputError(f"{where}: document {doc.index + 1}: {errors[0].message}")
        if doc.root is None:
            continue
        try:
            out.append(to_python(doc.root))
        except ExpansionLimit as exc:
            raise InputError(f"{where}: document {doc.index + 1}: {exc}") from exc
    return out


def read_text(path: Path) -> str:
    errors: list[str] = []
    text = files.read_text(path, errors)
    if text is None:
        raise InputError(errors[0] if errors else f"{path}: cannot read")
    return text


def objects(path: Path) -> list[Any]:
    """Every document of a file as `run` reads an `--object` file: `kind: List` unwrapped (the
    items may be anything; the caller says what it needs)."""
    return [item for doc in documents(read_text(path), str(path)) for item in list_items(doc)]


def load_policy_inputs(paths: Iterable[str]) -> PolicyInputs:
    """Policies, bindings, params, namespaces and CRDs from files or folders."""
    errors: list[str] = []
    objects: list[dict[str, Any]] = []
    for path in files.collect_files(list(paths), errors):
        for doc in documents(read_text(path), str(path)):
            for item in list_items(doc):
                if isinstance(item, dict) and item.get("apiVersion") and item.get("kind"):
                    objects.append(item)
    if errors:
        raise InputError(errors[0])
    return PolicyInputs.from_objects(objects)


def load_requests(
    path: Path,
    *,
    operation: str,
    user: UserInfo,
    old_object: dict[str, Any] | None = None,
) -> list[AdmissionRequestInput]:
    """The requests in one `--object` file: one per object document (or an AdmissionReview)."""
    out: list[AdmissionRequestInput] = []
    docs = documents(read_text(path), str(path))
    if not docs:
        raise InputError(f"{path}: no object in the file")
    for i, doc in enumerate(docs):
        for item in list_items(doc):
            if isinstance(item, dict) and item.get("kind") == "AdmissionReview":
                try:
                    out.append(load_admission_review(item))
                except ValueError as exc:
                    raise InputError(f"{path}: document {i + 1}: {exc}") from exc
                continue
            if not isinstance(item, dict) or not item.get("apiVersion") or not item.get("kind"):
                raise InputError(
                    f"{path}: document {i + 1} is not a Kubernetes object (needs apiVersion and kind)"
                )
            if operation == "DELETE":
                out.append(AdmissionRequestInput("DELETE", None, old_object or item, user))
            else:
                old = old_object if operation in ("UPDATE", "CONNECT") else None
                out.append(AdmissionRequestInput(operation, item, old, user))
    return out


def load_authorizer_rules(path: Path) -> list[dict[str, Any]]:
    """A YAML list of rules (or a mapping with `rules:`)."""
    docs = documents(read_text(path), str(path))
    rules: list[dict[str, Any]] = []
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("rules"), list):
            doc = doc["rules"]
        if not isinstance(doc, list) or not all(isinstance(r, dict) for r in doc):
            raise InputError(f"{path}: authorizer rules must be a list of mappings")
        rules.extend(doc)
    problems = rule_problems(rules)
    if problems:
        raise InputError(f"{path}: {problems[0]}")
    return rules
