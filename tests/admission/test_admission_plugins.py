"""kube-apiserver's own admission plugins and conversions, end to end through offline admission.

A validating policy sees an object after the server's default-enabled mutating plugins
(`plugin/pkg/admission/...`, order of `pkg/kubeapiserver/options/plugins.go` AllOrderedPlugins)
and after the round trip through the internal version (`pkg/apis/core/v1/conversion.go`): what a
`kubectl get -o yaml` of a new Pod shows, not the manifest. The plugins' own tables are translated
in `tests/defaulting/test_admission_plugins_upstream.py`; here, what that means for verdicts.
"""

from __future__ import annotations

import textwrap
from typing import Any

import yaml

from vap_lsp.admission.api import AdmissionRequestInput, AdmissionResult, PolicyInputs, admit, prepare

TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount"


def _policy(*expressions: str, resources: str = "pods", kind: str = "ValidatingAdmissionPolicy") -> str:
    validations = "\n".join(f"  - expression: {e!r}" for e in expressions)
    return (
        textwrap.dedent(
            f"""\
        apiVersion: admissionregistration.k8s.io/v1
        kind: {kind}
        metadata: {{name: p}}
        spec:
          matchConstraints:
            resourceRules:
            - {{apiGroups: ["", "networking.k8s.io", "apps"], apiVersions: ["v1"],
                operations: ["CREATE", "UPDATE"], resources: [{resources}]}}
          validations:
        """
        )
        + validations
        + textwrap.dedent(
            """
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata: {name: b}
        spec: {policyName: p, validationActions: [Deny]}
        """
        )
    )


def _admit(
    policies: str,
    obj: str,
    *,
    operation: str = "CREATE",
    old: str | None = None,
    cluster: str = "",
    builtin_admission: bool = True,
) -> AdmissionResult:
    inputs = PolicyInputs.from_objects(d for d in yaml.safe_load_all(policies + "\n---\n" + cluster) if d)
    request = AdmissionRequestInput(
        operation, yaml.safe_load(obj), old_object=yaml.safe_load(old) if old is not None else None
    )
    return admit(request, inputs, kubernetes_version="1.35", builtin_admission=builtin_admission)


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  initContainers: [{name: migrate, image: "web:2.1"}]
  containers:
  - name: app
    image: "web:2.1"
    volumeMounts: [{name: cache, mountPath: /cache}]
  volumes: [{name: cache, emptyDir: {}}]
"""


def _spec(result: AdmissionResult) -> dict[str, Any]:
    assert result.evaluated is not None
    spec = result.evaluated["spec"]
    assert isinstance(spec, dict)
    return spec


def test_a_new_pod_as_validating_admission_sees_it() -> None:
    result = _admit(_policy("true"), POD)
    assert result.allowed, result.denials
    spec = _spec(result)
    # ServiceAccount: the default account and its token, mounted in every (init) container.
    assert (spec["serviceAccountName"], spec["serviceAccount"]) == ("default", "default")
    cache, token = spec["volumes"]
    assert cache == {"name": "cache", "emptyDir": {}}
    assert token["name"].startswith("kube-api-access-") and len(token["name"]) == len("kube-api-access-") + 5
    assert token["projected"] == {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "namespace",
                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                        }
                    ]
                }
            },
        ],
        "defaultMode": 420,
    }
    mount = {"name": token["name"], "readOnly": True, "mountPath": TOKEN}
    assert spec["initContainers"][0]["volumeMounts"] == [mount]
    assert spec["containers"][0]["volumeMounts"] == [{"name": "cache", "mountPath": "/cache"}, mount]
    # Priority: no PriorityClass named and no global default.
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in spec
    # DefaultTolerationSeconds.
    assert spec["tolerations"] == [
        {
            "key": "node.kubernetes.io/not-ready",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
        {
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 300,
        },
    ]
    assert result.notes == []


def test_policies_written_against_the_manifest_see_what_the_server_added() -> None:
    # Without the plugins these fail with `no such key: volumes` / `tolerations`; on a cluster
    # they pass: every pod gets the token volume and the two default tolerations.
    checks = (
        "object.spec.volumes.all(v, !has(v.hostPath))",
        "object.spec.tolerations.all(t, t.operator == 'Exists' && has(t.tolerationSeconds))",
        "object.spec.containers.all(c, c.volumeMounts.exists(m, m.mountPath == '" + TOKEN + "'))",
    )
    bare = POD.replace("    volumeMounts: [{name: cache, mountPath: /cache}]\n", "").replace(
        "  volumes: [{name: cache, emptyDir: {}}]\n", ""
    )
    assert _admit(_policy(*checks), bare).allowed
    as_written = _admit(_policy(*checks), bare, builtin_admission=False)
    assert not as_written.allowed
    assert "no such key: volumes" in as_written.denials[0].message


def test_automounting_turned_off_by_the_pod_or_its_service_account() -> None:
    off = POD.replace("spec:\n", "spec:\n  automountServiceAccountToken: false\n", 1)
    spec = _spec(_admit(_policy("true"), off))
    assert [v["name"] for v in spec["volumes"]] == ["cache"] and "volumeMounts" not in spec["initContainers"][
        0
    ]
    account = """\
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: shop}
automountServiceAccountToken: false
imagePullSecrets: [{name: registry}]
"""
    named = POD.replace("spec:\n", "spec:\n  serviceAccountName: builder\n", 1)
    spec = _spec(_admit(_policy("true"), named, cluster=account))
    assert [v["name"] for v in spec["volumes"]] == ["cache"]
    assert spec["imagePullSecrets"] == [{"name": "registry"}]
    # The pod's own setting wins over its service account's.
    spec = _spec(
        _admit(
            _policy("true"),
            named.replace("spec:\n", "spec:\n  automountServiceAccountToken: true\n", 1),
            cluster=account,
        )
    )
    assert spec["volumes"][1]["name"].startswith("kube-api-access-")


def test_a_priority_the_pod_sets_itself_is_forbidden() -> None:
    bad = POD.replace("spec:\n", "spec:\n  priority: 5\n", 1)
    result = _admit(_policy("true"), bad)
    assert not result.allowed and result.evaluations == []  # never reaches a policy
    [denial] = result.denials
    assert (denial.reason, denial.code) == ("Forbidden", 403)
    assert denial.message == (
        'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; '
        "priority admission controller computed 0 from the given PriorityClass name"
    )
    never = POD.replace("spec:\n", "spec:\n  preemptionPolicy: Never\n", 1)
    assert _admit(_policy("true"), never).denials[0].message == (
        'pods "web" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in '
        "pod spec; priority admission controller computed PreemptLowerPriority from the given "
        "PriorityClass name"
    )


def test_priority_classes_of_the_cluster_are_read_from_the_given_objects() -> None:
    classes = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: -10
globalDefault: true
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: web-high}
value: 1000
"""
    spec = _spec(_admit(_policy("true"), POD, cluster=classes))
    assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == (
        "batch-low",
        -10,
        "Never",
    )
    high = POD.replace("spec:\n", "spec:\n  priorityClassName: web-high\n", 1)
    spec = _spec(_admit(_policy("true"), high, cluster=classes))
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "PreemptLowerPriority")
    critical = POD.replace("spec:\n", "spec:\n  priorityClassName: system-node-critical\n", 1)
    assert _spec(_admit(_policy("true"), critical))["priority"] == 2000001000
    unknown = POD.replace("spec:\n", "spec:\n  priorityClassName: gold\n", 1)
    result = _admit(_policy("object.spec.priority >= 0"), unknown)
    assert "priority" not in _spec(result)
    assert result.notes == [
        "spec.priority: not set: PriorityClass 'gold' was not given, so the value the Priority admission "
        "plugin sets from it (or its rejection of the pod if there is no such class) is not known offline"
    ]


def test_an_update_reads_the_stored_pod_and_keeps_what_a_pod_cannot_change() -> None:
    # The old object is stored: it went through the plugins when it was created. The new one, as
    # `kubectl apply` sends it, carries the stored service account and token; the tolerations and
    # priority are the plugins' own on UPDATE.
    new = POD.replace('image: "web:2.1"\n    volumeMounts', 'image: "web:2.2"\n    volumeMounts')
    same = _policy(
        "object.spec.volumes == oldObject.spec.volumes",
        "object.spec.tolerations == oldObject.spec.tolerations",
        "object.spec.priority == oldObject.spec.priority",
        "object.spec.serviceAccountName == oldObject.spec.serviceAccountName",
        "object.spec.initContainers[0].volumeMounts == oldObject.spec.initContainers[0].volumeMounts",
    )
    result = _admit(same, new, operation="UPDATE", old=POD)
    assert result.allowed, result.denials
    assert result.evaluated is not None and result.evaluated["spec"]["containers"][0]["image"] == "web:2.2"


def test_a_mutating_policy_sees_the_plugins_work_and_a_container_it_adds_has_no_token() -> None:
    mutating = """\
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: sidecar}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}
  matchConditions:
  - name: token-mounted
    expression: "object.spec.volumes.exists(v, v.name.startsWith('kube-api-access-'))"
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{spec: Object.spec{containers: [Object.spec.containers{name: 'proxy', image: 'envoy:1'}]}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: sidecar}
spec: {policyName: sidecar}
"""
    result = _admit(_policy("true") + "\n---\n" + mutating, POD)
    assert result.allowed, result.denials
    app, proxy = _spec(result)["containers"]
    assert [m["mountPath"] for m in app["volumeMounts"]] == ["/cache", TOKEN]
    assert proxy["name"] == "proxy" and "volumeMounts" not in proxy


PVC = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""

DEFAULT_CLASSES = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: k8s.io/ingress-nginx}
"""


def test_storage_class_and_protection_finalizer_of_a_new_claim() -> None:
    policy = _policy("has(object.spec.storageClassName)", resources="persistentvolumeclaims")
    without = _admit(policy, PVC)
    assert not without.allowed
    assert without.notes == [
        "spec.storageClassName: left unset as no default StorageClass was given; on a cluster with one, "
        "the DefaultStorageClass admission plugin sets it before admission policies"
    ]
    result = _admit(policy, PVC, cluster=DEFAULT_CLASSES)
    assert result.allowed and result.notes == []
    assert result.evaluated is not None
    assert result.evaluated["spec"]["storageClassName"] == "standard"
    assert result.evaluated["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
    explicit = PVC.replace("spec:\n", 'spec:\n  storageClassName: ""\n', 1)  # no class, on purpose
    assert _admit(policy, explicit, cluster=DEFAULT_CLASSES).evaluated["spec"]["storageClassName"] == ""


def test_ingress_class_and_node_taint() -> None:
    ingress = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop}
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}
"""
    result = _admit(_policy("true", resources="ingresses"), ingress, cluster=DEFAULT_CLASSES)
    assert result.evaluated is not None and result.evaluated["spec"]["ingressClassName"] == "nginx"
    annotated = ingress.replace(
        "namespace: shop}", "namespace: shop, annotations: {kubernetes.io/ingress.class: traefik}}"
    )
    result = _admit(_policy("true", resources="ingresses"), annotated, cluster=DEFAULT_CLASSES)
    assert result.evaluated is not None and "ingressClassName" not in result.evaluated["spec"]
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {}\n"
    result = _admit(_policy("true", resources="nodes"), node)
    assert result.evaluated is not None
    assert result.evaluated["spec"]["taints"] == [
        {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    ]


def test_a_pod_admitted_again_as_the_server_left_it_gets_the_same_object() -> None:
    first = _admit(_policy("true"), POD)
    assert first.evaluated is not None
    again = _admit(_policy("true"), yaml.safe_dump(first.evaluated))
    assert again.evaluated is not None
    assert again.evaluated["spec"] == first.evaluated["spec"]


# --- the round trip through the internal version ----------------------------------------------


def test_a_secret_is_read_with_data_only() -> None:
    secret = """\
apiVersion: v1
kind: Secret
metadata: {name: db, namespace: shop}
data: {user: YWRtaW4=, password: b2xk}
stringData: {password: hunter2}
"""
    policy = _policy(
        "!has(object.stringData)",
        # bytes at type-check time, base64 text at run time (admission reads JSON-shaped objects)
        "object.data.password == 'aHVudGVyMg==' && object.data.user == 'YWRtaW4='",
        resources="secrets",
    )
    result = _admit(policy, secret)
    assert result.allowed, result.denials
    assert result.evaluated is not None
    assert result.evaluated["data"] == {"user": "YWRtaW4=", "password": "aHVudGVyMg=="}


def test_service_account_alias_in_pod_templates() -> None:
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccount: legacy
      containers: [{name: app, image: "web:2.1"}]
"""
    policy = _policy(
        "object.spec.template.spec.serviceAccountName == 'legacy'",
        "object.spec.template.spec.serviceAccount == 'legacy'",
        resources="deployments",
    )
    assert _admit(policy, deployment).allowed
    # A template is no pod: the ServiceAccount plugin leaves it alone.
    assert "volumes" not in _admit(policy, deployment).evaluated["spec"]["template"]["spec"]


def test_a_daemon_sets_template_generation_annotation() -> None:
    daemon_set = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1"}]
"""
    generation = "object.metadata.annotations['deprecated.daemonset.template.generation'] == '{}'"
    created = _admit(_policy(generation.format(1), resources="daemonsets"), daemon_set)
    assert created.allowed, created.denials
    assert created.evaluated is not None
    stored = yaml.safe_dump(created.evaluated)
    changed = daemon_set.replace('"agent:1"', '"agent:2"')
    assert _admit(
        _policy(generation.format(2), resources="daemonsets"), changed, operation="UPDATE", old=stored
    ).allowed
    labelled = daemon_set.replace("name: agent, namespace", "name: agent, labels: {a: b}, namespace")
    assert _admit(
        _policy(generation.format(1), resources="daemonsets"), labelled, operation="UPDATE", old=stored
    ).allowed


def test_kaptest_style_runs_skip_the_servers_own_steps() -> None:
    prepared = prepare(
        PolicyInputs.from_objects(yaml.safe_load_all(_policy("true"))),
        kubernetes_version="1.35",
        builtin_admission=False,
    )
    result = prepared.admit(AdmissionRequestInput("CREATE", yaml.safe_load(POD)))
    assert result.evaluated is not None
    assert {"serviceAccountName", "priority", "tolerations"} & result.evaluated["spec"].keys() == set()


def test_a_stored_node_keeps_the_taints_it_has() -> None:
    # The node controller removes node.kubernetes.io/not-ready once the node is ready: a stored
    # Node is not given it again (only a Pod's plugin-set fields stay for good).
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: true}\n"
    result = _admit(
        _policy("!has(oldObject.spec.taints)", resources="nodes"), node, operation="UPDATE", old=node
    )
    assert result.allowed, result.denials
