"""pfnet/kaptest test manifests (v0.1 `validatingAdmissionPolicies`/`testSuites` and v0.2
`policies`/`vapTestSuites`/`mapTestSuites`), so kaptest users can switch without rewriting.

kaptest evaluates one policy's expressions, not an admission: `matchConstraints` are never
evaluated, `failurePolicy` does not change the result, `request.dryRun` is true, the param is
named by the case. Cases run in `Mode.KAPTEST` with the policy rewritten to match every request
and a binding synthesized for the named param; the runner says when the API server would not
have matched the object at all.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs
from vap_lsp.policy.kinds import PolicyKind
from vap_lsp.testfiles.common import (
    find_object,
    in_default_namespace,
    match_everything,
    operation_for,
    policy_kind,
    policy_name,
    synthesized_binding,
    user_info,
)
from vap_lsp.testfiles.loader import SourceObject, TestDocument, load_objects, resolve
from vap_lsp.testfiles.model import Decision, Expectation, Mode, TestCase, TestSuite

_SUITE_KEYS = ("testSuites", "vapTestSuites", "mapTestSuites")
_POLICY_KEYS = ("policies", "validatingAdmissionPolicies", "mutatingAdmissionPolicies")


def is_kaptest(data: Any) -> bool:
    return (
        isinstance(data, Mapping)
        and any(isinstance(data.get(k), list) for k in _SUITE_KEYS)
        and any(k in data for k in (*_POLICY_KEYS, "resources"))
    )


def _ref(raw: Any) -> Mapping[str, Any] | None:
    return raw if isinstance(raw, Mapping) else None


def read_kaptest(doc: TestDocument) -> TestSuite:
    path = doc.path
    suite = TestSuite(str(path), "kaptest")
    data = doc.data
    problems = suite.problems
    if not isinstance(data, Mapping):
        problems.append(f"{path}: a test manifest is a mapping")
        return suite
    policy_objects: list[SourceObject] = []
    resources: list[SourceObject] = []
    for key in _POLICY_KEYS:
        for rel in _list(data.get(key)):
            policy_objects.extend(load_objects(resolve(path, str(rel)), problems))
    for rel in _list(data.get("resources")):
        resources.extend(load_objects(resolve(path, str(rel)), problems))
    crds: list[dict[str, Any]] = []
    for rel in _list(data.get("crds")):
        if isinstance(rel, str) and not rel.startswith(("http://", "https://")):
            crds.extend(o.data for o in load_objects(resolve(path, rel), problems))
    policies = {policy_name(o.data): o.data for o in policy_objects if policy_kind(o.data) is not None}
    suite.policies = tuple(policies)
    suite.policy_sources = [(o.data, o.path) for o in policy_objects if policy_kind(o.data) is not None]
    namespaces = [o.data for o in resources if o.kind == "Namespace" and o.api_version == "v1"]
    for key in _SUITE_KEYS:
        for s, raw_suite in enumerate(_list(data.get(key))):
            if not isinstance(raw_suite, Mapping):
                problems.append(f"{path}: {key}[{s}]: expected a mapping")
                continue
            name = raw_suite.get("policy")
            policy = policies.get(str(name))
            if policy is None:
                problems.append(f"{path}:{doc.line_of(key, s) or 0}: no policy named {name!r}")
                continue
            for t, test in enumerate(_list(raw_suite.get("tests"))):
                line = doc.line_of(key, s, "tests", t)
                case = _case(test, str(name), policy, resources, namespaces, crds, f"{path}:{line}", problems)
                if case is not None:
                    case.line = line
                    suite.cases.append(case)
    return suite


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _case(
    raw: Any,
    name: str,
    policy: dict[str, Any],
    resources: list[SourceObject],
    namespaces: list[dict[str, Any]],
    crds: list[dict[str, Any]],
    where: str,
    problems: list[str],
) -> TestCase | None:
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: a test is a mapping")
        return None
    before = len(problems)

    def lookup(key: str) -> dict[str, Any] | None:
        ref = _ref(raw.get(key))
        if ref is None:
            return None
        found, error = find_object(resources, ref)
        if found is None:
            problems.append(f"{where}: {key}: {error}")
            return None
        return copy.deepcopy(found.data)

    obj, old = lookup("object"), lookup("oldObject")
    param: dict[str, Any] | None = None
    param_ref = _ref(raw.get("param"))
    spec = policy.get("spec") if isinstance(policy.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    param_kind = spec.get("paramKind") if isinstance(spec.get("paramKind"), Mapping) else None
    if param_ref is not None:
        ref = dict(param_ref)
        if param_kind is not None:
            ref.setdefault("kind", param_kind.get("kind"))
            ref.setdefault("apiVersion", param_kind.get("apiVersion"))
        found, error = find_object(resources, ref)
        if found is None:
            problems.append(f"{where}: param: {error}")
        else:
            # kaptest hands the param over directly; on a server an unnamespaced ConfigMap is
            # in `default`, and the synthesized paramRef names that namespace.
            param = in_default_namespace(copy.deepcopy(found.data), crds)
    raw_expect = str(raw.get("expect", ""))
    try:
        decision = Decision(raw_expect)
    except ValueError:
        problems.append(f"{where}: expect: {raw_expect!r} is not admit, deny, skip, error or mutate")
        decision = None
    patched: dict[str, Any] | None = None
    if raw.get("expectObject") is not None:
        patched = lookup("expectObject")
        if patched is not None and obj is not None and not raw.get("disableNameOverwrite"):
            patched.setdefault("metadata", {})["name"] = obj.get("metadata", {}).get("name")
    if len(problems) > before or (obj is None and old is None):
        if obj is None and old is None and len(problems) == before:
            problems.append(f"{where}: a test needs object or oldObject")
        return None
    messages = raw.get("deniedMessage")
    rewritten = match_everything(policy)
    rewritten["spec"]["failurePolicy"] = "Fail"  # errors must not pass silently
    inputs = PolicyInputs(
        [rewritten],
        [synthesized_binding(policy, param)],
        [param] if param is not None else [],
        list(namespaces),
        list(crds),
    )
    request = AdmissionRequestInput(
        operation=operation_for(obj, old),
        object=obj,
        old_object=old,
        user=user_info(raw.get("userInfo")),
        dry_run=True,
    )
    label = "/".join(str(x.get("metadata", {}).get("name")) for x in (obj, old) if isinstance(x, dict))
    kind = "MAP" if policy_kind(policy) is PolicyKind.MAP else "VAP"
    return TestCase(
        f"{name} {request.operation} {label} → {raw_expect}",
        request,
        inputs,
        Expectation(
            decision=decision,
            messages=(str(messages),) if isinstance(messages, str) and messages else (),
            patched=patched,
        ),
        name,
        Mode.KAPTEST,
        notes=(f"kaptest semantics ({kind}): matchConstraints and failurePolicy not applied",),
        original_policy=policy,
        builtin_admission=False,
    )


def kaptest_path_hint(path: Path) -> bool:
    return path.name in ("kaptest.yaml", "kaptest.yml")
