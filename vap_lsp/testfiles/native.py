"""vap-lsp's own test-file format (`kind: AdmissionTest`, schema in
`schemas/vap-lsp-test.schema.json`): cases that say the request and what the API server must
answer, evaluated with server semantics (bindings, matchConstraints, failurePolicy)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import OPERATIONS, AdmissionRequestInput, PolicyInputs
from vap_lsp.testfiles.common import (
    bindings_of,
    find_object,
    operation_for,
    policy_kind,
    policy_name,
    synthesized_binding,
    user_info,
)
from vap_lsp.testfiles.loader import SourceObject, TestDocument, load_objects, resolve
from vap_lsp.testfiles.model import Decision, Expectation, Mode, TestCase, TestSuite

API_VERSION = "vap-lsp.io/v1alpha1"
KIND = "AdmissionTest"

_TOP_KEYS = {"apiVersion", "kind", "metadata", "kubernetesVersion", "policies", "resources", "cases"}
_CASE_KEYS = {
    "name", "policy", "operation", "object", "oldObject", "params", "namespace", "user",
    "subResource", "dryRun", "options", "expect",
}  # fmt: skip
_EXPECT_KEYS = {"decision", "allowed", "messages", "warnings", "auditAnnotations", "patchedObject"}


def is_native(data: Any) -> bool:
    return isinstance(data, Mapping) and data.get("kind") == KIND and data.get("apiVersion") == API_VERSION


def _strings(value: Any, where: str, problems: list[str]) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(f"{where}: expected a list of strings")
        return []
    return list(value)


def read_native(doc: TestDocument) -> TestSuite:
    path = doc.path
    suite = TestSuite(str(path), "vap-lsp")
    data = doc.data
    problems = suite.problems
    if not isinstance(data, Mapping):
        problems.append(f"{path}: a test file is a mapping")
        return suite
    for key in data:
        if key not in _TOP_KEYS:
            problems.append(f"{path}: unknown field {key!r}")
    version = data.get("kubernetesVersion")
    suite.kubernetes_version = str(version) if version is not None else None
    objects: list[SourceObject] = []
    for key in ("policies", "resources"):
        for rel in _strings(data.get(key), f"{path}: {key}", problems):
            objects.extend(load_objects(resolve(path, rel), problems))
    inputs = PolicyInputs.from_objects(o.data for o in objects)
    suite.policies = tuple(policy_name(p) for p in inputs.policies)
    suite.policy_sources = [(o.data, o.path) for o in objects if policy_kind(o.data) is not None]
    cases = data.get("cases")
    if not isinstance(cases, list):
        problems.append(f"{path}: cases: expected a list")
        return suite
    for i, raw in enumerate(cases):
        where = f"{path}:{doc.line_of('cases', i) or 0}"
        case = _read_case(raw, i, where, objects, inputs, problems)
        if case is not None:
            case.line = doc.line_of("cases", i)
            suite.cases.append(case)
    return suite


def _object(raw: Any, where: str, objects: list[SourceObject], problems: list[str]) -> dict[str, Any] | None:
    """An inline object (it has `metadata` or `apiVersion`) or a reference into the resources."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: expected an object or a reference {{kind, name, namespace}}")
        return None
    if "metadata" in raw or ("apiVersion" in raw and "name" not in raw):
        return copy.deepcopy(dict(raw))
    found, error = find_object(objects, raw)
    if found is None:
        problems.append(f"{where}: {error}")
        return None
    return copy.deepcopy(found.data)


def _read_case(
    raw: Any,
    index: int,
    where: str,
    objects: list[SourceObject],
    inputs: PolicyInputs,
    problems: list[str],
) -> TestCase | None:
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: a case is a mapping")
        return None
    before = len(problems)
    for key in raw:
        if key not in _CASE_KEYS:
            problems.append(f"{where}: unknown field {key!r} in case")
    name = str(raw.get("name") or f"case {index + 1}")
    obj = _object(raw.get("object"), f"{where}: object", objects, problems)
    old = _object(raw.get("oldObject"), f"{where}: oldObject", objects, problems)
    operation = str(raw.get("operation") or operation_for(obj, old)).upper()
    if operation not in OPERATIONS:
        problems.append(f"{where}: operation {operation!r} is not one of {', '.join(OPERATIONS)}")
    case_inputs = PolicyInputs(
        list(inputs.policies),
        list(inputs.bindings),
        list(inputs.params),
        list(inputs.namespaces),
        list(inputs.crds),
    )
    params = raw.get("params")
    case_params: list[dict[str, Any]] = []
    for j, p in enumerate(params if isinstance(params, list) else []):
        param = _object(p, f"{where}: params[{j}]", objects, problems)
        if param is not None:
            case_params.append(param)
            if param not in case_inputs.params:
                case_inputs.params.append(param)
    namespace = raw.get("namespace")
    request_namespace: str | None = None
    if isinstance(namespace, str):
        request_namespace = namespace
    elif isinstance(namespace, Mapping):
        ns_obj = _object(namespace, f"{where}: namespace", objects, problems)
        if ns_obj is not None:
            case_inputs.namespaces.append(ns_obj)
            meta = ns_obj.get("metadata")
            if isinstance(meta, Mapping) and isinstance(meta.get("name"), str):
                request_namespace = meta["name"]
    elif namespace is not None:
        problems.append(f"{where}: namespace: expected a name or a Namespace object")
    expect = _expectation(raw.get("expect"), where, objects, problems)
    policy = raw.get("policy")
    if policy is not None and not any(policy_name(p) == policy for p in inputs.policies):
        problems.append(f"{where}: no policy named {policy!r} in the test's files")
    if len(problems) > before:
        return None
    notes: tuple[str, ...] = ()
    policy_object = next((p for p in inputs.policies if policy_name(p) == policy), None)
    if policy_object is not None and not bindings_of(case_inputs, str(policy)):
        # A policy without a binding never applies on a server; a test of it means "as if bound".
        case_inputs.bindings.append(
            synthesized_binding(policy_object, _param_for(policy_object, case_params or case_inputs.params))
        )
        notes = (f"no binding of {policy} in the test's files: evaluated with a synthesized binding",)
    options = raw.get("options")
    request = AdmissionRequestInput(
        operation=operation,
        object=obj,
        old_object=old,
        user=user_info(raw.get("user")),
        sub_resource=str(raw.get("subResource") or ""),
        dry_run=bool(raw.get("dryRun", False)),
        options=dict(options) if isinstance(options, Mapping) else None,
        namespace=request_namespace,
    )
    return TestCase(
        name,
        request,
        case_inputs,
        expect,
        str(policy) if policy is not None else None,
        Mode.SERVER,
        notes=notes,
    )


def _param_for(policy: Mapping[str, Any], params: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The one param of the policy's paramKind, for a synthesized binding's paramRef."""
    spec = policy.get("spec")
    kind = spec.get("paramKind") if isinstance(spec, Mapping) else None
    if not isinstance(kind, Mapping):
        return None
    found = [
        p
        for p in params
        if p.get("kind") == kind.get("kind") and p.get("apiVersion") == kind.get("apiVersion")
    ]
    return found[0] if len(found) == 1 else None


def _expectation(raw: Any, where: str, objects: list[SourceObject], problems: list[str]) -> Expectation:
    if isinstance(raw, str):
        try:
            return Expectation(decision=Decision(raw))
        except ValueError:
            problems.append(f"{where}: expect: {raw!r} is not one of {', '.join(d.value for d in Decision)}")
            return Expectation()
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: expect: a decision (admit, deny, ...) or a mapping is required")
        return Expectation()
    for key in raw:
        if key not in _EXPECT_KEYS:
            problems.append(f"{where}: unknown field {key!r} in expect")
    decision: Decision | None = None
    if raw.get("decision") is not None:
        try:
            decision = Decision(str(raw["decision"]))
        except ValueError:
            problems.append(f"{where}: expect.decision: {raw['decision']!r} is not a decision")
    allowed = raw.get("allowed")
    if allowed is not None and not isinstance(allowed, bool):
        problems.append(f"{where}: expect.allowed: expected true or false")
        allowed = None
    annotations = raw.get("auditAnnotations")
    patched = _object(raw.get("patchedObject"), f"{where}: expect.patchedObject", objects, problems)
    if decision is None and allowed is None and patched is None and not raw.get("messages"):
        problems.append(f"{where}: expect says nothing to check")
    return Expectation(
        decision=decision,
        allowed=allowed,
        messages=tuple(_strings(raw.get("messages"), f"{where}: expect.messages", problems)),
        warnings=tuple(_strings(raw.get("warnings"), f"{where}: expect.warnings", problems)),
        audit_annotations=(
            {str(k): str(v) for k, v in annotations.items()} if isinstance(annotations, Mapping) else {}
        ),
        patched=patched,
    )


def native_path_hint(path: Path) -> bool:
    name = path.name
    return name.endswith((".vaptest.yaml", ".vaptest.yml")) or name in (
        "vap-lsp-test.yaml",
        "vap-lsp-test.yml",
    )
