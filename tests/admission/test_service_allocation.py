"""A Service's allocations are filled in before validating admission, not before mutating
admission: `Store.Create` calls the registry's `BeginCreate` (pkg/registry/core/service/storage/
storage.go `beginCreate` → alloc.go `allocateCreate`) before `rest.BeforeCreate` and
`createValidation` (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go).
The values are placeholders of a default single-stack IPv4 cluster (10.96.0.0/12, node ports
30000-32767); the cases follow storage_test.go (TestCreateInitIPFields "singlestack:v4",
TestCreateIgnoresIPsForExternalName, TestPatchAllocatedValues)."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
import yaml

from vap_lsp.admission.api import AdmissionRequestInput, PolicyInputs, admit

VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35"]


def policies(expression: str) -> PolicyInputs:
    text = f"""
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: p}}
spec:
  matchConstraints:
    resourceRules:
    - {{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["services"]}}
  validations:
  - expression: "{expression}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: b}}
spec: {{policyName: p, validationActions: [Deny]}}
"""
    return PolicyInputs.from_objects([d for d in yaml.safe_load_all(text) if d])


def create(spec: str, expression: str = "true", version: str = "1.35") -> Any:
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"}}
    svc["spec"] = yaml.safe_load(spec)
    return admit(AdmissionRequestInput("CREATE", svc), policies(expression), kubernetes_version=version)


def update(spec: str, old_spec: str, expression: str = "true") -> Any:
    meta = {"name": "web", "namespace": "shop"}
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": yaml.safe_load(spec)}
    old = {"apiVersion": "v1", "kind": "Service", "metadata": dict(meta), "spec": yaml.safe_load(old_spec)}
    return admit(
        AdmissionRequestInput("UPDATE", svc, old_object=old), policies(expression), kubernetes_version="1.35"
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_a_cluster_ip_service_has_an_address_and_single_stack_families(version: str) -> None:
    """TestCreateInitIPFields singlestack:v4 "ClusterIPs:unset_Policy:unset_Families:unset":
    SingleStack, [IPv4]; allocClusterIPs sets clusterIPs and clusterIP = clusterIPs[0]."""
    result = create(
        "{selector: {app: web}, ports: [{port: 80}]}",
        "object.spec.clusterIP != '' && object.spec.clusterIP == object.spec.clusterIPs[0]"
        " && object.spec.ipFamilyPolicy == 'SingleStack' && object.spec.ipFamilies == ['IPv4']",
        version,
    )
    assert result.allowed, result.denials
    ip = result.evaluated["spec"]["clusterIP"]
    assert ipaddress.ip_address(ip) in ipaddress.ip_network("10.96.0.0/12")
    assert any("spec.clusterIP" in n and "10.96.0.0/12" in n and "not knowable" in n for n in result.notes)


def test_the_placeholder_is_the_same_on_every_run_and_never_the_static_band() -> None:
    a = create("{ports: [{port: 80}]}").evaluated["spec"]["clusterIP"]
    b = create("{ports: [{port: 80}]}").evaluated["spec"]["clusterIP"]
    assert a == b
    assert ipaddress.ip_address(a) >= ipaddress.ip_address("10.96.1.0")  # above 10.96.0.1 (kubernetes)


def test_a_written_cluster_ip_is_kept_and_copied_into_cluster_ips() -> None:
    """normalizeClusterIPs on create: singular without plural → plural [singular]; no note."""
    result = create("{clusterIP: 10.96.5.5, ports: [{port: 80}]}", "object.spec.clusterIPs == ['10.96.5.5']")
    assert result.allowed, result.denials
    assert result.evaluated["spec"]["ipFamilies"] == ["IPv4"] and result.notes == []


def test_prefer_dual_stack_stays_one_family_on_a_single_stack_cluster() -> None:
    """TestCreateInitIPFields singlestack:v4 "ClusterIPs:unset_Policy:PreferDualStack_Families:unset"."""
    spec = create("{ipFamilyPolicy: PreferDualStack, ports: [{port: 80}]}").evaluated["spec"]
    assert spec["ipFamilyPolicy"] == "PreferDualStack" and spec["ipFamilies"] == ["IPv4"]
    assert len(spec["clusterIPs"]) == 1


def test_headless_services_get_no_address() -> None:
    """allocClusterIPs: headless (clusterIPs[0] None) gets none; initIPFamilyFields: with a
    selector SingleStack, without one RequireDualStack and both families."""
    with_selector = create("{clusterIP: None, selector: {app: web}}").evaluated["spec"]
    assert with_selector["clusterIP"] == "None" and with_selector["clusterIPs"] == ["None"]
    assert with_selector["ipFamilyPolicy"] == "SingleStack" and with_selector["ipFamilies"] == ["IPv4"]
    selectorless = create("{clusterIP: None}").evaluated["spec"]
    assert selectorless["clusterIPs"] == ["None"]
    assert selectorless["ipFamilyPolicy"] == "RequireDualStack"
    assert selectorless["ipFamilies"] == ["IPv4", "IPv6"]


def test_external_name_services_get_no_address_nor_families() -> None:
    """TestCreateIgnoresIPsForExternalName: a policy reading clusterIP fails as on a cluster."""
    result = create("{type: ExternalName, externalName: db.example.com}", "has(object.spec.clusterIP)")
    assert not result.allowed
    spec = result.evaluated["spec"]
    assert not {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} & spec.keys()
    assert result.notes == []


def test_node_port_services_get_a_node_port_per_port_shared_by_the_same_port_number() -> None:
    """initNodePorts: a requested nodePort is kept; ports with the same `port` (TCP and UDP)
    share one allocated node port."""
    spec = create(
        "{type: NodePort, ports: [{name: a, port: 53}, {name: b, port: 53, protocol: UDP},"
        " {name: c, port: 443, nodePort: 30443}]}",
        "object.spec.ports.all(p, p.nodePort >= 30000 && p.nodePort <= 32767)",
    ).evaluated["spec"]
    a, b, c = (p["nodePort"] for p in spec["ports"])
    assert a == b != c == 30443 and 30086 <= a <= 32767
    assert "healthCheckNodePort" not in spec


def test_load_balancer_without_node_ports_keeps_them_unset() -> None:
    """shouldAllocateNodePorts: allocateLoadBalancerNodePorts false allocates none."""
    spec = create("{type: LoadBalancer, allocateLoadBalancerNodePorts: false, ports: [{port: 80}]}")
    assert "nodePort" not in spec.evaluated["spec"]["ports"][0]


def test_a_local_load_balancer_gets_a_health_check_node_port() -> None:
    """allocHealthCheckNodePort (apiservice.NeedsHealthCheck: LoadBalancer + Local)."""
    result = create(
        "{type: LoadBalancer, externalTrafficPolicy: Local, ports: [{port: 80}]}",
        "object.spec.healthCheckNodePort > 0",
    )
    assert result.allowed, result.denials
    spec = result.evaluated["spec"]
    assert spec["healthCheckNodePort"] != spec["ports"][0]["nodePort"]
    assert "spec.healthCheckNodePort" in result.notes[0]
    cluster = create("{type: LoadBalancer, ports: [{port: 80}]}").evaluated["spec"]
    assert "healthCheckNodePort" not in cluster


def test_mutating_admission_sees_no_allocation_yet() -> None:
    """Mutating admission runs before Store.Create: the decoded Service has no clusterIP."""
    text = """
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: m}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["services"]}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {'had-ip': string(has(object.spec.clusterIP))}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: mb}
spec: {policyName: m}
"""
    inputs = PolicyInputs.from_objects([d for d in yaml.safe_load_all(text) if d])
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "n"}, "spec": {}}
    result = admit(AdmissionRequestInput("CREATE", svc), inputs, kubernetes_version="1.35")
    assert result.patched is not None and result.patched["metadata"]["labels"] == {"had-ip": "false"}
    assert result.evaluated is not None and "clusterIP" in result.evaluated["spec"]


def test_an_update_keeps_the_stored_allocations_the_client_left_out() -> None:
    """TestPatchAllocatedValues: clusterIP(s), node ports by port name and the health-check node
    port of the stored Service are kept; nothing is a placeholder."""
    stored = (
        "{type: LoadBalancer, externalTrafficPolicy: Local, clusterIP: 10.96.7.7, clusterIPs: [10.96.7.7],"
        " ipFamilyPolicy: SingleStack, ipFamilies: [IPv4], healthCheckNodePort: 31000,"
        " ports: [{name: http, port: 80, nodePort: 30080}]}"
    )
    result = update(
        "{type: LoadBalancer, externalTrafficPolicy: Local, ports: [{name: http, port: 80}]}",
        stored,
        "object.spec.clusterIP == oldObject.spec.clusterIP",
    )
    assert result.allowed, result.denials
    spec = result.evaluated["spec"]
    assert spec["clusterIPs"] == ["10.96.7.7"] and spec["ports"][0]["nodePort"] == 30080
    assert spec["healthCheckNodePort"] == 31000 and spec["ipFamilyPolicy"] == "SingleStack"
    assert result.notes == []


def test_an_update_allocates_only_what_it_newly_needs() -> None:
    """allocateUpdate: ExternalName → ClusterIP allocates an address (updateClusterIPs case A);
    a new port of a NodePort Service gets a node port, the stored one is kept."""
    turned = update("{type: ClusterIP, ports: [{port: 80}]}", "{type: ExternalName, externalName: x.example}")
    assert turned.evaluated["spec"]["clusterIP"].startswith("10.")
    assert "spec.clusterIP" in turned.notes[0]
    grown = update(
        "{type: NodePort, clusterIP: 10.96.7.7, ports: [{name: a, port: 80}, {name: b, port: 81}]}",
        "{type: NodePort, clusterIP: 10.96.7.7, ports: [{name: a, port: 80, nodePort: 30080}]}",
    )
    a, b = grown.evaluated["spec"]["ports"]
    assert a["nodePort"] == 30080 and b["nodePort"] not in (0, 30080)
    assert grown.notes and "spec.ports[1].nodePort" in grown.notes[0]
    assert "spec.ports[0]" not in grown.notes[0]


def test_a_service_written_as_stored_gets_the_same_verdict() -> None:
    """Idempotence: written with its allocations, nothing is replaced."""
    written = (
        "{type: NodePort, clusterIP: 10.96.9.9, clusterIPs: [10.96.9.9], ipFamilyPolicy: SingleStack,"
        " ipFamilies: [IPv4], ports: [{port: 80, nodePort: 30080}]}"
    )
    result = create(written, "object.spec.ports[0].nodePort == 30080 && object.spec.clusterIP == '10.96.9.9'")
    assert result.allowed and result.notes == []


@pytest.mark.parametrize(
    "spec",
    ["{type: 3}", "{clusterIPs: 7}", "{ipFamilies: x}", "{ports: [1, {nodePort: x}], type: NodePort}", "[]"],
)
def test_malformed_services_never_crash(spec: str) -> None:
    result = create(spec)
    assert result.evaluated is not None
