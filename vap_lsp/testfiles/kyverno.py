"""Kyverno CLI test files (`kyverno-test.yaml`, `kind: Test`) for ValidatingAdmissionPolicy and
MutatingAdmissionPolicy results (`isValidatingAdmissionPolicy`/`isMutatingAdmissionPolicy`).

Supported: `policies`, `resources`, `paramResources`, `userinfo` (a `kind: UserInfo` file),
`variables` (a `kind: Value` file; its `namespaceSelector` list becomes Namespace objects with
those labels, its `namespaces` are Namespace objects; `read_test_files` also keeps its values
per policy and resource, for `vap-lsp convert --verify`), `results` with `policy`, `kind`,
`resources` (names, `ns/name`; all of `kind` when absent), `result` (pass, fail, skip, error)
and `patchedResources`/`patchedResource`.
Results for Kyverno's own policies are ignored. Kyverno applies a policy that has no binding;
the API server never does, so such cases run with a synthesized binding and say so.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, UserInfo
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.testfiles.common import (
    bindings_of,
    in_default_namespace,
    policy_kind,
    policy_name,
    synthesized_binding,
    user_info,
)
from vap_lsp.testfiles.loader import SourceObject, TestDocument, load_objects, resolve
from vap_lsp.testfiles.model import Decision, Expectation, Mode, TestCase, TestSuite

_RESULTS = {"pass": None, "fail": Decision.DENY, "skip": Decision.SKIP, "error": Decision.ERROR}


def is_kyverno_test(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and data.get("kind") == "Test"
        and str(data.get("apiVersion", "")).split("/")[0] in ("cli.kyverno.io", "kyverno.io")
    )


def _list(value: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    return value if isinstance(value, list) else []


@dataclass
class KyvernoTestFiles:
    """What a `kyverno-test.yaml` names besides its results: the policies, resources and params,
    the requester (`userinfo`), the namespaces (`variables`: `namespaces` and
    `namespaceSelector`) and the values per policy and resource (`variables`:
    `policies[].resources[].values`, such as `request.operation`)."""

    policies: list[SourceObject]
    resources: list[SourceObject]
    params: list[dict[str, Any]]
    user: UserInfo
    namespaces: list[dict[str, Any]]
    values: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    base: PolicyInputs = field(default_factory=lambda: PolicyInputs([], [], [], [], []))


def read_test_files(doc: TestDocument, problems: list[str]) -> KyvernoTestFiles:
    path, data = doc.path, doc.data

    def objects(key: str) -> list[SourceObject]:
        out: list[SourceObject] = []
        for rel in _list(data.get(key)):
            out.extend(load_objects(resolve(path, str(rel)), problems))
        return out

    policy_objects = objects("policies")
    resources = objects("resources")
    base = PolicyInputs.from_objects(o.data for o in policy_objects)
    params = [in_default_namespace(o.data, base.crds) for o in objects("paramResources")]
    user = UserInfo()
    for o in objects("userinfo"):
        if o.kind == "UserInfo":
            user = user_info(o.data.get("userInfo"))
    namespaces = [copy.deepcopy(o.data) for o in resources if o.kind == "Namespace"]
    values: dict[tuple[str, str], dict[str, Any]] = {}
    for o in objects("variables"):
        for entry in _list(o.data.get("namespaceSelector")):
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
                labels = entry.get("labels") if isinstance(entry.get("labels"), Mapping) else {}
                namespaces.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Namespace",
                        "metadata": {"name": entry["name"], "labels": dict(labels or {})},
                    }
                )
        for entry in _list(o.data.get("namespaces")):  # Namespace objects (the CLI reads any case of kind)
            if isinstance(entry, Mapping) and str(entry.get("kind", "")).lower() == "namespace":
                namespace = copy.deepcopy(dict(entry))
                namespace["apiVersion"], namespace["kind"] = "v1", "Namespace"
                namespaces.append(namespace)
        for policy in _list(o.data.get("policies")):
            if not isinstance(policy, Mapping):
                continue
            for resource in _list(policy.get("resources")):
                if isinstance(resource, Mapping) and isinstance(resource.get("values"), Mapping):
                    values[(str(policy.get("name", "")), str(resource.get("name", "")))] = dict(
                        resource["values"]
                    )
    return KyvernoTestFiles(policy_objects, resources, params, user, namespaces, values, base)


def read_kyverno(doc: TestDocument) -> TestSuite:
    path = doc.path
    suite = TestSuite(str(path), "kyverno")
    data = doc.data
    problems = suite.problems
    if not isinstance(data, Mapping):
        problems.append(f"{path}: a test file is a mapping")
        return suite
    files = read_test_files(doc, problems)
    policy_objects, resources, base = files.policies, files.resources, files.base
    params, user, namespaces = files.params, files.user, files.namespaces
    suite.policies = tuple(policy_name(p) for p in base.policies)
    suite.policy_sources = [(o.data, o.path) for o in policy_objects if policy_kind(o.data) is not None]
    for i, raw in enumerate(_list(data.get("results"))):
        line = doc.line_of("results", i)
        where = f"{path}:{line}"
        if not isinstance(raw, Mapping):
            problems.append(f"{where}: a result is a mapping")
            continue
        if not (raw.get("isValidatingAdmissionPolicy") or raw.get("isMutatingAdmissionPolicy")):
            continue  # a Kyverno policy's result: not ours to check
        name = str(raw.get("policy", ""))
        policy = next((p for p in base.policies if policy_name(p) == name), None)
        if policy is None:
            problems.append(
                f"{where}: no policy named {name!r} in {', '.join(map(str, _list(data.get('policies'))))}"
            )
            continue
        expected = str(raw.get("result", ""))
        if expected not in _RESULTS:
            problems.append(f"{where}: result {expected!r} is not pass, fail, skip or error")
            continue
        is_map = policy_kind(policy) is PolicyKind.MAP
        decision = _RESULTS[expected] or (Decision.MUTATE if is_map else Decision.ADMIT)
        patched_objects: list[SourceObject] = []
        for key in ("patchedResources", "patchedResource"):
            for rel in _list(raw.get(key)):
                patched_objects.extend(load_objects(resolve(path, str(rel)), problems))
        kind = raw.get("kind")
        names = [str(n) for n in _list(raw.get("resources"))]
        targets = find_targets(resources, kind, names, where, problems)
        bindings = bindings_of(base, name)
        notes: tuple[str, ...] = ()
        if not bindings:
            bindings = [synthesized_binding(policy)]
            notes = ("no binding in the test's policies: Kyverno applies the policy anyway; "
                     "evaluated with a synthesized binding (the API server would not apply it)",)  # fmt: skip
        for target in targets:
            expected_patch = None
            if decision is Decision.MUTATE:
                expected_patch = next(
                    (
                        copy.deepcopy(p.data)
                        for p in patched_objects
                        if p.kind == target.kind and p.name == target.name and p.namespace == target.namespace
                    ),
                    None,
                ) or (copy.deepcopy(patched_objects[0].data) if len(patched_objects) == 1 else None)
            if expected_patch is not None:
                expected_patch = in_default_namespace(expected_patch, base.crds)
            inputs = PolicyInputs([policy], list(bindings), list(params), list(namespaces), list(base.crds))
            obj = in_default_namespace(copy.deepcopy(target.data), base.crds)
            request = AdmissionRequestInput(
                operation="CREATE",
                object=obj,
                user=user,
                namespace=obj["metadata"].get("namespace") if isinstance(obj.get("metadata"), dict) else None,
            )
            suite.cases.append(
                TestCase(
                    f"{name} {target.kind} {target.namespace + '/' if target.namespace else ''}"
                    f"{target.name} → {expected}",
                    request,
                    inputs,
                    Expectation(decision=decision, patched=expected_patch),
                    name,
                    Mode.SERVER,
                    line,
                    notes,
                    builtin_admission=False,
                )
            )
    return suite


def find_targets(
    resources: list[SourceObject], kind: Any, names: list[str], where: str, problems: list[str]
) -> list[SourceObject]:
    of_kind = [o for o in resources if kind is None or o.kind == kind]
    if not names:
        if not of_kind:
            problems.append(f"{where}: no resource of kind {kind}")
        return of_kind
    out: list[SourceObject] = []
    for name in names:
        namespace, _, bare = name.rpartition("/")
        # A resource written without a namespace is in `default` (as the Kyverno CLI reads it).
        found = [
            o
            for o in of_kind
            if o.name == bare and (not namespace or (o.namespace or "default") == namespace)
        ]
        if not found:
            problems.append(f"{where}: no resource {kind} {name}")
        out.extend(found)
    return out


def kyverno_path_hint(path: Path) -> bool:
    return path.name in ("kyverno-test.yaml", "kyverno-test.yml")
