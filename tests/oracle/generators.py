# ruff: noqa: E501  (server messages and generated literals are kept on one line each)
"""Generated differential cases: CEL expressions from a small typed grammar over `object`,
`oldObject`, `params`, `request`, `variables`; objects of built-in kinds; policies, bindings and
requests for `run` (validations, variables, matchConditions, selectors, exclusions, mutations).

Why a grammar: random text mostly fails to parse; typed generation reaches evaluation, where
vap-lsp and cel-go/Kubernetes can actually disagree (values, errors, costs, types).
Hypothesis drives every case through one `random.Random` it seeds (`cases(...)`): a case is
reproducible from its seed, and thousands are generated per second (a strategy per grammar node
costs ~100 ms a case)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

NAMES = ["a", "web", "db-1", "x.y", "api-server", "z9"]
LABEL_KEYS = ["app", "tier", "env", "example.com/team", "k"]
LABEL_VALUES = ["web", "db", "prod", "dev", "", "a.b", "x-1"]
IMAGES = ["nginx", "nginx:1.25", "nginx:latest", "reg.io/a/b:v1", "busybox@sha256:" + "a" * 64]
NAMESPACES = ["default", "prod", "dev"]

STRING_LITERALS = [
    "'a'",
    "'web'",
    "''",
    "'x,y,z'",
    "'ÄÖü'",
    "'🙂x'",
    "'a\\\\b'",
    "'  pad '",
    "'100m'",
    "'1Gi'",
    '"1.25"',
]
INT_LITERALS = ["0", "1", "-1", "7", "42", "9223372036854775807", "-9223372036854775808", "3"]
DOUBLE_LITERALS = ["1.5", "0.0", "-2.25", "1e3", "0.1"]
INT_TEXTS = ['"12"', '"-3"', '"x"', '"0x1"']
QUANTITY_TEXTS = ['"100m"', '"1Gi"', '"2.5"']
REGEXES = ['"^a"', '"[0-9]+"', '"^$"', '".*:latest$"']
SEPARATORS = ['","', '""', '"a"']


def cases(make: Callable[[random.Random], Any]) -> st.SearchStrategy[Any]:
    """A strategy of `make(rng)` with `rng` seeded by Hypothesis."""
    return st.randoms(use_true_random=False).map(make)


# --- objects ----------------------------------------------------------------------------------


def labels(r: random.Random, max_size: int = 3) -> dict[str, str]:
    return {r.choice(LABEL_KEYS): r.choice(LABEL_VALUES) for _ in range(r.randint(0, max_size))}


def containers(r: random.Random) -> list[dict[str, Any]]:
    out = []
    for i in range(r.randint(1, 3)):
        c: dict[str, Any] = {"name": f"c{i}", "image": r.choice(IMAGES)}
        if r.random() < 0.5:
            c["resources"] = {
                "limits": {"cpu": r.choice(["100m", "1", "2.5", "500m"])},
                "requests": {"memory": r.choice(["64Mi", "1Gi", "128974848"])},
            }
        if r.random() < 0.5:
            c["securityContext"] = {"privileged": r.random() < 0.5, "runAsNonRoot": r.random() < 0.5}
        if r.random() < 0.3:
            c["env"] = [{"name": "A", "value": r.choice(["1", "x", ""])}]
        if r.random() < 0.3:
            c["ports"] = [{"containerPort": r.choice([80, 443, 8080]), "name": "http"}]
        out.append(c)
    return out


def deployment(r: random.Random, namespace: str | None = None) -> dict[str, Any]:
    app = r.choice(["web", "db"])
    meta: dict[str, Any] = {"name": r.choice(NAMES), "namespace": namespace or r.choice(NAMESPACES)}
    meta["labels"] = {**labels(r), "app": app}
    if r.random() < 0.3:
        meta["annotations"] = {"note": r.choice(["x", "a b", "1"])}
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": app}},
        "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": containers(r)}},
    }
    if r.random() < 0.7:
        spec["replicas"] = r.randint(0, 12)
    if r.random() < 0.3:
        spec["strategy"] = {"type": "Recreate"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def pod(r: random.Random, namespace: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": r.choice(NAMES),
        "namespace": namespace or r.choice(NAMESPACES),
        "labels": labels(r),
    }
    spec: dict[str, Any] = {"containers": containers(r)}
    if r.random() < 0.3:
        spec["hostNetwork"] = r.random() < 0.5
    if r.random() < 0.3:
        spec["nodeSelector"] = {"disk": r.choice(["ssd", "hdd"])}
    if r.random() < 0.3:
        spec["restartPolicy"] = r.choice(["Always", "Never", "OnFailure"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def configmap(r: random.Random, namespace: str | None = None, name: str | None = None) -> dict[str, Any]:
    data = {
        r.choice(["k", "max", "mode", "list"]): r.choice(["1", "5", "a,b", "on", ""])
        for _ in range(r.randint(0, 3))
    }
    meta: dict[str, Any] = {
        "name": name or r.choice(NAMES),
        "namespace": namespace or r.choice(NAMESPACES),
        "labels": labels(r),
    }
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


KINDS: dict[str, Callable[..., dict[str, Any]]] = {
    "apps/v1/Deployment": deployment,
    "v1/Pod": pod,
    "v1/ConfigMap": configmap,
}


def namespace_object(name: str, lbls: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": lbls}}


# --- CEL --------------------------------------------------------------------------------------

# Paths that exist for each kind, with their CEL type.
PATHS: dict[str, list[tuple[str, str]]] = {
    "apps/v1/Deployment": [
        ("object.metadata.name", "string"),
        ("object.metadata.namespace", "string"),
        ("object.spec.replicas", "int"),
        ("object.spec.template.spec.containers", "list"),
        ("object.metadata.labels", "map"),
        ("object.spec.strategy.type", "string"),
        ("object.spec.revisionHistoryLimit", "int"),
        ("object.spec.template.spec.restartPolicy", "string"),
        ("object.spec.template.spec.terminationGracePeriodSeconds", "int"),
    ],
    "v1/Pod": [
        ("object.metadata.name", "string"),
        ("object.spec.containers", "list"),
        ("object.metadata.labels", "map"),
        ("object.spec.restartPolicy", "string"),
        ("object.spec.dnsPolicy", "string"),
        ("object.spec.schedulerName", "string"),
        ("object.spec.enableServiceLinks", "bool"),
    ],
    "v1/ConfigMap": [
        ("object.metadata.name", "string"),
        ("object.data", "map"),
        ("object.metadata.labels", "map"),
    ],
}
REQUEST_STRINGS = [
    "request.operation",
    "request.userInfo.username",
    "request.namespace",
    "request.kind.kind",
    "request.name",
]


class Cel:
    """The typed grammar: `expr(type)` is an expression of that CEL type (or, for `any`, of
    any type); depth-bounded. `extra` are more leaves per type (variables, params)."""

    TYPES = ("int", "string", "bool", "double", "list", "map")

    def __init__(self, r: random.Random, kind: str, extra: dict[str, list[str]] | None = None) -> None:
        self.r = r
        self.kind = kind
        self.extra = extra or {}

    def expr(self, typ: str = "any", depth: int = 0) -> str:
        if typ == "any":
            typ = self.r.choice(self.TYPES)
        if depth > 2 or self.r.random() < 0.4:
            return self.leaf(typ)
        return getattr(self, f"_{typ}")(depth + 1)

    def leaf(self, typ: str) -> str:
        r = self.r
        paths = [p for p, t in PATHS[self.kind] if t == typ] + self.extra.get(typ, [])
        literals = {
            "int": INT_LITERALS,
            "string": STRING_LITERALS + REQUEST_STRINGS,
            "bool": ["true", "false"],
            "double": DOUBLE_LITERALS,
            "list": ["[1, 2, 3]", "['a', 'b']", "[]", "[1, 2, 2]"],
            "map": ["{'a': 1}", "{}"],
        }[typ]
        return r.choice(paths) if paths and r.random() < 0.5 else r.choice(literals)

    def _int(self, d: int) -> str:
        r, e = self.r, self.expr
        return r.choice(
            [
                lambda: f"({e('int', d)} {r.choice(['+', '-', '*', '/', '%'])} {e('int', d)})",
                lambda: f"size({e('string', d)})",
                lambda: f"size({e('list', d)})",
                lambda: f"({e('bool', d)} ? {e('int', d)} : {e('int', d)})",
                lambda: f"int({e('double', d)})",
                lambda: f"{e('string', d)}.indexOf({e('string', d)})",
                lambda: f"[{e('int', d)}, {e('int', d)}].{r.choice(['max()', 'sum()', 'min()'])}",
                lambda: f"math.abs({e('int', d)})",
                lambda: f"math.greatest({e('int', d)}, {e('int', d)})",
                lambda: f"int({r.choice(INT_TEXTS)})",
                lambda: f"{e('string', d)}.lastIndexOf('a')",
            ]
        )()

    def _double(self, d: int) -> str:
        r, e = self.r, self.expr
        return r.choice(
            [
                lambda: f"({e('double', d)} {r.choice(['+', '-', '*', '/'])} {e('double', d)})",
                lambda: f"double({e('int', d)})",
                lambda: f"quantity({r.choice(QUANTITY_TEXTS)}).asApproximateFloat()",
                lambda: f"math.ceil({e('double', d)})",
                lambda: f"math.round({e('double', d)})",
            ]
        )()

    def _string(self, d: int) -> str:
        r, e = self.r, self.expr
        return r.choice(
            [
                lambda: f"({e('string', d)} + {e('string', d)})",
                lambda: (
                    f"{e('string', d)}.{r.choice(['lowerAscii()', 'upperAscii()', 'trim()', 'reverse()'])}"
                ),
                lambda: f"{e('string', d)}.replace({self.leaf('string')}, {self.leaf('string')})",
                lambda: f"{e('string', d)}.substring({r.choice(['0', '1', '3'])})",
                lambda: f"string({e('int', d)})",
                lambda: f"string({e('double', d)})",
                lambda: f"{e('string', d)}.split({r.choice(SEPARATORS)}).join('-')",
                lambda: f"({e('bool', d)} ? {e('string', d)} : {e('string', d)})",
                lambda: f"{e('string', d)}.charAt({r.choice(['0', '1', '2'])})",
                lambda: f"strings.quote({e('string', d)})",
                lambda: f"'%s-%d'.format([{e('string', d)}, {e('int', d)}])",
                lambda: f"string({e('bool', d)})",
            ]
        )()

    def _bool(self, d: int) -> str:
        r, e = self.r, self.expr
        return r.choice(
            [
                lambda: f"({e('int', d)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {e('int', d)})",
                lambda: f"({e('string', d)} {r.choice(['<', '==', '!=', '>='])} {e('string', d)})",
                lambda: f"({e('bool', d)} {r.choice(['&&', '||'])} {e('bool', d)})",
                lambda: f"!{e('bool', d)}",
                lambda: (
                    f"{e('string', d)}.{r.choice(['startsWith', 'endsWith', 'contains'])}({e('string', d)})"
                ),
                lambda: f"{e('string', d)}.matches({r.choice(REGEXES)})",
                lambda: f"{e('list', d)}.{r.choice(['all', 'exists', 'exists_one'])}(x, {self.pred('x')})",
                lambda: (
                    f"has({r.choice(['object.metadata.labels', 'object.spec', 'object.metadata.annotations', 'object.status'])})"
                ),
                lambda: f"{self.leaf('string')} in {e('map', d)}",
                lambda: f"({e('int', d)} == {e('double', d)})",
                lambda: f"isQuantity({self.leaf('string')})",
                lambda: f"object.?metadata.?labels.?app.orValue('none') == {self.leaf('string')}",
                lambda: f"{e('list', d)} == {e('list', d)}",
                lambda: f"{e('int', d)} in {e('list', d)}",
            ]
        )()

    def pred(self, var: str) -> str:
        return self.r.choice(
            [f"string({var}) != ''", f"type({var}) == int", f"{var} == 2", "true", f"size(string({var})) > 1"]
        )

    def _list(self, d: int) -> str:
        r, e = self.r, self.expr
        return r.choice(
            [
                lambda: f"{e('list', d)}.map(x, string(x))",
                lambda: f"{e('list', d)}.filter(x, {self.pred('x')})",
                lambda: f"({e('list', d)} + {self.leaf('list')})",
                lambda: f"[{e('int', d)}, {e('int', d)}]",
                lambda: f"{e('string', d)}.split({r.choice(SEPARATORS)})",
                lambda: f"{e('list', d)}.map(x, string(x)).sort()",
                lambda: f"{e('list', d)}.distinct()",
                # `k` marks the iteration of a map (Go's order is random: DELIBERATE.md).
                lambda: f"{e('map', d)}.map(k, k)",
            ]
        )()

    def _map(self, d: int) -> str:
        return f"{{{self.expr('string', d)}: {self.expr('int', d)}}}"


def as_file(obj: Any) -> str:
    """A document as file content (JSON is YAML)."""
    return json.dumps(obj)


# --- run: policies, bindings, requests -----------------------------------------------------------

RESOURCES = {
    "apps/v1/Deployment": ("apps", "v1", "deployments"),
    "v1/Pod": ("", "v1", "pods"),
    "v1/ConfigMap": ("", "v1", "configmaps"),
}


def selector(r: random.Random) -> dict[str, Any]:
    """A label selector over the generated labels (sometimes empty: everything)."""
    out: dict[str, Any] = {}
    if r.random() < 0.5:
        out["matchLabels"] = {r.choice(LABEL_KEYS): r.choice(LABEL_VALUES)}
    if r.random() < 0.4:
        op = r.choice(["In", "NotIn", "Exists", "DoesNotExist"])
        expr: dict[str, Any] = {"key": r.choice(LABEL_KEYS), "operator": op}
        if op in ("In", "NotIn"):
            expr["values"] = r.sample(LABEL_VALUES, r.randint(1, 2))
        out["matchExpressions"] = [expr]
    return out


def rules(r: random.Random, kind: str) -> list[dict[str, Any]]:
    group, version, resource = RESOURCES[kind]
    rule: dict[str, Any] = {
        "apiGroups": [r.choice([group, "*"])],
        "apiVersions": [r.choice([version, "*"])],
        "operations": r.sample(["CREATE", "UPDATE", "DELETE", "*"], r.randint(1, 2)),
        "resources": [r.choice([resource, "*", f"{resource}/*"])],
    }
    if r.random() < 0.2:
        rule["scope"] = r.choice(["Namespaced", "*"])
    if r.random() < 0.15:
        rule["resourceNames"] = [r.choice(NAMES)]
    return [rule]


def match_resources(r: random.Random, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {"resourceRules": rules(r, kind)}
    if r.random() < 0.3:
        out["namespaceSelector"] = selector(r)
    if r.random() < 0.3:
        out["objectSelector"] = selector(r)
    if r.random() < 0.2:
        out["excludeResourceRules"] = rules(r, kind)
    if r.random() < 0.3:
        out["matchPolicy"] = r.choice(["Exact", "Equivalent"])
    return out


def run_case_inputs(r: random.Random) -> dict[str, Any]:
    """Namespaces, a VAP (validations, messageExpressions, variables, matchConditions, audit
    annotations) and maybe a MAP (apply configuration or JSON Patch) with bindings, and one
    request (CREATE, UPDATE or DELETE) by a generated user."""
    kind = r.choice(sorted(KINDS))
    namespace = r.choice(NAMESPACES)
    docs: list[dict[str, Any]] = [namespace_object(ns, labels(r)) for ns in NAMESPACES]
    variables = [
        {"name": "v0", "expression": Cel(r, kind).expr("int")},
        {"name": "v1", "expression": Cel(r, kind).expr("string")},
    ]
    extra = {"int": ["variables.v0"], "string": ["variables.v1"]}
    cel = Cel(r, kind, extra)
    validations = []
    for _ in range(r.randint(1, 3)):
        v: dict[str, Any] = {"expression": cel.expr("bool")}
        if r.random() < 0.4:
            v["messageExpression"] = cel.expr("string")
        elif r.random() < 0.5:
            v["message"] = r.choice(["too bad", "no"])
        if r.random() < 0.2:
            v["reason"] = r.choice(["Forbidden", "Invalid", "RequestEntityTooLarge"])
        validations.append(v)
    spec: dict[str, Any] = {
        "failurePolicy": r.choice(["Fail", "Ignore"]),
        "matchConstraints": match_resources(r, kind),
        "variables": variables,
        "validations": validations,
    }
    if r.random() < 0.4:
        spec["matchConditions"] = [{"name": "c0", "expression": Cel(r, kind).expr("bool")}]
    if r.random() < 0.3:
        spec["auditAnnotations"] = [{"key": "k", "valueExpression": cel.expr("string")}]
    docs.append(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "vap"},
            "spec": spec,
        }
    )
    binding: dict[str, Any] = {
        "policyName": "vap",
        "validationActions": r.choice([["Deny"], ["Warn"], ["Audit"], ["Deny", "Audit"], ["Warn", "Audit"]]),
    }
    if r.random() < 0.3:
        binding["matchResources"] = match_resources(r, kind)
    docs.append(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "vap-b"},
            "spec": binding,
        }
    )
    if r.random() < 0.5:
        docs.extend(mutating_policy(r, kind))
    obj = KINDS[kind](r, namespace)
    operation = r.choice(["CREATE", "CREATE", "UPDATE", "DELETE"])
    old = None
    if operation != "CREATE":
        old = KINDS[kind](r, namespace)
        old["metadata"]["name"] = obj["metadata"]["name"]
    user = r.choice(["system:anonymous", "alice", "system:serviceaccount:default:sa"])
    groups = tuple(r.sample(["system:authenticated", "dev", "system:masters"], r.randint(0, 2)))
    return {"documents": docs, "obj": obj, "old": old, "operation": operation, "user": user, "groups": groups}


def mutating_policy(r: random.Random, kind: str) -> list[dict[str, Any]]:
    """A MAP setting labels, annotations or (Deployments) replicas, by apply configuration or
    JSON Patch (add / replace / remove / test)."""
    key = r.choice(["team", "app", "example.com~1x", "env"])
    value = r.choice(["'a'", "'b'", "object.metadata.name", "string(size(object.metadata.name))"])
    if r.random() < 0.5:
        fields = [f"labels: {{'{key.replace('~1', '/')}': {value}}}"]
        if r.random() < 0.4:
            fields.append(f"annotations: {{'note': {value}}}")
        expr = f"Object{{metadata: Object.metadata{{{', '.join(fields)}}}}}"
        if kind == "apps/v1/Deployment" and r.random() < 0.3:
            expr = (
                f"Object{{spec: Object.spec{{replicas: {r.choice(['0', '3', 'object.spec.replicas + 1'])}}}}}"
            )
        mutation = {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expr}}
    else:
        op = r.choice(["add", "replace", "remove", "test"])
        path = r.choice(
            [
                f"/metadata/labels/{key}",
                "/metadata/annotations",
                f"/metadata/annotations/{key}",
                "/metadata/labels",
            ]
        )
        patch = (
            f"JSONPatch{{op: '{op}', path: '{path}'"
            + ("" if op == "remove" else f", value: {value if path.count('/') > 2 else '{}'}")
            + "}"
        )
        if r.random() < 0.3:
            patch = f"JSONPatch{{op: 'add', path: '/metadata/labels', value: {{}}}}, {patch}"
        mutation = {"patchType": "JSONPatch", "jsonPatch": {"expression": f"[{patch}]"}}
    spec: dict[str, Any] = {
        "failurePolicy": r.choice(["Fail", "Ignore"]),
        "reinvocationPolicy": r.choice(["Never", "IfNeeded"]),
        "matchConstraints": match_resources(r, kind),
        "mutations": [mutation],
    }
    return [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "map"},
            "spec": spec,
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "map-b"},
            "spec": {"policyName": "map"},
        },
    ]
