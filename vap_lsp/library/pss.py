"""`vap-lsp library pss`: the Pod Security Standards as ValidatingAdmissionPolicies.

What Pod Security Admission does around its checks (`admission/admission.go` of
k8s.io/pod-security-admission v0.37.2), and how the generated objects do the same:

- Pods are evaluated on CREATE and UPDATE, also through every subresource that carries a Pod
  except the ignored ones (`ignoredPodSubresources`: exec, attach, binding, eviction, log,
  portforward, proxy, status): the policy matches `pods`, `pods/ephemeralcontainers` and, where
  served, `pods/resize`. An update is evaluated only when it is significant
  (`isSignificantPodUpdate`: a container or init container added, removed or given another
  image, an ephemeral container added or given another image): a matchCondition.
- Workload resources (`defaultPodSpecResources`) are evaluated on their pod template and PSA only
  warns (`EvaluatePod(..., enforce=false)`): one policy per place the template sits (typed by its
  kind's schema: a multi-kind variable would leave the expressions untyped), bound with Warn (or
  Deny, or not generated: `--workloads`); their subresources are not matched (PSA skips them).
- Exemptions (`exemptNamespace`, `exemptUser`, `exemptRuntimeClass`; empty names never exempt)
  are matchConditions reading a ConfigMap param; images exempt containers one by one.
- The level and version come from the options, or from the namespace's
  `pod-security.kubernetes.io/enforce` and `enforce-version` labels (`api.PolicyToEvaluate`: an
  invalid level is restricted, an invalid version latest, a version past the newest known is the
  newest) with `--namespace-labels`.

Every check is a validation (`pss_checks`), in PSA's order; reason `Forbidden` (PSA denies with
403 Forbidden); failurePolicy `Fail` (PSA's evaluation never fails).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vap_lsp import __version__
from vap_lsp.library.emit import Block, Commented, dump_documents, plain
from vap_lsp.library.pss_checks import (
    BASELINE,
    LATEST_MINOR,
    LEVELS,
    PSA_MODULE,
    RESTRICTED,
    Check,
    Roots,
    Variant,
    applicable_minors,
    variants_for,
)
from vap_lsp.schema.store import available_versions, default_version, get_schema_set

__all__ = [
    "EXEMPTIONS_NAME",
    "EXEMPTIONS_NAMESPACE",
    "LEVEL_LABEL",
    "PRIVILEGED",
    "VERSION_LABEL",
    "WORKLOADS",
    "Generated",
    "Options",
    "OptionsError",
    "generate",
    "parse_version",
]

PRIVILEGED = "privileged"
LEVEL_LABEL = "pod-security.kubernetes.io/enforce"
VERSION_LABEL = "pod-security.kubernetes.io/enforce-version"
WARN_LEVEL_LABEL = "pod-security.kubernetes.io/warn"
WARN_VERSION_LABEL = "pod-security.kubernetes.io/warn-version"
WORKLOADS = ("deny", "warn", "off")
EXEMPTIONS_NAME = "pss-exemptions"
EXEMPTIONS_NAMESPACE = "kube-system"
EXEMPTION_KEYS = ("namespaces", "usernames", "runtimeClassNames", "images")
_VERSION = re.compile(r"v1\.(0|[1-9][0-9]*)")
_LEVEL_NUMBER = {PRIVILEGED: 0, BASELINE: 1, RESTRICTED: 2}


class OptionsError(ValueError):
    """A bad level, version or combination: said as the CLI prints it."""


def parse_version(text: str, newest: int = LATEST_MINOR) -> int:
    """`latest` or `v1.N` (`api.ParseVersion`) as a minor; past the newest known: the newest
    (`EvaluatePod` caps the version at its evaluator's newest)."""
    if text == "latest":
        return newest
    match = _VERSION.fullmatch(text)
    if match is None:
        raise OptionsError(f'--version {text}: must be "latest" or "v1.x"')
    return min(int(match.group(1)), newest)


@dataclass(frozen=True)
class Options:
    level: str | None = None
    """baseline or restricted; with `namespace_labels` the level of unlabelled namespaces
    (None: privileged, PSA's default)."""
    version: str = "latest"
    workloads: str = "warn"
    exemptions: bool = False
    """Exemptions read from a ConfigMap param (`--exemptions params`)."""
    namespace_labels: bool = False
    kubernetes_version: str = field(default_factory=default_version)
    """The schemas the policy is typed against: which fields and subresources exist."""
    warn_level: str | None = None
    """With `namespace_labels`, the warn level of unlabelled namespaces (AdmissionConfiguration
    `defaults.warn`; None: `level`)."""
    warn_version: str | None = None
    newest: int = LATEST_MINOR
    """The newest policy version the emulated PSA knows (the minor of its kube-apiserver, at most
    the library's): `latest` and newer versions are that one."""

    def problems(self) -> list[str]:
        out: list[str] = []
        if self.level is None and not self.namespace_labels:
            out.append("--level is required (baseline or restricted) unless --namespace-labels")
        allowed = (*LEVELS, PRIVILEGED) if self.namespace_labels else LEVELS
        if self.level is not None and self.level not in allowed:
            out.append(f"--level {self.level}: must be one of {', '.join(allowed)}")
        if self.warn_level is not None and self.warn_level not in (*LEVELS, PRIVILEGED):
            out.append(f"warn level {self.warn_level}: must be one of privileged, {', '.join(LEVELS)}")
        if not 0 <= self.newest <= LATEST_MINOR:
            out.append(f"newest version v1.{self.newest}: the library knows v1.0 to v1.{LATEST_MINOR}")
        if self.workloads not in WORKLOADS:
            out.append(f"--workloads {self.workloads}: must be one of {', '.join(WORKLOADS)}")
        if self.kubernetes_version not in available_versions():
            out.append(
                f"--kubernetes-version {self.kubernetes_version}: one of {', '.join(available_versions())}"
            )
        for version in (self.version, self.warn_version or self.version):
            try:
                parse_version(version)
            except OptionsError as exc:
                out.append(str(exc))
        return out

    @property
    def minor(self) -> int:
        return parse_version(self.version, self.newest)

    @property
    def base_name(self) -> str:
        if self.namespace_labels:
            return "pss-namespace-labels"
        return f"pss-{self.level}-{self.version}"


@dataclass(frozen=True)
class Shape:
    """Where the pod template sits: one policy per place (its expressions typed by the kinds)."""

    suffix: str
    title: str
    rules: tuple[tuple[str, str, tuple[str, ...]], ...]
    """(apiGroup, apiVersion, resources)."""
    roots: Roots
    present: str
    """CEL: the pod spec is there (empty for Pods)."""
    workload: bool


def _shapes(options: Options) -> list[Shape]:
    schema = get_schema_set(options.kubernetes_version)
    volume = schema.definition("io.k8s.api.core.v1.Volume") or {}
    image_volumes = "image" in (volume.get("properties") or {})
    exempt = options.exemptions
    pods = ["pods", "pods/ephemeralcontainers"]
    if schema.kinds_for("", "v1", "pods/resize"):
        pods.append("pods/resize")
    out = [
        Shape(
            "",
            "Pods",
            (("", "v1", tuple(pods)),),
            Roots("object.spec", "object.metadata", False, exempt, image_volumes),
            "",
            False,
        )
    ]
    if options.workloads == "off":
        return out

    def template(root: str) -> Roots:
        return Roots(f"{root}.spec", f"{root}.metadata", True, exempt, image_volumes)

    out += [
        Shape(
            "-workloads",
            "the pod templates of Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs and "
            "ReplicationControllers",
            (
                ("apps", "v1", ("deployments", "replicasets", "statefulsets", "daemonsets")),
                ("batch", "v1", ("jobs",)),
                ("", "v1", ("replicationcontrollers",)),
            ),
            template("object.spec.template"),
            "has(object.spec) && has(object.spec.template) && has(object.spec.template.spec)",
            True,
        ),
        Shape(
            "-cronjobs",
            "the pod templates of CronJobs",
            (("batch", "v1", ("cronjobs",)),),
            template("object.spec.jobTemplate.spec.template"),
            "has(object.spec) && has(object.spec.jobTemplate.spec)"
            " && has(object.spec.jobTemplate.spec.template.spec)",
            True,
        ),
        Shape(
            "-podtemplates",
            "PodTemplates",
            (("", "v1", ("podtemplates",)),),
            template("object.template"),
            "has(object.template) && has(object.template.spec)",
            True,
        ),
    ]
    return out


# --- pieces of CEL used around the checks --------------------------------------------------------


def _param_list(key: str) -> str:
    """A ConfigMap entry as a list: names one per line or comma-separated, blanks trimmed."""
    return (
        f"(has(params.data) && '{key}' in params.data ? params.data['{key}'].replace(',', '\\n')"
        ".split('\\n').map(s, s.trim()).filter(s, s != '') : [])"
    )


def _images(root: str, name: str, value: str = "has(c.image) ? c.image : ''") -> str:
    """The images (or another value) of one list of containers, in order; [] when it is absent."""
    return f"(has({root}.spec.{name}) ? {root}.spec.{name}.map(c, {value}) : [])"


_PAIR = "c.name + '=' + (has(c.image) ? c.image : '')"
_SIGNIFICANT_UPDATE = "\n".join(
    [
        "request.operation != 'UPDATE'",
        "|| object.spec.containers.map(c, has(c.image) ? c.image : '')",
        "  != oldObject.spec.containers.map(c, has(c.image) ? c.image : '')",
        f"|| {_images('object', 'initContainers')}",
        f"  != {_images('oldObject', 'initContainers')}",
        "|| !sets.contains(",
        f"  {_images('oldObject', 'ephemeralContainers', _PAIR)},",
        f"  {_images('object', 'ephemeralContainers', _PAIR)})",
    ]
)


def _image_exempt(image: str) -> str:
    """The image is listed, or its repository is (the image without `@digest` and `:tag`)."""
    name = f"{image}.split('@')[0]"
    tagged = f"{name}.lastIndexOf(':') > {name}.lastIndexOf('/')"
    repository = f"({tagged} ? {name}.substring(0, {name}.lastIndexOf(':')) : {name})"
    return f"{image} in variables.exemptImages || {repository} in variables.exemptImages"


def _exempt_containers(r: Roots) -> str:
    exempt = f"has(c.image) && ({_image_exempt('c.image')})"
    return "\n+ ".join(
        f"(has({r.spec}.{name}) ? {r.spec}.{name}.map(c, {exempt}, c.name) : [])"
        for name in ("initContainers", "containers", "ephemeralContainers")
    )


def _level_of(labels: str, key: str, default: int, invalid: int) -> str:
    value = f"{labels}['{key}']"
    return (
        f"!('{key}' in {labels}) ? {default} : {value} == 'privileged' ? 0 : {value} == 'baseline' ? 1"
        f" : {value} == 'restricted' ? 2 : {invalid}"
    )


def _version_of(labels: str, key: str, default: int, newest: int) -> str:
    value = f"{labels}['{key}']"
    return (
        f"!('{key}' in {labels}) ? {default}"
        f" : {value}.matches('^v1[.](0|[1-9][0-9]{{0,3}})$') && int({value}.substring(3)) < {newest}"
        f" ? int({value}.substring(3)) : {newest}"
    )


def _label_variables(options: Options, warn: bool) -> list[tuple[str, str]]:
    """`level` (0 privileged, 1 baseline, 2 restricted) and `version` (a minor) from the
    namespace labels, as `api.PolicyToEvaluate` reads them; `warn`: the warn mode's (workloads)."""
    default_level = _LEVEL_NUMBER[options.level or PRIVILEGED]
    default_version = options.minor
    newest = options.newest
    labels = "variables.namespaceLabels"
    out = [
        (
            "namespaceLabels",
            "namespaceObject != null && has(namespaceObject.metadata.labels)"
            " ? namespaceObject.metadata.labels : {}",
        ),
        # an enforce level that does not parse is restricted (fail closed)
        ("enforceLevel", _level_of(labels, LEVEL_LABEL, default_level, 2)),
        ("enforceVersion", _version_of(labels, VERSION_LABEL, default_version, newest)),
    ]
    if not warn:
        return [*out, ("level", "variables.enforceLevel"), ("version", "variables.enforceVersion")]
    # warn: a warn level that does not parse is privileged (fail open); without a warn label, an
    # enforce label (that parses) stricter than the default warns at the enforce level and version
    default_level = _LEVEL_NUMBER[options.warn_level or options.level or PRIVILEGED]
    default_version = parse_version(options.warn_version or options.version, newest)
    enforce_set = (
        f"'{LEVEL_LABEL}' in {labels}"
        f" && {labels}['{LEVEL_LABEL}'] in ['privileged', 'baseline', 'restricted']"
    )
    raised = (
        f"!('{WARN_LEVEL_LABEL}' in {labels}) && ({enforce_set}) && variables.enforceLevel > {default_level}"
    )
    warn_level = _level_of(labels, WARN_LEVEL_LABEL, default_level, 0)
    return [
        *out,
        ("warnRaised", raised),
        ("level", f"variables.warnRaised ? variables.enforceLevel : {warn_level}"),
        (
            "version",
            f"variables.warnRaised && !('{WARN_VERSION_LABEL}' in {labels}) ? variables.enforceVersion"
            f" : {_version_of(labels, WARN_VERSION_LABEL, default_version, newest)}",
        ),
    ]


def _ranges(minors: Sequence[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in minors:
        if out and out[-1][1] == m - 1:
            out[-1] = (out[-1][0], m)
        else:
            out.append((m, m))
    return out


def _minor_condition(lo: int, hi: int, newest: int) -> list[str]:
    out: list[str] = []
    if lo > 0:
        out.append(f"variables.version >= {lo}")
    if hi < newest:
        out.append(f"variables.version <= {hi}")
    return out


def _minors(check: Check, variant: Variant, newest: int) -> dict[str, list[int]]:
    """`applicable_minors` up to the newest version the emulated PSA knows."""
    found = {
        lv: [m for m in minors if m <= newest] for lv, minors in applicable_minors(check, variant).items()
    }
    return {lv: m for lv, m in found.items() if m}


def _applies(check: Check, variant: Variant, newest: int) -> str:
    """CEL: PSA evaluates this variant at the namespace's level and version."""
    by_level = _minors(check, variant, newest)
    if by_level.get(BASELINE) == by_level.get(RESTRICTED):
        groups = [("variables.level >= 1", by_level[BASELINE])]
    else:
        groups = [(f"variables.level == {_LEVEL_NUMBER[lv]}", m) for lv, m in by_level.items()]
    terms = []
    for level_test, minors in groups:
        for lo, hi in _ranges(minors):
            terms.append(" && ".join([level_test, *_minor_condition(lo, hi, newest)]))
    return " || ".join(f"({t})" if len(terms) > 1 else t for t in terms)


def _span(minors: Sequence[int], newest: int) -> str:
    return ", ".join(
        f"v1.{lo}+" if hi == newest else (f"v1.{lo}" if lo == hi else f"v1.{lo}–v1.{hi}")
        for lo, hi in _ranges(minors)
    )


def _where(check: Check, variant: Variant, newest: int) -> str:
    """`baseline v1.27–v1.28, restricted v1.27–v1.28`."""
    return ", ".join(f"{lv} {_span(m, newest)}" for lv, m in _minors(check, variant, newest).items())


# --- the objects ---------------------------------------------------------------------------------


@dataclass
class Generated:
    """The generated objects (YAML-ready, with comments) and their names."""

    documents: list[tuple[str, str, dict[str, Any]]]
    """(file stem, header comment, object)."""

    def text(self) -> str:
        return dump_documents([(header, obj) for _, header, obj in self.documents])

    def files(self) -> dict[str, str]:
        """File name → its YAML, one object each."""
        return {f"{stem}.yaml": dump_documents([(header, obj)]) for stem, header, obj in self.documents}

    def objects(self) -> list[dict[str, Any]]:
        """Plain data, as a YAML reader gets it."""
        return [plain(obj) for _, _, obj in self.documents]


def _selected(options: Options) -> list[tuple[Check, Variant, str]]:
    """(check, variant, variable prefix) in validation order."""
    if not options.namespace_labels:
        assert options.level is not None
        return [(c, v, c.id) for c, v in variants_for(options.level, options.minor)]
    seen: list[tuple[Check, Variant, str]] = []
    for level in LEVELS:
        for minor in range(options.newest + 1):
            for c, v in variants_for(level, minor):
                if not any(c is s[0] and v is s[1] for s in seen):
                    seen.append((c, v, f"{c.id}_v1_{v.since}"))
    # PSA's order (baseline checks by ID, then restricted ones), versions in order within a check
    return sorted(seen, key=lambda s: (s[0].level != BASELINE, s[0].id, s[1].since))


def _policy(options: Options, shape: Shape) -> tuple[str, dict[str, Any]]:
    name = options.base_name + shape.suffix
    roots = shape.roots
    conditions: list[Any] = []
    if shape.present:
        conditions.append({"name": "has-pod-template", "expression": Block(shape.present)})
    else:
        conditions.append(
            Commented(
                "admission.go isSignificantPodUpdate: an update that changes no image is not evaluated",
                {"name": "significant-pod-update", "expression": Block(_SIGNIFICANT_UPDATE)},
            )
        )
    variables: list[Any] = []
    if options.exemptions:
        spec_guard = f"{shape.present} && " if shape.present else ""
        conditions += [
            Commented(
                "admission.go exemptNamespace, exemptUser, exemptRuntimeClass (params: ConfigMap "
                f"{EXEMPTIONS_NAMESPACE}/{EXEMPTIONS_NAME})",
                {
                    "name": "exempt-namespace",
                    "expression": Block(f"!(request.namespace in {_param_list('namespaces')})"),
                },
            ),
            {
                "name": "exempt-user",
                "expression": Block(f"!(request.userInfo.username in {_param_list('usernames')})"),
            },
            {
                "name": "exempt-runtime-class",
                "expression": Block(
                    f"!({spec_guard}has({roots.spec}.runtimeClassName)\n"
                    f"  && {roots.spec}.runtimeClassName in {_param_list('runtimeClassNames')})"
                ),
            },
        ]
        variables += [
            {"name": "exemptImages", "expression": Block(_param_list("images"))},
            Commented(
                "containers whose image (or its repository) is exempt: skipped by every container check",
                {"name": "exemptContainers", "expression": Block(_exempt_containers(roots))},
            ),
        ]
    if options.namespace_labels:
        label_vars = _label_variables(options, warn=shape.workload and options.workloads == "warn")
        variables += [{"name": n, "expression": Block(e)} for n, e in label_vars]
    validations: list[Any] = []
    checks: list[str] = []
    for check, variant, prefix in _selected(options):
        rule = variant.build(roots, prefix)
        first = True
        for var_name, expression in rule.variables:
            item: Any = {"name": var_name, "expression": Block(expression)}
            if first:
                item = Commented(f"{check.id}: policy/{check.file} {variant.function}", item)
                first = False
            variables.append(item)
        expression = rule.expression
        if options.namespace_labels:
            expression = f"!({_applies(check, variant, options.newest)})\n|| {expression}"
        where = (
            _where(check, variant, options.newest)
            if options.namespace_labels
            else f"{check.level} check, {variant.function} from v1.{variant.since}"
        )
        validations.append(
            Commented(
                f"{check.id}: {check.summary}\npolicy/{check.file} {variant.function} ({where})",
                {
                    "expression": Block(expression),
                    "messageExpression": Block(rule.message_expression),
                    "message": rule.message,
                    "reason": "Forbidden",
                },
            )
        )
        checks.append(check.id if not options.namespace_labels else prefix)
    resource_rules = [
        {
            "apiGroups": [group],
            "apiVersions": [version],
            "operations": ["CREATE", "UPDATE"],
            "resources": list(resources),
        }
        for group, version, resources in shape.rules
    ]
    spec: dict[str, Any] = {"failurePolicy": "Fail"}
    if options.exemptions:
        spec["paramKind"] = {"apiVersion": "v1", "kind": "ConfigMap"}
    spec["matchConstraints"] = {"resourceRules": resource_rules}
    spec["matchConditions"] = conditions
    spec["variables"] = variables
    spec["validations"] = validations
    annotations = {
        "vap-lsp/pss-level": options.level or PRIVILEGED,
        "vap-lsp/pss-version": f"v1.{options.minor}",
        "vap-lsp/pss-checks": ",".join(checks),
        "vap-lsp/pss-source": PSA_MODULE,
    }
    if options.namespace_labels:
        annotations["vap-lsp/pss-level"] = "namespace labels"
    obj = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {
            "name": name,
            "labels": {"app.kubernetes.io/managed-by": "vap-lsp"},
            "annotations": annotations,
        },
        "spec": spec,
    }
    return name, obj


def _binding(options: Options, shape: Shape, policy: str) -> dict[str, Any]:
    actions = ["Warn"] if shape.workload and options.workloads == "warn" else ["Deny"]
    spec: dict[str, Any] = {"policyName": policy, "validationActions": actions}
    if options.exemptions:
        spec["paramRef"] = {
            "name": EXEMPTIONS_NAME,
            "namespace": EXEMPTIONS_NAMESPACE,
            "parameterNotFoundAction": "Deny",
        }
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy, "labels": {"app.kubernetes.io/managed-by": "vap-lsp"}},
        "spec": spec,
    }


def exemptions_configmap(values: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """The param the bindings read: each key a list of names, one per line."""
    values = values or {}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": EXEMPTIONS_NAME, "namespace": EXEMPTIONS_NAMESPACE},
        "data": {k: "\n".join(values.get(k, ())) for k in EXEMPTION_KEYS},
    }


def _header(options: Options, shape: Shape) -> str:
    if options.namespace_labels:
        what = (
            f"the level and version of each namespace's {LEVEL_LABEL} and {VERSION_LABEL} labels "
            f"(unlabelled: {options.level or PRIVILEGED} {options.version})"
        )
    else:
        what = f'level "{options.level}" at {options.version} (v1.{options.minor})'
    mode = "Warn" if shape.workload and options.workloads == "warn" else "Deny"
    return (
        f"Pod Security Standards, {what}, for {shape.title} ({mode}).\n"
        f"Generated by vap-lsp {__version__} (`vap-lsp library pss`) from Pod Security Admission's checks,\n"
        f"{PSA_MODULE} policy/check_*.go; typed for Kubernetes {options.kubernetes_version}."
    )


def generate(options: Options) -> Generated:
    """The policies, bindings (and the exemptions ConfigMap); raises OptionsError."""
    problems = options.problems()
    if problems:
        raise OptionsError("; ".join(problems))
    documents: list[tuple[str, str, dict[str, Any]]] = []
    for shape in _shapes(options):
        name, policy = _policy(options, shape)
        header = _header(options, shape)
        documents.append((name, header, policy))
        documents.append((f"{name}-binding", "", _binding(options, shape, name)))
    if options.exemptions:
        documents.append(
            (
                EXEMPTIONS_NAME,
                "Exemptions read by the bindings (as PSA's AdmissionConfiguration exemptions, plus images):\n"
                "names one per line or comma-separated. An image exempts the containers running it;\n"
                "an image without tag or digest exempts every tag and digest of that repository.",
                exemptions_configmap(),
            )
        )
    return Generated(documents)
