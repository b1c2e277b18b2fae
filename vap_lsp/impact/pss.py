"""`vap-lsp impact --base-pss`: what would change if the policies replaced Pod Security Admission.

The base is Pod Security Admission as the cluster runs it, from the snapshot's namespace labels.
vap-lsp is pure Python and cannot run PSA's Go evaluator, so the base is the one emulation that
is proven to give PSA's verdict: the namespace-labels library `vap-lsp library pss` generates
(`library.pss`), evaluated by the same offline admission as the policies. Its agreement with
PSA is established by the test suite (PSA's 4,537 fixtures; PSA's own evaluator on generated
Pods, `tests/library`), not by this run; the report says so in a note, with what is not emulated.

The cluster's PSA configuration (`--pss-config`: a PodSecurityConfiguration, or the
AdmissionConfiguration holding it) gives the defaults of unlabelled namespaces and the
exemptions (`admission/api` of k8s.io/pod-security-admission: `defaults.enforce`,
`enforce-version`, `warn`, `warn-version`; `exemptions.usernames`, `runtimeClasses`,
`namespaces`); without it, PSA's built-in defaults (privileged, latest; no exemptions).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vap_lsp.admission.api import PolicyInputs
from vap_lsp.admission.load import InputError, documents, read_text
from vap_lsp.library.pss import Options, OptionsError, exemptions_configmap, generate
from vap_lsp.library.pss_checks import LATEST_MINOR, PSA_MODULE

__all__ = ["PssConfig", "pss_base", "read_config"]

CONFIG_KINDS = {
    ("pod-security.admission.config.k8s.io/v1", "PodSecurityConfiguration"),
    ("pod-security.admission.config.k8s.io/v1beta1", "PodSecurityConfiguration"),
}
ADMISSION_CONFIGURATION = "AdmissionConfiguration"


@dataclass(frozen=True)
class PssConfig:
    """What PSA's configuration sets that the base needs (PSA's defaults when absent)."""

    enforce: str = "privileged"
    enforce_version: str = "latest"
    warn: str = "privileged"
    warn_version: str = "latest"
    namespaces: tuple[str, ...] = ()
    usernames: tuple[str, ...] = ()
    runtime_classes: tuple[str, ...] = ()
    source: str = ""

    @property
    def has_exemptions(self) -> bool:
        return bool(self.namespaces or self.usernames or self.runtime_classes)


def _names(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: must be a list of names")
    return tuple(value)


def _from_data(data: dict[str, Any], where: str) -> PssConfig:
    defaults = data.get("defaults") or {}
    exemptions = data.get("exemptions") or {}
    if not isinstance(defaults, dict) or not isinstance(exemptions, dict):
        raise InputError(f"{where}: defaults and exemptions must be mappings")
    text = {k: v for k, v in defaults.items() if isinstance(v, str)}
    return PssConfig(
        enforce=text.get("enforce", "privileged"),
        enforce_version=text.get("enforce-version", "latest"),
        warn=text.get("warn", "privileged"),
        warn_version=text.get("warn-version", "latest"),
        namespaces=_names(exemptions.get("namespaces"), f"{where}: exemptions.namespaces"),
        usernames=_names(exemptions.get("usernames"), f"{where}: exemptions.usernames"),
        runtime_classes=_names(exemptions.get("runtimeClasses"), f"{where}: exemptions.runtimeClasses"),
        source=where,
    )


def read_config(path: str) -> PssConfig:
    """The PodSecurityConfiguration of a file (alone, or the `PodSecurity` plugin's of an
    AdmissionConfiguration); raises InputError."""
    for doc in documents(read_text(Path(path)), path):
        if not isinstance(doc, dict):
            continue
        if (doc.get("apiVersion"), doc.get("kind")) in CONFIG_KINDS:
            return _from_data(doc, path)
        if doc.get("kind") == ADMISSION_CONFIGURATION:
            for plugin in doc.get("plugins") or []:
                if isinstance(plugin, dict) and plugin.get("name") == "PodSecurity":
                    configuration = plugin.get("configuration")
                    if isinstance(configuration, dict):
                        return _from_data(configuration, f"{path}: plugins[PodSecurity]")
                    raise InputError(f"{path}: the PodSecurity plugin's configuration is not inline")
    raise InputError(f"{path}: no PodSecurityConfiguration (nor AdmissionConfiguration with PodSecurity)")


def pss_base(config: PssConfig, kubernetes_version: str) -> tuple[PolicyInputs, list[str]]:
    """The base policy set and the notes that say what it is; raises InputError for a
    configuration PSA would refuse (a bad level or version)."""
    minor = int(kubernetes_version.split(".")[1])
    newest = min(minor, LATEST_MINOR)
    options = Options(
        level=config.enforce,
        version=config.enforce_version,
        warn_level=config.warn,
        warn_version=config.warn_version,
        namespace_labels=True,
        exemptions=config.has_exemptions,
        newest=newest,
        kubernetes_version=kubernetes_version,
    )
    try:
        objects = [o for o in generate(options).objects() if o["kind"] != "ConfigMap"]
    except OptionsError as exc:
        raise InputError(f"{config.source or '--base-pss'}: {exc}") from exc
    if config.has_exemptions:
        objects.append(
            exemptions_configmap(
                {
                    "namespaces": config.namespaces,
                    "usernames": config.usernames,
                    "runtimeClassNames": config.runtime_classes,
                }
            )
        )
    defaults = f"enforce {config.enforce} {config.enforce_version}, warn {config.warn} {config.warn_version}"
    notes = [
        "base: Pod Security Admission of Kubernetes "
        f"{kubernetes_version} (policy versions up to v1.{newest}), emulated by the namespace-labels "
        f"library of `vap-lsp library pss` ({PSA_MODULE} checks; it agrees with PSA on PSA's own "
        "fixtures and on PSA's evaluator in vap-lsp's tests): Pods enforce each namespace's "
        "pod-security.kubernetes.io/enforce and enforce-version labels, workload templates are warned "
        "at its warn labels; PSA's audit mode and its warnings on Pods are not emulated",
        f"base: unlabelled namespaces get {defaults}"
        + (f" (from {config.source})" if config.source else " (PSA's built-in defaults; --pss-config FILE)")
        + "; exempt: "
        + "; ".join(
            f"{what} {', '.join(names) if names else 'none'}"
            for what, names in (
                ("namespaces", config.namespaces),
                ("users", config.usernames),
                ("runtime classes", config.runtime_classes),
            )
        ),
    ]
    return PolicyInputs.from_objects(objects), notes
