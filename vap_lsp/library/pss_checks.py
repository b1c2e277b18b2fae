"""The Pod Security Standards as Pod Security Admission checks them, one CEL rule per check variant.

Read from `k8s.io/pod-security-admission` v0.37.2 (`policy/check_*.go`, `policy/registry.go`,
`policy/visitor.go`, `policy/helpers.go`); nothing is copied, each rule says which Go function it
follows. What PSA does that every rule mirrors:

- containers are visited init containers first, then containers, then ephemeral containers
  (`visitContainers`), and a detail names them in that order;
- a check's verdict is its `CheckPod` function of the variant in effect for the policy version:
  the variant with the highest `MinimumVersion` at or below it (`inflateVersions`);
- a restricted variant's `OverrideCheckIDs` remove those baseline checks at the versions where it
  is in effect (`populate`); checks run ordered by ID, baseline checks first (`populate`), so the
  first failing validation is the first reason PSA lists;
- the forbidden reason and detail (`CheckResult`) are what PSA prints as `reason (detail)`.

Details that PSA builds from sorted sets of values gathered across containers (capabilities,
host ports, profile types, hosts) list the values here in the order the containers are visited:
CEL has no sort before Kubernetes 1.34's list library, and the policy must run from 1.30 on.
Container, volume and setter names, the reasons and every fixed word are PSA's.

CEL written here sticks to what the Kubernetes 1.30 environment has (the `strings` and `sets`
extensions, optional types) and avoids comprehensions nested over schema lists where PSA's logic
allows it: `sets.contains` and `in` instead of inner loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "BASELINE",
    "CHECKS",
    "LATEST_MINOR",
    "LEVELS",
    "PSA_MODULE",
    "RESTRICTED",
    "Check",
    "Roots",
    "Rule",
    "Variant",
    "applicable_minors",
    "variants_for",
]

PSA_MODULE = "k8s.io/pod-security-admission v0.37.2"
"""The Go module the checks were read from (its `test/testdata` are the fixtures)."""
LATEST_MINOR = 37
"""The newest policy version of that module (`v1.37`): what `latest` resolves to."""
BASELINE = "baseline"
RESTRICTED = "restricted"
LEVELS = (BASELINE, RESTRICTED)

CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
"""`visitContainers` order."""


@dataclass(frozen=True)
class Roots:
    """Where the pod's parts are in the object under admission, and what else the rules may use."""

    spec: str
    """CEL of the PodSpec: `object.spec`, `object.spec.template.spec`, …"""
    metadata: str
    """CEL of the pod's ObjectMeta: `object.metadata`, `object.spec.template.metadata`."""
    metadata_optional: bool
    """A template's metadata may be absent (a Pod's never is)."""
    exempt_containers: bool = False
    """`variables.exemptContainers` holds the names of containers exempt by image (params)."""
    image_volumes: bool = True
    """The served Volume schema has `image` (Kubernetes 1.31+); without it no pod can set it."""

    @property
    def has_annotations(self) -> str:
        guard = f"has({self.metadata}) && " if self.metadata_optional else ""
        return f"{guard}has({self.metadata}.annotations)"

    @property
    def annotations(self) -> str:
        return f"{self.metadata}.annotations"


@dataclass(frozen=True)
class Rule:
    """One validation and the variables it reads (`(name, expression)`, in order)."""

    variables: tuple[tuple[str, str], ...]
    expression: str
    """True: the check allows the pod."""
    message_expression: str
    """`reason (detail)` as PSA prints it."""
    message: str
    """The fallback when the messageExpression fails."""


Builder = Callable[[Roots, str], Rule]
"""(roots, variable-name prefix) → the rule."""


@dataclass(frozen=True)
class Variant:
    """A `VersionedCheck`: in effect from `since` (a minor of v1) until the next variant."""

    since: int
    function: str
    """The Go `CheckPod` function it follows."""
    build: Builder
    overrides: tuple[str, ...] = ()
    """`OverrideCheckIDs`: baseline checks it replaces at restricted where it is in effect."""


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    file: str
    """`policy/check_*.go`."""
    variants: tuple[Variant, ...]
    summary: str
    """What the check forbids, in PSA's words (the comment at the top of its file)."""
    fields: tuple[str, ...] = ()
    """The fields it reads (`containers[*]`: init, regular and ephemeral containers)."""
    allowed: str = ""
    """The values it allows, as its file's comment says."""

    def variant_at(self, minor: int) -> Variant | None:
        """The variant in effect at v1.`minor` (`inflateVersions`), None before the first."""
        found = None
        for v in self.variants:
            if v.since <= minor:
                found = v
        return found


# --- CEL building blocks -------------------------------------------------------------------------


def _containers(r: Roots, predicate: str, value: str = "c.name") -> str:
    """`value` for every container (visit order) where `predicate` holds; `c` is the container.
    Containers exempt by image are skipped (their names are in `variables.exemptContainers`)."""
    if r.exempt_containers:
        predicate = f"!(c.name in variables.exemptContainers) && ({predicate})"
    return "\n+ ".join(
        f"(has({r.spec}.{name}) ? {r.spec}.{name}.map(c, {predicate}, {value}) : [])"
        for name in CONTAINER_LISTS
    )


def _plural(items: str, singular: str, plural: str) -> str:
    """`pluralize(singular, plural, len(items))`."""
    return f"(size({items}) == 1 ? '{singular}' : '{plural}')"


def _quoted(items: str) -> str:
    """`joinQuote(items)` of a non-empty list: `"a", "b"`."""
    return f"""'"' + {items}.join('", "') + '"'"""


def _named(items: str, singular: str, plural: str) -> str:
    """`container "a"` / `containers "a", "b"`."""
    return f"{_plural(items, singular, plural)} + ' ' + {_quoted(items)}"


def _distinct(keys: str, values: str) -> str:
    """`values` each once, in order (`sets.NewString(...)` keeps each once; CEL before 1.34 has
    no `distinct()`): `keys` is a list of unique names parallel to `values` (container names,
    '' for the pod), so a value is kept where its first index is the key's index."""
    at = f"{keys}.indexOf(k)"
    return f"{keys}.filter(k, {values}.indexOf({values}[{at}]) == {at}).map(k, {values}[{at}])"


def _string_list(literals: Sequence[str]) -> str:
    return "[" + ", ".join(f"'{x}'" for x in literals) + "]"


def _field(base: str, *path: str) -> str:
    """`has(a.b) && has(a.b.c) && …` down to the last field of `path`."""
    out: list[str] = []
    current = base
    for name in path:
        current = f"{current}.{name}"
        out.append(f"has({current})")
    return " && ".join(out)


def _true(base: str, *path: str) -> str:
    """The boolean field is set to true."""
    return f"{_field(base, *path)} && {base}.{'.'.join(path)}"


def _windows(r: Roots) -> str:
    """`podSpec.OS != nil && podSpec.OS.Name == corev1.Windows`."""
    return f"has({r.spec}.os) && {r.spec}.os.name == 'windows'"


def _user_namespace(r: Roots) -> str:
    """`relaxPolicyForUserNamespacePod`: hostUsers is set to false."""
    return f"has({r.spec}.hostUsers) && !{r.spec}.hostUsers"


def _var(prefix: str, name: str = "") -> str:
    return f"{prefix}_{name}" if name else prefix


def _setters(parts: Sequence[tuple[str, str]]) -> str:
    """`strings.Join(badSetters, " and ")`: each (condition, text) adds its text when it holds."""
    items = " + ".join(f"({cond} ? [{text}] : [])" for cond, text in parts)
    return f"({items}).join(' and ')"


# --- baseline ------------------------------------------------------------------------------------


def _privileged_1_0(r: Roots, p: str) -> Rule:
    """`privileged_1_0`: no container sets securityContext.privileged=true."""
    names = f"variables.{p}"
    return Rule(
        ((p, _containers(r, _true("c", "securityContext", "privileged"))),),
        f"size({names}) == 0",
        f"'privileged (' + {_named(names, 'container', 'containers')}"
        " + ' must not set securityContext.privileged=true)'",
        "privileged (containers must not set securityContext.privileged=true)",
    )


def _host_namespaces_1_0(r: Roots, p: str) -> Rule:
    """`hostNamespaces_1_0`: hostNetwork, hostPID, hostIPC unset or false."""
    s = r.spec
    found = "\n+ ".join(
        f"({_true(s, name)} ? ['{name}=true'] : [])" for name in ("hostNetwork", "hostPID", "hostIPC")
    )
    return Rule(
        ((p, found),),
        f"size(variables.{p}) == 0",
        f"'host namespaces (' + variables.{p}.join(', ') + ')'",
        "host namespaces (hostNetwork, hostPID and hostIPC must not be true)",
    )


def _host_path_volumes_1_0(r: Roots, p: str) -> Rule:
    """`hostPathVolumes_1_0`: no volume is a hostPath."""
    names = f"variables.{p}"
    return Rule(
        ((p, f"has({r.spec}.volumes) ? {r.spec}.volumes.map(v, has(v.hostPath), v.name) : []"),),
        f"size({names}) == 0",
        f"'hostPath volumes (' + {_named(names, 'volume', 'volumes')} + ')'",
        "hostPath volumes (volumes must not be hostPath)",
    )


def _host_ports_1_0(r: Roots, p: str) -> Rule:
    """`hostPorts_1_0`: no container port sets a hostPort other than 0."""
    bad = "has(c.ports) && c.ports.exists(p, has(p.hostPort) && p.hostPort != 0)"
    names, ports = f"variables.{_var(p, 'containers')}", f"variables.{_var(p, 'ports')}"
    listed = "c.ports.map(p, has(p.hostPort) && p.hostPort != 0, string(p.hostPort))"
    return Rule(
        (
            (_var(p, "containers"), _containers(r, bad)),
            (_var(p, "ports"), _containers(r, bad, f"{listed}.join(', ')")),
        ),
        f"size({names}) == 0",
        f"'hostPort (' + {_named(names, 'container', 'containers')} + ' ' + "
        f"{_plural(names, 'uses', 'use')} + ' ' + "
        f"(size({ports}) == 1 && !{ports}[0].contains(',') ? 'hostPort ' : 'hostPorts ') + "
        f"{ports}.join(', ') + ')'",
        "hostPort (containers must not use hostPorts)",
    )


_CAPABILITIES_BASELINE = (
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
)


def _adds_beyond(allowed: str) -> str:
    """The container adds a capability not in `allowed` (CEL list)."""
    return (
        f"{_field('c', 'securityContext', 'capabilities', 'add')}"
        f" && !sets.contains({allowed}, c.securityContext.capabilities.add)"
    )


def _added(allowed: str) -> str:
    """Per container, the capabilities it adds beyond `allowed`, quoted and joined."""
    return f"""'"' + c.securityContext.capabilities.add.filter(x, !(x in {allowed})).join('", "') + '"'"""


def _capabilities_baseline_1_0(r: Roots, p: str) -> Rule:
    """`capabilitiesBaseline_1_0`: capabilities.add only from the default set."""
    allowed = _string_list(_CAPABILITIES_BASELINE)
    names, caps = f"variables.{_var(p, 'containers')}", f"variables.{_var(p, 'added')}"
    return Rule(
        (
            (_var(p, "containers"), _containers(r, _adds_beyond(allowed))),
            (_var(p, "added"), _containers(r, _adds_beyond(allowed), _added(allowed))),
        ),
        f"size({names}) == 0",
        f"'non-default capabilities (' + {_named(names, 'container', 'containers')} + ' must not include ' + "
        f"{caps}.join(', ') + ' in securityContext.capabilities.add)'",
        "non-default capabilities (containers must not add capabilities beyond the default set in "
        "securityContext.capabilities.add)",
    )


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_LIFECYCLE = ("postStart", "preStop")


def _host_fields() -> list[tuple[str, ...]]:
    """`getForbiddenHostProbes`/`getForbiddenHostLifecycle` order: each probe, then each
    lifecycle handler; httpGet.host before tcpSocket.host."""
    out: list[tuple[str, ...]] = []
    for probe in _PROBES:
        out += [(probe, "httpGet", "host"), (probe, "tcpSocket", "host")]
    for handler in _LIFECYCLE:
        out += [("lifecycle", handler, "httpGet", "host"), ("lifecycle", handler, "tcpSocket", "host")]
    return out


def _host_probes_1_34(r: Roots, p: str) -> Rule:
    """`hostProbesAndHostLifecycleV1Dot34`: probes and lifecycle handlers set no host."""
    fields = _host_fields()
    sets = [f"c.?{'.?'.join(f)}.orValue('') != ''" for f in fields]
    bad = "\n  || ".join(f"({s})" for s in sets)
    hosts = " + ".join(f"({s} ? [c.{'.'.join(f)}] : [])" for s, f in zip(sets, fields, strict=True))
    names, found = f"variables.{_var(p, 'containers')}", f"variables.{_var(p, 'hosts')}"
    return Rule(
        (
            (_var(p, "containers"), _containers(r, bad)),
            (_var(p, "hosts"), _containers(r, bad, f"({hosts}).join('\", \"')")),
        ),
        f"size({names}) == 0",
        f"'probe or lifecycle host (' + {_named(names, 'container', 'containers')} + ' ' + "
        f"{_plural(names, 'uses', 'use')} + ' ' + "
        f"(size({found}) == 1 && !{found}[0].contains('\", \"') ? 'probe or lifecycle host' "
        f": 'probe or lifecycle hosts') + ' \"' + {found}.join('\", \"') + '\")'",
        "probe or lifecycle host (containers must not set a host in probes or lifecycle handlers)",
    )


_APPARMOR_TYPES = "['RuntimeDefault', 'Localhost']"
_APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"


def _app_armor_1_0(r: Roots, p: str) -> Rule:
    """`appArmorProfile_1_0`: profile types RuntimeDefault or Localhost; the beta annotations
    `runtime/default`, `localhost/*` or empty."""
    s, ann = r.spec, r.annotations
    pod = (
        f"{_field(s, 'securityContext', 'appArmorProfile')}"
        f" && !({s}.securityContext.appArmorProfile.type in {_APPARMOR_TYPES})"
    )
    bad = (
        f"{_field('c', 'securityContext', 'appArmorProfile')}"
        f" && !(c.securityContext.appArmorProfile.type in {_APPARMOR_TYPES})"
    )
    value = f"{ann}[k]"
    annotations = (
        f"{r.has_annotations} ? {ann}.filter(k, k.startsWith('{_APPARMOR_PREFIX}') && "
        f"!({value} == '' || {value} == 'runtime/default' || {value}.startsWith('localhost/')))"
        f".map(k, k + '=' + strings.quote({value})) : []"
    )
    v_pod, v_names, v_types, v_ann = (
        f"variables.{_var(p, 'pod')}",
        f"variables.{_var(p, 'containers')}",
        f"variables.{_var(p, 'types')}",
        f"variables.{_var(p, 'annotations')}",
    )
    values = f"({v_types} + {v_ann})"
    found = f"(({v_pod} ? [{s}.securityContext.appArmorProfile.type] : []) + variables.{_var(p, 'found')})"
    return Rule(
        (
            (_var(p, "pod"), pod),
            (_var(p, "containers"), _containers(r, bad)),
            (_var(p, "found"), _containers(r, bad, "c.securityContext.appArmorProfile.type")),
            (_var(p, "types"), _distinct(f"(({v_pod} ? [''] : []) + {v_names})", found)),
            (_var(p, "annotations"), annotations),
        ),
        f"!{v_pod} && size({v_names}) == 0 && size({v_ann}) == 0",
        f"(size({values}) == 1 ? 'forbidden AppArmor profile' : 'forbidden AppArmor profiles') + ' (' + "
        + _setters(
            [
                (v_pod, "'pod'"),
                (f"size({v_names}) > 0", _named(v_names, "container", "containers")),
                (f"size({v_ann}) > 0", f"{_plural(v_ann, 'annotation', 'annotations')}"),
            ]
        )
        + f" + ' must not set AppArmor profile type to ' + {_quoted(values)} + ')'",
        "forbidden AppArmor profile (pod and containers must not set AppArmor profile type to "
        "other than RuntimeDefault or Localhost)",
    )


def _se_linux(types: Sequence[str]) -> Builder:
    allowed = _string_list(types)

    def build(r: Roots, p: str) -> Rule:
        """`seLinuxOptions`: type from the allowed set, no user, no role."""
        s = r.spec
        pod_opts = f"{s}.securityContext.seLinuxOptions"
        pod_set = _field(s, "securityContext", "seLinuxOptions")

        def bad_type(o: str) -> str:
            return f"!((has({o}.type) ? {o}.type : '') in {allowed})"

        def bad(o: str) -> str:
            return (
                f"({bad_type(o)} || (has({o}.user) && {o}.user != '') || (has({o}.role) && {o}.role != ''))"
            )

        c_opts = "c.securityContext.seLinuxOptions"
        c_set = _field("c", "securityContext", "seLinuxOptions")
        v_pod, v_names, v_types = (
            f"variables.{_var(p, 'pod')}",
            f"variables.{_var(p, 'containers')}",
            f"variables.{_var(p, 'types')}",
        )
        pod_bad_type = f"{pod_set} && {bad_type(pod_opts)}"
        c_bad_type = f"{c_set} && {bad_type(c_opts)}"
        types_found = f"({pod_bad_type} ? [{pod_opts}.type] : [])\n+ " + _containers(
            r, c_bad_type, f"{c_opts}.type"
        )
        type_keys = f"({pod_bad_type} ? [''] : [])\n+ " + _containers(r, c_bad_type)
        v_found, v_keys = f"variables.{_var(p, 'found')}", f"variables.{_var(p, 'keys')}"

        def set_in(field: str) -> str:
            pod_part = f"({pod_set} && has({pod_opts}.{field}) && {pod_opts}.{field} != '')"
            cs = _containers(r, f"{c_set} && has({c_opts}.{field}) && {c_opts}.{field} != ''")
            return f"{pod_part} || size({cs}) > 0"

        data = (
            f"((size({v_types}) > 0 ? [{_plural(v_types, 'type', 'types')} + ' ' + {_quoted(v_types)}] : [])"
            f" + (variables.{_var(p, 'user')} ? ['user may not be set'] : [])"
            f" + (variables.{_var(p, 'role')} ? ['role may not be set'] : [])).join('; ')"
        )
        return Rule(
            (
                (_var(p, "pod"), f"{pod_set} && {bad(pod_opts)}"),
                (_var(p, "containers"), _containers(r, f"{c_set} && {bad(c_opts)}")),
                (_var(p, "found"), types_found),
                (_var(p, "keys"), type_keys),
                (_var(p, "types"), _distinct(v_keys, v_found)),
                (_var(p, "user"), set_in("user")),
                (_var(p, "role"), set_in("role")),
            ),
            f"!{v_pod} && size({v_names}) == 0",
            "'seLinuxOptions (' + "
            + _setters(
                [(v_pod, "'pod'"), (f"size({v_names}) > 0", _named(v_names, "container", "containers"))]
            )
            + f" + ' set forbidden securityContext.seLinuxOptions: ' + {data} + ')'",
            "seLinuxOptions (pod and containers must not set forbidden securityContext.seLinuxOptions)",
        )

    return build


_SELINUX_1_0 = ("", "container_t", "container_init_t", "container_kvm_t")
_SELINUX_1_31 = (*_SELINUX_1_0, "container_engine_t")


def _proc_mount(relax_user_namespaces: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`procMount_1_0` (and `procMount1_35baseline`: any value in a user namespace)."""
        bad = f"{_field('c', 'securityContext', 'procMount')} && c.securityContext.procMount != 'Default'"
        names, types = _containers(r, bad), _containers(r, bad, "c.securityContext.procMount")
        if relax_user_namespaces:
            names = f"{_user_namespace(r)} ? [] : {names}"
            types = f"{_user_namespace(r)} ? [] : {types}"
        v_names, v_types = f"variables.{_var(p, 'containers')}", f"variables.{_var(p, 'types')}"
        v_found = f"variables.{_var(p, 'found')}"
        return Rule(
            (
                (_var(p, "containers"), names),
                (_var(p, "found"), types),
                (_var(p, "types"), _distinct(v_names, v_found)),
            ),
            f"size({v_names}) == 0",
            f"'procMount (' + {_named(v_names, 'container', 'containers')} + "
            f"' must not set securityContext.procMount to ' + {_quoted(v_types)} + ')'",
            "procMount (containers must not set securityContext.procMount to other than Default)",
        )

    return build


_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"


def _seccomp_annotation_ok(value: str) -> str:
    """`validSeccompAnnotationValue`."""
    return (
        f"({value} == 'runtime/default' || {value} == 'docker/default' || {value}.startsWith('localhost/'))"
    )


def _seccomp_baseline_1_0(r: Roots, p: str) -> Rule:
    """`seccompProfileBaseline_1_0`: the alpha seccomp annotations name runtime/default,
    docker/default or localhost/*. Containers' annotations first, as PSA's sorted set has them."""
    ann = r.annotations
    pod_value = f"{ann}['{_SECCOMP_POD_ANNOTATION}']"
    pod = (
        f"({r.has_annotations} && '{_SECCOMP_POD_ANNOTATION}' in {ann}"
        f" && !{_seccomp_annotation_ok(pod_value)}"
        f" ? ['{_SECCOMP_POD_ANNOTATION}=' + strings.quote({pod_value})] : [])"
    )
    key = f"'{_SECCOMP_CONTAINER_ANNOTATION}' + c.name"
    c_value = f"{ann}[{key}]"
    containers = _containers(
        r,
        f"{r.has_annotations} && ({key}) in {ann} && !{_seccomp_annotation_ok(c_value)}",
        f"{key} + '=' + strings.quote({c_value})",
    )
    found = f"variables.{p}"
    return Rule(
        ((p, f"{containers}\n+ {pod}"),),
        f"size({found}) == 0",
        f"'seccompProfile (forbidden ' + {_plural(found, 'annotation', 'annotations')} + ' ' + "
        f"{found}.join(', ') + ')'",
        "seccompProfile (forbidden seccomp annotations)",
    )


_SECCOMP_TYPES = "['Localhost', 'RuntimeDefault']"


def _seccomp_1_19(restricted: bool, windows_exempt: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`seccompProfileBaseline_1_19`, `seccompProfileRestricted_1_19` (also requiring a
        profile) and `seccompProfileRestricted_1_25` (Windows pods exempt)."""
        s = r.spec
        pod_set = _field(s, "securityContext", "seccompProfile")
        pod_type = f"{s}.securityContext.seccompProfile.type"
        c_set = _field("c", "securityContext", "seccompProfile")
        c_type = "c.securityContext.seccompProfile.type"
        v_pod, v_names, v_types = (
            f"variables.{_var(p, 'pod')}",
            f"variables.{_var(p, 'containers')}",
            f"variables.{_var(p, 'types')}",
        )
        explicit = f"{c_set} && !({c_type} in {_SECCOMP_TYPES})"
        variables = [
            (_var(p, "pod"), f"{pod_set} && !({pod_type} in {_SECCOMP_TYPES})"),
            (_var(p, "containers"), _containers(r, explicit)),
            (_var(p, "found"), f"({v_pod} ? [{pod_type}] : [])\n+ " + _containers(r, explicit, c_type)),
            (
                _var(p, "types"),
                _distinct(f"(({v_pod} ? [''] : []) + {v_names})", f"variables.{_var(p, 'found')}"),
            ),
        ]
        allowed = f"!{v_pod} && size({v_names}) == 0"
        explicit_message = (
            "'seccompProfile (' + "
            + _setters(
                [(v_pod, "'pod'"), (f"size({v_names}) > 0", _named(v_names, "container", "containers"))]
            )
            + f" + ' must not set securityContext.seccompProfile.type to ' + {_quoted(v_types)} + ')'"
        )
        message = explicit_message
        if restricted:
            v_implicit = f"variables.{_var(p, 'unset')}"
            pod_ok = f"{pod_set} && {pod_type} in {_SECCOMP_TYPES}"
            variables.append((_var(p, "unset"), f"{pod_ok} ? [] : " + _containers(r, f"!({c_set})")))
            allowed = f"{allowed} && size({v_implicit}) == 0"
            message = (
                f"!{v_pod} && size({v_names}) == 0 ? 'seccompProfile (pod or ' + "
                f"{_named(v_implicit, 'container', 'containers')} + "
                '\' must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\' : '
                + explicit_message
            )
        if windows_exempt:
            allowed = f"{_windows(r)} || ({allowed})"
        return Rule(
            tuple(variables),
            allowed,
            message,
            "seccompProfile (pod and containers must set securityContext.seccompProfile.type to "
            "RuntimeDefault or Localhost)"
            if restricted
            else "seccompProfile (pod and containers must not set securityContext.seccompProfile.type "
            "to other than RuntimeDefault or Localhost)",
        )

    return build


_SYSCTLS_1_0 = (
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
)
_SYSCTLS_1_27 = (*_SYSCTLS_1_0, "net.ipv4.ip_local_reserved_ports")
_SYSCTLS_1_29 = (
    *_SYSCTLS_1_27,
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
)
_SYSCTLS_1_32 = (*_SYSCTLS_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
_SYSCTLS_1_37 = (*_SYSCTLS_1_32, "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat")


def _sysctls(allowed_names: Sequence[str]) -> Builder:
    allowed = _string_list(allowed_names)

    def build(r: Roots, p: str) -> Rule:
        """`sysctls`: only the safe sysctls of the version."""
        s = r.spec
        found = f"variables.{p}"
        return Rule(
            (
                (
                    p,
                    f"{_field(s, 'securityContext', 'sysctls')} ? "
                    f"{s}.securityContext.sysctls.map(x, !(x.name in {allowed}), x.name) : []",
                ),
            ),
            f"size({found}) == 0",
            f"'forbidden sysctls (' + {found}.join(', ') + ')'",
            "forbidden sysctls (only the safe sysctls are allowed)",
        )

    return build


def _windows_host_process_1_0(r: Roots, p: str) -> Rule:
    """`windowsHostProcess_1_0`: windowsOptions.hostProcess unset or false."""
    s = r.spec
    v_pod, v_names = f"variables.{_var(p, 'pod')}", f"variables.{_var(p, 'containers')}"
    return Rule(
        (
            (_var(p, "pod"), _true(s, "securityContext", "windowsOptions", "hostProcess")),
            (
                _var(p, "containers"),
                _containers(r, _true("c", "securityContext", "windowsOptions", "hostProcess")),
            ),
        ),
        f"!{v_pod} && size({v_names}) == 0",
        "'hostProcess (' + "
        + _setters([(v_pod, "'pod'"), (f"size({v_names}) > 0", _named(v_names, "container", "containers"))])
        + " + ' must not set securityContext.windowsOptions.hostProcess=true)'",
        "hostProcess (pod and containers must not set securityContext.windowsOptions.hostProcess=true)",
    )


# --- restricted ----------------------------------------------------------------------------------


def _allow_privilege_escalation(windows_exempt: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`allowPrivilegeEscalation_1_8` (and `_1_25`: Windows pods exempt)."""
        bad = (
            "!has(c.securityContext) || !has(c.securityContext.allowPrivilegeEscalation)"
            " || c.securityContext.allowPrivilegeEscalation"
        )
        names = _containers(r, bad)
        if windows_exempt:
            names = f"{_windows(r)} ? [] : {names}"
        v = f"variables.{p}"
        return Rule(
            ((p, names),),
            f"size({v}) == 0",
            f"'allowPrivilegeEscalation != false (' + {_named(v, 'container', 'containers')} + "
            "' must set securityContext.allowPrivilegeEscalation=false)'",
            "allowPrivilegeEscalation != false (containers must set "
            "securityContext.allowPrivilegeEscalation=false)",
        )

    return build


def _capabilities_restricted(windows_exempt: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`capabilitiesRestricted_1_22` (and `_1_25`: Windows pods exempt): drop ALL, add at most
        NET_BIND_SERVICE."""
        allowed = "['NET_BIND_SERVICE']"
        missing = (
            "!has(c.securityContext) || !has(c.securityContext.capabilities)"
            " || !has(c.securityContext.capabilities.drop) || !('ALL' in c.securityContext.capabilities.drop)"
        )
        v_drop, v_add, v_caps = (
            f"variables.{_var(p, 'drop')}",
            f"variables.{_var(p, 'add')}",
            f"variables.{_var(p, 'added')}",
        )
        guard = f"{_windows(r)} ? [] : " if windows_exempt else ""
        details = (
            f"((size({v_drop}) > 0 ? [{_named(v_drop, 'container', 'containers')} + "
            "' must set securityContext.capabilities.drop=[\"ALL\"]'] : [])"
            f" + (size({v_add}) > 0 ? [{_named(v_add, 'container', 'containers')} + ' must not include ' + "
            f"{v_caps}.join(', ') + ' in securityContext.capabilities.add'] : [])).join('; ')"
        )
        return Rule(
            (
                (_var(p, "drop"), guard + _containers(r, missing)),
                (_var(p, "add"), guard + _containers(r, _adds_beyond(allowed))),
                (_var(p, "added"), guard + _containers(r, _adds_beyond(allowed), _added(allowed))),
            ),
            f"size({v_drop}) == 0 && size({v_add}) == 0",
            f"'unrestricted capabilities (' + {details} + ')'",
            'unrestricted capabilities (containers must set securityContext.capabilities.drop=["ALL"] and '
            "may only add NET_BIND_SERVICE)",
        )

    return build


_VOLUMES_ALLOWED = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
_VOLUMES_RESTRICTED = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def _restricted_volumes_1_0(r: Roots, p: str) -> Rule:
    """`restrictedVolumes_1_0`: only configMap, csi, downwardAPI, emptyDir, ephemeral, image,
    persistentVolumeClaim, projected and secret volumes."""
    sources = [s for s in _VOLUMES_ALLOWED if s != "image" or r.image_volumes]
    bad = "!(" + " || ".join(f"has(v.{s})" for s in sources) + ")"
    kind = "".join(f"has(v.{t}) ? '{t}' : " for t in _VOLUMES_RESTRICTED) + "'unknown'"
    v_names, v_types = f"variables.{_var(p, 'volumes')}", f"variables.{_var(p, 'types')}"
    domain = _string_list(sorted((*_VOLUMES_RESTRICTED, "unknown")))
    vols = f"{r.spec}.volumes"
    return Rule(
        (
            (_var(p, "volumes"), f"has({vols}) ? {vols}.map(v, {bad}, v.name) : []"),
            (_var(p, "used"), f"has({vols}) ? {vols}.map(v, {bad}, {kind}) : []"),
            # badVolumeTypes.List(): each type once, sorted (filtering the sorted list of them all)
            (_var(p, "types"), f"{domain}.filter(t, t in variables.{_var(p, 'used')})"),
        ),
        f"size({v_names}) == 0",
        f"'restricted volume types (' + {_named(v_names, 'volume', 'volumes')} + ' ' + "
        f"{_plural(v_names, 'uses', 'use')} + ' ' + "
        f"{_plural(v_types, 'restricted volume type', 'restricted volume types')} + ' ' + "
        f"{_quoted(v_types)} + ')'",
        "restricted volume types (volumes must be configMap, csi, downwardAPI, emptyDir, ephemeral, image, "
        "persistentVolumeClaim, projected or secret)",
    )


def _run_as_non_root(relax_user_namespaces: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`runAsNonRoot1_0` (and `runAsNonRoot1_35`: any value in a user namespace)."""
        s = r.spec
        pod_set = _field(s, "securityContext", "runAsNonRoot")
        pod_value = f"{s}.securityContext.runAsNonRoot"
        c_set = _field("c", "securityContext", "runAsNonRoot")
        v_pod, v_names, v_unset = (
            f"variables.{_var(p, 'pod')}",
            f"variables.{_var(p, 'containers')}",
            f"variables.{_var(p, 'unset')}",
        )
        allowed = f"!{v_pod} && size({v_names}) == 0 && size({v_unset}) == 0"
        if relax_user_namespaces:
            allowed = f"{_user_namespace(r)} || ({allowed})"
        explicit = (
            "'runAsNonRoot != true (' + "
            + _setters(
                [(v_pod, "'pod'"), (f"size({v_names}) > 0", _named(v_names, "container", "containers"))]
            )
            + " + ' must not set securityContext.runAsNonRoot=false)'"
        )
        return Rule(
            (
                (_var(p, "pod"), f"{pod_set} && !{pod_value}"),
                (_var(p, "containers"), _containers(r, f"{c_set} && !c.securityContext.runAsNonRoot")),
                (_var(p, "unset"), f"{pod_set} && {pod_value} ? [] : " + _containers(r, f"!({c_set})")),
            ),
            allowed,
            f"{v_pod} || size({v_names}) > 0 ? {explicit} : 'runAsNonRoot != true (pod or ' + "
            f"{_named(v_unset, 'container', 'containers')} + ' must set securityContext.runAsNonRoot=true)'",
            "runAsNonRoot != true (pod or containers must set securityContext.runAsNonRoot=true)",
        )

    return build


_RUN_AS_USER = ("securityContext", "runAsUser")


def _run_as_user(relax_user_namespaces: bool) -> Builder:
    def build(r: Roots, p: str) -> Rule:
        """`runAsUser1_23` (and `runAsUser1_35`: any value in a user namespace)."""
        s = r.spec
        v_pod, v_names = f"variables.{_var(p, 'pod')}", f"variables.{_var(p, 'containers')}"
        allowed = f"!{v_pod} && size({v_names}) == 0"
        if relax_user_namespaces:
            allowed = f"{_user_namespace(r)} || ({allowed})"
        return Rule(
            (
                (_var(p, "pod"), f"{_field(s, *_RUN_AS_USER)} && {s}.securityContext.runAsUser == 0"),
                (
                    _var(p, "containers"),
                    _containers(r, f"{_field('c', *_RUN_AS_USER)} && c.securityContext.runAsUser == 0"),
                ),
            ),
            allowed,
            "'runAsUser=0 (' + "
            + _setters(
                [(v_pod, "'pod'"), (f"size({v_names}) > 0", _named(v_names, "container", "containers"))]
            )
            + " + ' must not set runAsUser=0)'",
            "runAsUser=0 (pod and containers must not set runAsUser=0)",
        )

    return build


# --- the catalogue -------------------------------------------------------------------------------

CHECKS: tuple[Check, ...] = (
    Check(
        "allowPrivilegeEscalation",
        RESTRICTED,
        "check_allowPrivilegeEscalation.go",
        (
            Variant(8, "allowPrivilegeEscalation_1_8", _allow_privilege_escalation(False)),
            Variant(25, "allowPrivilegeEscalation_1_25", _allow_privilege_escalation(True)),
        ),
        "Privilege escalation (such as via set-user-ID or set-group-ID file mode) should not be allowed.",
        fields=(
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.allowPrivilegeEscalation",
        ),
        allowed="false (from v1.25 any value when spec.os.name is windows)",
    ),
    Check(
        "appArmorProfile",
        BASELINE,
        "check_appArmorProfile.go",
        (Variant(0, "appArmorProfile_1_0", _app_armor_1_0),),
        "Overriding or disabling the default AppArmor profile is restricted to RuntimeDefault and "
        "Localhost profiles.",
        fields=(
            "spec.securityContext.appArmorProfile.type",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.appArmorProfile.type",
            "metadata.annotations['container.apparmor.security.beta.kubernetes.io/*']",
        ),
        allowed=(
            "RuntimeDefault, Localhost, undefined; annotations runtime/default, localhost/*, empty, undefined"
        ),
    ),
    Check(
        "capabilities_baseline",
        BASELINE,
        "check_capabilities_baseline.go",
        (Variant(0, "capabilitiesBaseline_1_0", _capabilities_baseline_1_0),),
        "Adding NET_RAW or capabilities beyond the default set must be disallowed.",
        fields=("spec.{containers,initContainers,ephemeralContainers}[*].securityContext.capabilities.add",),
        allowed=(
            "undefined, empty, or AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, "
            "NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT"
        ),
    ),
    Check(
        "capabilities_restricted",
        RESTRICTED,
        "check_capabilities_restricted.go",
        (
            Variant(
                22, "capabilitiesRestricted_1_22", _capabilities_restricted(False), ("capabilities_baseline",)
            ),
            Variant(
                25, "capabilitiesRestricted_1_25", _capabilities_restricted(True), ("capabilities_baseline",)
            ),
        ),
        "Containers must drop ALL, and may only add NET_BIND_SERVICE.",
        fields=(
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.capabilities.drop",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.capabilities.add",
        ),
        allowed=(
            "drop must include ALL; add undefined, empty or NET_BIND_SERVICE (from v1.25 any value "
            "when spec.os.name is windows)"
        ),
    ),
    Check(
        "hostNamespaces",
        BASELINE,
        "check_hostNamespaces.go",
        (Variant(0, "hostNamespaces_1_0", _host_namespaces_1_0),),
        "Sharing the host network, PID, and IPC namespaces must be disallowed.",
        fields=("spec.hostNetwork", "spec.hostPID", "spec.hostIPC"),
        allowed="undefined, false",
    ),
    Check(
        "hostPathVolumes",
        BASELINE,
        "check_hostPathVolumes.go",
        (Variant(0, "hostPathVolumes_1_0", _host_path_volumes_1_0),),
        "HostPath volumes must be forbidden.",
        fields=("spec.volumes[*].hostPath",),
        allowed="undefined",
    ),
    Check(
        "hostPorts",
        BASELINE,
        "check_hostPorts.go",
        (Variant(0, "hostPorts_1_0", _host_ports_1_0),),
        "HostPort ports must be forbidden.",
        fields=("spec.{containers,initContainers,ephemeralContainers}[*].ports[*].hostPort",),
        allowed="undefined, 0",
    ),
    Check(
        "hostProbesAndHostLifecycle",
        BASELINE,
        "check_hostProbesAndhostLifecycle.go",
        (Variant(34, "hostProbesAndHostLifecycleV1Dot34", _host_probes_1_34),),
        "Host field is restricted in the probes and lifecycle handlers.",
        fields=(
            "spec.{containers,initContainers,ephemeralContainers}[*].{livenessProbe,readinessProbe,startupProbe}.{httpGet,tcpSocket}.host",
            "spec.{containers,initContainers,ephemeralContainers}[*].lifecycle.{postStart,preStop}.{httpGet,tcpSocket}.host",
        ),
        allowed="undefined, empty",
    ),
    Check(
        "privileged",
        BASELINE,
        "check_privileged.go",
        (Variant(0, "privileged_1_0", _privileged_1_0),),
        "Privileged Pods disable most security mechanisms and must be disallowed.",
        fields=("spec.{containers,initContainers,ephemeralContainers}[*].securityContext.privileged",),
        allowed="undefined, false",
    ),
    Check(
        "procMount",
        BASELINE,
        "check_procMount_baseline.go",
        (
            Variant(0, "procMount_1_0", _proc_mount(False)),
            Variant(35, "procMount1_35baseline", _proc_mount(True)),
        ),
        "The default /proc masks are set up to reduce attack surface, and should be required unless "
        'the pod is in a user namespace ("hostUsers: false").',
        fields=("spec.{containers,initContainers,ephemeralContainers}[*].securityContext.procMount",),
        allowed="undefined, Default (from v1.35 any value when spec.hostUsers is false)",
    ),
    Check(
        "procMount_restricted",
        RESTRICTED,
        "check_procMount_restricted.go",
        (Variant(35, "procMount_1_0", _proc_mount(False), ("procMount",)),),
        "The default /proc masks are set up to reduce attack surface, and should be required by the "
        "restricted profile.",
        fields=("spec.{containers,initContainers,ephemeralContainers}[*].securityContext.procMount",),
        allowed="undefined, Default",
    ),
    Check(
        "restrictedVolumes",
        RESTRICTED,
        "check_restrictedVolumes.go",
        (Variant(0, "restrictedVolumes_1_0", _restricted_volumes_1_0, ("hostPathVolumes",)),),
        "In addition to restricting HostPath volumes, the restricted profile limits usage of inline pod "
        "volume sources.",
        fields=("spec.volumes[*]",),
        allowed=(
            "configMap, csi, downwardAPI, emptyDir, ephemeral, image, persistentVolumeClaim, "
            "projected, secret"
        ),
    ),
    Check(
        "runAsNonRoot",
        RESTRICTED,
        "check_runAsNonRoot.go",
        (
            Variant(0, "runAsNonRoot1_0", _run_as_non_root(False)),
            Variant(35, "runAsNonRoot1_35", _run_as_non_root(True)),
        ),
        "Containers must be required to run as non-root users, unless the pod is in a user namespace.",
        fields=(
            "spec.securityContext.runAsNonRoot",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.runAsNonRoot",
        ),
        allowed=(
            "true (a container may leave it undefined when the pod sets true; from v1.35 any value "
            "when spec.hostUsers is false)"
        ),
    ),
    Check(
        "runAsUser",
        RESTRICTED,
        "check_runAsUser.go",
        (
            Variant(23, "runAsUser1_23", _run_as_user(False)),
            Variant(35, "runAsUser1_35", _run_as_user(True)),
        ),
        "Containers must not set runAsUser: 0, unless the pod is in a user namespace.",
        fields=(
            "spec.securityContext.runAsUser",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.runAsUser",
        ),
        allowed="undefined, non-zero (from v1.35 any value when spec.hostUsers is false)",
    ),
    Check(
        "seLinuxOptions",
        BASELINE,
        "check_seLinuxOptions.go",
        (
            Variant(0, "seLinuxOptions1_0", _se_linux(_SELINUX_1_0)),
            Variant(31, "seLinuxOptions1_31", _se_linux(_SELINUX_1_31)),
        ),
        "Setting the SELinux type is restricted, and setting a custom SELinux user or role option is "
        "forbidden.",
        fields=(
            "spec.securityContext.seLinuxOptions",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.seLinuxOptions",
        ),
        allowed=(
            "type undefined, empty, container_t, container_init_t, container_kvm_t (from v1.31 also"
            " container_engine_t); user and role undefined or empty"
        ),
    ),
    Check(
        "seccompProfile_baseline",
        BASELINE,
        "check_seccompProfile_baseline.go",
        (
            Variant(0, "seccompProfileBaseline_1_0", _seccomp_baseline_1_0),
            Variant(19, "seccompProfileBaseline_1_19", _seccomp_1_19(restricted=False, windows_exempt=False)),
        ),
        "If seccomp profiles are specified, only runtime default and localhost profiles are allowed.",
        fields=(
            "metadata.annotations['seccomp.security.alpha.kubernetes.io/pod']",
            "metadata.annotations['container.seccomp.security.alpha.kubernetes.io/*']",
            "spec.securityContext.seccompProfile.type",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.seccompProfile.type",
        ),
        allowed=(
            "before v1.19 the annotations runtime/default, docker/default, localhost/*, undefined; "
            "from v1.19 the types RuntimeDefault, Localhost, undefined"
        ),
    ),
    Check(
        "seccompProfile_restricted",
        RESTRICTED,
        "check_seccompProfile_restricted.go",
        (
            Variant(
                19,
                "seccompProfileRestricted_1_19",
                _seccomp_1_19(restricted=True, windows_exempt=False),
                ("seccompProfile_baseline",),
            ),
            Variant(
                25,
                "seccompProfileRestricted_1_25",
                _seccomp_1_19(restricted=True, windows_exempt=True),
                ("seccompProfile_baseline",),
            ),
        ),
        "Seccomp profiles must be specified, and only runtime default and localhost profiles are allowed.",
        fields=(
            "spec.securityContext.seccompProfile.type",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.seccompProfile.type",
        ),
        allowed=(
            "RuntimeDefault, Localhost (a container may leave it undefined when the pod sets one; "
            "from v1.25 any value when spec.os.name is windows)"
        ),
    ),
    Check(
        "sysctls",
        BASELINE,
        "check_sysctls.go",
        (
            Variant(0, "sysctlsV1Dot0", _sysctls(_SYSCTLS_1_0)),
            Variant(27, "sysctlsV1Dot27", _sysctls(_SYSCTLS_1_27)),
            Variant(29, "sysctlsV1Dot29", _sysctls(_SYSCTLS_1_29)),
            Variant(32, "sysctlsV1Dot32", _sysctls(_SYSCTLS_1_32)),
            Variant(37, "sysctlsV1Dot37", _sysctls(_SYSCTLS_1_37)),
        ),
        "Sysctls can disable security mechanisms or affect all containers on a host, and should be "
        'disallowed except for an allowed "safe" subset.',
        fields=("spec.securityContext.sysctls[*].name",),
        allowed=(
            "kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, net.ipv4.tcp_syncookies, "
            "net.ipv4.ping_group_range, net.ipv4.ip_unprivileged_port_start; from v1.27 "
            "net.ipv4.ip_local_reserved_ports; from v1.29 net.ipv4.tcp_keepalive_time, "
            "net.ipv4.tcp_fin_timeout, net.ipv4.tcp_keepalive_intvl, net.ipv4.tcp_keepalive_probes;"
            " from v1.32 net.ipv4.tcp_rmem, net.ipv4.tcp_wmem; from v1.37 "
            "net.ipv4.tcp_slow_start_after_idle, net.ipv4.tcp_notsent_lowat"
        ),
    ),
    Check(
        "windowsHostProcess",
        BASELINE,
        "check_windowsHostProcess.go",
        (Variant(0, "windowsHostProcess_1_0", _windows_host_process_1_0),),
        "Pod and containers must not set securityContext.windowsOptions.hostProcess to true.",
        fields=(
            "spec.securityContext.windowsOptions.hostProcess",
            "spec.{containers,initContainers,ephemeralContainers}[*].securityContext.windowsOptions.hostProcess",
        ),
        allowed="undefined, false",
    ),
)

_BY_ID = {c.id: c for c in CHECKS}


def variants_for(level: str, minor: int) -> list[tuple[Check, Variant]]:
    """The checks PSA evaluates at `level` and v1.`minor` (`populate`), in its order: baseline
    checks by ID, then restricted checks by ID; at restricted, the baseline checks a restricted
    variant in effect overrides are left out."""
    minor = min(minor, LATEST_MINOR)
    in_effect = [(c, v) for c in CHECKS if (v := c.variant_at(minor)) is not None]
    baseline = sorted(((c, v) for c, v in in_effect if c.level == BASELINE), key=lambda cv: cv[0].id)
    if level == BASELINE:
        return baseline
    restricted = sorted(((c, v) for c, v in in_effect if c.level == RESTRICTED), key=lambda cv: cv[0].id)
    overridden = {o for _, v in restricted for o in v.overrides}
    return [cv for cv in baseline if cv[0].id not in overridden] + restricted


def applicable_minors(check: Check, variant: Variant) -> dict[str, list[int]]:
    """Per level, the minors (0..LATEST_MINOR) at which PSA evaluates this variant."""
    out: dict[str, list[int]] = {}
    for level in LEVELS:
        minors = [
            m
            for m in range(LATEST_MINOR + 1)
            if any(c is check and v is variant for c, v in variants_for(level, m))
        ]
        if minors:
            out[level] = minors
    return out


def check(check_id: str) -> Check:
    return _BY_ID[check_id]
