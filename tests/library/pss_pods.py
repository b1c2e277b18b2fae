"""Generated Pods for the differential test of `vap-lsp library pss` against Pod Security
Admission's own evaluator, and the Go program that runs it.

The strategy reaches every field a PSA check reads (`policy/check_*.go`), with values on both
sides of each check: securityContext of the pod and of each container (privileged,
allowPrivilegeEscalation, capabilities, procMount, runAsNonRoot, runAsUser, seccompProfile,
appArmorProfile, seLinuxOptions, windowsOptions, sysctls), host namespaces, hostUsers, os,
volumes of every source PSA names, ports, probes and lifecycle handlers with and without host,
the beta AppArmor and alpha seccomp annotations, runtimeClassName, init and ephemeral containers.
Values are drawn mostly from the ones the checks compare with (allowed lists of every version,
their neighbours) so that most Pods are near a boundary.

The oracle is `vap-oracle pss` (issue 34's oracle, `oracle/cmd/vap-oracle/pss.go`: PSA's own
evaluator, k8s.io/pod-security-admission v0.37.2); `PssOracle` answers over one `batch` pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.oracle import harness

ROOT = Path(__file__).resolve().parents[2]

CAPABILITIES = [
    "ALL",
    "NET_BIND_SERVICE",
    "CHOWN",
    "KILL",
    "SYS_CHROOT",
    "AUDIT_WRITE",
    "NET_RAW",
    "SYS_ADMIN",
    "SYS_TIME",
    "all",
    "CAP_CHOWN",
    "",
]
SYSCTLS = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_notsent_lowat",
    "kernel.msgmax",
    "net.core.somaxconn",
    "vm.swappiness",
]
SELINUX_TYPES = ["container_t", "container_init_t", "container_kvm_t", "container_engine_t", "spc_t", ""]
PROFILE_TYPES = ["RuntimeDefault", "Localhost", "Unconfined"]
VOLUME_SOURCES: dict[str, Any] = {
    "configMap": {"name": "cm"},
    "csi": {"driver": "csi.example.com"},
    "downwardAPI": {"items": []},
    "emptyDir": {},
    "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}},
    "image": {"reference": "registry.example.com/data:1"},
    "persistentVolumeClaim": {"claimName": "claim"},
    "projected": {"sources": []},
    "secret": {"secretName": "s"},
    "hostPath": {"path": "/var/run"},
    "gcePersistentDisk": {"pdName": "disk"},
    "awsElasticBlockStore": {"volumeID": "vol"},
    "gitRepo": {"repository": "https://example.com/r.git"},
    "nfs": {"server": "nfs.example.com", "path": "/"},
    "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0},
    "glusterfs": {"endpoints": "gfs", "path": "/"},
    "rbd": {"monitors": ["10.0.0.1"], "image": "img"},
    "flexVolume": {"driver": "example.com/flex"},
    "cinder": {"volumeID": "vol"},
    "cephfs": {"monitors": ["10.0.0.1"]},
    "flocker": {"datasetName": "ds"},
    "fc": {"wwids": ["w"]},
    "azureFile": {"secretName": "s", "shareName": "share"},
    "vsphereVolume": {"volumePath": "/vol"},
    "quobyte": {"registry": "q:7861", "volume": "v"},
    "azureDisk": {"diskName": "d", "diskURI": "https://example.com/d"},
    "photonPersistentDisk": {"pdID": "p"},
    "portworxVolume": {"volumeID": "v"},
    "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "s"}},
    "storageos": {"volumeName": "v"},
}
IMAGES = ["registry.k8s.io/pause", "registry.example.com/tools/debug:1.2", "busybox"]


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Absent (None: the key is left out) about half the time."""
    return st.one_of(st.none(), strategy)


def _profile(localhost_field: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from([*PROFILE_TYPES, "Other"]).map(
        lambda t: {"type": t, localhost_field: "profiles/p.json"} if t == "Localhost" else {"type": t}
    )


def _se_linux() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(SELINUX_TYPES),
            "user": st.sampled_from(["", "system_u"]),
            "role": st.sampled_from(["", "system_r"]),
            "level": st.just("s0:c123,c456"),
        },
    )


def _security_context_fields() -> dict[str, st.SearchStrategy[Any]]:
    return {
        "privileged": st.booleans(),
        "allowPrivilegeEscalation": st.booleans(),
        "capabilities": st.fixed_dictionaries(
            {},
            optional={
                "add": st.lists(st.sampled_from(CAPABILITIES), max_size=3),
                "drop": st.lists(st.sampled_from(CAPABILITIES), max_size=3),
            },
        ),
        "procMount": st.sampled_from(["Default", "Unmasked"]),
        "runAsNonRoot": st.booleans(),
        "runAsUser": st.sampled_from([0, 1, 1000]),
        "seccompProfile": _profile("localhostProfile"),
        "appArmorProfile": _profile("localhostProfile"),
        "seLinuxOptions": _se_linux(),
        "windowsOptions": st.fixed_dictionaries({}, optional={"hostProcess": st.booleans()}),
    }


def _security_context() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=_security_context_fields())


def _one_of_fields(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """No field, or one of them: a small change."""
    one = st.sampled_from(sorted(fields)).flatmap(lambda k: fields[k].map(lambda v: {k: v}))
    return st.one_of(st.just({}), one)


def _pod_security_context_fields() -> dict[str, st.SearchStrategy[Any]]:
    return {
        "runAsNonRoot": st.booleans(),
        "runAsUser": st.sampled_from([0, 1000]),
        "seccompProfile": _profile("localhostProfile"),
        "appArmorProfile": _profile("localhostProfile"),
        "seLinuxOptions": _se_linux(),
        "windowsOptions": st.fixed_dictionaries({}, optional={"hostProcess": st.booleans()}),
        "sysctls": st.lists(
            st.sampled_from(SYSCTLS).map(lambda n: {"name": n, "value": "1"}),
            max_size=3,
            unique_by=lambda s: s["name"],
        ),
    }


def _pod_security_context() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=_pod_security_context_fields())


def _handler() -> st.SearchStrategy[dict[str, Any]]:
    host = st.sampled_from(["", "bad.host", "127.0.0.1"])
    http = st.fixed_dictionaries({"port": st.just(8080)}, optional={"host": host})
    tcp = st.fixed_dictionaries({"port": st.just(8080)}, optional={"host": host})
    return st.one_of(
        http.map(lambda h: {"httpGet": h}),
        tcp.map(lambda t: {"tcpSocket": t}),
        st.just({"exec": {"command": ["true"]}}),
    )


def _container_fields() -> dict[str, st.SearchStrategy[Any]]:
    return {
        "securityContext": _security_context(),
        "ports": st.lists(
            st.fixed_dictionaries(
                {"containerPort": st.sampled_from([80, 8080])},
                optional={
                    "hostPort": st.sampled_from([0, 80, 8080]),
                    "protocol": st.sampled_from(["TCP", "UDP"]),
                },
            ),
            max_size=2,
            unique_by=lambda p: (p["containerPort"], p.get("protocol", "TCP")),
        ),
        "livenessProbe": _handler(),
        "readinessProbe": _handler(),
        "startupProbe": _handler(),
        "lifecycle": st.fixed_dictionaries({}, optional={"postStart": _handler(), "preStop": _handler()}),
    }


def _container(name: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": st.just(name), "image": st.sampled_from(IMAGES)}, optional=_container_fields()
    )


COMPLIANT_CONTAINER: dict[str, Any] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
COMPLIANT_POD: dict[str, Any] = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}


def _hardened_container(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """A restricted container with at most one change to its securityContext and one other field."""
    others = _container_fields()
    del others["securityContext"]
    return st.tuples(_one_of_fields(_security_context_fields()), _one_of_fields(others)).map(
        lambda t: {
            "name": name,
            "image": IMAGES[0],
            "securityContext": {**COMPLIANT_CONTAINER, **t[0]},
            **t[1],
        }
    )


def _annotations(names: list[str]) -> st.SearchStrategy[dict[str, str]]:
    keys = [f"container.apparmor.security.beta.kubernetes.io/{n}" for n in names]
    keys += [f"container.seccomp.security.alpha.kubernetes.io/{n}" for n in names]
    keys += ["seccomp.security.alpha.kubernetes.io/pod", "example.com/other"]
    values = st.sampled_from(
        ["", "runtime/default", "docker/default", "localhost/p", "unconfined", "localhost", "bad"]
    )
    return st.dictionaries(st.sampled_from(keys), values, max_size=3)


@st.composite
def pods(draw: st.DrawFn) -> dict[str, Any]:
    """A Pod as a client sends it (the API server defaults it before admission). Half of them
    are hardened: restricted Pods with a few changes, so both verdicts of the restricted level
    are reached (a Pod drawn field by field almost never passes it)."""
    hardened = draw(st.booleans())
    container = _hardened_container if hardened else _container
    inits = draw(st.integers(0, 2))
    mains = draw(st.integers(1, 2))
    ephemerals = draw(st.integers(0, 1))
    names = [f"init{i}" for i in range(inits)] + [f"c{i}" for i in range(mains)]
    spec: dict[str, Any] = {"containers": [draw(container(f"c{i}")) for i in range(mains)]}
    if inits:
        spec["initContainers"] = [draw(container(f"init{i}")) for i in range(inits)]
    if ephemerals:
        spec["ephemeralContainers"] = [draw(container("debug"))]
        names.append("debug")
    if hardened:
        context = draw(_one_of_fields(_pod_security_context_fields()))
        spec["securityContext"] = {**COMPLIANT_POD, **context}
        spec.update(draw(_one_of_fields(_pod_fields())))
        annotations = draw(st.one_of(st.just({}), _annotations(names)))
    else:
        spec.update(draw(st.fixed_dictionaries({}, optional=_pod_fields())))
        annotations = draw(_annotations(names))
    metadata: dict[str, Any] = {"name": "generated", "namespace": "default"}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _pod_fields() -> dict[str, st.SearchStrategy[Any]]:
    return {
        "securityContext": _pod_security_context(),
        "hostNetwork": st.booleans(),
        "hostPID": st.booleans(),
        "hostIPC": st.booleans(),
        "hostUsers": st.booleans(),
        "os": st.sampled_from(["linux", "windows"]).map(lambda n: {"name": n}),
        "runtimeClassName": st.sampled_from(["gvisor", "kata"]),
        "volumes": st.lists(
            st.sampled_from(sorted(VOLUME_SOURCES)),
            max_size=3,
            unique=True,
        ).map(lambda kinds: [{"name": f"v-{k.lower()}", k: VOLUME_SOURCES[k]} for k in kinds]),
    }


# --- the oracle ----------------------------------------------------------------------------------


class OracleUnavailable(Exception):
    """No Go, or the program did not build (no module proxy, an old Go): the reason."""


class PssOracle:
    """`vap-oracle pss` over one `batch` pipe: `ask(level, version, pods)` → PSA's answers."""

    def __init__(self, binary: Path) -> None:
        self.process = subprocess.Popen(
            [str(binary), "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, level: str, version: str, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
        request = {
            "argv": ["pss", "--level", level, "--version", version, "--pod", "pods.json"],
            "files": {"pods.json": json.dumps(pods)},
        }
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if answer.get("exit"):
            raise RuntimeError(answer.get("stderr"))
        answers: list[dict[str, Any]] = answer["stdout"]
        return answers

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def build_oracle(*, build: bool | None = None) -> Path:
    """vap-oracle (`oracle/`, issue 34; its `pss` command is PSA's evaluator): the binary CI built
    (`VAP_ORACLE`), else the one built for these sources (`tests/oracle/harness.build_oracle`:
    built only with `build` or `VAP_ORACLE_BUILD=1`); raises OracleUnavailable with the reason."""
    skipped = os.environ.get("VAP_ORACLE_SKIP")
    if skipped:
        raise OracleUnavailable(skipped)
    given = os.environ.get("VAP_ORACLE")
    if given:
        return Path(given)
    if build is None:
        build = os.environ.get("VAP_ORACLE_BUILD") == "1"
    try:
        return harness.build_oracle(build=build)
    except harness.OracleUnavailable as exc:
        raise OracleUnavailable(str(exc)) from exc


def split_message(message: str) -> tuple[str, str]:
    """`reason (detail)` → (reason, detail), as `AggregateCheckResult.ForbiddenDetail` joins them."""
    reason, sep, rest = message.partition(" (")
    return (reason, rest[:-1]) if sep and rest.endswith(")") else (message, "")


@dataclass
class Tally:
    """Counts of one differential run."""

    pods: int = 0
    denied: int = 0
    verdicts: int = 0
    """Divergent verdicts (admitted by one, denied by the other)."""
    reasons: int = 0
    """Same verdict, other failing checks (or another order)."""
    errors: int = 0
    """A validation of the policy failed with an error."""
    details_same: int = 0
    details: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pods", "denied", "verdicts", "reasons", "errors", "details_same", "details"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.examples += other.examples[: max(0, 5 - len(self.examples))]

    @property
    def divergences(self) -> int:
        return self.verdicts + self.reasons + self.errors


def differential(
    prepared: Any, oracle: PssOracle, level: str, version: str, batch: list[dict[str, Any]]
) -> Tally:
    """Each Pod through the generated policy (vap-lsp's offline admission, defaulted as the API
    server decodes it) and, as validating admission saw it, through PSA's evaluator."""
    from vap_lsp.admission.api import AdmissionRequestInput

    tally = Tally()
    results = [prepared.admit(AdmissionRequestInput("CREATE", pod, namespace="default")) for pod in batch]
    answers = oracle.ask(level, version, [r.evaluated for r in results])
    for pod, result, psa in zip(batch, results, answers, strict=True):
        tally.pods += 1
        evaluation = next(e for e in result.evaluations if e.matched)
        mine = [split_message(f.message) for f in evaluation.failures if not f.error]
        errors = [f.message for f in evaluation.failures if f.error]
        theirs = list(zip(psa["reasons"] or [], psa["details"] or [], strict=True))
        tally.denied += not psa["allowed"]
        problem = ""
        if errors:
            tally.errors += 1
            problem = f"error: {errors[0]}"
        elif result.allowed != psa["allowed"]:
            tally.verdicts += 1
            problem = f"verdict: vap-lsp {result.allowed}, PSA {psa['allowed']}"
        elif [r for r, _ in mine] != [r for r, _ in theirs]:
            tally.reasons += 1
            problem = f"reasons: vap-lsp {[r for r, _ in mine]}, PSA {[r for r, _ in theirs]}"
        else:
            for (_, d1), (_, d2) in zip(mine, theirs, strict=True):
                tally.details += 1
                tally.details_same += d1 == d2
        if problem and len(tally.examples) < 5:
            tally.examples.append(f"{level} {version}: {problem}\n{json.dumps(pod)}")
    return tally
