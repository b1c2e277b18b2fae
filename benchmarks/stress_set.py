"""Generated Pod-Security-shaped policies: the stress set of `bench_analysis.py`.

Real policy libraries check Pod Security as long chains of `has()` tests over every kind that
carries a pod template, dispatching on `object.kind`. Analysis cost must grow with the size of
the CEL, not with the number of `has()` facts times the number of kinds: these policies vary
each dimension on its own.

- `pss_policy(kb, kinds)`: validations guarded by kind tests (`object.kind != 'Pod' || …`), each
  a chain of `has()` tests and per-container comprehensions, until the CEL reaches `kb` KB;
- `facts_policy(facts, kinds)`: one validation of `facts` `has()` tests;
- `nested_policy(kb, kinds)`: comprehensions three deep (containers, ports, capabilities);
- `variables_policy(count, kinds)`: `count` variables, each reading the ones before it;
- `library(files)`: a library of PSS policies and their bindings, one per file.

`python benchmarks/stress_set.py OUTDIR` writes the set as files.
"""

from __future__ import annotations

import sys
from pathlib import Path

# (resource rule group, resource, kind, root of the pod spec as CEL)
KINDS: tuple[tuple[str, str, str, str], ...] = (
    ("", "pods", "Pod", "object.spec"),
    ("", "replicationcontrollers", "ReplicationController", "object.spec.template.spec"),
    ("", "podtemplates", "PodTemplate", "object.template.spec"),
    ("apps", "deployments", "Deployment", "object.spec.template.spec"),
    ("apps", "replicasets", "ReplicaSet", "object.spec.template.spec"),
    ("apps", "daemonsets", "DaemonSet", "object.spec.template.spec"),
    ("apps", "statefulsets", "StatefulSet", "object.spec.template.spec"),
    ("batch", "jobs", "Job", "object.spec.template.spec"),
    ("batch", "cronjobs", "CronJob", "object.spec.jobTemplate.spec.template.spec"),
    ("apps", "controllerrevisions", "ControllerRevision", "object.data"),
    ("", "podtemplates", "PodTemplate", "object.template.spec"),
)
"""Eleven entries: the pod-template kinds, a ControllerRevision (no pod spec at all) and the
PodTemplate again, as libraries list it twice in separate rules."""

_FIELDS = (
    ("runAsNonRoot", "== true"),
    ("privileged", "!= true"),
    ("allowPrivilegeEscalation", "!= true"),
    ("readOnlyRootFilesystem", "== true"),
    ("runAsUser", "!= 0"),
    ("procMount", "== 'Default'"),
)


def _rules(kinds: int) -> str:
    by_group: dict[str, list[str]] = {}
    for group, resource, _, _ in KINDS[:kinds]:
        if resource not in by_group.setdefault(group, []):
            by_group[group].append(resource)
    out = []
    for group, resources in by_group.items():
        out.append(
            f'    - apiGroups: ["{group}"]\n      apiVersions: ["v1"]\n'
            f'      operations: ["CREATE", "UPDATE"]\n      resources: {_list(resources)}'
        )
    return "\n".join(out)


def _list(items: list[str]) -> str:
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def _container_check(field: str, test: str, root: str) -> str:
    sc = f"{root}.securityContext"
    return (
        f"(has(c.securityContext) && has(c.securityContext.{field}) && c.securityContext.{field} {test}) || "
        f"(!has(c.securityContext) || !has(c.securityContext.{field})) && "
        f"(!has({sc}) || !has({sc}.{field}) || {sc}.{field} {test})"
    )


def _chain(root: str, field: str, test: str) -> str:
    sc = f"{root}.securityContext"
    per = _container_check(field, test, root)
    parts = [f"(!has({sc}) || !has({sc}.{field}) || {sc}.{field} {test})"]
    for lists in ("initContainers", "ephemeralContainers"):
        parts.append(f"(!has({root}.{lists}) || {root}.{lists}.all(c, {per}))")
    parts.append(f"{root}.containers.all(c, {per})")
    return " &&\n        ".join(parts)


def _guard(kind: str) -> str:
    return f"object.kind != '{kind}'"


def _validations(kb: int, kinds: int, body: object) -> list[str]:
    """Validations of about `kb` KB of CEL in all, one per (kind, field) in turn."""
    used = [k for k in KINDS[:kinds] if k[3] != "object.data"] or [KINDS[0]]
    seen: list[tuple[str, str]] = []
    for _, _, kind, root in used:
        if (kind, root) not in seen:
            seen.append((kind, root))
    out: list[str] = []
    size = 0
    i = 0
    while size < kb * 1024:
        kind, root = seen[i % len(seen)]
        field, test = _FIELDS[(i // len(seen)) % len(_FIELDS)]
        assert callable(body)
        expression = f"{_guard(kind)} ||\n        " + body(root, field, test)
        out.append(expression)
        size += len(expression)
        i += 1
    return out


def _policy(name: str, kinds: int, validations: list[str], variables: list[tuple[str, str]] = ()) -> str:  # type: ignore[assignment]
    lines = [
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicy",
        "metadata:",
        f"  name: {name}",
        "spec:",
        "  failurePolicy: Fail",
        "  matchConstraints:",
        "    resourceRules:",
        _rules(kinds),
    ]
    if variables:
        lines.append("  variables:")
        for var, expression in variables:
            lines.append(f"    - name: {var}\n      expression: >-\n        {expression}")
    lines.append("  validations:")
    for i, expression in enumerate(validations):
        lines.append(f"    - expression: >-\n        {expression}\n      message: check {i} failed")
    return "\n".join(lines) + "\n"


def cel_size(text: str) -> int:
    """Characters of CEL in a generated policy (its folded expressions as written)."""
    total = 0
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("- expression:", "expression:")):
            inside = True
            continue
        if inside and (stripped.startswith(("message:", "- ")) or not line.startswith("        ")):
            inside = False
        if inside:
            total += len(stripped) + 1
    return total


def pss_policy(kb: int, kinds: int = 11, name: str = "stress-pss.example.com") -> str:
    return _policy(name, kinds, _validations(kb, kinds, _chain))


def facts_policy(facts: int, kinds: int = 11) -> str:
    """One validation of `facts` `has()` tests on the pod spec (a guarded chain per kind)."""
    used = [k for k in KINDS[:kinds] if k[3] != "object.data"] or [KINDS[0]]
    parts: list[str] = []
    n = 0
    i = 0
    while n < facts:
        _, _, kind, root = used[i % len(used)]
        field, test = _FIELDS[(i // len(used)) % len(_FIELDS)]
        sc = f"{root}.securityContext"
        parts.append(f"({_guard(kind)} || !has({sc}) || !has({sc}.{field}) || {sc}.{field} {test})")
        n += 3  # has(sc), has(sc.field) and the kind test
        i += 1
    return _policy("stress-facts.example.com", kinds, [" &&\n        ".join(parts)])


def _nested(root: str, field: str, test: str) -> str:
    return (
        f"{root}.containers.all(c, !has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0 || "
        f"(has(c.securityContext) && has(c.securityContext.capabilities) && "
        f"has(c.securityContext.capabilities.add) && c.securityContext.capabilities.add.all(cap, "
        f"cap in ['NET_BIND_SERVICE'] && {root}.containers.exists(o, o.name != c.name || "
        f"!has(o.securityContext) || !has(o.securityContext.{field}))))))"
    )


def nested_policy(kb: int, kinds: int = 11) -> str:
    return _policy("stress-nested.example.com", kinds, _validations(kb, kinds, _nested))


def variables_policy(count: int, kinds: int = 11) -> str:
    """`count` variables: a kind-dispatching pod spec, then each reading the one before."""
    variables = [
        (
            "spec",
            "object.kind == 'Pod' ? object.spec : object.kind == 'CronJob' ? "
            "object.spec.jobTemplate.spec.template.spec : object.kind == 'PodTemplate' ? "
            "object.template.spec : object.spec.template.spec",
        ),
        ("containers", "variables.spec.containers + (has(variables.spec.initContainers) ? "
         "variables.spec.initContainers : [])"),
    ]  # fmt: skip
    for i in range(count - len(variables)):
        field, test = _FIELDS[i % len(_FIELDS)]
        previous = variables[-1][0]
        reads = f"variables.{previous}" if i else "true"
        variables.append(
            (
                f"v{i}",
                f"{reads} && variables.containers.all(c, !has(c.securityContext) || "
                f"!has(c.securityContext.{field}) || c.securityContext.{field} {test})",
            )
        )
    validations = [f"variables.{variables[-1][0]}", "variables.containers.all(c, c.name != '')"]
    return _policy("stress-variables.example.com", kinds, validations, variables)


def binding(policy: str) -> str:
    return (
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        f"metadata:\n  name: {policy}-binding\nspec:\n  policyName: {policy}\n"
        "  validationActions: [Deny]\n"
    )


def library(files: int = 26) -> dict[str, str]:
    """A library like the community ones: PSS policies of 1–4 KB of CEL over the 11 kinds and a
    binding each, one object per file (`files` files in all)."""
    out: dict[str, str] = {}
    for i in range(files // 2):
        name = f"pss-{i:02d}.example.com"
        out[f"policies/pss-{i:02d}.yaml"] = pss_policy(1 + i % 4, 11, name)
        out[f"bindings/pss-{i:02d}-binding.yaml"] = binding(name)
    if files % 2:
        out["policies/extra.yaml"] = pss_policy(1, 11, "pss-extra.example.com")
    return out


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "stress")
    out.mkdir(parents=True, exist_ok=True)
    for kb in (1, 4, 16, 64):
        (out / f"pss-{kb}kb.yaml").write_text(pss_policy(kb), encoding="utf-8")
    for name, text in library().items():
        path = out / "library" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote the stress set to {out}")


if __name__ == "__main__":
    main()
