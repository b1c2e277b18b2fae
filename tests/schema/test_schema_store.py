"""Loader API: versions, lazy loading, definitions, REST mapping."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vap_lsp.schema import (
    Resource,
    available_versions,
    default_version,
    get_schema_set,
    normalize_version,
)
from vap_lsp.schema.store import prerelease

AR = "admissionregistration.k8s.io"


def test_versions() -> None:
    assert available_versions() == ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37", "1.38"]
    assert default_version() == "1.37"


@pytest.mark.parametrize("raw", ["1.33", "v1.33", "1.33.2", "v1.33.2", " 1.33 ", "1.33.0-gke.1"])
def test_normalize_version(raw: str) -> None:
    assert normalize_version(raw) == "1.33"


@pytest.mark.parametrize("raw", ["1.29", "2.0", "latest", "", "1"])
def test_normalize_version_rejects(raw: str) -> None:
    with pytest.raises(ValueError, match=r"available versions: 1\.30, .*1\.37"):
        normalize_version(raw)


def test_get_schema_set_is_cached_and_normalizes() -> None:
    assert get_schema_set("v1.35.1") is get_schema_set("1.35")


def test_import_reads_no_data_and_first_lookup_loads_one_shard() -> None:
    code = (
        "import vap_lsp.schema as s, vap_lsp.schema.store as st\n"
        "assert not st._shards and not st._sets\n"
        "ss = s.get_schema_set('1.35')\n"
        "assert ss._rest is None and ss._index is None\n"
        "name = ss.definition_for_kind('admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy')\n"
        "assert ss._index is None and not st._shards\n"
        "assert ss.definition(name) is not None\n"
        "print(sorted(k.split('-')[0] for k in st._shards))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "['admissionregistration.v1']"


@pytest.mark.parametrize("version", ["1.30", "1.35", "1.37"])
def test_vap_definitions(version: str) -> None:
    ss = get_schema_set(version)
    name = ss.definition_for_kind(AR, "v1", "ValidatingAdmissionPolicy")
    assert name == "io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy"
    d = ss.definition(name)
    assert d is not None
    assert set(d["properties"]) == {"apiVersion", "kind", "metadata", "spec", "status"}
    assert d["x-kubernetes-group-version-kind"] == [
        {"group": AR, "kind": "ValidatingAdmissionPolicy", "version": "v1"}
    ]
    spec = ss.resolve(d["properties"]["spec"])
    # The field's own description wins over the type's.
    assert "desired behavior of the ValidatingAdmissionPolicy" in spec["description"]
    assert "validations" in spec["properties"]
    validations = spec["properties"]["validations"]
    assert validations["type"] == "array"
    assert validations["items"]["$ref"] == "io.k8s.api.admissionregistration.v1.Validation"
    assert "expression" in ss.definition("io.k8s.api.admissionregistration.v1.Validation")["required"]  # type: ignore[index]


def test_extensions_and_defaults_kept() -> None:
    ss = get_schema_set("1.35")
    spec = ss.definition("io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec")
    assert spec is not None
    mc = spec["properties"]["matchConditions"]
    assert mc["x-kubernetes-list-type"] == "map"
    assert mc["x-kubernetes-list-map-keys"] == ["name"]
    assert mc["items"] == {"$ref": "io.k8s.api.admissionregistration.v1.MatchCondition", "default": {}}
    ios = ss.definition("io.k8s.apimachinery.pkg.util.intstr.IntOrString")
    assert ios is not None and ios["format"] == "int-or-string"
    meta = ss.definition("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    assert meta is not None and meta["properties"]["labels"]["additionalProperties"]["type"] == "string"


def test_mutating_admission_policy_by_version() -> None:
    def served(v: str) -> set[str]:
        return {
            ver
            for (g, ver, k) in get_schema_set(v).served_kinds()
            if g == AR and k == "MutatingAdmissionPolicy"
        }

    assert served("1.31") == set()
    assert served("1.32") == {"v1alpha1"}
    assert "v1beta1" in served("1.34")
    assert "v1" not in served("1.35")
    assert "v1" in served("1.36")
    assert "v1" in served("1.37")
    ss = get_schema_set("1.37")
    for kind, resource in [
        ("MutatingAdmissionPolicy", "mutatingadmissionpolicies"),
        ("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings"),
    ]:
        r = ss.resource_for_kind(AR, "v1", kind)
        assert r is not None and r.resource == resource and not r.namespaced
        name = ss.definition_for_kind(AR, "v1", kind)
        assert name == f"io.k8s.api.admissionregistration.v1.{kind}"
        assert ss.definition(name) is not None
    spec = ss.definition("io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicySpec")
    assert spec is not None and {"mutations", "reinvocationPolicy", "matchConstraints"} <= set(
        spec["properties"]
    )
    assert spec["properties"]["failurePolicy"]["type"] == "string"  # no ["string", "null"] left
    assert ss.provenance["derived"] is False and ss.provenance["release"] == "v1.37.2"
    assert get_schema_set("1.35").provenance["derived"] is False


def test_kinds_for() -> None:
    ss = get_schema_set("1.35")
    assert ss.kinds_for("apps", "v1", "deployments") == [("apps", "v1", "Deployment")]
    assert ss.kinds_for("apps", "v1", "Deployments") == [("apps", "v1", "Deployment")]
    assert ss.kinds_for("apps", "v1", "deployments/scale") == [("autoscaling", "v1", "Scale")]
    assert ss.kinds_for("apps", "v1", "deployments/status") == [("apps", "v1", "Deployment")]
    assert ss.kinds_for("", "v1", "pods") == [("", "v1", "Pod")]
    assert ss.kinds_for("", "v1", "pods/eviction") == [("policy", "v1", "Eviction")]
    assert ss.kinds_for("", "v1", "pods/exec") == [("", "v1", "PodExecOptions")]
    assert ss.kinds_for("", "v1", "deployments") == []
    assert ss.kinds_for("apps", "v1", "deployments/nope") == []
    # Preferred version first.
    assert ss.kinds_for("autoscaling", "*", "horizontalpodautoscalers") == [
        ("autoscaling", "v2", "HorizontalPodAutoscaler"),
        ("autoscaling", "v1", "HorizontalPodAutoscaler"),
    ]
    assert ss.kinds_for(AR, "*", "validatingadmissionpolicies")[0] == (AR, "v1", "ValidatingAdmissionPolicy")
    assert ("", "v1", "Event") in ss.kinds_for("*", "*", "events")
    assert ("events.k8s.io", "v1", "Event") in ss.kinds_for("*", "*", "events")


def test_resources_and_groups() -> None:
    ss = get_schema_set("1.35")
    groups = ss.groups()
    assert groups[""] == ["v1"]
    assert groups["autoscaling"] == ["v2", "v1"]
    assert groups[AR][0] == "v1"
    core = {r.resource: r for r in ss.resources("")}
    assert core["pods"].namespaced and not core["namespaces"].namespaced and not core["nodes"].namespaced
    assert core["pods"].subresources["status"].kind == "Pod"
    assert "create" in core["pods"].verbs and "watch" in core["pods"].verbs
    assert "status" in core["namespaces"].subresources
    vap = ss.resource_for_kind(AR, "v1", "ValidatingAdmissionPolicy")
    assert isinstance(vap, Resource)
    assert vap.resource == "validatingadmissionpolicies" and vap.api_version == f"{AR}/v1"
    assert vap.subresources["status"].kind == "ValidatingAdmissionPolicy"
    assert hash(vap)  # frozen and hashable
    assert all(r.group == AR for r in ss.resources(AR))
    assert len(ss.resources()) > 80
    served = ss.served_kinds()
    assert ("apps", "v1", "Deployment") in served and ("autoscaling", "v1", "Scale") not in served


def test_resolve_is_cycle_safe() -> None:
    ss = get_schema_set("1.35")
    assert ss.resolve({"$ref": "does.not.Exist"}) == {"$ref": "does.not.Exist"}
    props = ss.definition("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
    assert props is not None  # self-referential type
    assert ss.resolve(props["properties"]["not"])["properties"]["not"] == {
        "$ref": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"
    }
    assert ss.definition("nope") is None


def test_every_ref_and_kind_resolves() -> None:
    for v in available_versions():
        ss = get_schema_set(v)
        names = set(ss.definition_names())
        for r in ss.resources():
            assert ss.definition_for_kind(r.group, r.version, r.kind) in names, (v, r)

        def refs(x: object) -> list[str]:
            if isinstance(x, dict):
                out = [x["$ref"]] if isinstance(x.get("$ref"), str) else []
                return out + [r for val in x.values() for r in refs(val)]
            if isinstance(x, list):
                return [r for val in x for r in refs(val)]
            return []

        for n in names:
            missing = set(refs(ss.definition(n))) - names
            assert not missing, (v, n, missing)


@pytest.mark.parametrize(
    ("version", "served"), [("1.35", False), ("1.36", True), ("1.37", True), ("1.38", True)]
)
def test_mutating_admission_policy_v1_is_served_from_136(version: str, served: bool) -> None:
    """k8s.io/kubernetes pkg/registry/admissionregistration/rest/storage_apiserver.go `v1Storage`:
    mutatingadmissionpolicies and their bindings from v1.36.3 on (v1.35.4 serves them only as
    v1alpha1 and v1beta1); the schemas of 1.36-1.38 are those releases' own OpenAPI."""
    schema_set = get_schema_set(version)
    for kind in ("MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"):
        assert (schema_set.definition_for_kind(AR, "v1", kind) is not None) is served


def test_the_newest_version_is_a_pre_release_and_not_the_default() -> None:
    """1.38 is k8s.io/kubernetes v1.38.0-beta.0's OpenAPI: selectable, never the default."""
    assert prerelease("1.38") == "v1.38.0-beta.0"
    assert prerelease("1.37") is None and default_version() == "1.37"
