"""What the Service registry allocates before validating admission: cluster IPs, IP families and
their policy, node ports and the health-check node port.

`Store.Create` (`staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go`) calls the
`BeginCreate` hook after `FillObjectMetaSystemFields` and before `rest.BeforeCreate` (built-in
validation) and `createValidation` (validating admission); `Store.Update` calls `BeginUpdate`
before `rest.BeforeUpdate` and `updateValidation`. The Service registry's hooks
(`pkg/registry/core/service/storage/storage.go` `beginCreate`/`beginUpdate`, `alloc.go`
`allocateCreate`/`allocateUpdate`, the same in 1.30–1.35) fill in, in that order:

- `normalizeClusterIPs`: a `clusterIP` without `clusterIPs` becomes `clusterIPs: [clusterIP]`;
- `initIPFamilyFields` (not for ExternalName): `ipFamilyPolicy` SingleStack when unset
  (RequireDualStack for a headless Service without selector; on update the stored policy),
  `ipFamilies` inferred from `clusterIPs`, else the cluster's primary family;
- `allocClusterIPs` (not for ExternalName nor headless `clusterIP: None`): an address per family
  without one, `clusterIP` = `clusterIPs[0]`;
- `initNodePorts` (NodePort, and LoadBalancer unless `allocateLoadBalancerNodePorts: false`):
  a `nodePort` per port without one (ports with the same `port` share it);
- `allocHealthCheckNodePort` (LoadBalancer with `externalTrafficPolicy: Local`).

On update `patchAllocatedValues` keeps the stored allocations a client left out (clusterIP(s),
node ports by port name, the health-check node port), and only what is still missing is
allocated (a Service turned from ExternalName into ClusterIP, a new port of a NodePort Service).

The allocated values themselves are not knowable offline (a random free address of the
cluster's service CIDR, a random free port): vap-lsp fills in deterministic placeholders, derived
from the object, of a default single-stack IPv4 cluster as kubeadm configures it
(`--service-cluster-ip-range=10.96.0.0/12`, node ports 30000-32767), each in the band the
allocators draw dynamic values from (above the static band of `ServiceIPStaticSubrange` and
`ServiceNodePortStaticSubrange`), and says so in a note.
"""

from __future__ import annotations

import hashlib
from typing import Any

from vap_lsp.defaulting.rules import JsonDict, maps_in

SERVICE_CIDR = "10.96.0.0/12"
"""The service CIDR placeholders come from (kubeadm's default; the real range is a flag)."""
SERVICE_CIDR_V6 = "fd00:10:96::/112"
"""For a second family (RequireDualStack, or IPv6 addresses written in `clusterIPs`)."""
NODE_PORT_RANGE = (30000, 32767)
"""`--service-node-port-range`, the default."""

_V4_BASE = (10 << 24) | (96 << 16)
_V4_SIZE = 1 << 20
_V4_STATIC = 256  # min(max(16, size/16), 256): ipallocator's static band (ServiceIPStaticSubrange)
_PORT_STATIC = 86  # min(max(16, size/32), 128): portallocator's static band


def _seed(obj: JsonDict, purpose: str) -> int:
    meta = obj.get("metadata")
    key = repr((purpose, meta.get("namespace"), meta.get("name")) if isinstance(meta, dict) else purpose)
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


def _family(ip: str) -> str:
    return "IPv6" if ":" in ip else "IPv4"


def _placeholder_ip(family: str, seed: int) -> str:
    if family == "IPv6":
        return f"fd00:10:96::{(seed % 0xFFFE) + 1:x}"
    offset = _V4_STATIC + seed % (_V4_SIZE - _V4_STATIC - 1)
    n = _V4_BASE + offset
    return ".".join(str((n >> s) & 0xFF) for s in (24, 16, 8, 0))


class _Ports:
    """Placeholder node ports from the dynamic band, never one the object already uses."""

    def __init__(self, obj: JsonDict, used: set[int]) -> None:
        low, high = NODE_PORT_RANGE
        self.low = low + _PORT_STATIC
        self.size = high - self.low + 1
        self.next = _seed(obj, "nodePort") % self.size
        self.used = used

    def take(self) -> int:
        for _ in range(self.size):
            port = self.low + self.next
            self.next = (self.next + 1) % self.size
            if port not in self.used:
                self.used.add(port)
                return port
        return 0


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _ports(spec: JsonDict) -> list[JsonDict]:
    return maps_in(spec.get("ports"))


def _strings(v: Any) -> list[str] | None:
    """A list of strings as written (None when absent or of another shape)."""
    return list(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else None


def _needs_node_ports(spec: JsonDict) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def _allocates_node_ports(spec: JsonDict) -> bool:
    """shouldAllocateNodePorts: NodePort always, LoadBalancer unless allocateLoadBalancerNodePorts
    is false (it is defaulted true)."""
    kind = spec.get("type")
    return kind == "NodePort" or (
        kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not False
    )


def _needs_health_check(spec: JsonDict) -> bool:
    """apiservice.NeedsHealthCheck."""
    return spec.get("type") == "LoadBalancer" and spec.get("externalTrafficPolicy") == "Local"


def _init_ip_families(spec: JsonDict, old: JsonDict | None) -> bool:
    """initIPFamilyFields on a single-stack IPv4 cluster; False when the input is of a shape the
    server rejects (then nothing is allocated)."""
    if spec.get("type") == "ExternalName":
        return True
    headless_selectorless = spec.get("clusterIP") == "None" and not spec.get("selector")
    if spec.get("ipFamilyPolicy") is None:
        if old is not None and isinstance(old.get("ipFamilyPolicy"), str):
            spec["ipFamilyPolicy"] = old["ipFamilyPolicy"]
        elif headless_selectorless:
            spec["ipFamilyPolicy"] = "RequireDualStack"
        else:
            spec["ipFamilyPolicy"] = "SingleStack"
    policy = spec["ipFamilyPolicy"]
    families = spec.get("ipFamilies")
    ips = _strings(spec.get("clusterIPs")) or []
    if families is None:
        families = []
    if not isinstance(families, list) or not isinstance(policy, str):
        return False
    for i, ip in enumerate(ips):
        if ip == "None":
            break
        if i >= len(families):
            families.append(_family(ip))
    if headless_selectorless or policy == "RequireDualStack":
        # Headless without selector is allowed two families on any cluster; RequireDualStack
        # only on a dual-stack one (a single-stack cluster rejects it): evaluated as there.
        if not families:
            families.append("IPv4")
        if len(families) < 2 and policy != "SingleStack":
            families.append("IPv6" if families[0] == "IPv4" else "IPv4")
    elif not families:
        families.append("IPv4")
    spec["ipFamilies"] = families
    return True


def _alloc_cluster_ips(obj: JsonDict, spec: JsonDict, placeholders: list[str]) -> None:
    """allocClusterIPs: an address per family without one (not ExternalName, not headless)."""
    if spec.get("type") == "ExternalName":
        return
    written = spec.get("clusterIPs")
    ips = [] if written is None else _strings(written)
    families = spec.get("ipFamilies")
    if ips is None or not isinstance(families, list):
        return
    if ips and ips[0] == "None":
        return
    seed = _seed(obj, "clusterIP")
    for i, family in enumerate(families):
        if i >= len(ips):
            ips.append("")
        if ips[i] == "" and isinstance(family, str):
            ips[i] = _placeholder_ip(family, seed + i)
            placeholders += ["spec.clusterIP", "spec.clusterIPs[0]"] if i == 0 else [f"spec.clusterIPs[{i}]"]
    spec["clusterIPs"] = ips
    if ips and ips[0]:
        spec["clusterIP"] = ips[0]


def _init_node_ports(spec: JsonDict, alloc: _Ports, placeholders: list[str]) -> None:
    """initNodePorts: ports with the same `port` share one node port, a requested one first."""
    ports = _ports(spec)
    by_port: dict[Any, int] = {}
    allocated: set[int] = set()
    for i, port in enumerate(ports):
        node_port = _int(port.get("nodePort"))
        if node_port == 0 and not _allocates_node_ports(spec):
            continue
        number = port.get("port")
        shared = by_port.get(number, 0)
        if shared == 0:
            requested = next(
                (
                    _int(p.get("nodePort"))
                    for p in ports
                    if p.get("port") == number and _int(p.get("nodePort"))
                ),
                0,
            )
            if requested:
                port["nodePort"] = by_port[number] = requested
            else:
                port["nodePort"] = by_port[number] = alloc.take()
                allocated.add(port["nodePort"])
                placeholders.append(f"spec.ports[{i}].nodePort")
        elif node_port == 0:
            port["nodePort"] = shared
            if shared in allocated:
                placeholders.append(f"spec.ports[{i}].nodePort")


def _alloc_health_check(spec: JsonDict, alloc: _Ports, placeholders: list[str]) -> None:
    if _int(spec.get("healthCheckNodePort")) == 0:
        spec["healthCheckNodePort"] = alloc.take()
        placeholders.append("spec.healthCheckNodePort")


def _used_ports(*specs: JsonDict | None) -> set[int]:
    used = set()
    for spec in specs:
        if spec is not None:
            used |= {_int(p.get("nodePort")) for p in _ports(spec)} | {_int(spec.get("healthCheckNodePort"))}
    return used - {0}


def _note(placeholders: list[str]) -> list[str]:
    if not placeholders:
        return []
    sources = []
    if any("clusterIP" in p for p in placeholders):
        sources.append(f"an address of its service CIDR, assumed {SERVICE_CIDR} (single-stack IPv4)")
    if any("odePort" in p for p in placeholders):
        sources.append(f"a free port of its node port range {NODE_PORT_RANGE[0]}-{NODE_PORT_RANGE[1]}")
    return [
        f"{', '.join(placeholders)}: placeholders for what the API server allocates before validating "
        f"admission ({'; '.join(sources)}); the real values are not knowable offline"
    ]


def allocate_create(obj: JsonDict) -> list[str]:
    """beginCreate on a decoded Service (in place); the notes say which values are placeholders."""
    spec = obj.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        return []
    ip = spec.get("clusterIP")
    if isinstance(ip, str) and ip and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [ip]
    placeholders: list[str] = []
    if not _init_ip_families(spec, None):
        return []
    _alloc_cluster_ips(obj, spec, placeholders)
    alloc = _Ports(obj, _used_ports(spec))
    if _needs_node_ports(spec):
        _init_node_ports(spec, alloc, placeholders)
    if _needs_health_check(spec):
        _alloc_health_check(spec, alloc, placeholders)
    return _note(placeholders)


def _patch_allocated(spec: JsonDict, old: JsonDict) -> None:
    """patchAllocatedValues: what the client left out of the stored allocations is kept."""
    if spec.get("type") != "ExternalName" and old.get("type") != "ExternalName":
        if not spec.get("clusterIP") and "clusterIP" in old:
            spec["clusterIP"] = old["clusterIP"]
        if not spec.get("clusterIPs") and old.get("clusterIPs"):
            spec["clusterIPs"] = list(old["clusterIPs"])
    if _needs_node_ports(spec) and _needs_node_ports(old):
        used = {_int(p.get("nodePort")) for p in _ports(old)} & {
            _int(p.get("nodePort")) for p in _ports(spec)
        }
        by_name = {p.get("name"): _int(p.get("nodePort")) for p in _ports(old)}
        for port in _ports(spec):
            if _int(port.get("nodePort")) == 0:
                stored = by_name.get(port.get("name"), 0)
                if stored and stored not in used:
                    port["nodePort"] = stored
    kept = _int(old.get("healthCheckNodePort"))
    both = _needs_health_check(spec) and _needs_health_check(old)
    if both and kept and not _int(spec.get("healthCheckNodePort")):
        spec["healthCheckNodePort"] = kept


def _normalize_update(spec: JsonDict, old: JsonDict) -> None:
    """normalizeClusterIPs on update: clusterIPs follow a clusterIP an old client kept or changed."""
    old_ips, ips = _strings(old.get("clusterIPs")) or [], _strings(spec.get("clusterIPs")) or []
    if old_ips and not ips and old.get("clusterIP") == spec.get("clusterIP"):
        spec["clusterIPs"] = ips = list(old_ips)
    if old.get("clusterIP") != spec.get("clusterIP") and ips == old_ips:
        if old.get("clusterIP") and not spec.get("clusterIP"):
            spec.pop("clusterIPs", None)
        elif isinstance(spec.get("clusterIP"), str):
            spec["clusterIPs"] = [spec["clusterIP"]]


def allocate_update(obj: JsonDict, old_obj: JsonDict) -> list[str]:
    """beginUpdate on a decoded Service against the stored one (in place): stored allocations are
    kept; only what the update newly needs is allocated (placeholders, noted)."""
    spec, old = obj.get("spec"), old_obj.get("spec")
    if not isinstance(spec, dict) or not isinstance(old, dict) or not isinstance(spec.get("type"), str):
        return []
    _patch_allocated(spec, old)
    _normalize_update(spec, old)
    if not _init_ip_families(spec, old):
        return []
    placeholders: list[str] = []
    if old.get("type") == "ExternalName" and spec.get("type") != "ExternalName":
        _alloc_cluster_ips(obj, spec, placeholders)
    alloc = _Ports(obj, _used_ports(spec, old))
    if _needs_node_ports(spec):
        for i, port in enumerate(_ports(spec)):
            if _int(port.get("nodePort")) == 0 and _allocates_node_ports(spec):
                port["nodePort"] = alloc.take()
                placeholders.append(f"spec.ports[{i}].nodePort")
    if _needs_health_check(spec):  # updateHealthCheckNodePort (a kept one was patched in above)
        _alloc_health_check(spec, alloc, placeholders)
    return _note(placeholders)
