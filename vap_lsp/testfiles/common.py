"""Pieces every reader shares: object references, user info, synthesized bindings."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from vap_lsp.admission.api import PolicyInputs, UserInfo
from vap_lsp.policy.kinds import PolicyKind, recognise
from vap_lsp.schema.store import default_version, get_schema_set
from vap_lsp.testfiles.loader import SourceObject


def find_object(
    objects: Iterable[SourceObject], ref: Mapping[str, Any]
) -> tuple[SourceObject | None, str | None]:
    """The object a `{kind, name, namespace?, apiVersion?/group?/version?}` reference names."""
    kind, name = ref.get("kind"), ref.get("name")
    if not isinstance(name, str) or not name:
        return None, f"reference {dict(ref)} has no name"
    namespace = ref.get("namespace")
    api_version = ref.get("apiVersion")
    group, version = ref.get("group"), ref.get("version")
    found = []
    for obj in objects:
        if kind is not None and obj.kind != kind:
            continue
        if obj.name != name:
            continue
        if namespace is not None and obj.namespace != (namespace or ""):
            continue
        if isinstance(api_version, str) and obj.api_version != api_version:
            continue
        obj_group, _, obj_version = obj.api_version.rpartition("/")
        if isinstance(group, str) and obj_group != group:
            continue
        if isinstance(version, str) and obj_version != version:
            continue
        found.append(obj)
    if not found:
        return None, f"no object {_describe(ref)} in the resources"
    if namespace is None and len(found) > 1:
        # kaptest: without a namespace the reference means the cluster-scoped/unnamespaced one.
        unnamespaced = [o for o in found if not o.namespace]
        if len(unnamespaced) == 1:
            return unnamespaced[0], None
    return found[0], None


def in_default_namespace(obj: dict[str, Any], crds: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """A namespaced object without a namespace lands in `default` (as `kubectl apply` puts it);
    kaptest and Kyverno files leave it out, the API server never sees it without one."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or meta.get("namespace"):
        return obj
    api_version, kind = str(obj.get("apiVersion", "")), str(obj.get("kind", ""))
    group, _, version = api_version.rpartition("/")
    resource = get_schema_set(default_version()).resource_for_kind(group, version, kind)
    namespaced = resource.namespaced if resource is not None else None
    for crd in crds:
        spec = crd.get("spec")
        names = spec.get("names") if isinstance(spec, Mapping) else None
        if (
            isinstance(spec, Mapping)
            and isinstance(names, Mapping)
            and names.get("kind") == kind
            and spec.get("group") == group
        ):
            namespaced = spec.get("scope", "Namespaced") == "Namespaced"
    if namespaced:
        out = copy.deepcopy(obj)
        out["metadata"]["namespace"] = "default"
        return out
    return obj


def _describe(ref: Mapping[str, Any]) -> str:
    ns = ref.get("namespace")
    return f"{ref.get('kind', '*')} {ns + '/' if isinstance(ns, str) and ns else ''}{ref.get('name')}"


def user_info(raw: Any) -> UserInfo:
    """`authentication/v1 UserInfo`; `name`/`user` are accepted for `username` (kaptest files)."""
    if not isinstance(raw, Mapping):
        return UserInfo()
    username = raw.get("username", raw.get("name", raw.get("user")))
    groups = raw.get("groups")
    extra = raw.get("extra")
    return UserInfo(
        username=str(username) if username is not None else "system:anonymous",
        uid=str(raw.get("uid", "")),
        groups=tuple(str(g) for g in groups) if isinstance(groups, list) else (),
        extra=(
            {str(k): tuple(str(x) for x in (v if isinstance(v, list) else [v])) for k, v in extra.items()}
            if isinstance(extra, Mapping)
            else {}
        ),
    )


def operation_for(obj: object, old: object) -> str:
    """As kaptest: object only → CREATE, both → UPDATE, oldObject only → DELETE."""
    if obj is not None and old is not None:
        return "UPDATE"
    if obj is None and old is not None:
        return "DELETE"
    return "CREATE"


def policy_kind(obj: Mapping[str, Any]) -> PolicyKind | None:
    found = recognise(obj.get("apiVersion"), obj.get("kind"))
    return found[0] if found else None


def policy_name(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""


def synthesized_binding(
    policy: Mapping[str, Any], param: Mapping[str, Any] | None = None, *, match_all: bool = False
) -> dict[str, Any]:
    """A binding for a policy that has none in the test's files (kaptest and Kyverno apply a
    policy without one; the API server never does, so the runner says so in a note)."""
    kind = policy_kind(policy)
    binding_kind = (
        "MutatingAdmissionPolicyBinding" if kind is PolicyKind.MAP else "ValidatingAdmissionPolicyBinding"
    )
    name = policy_name(policy)
    spec: dict[str, Any] = {"policyName": name}
    if kind is not PolicyKind.MAP:
        spec["validationActions"] = ["Deny"]
    if param is not None:
        meta = param.get("metadata") if isinstance(param.get("metadata"), Mapping) else {}
        assert isinstance(meta, Mapping)
        ref: dict[str, Any] = {"name": meta.get("name", ""), "parameterNotFoundAction": "Deny"}
        if meta.get("namespace"):
            ref["namespace"] = meta["namespace"]
        spec["paramRef"] = ref
    if match_all:
        spec["matchResources"] = {"resourceRules": [_ALL_RULE]}
    return {
        "apiVersion": str(policy.get("apiVersion", "admissionregistration.k8s.io/v1")),
        "kind": binding_kind,
        "metadata": {"name": f"{name}-binding"},
        "spec": spec,
    }


_ALL_RULE = {"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "operations": ["*"]}


def match_everything(policy: Mapping[str, Any]) -> dict[str, Any]:
    """The policy with `matchConstraints` replaced by one that matches every request
    (kaptest never evaluates `matchConstraints`)."""
    out = copy.deepcopy(dict(policy))
    spec = out.setdefault("spec", {})
    if isinstance(spec, dict):
        spec["matchConstraints"] = {"resourceRules": [dict(_ALL_RULE)]}
    return out


def bindings_of(inputs: PolicyInputs, name: str) -> list[dict[str, Any]]:
    return [
        b
        for b in inputs.bindings
        if isinstance(b.get("spec"), Mapping) and b["spec"].get("policyName") == name
    ]


def subset_inputs(inputs: PolicyInputs, policy: str) -> PolicyInputs:
    """Only `policy` and its bindings (other policies of the same files do not count)."""
    return PolicyInputs(
        [p for p in inputs.policies if policy_name(p) == policy],
        bindings_of(inputs, policy),
        list(inputs.params),
        list(inputs.namespaces),
        list(inputs.crds),
        list(inputs.authorizer_rules),
    )
