"""Objects straight from a live cluster (`vap-lsp impact --cluster`), read-only, through the
official `kubernetes` Python client (`vap-lsp[scale]`).

What is read, and only that (each a paged `list`, `limit` and `continue`, every page of one
resource at the resourceVersion of its first page, so each kind is one consistent snapshot):
- the resources the policies' `resourceRules` can match for the run's operation (discovery:
  the served, listable resources of the groups the rules name, each at the first version of
  its group's preferred-first list that serves it; `matchPolicy: Equivalent`, the default,
  matches any version, so the version of a rule does not narrow the listing);
- Namespaces (for `namespaceSelector` and `namespaceObject`) and the objects of each policy's
  `paramKind`;
- with `--installed`, the ValidatingAdmissionPolicies, MutatingAdmissionPolicies and their
  bindings the cluster serves. Policies kube-apiserver loads from files (`staticManifestsDir`
  of the policy plugins' configuration, feature `ManifestBasedAdmissionControlConfig`, names
  ending in `.static.k8s.io`: `k8s.io/apiserver/pkg/admission/plugin/policy/config/apis/
  policyconfig/v1/types.go`) are not served by the API, so they cannot be compared; a note
  says so.

Nothing is written. A denial by the cluster's authorization, an expired list or a server that
does not answer raise ClusterError with the server's own message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from vap_lsp.admission.api import PolicyInputs
from vap_lsp.analysis.model.matching import ANY, RuleRequest, rule_matches
from vap_lsp.impact.inputs import SourceObject
from vap_lsp.impact.locations import SCALE_EXTRA
from vap_lsp.schema.store import Resource

PAGE = 500
TIMEOUT = (10.0, 120.0)
"""(connect, read) seconds per request."""
STATIC_NOTE = (
    "policies and bindings kube-apiserver loads from files (staticManifestsDir, "
    "ManifestBasedAdmissionControlConfig: names ending in .static.k8s.io) are not served by the API: "
    "they are not among the installed ones compared (--static-manifests DIR adds such a folder)"
)
_POLICY_RESOURCES = (
    ("admissionregistration.k8s.io", "validatingadmissionpolicies"),
    ("admissionregistration.k8s.io", "validatingadmissionpolicybindings"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicies"),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings"),
)


class ClusterError(Exception):
    """The cluster cannot be read: no configuration, not reachable, denied (the message says
    which and what is needed)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def _path(resource: Resource) -> str:
    base = f"/apis/{resource.group}/{resource.version}" if resource.group else f"/api/{resource.version}"
    return f"{base}/{quote(resource.resource)}"


def _name(resource: Resource) -> str:
    return f"{resource.resource}.{resource.group}" if resource.group else resource.resource


@dataclass
class Listed:
    """One consistent list: a resource at one resourceVersion."""

    resource: str
    resource_version: str
    objects: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"resource": self.resource, "resourceVersion": self.resource_version, "objects": self.objects}


@dataclass
class LiveCluster:
    """A client of one cluster (a kubeconfig context, or the Pod's service account)."""

    api: Any
    server: str
    context: str
    lists: list[Listed] = field(default_factory=list)
    _groups: list[tuple[str, list[str]]] | None = None
    _served: dict[str, list[Resource]] = field(default_factory=dict)

    # --- requests ---------------------------------------------------------------------------

    def get(self, path: str, query: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
        """GET `path` as JSON; raises ClusterError with the server's message."""
        import urllib3

        try:
            method, url, headers, _body, _post = self.api.param_serialize(
                "GET",
                path,
                query_params=list(query),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
            )
            response = self.api.call_api(method, url, headers, _request_timeout=TIMEOUT)
            response.read()
        except urllib3.exceptions.HTTPError as exc:
            raise ClusterError(f"cannot reach the cluster at {self.server}: {_reason(exc)}") from exc
        except Exception as exc:  # the client's own (ApiException for TLS errors, config errors)
            if type(exc).__name__ == "ApiException":
                raise ClusterError(f"cannot reach the cluster at {self.server}: {_reason(exc)}") from exc
            raise
        status = int(response.status)
        try:
            data = json.loads(response.data or b"{}")
        except ValueError:
            data = {}
        if status >= 400:
            raise ClusterError(self._refusal(path, status, data), status)
        if not isinstance(data, dict):
            raise ClusterError(f"{self.server}{path}: the answer is not a JSON object")
        return data

    def _refusal(self, path: str, status: int, data: Any) -> str:
        message = data.get("message") if isinstance(data, dict) else None
        text = str(message or f"HTTP {status}")
        if status == 401:
            return f"the cluster at {self.server} did not accept the credentials of {self.context}: {text}"
        if status == 403:
            return (
                f"the cluster at {self.server} refused a read: {text} (vap-lsp impact --cluster needs "
                "list on what it reads: see README, 'A live cluster')"
            )
        return f"{self.server}{path}: {text}"

    # --- discovery ----------------------------------------------------------------------------

    def groups(self) -> list[tuple[str, list[str]]]:
        """(group, versions with the preferred first) of every served group, the core one first."""
        if self._groups is None:
            core = self.get("/api").get("versions") or ["v1"]
            out: list[tuple[str, list[str]]] = [("", [str(v) for v in core])]
            for g in self.get("/apis").get("groups") or []:
                if not isinstance(g, Mapping):
                    continue
                preferred = (g.get("preferredVersion") or {}).get("version")
                versions = [str(v.get("version")) for v in g.get("versions") or [] if isinstance(v, Mapping)]
                ordered = ([preferred] if preferred in versions else []) + [
                    v for v in versions if v != preferred
                ]
                out.append((str(g.get("name", "")), ordered))
            self._groups = out
        return self._groups

    def served(self, group: str) -> list[Resource]:
        """The listable resources of `group`, each at the first version (preferred first) that
        serves it; subresources left out."""
        hit = self._served.get(group)
        if hit is not None:
            return hit
        versions = next((v for g, v in self.groups() if g == group), [])
        out: dict[str, Resource] = {}
        for version in versions:
            base = f"/apis/{group}/{version}" if group else f"/api/{version}"
            for r in self.get(base).get("resources") or []:
                if not isinstance(r, Mapping):
                    continue
                name = str(r.get("name", ""))
                if not name or "/" in name or name in out or "list" not in (r.get("verbs") or []):
                    continue
                verbs = tuple(str(v) for v in r.get("verbs") or [])
                kind = str(r.get("kind", ""))
                out[name] = Resource(group, version, name, kind, bool(r.get("namespaced")), verbs)
        self._served[group] = list(out.values())
        return self._served[group]

    def by_resource(self, group: str, resource: str) -> Resource | None:
        return next((r for r in self.served(group) if r.resource == resource), None)

    def by_kind(self, api_version: str, kind: str) -> Resource | None:
        group = api_version.rpartition("/")[0]  # any served version: the server converts
        return next((r for r in self.served(group) if r.kind == kind), None)

    # --- lists --------------------------------------------------------------------------------

    def list(self, resource: Resource) -> Iterator[dict[str, Any]]:
        """Every object of `resource` in every namespace, page by page; each page at the
        resourceVersion of the first (the continue token carries it), so the kind is one
        consistent snapshot. Items get the apiVersion and kind that lists leave out."""
        listed = Listed(f"{resource.api_version} {resource.resource}", "")
        self.lists.append(listed)
        token = ""
        while True:
            query = [("limit", str(PAGE))] + ([("continue", token)] if token else [])
            try:
                page = self.get(_path(resource), query)
            except ClusterError as exc:
                if token and exc.status == 410:
                    raise ClusterError(
                        f"the list of {_name(resource)} expired while it was read (the server compacted "
                        f"resourceVersion {listed.resource_version}): run again ({exc})"
                    ) from exc
                raise
            meta = page.get("metadata") if isinstance(page.get("metadata"), Mapping) else {}
            assert isinstance(meta, Mapping)
            version = str(meta.get("resourceVersion", ""))
            if not listed.resource_version:
                listed.resource_version = version
            elif version and version != listed.resource_version:
                raise ClusterError(
                    f"the pages of {_name(resource)} came at resourceVersion {listed.resource_version} and "
                    f"{version}: not one consistent list"
                )
            for item in page.get("items") or []:
                if isinstance(item, dict):
                    item.setdefault("apiVersion", resource.api_version)
                    item.setdefault("kind", resource.kind)
                    listed.objects += 1
                    yield item
            token = str(meta.get("continue") or "")
            if not token:
                return


def connect(kubeconfig: str | None = None, context: str | None = None) -> LiveCluster:
    """A client of the kubeconfig's context (`$KUBECONFIG`, `~/.kube/config`), or of the Pod's
    service account when there is no kubeconfig and the run is inside a cluster."""
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as exc:
        raise ClusterError(f"--cluster needs the kubernetes client: {SCALE_EXTRA}") from exc
    configuration = client.Configuration()
    try:
        try:
            config.load_kube_config(
                config_file=kubeconfig,
                context=context,
                client_configuration=configuration,
                persist_config=False,
            )
            name = context or _current_context(kubeconfig)
        except ConfigException:
            if kubeconfig or context:
                raise
            config.load_incluster_config(client_configuration=configuration)
            name = "in-cluster service account"
    except (ConfigException, OSError, ValueError, TypeError) as exc:
        where = kubeconfig or "the kubeconfig ($KUBECONFIG, ~/.kube/config)"
        raise ClusterError(f"{where}: {exc}") from exc
    configuration.retries = False  # an unreachable server fails at once, with its reason
    return LiveCluster(client.ApiClient(configuration), str(configuration.host), name)


def _current_context(kubeconfig: str | None) -> str:
    from kubernetes import config

    try:
        _contexts, current = config.list_kube_config_contexts(config_file=kubeconfig)
    except Exception:  # only for the report's wording
        return "the current context"
    return str(current.get("name", "the current context")) if isinstance(current, Mapping) else "?"


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None)
    while isinstance(reason, BaseException) and getattr(reason, "reason", None) is not None:
        reason = getattr(reason, "reason", None)
    text = str(reason or exc)
    return " ".join(text.split())


# --- what to read ----------------------------------------------------------------------------------


def _rules(inputs: Sequence[PolicyInputs]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for i in inputs:
        for p in i.policies:
            spec = p.get("spec")
            mc = spec.get("matchConstraints") if isinstance(spec, Mapping) else None
            rules = mc.get("resourceRules") if isinstance(mc, Mapping) else None
            out.extend(r for r in rules or [] if isinstance(r, Mapping))
    return out


def matched_resources(cluster: LiveCluster, inputs: Sequence[PolicyInputs], operation: str) -> list[Resource]:
    """The served resources some policy's `resourceRules` can match for `operation` (any
    version: see the module's docstring), in discovery order."""
    rules = _rules(inputs)
    out: list[Resource] = []
    for group, _versions in cluster.groups():
        groups_named = [r.get("apiGroups") for r in rules]
        if not any(isinstance(g, list) and ("*" in g or group in g) for g in groups_named):
            continue
        for res in cluster.served(group):
            request = RuleRequest(operation, group, ANY, res.resource, "", "ns" if res.namespaced else "")
            if any(rule_matches(rule, request, possible=True) for rule in rules):
                out.append(res)
    return out


def _param_resources(cluster: LiveCluster, kinds: set[tuple[str, str]]) -> list[Resource]:
    out = []
    for api_version, kind in sorted(kinds):
        res = cluster.by_kind(api_version, kind)
        if res is not None:
            out.append(res)
    return out


@dataclass
class ClusterObjects:
    """What one run reads of the cluster: the context (Namespaces, params) read first and kept,
    then the matched resources streamed. Every object read is a request (those no policy
    matches count as not matched)."""

    cluster: LiveCluster
    context: list[dict[str, Any]]
    kept: dict[Resource, list[dict[str, Any]]]
    streamed: list[Resource]

    def context_objects(self) -> Iterator[SourceObject]:
        for obj in self.context:
            yield SourceObject(self.cluster.server, obj)

    def objects(self) -> Iterator[SourceObject]:
        """Every object read, each once: the context, then the matched resources (so the run
        equals `--objects` over an export of the same kinds)."""
        for res, kept in self.kept.items():
            for obj in kept:
                yield SourceObject(f"{self.cluster.server}{_path(res)}", obj)
        for res in self.streamed:
            if res not in self.kept:
                for obj in self.cluster.list(res):
                    yield SourceObject(f"{self.cluster.server}{_path(res)}", obj)

    def report(self) -> dict[str, Any]:
        return {
            "server": self.cluster.server,
            "context": self.cluster.context,
            "lists": [listed.to_json() for listed in self.cluster.lists],
        }


def read_plan(
    cluster: LiveCluster, inputs: Sequence[PolicyInputs], operation: str, param_kinds: set[tuple[str, str]]
) -> ClusterObjects:
    """Lists the Namespaces and the params now (kept: every request may need them) and plans
    the lists of the matched resources. Raises ClusterError."""
    namespaces = cluster.by_resource("", "namespaces")
    kept: dict[Resource, list[dict[str, Any]]] = {}
    for res in ([namespaces] if namespaces is not None else []) + _param_resources(cluster, param_kinds):
        if res not in kept:
            kept[res] = list(cluster.list(res))
    context = [obj for objs in kept.values() for obj in objs]
    return ClusterObjects(cluster, context, kept, matched_resources(cluster, inputs, operation))


def installed(cluster: LiveCluster) -> PolicyInputs:
    """The admission policies and bindings the cluster serves (every served kind of them)."""
    objects: list[dict[str, Any]] = []
    for group, resource in _POLICY_RESOURCES:
        res = cluster.by_resource(group, resource)
        if res is not None:
            objects.extend(cluster.list(res))
    return PolicyInputs.from_objects(objects)


__all__ = [
    "STATIC_NOTE",
    "ClusterError",
    "ClusterObjects",
    "LiveCluster",
    "connect",
    "installed",
    "read_plan",
]
